"""py_func in process: building, running, output checks, saving rules, the gradient rule.

Callables that files may name live in `helpers_callables` (registered); lambdas, closures and
methods defined here show what works in process but cannot be saved.
"""

from __future__ import annotations

import inspect
import os

import numpy as np
import pytest

import helpers_callables as hc
from conftest import GOLDEN
import pyir
from pyir import registry, static
from pyir.callables import ShapeWarning
from pyir.errors import BuildError, CallableError
from pyir.serialize import program_to_desc


def out_var(name, shape, dtype="float32"):
    return static.default_main_program().current_block().create_var(
        name=name, dtype=dtype, shape=shape)


def run(fetch, **feed):
    return static.Executor().run(feed=feed, fetch_list=fetch)


def py_func_op(index=-1):
    ops = [op for op in static.default_main_program().global_block().ops if op.type == "py_func"]
    return ops[index]


# --- building and running ----------------------------------------------------------------
def test_returns_out_and_computes_forward():
    x = static.data("x", [2, 3], "float32")
    y = out_var("y", [2, 3])
    assert static.py_func(hc.tanh, x, y) is y
    value = np.linspace(-1, 1, 6, dtype="float32").reshape(2, 3)
    (got,) = run([y], x=value)
    np.testing.assert_allclose(got, np.tanh(value), rtol=1e-6)


def test_op_layout_holds_references():
    x = static.data("x", [2, 3], "float32")
    y = out_var("y", [2, 3])
    static.py_func(hc.tanh, x, y, backward_func=hc.tanh_grad, skip_vars_in_backward_input=x)
    op = py_func_op()
    assert op.inputs == {"X": ["x"]} and op.outputs == {"Out": ["y"]}
    assert op.attrs["forward_callable"] == "helpers_callables:tanh"
    assert op.attrs["backward_callable"] == "helpers_callables:tanh_grad"
    assert op.attrs["backward_skip_vars"] == ["x"]
    assert op.attrs["forward_callable_id"] == -1 and op.attrs["backward_callable_id"] == -1


def test_several_inputs_and_outputs():
    a = static.data("a", [2, 2], "float32")
    b = static.data("b", [2, 2], "float32")
    s, p = out_var("s", [2, 2]), out_var("p", [2, 2])
    assert static.py_func(hc.add_mul, [a, b], (s, p)) == (s, p)
    av = np.array([[1, 2], [3, 4]], "float32")
    bv = np.array([[5, 6], [7, 8]], "float32")
    got_s, got_p = run([s, p], a=av, b=bv)
    np.testing.assert_array_equal(got_s, [[6, 8], [10, 12]])
    np.testing.assert_array_equal(got_p, [[5, 12], [21, 32]])


def test_op_without_outputs_runs_although_nothing_consumes_it():
    x = static.data("x", [3], "float32")
    y = out_var("y", [3])
    static.py_func(hc.tanh, x, y)
    static.py_func(hc.record_call, y, None)
    hc.CALLS.clear()
    run([y], x=np.zeros(3, "float32"))
    assert len(hc.CALLS) == 1
    np.testing.assert_array_equal(hc.CALLS[0][0], np.zeros(3, "float32"))


def test_any_callable_runs_in_process():
    x = static.data("x", [2], "float32")
    outs = [out_var(f"y{i}", [2]) for i in range(3)]
    factor = 3.0

    def closure(v):
        return v * np.float32(factor)

    class Scaler:
        def half(self, v):
            return v / np.float32(2)

    static.py_func(lambda v: v + np.float32(1), x, outs[0])
    static.py_func(closure, x, outs[1])
    static.py_func(Scaler().half, x, outs[2])
    got = run(outs, x=np.array([2, 4], "float32"))
    np.testing.assert_array_equal(np.stack(got), [[3, 5], [6, 12], [1, 2]])


