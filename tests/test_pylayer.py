"""static_pylayer and PyLayer in static programs: Paddle's layout, running, gradients, checks,
composition and save/load (fresh-process runs are in test_pylayer_process.py)."""

from __future__ import annotations

import runpy

import numpy as np
import pytest

import pyir
from pyir.autograd import PyLayer
from pyir.errors import BuildError, GradError, KernelError
from pyir.executor import Executor, Scope
from pyir.framework import STEP_SCOPES, Program, program_guard
from pyir.serialize import load_program

from conftest import GOLDEN, ROOT

CASE = GOLDEN / "pylayer_grad"
static_pylayer = pyir.static.nn.static_pylayer


def _golden_net():
    """The network behind Paddle's pylayer_grad golden, built with pyir's API."""
    main = Program()
    with program_guard(main, Program()):
        x = pyir.static.data("x", [4, 5], "float32")
        x.stop_gradient = False
        w = pyir.static.data("w", [4, 6], "float32")
        h0, h1 = pyir.static.nn.fc(x, 6), pyir.static.nn.fc(x, 6)

        def backward1(dy):
            t = pyir.tanh(h0)
            return pyir.multiply(dy, pyir.scale(pyir.multiply(t, t), -1.0, 1.0))

        p1 = static_pylayer(pyir.tanh, [h0], backward1)
        p2 = static_pylayer(lambda a, b: pyir.add(pyir.multiply(a, b), pyir.exp(b)), [p1, h1],
                            lambda dy: (pyir.multiply(dy, h1),
                                        pyir.multiply(dy, pyir.add(p1, pyir.exp(h1)))))
        loss = pyir.mean(pyir.nn.functional.softmax(p2) * w)
    return main, loss


def _layout(program) -> list:
    rows = []
    for b in program.blocks:
        fwd = -1 if b.forward_block_idx is None else b.forward_block_idx
        rows.append(("block", b.idx, b.parent_idx, fwd, sorted(b.vars)))
        for op in b.ops:
            rows.append((op.type, sorted((k, tuple(v)) for k, v in op.inputs.items() if v),
                         sorted((k, tuple(v)) for k, v in op.outputs.items()),
                         op.attrs.get("blocks"), op.attrs.get("backward_block"),
                         op.attrs.get("op_role")))
    return rows


def _run_golden(program) -> None:
    scope = Scope()
    for name, value in np.load(CASE / "params.npz").items():
        scope[name] = value
    expected = np.load(CASE / "expected.npz")
    values = Executor().run(program, feed=dict(np.load(CASE / "inputs.npz")),
                            fetch_list=list(expected.files), scope=scope)
    for name, value in zip(expected.files, values):
        np.testing.assert_allclose(value, expected[name], rtol=1e-4, atol=1e-6, err_msg=name)


# --- Paddle's layout and numbers -----------------------------------------------------------
def test_layout_matches_paddles_forward_and_backward_programs():
    main, loss = _golden_net()
    assert _layout(main) == _layout(load_program(str(CASE / "model_forward.pb")))
    pyir.static.append_backward(loss)
    assert _layout(main) == _layout(load_program(str(CASE / "model_with_grad.pb")))


def test_paddles_pylayer_program_gives_paddles_gradients():
    _run_golden(load_program(str(CASE / "model_with_grad.pb")))


def test_pyir_built_pylayer_program_gives_paddles_gradients():
    main, loss = _golden_net()
    pyir.static.append_backward(loss)
    _run_golden(main)


def test_op_and_blocks_follow_paddles_conventions():
    main = Program()
    with program_guard(main, Program()):
        x = pyir.static.data("x", [2, 3], "float32")
        x.stop_gradient = False
        y = static_pylayer(pyir.exp, [x], lambda dy: pyir.scale(dy, 2.0))
    op = main.global_block().ops[0]
    assert (op.type, op.input("Input"), op.output("Out")) == ("pylayer", ["x"], [y.name])
    assert main.global_block().var(op.output("Scope")[0]).type == STEP_SCOPES
    forward, backward = (main.blocks[i] for i in op.attr("blocks"))
    assert (forward.parent_idx, backward.parent_idx, backward.forward_block_idx) == (0, 0, 1)
    first, last = backward.ops[0], backward.ops[-1]
    assert (first.type, first.input("X")) == ("assign", [y.name + "@GRAD"])
    assert last.output_arg_names == ["x@GRAD"]
    assert {o.attr("op_role") for o in backward.ops} == {1}
    assert [o.type for o in forward.ops][-1] == "assign"


