"""pyir.distributed on a real local Ray cluster (2 workers, one module-scoped cluster): `map`
equals `pyir run` per file, py_func callables resolve on workers that never imported their
module (and are refused there without --path), a worker killed mid-run loses and duplicates
no output, and 2-worker training equals one process (SGD, Momentum, Adam, py_func).

Runs when Ray is installed (the test extra installs it: `pip install -e '.[test]'`)."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from conftest import cli

ray = pytest.importorskip("ray")

import pyir  # noqa: E402
import pyir.distributed  # noqa: E402
from pyir.serialize import program_to_desc  # noqa: E402
from test_distributed_local import assert_same_params, data, save_regression  # noqa: E402

SAMPLES = pathlib.Path(__file__).resolve().parent.parent / "samples"
PYIR = pathlib.Path(sys.executable).parent / "pyir"


@pytest.fixture(scope="module", autouse=True)
def cluster():
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR")
    yield
    ray.shutdown()


def funcs_module(folder: pathlib.Path, name: str, crash_marker: str = "") -> None:
    """A fresh callables module (this test process never imports it): 2*tanh and its
    gradient; with `crash_marker`, the first call in any process exits that process."""
    (folder / f"{name}.py").write_text(textwrap.dedent(f"""
        import os
        import numpy as np
        import pyir

        MARKER = {crash_marker!r}

        @pyir.register
        def twotanh(x):
            if MARKER and not os.path.exists(MARKER):
                open(MARKER, "w").close()
                os._exit(3)                      # the worker dies mid-call, once
            return (2 * np.tanh(x)).astype(np.float32)

        @pyir.register
        def twotanh_grad(y, dy):
            return np.asarray(dy) * (2 - np.square(np.asarray(y)) / 2)
    """))


def build_py_func_model(tmp_path: pathlib.Path, module: str, train: bool) -> pathlib.Path:
    """x -> fc -> py_func(2*tanh) [-> fc -> mean squared error, SGD], built by `pyir build`
    in a subprocess so this process never imports `module`."""
    model = tmp_path / f"{module}_model.py"
    model.write_text(textwrap.dedent(f"""
        import pyir as paddle
        from {module} import twotanh, twotanh_grad
        paddle.seed(1)
        x = paddle.static.data(name="x", shape=[None, 3], dtype="float32")
        h = paddle.static.nn.fc(x, size=4)
        y = paddle.static.default_main_program().current_block().create_var(
            name="y", dtype="float32", shape=[-1, 4])
        paddle.static.py_func(func=twotanh, x=h, out=y, backward_func=twotanh_grad,
                              skip_vars_in_backward_input=h)
        if {train}:
            t = paddle.static.data(name="t", shape=[None, 1], dtype="float32")
            loss = paddle.mean(paddle.square(paddle.static.nn.fc(y, size=1) - t))
            paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)
    """))
    out = tmp_path / f"{module}.pb"
    done = subprocess.run([str(PYIR), "build", str(model), "-o", str(out)],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return out


def inputs(folder: pathlib.Path, count: int, seed: int = 0) -> list[np.ndarray]:
    folder.mkdir()
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal((2 + i % 3, 3)).astype(np.float32) for i in range(count)]
    for i, array in enumerate(arrays):
        np.savez(folder / f"in{i}.npz", x=array)
    return arrays


def test_map_on_two_workers_equals_run_per_file(tmp_path, rng):
    mlp = tmp_path / "mlp.pb"
    assert cli("build", SAMPLES / "mlp.py", "-o", mlp).exit_code == 0
    (tmp_path / "d").mkdir()
    for i in range(5):
        np.save(tmp_path / "d" / f"b{i}.npy", rng.standard_normal((3, 16)).astype(np.float32))
    result = cli("map", mlp, tmp_path / "d", "-o", tmp_path / "out", "--workers", "2")
    assert result.exit_code == 0, result.output
    assert "5 inputs" in result.stderr and "5 written" in result.stderr
    for i in range(5):
        ref = tmp_path / f"ref{i}.npz"
        assert cli("run", mlp, "--feed", tmp_path / "d" / f"b{i}.npy", "-o", ref,
                   "-q").exit_code == 0
        got, want = np.load(tmp_path / "out" / f"b{i}.npz"), np.load(ref)
        assert got.files == want.files == ["fc_1.tmp_2"]
        np.testing.assert_array_equal(got["fc_1.tmp_2"], want["fc_1.tmp_2"])


def test_py_func_resolves_on_workers_only_through_path(tmp_path):
    funcs = tmp_path / "funcs"
    funcs.mkdir()
    funcs_module(funcs, "fresh_funcs_a")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "fresh_funcs_a.py").write_text((funcs / "fresh_funcs_a.py")
                                                         .read_text())
    model = build_py_func_model(tmp_path / "build", "fresh_funcs_a", train=False)
    arrays = inputs(tmp_path / "d", 3)
    refused = cli("map", model, tmp_path / "d", "-o", tmp_path / "out", "--workers", "2",
                  "--fetch", "y")
    assert refused.exit_code == 1
    assert "on a worker:" in refused.stderr and "'fresh_funcs_a:twotanh'" in refused.stderr
    assert "--path" in refused.stderr and not (tmp_path / "out").exists()
    result = pyir.distributed.map_files(str(model), [str(tmp_path / "d")],
                                        str(tmp_path / "out"), workers=2, fetches=["y"],
                                        paths=[str(funcs)])
    assert len(result.written) == 3 and not result.failed
    scope = pyir.executor.Scope()
    pyir.files.load_model(str(model), scope=scope)      # loads params; runs nothing
    w, b = scope["fc_0.w_0"], scope["fc_0.b_0"]
    for i, x in enumerate(arrays):
        np.testing.assert_allclose(np.load(tmp_path / "out" / f"in{i}.npz")["y"],
                                   2 * np.tanh(x @ w + b), rtol=1e-5, atol=1e-6)
    assert "fresh_funcs_a" not in sys.modules               # only the workers imported it
    program = pyir.Program.parse_from_string(model.read_bytes())
    (op,) = [op for op in program.global_block().ops if op.type == "py_func"]
    op.attrs["forward_callable"] = "os:system"                 # a hostile file
    evil = tmp_path / "build" / "evil.pb"
    evil.write_bytes(program_to_desc(program).SerializeToString())
    shutil.copy(model.with_suffix(".pdiparams"), evil.with_suffix(".pdiparams"))
    refused = cli("map", evil, tmp_path / "d", "-o", tmp_path / "evil_out", "--workers", "2",
                  "--fetch", "y", "--path", funcs)
    assert refused.exit_code == 1 and "on a worker:" in refused.stderr
    assert "'os:system'" in refused.stderr and "refused" in refused.stderr
    assert not (tmp_path / "evil_out").exists()


def test_a_worker_killed_mid_run_loses_and_duplicates_nothing(tmp_path):
    funcs = tmp_path / "funcs"
    funcs.mkdir()
    marker = tmp_path / "crashed"
    funcs_module(funcs, "fresh_funcs_b", crash_marker=str(marker))
    (tmp_path / "build").mkdir()
    funcs_module(tmp_path / "build", "fresh_funcs_b")       # building must not crash
    model = build_py_func_model(tmp_path / "build", "fresh_funcs_b", train=False)
    inputs(tmp_path / "d", 6)
    result = cli("map", model, tmp_path / "d", "-o", tmp_path / "out", "--workers", "2",
                 "--fetch", "y", "--path", funcs)
    assert result.exit_code == 0, result.output
    assert marker.exists()                                   # a worker did die
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [f"in{i}.npz"
                                                                    for i in range(6)]
    reference = pyir.distributed.map_files(str(model), [str(tmp_path / "d")],
                                           str(tmp_path / "ref"), fetches=["y"],
                                           paths=[str(tmp_path / "build")])
    assert len(reference.written) == 6
    for i in range(6):
        np.testing.assert_array_equal(np.load(tmp_path / "out" / f"in{i}.npz")["y"],
                                      np.load(tmp_path / "ref" / f"in{i}.npz")["y"])


@pytest.mark.parametrize("optimizer", ["sgd", "momentum", "adam"])
def test_two_worker_training_equals_one_process(tmp_path, optimizer):
    model = save_regression(tmp_path / "m.pb", optimizer)
    one = pyir.files.run_model(model, data(), steps=4, batch_size=7)
    two = pyir.distributed.train(model, data(), 4, workers=2, batch_size=7)
    assert two.losses == pytest.approx(one.losses, rel=1e-5)
    assert_same_params(one, two)


def test_cli_trains_a_py_func_program_on_two_workers(tmp_path):
    funcs = tmp_path / "funcs"
    funcs.mkdir()
    funcs_module(funcs, "fresh_funcs_c")
    model = build_py_func_model(funcs, "fresh_funcs_c", train=True)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((8, 3)).astype(np.float32)
    np.savez(tmp_path / "d.npz", x=x, t=x[:, :1] - x[:, 1:2])
    one = pyir.files.run_model(str(model), ["%s" % (tmp_path / "d.npz")], steps=3,
                               batch_size=5, paths=[str(funcs)])
    result = cli("run", model, "--feed", tmp_path / "d.npz", "--steps", "3", "--batch-size",
                 "5", "--workers", "2", "--path", funcs, "--save-params", "-q")
    assert result.exit_code == 0, result.output
    assert "3 steps: mean_0.tmp_0" in result.stderr and "saved" in result.stderr
    scope = pyir.executor.Scope()
    pyir.files.load_model(str(model), scope=scope)
    for name in ("fc_0.w_0", "fc_0.b_0", "fc_1.w_0", "fc_1.b_0"):
        np.testing.assert_allclose(scope[name], one.scope[name], rtol=1e-5, atol=1e-6,
                                   err_msg=name)


def test_training_survives_a_worker_that_dies_mid_step(tmp_path):
    funcs = tmp_path / "funcs"
    funcs.mkdir()
    marker = tmp_path / "crashed"
    funcs_module(funcs, "fresh_funcs_d", crash_marker=str(marker))
    (tmp_path / "build").mkdir()
    funcs_module(tmp_path / "build", "fresh_funcs_d")
    model = build_py_func_model(tmp_path / "build", "fresh_funcs_d", train=True)
    rng = np.random.default_rng(4)
    x = rng.standard_normal((6, 3)).astype(np.float32)
    feed = {"x": x, "t": x[:, :1] * 2}
    two = pyir.distributed.train(str(model), feed, 3, workers=2, paths=[str(funcs)])
    assert marker.exists()                                   # a worker did die
    one = pyir.files.run_model(str(model), feed, steps=3, paths=[str(tmp_path / "build")])
    assert two.losses == pytest.approx(one.losses, rel=1e-5)
    assert_same_params(one, two)


def test_run_with_many_feeds_and_workers_writes_like_map(tmp_path):
    mlp = tmp_path / "mlp.pb"
    assert cli("build", SAMPLES / "mlp.py", "-o", mlp).exit_code == 0
    rng = np.random.default_rng(5)
    for name in ("a", "b", "c"):
        np.savez(tmp_path / f"{name}.npz", x=rng.standard_normal((2, 16)).astype(np.float32))
    result = cli("run", mlp, "--feed", tmp_path / "a.npz", "--feed", tmp_path / "b.npz",
                 "--feed", tmp_path / "c.npz", "--workers", "2", "-o", tmp_path / "out")
    assert result.exit_code == 0, result.output
    for name in ("a", "b", "c"):
        want = pyir.files.run_model(str(mlp), [str(tmp_path / f"{name}.npz")]).outputs
        np.testing.assert_array_equal(np.load(tmp_path / "out" / f"{name}.npz")["fc_1.tmp_2"],
                                      want["fc_1.tmp_2"])
