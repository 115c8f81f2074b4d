"""Seed 002's `cus_tanh` PyLayer used in a static program: `apply` on a Variable lowers it to a
`pylayer` op whose forward and backward are sub-blocks, so the custom gradient is saved with
the program.

    python samples/seed002_pylayer_static.py     # prints y and dy/dx = (1 - tanh(x)^2) / 6
"""

import pyir as paddle
from pyir.autograd import PyLayer

paddle.enable_static()


class cus_tanh(PyLayer):
    @staticmethod
    def forward(ctx, x, func1, func2=paddle.square):
        ctx.func = func2
        y = func1(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, dy):
        y, = ctx.saved_tensor()
        grad = dy * (1 - ctx.func(y))
        return grad


x = paddle.static.data(name="x", shape=[2, 3], dtype="float64")
x.stop_gradient = False
y = cus_tanh.apply(x, func1=paddle.tanh)
loss = paddle.mean(y)

if __name__ == "__main__":
    import numpy as np

    (x_grad,) = paddle.static.gradients([loss], [x])
    exe = paddle.static.Executor(paddle.CPUPlace())
    xv = np.linspace(-1.0, 1.0, 6).reshape(2, 3)
    y_value, g = exe.run(feed={"x": xv}, fetch_list=[y, x_grad])
    print(y_value)
    print(g)
