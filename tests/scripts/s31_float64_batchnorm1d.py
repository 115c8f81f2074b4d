"""Training in float64 via paddle.set_default_dtype: BatchNorm1D on [N, C] and [N, C, L]
inputs in train and eval mode, LayerNorm, a Dropout with p=0 in train mode, a tiny model
trained with RMSProp, and to_tensor following the default dtype."""

import numpy as np

import pyir as paddle
import pyir.nn as nn

paddle.set_default_dtype("float64")
rng = np.random.default_rng(16)

net = nn.Sequential(nn.Linear(5, 6), nn.BatchNorm1D(6), nn.ReLU(), nn.Dropout(0.0),
                    nn.Linear(6, 3), nn.LayerNorm(3))
for _, p in net.named_parameters():
    if not p.stop_gradient:
        p.set_value(rng.standard_normal(p.shape))
x = paddle.to_tensor(rng.standard_normal((8, 5)))
y = paddle.to_tensor(rng.standard_normal((8, 3)))
opt = paddle.optimizer.RMSProp(learning_rate=0.01, parameters=net.parameters())
losses = []
net.train()
for _ in range(4):
    loss = nn.functional.mse_loss(net(x), y)
    loss.backward()
    opt.step()
    opt.clear_grad()
    losses.append(float(loss))
net.eval()
eval_out = net(x)

bn3 = nn.BatchNorm1D(4, momentum=0.8, epsilon=1e-3)
seq = paddle.to_tensor(rng.standard_normal((2, 4, 5)))
train_out = bn3(seq)
bn3.eval()
eval3 = bn3(seq)

results = {
    "losses": np.array(losses), "eval_out": eval_out.numpy(),
    "dtype_is_f64": eval_out.dtype == paddle.float64,
    "param_f64": net[0].weight.dtype == paddle.float64,
    "to_tensor_f64": paddle.to_tensor([1.5]).dtype == paddle.float64,
    "default": paddle.get_default_dtype(),
    "bn_mean": net[1]._mean.numpy(), "bn_var": net[1]._variance.numpy(),
    "train3": train_out.numpy(), "eval3": eval3.numpy(), "mean3": bn3._mean.numpy(),
}
print(losses)
