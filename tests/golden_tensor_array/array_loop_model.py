"""A while loop writing each step's state into a tensor array, stacked after the loop (built
by `pyir build` in tests/test_tensor_array.py)."""
import pyir as paddle
from pyir.static.nn import while_loop

paddle.enable_static()
x = paddle.static.data(name="x", shape=[2, 3], dtype="float32")
x.stop_gradient = False
arr = paddle.tensor.create_array("float32")


def body(i, h, arr):
    h = paddle.tanh(h * 0.5 + x)
    paddle.tensor.array_write(h, i, arr)
    return [i + 1, h, arr]


i = paddle.full([1], 0, "int64")
while_loop(lambda i, h, a: i < 3, body, [i, x * 1.0, arr])
stacked, _ = paddle.tensor.array.tensor_array_to_tensor(arr, axis=0, use_stack=True)
loss = paddle.mean(stacked * stacked)
