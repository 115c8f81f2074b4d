"""`pyir export`: a trained program to a deployable inference model, and the whole workflow
build -> train -> export -> run -> grad walked through the real CLI in subprocesses."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from conftest import assert_one_line_error, cli
from pyir.files import (export_model, forward_part, load_model, persistable_names,
                        read_params)
from pyir.builder import ROLE_BACKWARD, ROLE_OPTIMIZE

ROOT = pathlib.Path(__file__).resolve().parent.parent
TRAIN = """
    import pyir as paddle
    paddle.seed(3)
    x = paddle.static.data(name="x", shape=[None, 4], dtype="float32")
    label = paddle.static.data(name="label", shape=[None, 1], dtype="int64")
    hidden = paddle.static.nn.fc(x, size=8, activation="tanh")
    probs = paddle.static.nn.fc(hidden, size=3, activation="softmax")
    loss = paddle.mean(paddle.nn.functional.cross_entropy(probs, label, use_softmax=False))
    paddle.optimizer.Adam(learning_rate=0.05).minimize(loss)
"""


def data(n: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 4)).astype("float32")
    label = (x[:, :1] > 0).astype("int64") + (x[:, 1:2] > 0.5).astype("int64")
    return {"x": x, "label": label}


def pyir_cmd(*args, cwd):
    return subprocess.run([sys.executable, "-m", "pyir", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def forward_numpy(params: dict, x: np.ndarray) -> np.ndarray:
    """The exported network by hand: tanh(x W0 + b0) W1 + b1, softmax."""
    h = np.tanh(x @ params["fc_0.w_0"] + params["fc_0.b_0"])
    z = h @ params["fc_1.w_0"] + params["fc_1.b_0"]
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.fixture
def trained(tmp_path_factory):
    """train.pb built, trained 5 Adam steps with --save-params: (directory, probs name)."""
    tmp_path = tmp_path_factory.mktemp("trained")
    (tmp_path / "train.py").write_text(textwrap.dedent(TRAIN))
    np.savez(tmp_path / "data.npz", **data(32, 0))
    built = pyir_cmd("build", "train.py", "-o", "train.pb", cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    ran = pyir_cmd("run", "train.pb", "--feed", "data.npz", "--steps", 5, "--save-params",
                   cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    loaded = load_model(str(tmp_path / "train.pb"))
    softmax = [op for op in loaded.program.global_block().ops if op.type == "softmax"]
    return tmp_path, softmax[0].output("Out")[0]


def test_workflow_train_export_run_grad_through_the_cli(trained):
    folder, probs = trained
    exported = pyir_cmd("export", "train.pb", "-o", "infer.pdmodel", "--fetch", probs,
                        cwd=folder)
    assert exported.returncode == 0, exported.stderr
    assert "inputs x;" in exported.stdout
    assert {"infer.pdmodel", "infer.pdiparams"} <= set(os.listdir(folder))
    # The exported model runs on new data without the label, to the trained numbers.
    np.save(folder / "new_x.npy", data(6, 1)["x"])
    ran = pyir_cmd("run", "infer.pdmodel", "--feed", "new_x.npy", "-o", "out.npz", cwd=folder)
    assert ran.returncode == 0, ran.stderr
    loaded = load_model(str(folder / "infer.pdmodel"))
    assert loaded.feed_names == ["x"] and loaded.fetch_names == [probs]
    values = read_params(str(folder / "infer.pdiparams"),
                         ["fc_0.b_0", "fc_0.w_0", "fc_1.b_0", "fc_1.w_0"])
    np.testing.assert_allclose(np.load(folder / "out.npz")[probs],
                               forward_numpy(values, data(6, 1)["x"]), rtol=1e-5, atol=1e-6)
    # ... and its parameters are the trained ones, not the initial ones.
    train_program = load_model(str(folder / "train.pb")).program
    trained_values = read_params(str(folder / "train.pdiparams"),
                                 persistable_names(train_program))
    for name, value in values.items():
        np.testing.assert_array_equal(value, trained_values[name])
    # Exported with its loss, the model can be differentiated and its gradients checked.
    loss = load_model(str(folder / "train.pb")).fetch_names[0]
    exported = pyir_cmd("export", "train.pb", "-o", "scored.pdmodel", "--fetch", loss,
                        cwd=folder)
    assert exported.returncode == 0 and "inputs x, label;" in exported.stdout, exported.stderr
    grad = pyir_cmd("grad", "scored.pdmodel", "--wrt", "fc_0.w_0", "-o", "g.pb", cwd=folder)
    assert grad.returncode == 0, grad.stderr
    ran = pyir_cmd("run", "g.pb", "--feed", "data.npz", "-o", "g.npz", cwd=folder)
    assert ran.returncode == 0, ran.stderr
    assert np.load(folder / "g.npz")["fc_0.w_0@GRAD"].shape == (4, 8)
    check = pyir_cmd("grad", "scored.pdmodel", "--check", "--feed", "data.npz", cwd=folder)
    assert check.returncode == 0 and "gradient check passed" in check.stdout, check.stderr


def test_export_keeps_only_forward_ops_and_the_parameters_they_read(trained, tmp_path):
    folder, probs = trained
    done = export_model(str(folder / "train.pb"), str(tmp_path / "m.pb"), [probs])
    program = load_model(done.path).program
    kinds = {op.type for op in program.global_block().ops}
    assert kinds == {"feed", "fetch", "mul", "elementwise_add", "tanh", "softmax"}
    assert not any(int(op.attrs.get("op_role", 0)) & (ROLE_BACKWARD | ROLE_OPTIMIZE)
                   for op in program.global_block().ops)
    names = persistable_names(program)
    assert names == ["fc_0.b_0", "fc_0.w_0", "fc_1.b_0", "fc_1.w_0"]  # no moments, no lr
    assert sorted(read_params(done.params_path, names)) == names  # and nothing more in the file
    assert done.feed_names == ["x"] and done.dropped_ops > 0


def test_export_the_loss_keeps_the_label_input(trained, tmp_path):
    folder, _ = trained
    loss = load_model(str(folder / "train.pb")).fetch_names[0]
    done = export_model(str(folder / "train.pb"), str(tmp_path / "m.pdmodel"), [loss])
    assert done.feed_names == ["x", "label"]


def test_forward_part_drops_backward_and_optimizer_ops(trained):
    folder, _ = trained
    program = load_model(str(folder / "train.pb")).program
    forward = forward_part(program)
    roles = [int(op.attrs.get("op_role", 0)) for op in forward.global_block().ops]
    assert roles and all(not r & (ROLE_BACKWARD | ROLE_OPTIMIZE) for r in roles)
    assert any("adam" == op.type for op in program.global_block().ops)
    assert len(program.global_block().ops) > len(forward.global_block().ops)


@pytest.mark.parametrize("fetch, fragments", [
    ("fc_0.w_0@GRAD", ["computed only by the backward pass", "fc_0.w_0@GRAD"]),
    ("no_such_var", ["'no_such_var' is not a variable", "the last outputs of its forward part are"]),
])
def test_export_refuses_fetches_it_cannot_keep(trained, tmp_path, fetch, fragments):
    folder, _ = trained
    result = cli("export", folder / "train.pb", "-o", tmp_path / "m.pdmodel", "--fetch", fetch)
    assert_one_line_error(result, *fragments)
    assert not (tmp_path / "m.pdmodel").exists() and not (tmp_path / "m.pdiparams").exists()


def test_export_refuses_other_extensions_and_missing_files(trained, tmp_path):
    folder, probs = trained
    assert_one_line_error(cli("export", folder / "train.pb", "-o", tmp_path / "m.txt"),
                          "written as a .pdmodel or .pb file")
    assert_one_line_error(cli("export", tmp_path / "nope.pb", "-o", tmp_path / "m.pb"),
                          "no such model file")
    assert os.listdir(tmp_path) == []


def test_export_needs_the_trained_values(trained, tmp_path):
    folder, probs = trained
    (tmp_path / "train.pb").write_bytes((folder / "train.pb").read_bytes())  # no params beside
    result = cli("export", tmp_path / "train.pb", "-o", tmp_path / "m.pdmodel", "--fetch", probs)
    assert_one_line_error(result, "no trained values", "--params")
    result = cli("export", tmp_path / "train.pb", "-o", tmp_path / "m.pdmodel", "--fetch", probs,
                 "--params", folder / "train.pdiparams")
    assert result.exit_code == 0, result.output


# --- the other verbs on the same paths: grad --forward-only / --bind-id, build --path --------
def test_grad_forward_only_differentiates_the_forward_part_of_a_training_program(trained,
                                                                              tmp_path):
    folder, _ = trained
    refused = cli("grad", folder / "train.pb", "-o", tmp_path / "g.pb")
    assert_one_line_error(refused, "already holds backward ops", "--forward-only")
    done = cli("grad", folder / "train.pb", "--forward-only", "-o", tmp_path / "g.pb")
    assert done.exit_code == 0, done.output
    program = load_model(str(tmp_path / "g.pb")).program
    assert not any(op.type == "adam" for op in program.global_block().ops)
    assert "fc_0.w_0@GRAD" in load_model(str(tmp_path / "g.pb")).fetch_names
    assert not any("grad/" in n for n in program.global_block().vars)  # names not nested
    check = cli("grad", folder / "train.pb", "--forward-only", "--check", "--feed",
                folder / "data.npz")
    assert check.exit_code == 0 and "gradient check passed (4 gradients)" in check.output


def test_grad_check_binds_paddle_callable_ids():
    root = ROOT
    case = root / "tests" / "paddle_golden" / "simple_net"
    ids = json.loads((case / "meta.json").read_text())["py_func_callables"]
    binds = [f"--bind-id={c['id']}=seed_pyfuncs:{c['name']}" for c in ids]
    args = ("grad", case / "model_forward.pb", "--check", "--feed", case / "inputs.npz",
            "--params", case / "params.npz", "--path", root / "samples", "--max-elements", 3)
    unbound = cli(*args)
    assert_one_line_error(unbound, "Paddle callable id", "--bind-id")
    bound = cli(*args, *binds)
    assert bound.exit_code == 0, bound.output
    assert "gradient check passed (11 gradients)" in bound.output


def test_build_path_lets_the_model_import_its_callables_module(tmp_path):
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "export_test_funcs.py").write_text(textwrap.dedent("""
        import numpy as np
        import pyir

        @pyir.register
        def triple(x):
            return np.asarray(x) * 3
    """))
    (tmp_path / "model.py").write_text(textwrap.dedent("""
        import pyir as paddle
        from export_test_funcs import triple
        x = paddle.static.data(name="x", shape=[2], dtype="float32")
        out = paddle.static.default_main_program().current_block().create_var(
            name="y", dtype="float32", shape=[2])
        paddle.static.py_func(func=triple, x=x, out=out)
    """))
    without = pyir_cmd("build", "model.py", "-o", "m.pb", cwd=tmp_path)
    assert without.returncode == 1 and "export_test_funcs" in without.stderr
    assert not (tmp_path / "m.pb").exists()
    built = pyir_cmd("build", "model.py", "-o", "m.pb", "--path", "lib", cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    np.save(tmp_path / "x.npy", np.array([1.0, 2.0], "float32"))
    ran = pyir_cmd("run", "m.pb", "--feed", "x.npy", "--path", "lib", "-o", "y.npz",
                   cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "y.npz")["y"], [3.0, 6.0])


# --- stop_gradient of inputs through save and load ----------------------------------------
@pytest.mark.parametrize("stop_gradient, wants_x", [(True, False), (False, True)])
def test_saved_inputs_keep_the_in_process_default_wrt(tmp_path, stop_gradient, wants_x):
    import pyir
    from pyir.differentiation import default_wrt
    from pyir.executor import Executor, Scope
    from pyir.files import save_model
    x = pyir.static.data(name="x", shape=[None, 3], dtype="float32")
    x.stop_gradient = stop_gradient
    loss = pyir.mean(pyir.static.nn.fc(x, size=1))
    main = pyir.static.default_main_program()
    in_process = default_wrt(main)
    scope = Scope()
    Executor().run(pyir.static.default_startup_program(), scope=scope)
    save_model(str(tmp_path / "m.pb"), main, ["x"], [loss.name], scope)
    from_file = default_wrt(load_model(str(tmp_path / "m.pb")).program)
    assert sorted(from_file) == sorted(in_process)
    assert ("x" in from_file) == wants_x
    done = cli("grad", tmp_path / "m.pb", "-o", tmp_path / "g.pb")
    assert done.exit_code == 0, done.output
    assert ("x@GRAD" in done.output) == wants_x


def test_paddle_inference_file_inputs_are_constants_by_default():
    from pyir.differentiation import default_wrt
    program = load_model(str(ROOT / "tests" / "paddle_golden" / "mlp" / "model.pdmodel")).program
    wrt = default_wrt(program)
    assert wrt and not any(program.global_block().var(n).need_check_feed for n in wrt)


# --- errors from a user's callable, and PYIR_TRACEBACK ------------------------------------
def test_callable_error_shows_the_users_line_and_the_traceback_on_request(tmp_path,
                                                                          monkeypatch):
    import pyir
    import helpers_callables as hc
    from pyir.executor import Scope
    from pyir.files import save_model
    x = pyir.static.data(name="x", shape=[2, 3], dtype="float32")
    out = pyir.static.default_main_program().current_block().create_var(
        name="y", dtype="float32", shape=[2, 3])
    pyir.static.py_func(func=hc.raises_value_error, x=x, out=out)
    save_model(str(tmp_path / "m.pb"), pyir.static.default_main_program(), ["x"], ["y"],
               Scope())
    np.save(tmp_path / "x.npy", np.ones((2, 3), "float32"))
    plain = cli("run", tmp_path / "m.pb", "--feed", tmp_path / "x.npy")
    assert_one_line_error(plain, "raised ValueError", "helpers_callables.py:", "in "
                          "raises_value_error")
    monkeypatch.setenv("PYIR_TRACEBACK", "1")
    shown = cli("run", tmp_path / "m.pb", "--feed", tmp_path / "x.npy")
    assert shown.exit_code == 1
    assert "Traceback (most recent call last)" in shown.stderr
    assert 'raise ValueError("bad input from the callable")' in shown.stderr
    assert shown.stderr.strip().splitlines()[-1].startswith("pyir run: error: ")


def test_run_fetching_a_forward_value_of_a_training_program_needs_no_label(trained, tmp_path):
    folder, probs = trained
    x = data(5, 7)["x"]
    np.save(tmp_path / "x.npy", x)
    before = (folder / "train.pdiparams").read_bytes()
    result = cli("run", folder / "train.pb", "--fetch", probs, "--feed", f"x={tmp_path}/x.npy",
                 "-o", tmp_path / "out.npz", "-q")
    assert result.exit_code == 0, result.output
    names = persistable_names(load_model(str(folder / "train.pb")).program)
    values = read_params(str(folder / "train.pdiparams"), names)
    np.testing.assert_allclose(np.load(tmp_path / "out.npz")[probs], forward_numpy(values, x),
                               rtol=1e-5, atol=1e-6)
    assert (folder / "train.pdiparams").read_bytes() == before
    loss = load_model(str(folder / "train.pb")).fetch_names[0]
    needs_label = cli("run", folder / "train.pb", "--fetch", loss, "--feed",
                      f"x={tmp_path}/x.npy")
    assert_one_line_error(needs_label, "input 'label' is not fed")
