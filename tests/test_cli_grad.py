"""`pyir grad`: the written program's fetch targets and numbers, and `--check`."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

import pyir
from pyir.cli.main import main
from pyir.executor import Executor, Scope
from pyir.files import load_model, save_model
from pyir.plan import io_targets
from pyir.static import Program, program_guard

from conftest import GOLDEN, ROOT

import gradfuncs

MLP = GOLDEN / "mlp_grad"
TESTS = str(ROOT / "tests")


def _grad(*args):
    return CliRunner().invoke(main, ["grad", *map(str, args)])


def test_grad_of_paddles_forward_file_records_loss_and_gradients(tmp_path):
    out = tmp_path / "g.pb"
    result = _grad(MLP / "model_forward.pb", "--params", MLP / "params.npz", "-o", out)
    assert result.exit_code == 0, result.output
    meta = json.loads((MLP / "meta.json").read_text())
    scope = Scope()
    model = load_model(str(out), scope=scope)
    assert model.fetch_names[0] == meta["loss_name"]
    assert set(model.fetch_names) == set(meta["fetch_names"])
    assert model.feed_names == ["x", "label"] or set(model.feed_names) == {"x", "label"}
    values = Executor().run(model.program, feed=dict(np.load(MLP / "inputs.npz")),
                            fetch_list=model.fetch_names, scope=scope)
    expected = np.load(MLP / "expected.npz")
    tol = meta["tolerance"]
    for name, value in zip(model.fetch_names, values):
        want = expected[name]
        assert np.all(np.abs(value - want) <= tol["atol"] + tol["rtol"] * np.abs(want)), name


def test_run_fetches_one_gradient_of_the_written_file(tmp_path):
    out = tmp_path / "g.pb"
    assert _grad(MLP / "model_forward.pb", "--params", MLP / "params.npz", "-o",
                 out).exit_code == 0
    result = CliRunner().invoke(main, ["run", str(out), "--feed", str(MLP / "inputs.npz"),
                                       "--fetch", "x@GRAD", "-o", str(tmp_path / "r.npz")])
    assert result.exit_code == 0, result.output
    got = np.load(tmp_path / "r.npz")["x@GRAD"]
    np.testing.assert_allclose(got, np.load(MLP / "expected.npz")["x@GRAD"], rtol=1e-4,
                               atol=1e-6)


def test_wrt_and_loss_select_what_is_differentiated(tmp_path):
    out = tmp_path / "g.pb"
    result = _grad(MLP / "model_forward.pb", "--params", MLP / "params.npz", "--loss",
                   "mean_0.tmp_0", "--wrt", "linear_1.w_0", "-o", out)
    assert result.exit_code == 0, result.output
    program = load_model(str(out), scope=Scope()).program
    assert io_targets(program, "fetch") == ["mean_0.tmp_0", "linear_1.w_0@GRAD"]
    written = {n for op in program.global_block().ops for n in op.output_arg_names}
    assert "fc_0.w_0@GRAD" not in written and "x@GRAD" not in written


def test_unknown_wrt_is_one_line_error():
    result = _grad(MLP / "model_forward.pb", "--params", MLP / "params.npz", "--wrt", "nope",
                   "-o", "unused.pb")
    assert result.exit_code == 1
    assert "no --wrt variable 'nope'" in result.output


def test_check_passes_on_a_correct_program():
    result = _grad(MLP / "model_forward.pb", "--params", MLP / "params.npz", "--check",
                   "--feed", MLP / "inputs.npz", "--max-elements", "8")
    assert result.exit_code == 0, result.output
    lines = [ln for ln in result.output.splitlines() if "@GRAD:" in ln]
    assert len(lines) == 9 and all(ln.endswith("ok") for ln in lines)
    assert "max abs err" in lines[0] and "max rel err" in lines[0]


def _py_func_model(tmp_path, forward, backward):
    main_p, startup = Program(), Program()
    with program_guard(main_p, startup):
        x = pyir.static.data("x", [3, 4], "float32")
        h = pyir.static.nn.fc(x, 5)
        y = main_p.global_block().create_var(name="y", dtype="float32", shape=[3, 5])
        pyir.static.py_func(forward, h, y, backward_func=backward,
                            skip_vars_in_backward_input=h)
        loss = pyir.mean(pyir.multiply(y, y))
    scope = Scope()
    Executor().run(startup, scope=scope)
    save_model(str(tmp_path / "m.pb"), main_p, ["x"], [loss.name], scope)
    np.save(tmp_path / "x.npy", np.random.default_rng(5).standard_normal((3, 4))
            .astype("float32"))
    return tmp_path / "m.pb", tmp_path / "x.npy"


def test_check_accepts_a_correct_py_func_backward(tmp_path):
    model, x = _py_func_model(tmp_path, gradfuncs.tanh, gradfuncs.tanh_grad)
    result = _grad(model, "--check", "--feed", x, "--path", TESTS)
    assert result.exit_code == 0, result.output


def test_check_catches_a_wrong_py_func_backward(tmp_path):
    model, x = _py_func_model(tmp_path, gradfuncs.tanh, gradfuncs.tanh_grad_wrong)
    result = _grad(model, "--check", "--feed", x, "--path", TESTS)
    assert result.exit_code == 1
    assert "MISMATCH" in result.output and "gradient check failed" in result.output


def test_check_explains_a_py_func_that_does_not_keep_float64(tmp_path):
    model, x = _py_func_model(tmp_path, gradfuncs.tanh_float32, gradfuncs.tanh_grad)
    result = _grad(model, "--check", "--feed", x, "--path", TESTS)
    assert result.exit_code == 1
    assert "runs the program in float64" in result.output
    assert "py_func" in result.output


def test_check_needs_feeds():
    result = _grad(MLP / "model_forward.pb", "--params", MLP / "params.npz", "--check")
    assert result.exit_code == 1 and "--feed" in result.output


def test_no_scalar_output_asks_for_loss(tmp_path):
    result = _grad(GOLDEN / "mlp" / "model.pdmodel", "-o", tmp_path / "g.pb")
    assert result.exit_code == 1
    assert "no output is a float scalar (outputs: " in result.output
    assert "name it with --loss" in result.output


@pytest.mark.parametrize("wrt", [("x",), ()])
def test_written_file_is_atomic_and_parses(tmp_path, wrt):
    out = tmp_path / "g.pb"
    args = [MLP / "model_forward.pb", "--params", MLP / "params.npz", "-o", out]
    for w in wrt:
        args += ["--wrt", w]
    assert _grad(*args).exit_code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.pb", "g.pdiparams"]
