"""The `sgd` op, `pyir.optimizer.SGD(...).minimize`, and training loops in process and from
saved files in a fresh process (Python API and `pyir run --steps`)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import pyir
from pyir.executor import Executor, Scope
from pyir.files import load_model
from pyir.static import Program, program_guard
from pyir.files import save_training_program
from pyir.training import batches, find_loss, run_steps

from conftest import ROOT

SAMPLES = ROOT / "samples"
sys.path.insert(0, str(SAMPLES))

import train_seed003  # noqa: E402


def test_sgd_updates_the_parameter_in_place():
    main = Program()
    with program_guard(main, Program()):
        p = main.global_block().create_parameter("p", "float32", [2, 3])
        g = main.global_block().create_var("g", "float32", [2, 3])
        lr = main.global_block().create_var("lr", "float32", [], persistable=True)
        pyir.builder.emit("sgd", {"Param": p, "Grad": g, "LearningRate": lr},
                          outputs={"ParamOut": p})
    scope = Scope()
    start = np.arange(6, dtype="float32").reshape(2, 3)
    scope["p"], scope["lr"] = start, np.array(0.5, "float32")
    grad = np.ones((2, 3), "float32")
    Executor().run(main, feed={"g": grad}, scope=scope)
    np.testing.assert_array_equal(scope["p"], start - 0.5)
    np.testing.assert_array_equal(start, np.arange(6, dtype="float32").reshape(2, 3))


def _classifier(hidden=16):
    main, startup = Program(), Program()
    with program_guard(main, startup):
        x = pyir.static.data("x", [None, 4], "float32")
        y = pyir.static.data("y", [None, 1], "int64")
        h = pyir.static.nn.fc(x, hidden, activation="tanh")
        logits = pyir.static.nn.fc(h, 3)
        loss = pyir.nn.loss.CrossEntropyLoss()(logits, y)
    return main, startup, loss


def test_minimize_appends_backward_learning_rate_and_sgd_ops_like_paddle():
    main, startup, loss = _classifier()
    with program_guard(main, startup):
        ops, params_grads = pyir.optimizer.SGD(learning_rate=0.01).minimize(loss)
    block = main.global_block()
    lr = block.var("learning_rate_0")
    assert lr.persistable and lr.stop_gradient and lr.shape == () and lr.dtype == np.float32
    init = startup.global_block().ops[-1]
    assert init.type == "fill_constant" and init.outputs == {"Out": ["learning_rate_0"]}
    assert init.attrs["str_value"] == "0.01" and init.attrs["shape"] == []
    # Paddle: one sgd per parameter, sorted by name, op_role 2, ParamOut is Param
    names = sorted(p.name for p, _ in params_grads)
    assert [op.inputs["Param"] for op in ops] == [[n] for n in names]
    for op in ops:
        assert op.type == "sgd" and op.attrs["op_role"] == 2
        assert op.outputs["ParamOut"] == op.inputs["Param"]
        assert op.inputs["Grad"] == [op.inputs["Param"][0] + "@GRAD"]
        assert op.inputs["LearningRate"] == ["learning_rate_0"]
        assert op.attrs["op_role_var"] == op.inputs["Param"] + op.inputs["Grad"]
    assert [op.attrs["op_namescope"] for op in ops[:2]] == ["/optimizer/", "/optimizer_1/"]
    assert block.ops[-len(ops):] == ops


def test_one_step_is_param_minus_lr_times_grad():
    main, startup, loss = _classifier()
    with program_guard(main, startup):
        _, params_grads = pyir.optimizer.SGD(learning_rate=0.1).minimize(loss)
    scope = Scope()
    Executor().run(startup, scope=scope)
    data = train_seed003.make_data(n=32)
    data["x"] = data["x"]
    data["y"] = data["y"] % 3
    before = {p.name: scope[p.name].copy() for p, _ in params_grads}
    grads = Executor().run(main, feed=data, fetch_list=[g for _, g in params_grads],
                           scope=scope)
    for (p, _), g in zip(params_grads, grads):
        np.testing.assert_allclose(scope[p.name], before[p.name] - 0.1 * g, rtol=1e-6,
                                   atol=1e-7)


def test_plain_tanh_network_trains():
    pyir.seed(1)
    main, startup, loss = _classifier()
    with program_guard(main, startup):
        pyir.optimizer.SGD(learning_rate=0.5).minimize(loss)
    scope = Scope()
    Executor().run(startup, scope=scope)
    data = train_seed003.make_data(n=96)
    data["y"] = data["y"] % 3
    result = run_steps(main, data, 60, scope)
    assert result.loss_name == loss.name == find_loss(main)
    assert len(result.losses) == 60
    assert result.losses[-1] < 0.3 * result.losses[0]


def test_seed003_network_with_py_func_backward_trains():
    losses, *_ = train_seed003.train(steps=40)
    # log(10) at start; the seed's double softmax puts the floor near 1.46
    assert losses[0] > 2.2
    assert losses[-1] < 1.6


def test_batches_cycle_through_the_rows():
    feed = {"x": np.arange(10)}
    got = [b["x"].tolist() for b in batches(feed, 4, 4)]
    assert got == [[0, 1, 2, 3], [4, 5, 6, 7], [0, 1, 2, 3], [4, 5, 6, 7]]
    with pytest.raises(pyir.PyirError, match="larger than"):
        list(batches(feed, 11, 1))


def _read_params(model_path) -> dict:
    scope = Scope()
    load_model(str(model_path), scope=scope)
    return {k: np.array(v) for k, v in scope.vars.items()}


def _saved(tmp_path):
    out = tmp_path / "model"
    train_seed003.save(str(out))
    return out


def _fresh_python(code: str) -> str:
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{SAMPLES}"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_saved_training_program_trains_in_a_fresh_process(tmp_path):
    out = _saved(tmp_path)
    code = (
        "import numpy as np, pyir\n"
        "from pyir.files import load_model\nfrom pyir.executor import Scope\n"
        "from pyir.training import run_steps\n"
        "scope = Scope()\n"
        f"m = load_model({str(out / 'train.pb')!r}, scope=scope)\n"
        f"data = dict(np.load({str(out / 'data.npz')!r}))\n"
        "r = run_steps(m.program, data, 15, scope)\n"
        "print(' '.join(repr(v) for v in r.losses))\n")
    losses = [float(v) for v in _fresh_python(code).split()]
    assert len(losses) == 15 and losses[-1] < 0.8 * losses[0]
    # the same steps in this process from the same files give the same losses
    scope = Scope()
    model = load_model(str(out / "train.pb"), scope=scope)
    here = run_steps(model.program, dict(np.load(out / "data.npz")), 15, scope)
    np.testing.assert_allclose(here.losses, losses, rtol=1e-6)


def test_cli_run_steps_trains_the_saved_program_and_saves_params(tmp_path):
    out = _saved(tmp_path)
    before = _read_params(out / "train.pb")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "pyir.cli.main", "run", str(out / "train.pb"),
                           "--path", str(SAMPLES), "--feed", str(out / "data.npz"),
                           "--steps", "10", "--save-params"],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr
    after = _read_params(out / "train.pb")
    assert set(after) == set(before)
    # parameters moved by exactly the in-process training of the same 10 steps
    scope = Scope()
    model = load_model(str(out / "train.pb"), params=None, scope=Scope())
    for name, value in before.items():
        scope[name] = value
    run_steps(model.program, dict(np.load(out / "data.npz")), 10, scope)
    for name in before:
        np.testing.assert_allclose(after[name], scope[name], rtol=1e-5, atol=1e-7)
    assert not np.allclose(after["fc_0.w_0"], before["fc_0.w_0"])


def test_save_program_keeps_the_program_trainable(tmp_path):
    main, startup, loss = _classifier()
    with program_guard(main, startup):
        pyir.optimizer.SGD(learning_rate=0.1).minimize(loss)
    scope = Scope()
    Executor().run(startup, scope=scope)
    written = save_training_program(str(tmp_path / "t.pb"), main, ["x", "y"], [loss.name], scope)
    types = [op.type for op in written.global_block().ops]
    assert types[:2] == ["feed", "feed"] and types[-1] == "fetch" and "sgd" in types
    assert os.path.exists(tmp_path / "t.pdiparams")
    assert _read_params(tmp_path / "t.pb")["learning_rate_0"] == np.float32(0.1)