def test_skip_vars_must_be_forward_inputs_or_outputs():
    x = static.data("x", [2], "float32")
    other = static.data("other", [2], "float32")
    y = out_var("y", [2])
    with pytest.raises(BuildError, match="'other', which is neither an input nor an output"):
        static.py_func(hc.tanh, x, y, backward_func=hc.tanh_grad,
                       skip_vars_in_backward_input=other)


def test_out_must_be_variables():
    x = static.data("x", [2], "float32")
    with pytest.raises(BuildError, match="create outputs with block.create_var"):
        static.py_func(hc.tanh, x, np.zeros(2))


# --- output checks -------------------------------------------------------------------------
def _one_op(func, shape=(2, 3), dtype="float32", n_out=1):
    x = static.data("x", list(shape), "float32")
    y = static.data("y0", [1], "float32")  # an earlier op index for the py_func
    del y
    outs = [out_var(f"out{i}", list(shape), dtype) for i in range(n_out)]
    static.py_func(func, x, outs if n_out != 1 else outs[0])
    return outs


def test_wrong_dtype_names_op_callable_variable_and_both_dtypes():
    (out,) = _one_op(hc.as_float64)
    with pytest.raises(CallableError) as info:
        run([out], x=np.ones((2, 3), "float32"))
    w = info.value.where
    assert (w.op_index, w.op_type, w.var) == (0, "py_func", "out0")
    assert w.callable == "helpers_callables:as_float64"
    assert "returned float64 data for output 'out0', which is declared float32" in str(info.value)


def test_wrong_count_says_what_was_expected():
    (out,) = _one_op(hc.returns_two)
    with pytest.raises(CallableError, match=r"returned 2 value\(s\), but the op has 1 output"):
        run([out], x=np.ones((2, 3), "float32"))


def test_exception_inside_callable_is_chained():
    (out,) = _one_op(hc.raises_value_error)
    with pytest.raises(CallableError) as info:
        run([out], x=np.ones((2, 3), "float32"))
    assert isinstance(info.value.__cause__, ValueError)
    line = _line_of(hc, 'raise ValueError("bad input from the callable")')
    assert f"raised ValueError: bad input from the callable at {_shown(hc)}:{line} in " \
        f"raises_value_error (called as helpers_callables:raises_value_error(x))" \
        in str(info.value)
    assert info.value.where.op_index == 0


def _shown(module):
    return os.path.relpath(module.__file__)


def _line_of(module, text: str) -> int:
    lines = inspect.getsource(module).splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)


def test_callable_error_names_the_users_line_not_numpys():
    (out,) = _one_op(hc.inverts_singular)
    with pytest.raises(CallableError) as info:
        run([out], x=np.ones((2, 3), "float32"))
    line = _line_of(hc, "return np.linalg.inv(")
    assert "raised LinAlgError: Singular matrix" in str(info.value)
    assert f"at {_shown(hc)}:{line} in inverts_singular" in str(info.value)


def test_differing_shape_warns_once_per_op():
    (out,) = _one_op(hc.transposed)
    value = np.arange(6, dtype="float32").reshape(2, 3)
    with pytest.warns(ShapeWarning, match=r"returned shape \[3, 2\] for output 'out0'") as rec:
        (got,) = run([out], x=value)
        run([out], x=value)
    assert len([w for w in rec if issubclass(w.category, ShapeWarning)]) == 1
    np.testing.assert_array_equal(got, value.T)


def test_differing_shape_is_an_error_when_strict(monkeypatch):
    monkeypatch.setattr(pyir.callables, "strict_shapes", True)
    (out,) = _one_op(hc.transposed)
    with pytest.raises(CallableError, match="strict_shapes"):
        run([out], x=np.ones((2, 3), "float32"))


# --- saving -------------------------------------------------------------------------------
def _unsaveable_cases():
    def nested(v):
        return v

    class Holder:
        def method(self, v):
            return v

    def in_main(v):
        return v

    in_main.__module__ = "__main__"
    in_main.__qualname__ = "in_main"
    return [(lambda v: v, "a lambda"),
            (nested, "a nested function or closure"),
            (Holder().method, "a bound method"),
            (in_main, "defined in __main__"),
            (hc.unregistered_touch, "not registered")]


