"""Control flow in a static program: static.nn.cond choosing a branch on a tensor
predicate, static.nn.while_loop iterating a Newton square root, and gradients through cond."""

import numpy as np

import pyir as paddle

paddle.enable_static()

main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    x = paddle.static.data("x", [3], "float32")
    x.stop_gradient = False
    s = paddle.sum(x)
    y = paddle.static.nn.cond(s > 0, lambda: paddle.square(x) * 2.0, lambda: paddle.exp(x) - 1.0)
    (gx,) = paddle.static.gradients([paddle.sum(y)], [x])

    # Newton iterations for sqrt(a), stopped after 6 rounds
    a = paddle.static.data("a", [1], "float32")
    i = paddle.full([1], 0, "int64")
    guess = paddle.full([1], 1.0, "float32")

    def keep_going(i, g):
        return i < 6

    def body(i, g):
        return [i + 1, 0.5 * (g + a / g)]

    i_out, root = paddle.static.nn.while_loop(keep_going, body, [i, guess])

    # a switch between three branches
    k = paddle.static.data("k", [1], "int32")
    picked = paddle.static.nn.switch_case(
        k, {0: lambda: paddle.full([2], 10.0), 1: lambda: paddle.full([2], 20.0)},
        default=lambda: paddle.full([2], -1.0))

exe = paddle.static.Executor()
exe.run(startup)
results = {}
for tag, xv in [("pos", [0.5, 1.0, -0.2]), ("neg", [-0.5, -1.0, 0.2])]:
    out, g = exe.run(main, feed={"x": np.array(xv, "float32"), "a": np.array([2.0], "float32"),
                                 "k": np.array([1], "int32")}, fetch_list=[y, gx])
    results[tag + "_y"], results[tag + "_g"] = out, g
root_v, steps, pick0, pick5 = None, None, None, None
for kv in (0, 5):
    root_v, steps, pick = exe.run(main, feed={"x": np.ones(3, "float32"),
                                              "a": np.array([10.0], "float32"),
                                              "k": np.array([kv], "int32")},
                                  fetch_list=[root, i_out, picked])
    results[f"pick{kv}"] = pick
results["root"], results["steps"] = root_v, steps
print(results)
