"""`pyir.files`: the library behind each CLI verb (callable from Python, same results as the
verbs) and the file helpers (npz outputs, training programs with .npz params, atomic writes)."""

from __future__ import annotations

import os
import pathlib
import zipfile

import numpy as np
import pytest
from click.testing import CliRunner

import pyir
from pyir import files
from pyir.cli.main import main
from pyir.errors import BuildError, FeedError, PyirError

SAMPLES = pathlib.Path(__file__).resolve().parent.parent / "samples"
MLP = str(SAMPLES / "mlp.py")


def _mlp_numpy(scope_or_params, x):
    p = scope_or_params
    hidden = np.maximum(x @ p["fc_0.w_0"] + p["fc_0.b_0"], 0)
    logits = hidden @ p["fc_1.w_0"] + p["fc_1.b_0"]
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.fixture
def built(tmp_path):
    return files.build_model(MLP, str(tmp_path / "mlp.pb"))


def test_build_model_writes_the_program_and_its_parameters(built, tmp_path):
    assert built.path == str(tmp_path / "mlp.pb") and built.outputs == ["fc_1.tmp_2"]
    assert [v.name for v in built.inputs] == ["x"]
    assert files.state_updates(built.saved.program) == []     # not a training program
    assert built.saved.params_path == str(tmp_path / "mlp.pdiparams")
    assert sorted(built.parameters) == ["fc_0.b_0", "fc_0.w_0", "fc_1.b_0", "fc_1.w_0"]
    assert sum(v.size for v in built.parameters.values()) == 16 * 32 + 32 + 32 * 4 + 4
    stored = files.read_params(built.saved.params_path, sorted(built.parameters))
    for name, value in built.parameters.items():
        np.testing.assert_array_equal(stored[name], value)


def test_build_model_refusals(tmp_path):
    with pytest.raises(BuildError, match="no such model file"):
        files.build_model(str(tmp_path / "nope.py"))
    with pytest.raises(BuildError, match="--fetch 'zz'"):
        files.build_model(MLP, str(tmp_path / "m.pb"), fetches=["zz"])
    assert not (tmp_path / "m.pb").exists()


def test_run_model_with_a_dict_feed_matches_numpy_and_the_cli(built, tmp_path):
    x = np.load(SAMPLES / "mlp_input.npy")
    result = files.run_model(built.path, {"x": x})
    want = _mlp_numpy(built.parameters, x)
    np.testing.assert_allclose(result.outputs["fc_1.tmp_2"], want, rtol=1e-5, atol=1e-7)
    by_spec = files.run_model(built.path, (str(SAMPLES / "mlp_input.npy"),))
    np.testing.assert_array_equal(by_spec.outputs["fc_1.tmp_2"], result.outputs["fc_1.tmp_2"])
    cli = CliRunner().invoke(main, ["run", built.path, "--feed", str(SAMPLES / "mlp_input.npy"),
                                    "-o", str(tmp_path / "y.npz")])
    assert cli.exit_code == 0, cli.output
    np.testing.assert_array_equal(np.load(tmp_path / "y.npz")["fc_1.tmp_2"],
                                  result.outputs["fc_1.tmp_2"])


def test_run_model_refusals(built, tmp_path):
    with pytest.raises(PyirError, match="no such model file"):
        files.run_model(str(tmp_path / "nope.pb"), {})
    with pytest.raises(PyirError, match="--batch-size needs --steps"):
        files.run_model(built.path, {}, batch_size=2)
    with pytest.raises(FeedError, match="input 'x' is not fed"):
        files.run_model(built.path, ())
    with pytest.raises(PyirError, match="expected ID=MODULE:NAME"):
        files.run_model(built.path, (), id_bindings=["zero=mod:f"])


