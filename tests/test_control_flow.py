"""cond / while_loop / case / switch_case: Paddle-written files run, pyir builds Paddle's
layout (and Paddle ran pyir's files to the same numbers when this was written), eager mode is
Python control flow with gradients, and every refusal names the problem."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import pyir
from pyir import framework
from pyir.control_flow import case, cond, switch_case, while_loop
from pyir.errors import BuildError, KernelError

GOLDEN = pathlib.Path(__file__).parent / "golden_control_flow"


@pytest.fixture(autouse=True)
def _modes():
    framework.static_mode[0] = False
    yield
    framework.static_mode[0] = False


@pytest.mark.parametrize("case_name", ["while_sum", "cond_branches"])
def test_paddle_written_control_flow_runs_to_paddles_numbers(case_name):
    folder = GOLDEN / case_name
    exe = pyir.static.Executor()
    program, feed_names, fetches = pyir.static.load_inference_model(str(folder / "model"), exe)
    inputs, expected = np.load(folder / "inputs.npz"), np.load(folder / "expected.npz")
    runs = sorted({key.split(":")[0] for key in inputs.files})
    assert runs
    for run in runs:
        feed = {name: inputs[f"{run}:{name}"] for name in feed_names}
        got = exe.run(program, feed=feed, fetch_list=fetches)
        for j, value in enumerate(got):
            np.testing.assert_array_equal(value, expected[f"{run}:{j}"])


def _build(fn, feeds: dict):
    """Build fn(*data vars) in a fresh program; return (program, outputs)."""
    framework.static_mode[0] = True
    try:
        main, startup = pyir.static.Program(), pyir.static.Program()
        with pyir.static.program_guard(main, startup):
            args = [pyir.static.data(name, list(v.shape), str(v.dtype))
                    for name, v in feeds.items()]
            outs = fn(*args)
    finally:
        framework.static_mode[0] = False
    return main, outs


def _run(main, outs, feed):
    return pyir.static.Executor().run(main, feed=feed, fetch_list=outs)


X = np.arange(6, dtype="float32").reshape(2, 3) - 2.0


@pytest.mark.parametrize("flag", [True, False])
def test_static_cond_picks_the_branch_and_has_paddles_layout(flag):
    feeds = {"x": X, "p": np.array([flag])}
    main, outs = _build(lambda x, p: [cond(p, lambda: x * 2.0, lambda: x - 1.0)], feeds)
    (got,) = _run(main, outs, feeds)
    np.testing.assert_array_equal(got, X * 2 if flag else X - 1)
    ops = [op.type for op in main.global_block().ops]
    assert ops == ["conditional_block", "logical_not", "conditional_block", "cast",
                   "select_input"]
    first = main.global_block().ops[0]
    assert first.attr("is_scalar_condition") is True and first.input("Input") == ["x"]
    assert outs[0].name.startswith("_generated_var_")
    sub = main.blocks[first.attr("sub_block")]
    assert sub.parent_idx == 0 and [op.type for op in sub.ops] == ["scale", "assign"]


def test_cond_merges_nested_structures_and_passes_equal_python_values():
    feeds = {"x": X, "p": np.array([False])}
    main, outs = _build(
        lambda x, p: cond(p, lambda: (x + 1.0, [x * 3.0, 7]), lambda: (x + 2.0, [x * 4.0, 7])),
        feeds)
    first, (second, seven) = outs
    assert seven == 7
    got = _run(main, [first, second], feeds)
    np.testing.assert_array_equal(got[0], X + 2)
    np.testing.assert_array_equal(got[1], X * 4)


def test_while_loop_counts_and_accumulates():
    feeds = {"x": np.array([1.0, -2.0, 0.5], "float32")}

    def build(x):
        i = pyir.full([1], 0, "int64")
        s = pyir.zeros([3], "float32")
        n = pyir.full([1], 4, "int64")
        return while_loop(lambda i, s: i < n,
                          lambda i, s: [i + 1, s + x * pyir.cast(i, "float32")], [i, s])

    main, outs = _build(build, feeds)
    i, s = _run(main, outs, feeds)
    assert i.tolist() == [4]
    np.testing.assert_allclose(s, feeds["x"] * (0 + 1 + 2 + 3))
    loop = [op for op in main.global_block().ops if op.type == "while"][0]
    condition = loop.input("Condition")[0]
    assert condition in loop.output("Out")  # the body writes the condition back
    body = main.blocks[loop.attr("sub_block")]
    assert [op.type for op in body.ops][-3:] == ["assign", "assign", "assign"]


def test_a_loop_that_never_runs_returns_its_initial_values():
    feeds = {"n": np.array([0], "int64")}

    def build(n):
        i = pyir.full([1], 5, "int64")
        return while_loop(lambda i: i < n, lambda i: [i + 1], [i])

    main, outs = _build(build, feeds)
    assert _run(main, outs, feeds)[0].tolist() == [5]


def test_cond_inside_while_loop():
    feeds = {"x": np.array([3.0], "float32")}

    def build(x):
        i = pyir.full([1], 0, "int64")
        v = pyir.assign(x)

        def body(i, v):
            even = pyir.cast(i, "float32") * 0.5 == pyir.cast(i // 2, "float32")
            return [i + 1, cond(even, lambda: v * 2.0, lambda: v + 1.0)]

        return while_loop(lambda i, v: i < 4, body, [i, v])

    main, outs = _build(build, feeds)
    i, v = _run(main, outs, feeds)
    assert i.tolist() == [4]
    np.testing.assert_allclose(v, [((3 * 2 + 1) * 2 + 1)])  # even, odd, even, odd


@pytest.mark.parametrize("index,want", [(0, 10.0), (1, 20.0), (2, 30.0), (7, 30.0)])
def test_switch_case_picks_by_key_with_the_default_last(index, want):
    feeds = {"x": X, "k": np.array([index], "int64")}
    main, outs = _build(
        lambda x, k: [switch_case(k, {0: lambda: x + 10.0, 1: lambda: x + 20.0},
                                  default=lambda: x + 30.0)], feeds)
    np.testing.assert_array_equal(_run(main, outs, feeds)[0], X + want)


@pytest.mark.parametrize("a,b,want", [(True, True, 1.0), (False, True, 2.0),
                                      (False, False, 3.0)])
def test_case_takes_the_first_true_predicate(a, b, want):
    feeds = {"x": X, "a": np.array([a]), "b": np.array([b])}
    main, outs = _build(lambda x, a, b: [case([(a, lambda: x + 1.0), (b, lambda: x + 2.0)],
                                              default=lambda: x + 3.0)], feeds)
    np.testing.assert_array_equal(_run(main, outs, feeds)[0], X + want)


def test_case_without_default_uses_the_last_pair():
    feeds = {"x": X, "a": np.array([False]), "b": np.array([False])}
    main, outs = _build(lambda x, a, b: [case([(a, lambda: x + 1.0), (b, lambda: x + 2.0)])],
                        feeds)
    np.testing.assert_array_equal(_run(main, outs, feeds)[0], X + 2.0)


def test_control_flow_files_round_trip(tmp_path):
    feeds = {"x": X, "p": np.array([True])}
    main, outs = _build(lambda x, p: [cond(p, lambda: x * x, lambda: -x)], feeds)
    exe = pyir.static.Executor()
    pyir.static.save_inference_model(str(tmp_path / "m"), [main.global_block().var("x"),
                                                          main.global_block().var("p")],
                                     outs, exe, program=main)
    program, names, fetches = pyir.static.load_inference_model(str(tmp_path / "m"), exe)
    for flag in (True, False):
        feed = {"x": X, "p": np.array([flag])}
        (got,) = exe.run(program, feed=feed, fetch_list=fetches)
        np.testing.assert_array_equal(got, X * X if flag else -X)


def test_eager_control_flow_is_python_and_differentiates_the_taken_branch():
    x = pyir.to_tensor([1.0, 2.0], stop_gradient=False)
    y = cond(x.sum() > 2.0, lambda: x * x, lambda: x * 3.0)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0])
    i, s = while_loop(lambda i, s: i < 3, lambda i, s: [i + 1, s * 2.0],
                      [pyir.to_tensor(0), pyir.to_tensor([1.0])])
    assert int(i) == 3 and s.numpy().tolist() == [8.0]
    assert switch_case(pyir.to_tensor([1]), [lambda: "a", lambda: "b", lambda: "c"]) == "b"
    assert case([(False, lambda: 1), (True, lambda: 2)], default=lambda: 3) == 2
    assert cond(True, None, None) is None


def test_refusals_name_the_problem():
    feeds = {"x": X, "p": np.array([True])}
    with pytest.raises(BuildError, match="pred must be a bool Variable"):
        _build(lambda x, p: cond(x, lambda: x, lambda: x), feeds)
    with pytest.raises(BuildError, match="different structures"):
        _build(lambda x, p: cond(p, lambda: [x, x], lambda: x), feeds)
    with pytest.raises(BuildError, match="false_fn returns None"):
        _build(lambda x, p: cond(p, lambda: x, lambda: None), feeds)
    with pytest.raises(BuildError, match="true_fn must be callable"):
        cond(True, 3, None)
    with pytest.raises(BuildError, match="returned 1 value"):
        while_loop(lambda a, b: a < 1, lambda a, b: [a + 1], [pyir.to_tensor(0),
                                                                pyir.to_tensor(0)])
    with pytest.raises(BuildError, match="non-empty list"):
        while_loop(lambda: True, lambda: [], [])
    with pytest.raises(BuildError, match="cond must return a bool Variable"):
        _build(lambda x, p: while_loop(lambda v: v, lambda v: [v], [x]), feeds)
    with pytest.raises(BuildError, match="key 1 appears more than once"):
        switch_case(pyir.to_tensor([1]), [(1, lambda: 1), (1, lambda: 2)])
    with pytest.raises(BuildError, match=r"\(pred, callable\) tuple"):
        case([(True, 3)])


def test_while_loop_gradients_reach_the_initial_values_and_the_loop_invariants():
    xv, vv = np.array([0.5, -1.5, 2.0]), np.array([1.0, 2.0, -1.0])
    feeds = {"x": xv, "v": vv}

    def build(x, v0):
        x.stop_gradient = v0.stop_gradient = False
        i = pyir.full([1], 0, "int64")
        _, v = while_loop(lambda i, v: i < 3, lambda i, v: [i + 1, v * x], [i, v0 * 1.0])
        loss = pyir.sum(v)
        return [loss, *pyir.static.gradients([loss], [x, v0])]

    main, outs = _build(build, feeds)
    loss, dx, dv = _run(main, outs, feeds)
    np.testing.assert_allclose(loss, np.sum(vv * xv ** 3))
    np.testing.assert_allclose(dx, 3 * vv * xv ** 2)  # d/dx of v0 * x**3
    np.testing.assert_allclose(dv, xv ** 3)
    assert "while_grad" in [op.type for op in main.global_block().ops]


def test_cond_inside_while_loop_gradients_match_finite_differences():
    """Paddle 3.3.1 returns a zero gradient for this program; the analytic one is not zero."""
    xv = np.array([0.4, -0.3, 0.9])

    def branches(x):
        i = pyir.full([1], 0, "int64")

        def body(i, v):
            odd = pyir.cast(i, "float64") * 0.5 != pyir.cast(i // 2, "float64")
            return [i + 1, cond(odd, lambda: pyir.tanh(v) * x, lambda: v * v + x)]

        _, v = while_loop(lambda i, v: i < 4, body, [i, x * 1.0])
        return v

    main, (loss, dx) = _grad_program(branches, xv)
    got = _run(main, [dx], {"x": xv})[0]
    numeric = _numeric_grad(main, loss, {"x": xv})
    assert np.abs(numeric).max() > 0.1
    np.testing.assert_allclose(got, numeric, rtol=1e-6, atol=1e-8)


def test_a_loop_that_never_runs_passes_its_gradient_through():
    xv = np.array([1.0, 2.0])

    def branches(x):
        i = pyir.full([1], 5, "int64")
        _, v = while_loop(lambda i, v: i < 3, lambda i, v: [i + 1, v * 10.0], [i, x * 2.0])
        return v

    main, (loss, dx) = _grad_program(branches, xv)
    np.testing.assert_allclose(_run(main, [dx], {"x": xv})[0], [1.0, 1.0])


def _grad_program(branches, xv, extra_feeds=()):
    """loss = mean(branches(x, *flags)), its gradient w.r.t. x, in float64."""
    feeds = {"x": xv, **dict(extra_feeds)}

    def build(x, *flags):
        x.stop_gradient = False
        loss = pyir.mean(branches(x, *flags))
        (dx,) = pyir.static.gradients([loss], [x])
        return loss, dx

    return _build(build, feeds)


def _numeric_grad(main, loss, feed, eps=1e-6):
    exe = pyir.static.Executor()
    x = feed["x"]
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        f_up = exe.run(main, feed={**feed, "x": up}, fetch_list=[loss])[0]
        f_down = exe.run(main, feed={**feed, "x": down}, fetch_list=[loss])[0]
        grad[i] = (f_up - f_down) / (2 * eps)
    return grad


@pytest.mark.parametrize("flag", [True, False])
def test_cond_gradients_follow_the_branch_that_ran(flag):
    xv = np.array([0.5, -1.0, 2.0], "float64")
    main, (loss, dx) = _grad_program(
        lambda x, p: cond(p, lambda: pyir.tanh(x) * x, lambda: x * 3.0), xv,
        {"p": np.array([flag])})
    got = _run(main, [dx], {"x": xv, "p": np.array([flag])})[0]
    want = (np.tanh(xv) + xv * (1 - np.tanh(xv) ** 2)) / 3 if flag else np.full(3, 1.0)
    np.testing.assert_allclose(got, want, rtol=1e-10)
    types = [op.type for op in main.global_block().ops]
    assert types.count("conditional_block_grad") == 2 and "select_output" in types
    grad_op = [op for op in main.global_block().ops if op.type == "conditional_block_grad"][0]
    grad_block = main.blocks[grad_op.attr("sub_block")]
    assert grad_block.parent_idx == 0 and grad_block.forward_block_idx > 0


@pytest.mark.parametrize("p,q", [(True, True), (False, True), (True, False), (False, False)])
def test_nested_cond_gradients_match_finite_differences(p, q):
    xv = np.array([0.3, -0.7, 1.1, 0.2], "float64")
    flags = {"p": np.array([p]), "q": np.array([q])}

    def branches(x, p, q):
        y = cond(p, lambda: x * x, lambda: pyir.exp(x))
        return cond(q, lambda: cond(p, lambda: y * pyir.tanh(x), lambda: y + x), lambda: y * 2.0)

    main, (loss, dx) = _grad_program(branches, xv, flags)
    got = _run(main, [dx], {"x": xv, **flags})[0]
    np.testing.assert_allclose(got, _numeric_grad(main, loss, {"x": xv, **flags}),
                               rtol=1e-6, atol=1e-8)


def test_training_through_cond_updates_only_the_branch_that_ran():
    framework.static_mode[0] = True
    try:
        main, startup = pyir.static.Program(), pyir.static.Program()
        with pyir.static.program_guard(main, startup):
            x = pyir.static.data("x", [4, 3], "float32")
            p = pyir.static.data("p", [1], "bool")
            y = cond(p, lambda: pyir.static.nn.fc(x, 2, name="a"),
                     lambda: pyir.static.nn.fc(x, 2, name="b"))
            loss = pyir.mean(y * y)
            pyir.optimizer.SGD(0.1).minimize(loss)
    finally:
        framework.static_mode[0] = False
    exe, scope = pyir.static.Executor(), pyir.static.Scope()
    exe.run(startup, scope=scope)
    before = {n: scope[n].copy() for n in ("a.w_0", "b.w_0")}
    xv = np.random.default_rng(0).random((4, 3)).astype("float32")
    losses = [exe.run(main, feed={"x": xv, "p": np.array([True])}, fetch_list=[loss],
                      scope=scope)[0] for _ in range(3)]
    assert losses[2] < losses[1] < losses[0]
    assert not np.array_equal(scope["a.w_0"], before["a.w_0"])
    np.testing.assert_array_equal(scope["b.w_0"], before["b.w_0"])


def test_a_bad_mask_or_condition_is_a_kernel_error():
    feeds = {"x": X, "m": np.array([2], "int32")}
    main, outs = _build(lambda x, m: [pyir.dispatch.out("select_input", {"X": [x, x],
                                                                          "Mask": m})], feeds)
    with pytest.raises(KernelError, match="mask 2 selects none of its 2 branches"):
        _run(main, outs, feeds)


@pytest.mark.parametrize("mask", [0, 1, 2])
def test_select_output_routes_to_the_masked_branch(mask):
    feeds = {"x": X, "m": np.array([mask], "int32")}

    def build(x, m):
        block = pyir.static.default_main_program().current_block()
        outs = [block.create_var(f"out{i}", "float32", [2, 3]) for i in range(3)]
        pyir.builder.emit("select_output", {"X": x, "Mask": m}, outputs={"Out": outs})
        return outs

    main, outs = _build(build, feeds)
    got = _run(main, outs, feeds)
    for i, value in enumerate(got):
        if i == mask:
            np.testing.assert_array_equal(value, X)
        else:
            assert value.size == 0 and value.dtype == np.float32


def test_static_nn_exposes_the_control_flow_api():
    assert pyir.static.nn.cond is cond and pyir.static.nn.while_loop is while_loop
    assert pyir.static.nn.case is case and pyir.static.nn.switch_case is switch_case


def _endless_loop_file(tmp_path):
    """A saved program whose while loop never ends (its condition stays true)."""
    feeds = {"x": np.ones(2, "float32")}

    def build(x):
        i = pyir.full([1], 0, "int64")
        _, v = while_loop(lambda i, v: i >= 0, lambda i, v: [i + 1, v * 1.0], [i, x * 1.0])
        return [v]

    main, outs = _build(build, feeds)
    exe = pyir.static.Executor()
    pyir.static.save_inference_model(str(tmp_path / "loop"), [main.global_block().var("x")],
                                     outs, exe, program=main)
    np.save(tmp_path / "x.npy", feeds["x"])
    return tmp_path / "loop.pdmodel", tmp_path / "x.npy"


def test_max_loop_steps_ends_a_runaway_loop_with_one_line(tmp_path):
    from conftest import assert_one_line_error, cli

    model, x = _endless_loop_file(tmp_path)
    result = cli("run", str(model), "--feed", str(x), "--max-loop-steps", "50")
    assert_one_line_error(result, "ran past 50 iterations")
    assert "--max-loop-steps" in result.output


def test_a_loop_within_the_limit_runs_and_the_default_is_generous(tmp_path):
    from pyir.ops.control_flow import DEFAULT_MAX_LOOP_STEPS, max_loop_steps

    feeds = {"n": np.array([30], "int64")}
    main, outs = _build(lambda n: while_loop(lambda i: i < n, lambda i: [i + 1],
                                             [pyir.full([1], 0, "int64")]), feeds)
    with max_loop_steps(30):
        assert _run(main, outs, feeds)[0].tolist() == [30]
    with max_loop_steps(29), pytest.raises(KernelError, match="ran past 29 iterations"):
        _run(main, outs, feeds)
    assert DEFAULT_MAX_LOOP_STEPS >= 10**6


def test_ctrl_c_in_a_loop_is_an_error_naming_the_op(monkeypatch):
    from pyir.errors import Interrupted
    from pyir.ops import control_flow

    feeds = {"n": np.array([10], "int64")}
    main, outs = _build(lambda n: while_loop(lambda i: i < n, lambda i: [i + 1],
                                             [pyir.full([1], 0, "int64")]), feeds)
    calls = {"n": 0}
    real_truth = control_flow._truth

    def interrupt_on_third(value, where, what):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real_truth(value, where, what)

    monkeypatch.setattr(control_flow, "_truth", interrupt_on_third)
    with pytest.raises(Interrupted, match=r"op #\d+ while: interrupted"):
        _run(main, outs, feeds)


def test_inspect_shows_which_op_runs_each_sub_block():
    from conftest import cli

    model = GOLDEN / "cond_branches" / "model.pdmodel"
    text = cli("inspect", str(model)).output
    assert "block 1 (parent 0, run by block 0 op #2 conditional_block)" in text
    assert "block 2 (parent 0, run by block 0 op #4 conditional_block)" in text
    import json

    blocks = json.loads(cli("inspect", str(model), "--format", "json").output)["blocks"]
    assert blocks[0]["run_by"] is None
    assert blocks[2]["run_by"] == {"block": 0, "op_index": 4, "op_type": "conditional_block"}
    dot = cli("inspect", str(model), "--format", "dot").output
    assert "subgraph cluster_1" in dot and "subgraph cluster_2" in dot


@pytest.mark.parametrize("flag", [True, False])
def test_build_run_grad_check_of_a_model_with_cond_and_while(tmp_path, flag):
    """A model file with a cond feeding a while_loop: built, run, differentiated and checked
    against finite differences by the command line (the inference layout marks the loop
    is_test; the gradient still works)."""
    from conftest import cli

    model = tmp_path / "m.pb"
    assert cli("build", str(GOLDEN / "cond_while_model.py"), "-o", str(model)).exit_code == 0
    xv = np.array([0.5, -1.0, 2.0], "float32")
    np.savez(tmp_path / "feed.npz", x=xv, p=np.array([flag]))
    run = cli("run", str(model), "--feed", str(tmp_path / "feed.npz"), "-o",
              str(tmp_path / "out.npz"))
    assert run.exit_code == 0, run.output
    y = np.tanh(xv) * xv if flag else xv * 3
    v = y.copy()
    for _ in range(3):
        v = v * 0.5 + y
    np.testing.assert_allclose(np.load(tmp_path / "out.npz")["mean_0.tmp_0"], v.mean(),
                               rtol=1e-6)
    check = cli("grad", str(model), "--wrt", "x", "--check", "--feed",
                str(tmp_path / "feed.npz"))
    assert check.exit_code == 0 and "gradient check passed" in check.output, check.output


def _cube(x):
    return np.asarray(x) ** 3


def _cube_grad(x, y, dy):
    return 3 * np.asarray(x) ** 2 * np.asarray(dy)


@pytest.mark.parametrize("flag", [True, False])
def test_py_func_and_static_pylayer_inside_branches_differentiate(flag):
    xv = np.array([0.5, -1.0, 2.0])
    feeds = {"x": xv, "p": np.array([flag])}

    def build(x, p):
        x.stop_gradient = False

        def with_py_func():
            block = pyir.static.default_main_program().current_block()
            out = block.create_var(None, "float64", [3])
            pyir.static.py_func(_cube, x, out, backward_func=_cube_grad)
            return out * 2.0

        def with_pylayer():
            return pyir.static.nn.static_pylayer(lambda v: pyir.exp(v), [x],
                                                 lambda dy: pyir.exp(x) * dy)

        loss = pyir.sum(cond(p, with_py_func, with_pylayer))
        return [loss, *pyir.static.gradients([loss], [x])]

    main, outs = _build(build, feeds)
    loss, dx = _run(main, outs, feeds)
    if flag:
        np.testing.assert_allclose(loss, np.sum(2 * xv ** 3))
        np.testing.assert_allclose(dx, 6 * xv ** 2)
    else:
        np.testing.assert_allclose(loss, np.sum(np.exp(xv)))
        np.testing.assert_allclose(dx, np.exp(xv))
