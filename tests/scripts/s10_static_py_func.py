"""A Python function as an op of a static program (paddle.static.py_func) with a Python
backward, trained with SGD; the op's gradient comes from the backward function."""

import numpy as np

import pyir as paddle

paddle.enable_static()


def leaky_cube(x):
    x = np.array(x)
    return np.where(x > 0, x ** 3, 0.1 * x).astype("float32")


def leaky_cube_grad(x, y, dy):
    # backward receives the forward inputs, outputs and the output gradients
    x, dy = np.array(x), np.array(dy)
    return (np.where(x > 0, 3 * x ** 2, 0.1) * dy).astype("float32")


rng = np.random.default_rng(12)
x_np = rng.uniform(-1, 1, (8, 3)).astype("float32")
y_np = rng.uniform(-1, 1, (8, 1)).astype("float32")
w_np = rng.uniform(-0.5, 0.5, (3, 4)).astype("float32")

main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    x = paddle.static.data("x", [-1, 3], "float32")
    y = paddle.static.data("y", [-1, 1], "float32")
    h = paddle.static.nn.fc(x, 4, weight_attr=paddle.ParamAttr(
        initializer=paddle.nn.initializer.Assign(w_np)))
    out = main.current_block().create_var(name="cube_out", dtype="float32", shape=h.shape)
    paddle.static.py_func(func=leaky_cube, x=h, out=out, backward_func=leaky_cube_grad)
    pred = paddle.static.nn.fc(out, 1, weight_attr=paddle.ParamAttr(
        initializer=paddle.nn.initializer.Constant(0.3)))
    loss = paddle.mean(paddle.square(pred - y))
    paddle.optimizer.SGD(learning_rate=0.2).minimize(loss)

exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
losses, outs = [], []
for step in range(5):
    l, o = exe.run(main, feed={"x": x_np, "y": y_np}, fetch_list=[loss, out])
    losses.append(float(l))
    outs.append(o)
print(losses)
results = {"losses": np.array(losses), "cube0": outs[0], "cube_last": outs[-1]}