@pytest.mark.parametrize("index", range(5))
def test_saving_an_unreferenceable_callable_fails_naming_op_and_fix(index):
    func, reason = _unsaveable_cases()[index]
    x = static.data("x", [2], "float32")
    static.py_func(hc.tanh, x, out_var("a", [2]))
    static.py_func(func, x, out_var("b", [2]))
    with pytest.raises(CallableError) as info:
        static.default_main_program().serialize_to_string()
    message = str(info.value)
    assert info.value.where.op_index == 1
    assert reason in message and "@pyir.register" in message


def test_save_inference_model_refuses_a_lambda_and_writes_nothing(tmp_path):
    x = static.data("x", [2], "float32")
    y = out_var("y", [2])
    static.py_func(lambda v: v, x, y)
    with pytest.raises(CallableError, match="a lambda"):
        static.save_inference_model(str(tmp_path / "m"), [x], [y], static.Executor())
    assert list(tmp_path.iterdir()) == []


def test_unreferenceable_backward_also_blocks_saving():
    x = static.data("x", [2], "float32")
    static.py_func(hc.tanh, x, out_var("y", [2]), backward_func=lambda y, dy: dy)
    with pytest.raises(CallableError, match="a lambda"):
        static.default_main_program().serialize_to_string()


def test_registered_program_round_trips_with_references():
    x = static.data("x", [2], "float32")
    y = out_var("y", [2])
    static.py_func(hc.tanh, x, y, backward_func=hc.tanh_grad, skip_vars_in_backward_input=x)
    data = static.default_main_program().serialize_to_string()
    loaded = pyir.Program.parse_from_string(data)
    assert pyir.callables.references(loaded) == [
        (0, 0, "forward", "helpers_callables:tanh"),
        (0, 0, "backward", "helpers_callables:tanh_grad")]
    (got,) = static.Executor().run(loaded, feed={"x": np.ones(2, "float32")}, fetch_list=["y"])
    np.testing.assert_allclose(got, np.tanh(np.ones(2)), rtol=1e-6)


# --- hostile files ------------------------------------------------------------------------
def _file_with(reference: str) -> pyir.Program:
    """A saved program whose first op proves running started, then a py_func naming `reference`."""
    x = static.data("x", [2], "float32")
    first = out_var("first", [2])
    second = out_var("second", [2])
    static.py_func(hc.touch_sentinel, x, first)
    static.py_func(hc.tanh, first, second)
    program = static.default_main_program()
    data = program.serialize_to_string()
    loaded = pyir.Program.parse_from_string(data)
    loaded.global_block().ops[1].attrs["forward_callable"] = reference
    # A hostile file is written by hand, not by pyir's checked save.
    return pyir.Program.parse_from_string(program_to_desc(loaded).SerializeToString())


HOSTILE = ["os:system", "builtins:exec", "builtins:eval", "subprocess:getoutput",
           "helpers_callables:unregistered_touch", "helpers_callables:tanhh",
           "no_such_module_pyir_test:f", "not a reference", "helpers_callables:tanh.__globals__",
           "__main__:tanh#local-0-000000000000"]


@pytest.mark.parametrize("reference", HOSTILE)
def test_hostile_reference_is_refused_before_any_op_runs(reference, tmp_path, monkeypatch):
    import os
    import subprocess

    sentinel = tmp_path / "ran.txt"
    monkeypatch.setenv("PYIR_TEST_SENTINEL", str(sentinel))
    called = []
    monkeypatch.setattr(os, "system", lambda *a: called.append(a))
    monkeypatch.setattr(subprocess, "getoutput", lambda *a: called.append(a))
    program = _file_with(reference)
    with pytest.raises(CallableError) as info:
        static.Executor().run(program, feed={"x": np.ones(2, "float32")}, fetch_list=["second"])
    message = str(info.value)
    assert "\n" not in message and "refused" in message
    assert info.value.where.op_index == 1 and info.value.where.callable == reference
    assert not sentinel.exists() and not called


