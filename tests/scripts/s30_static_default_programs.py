"""A Paddle 2.x-era static script: the default main and startup programs (no
program_guard), fetches by variable name, fc over a 3-D input with num_flatten_dims=2, an L2
regularizer in a ParamAttr, append_backward then a manual SGD update by fetching gradients,
return_numpy=False, and the program's parameter list."""

import numpy as np

import pyir as paddle
import pyir.static as static

paddle.enable_static()
rng = np.random.default_rng(71)
seq_np = rng.standard_normal((2, 3, 4)).astype("float32")
tgt_np = rng.standard_normal((2, 3, 2)).astype("float32")

seq = static.data(name="seq", shape=[-1, 3, 4], dtype="float32")
tgt = static.data(name="tgt", shape=[-1, 3, 2], dtype="float32")
proj = static.nn.fc(seq, size=2, num_flatten_dims=2,
                    weight_attr=paddle.ParamAttr(
                        name="proj_w",
                        initializer=paddle.nn.initializer.Assign(
                            rng.standard_normal((4, 2)).astype("float32") * 0.5),
                        regularizer=paddle.regularizer.L2Decay(0.1)),
                    bias_attr=paddle.ParamAttr(name="proj_b"))
loss = paddle.mean(paddle.square(proj - tgt))
params_grads = static.append_backward(loss)

main = static.default_main_program()
exe = static.Executor(paddle.CPUPlace())
exe.run(static.default_startup_program())
names = sorted(p.name for p in main.global_block().all_parameters())
grad_names = [g.name for _, g in params_grads]

losses = []
scope = static.global_scope()
for step in range(3):
    outs = exe.run(feed={"seq": seq_np, "tgt": tgt_np},
                   fetch_list=[loss.name] + grad_names)
    losses.append(float(outs[0]))
    for (param, _), grad in zip(params_grads, outs[1:]):
        t = scope.find_var(param.name).get_tensor()
        t.set(np.array(t) - 0.5 * grad, paddle.CPUPlace())

raw = exe.run(feed={"seq": seq_np, "tgt": tgt_np}, fetch_list=[proj], return_numpy=False)[0]
results = {
    "losses": np.array(losses),
    "param_names": np.array(names),
    "grad_names": np.array(sorted(grad_names)),
    "proj": np.array(raw),
    "proj_shape": np.array(proj.shape),
    "w": np.array(scope.find_var("proj_w").get_tensor()),
}
print(results)
