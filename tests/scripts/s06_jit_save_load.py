"""Train a small eager model, export it with paddle.jit.save and an InputSpec, load it back
with paddle.jit.load and check the loaded layer predicts the same numbers."""

import numpy as np

import pyir as paddle
import pyir.nn as nn
from pyir.static import InputSpec


class LinearNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(5, 8)
        self.act = nn.Hardswish()
        self.fc2 = nn.Linear(8, 2)

    def forward(self, x):
        return nn.functional.log_softmax(self.fc2(self.act(self.fc1(x))), axis=-1)


paddle.seed(3)
net = LinearNet()
rng = np.random.default_rng(8)
for name, p in net.named_parameters():
    p.set_value(rng.uniform(-0.5, 0.5, p.shape).astype("float32"))

x = rng.standard_normal((10, 5)).astype("float32")
y = (x.sum(axis=1, keepdims=True) > 0).astype("int64")
opt = paddle.optimizer.Momentum(learning_rate=0.1, momentum=0.9, parameters=net.parameters())
for _ in range(3):
    loss = nn.functional.nll_loss(net(paddle.to_tensor(x)), paddle.to_tensor(y).squeeze(-1))
    loss.backward()
    opt.step()
    opt.clear_grad()

net.eval()
expected = net(paddle.to_tensor(x)).numpy()
paddle.jit.save(net, "export/linear_net", input_spec=[InputSpec([None, 5], "float32", "x")])
np.save("export/x.npy", x[:3])

loaded = paddle.jit.load("export/linear_net")
loaded.eval()
got = loaded(paddle.to_tensor(x[:3]))
print(np.abs(got.numpy() - expected[:3]).max())
results = {"expected": expected, "loaded": got.numpy(), "final_loss": float(loss)}
