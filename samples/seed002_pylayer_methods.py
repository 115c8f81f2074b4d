"""Seed 002's method examples (`forward`/`backward`, then `apply`), unchanged but for
`import pyir as paddle`. The lines under `__main__` are ours: they use the layers.

    python samples/seed002_pylayer_methods.py
"""

import pyir as paddle
from pyir.autograd import PyLayer

class cus_tanh(PyLayer):
    @staticmethod
    def forward(ctx, x):
        y = paddle.tanh(x)
        # Pass tensors to backward.
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, dy):
        # Get the tensors passed by forward.
        y, = ctx.saved_tensor()
        grad = dy * (1 - paddle.square(y))
        return grad


first_layer = cus_tanh


class cus_tanh(PyLayer):
    @staticmethod
    def forward(ctx, x, func1, func2=paddle.square):
        ctx.func = func2
        y = func1(x)
        # Pass tensors to backward.
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, dy):
        # Get the tensors passed by forward.
        y, = ctx.saved_tensor()
        grad = dy * (1 - ctx.func(y))
        return grad


data = paddle.randn([2, 3], dtype="float64")
data.stop_gradient = False
# run custom Layer.
z = cus_tanh.apply(data, func1=paddle.tanh)

if __name__ == "__main__":
    first = first_layer.apply(data)
    (first + z).sum().backward()
    print(z)
    print(data.grad)  # 2 * (1 - tanh(data)^2)