# --- seed 004 ------------------------------------------------------------------------------
def test_seed004_prints_its_documented_output(capsys):
    runpy.run_path(str(ROOT / "samples" / "seed004_static_pylayer.py"), run_name="__main__")
    assert capsys.readouterr().out.splitlines() == [
        "[[1. 2. 3. 4. 5.]]",
        "[[5.4365635 5.4365635 5.4365635 5.4365635 5.4365635]]",
        "[[  2.7182817   7.389056   20.085537   54.59815   148.41316  ]]",
    ]


# --- checks of backward_fn and of what the blocks read -------------------------------------
def _build(forward_fn, inputs_spec, backward_fn, stop_gradient=False):
    main = Program()
    with program_guard(main, Program()):
        inputs = []
        for name, shape, dtype in inputs_spec:
            v = pyir.static.data(name, shape, dtype)
            v.stop_gradient = stop_gradient
            inputs.append(v)
        out = static_pylayer(forward_fn, inputs, backward_fn)
    return main, inputs, out


def test_backward_fn_returning_too_many_gradients_is_refused():
    with pytest.raises(BuildError, match=r"returned 2 gradient\(s\), but forward_fn has 1 "
                                         r"Variable input\(s\) \(x\)"):
        _build(pyir.exp, [("x", [2], "float32")], lambda dy: (dy, dy))


def test_backward_fn_gradient_of_wrong_dtype_or_shape_is_refused():
    with pytest.raises(BuildError, match=r"#0 .* is float64, but input 'x' is float32"):
        _build(pyir.exp, [("x", [2], "float32")], lambda dy: pyir.cast(dy, "float64"))
    with pytest.raises(BuildError, match=r"shape \[2, 1\], but input 'x' has shape \[2\]"):
        _build(pyir.exp, [("x", [2], "float32")], lambda dy: pyir.reshape(dy, [2, 1]))


def test_none_gradient_means_no_gradient():
    main, (a, b), out = _build(lambda a, b: pyir.multiply(a, b),
                               [("a", [3], "float32"), ("b", [3], "float32")],
                               lambda dy: (pyir.scale(dy, 3.0), None))
    with program_guard(main, Program()):
        da, db = pyir.static.gradients([out], [a, b])
    assert db is None
    grad_op = main.global_block().ops[-1]
    assert grad_op.type == "pylayer_grad" and grad_op.output("Input@GRAD") == ["a@GRAD", "@EMPTY@"]
    feed = {"a": np.arange(3, dtype="float32"), "b": np.ones(3, "float32")}
    (value,) = Executor().run(main, feed=feed, fetch_list=[da])
    np.testing.assert_array_equal(value, np.full(3, 3.0, "float32"))


def test_without_backward_fn_inputs_must_stop_gradients():
    with pytest.raises(BuildError, match=r"without backward_fn has no gradient, but input 'x' "
                                         r"has stop_gradient=False.*x.stop_gradient = True"):
        _build(pyir.exp, [("x", [2], "float32")], None)
    main, (x,), y = _build(pyir.exp, [("x", [2], "float32")], None, stop_gradient=True)
    op = main.global_block().ops[0]
    assert op.attr("blocks") == [1] and len(main.blocks) == 2
    (value,) = Executor().run(main, feed={"x": np.zeros(2, "float32")}, fetch_list=[y])
    np.testing.assert_array_equal(value, np.ones(2, "float32"))
    x.stop_gradient = False  # changed after building: differentiating now says what is wrong
    with program_guard(main, Program()):
        with pytest.raises(GradError, match="no backward block .* 'x' needs a gradient"):
            pyir.static.gradients([y], [x])


def test_block_reading_a_variable_it_is_not_given_is_refused():
    main = Program()
    with program_guard(main, Program()):
        x = pyir.static.data("x", [2], "float32")
        other = pyir.exp(x)
        with pytest.raises(BuildError, match=r"forward_fn reads variable 'exp_0.tmp_0'.*pass "
                                             r"'exp_0.tmp_0' in `inputs`"):
            static_pylayer(lambda v: pyir.add(v, other), [x], lambda dy: dy)


def test_error_inside_a_sub_block_names_the_sub_block():
    main, (x,), y = _build(pyir.log, [("x", [2], "int64")], None, stop_gradient=True)
    with pytest.raises(KernelError) as info:
        Executor().run(main, feed={"x": np.array([1, 2])}, fetch_list=[y])
    assert info.value.where.block == 1 and info.value.where.op_type == "log"