# --- the gradient rule --------------------------------------------------------------------
def _grad_ops(op):
    opdef = registry.get("py_func")
    return opdef.grad(op, opdef)


def test_grad_rule_follows_paddle_layout():
    a = static.data("a", [2], "float32")
    b = static.data("b", [2], "float32")
    s, p = out_var("s", [2]), out_var("p", [2])
    static.py_func(hc.add_mul, [a, b], [s, p], backward_func=hc.add_mul_grad,
                   skip_vars_in_backward_input=[s, p])
    (g,) = _grad_ops(py_func_op())
    assert g.type == "py_func"
    assert g.inputs == {"X": ["a", "b", "s@GRAD", "p@GRAD"]}
    assert g.outputs == {"Out": ["a@GRAD", "b@GRAD"]}
    assert g.attrs["forward_callable"] == "helpers_callables:add_mul_grad"
    assert (g.attrs["backward_callable"], g.attrs["backward_skip_vars"]) == ("", [])


def test_grad_rule_skips_inputs_then_outputs():
    x = static.data("x", [2], "float32")
    y = out_var("y", [2])
    static.py_func(hc.tanh, x, y, backward_func=hc.tanh_grad, skip_vars_in_backward_input=x)
    (g,) = _grad_ops(py_func_op())
    assert g.inputs == {"X": ["y", "y@GRAD"]} and g.outputs == {"Out": ["x@GRAD"]}


def test_no_grad_op_without_backward():
    x = static.data("x", [2], "float32")
    static.py_func(hc.tanh, x, out_var("y", [2]))
    assert _grad_ops(py_func_op()) == []


def test_paddle_ids_carry_into_the_grad_op():
    x = static.data("x", [2], "float32")
    y = out_var("y", [2])
    static.py_func(hc.tanh, x, y)
    op = py_func_op()
    op.attrs.update(forward_callable="", forward_callable_id=3, backward_callable_id=4)
    (g,) = _grad_ops(op)
    assert (g.attrs["forward_callable_id"], g.attrs["backward_callable_id"]) == (4, -1)


