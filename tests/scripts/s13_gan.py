"""A toy GAN: a generator and a discriminator, each with its own Adam optimizer, trained in
alternation with BCEWithLogitsLoss; the fake batch is detached for the discriminator step."""

import numpy as np

import pyir as paddle
import pyir.nn as nn

rng = np.random.default_rng(77)
real_data = (rng.standard_normal((16, 2)) * 0.3 + np.array([2.0, -1.0])).astype("float32")
noise = rng.standard_normal((16, 3)).astype("float32")

G = nn.Sequential(nn.Linear(3, 8), nn.LeakyReLU(0.2), nn.Linear(8, 2))
D = nn.Sequential(nn.Linear(2, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))
for net in (G, D):
    for _, p in net.named_parameters():
        p.set_value((rng.standard_normal(p.shape) * 0.4).astype("float32"))

opt_g = paddle.optimizer.Adam(learning_rate=0.01, beta1=0.5, parameters=G.parameters())
opt_d = paddle.optimizer.Adam(learning_rate=0.01, beta1=0.5, parameters=D.parameters())
bce = nn.BCEWithLogitsLoss()
ones = paddle.ones([16, 1])
zeros = paddle.zeros([16, 1])

d_losses, g_losses = [], []
for step in range(6):
    z = paddle.to_tensor(noise)
    fake = G(z)
    d_loss = bce(D(paddle.to_tensor(real_data)), ones) + bce(D(fake.detach()), zeros)
    d_loss.backward()
    opt_d.step()
    opt_d.clear_grad()

    g_loss = bce(D(fake), ones)
    g_loss.backward()
    opt_g.step()
    opt_g.clear_grad()
    opt_d.clear_grad()  # the generator step also reached D's parameters
    d_losses.append(float(d_loss))
    g_losses.append(float(g_loss))

print(d_losses, g_losses)
results = {"d_losses": np.array(d_losses), "g_losses": np.array(g_losses),
           "samples": G(paddle.to_tensor(noise[:4])).numpy(),
           "d_grad_cleared": D[0].weight.grad is None or
           float(paddle.abs(D[0].weight.grad).sum()) == 0.0}
