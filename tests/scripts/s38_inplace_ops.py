"""In-place tensor updates as training utilities write them: add_, scale_, clip_, zero_,
fill_, exp_, subtract_, multiply_, paddle.assign into an existing tensor, set_value on a
parameter under no_grad, an EMA of the weights, and in-place ops on a leaf's gradient."""

import numpy as np

import pyir as paddle
import pyir.nn as nn

rng = np.random.default_rng(38)
t = paddle.to_tensor(rng.standard_normal((2, 3)).astype("float32"))
history = []
t.add_(paddle.ones([2, 3]))
history.append(t.numpy().copy())
t.scale_(2.0)
history.append(t.numpy().copy())
t.clip_(-1.0, 1.5)
history.append(t.numpy().copy())
t.subtract_(paddle.full([2, 3], 0.25))
t.multiply_(paddle.full([2, 3], -2.0))
history.append(t.numpy().copy())
t.exp_()
history.append(t.numpy().copy())
u = paddle.zeros([2, 3])
paddle.assign(t * 0.5, output=u)
history.append(u.numpy().copy())
u.zero_()
u.fill_(3.0)
history.append(u.numpy().copy())
t.sqrt_()
t.floor_()
history.append(t.numpy().copy())

# an exponential moving average of a model's weights, updated in place
net = nn.Linear(3, 2)
ema = nn.Linear(3, 2)
for (_, p), (_, e) in zip(net.named_parameters(), ema.named_parameters()):
    v = rng.standard_normal(p.shape).astype("float32")
    p.set_value(v)
    e.set_value(v)
opt = paddle.optimizer.SGD(0.1, parameters=net.parameters())
x = paddle.to_tensor(rng.standard_normal((5, 3)).astype("float32"))
for _ in range(3):
    net(x).pow(2).mean().backward()
    with paddle.no_grad():
        net.weight.grad.scale_(0.5)  # halve the weight gradient in place
    opt.step()
    opt.clear_grad()
    with paddle.no_grad():
        for p, e in zip(net.parameters(), ema.parameters()):
            e.set_value(e * 0.9 + p * 0.1)

results = {"history": np.stack(history), "w": net.weight.numpy(), "ema_w": ema.weight.numpy(),
           "ema_b": ema.bias.numpy()}
print(results["history"].shape)