# --- several outputs, unused outputs, parameters -----------------------------------------------
def test_several_outputs_and_an_unused_one_get_zeros():
    def forward(a, b):
        return pyir.multiply(a, b), pyir.add(a, b)

    def backward(d_prod, d_sum):  # d_sum is zeros: the loss does not use the sum
        return pyir.add(pyir.multiply(d_prod, b), d_sum), pyir.multiply(d_prod, a)

    main = Program()
    with program_guard(main, Program()):
        a, b = pyir.static.data("a", [3], "float32"), pyir.static.data("b", [3], "float32")
        a.stop_gradient = b.stop_gradient = False
        prod, total = static_pylayer(forward, [a, b], backward)
        da, db = pyir.static.gradients([prod], [a, b])
    feed = {"a": np.array([1, 2, 3], "float32"), "b": np.array([4, 5, 6], "float32")}
    p, s, ga, gb = Executor().run(main, feed=feed, fetch_list=[prod, total, da, db])
    np.testing.assert_array_equal(p, feed["a"] * feed["b"])
    np.testing.assert_array_equal(s, feed["a"] + feed["b"])
    np.testing.assert_array_equal(ga, feed["b"])
    np.testing.assert_array_equal(gb, feed["a"])


def test_pylayer_over_parameters_trains_its_inputs():
    main, startup = Program(), Program()
    with program_guard(main, startup):
        x = pyir.static.data("x", [4, 3], "float32")
        h = pyir.static.nn.fc(x, 2)
        y = static_pylayer(pyir.tanh, [h],
                           lambda dy: pyir.multiply(dy, pyir.scale(pyir.square(pyir.tanh(h)),
                                                                   -1.0, 1.0)))
        loss = pyir.mean(y)
        pairs = pyir.static.append_backward(loss)
    scope = Scope()
    Executor().run(startup, scope=scope)
    feed = {"x": np.random.default_rng(1).standard_normal((4, 3)).astype("float32")}
    values = Executor().run(main, feed=feed, fetch_list=[g for _, g in pairs], scope=scope)
    w, b = scope["fc_0.w_0"], scope["fc_0.b_0"]
    dt = (1 - np.tanh(feed["x"] @ w + b) ** 2) / 8
    want = {"fc_0.w_0": feed["x"].T @ dt, "fc_0.b_0": dt.sum(0)}
    for (p, _), value in zip(pairs, values):
        np.testing.assert_allclose(value, want[p.name], rtol=1e-5, atol=1e-6)


# --- composition ---------------------------------------------------------------------------
def test_pylayer_inside_a_pylayer():
    def inner_forward(v):
        return static_pylayer(pyir.exp, [v], lambda dy: pyir.scale(dy, 10.0))

    main = Program()
    with program_guard(main, Program()):
        x = pyir.static.data("x", [3], "float32")
        x.stop_gradient = False
        y = static_pylayer(lambda v: pyir.scale(inner_forward(v), 2.0), [x],
                           lambda dy: static_pylayer(lambda g: pyir.scale(g, 3.0), [dy],
                                                     lambda d: d))
        (dx,) = pyir.static.gradients([y], [x])
    inner_op = main.blocks[1].ops[0]
    assert inner_op.type == "pylayer" and all(main.blocks[i].parent_idx == 1
                                              for i in inner_op.attr("blocks"))
    feed = {"x": np.array([0.0, 1.0, 2.0], "float32")}
    y_value, dx_value = Executor().run(main, feed=feed, fetch_list=[y, dx])
    np.testing.assert_allclose(y_value, 2 * np.exp(feed["x"]), rtol=1e-6)
    np.testing.assert_array_equal(dx_value, np.full(3, 3.0, "float32"))


def test_several_pylayers_survive_save_and_load_with_block_indices():
    main, loss = _golden_net()
    pyir.static.append_backward(loss)
    loaded = Program.parse_from_string(main.serialize_to_string())
    assert _layout(loaded) == _layout(main)
    assert [op.attr("blocks") for op in loaded.global_block().ops if op.type == "pylayer"] == \
        [[1, 2], [3, 4]]
    _run_golden(loaded)


# --- PyLayer lowered into a static program ---------------------------------------------------
class Cube(PyLayer):
    """y = x^3 with its derivative computed from the saved input."""

    @staticmethod
    def forward(ctx, x, k=1.0):
        ctx.k = k
        ctx.save_for_backward(x)
        return pyir.scale(x * x * x, k)

    @staticmethod
    def backward(ctx, dy):
        (x,) = ctx.saved_tensor()
        return dy * pyir.scale(x * x, 3.0 * ctx.k)


class TanhSaved(PyLayer):
    """Saves a value computed inside forward: backward reads it from the forward run."""

    @staticmethod
    def forward(ctx, x):
        y = pyir.tanh(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, dy):
        (y,) = ctx.saved_tensor()
        return dy * (1 - pyir.square(y))