# --- through append_backward ---------------------------------------------------------------
def test_backward_of_fc_and_py_func_tanh_matches_numpy():
    x = static.data("x", [2, 3], "float32")
    h = static.nn.fc(x, size=4)
    y = out_var("hidden", h.shape)
    static.py_func(hc.tanh, h, y, backward_func=hc.tanh_grad, skip_vars_in_backward_input=h)
    loss = pyir.mean(y)
    static.append_backward(loss)
    exe = static.Executor()
    exe.run(static.default_startup_program())
    xv = np.arange(6, dtype="float32").reshape(2, 3) / 6
    w_grad, b_grad, w, b = exe.run(feed={"x": xv},
                                   fetch_list=["fc_0.w_0@GRAD", "fc_0.b_0@GRAD", "fc_0.w_0",
                                               "fc_0.b_0"])
    yv = np.tanh(xv @ w + b)
    dh = (1 - yv * yv) / yv.size
    np.testing.assert_allclose(w_grad, xv.T @ dh, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(b_grad, dh.sum(0), rtol=1e-5, atol=1e-7)


def _two_in_two_out(backward):
    a = static.data("a", [2], "float32")
    b = static.data("b", [2], "float32")
    a.stop_gradient = b.stop_gradient = False
    s, p = out_var("s", [2]), out_var("p", [2])
    static.py_func(hc.add_mul, [a, b], [s, p], backward_func=backward)
    return s, p


def test_missing_output_gradient_arrives_as_none():
    s, _ = _two_in_two_out(hc.add_mul_grad)
    static.append_backward(pyir.mean(s))  # p gets no gradient
    hc.GRAD_ARGS.clear()
    a_grad, b_grad = run(["a@GRAD", "b@GRAD"], a=np.array([1, 2], "float32"),
                         b=np.array([3, 4], "float32"))
    assert hc.GRAD_ARGS == [(False, True)]
    np.testing.assert_allclose(a_grad, [0.5, 0.5])
    np.testing.assert_allclose(b_grad, [0.5, 0.5])


def test_both_output_gradients_flow():
    s, p = _two_in_two_out(hc.add_mul_grad)
    static.append_backward(pyir.mean(s) + pyir.mean(p))
    av, bv = np.array([1, 2], "float32"), np.array([3, 4], "float32")
    a_grad, b_grad = run(["a@GRAD", "b@GRAD"], a=av, b=bv)
    np.testing.assert_allclose(a_grad, (1 + bv) / 2)
    np.testing.assert_allclose(b_grad, (1 + av) / 2)


def test_none_returned_means_no_gradient_for_that_input():
    x = static.data("x", [2], "float32")
    x.stop_gradient = False
    label = static.data("label", [2], "int64")
    y = out_var("y", [2])
    static.py_func(hc.double_first, [x, label], y, backward_func=hc.scale_first_grad,
                   skip_vars_in_backward_input=y)
    static.append_backward(pyir.mean(y))
    (x_grad,) = run(["x@GRAD"], x=np.ones(2, "float32"), label=np.zeros(2, "int64"))
    np.testing.assert_allclose(x_grad, [1.0, 1.0])


def test_none_gradient_of_an_input_with_unknown_dims_is_zeros_of_its_shape():
    a = static.data("a", [-1, 2], "float32")
    b = static.data("b", [-1, 2], "float32")
    a.stop_gradient = b.stop_gradient = False
    s, p = out_var("s", [-1, 2]), out_var("p", [-1, 2])
    static.py_func(hc.add_mul, [a, b], [s, p], backward_func=hc.first_grad_only)
    static.append_backward(pyir.mean(s))
    a_grad, b_grad = run(["a@GRAD", "b@GRAD"], a=np.ones((3, 2), "float32"),
                         b=np.ones((3, 2), "float32"))
    np.testing.assert_allclose(a_grad, np.full((3, 2), 1 / 6))
    np.testing.assert_array_equal(b_grad, np.zeros((3, 2), "float32"))


def test_backward_returning_wrong_count_suggests_none():
    s, _ = _two_in_two_out(hc.last_only)
    static.append_backward(pyir.mean(s))
    with pytest.raises(CallableError) as info:
        run(["a@GRAD"], a=np.ones(2, "float32"), b=np.ones(2, "float32"))
    message = str(info.value)
    assert "returned 1 value(s), but the op has 2 output(s) (a@GRAD, b@GRAD)" in message
    assert "a tuple of 2 arrays (None for" in message
    assert info.value.where.callable == "helpers_callables:last_only"


def test_in_process_backward_callable_runs_without_registration():
    x = static.data("x", [2], "float32")
    x.stop_gradient = False
    y = out_var("y", [2])
    static.py_func(lambda v: v * np.float32(3), x, y, backward_func=lambda v, out, dy: dy * 3)
    static.append_backward(pyir.mean(y))
    (x_grad,) = run(["x@GRAD"], x=np.ones(2, "float32"))
    np.testing.assert_allclose(x_grad, [1.5, 1.5])


# --- Paddle's own py_func files -------------------------------------------------------------
SIMPLE_NET = GOLDEN / "simple_net"


def _paddle_simple_net():
    import json

    from pyir.serialize import load_program

    program = load_program(str(SIMPLE_NET / "model_with_grad.pb"))
    meta = json.loads((SIMPLE_NET / "meta.json").read_text())
    scope = pyir.static.Scope()
    with np.load(SIMPLE_NET / "params.npz") as params:
        for name in params.files:
            scope[name] = params[name]
    with np.load(SIMPLE_NET / "inputs.npz") as inputs:
        feed = {k: inputs[k] for k in inputs.files}
    return program, meta, scope, feed


def test_paddle_file_with_callable_ids_is_refused_until_bound():
    program, meta, scope, feed = _paddle_simple_net()
    with pytest.raises(CallableError, match=r"Paddle callable id 0 .*bind_ids") as info:
        static.Executor().run(program, feed=feed, fetch_list=meta["fetch_names"], scope=scope)
    assert info.value.where.op_index == 2


def test_paddle_simple_net_runs_with_bound_ids_and_matches_paddle():
    program, meta, scope, feed = _paddle_simple_net()
    funcs = {"tanh": hc.tanh, "tanh_grad": hc.tanh_grad, "debug_func": hc.record_call}
    ids = {entry["id"]: funcs[entry["name"]] for entry in meta["py_func_callables"]}
    assert pyir.callables.references(program)[:3] == [
        (0, 2, "forward", "<paddle callable id 0>"), (0, 2, "backward", "<paddle callable id 1>"),
        (0, 3, "forward", "<paddle callable id 2>")]
    hc.CALLS.clear()
    with pyir.callables.bind_ids(ids):
        got = static.Executor().run(program, feed=feed, fetch_list=meta["fetch_names"],
                                    scope=scope)
    assert len(hc.CALLS) == 4  # the four debug ops ran
    tol = meta["tolerance"]
    with np.load(SIMPLE_NET / "expected.npz") as expected:
        for name, value in zip(meta["fetch_names"], got):
            np.testing.assert_allclose(value, expected[name], rtol=tol["rtol"], atol=tol["atol"],
                                       err_msg=name)


# --- the seed samples, in process ------------------------------------------------------------
SAMPLES = GOLDEN.parent.parent / "samples"


def run_sample(name: str, monkeypatch):
    import runpy

    monkeypatch.syspath_prepend(str(SAMPLES))
    return runpy.run_path(str(SAMPLES / name), run_name="__main__")


def _softmax(z):
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _numpy_net(x, scope):
    h = x.astype("float64")
    for i in range(4):
        h = np.tanh(h @ scope[f"fc_{i}.w_0"] + scope[f"fc_{i}.b_0"])
    return _softmax(h @ scope["fc_4.w_0"] + scope["fc_4.b_0"])


@pytest.mark.parametrize("name", ["seed003_example1.py", "seed003_example1_registered.py"])
def test_seed003_example1_runs_in_process(name, monkeypatch, capsys):
    ns = run_sample(name, monkeypatch)
    printed = capsys.readouterr().out
    assert printed.count("[[") >= 4  # the four debug py_funcs printed their inputs
    prediction = _numpy_net(ns["input1"], static.global_scope())
    label = ns["input2"]
    expected = -np.log(_softmax(prediction)[np.arange(1), label]).mean()  # softmax twice, as seed
    np.testing.assert_allclose(ns["out"][0], expected, rtol=1e-5)


@pytest.mark.parametrize("name", ["seed003_example2.py", "seed003_example2_registered.py"])
def test_seed003_example2_prints_the_documented_sum(name, monkeypatch, capsys):
    documented = [np.array([[5, 9, 9], [7, 5, 2]], "int32"), np.array([[7, 8, 4], [1, 3, 3]],
                                                                     "int32")]
    monkeypatch.setattr(np.random, "randint", lambda *a, **k: documented.pop(0))
    with pytest.warns(ShapeWarning, match=r"returned shape \[2, 3\] .* declared \[3, 1\]"):
        run_sample(name, monkeypatch)
    assert "= [array([[12, 17, 13],\n       [ 8,  8,  5]], dtype=int32)]" in capsys.readouterr().out


@pytest.mark.parametrize("name", ["seed000_fluid_py_func.py",
                                  "seed000_fluid_py_func_registered.py"])
def test_seed000_runs_in_process(name, monkeypatch, capsys):
    ns = run_sample(name, monkeypatch)
    (loss,) = ns["exe"].run(static.default_main_program(), feed=ns["feed"],
                            fetch_list=[ns["avg_loss"]])
    prediction = _numpy_net(ns["feed"]["img"], static.global_scope())
    expected = -np.log(prediction[0, ns["feed"]["label"][0, 0]])
    np.testing.assert_allclose(loss, expected, rtol=1e-5)
    assert capsys.readouterr().out.count("[[") >= 8  # debug ops ran in both runs
