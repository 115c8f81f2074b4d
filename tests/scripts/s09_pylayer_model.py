"""A custom autograd function (PyLayer) used inside a model: a clipped straight-through
estimator whose backward passes the gradient only inside [-1, 1], plus a scaled tanh with a
hand-written backward using saved tensors."""

import numpy as np

import pyir as paddle
import pyir.nn as nn
from pyir.autograd import PyLayer


class StraightThroughSign(PyLayer):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return paddle.sign(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensor()
        return grad * (paddle.abs(x) <= 1.0).astype(grad.dtype)


class ScaledTanh(PyLayer):
    @staticmethod
    def forward(ctx, x, scale):
        y = paddle.tanh(x)
        ctx.save_for_backward(y)
        ctx.scale = scale
        return y * scale

    @staticmethod
    def backward(ctx, dy):
        (y,) = ctx.saved_tensor()
        return dy * ctx.scale * (1 - paddle.square(y))


class BinaryNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 1)

    def forward(self, x):
        h = ScaledTanh.apply(self.fc1(x), 1.5)
        h = StraightThroughSign.apply(h) * 0.5 + h * 0.5
        return self.fc2(h)


net = BinaryNet()
rng = np.random.default_rng(4)
for _, p in net.named_parameters():
    p.set_value(rng.uniform(-0.6, 0.6, p.shape).astype("float32"))
x = paddle.to_tensor(rng.standard_normal((16, 4)).astype("float32"))
target = paddle.to_tensor(rng.standard_normal((16, 1)).astype("float32"))

opt = paddle.optimizer.SGD(learning_rate=0.05, parameters=net.parameters())
losses = []
for step in range(5):
    loss = paddle.mean((net(x) - target) ** 2)
    loss.backward()
    if step == 0:
        first_grad = net.fc1.weight.grad.numpy().copy()
    opt.step()
    opt.clear_grad()
    losses.append(float(loss))

# gradient of the PyLayer with respect to its input, through paddle.grad
xin = paddle.to_tensor(np.linspace(-2, 2, 9).astype("float32"), stop_gradient=False)
(gx,) = paddle.grad(StraightThroughSign.apply(xin).sum(), xin)
print(losses)
results = {"losses": np.array(losses), "first_grad": first_grad, "gx": gx.numpy(),
           "w": net.fc1.weight.numpy()}