def test_pylayer_apply_on_variables_lowers_to_a_pylayer_op():
    main = Program()
    with program_guard(main, Program()):
        x = pyir.static.data("x", [4], "float32")
        x.stop_gradient = False
        y = TanhSaved.apply(Cube.apply(x, k=0.5))
        (dx,) = pyir.static.gradients([y], [x])
    assert [op.type for op in main.global_block().ops if "pylayer" in op.type] == \
        ["pylayer", "pylayer", "pylayer_grad", "pylayer_grad"]
    saved = main.blocks[4].vars  # TanhSaved's backward block declares the saved tanh output
    assert any(name.startswith("tanh_") for name in saved)
    xv = np.array([-1.0, -0.3, 0.4, 0.9], "float32")
    y_value, dx_value = Executor().run(main, feed={"x": xv}, fetch_list=[y, dx])
    c = 0.5 * xv ** 3
    np.testing.assert_allclose(y_value, np.tanh(c), rtol=1e-6)
    np.testing.assert_allclose(dx_value, (1 - np.tanh(c) ** 2) * 1.5 * xv ** 2, rtol=1e-5)


def test_pylayer_mark_non_differentiable_in_static_mode_stops_gradient():
    class Split(PyLayer):
        @staticmethod
        def forward(ctx, x):
            index = pyir.cast(x, "int64")
            ctx.mark_non_differentiable(index)
            return pyir.scale(x, 2.0), index

        @staticmethod
        def backward(ctx, dy, dindex):
            return pyir.scale(dy, 2.0)

    main = Program()
    with program_guard(main, Program()):
        x = pyir.static.data("x", [2], "float32")
        x.stop_gradient = False
        y, index = Split.apply(x)
    assert index.stop_gradient and not y.stop_gradient


def test_py_func_inside_pylayer_blocks_runs_here_and_in_a_fresh_process(tmp_path):
    import subprocess
    import sys

    import helpers_callables as hc

    main = Program()

    def forward(v):
        out = main.current_block().create_var(name="pf_y", dtype="float32", shape=[2, 3])
        return pyir.static.py_func(hc.tanh, v, out)

    def backward(dy):
        block = main.current_block()
        t = block.create_var(name="pf_t", dtype="float32", shape=[2, 3])
        g = block.create_var(name="pf_g", dtype="float32", shape=[2, 3])
        pyir.static.py_func(hc.tanh, x, t)
        return pyir.static.py_func(hc.tanh_grad, [t, dy], g)

    with program_guard(main, Program()):
        x = pyir.static.data("x", [2, 3], "float32")
        x.stop_gradient = False
        y = static_pylayer(forward, [x], backward)
        (dx,) = pyir.static.gradients([y], [x])
    assert [op.type for op in main.blocks[1].ops] == ["py_func", "assign"]
    xv = np.linspace(-1, 1, 6, dtype="float32").reshape(2, 3)
    y_value, dx_value = Executor().run(main, feed={"x": xv}, fetch_list=[y, dx])
    np.testing.assert_allclose(y_value, np.tanh(xv), rtol=1e-6)
    np.testing.assert_allclose(dx_value, 1 - np.tanh(xv) ** 2, rtol=1e-6)

    (tmp_path / "prog.pb").write_bytes(main.serialize_to_string())
    np.save(tmp_path / "x.npy", xv)
    code = (f"import numpy as np, pyir\nfrom pyir.serialize import load_program\n"
            f"p = load_program('prog.pb')\n"
            f"v = pyir.static.Executor().run(p, feed={{'x': np.load('x.npy')}}, "
            f"fetch_list=[{dx.name!r}])[0]\nnp.save('dx.npy', v)\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, env={"PYIR_PATH": str(ROOT / "tests"),
                                                       "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "dx.npy"), dx_value)


def test_seed002_layer_in_a_static_program(capsys):
    ns = runpy.run_path(str(ROOT / "samples" / "seed002_pylayer_static.py"),
                        run_name="__main__")
    assert [op.type for op in ns["x"].block.program.global_block().ops][:2] == \
        ["pylayer", "reduce_mean"]
    xv = np.linspace(-1.0, 1.0, 6).reshape(2, 3)
    printed = capsys.readouterr().out
    assert str(np.tanh(xv)) in printed and str((1 - np.tanh(xv) ** 2) / 6) in printed


def test_pylayer_input_without_value_is_named():
    main = Program()
    block = main.global_block()
    with program_guard(main, Program()):
        ghost = block.create_var("ghost", "float32", [2], stop_gradient=True)
        y = static_pylayer(pyir.exp, [ghost], None)
    with pytest.raises(KernelError, match="input 'ghost' has no value") as info:
        Executor().run(main, fetch_list=[y])
    assert info.value.where.op_type == "pylayer"