def test_grad_model_and_check_model_gradients(tmp_path):
    model = tmp_path / "reg.py"
    model.write_text("import pyir as paddle\npaddle.seed(3)\n"
                     "x = paddle.static.data(name='x', shape=[4, 3], dtype='float32')\n"
                     "loss = paddle.mean(paddle.static.nn.fc(x, size=1))\n")
    reg = files.build_model(str(model), str(tmp_path / "reg.pb"))
    out = files.grad_model(reg.path, str(tmp_path / "reg_grad.pb"), wrt=["fc_0.w_0"])
    assert out.path == str(tmp_path / "reg_grad.pb")
    assert out.gradients == [("fc_0.w_0", "fc_0.w_0@GRAD")]
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    result = files.run_model(out.path, {"x": x})
    np.testing.assert_allclose(result.outputs["fc_0.w_0@GRAD"][:, 0], x.mean(axis=0), rtol=1e-6)
    checks = files.check_model_gradients(reg.path, {"x": x}, wrt=["fc_0.w_0", "fc_0.b_0"])
    assert [r.name for r in checks] == ["fc_0.w_0", "fc_0.b_0"] and all(r.ok for r in checks)
    with pytest.raises(PyirError, match="give its inputs with --feed"):
        files.check_model_gradients(reg.path, {})


def test_describe_model_is_what_inspect_prints(built):
    for fmt in ("text", "json", "dot"):
        cli = CliRunner().invoke(main, ["inspect", built.path, "--format", fmt])
        assert cli.exit_code == 0 and cli.stdout == files.describe_model(built.path, fmt)
    assert files.describe_model(built.path).startswith("program: 1 blocks, 8 ops")
    with pytest.raises(PyirError, match="--block 3"):
        files.describe_model(built.path, block=3)
    with pytest.raises(PyirError, match="fmt 'xml'"):
        files.describe_model(built.path, "xml")


def test_write_npz_keeps_the_given_order_and_names_like_file(tmp_path):
    path = tmp_path / "sub" / "o.npz"
    files.write_npz(str(path), {"z": np.ones(2), "file": np.zeros(1), "a": np.arange(3)})
    with zipfile.ZipFile(path) as archive:
        assert archive.namelist() == ["z.npy", "file.npy", "a.npy"]
    np.testing.assert_array_equal(np.load(path)["a"], np.arange(3))


def test_save_training_program_honours_an_npz_params_path(tmp_path):
    main_program, startup = pyir.static.Program(), pyir.static.Program()
    with pyir.static.program_guard(main_program, startup):
        x = pyir.static.data("x", [2, 3], "float32")
        loss = pyir.mean(pyir.static.nn.fc(x, size=1))
        pyir.optimizer.SGD(0.1).minimize(loss)
    scope = pyir.static.Scope()
    pyir.static.Executor().run(startup, scope=scope)
    files.save_training_program(str(tmp_path / "t.pb"), main_program, ["x"], [loss.name], scope,
                                params_path=str(tmp_path / "t.npz"))
    with np.load(tmp_path / "t.npz") as stored:
        assert sorted(stored.files) == sorted(files.persistable_names(
            files.load_program(str(tmp_path / "t.pb"))))
        np.testing.assert_array_equal(stored["fc_0.w_0"], scope["fc_0.w_0"])
    assert not (tmp_path / "t.pdiparams").exists()
    assert sorted(files.state_updates(main_program)) == ["fc_0.b_0", "fc_0.w_0"]


def test_write_files_leaves_nothing_when_a_rename_fails(tmp_path, monkeypatch):
    def no_rename(src, dst):
        raise OSError(28, "No space left on device", dst)

    monkeypatch.setattr(os, "replace", no_rename)
    with pytest.raises(OSError, match="No space"):
        files.write_files({str(tmp_path / "a.pb"): b"1", str(tmp_path / "a.pdiparams"): b"2"})
    monkeypatch.undo()
    assert os.listdir(tmp_path) == []


