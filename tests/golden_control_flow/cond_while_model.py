import pyir as paddle
from pyir.static.nn import cond, while_loop

paddle.enable_static()
x = paddle.static.data(name="x", shape=[3], dtype="float32")
x.stop_gradient = False
p = paddle.static.data(name="p", shape=[1], dtype="bool")
y = cond(p, lambda: paddle.tanh(x) * x, lambda: x * 3.0)
i = paddle.full([1], 0, "int64")
_, z = while_loop(lambda i, v: i < 3, lambda i, v: [i + 1, v * 0.5 + y], [i, y * 1.0])
loss = paddle.mean(z)
