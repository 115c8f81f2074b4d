"""append_backward / gradients: Paddle's op sequence and names, pruning, accumulation, and
numbers (Paddle's own golden gradients, finite differences for py_func and pylayer)."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest

import pyir
from pyir.backward import append_backward, gradients, strip_grad_suffix
from pyir.callables import bind_ids
from pyir.errors import GradError
from pyir.executor import Executor, Scope
from pyir.gradcheck import check_program_gradients
from pyir.serialize import load_program
from pyir.static import Program, program_guard

from conftest import GOLDEN

import gradfuncs


def _ops(program):
    return [(op.type, op.inputs, op.outputs) for op in program.global_block().ops]


def _types(program):
    return [op.type for op in program.global_block().ops]


# --- Paddle's own programs ------------------------------------------------------------------
GRAD_CASES = ["mlp_grad", "pylayer_grad", "simple_net"]


def _meta(case):
    return json.loads((GOLDEN / case / "meta.json").read_text())


def _paddle_callables(case):
    """simple_net's py_func ops hold Paddle's integer ids: bind them to its funcs.py."""
    path = GOLDEN / case / "funcs.py"
    if not path.exists():
        return {}
    spec = importlib.util.spec_from_file_location(f"golden_{case}_funcs", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {c["id"]: getattr(module, c["name"]) for c in _meta(case)["py_func_callables"]}


@pytest.mark.parametrize("case", GRAD_CASES)
def test_appending_to_paddles_forward_file_gives_paddles_grad_program(case):
    forward = load_program(str(GOLDEN / case / "model_forward.pb"))
    paddle = load_program(str(GOLDEN / case / "model_with_grad.pb"))
    meta = _meta(case)
    pairs = append_backward(forward.global_block().var(meta["loss_name"]))
    assert len(forward.blocks) == len(paddle.blocks)
    for mine_block, paddle_block in zip(forward.blocks, paddle.blocks):
        assert [(op.type, op.inputs, op.outputs) for op in mine_block.ops] == \
            [(op.type, op.inputs, op.outputs) for op in paddle_block.ops]
    for mine, theirs in zip(forward.global_block().ops, paddle.global_block().ops):
        assert mine.attrs["op_role"] == theirs.attrs["op_role"], mine.type
        # Paddle orders op_role_var by the parameter order of the building process.
        assert set(mine.attrs.get("op_role_var", [])) == \
            set(theirs.attrs.get("op_role_var", [])), mine.type
    assert {p.name: g.name for p, g in pairs} == meta["param_grads"]


def _run_golden(case, program):
    meta = _meta(case)
    scope = Scope()
    for name, value in np.load(GOLDEN / case / "params.npz").items():
        scope[name] = value
    feeds = dict(np.load(GOLDEN / case / "inputs.npz"))
    with bind_ids(_paddle_callables(case)):
        values = Executor().run(program, feed=feeds, fetch_list=meta["fetch_names"],
                                scope=scope)
    expected = np.load(GOLDEN / case / "expected.npz")
    tol = meta["tolerance"]
    for name, value in zip(meta["fetch_names"], values):
        want = expected[name]
        assert value.dtype == want.dtype and value.shape == want.shape, name
        assert np.all(np.abs(value - want) <= tol["atol"] + tol["rtol"] * np.abs(want)), name


@pytest.mark.parametrize("case", GRAD_CASES)
def test_paddles_grad_program_runs_to_paddles_gradients(case):
    _run_golden(case, load_program(str(GOLDEN / case / "model_with_grad.pb")))


@pytest.mark.parametrize("case", GRAD_CASES)
def test_pyir_backward_of_paddles_forward_gives_paddles_gradients(case):
    program = load_program(str(GOLDEN / case / "model_forward.pb"))
    append_backward(program.global_block().var(_meta(case)["loss_name"]))
    _run_golden(case, program)


# --- conventions (each expected sequence was read off Paddle 3.3.1 for the same program) ----
def _square_net():
    """x -> fc -> tanh t -> t * t (t used twice) -> mean; plus an exp branch off the loss."""
    main = Program()
    with program_guard(main, Program()):
        x = pyir.static.data("x", [4, 3], "float32")
        h = pyir.static.nn.fc(x, 5)
        t = pyir.tanh(h)
        m = pyir.multiply(t, t)
        pyir.exp(h)
        loss = pyir.mean(m)
    return main, x, h, t, m, loss


def test_loss_seed_roles_and_accumulation_follow_paddle():
    main, x, h, t, m, loss = _square_net()
    with program_guard(main, Program()):
        pairs = append_backward(loss)
    ops = main.global_block().ops
    assert _types(main)[-7:] == ["fill_constant", "reduce_mean_grad", "elementwise_mul_grad",
                                 "sum", "tanh_grad", "elementwise_add_grad", "mul_grad"]
    seed = ops[-7]
    assert seed.outputs == {"Out": [loss.name + "@GRAD"]}
    assert seed.attrs["op_role"] == 257 and seed.attrs["value"] == 1.0
    assert seed.attrs["shape"] == []
    assert ops[-8].type == "reduce_mean" and ops[-8].attrs["op_role"] == 256
    mul_grad = ops[-5]
    assert mul_grad.outputs == {"X@GRAD": [f"{t.name}@GRAD@RENAME@block0@0"],
                                "Y@GRAD": [f"{t.name}@GRAD@RENAME@block0@1"]}
    assert ops[-4].inputs == {"X": [f"{t.name}@GRAD@RENAME@block0@0",
                                    f"{t.name}@GRAD@RENAME@block0@1"]}
    assert ops[-4].outputs == {"Out": [f"{t.name}@GRAD"]}
    assert all(op.attrs["op_role"] == 1 for op in ops[-6:])
    assert [(p.name, g.name) for p, g in pairs] == [("fc_0.w_0", "fc_0.w_0@GRAD"),
                                                   ("fc_0.b_0", "fc_0.b_0@GRAD")]
    assert ops[-1].attrs["op_role_var"] == ["fc_0.w_0", "fc_0.w_0@GRAD"]


def test_stop_gradient_data_gets_no_gradient_and_dead_branches_no_ops():
    main, x, *_ , loss = _square_net()
    with program_guard(main, Program()):
        append_backward(loss)
    assert "exp_grad" not in _types(main)
    assert main.global_block().ops[-1].outputs["X@GRAD"] == []
    assert main.global_block().find_var("x@GRAD") is None


def test_data_with_stop_gradient_false_gets_a_gradient():
    main, x, *_ , loss = _square_net()
    x.stop_gradient = False
    with program_guard(main, Program()):
        append_backward(loss)
    assert main.global_block().ops[-1].outputs["X@GRAD"] == ["x@GRAD"]
    grad = main.global_block().var("x@GRAD")
    assert grad.dtype == x.dtype and grad.shape == x.shape


def test_no_grad_set_prunes_the_ops_below_it():
    main, x, h, t, m, loss = _square_net()
    with program_guard(main, Program()):
        pairs = append_backward(loss, no_grad_set={t.name})
    # elementwise_mul_grad would only compute t's gradient, which is excluded
    assert _types(main)[-3:] == ["reduce_mean", "fill_constant", "reduce_mean_grad"]
    assert pairs == []


def test_shared_parameter_gradients_are_summed_at_the_end():
    main = Program()
    with program_guard(main, Program()):
        x = pyir.static.data("x", [2, 3], "float32")
        w = main.global_block().create_parameter("w", "float32", [3, 3])
        y = pyir.matmul(pyir.matmul(x, w), w)
        loss = pyir.mean(y)
        pairs = append_backward(loss)
    last = main.global_block().ops[-1]
    assert last.type == "sum" and last.outputs == {"Out": ["w@GRAD"]}
    assert last.inputs == {"X": ["w@GRAD@RENAME@block0@0", "w@GRAD@RENAME@block0@1"]}
    assert [(p.name, g.name) for p, g in pairs] == [("w", "w@GRAD")]
    xv = np.random.default_rng(1).standard_normal((2, 3)).astype("float32")
    wv = np.random.default_rng(2).standard_normal((3, 3)).astype("float32")
    scope = Scope()
    scope["w"] = wv
    [g] = Executor().run(main, feed={"x": xv}, fetch_list=["w@GRAD"], scope=scope)
    ones = np.full((2, 3), 1 / 6)
    want = xv.T @ ones @ wv.T + (xv @ wv).T @ ones  # d mean(x w w) / dw, both uses
    np.testing.assert_allclose(g, want, rtol=1e-5)


def test_gradients_uses_target_gradients_and_returns_none_without_a_path():
    main = Program()
    with program_guard(main, Program()):
        x = pyir.static.data("x", [4, 3], "float32")
        y = pyir.static.data("y", [4, 3], "float32")
        z = pyir.static.data("z", [4, 3], "float32")
        for v in (x, y, z):
            v.stop_gradient = False
        s = pyir.tanh(pyir.multiply(x, y))
        tg = main.global_block().create_var("tg", "float32", [4, 3])
        gx, gy, gz = gradients([s], [x, y, z], target_gradients=[tg])
    assert (gx.name, gy.name, gz) == ("x@GRAD", "y@GRAD", None)
    assert _types(main)[-2:] == ["tanh_grad", "elementwise_mul_grad"]
    assert main.global_block().ops[-2].inputs["Out@GRAD"] == ["tg"]
    rng = np.random.default_rng(0)
    xv, yv, tv = (rng.standard_normal((4, 3)).astype("float32") for _ in range(3))
    out = Executor().run(main, feed={"x": xv, "y": yv, "z": xv, "tg": tv},
                         fetch_list=[gx, gy])
    d = tv * (1 - np.tanh(xv * yv) ** 2)
    np.testing.assert_allclose(out[0], d * yv, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out[1], d * xv, rtol=1e-5, atol=1e-6)


def test_a_second_pass_names_its_gradients_like_paddle():
    main = Program()
    with program_guard(main, Program()):
        x = pyir.static.data("x", [None, 3], "float32")
        x.stop_gradient = False
        s = pyir.tanh(x)
        [g1] = gradients([s], [x])
        [g2] = gradients([s], [x])
    assert g1.name == "x@GRAD" and g2.name == "grad/grad/x@GRAD"
    # Paddle seeds gradients()' targets with fill_any_like (shapes may be unknown until run)
    assert _types(main) == ["tanh", "fill_any_like", "tanh_grad", "fill_any_like", "tanh_grad"]
    seed = main.global_block().ops[1]
    assert seed.inputs == {"X": [s.name]} and seed.outputs == {"Out": [s.name + "@GRAD"]}
    assert (seed.attrs["value"], seed.attrs["dtype"], seed.attrs["op_role"]) == (1.0, 5, 1)
    assert strip_grad_suffix(g2.name) == "x"
    xv = np.linspace(-1, 1, 12, dtype="float32").reshape(4, 3)
    a, b = Executor().run(main, feed={"x": xv}, fetch_list=[g1, g2])
    np.testing.assert_allclose(a, 1 - np.tanh(xv) ** 2, rtol=1e-6)
    np.testing.assert_array_equal(a, b)


def test_strip_grad_suffix_examples():
    assert strip_grad_suffix("x@GRAD") == "x"
    assert strip_grad_suffix("y@GRAD@RENAME@block0@1") == "y"
    assert strip_grad_suffix("grad/grad/z@GRAD") == "z"
    assert strip_grad_suffix("w") == "w"


def test_integer_loss_is_refused():
    main = Program()
    with program_guard(main, Program()):
        label = pyir.static.data("label", [4, 1], "int64")
        with pytest.raises(GradError, match="not a float type"):
            append_backward(label)


# --- user-defined gradients: py_func and pylayer, checked against finite differences --------
def _py_func_net(backward):
    main, startup = Program(), Program()
    with program_guard(main, startup):
        x = pyir.static.data("x", [3, 4], "float32")
        x.stop_gradient = False
        h = pyir.static.nn.fc(x, 5)
        y = main.global_block().create_var(name="y", dtype="float32", shape=[3, 5])
        pyir.static.py_func(gradfuncs.tanh, h, y, backward_func=backward,
                            skip_vars_in_backward_input=h)
        loss = pyir.mean(pyir.multiply(y, y))
    scope = Scope()
    Executor().run(startup, scope=scope)
    feed = {"x": np.random.default_rng(3).standard_normal((3, 4)).astype("float32")}
    return main, loss, feed, scope


def test_py_func_backward_matches_finite_differences():
    main, loss, feed, scope = _py_func_net(gradfuncs.tanh_grad)
    results = check_program_gradients(main, loss.name, feed, scope, ["fc_0.w_0", "fc_0.b_0", "x"])
    assert [r.grad_name for r in results] == ["fc_0.w_0@GRAD", "fc_0.b_0@GRAD", "x@GRAD"]
    assert all(r.ok for r in results), [str(r) for r in results]


def test_py_func_grad_op_follows_paddles_maker():
    main, loss, feed, scope = _py_func_net(gradfuncs.tanh_grad)
    with program_guard(main, Program()):
        append_backward(loss)
    [grad_op] = [op for op in main.global_block().ops if op.type == "py_func"
                 and op.attrs["op_role"] == 1]
    assert grad_op.inputs == {"X": ["y", "y@GRAD"]}
    assert grad_op.outputs == {"Out": ["fc_0.tmp_1@GRAD"]}
    assert grad_op.attrs["forward_callable"] == "gradfuncs:tanh_grad"


def test_check_catches_a_wrong_py_func_backward():
    main, loss, feed, scope = _py_func_net(gradfuncs.tanh_grad_wrong)
    results = check_program_gradients(main, loss.name, feed, scope, ["fc_0.w_0", "x"])
    assert not any(r.ok for r in results)


def test_pylayer_backward_matches_finite_differences():
    main, startup = Program(), Program()
    with program_guard(main, startup):
        x = pyir.static.data("x", [3, 4], "float32")
        x.stop_gradient = False
        h = pyir.static.nn.fc(x, 4)
        y = pyir.static.nn.static_pylayer(lambda v: pyir.exp(v), [h],
                                          lambda dy: pyir.multiply(dy, pyir.exp(h)))
        loss = pyir.mean(pyir.multiply(y, y))
    scope = Scope()
    Executor().run(startup, scope=scope)
    feed = {"x": np.random.default_rng(4).standard_normal((3, 4)).astype("float32") * 0.3}
    results = check_program_gradients(main, loss.name, feed, scope, ["fc_0.w_0", "x"])
    assert all(r.ok for r in results), [str(r) for r in results]


def test_a_differentiable_op_without_rule_on_the_path_is_an_error(monkeypatch):
    from pyir import registry
    from pyir.registry import OpDef, Slot

    fake = OpDef("fake_square", (Slot("X"),), (Slot("Out"),), (), lambda X: {"Out": X * X},
                 None, None, True, "", ())
    monkeypatch.setitem(registry.OPS, "fake_square", fake)
    main = Program()
    with program_guard(main, Program()):
        x = pyir.static.data("x", [3], "float32")
        x.stop_gradient = False
        y = main.global_block().create_var("y", "float32", [3])
        main.global_block().append_op("fake_square", {"X": ["x"]}, {"Out": ["y"]})
        loss = pyir.mean(y)
        with pytest.raises(GradError, match="fake_square is marked differentiable but has no "
                                            "gradient rule"):
            append_backward(loss)


def test_differentiating_a_file_that_already_has_gradients_renames_the_new_ones():
    from pyir.differentiation import differentiate

    case = "mlp_grad"
    program = load_program(str(GOLDEN / case / "model_with_grad.pb"))
    loss, [(name, grad)] = differentiate(program, None, ["x"])
    assert (loss, name, grad) == ("mean_0.tmp_0", "x", "grad/grad/x@GRAD")
    scope = Scope()
    for key, value in np.load(GOLDEN / case / "params.npz").items():
        scope[key] = value
    [got] = Executor().run(program, feed=dict(np.load(GOLDEN / case / "inputs.npz")),
                           fetch_list=[grad], scope=scope)
    np.testing.assert_allclose(got, np.load(GOLDEN / case / "expected.npz")["x@GRAD"],
                               rtol=1e-4, atol=1e-6)


def test_a_required_gradient_nothing_produces_is_filled_with_zeros(monkeypatch):
    from pyir import registry
    from pyir.ops._helpers import default_grad, same_as
    from pyir.registry import OpDef, Slot

    def two(X):
        return {"A": X * 2.0, "B": X * 3.0}

    def two_grad(X, A_grad, B_grad):
        return {"X@GRAD": 2.0 * A_grad + 3.0 * B_grad}

    forward = OpDef("fake_two", (Slot("X"),), (Slot("A"), Slot("B")), (), two, None,
                    default_grad("fake_two_grad", uses=["X"]), True, "", ())
    backward = OpDef("fake_two_grad", (Slot("X"), Slot("A@GRAD"), Slot("B@GRAD")),
                     (Slot("X@GRAD"),), (), two_grad, same_as("X", out="X@GRAD"), None, False,
                     "", (), grad_of="fake_two")
    monkeypatch.setitem(registry.OPS, "fake_two", forward)
    monkeypatch.setitem(registry.OPS, "fake_two_grad", backward)
    main = Program()
    with program_guard(main, Program()):
        x = pyir.static.data("x", [2, 3], "float32")
        x.stop_gradient = False
        block = main.global_block()
        for name in ("a", "b"):
            block.create_var(name, "float32", [2, 3])
        block.append_op("fake_two", {"X": ["x"]}, {"A": ["a"], "B": ["b"]})
        loss = pyir.mean(block.var("a"))
        append_backward(loss)
    fill = block.ops[-2]
    assert (fill.type, fill.inputs, fill.outputs) == ("fill_any_like", {"X": ["b"]},
                                                      {"Out": ["b@GRAD"]})
    assert fill.attrs["value"] == 0.0
    [g] = Executor().run(main, feed={"x": np.ones((2, 3), "float32")}, fetch_list=["x@GRAD"])
    np.testing.assert_allclose(g, np.full((2, 3), 2.0 / 6), rtol=1e-6)


def test_unused_split_output_gets_zero_gradient():
    """split's gradient is a concat whose X list needs every piece: a piece whose output
    nothing uses gets zeros (not None)."""
    x = pyir.static.data("xs", [4, 3])
    x.stop_gradient = False
    a, _ = pyir.split(x, 2)
    g, = pyir.static.gradients([pyir.mean(a)], [x])
    got, = pyir.static.Executor().run(feed={"xs": np.ones((4, 3), np.float32)}, fetch_list=[g])
    np.testing.assert_allclose(got, np.vstack([np.full((2, 3), 1 / 6), np.zeros((2, 3))]),
                               rtol=1e-6)


def test_created_constants_get_no_gradient_as_in_paddle():
    # Paddle marks what full/ones/uniform/randn/full_like and a scalar operand create as
    # stop_gradient, so `x ** 2` differentiates to elementwise_pow_grad with Y@GRAD empty.
    main = Program()
    with program_guard(main, Program()):
        x = pyir.static.data("x", [-1, 3], "float32")
        x.stop_gradient = False
        made = [pyir.full([3], 1.0), pyir.ones([3]), pyir.zeros_like(x), pyir.uniform([3]),
                pyir.randn([3]), pyir.full_like(x, 2.0)]
        assert all(v.stop_gradient for v in made)
        loss = pyir.mean(x ** 2)
        append_backward(loss)
    pow_grad = next(op for op in main.global_block().ops if op.type == "elementwise_pow_grad")
    assert pow_grad.output("X@GRAD") == ["x@GRAD"] and pow_grad.output("Y@GRAD") == []
