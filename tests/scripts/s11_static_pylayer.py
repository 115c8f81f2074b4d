"""paddle.static.nn.static_pylayer: a custom layer in a static program whose forward and
backward are Python functions built into sub-blocks; gradients via paddle.static.gradients
and a training step with SGD."""

import numpy as np

import pyir as paddle

paddle.enable_static()


def forward_fn(x):
    return paddle.exp(x) * 0.5


def backward_fn(dy):
    # a deliberately different backward: 2 * dy
    return dy * 2.0


rng = np.random.default_rng(30)
x_np = rng.standard_normal((4, 3)).astype("float32")

main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    x = paddle.static.data("x", [4, 3], "float32")
    x.stop_gradient = False
    y = paddle.static.nn.static_pylayer(forward_fn, [x], backward_fn)
    loss = paddle.sum(y * y)
    (gx,) = paddle.static.gradients([loss], [x])

exe = paddle.static.Executor()
exe.run(startup)
y_val, loss_val, gx_val = exe.run(main, feed={"x": x_np}, fetch_list=[y, loss, gx])

# the same layer between two trainable fc layers
main2, startup2 = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main2, startup2):
    x = paddle.static.data("x", [4, 3], "float32")
    h = paddle.static.nn.fc(x, 3, weight_attr=paddle.ParamAttr(
        name="w_in", initializer=paddle.nn.initializer.Assign(np.eye(3, dtype="float32") * 0.5)))
    h = paddle.static.nn.static_pylayer(forward_fn, [h], backward_fn)
    loss2 = paddle.mean(paddle.static.nn.fc(h, 1, weight_attr=paddle.ParamAttr(
        initializer=paddle.nn.initializer.Constant(0.2))))
    paddle.optimizer.SGD(learning_rate=0.5).minimize(loss2)
exe.run(startup2)
losses = [float(exe.run(main2, feed={"x": x_np}, fetch_list=[loss2])[0]) for _ in range(3)]
w_in = np.array(paddle.static.global_scope().find_var("w_in").get_tensor())
print(losses)
results = {"y": y_val, "loss": loss_val, "gx": gx_val, "losses": np.array(losses), "w_in": w_in}
