"""Static mode, the classic way: static.data, static.nn.fc with ParamAttr initializers, an
Executor running the startup program, Adam.minimize, a few training steps, then
save_inference_model / load_inference_model and a run of the loaded program."""

import numpy as np

import pyir as paddle
import pyir.static as static

paddle.enable_static()

rng = np.random.default_rng(0)
w1 = rng.standard_normal((6, 10)).astype("float32") * 0.4
w2 = rng.standard_normal((10, 3)).astype("float32") * 0.4
x_np = rng.standard_normal((16, 6)).astype("float32")
y_np = rng.integers(0, 3, size=(16, 1)).astype("int64")

main_prog, startup_prog = static.Program(), static.Program()
with static.program_guard(main_prog, startup_prog):
    x = static.data(name="x", shape=[None, 6], dtype="float32")
    label = static.data(name="label", shape=[None, 1], dtype="int64")
    hidden = static.nn.fc(x, size=10, activation="tanh",
                          weight_attr=paddle.ParamAttr(
                              name="fc1_w", initializer=paddle.nn.initializer.Assign(w1)),
                          bias_attr=paddle.ParamAttr(
                              name="fc1_b", initializer=paddle.nn.initializer.Constant(0.1)))
    logits = static.nn.fc(hidden, size=3,
                          weight_attr=paddle.ParamAttr(
                              name="fc2_w", initializer=paddle.nn.initializer.Assign(w2)),
                          bias_attr=False)
    prob = paddle.nn.functional.softmax(logits)
    loss = paddle.nn.functional.cross_entropy(logits, label)
    test_prog = main_prog.clone(for_test=True)
    paddle.optimizer.Adam(learning_rate=0.05).minimize(loss)

exe = static.Executor(paddle.CPUPlace())
exe.run(startup_prog)
losses = []
for step in range(5):
    (l,) = exe.run(main_prog, feed={"x": x_np, "label": y_np}, fetch_list=[loss])
    losses.append(float(l))
print("losses", losses)

(test_prob,) = exe.run(test_prog, feed={"x": x_np, "label": y_np}, fetch_list=[prob])

static.save_inference_model("infer/fc_net", [x], [prob], exe, program=test_prog)
program, feed_names, fetch_targets = static.load_inference_model("infer/fc_net", exe)
(loaded_prob,) = exe.run(program, feed={feed_names[0]: x_np[:4]}, fetch_list=fetch_targets)

scope = static.global_scope()
results = {
    "losses": np.array(losses),
    "test_prob": test_prob,
    "loaded_prob": loaded_prob,
    "feed_names": np.array(feed_names),
    "fc1_w": np.array(scope.find_var("fc1_w").get_tensor()),
    "fc1_b": np.array(scope.find_var("fc1_b").get_tensor()),
}
