"""Eager autograd the way research code uses it: paddle.grad with several inputs and
retain_graph, gradient accumulation over two backward calls, detach / stop_gradient,
no_grad, clear_grad, a frozen layer, paddle.autograd.backward with grad_tensors, and a
gradient through indexing, concat, where and a custom loss."""

import numpy as np

import pyir as paddle
import pyir.nn as nn

rng = np.random.default_rng(99)
x = paddle.to_tensor(rng.standard_normal((4, 3)).astype("float32"), stop_gradient=False)
w = paddle.to_tensor(rng.standard_normal((3, 2)).astype("float32"), stop_gradient=False)
b = paddle.to_tensor(np.zeros(2, "float32"), stop_gradient=False)

y = paddle.tanh(x @ w + b)
loss = (y ** 2).sum()
gx, gw = paddle.grad(loss, [x, w], retain_graph=True)
(gb,) = paddle.grad([loss], [b], retain_graph=True)
loss.backward()
acc_once = w.grad.numpy().copy()
loss2 = (paddle.tanh(x @ w + b) ** 2).sum()
loss2.backward()           # gradients accumulate
acc_twice = w.grad.numpy().copy()
w.clear_grad()

# a frozen first layer and a detached branch
net = nn.Sequential(nn.Linear(3, 4), nn.Sigmoid(), nn.Linear(4, 1))
for _, p in net.named_parameters():
    p.set_value(rng.uniform(-0.5, 0.5, p.shape).astype("float32"))
for p in net[0].parameters():
    p.stop_gradient = True
h = net[1](net[0](x))
out = net[2](h) + net[2](h.detach()) * 0.5
out.mean().backward()
frozen_grad_is_none = net[0].weight.grad is None
head_grad = net[2].weight.grad.numpy()

with paddle.no_grad():
    z = x * 2
no_grad_stop = z.stop_gradient

# gradient through indexing, concat, where, maximum and a hinge loss
x.clear_grad()
parts = paddle.concat([x[:, :1] * 3.0, x[1:2].expand([4, 3])[:, 1:]], axis=1)
masked = paddle.where(parts > 0, parts, parts * 0.1)
hinge = paddle.maximum(1.0 - masked, paddle.zeros_like(masked)).sum()
paddle.autograd.backward([hinge], [paddle.to_tensor(2.0)])
index_grad = x.grad.numpy()

# gradient of a non-scalar output with grad_outputs
v = paddle.to_tensor(np.array([1.0, -1.0, 0.5, 2.0], "float32"))
(gv,) = paddle.grad(paddle.exp(x).sum(axis=1), x, grad_outputs=v)

results = {"gx": gx.numpy(), "gw": gw.numpy(), "gb": gb.numpy(), "acc_once": acc_once,
           "acc_twice": acc_twice, "frozen_grad_is_none": frozen_grad_is_none,
           "head_grad": head_grad, "no_grad_stop": no_grad_stop, "index_grad": index_grad,
           "gv": gv.numpy(), "y_stop": y.stop_gradient, "leaf": x.is_leaf and not y.is_leaf}
print(results)
