"""A static program from paddle.static.nn building blocks (embedding, conv2d, batch_norm,
fc, layer_norm) trained with Momentum, saved with paddle.static.save and restored into a
fresh scope with paddle.static.load; save_inference_model writes the file `pyir run` runs."""

import numpy as np

import pyir as paddle
import pyir.static as static

paddle.enable_static()
rng = np.random.default_rng(3)
ids_np = rng.integers(0, 10, (6, 4)).astype("int64")
img_np = rng.standard_normal((6, 1, 5, 5)).astype("float32")
y_np = rng.standard_normal((6, 1)).astype("float32")


def const(value):
    return paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(value))


def assign(shape, scale=0.3):
    return paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(
        (rng.standard_normal(shape) * scale).astype("float32")))


main, startup = static.Program(), static.Program()
with static.program_guard(main, startup):
    ids = static.data("ids", [None, 4], "int64")
    img = static.data("img", [None, 1, 5, 5], "float32")
    y = static.data("y", [None, 1], "float32")
    emb = static.nn.embedding(ids, size=[10, 3], param_attr=assign([10, 3]))
    text = paddle.mean(emb, axis=1)
    conv = static.nn.conv2d(img, num_filters=2, filter_size=3, param_attr=assign([2, 1, 3, 3]),
                            bias_attr=False)
    bn = static.nn.batch_norm(conv, act="relu", param_attr=const(1.0), bias_attr=const(0.0))
    vis = paddle.flatten(bn, 1)
    feat = paddle.concat([text, vis], axis=1)
    feat = static.nn.layer_norm(feat, begin_norm_axis=1)
    pred = static.nn.fc(feat, 1, weight_attr=assign([21, 1]), bias_attr=const(0.1))
    loss = paddle.nn.functional.square_error_cost(pred, y).mean()
    infer_prog = main.clone(for_test=True)
    paddle.optimizer.Momentum(learning_rate=0.05, momentum=0.9).minimize(loss)

exe = static.Executor(paddle.CPUPlace())
exe.run(startup)
feed = {"ids": ids_np, "img": img_np, "y": y_np}
losses = [float(exe.run(main, feed=feed, fetch_list=[loss])[0]) for _ in range(4)]
static.save(main, "ckpt/model")
(before,) = exe.run(infer_prog, feed=feed, fetch_list=[pred])
for _ in range(2):
    exe.run(main, feed=feed, fetch_list=[loss])

# back to the checkpoint, in a fresh scope
scope = static.Scope()
with static.scope_guard(scope):
    exe.run(startup)
    static.load(main, "ckpt/model", exe)
    (restored,) = exe.run(infer_prog, feed=feed, fetch_list=[pred])
    static.save_inference_model("infer/model", [ids, img], [pred], exe, program=infer_prog)
    np.savez("infer/feed.npz", ids=ids_np, img=img_np)

print(losses)
results = {"losses": np.array(losses), "before": before, "restored": restored}