def test_an_npz_feed_with_a_stray_member_is_refused_before_decompressing(tmp_path):
    from pyir.errors import FeedError
    from pyir.files.run import read_feeds

    np.savez(tmp_path / "f.npz", x=np.ones(2, "float32"), huge=np.zeros(10, "float32"))
    with pytest.raises(FeedError, match="no input 'huge'"):
        read_feeds((str(tmp_path / "f.npz"),), ["x"], "m.pb")
    np.savez(tmp_path / "g.npz", x=np.ones(2, "float32"))
    with open(tmp_path / "g.npz", "r+b") as f:  # damage the member's bytes, keep the index
        f.seek(60)
        f.write(b"\x00" * 20)
    with pytest.raises(FeedError, match=r"g.npz: (member 'x' cannot be read|cannot read it)"):
        read_feeds((str(tmp_path / "g.npz"),), ["x"], "m.pb")
    (tmp_path / "t.npz").write_text("not a zip")
    with pytest.raises(FeedError, match="t.npz: cannot read it as .npz"):
        read_feeds((str(tmp_path / "t.npz"),), ["x"], "m.pb")


def test_steps_on_an_inference_program_and_a_wrong_output_suffix_are_refused(tmp_path):
    from conftest import assert_one_line_error, cli

    model = tmp_path / "mlp.pb"
    assert cli("build", str(pathlib.Path(__file__).parent.parent / "samples" / "mlp.py"), "-o",
               str(model)).exit_code == 0
    feed = str(pathlib.Path(__file__).parent.parent / "samples" / "mlp_input.npy")
    assert_one_line_error(cli("run", str(model), "--feed", feed, "--steps", "3"),
                          "no op of this one updates a parameter")
    result = cli("run", str(model), "--feed", feed, "-o", str(tmp_path / "out.txt"))
    assert result.exit_code != 0 and "name the file OUT.npz" in result.output
    assert not (tmp_path / "out.txt").exists()


def test_python_dash_m_pyir_is_the_command():
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-m", "pyir", "--help"], capture_output=True,
                            text=True)
    assert result.returncode == 0 and "inspect" in result.stdout and "grad" in result.stdout


def test_grad_needs_no_parameter_values(tmp_path):
    """Appending backward ops to a file whose params are elsewhere writes the program only;
    running it with --params gives the same gradients as with the params beside it."""
    from conftest import cli

    model_py = tmp_path / "lossm.py"
    model_py.write_text("import pyir as paddle\npaddle.enable_static()\n"
                        "x = paddle.static.data(name='x', shape=[None, 4], dtype='float32')\n"
                        "loss = paddle.mean(paddle.static.nn.fc(x, size=3))\n")
    assert cli("build", str(model_py), "-o", str(tmp_path / "l.pb")).exit_code == 0
    x = np.arange(8, dtype="float32").reshape(2, 4)
    with_params = files.grad_model(str(tmp_path / "l.pb"), str(tmp_path / "a.pb"))
    assert with_params.params_written
    want = files.run_model(str(tmp_path / "a.pb"), {"x": x}).outputs
    (tmp_path / "l.pdiparams").rename(tmp_path / "away.pdiparams")
    result = cli("grad", str(tmp_path / "l.pb"), "-o", str(tmp_path / "b.pb"))
    assert result.exit_code == 0 and "only the program was written" in result.stderr
    assert not (tmp_path / "b.pdiparams").exists()
    got = files.run_model(str(tmp_path / "b.pb"), {"x": x},
                          params=str(tmp_path / "away.pdiparams")).outputs
    assert set(got) == set(want)
    for name in want:
        np.testing.assert_array_equal(got[name], want[name])


def test_grad_refuses_a_program_that_already_holds_backward_or_optimizer_ops(tmp_path):
    from conftest import GOLDEN, assert_one_line_error, cli

    golden = GOLDEN / "mlp_grad" / "model_with_grad.pb"
    assert_one_line_error(cli("grad", str(golden), "-o", str(tmp_path / "g.pb")),
                          "already holds backward ops", "give pyir grad the forward program")
    assert not (tmp_path / "g.pb").exists()
    np.save(tmp_path / "x.npy", np.ones((1, 4), "float32"))
    assert_one_line_error(cli("grad", str(golden), "--check", "--feed",
                              f"x={tmp_path / 'x.npy'}"), "already holds backward ops")
