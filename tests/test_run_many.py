"""Scoring many inputs in one process: `pyir run --feed a.npz --feed b.npz`, a directory of
feeds, and `pyir map --workers 0` (the loop the Ray workers run too): one output per input,
equal to `pyir run` on each; failures by name; re-runs skip complete outputs."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest
from conftest import assert_one_line_error, cli

import pyir
from pyir.files import many

SAMPLES = pathlib.Path(__file__).resolve().parent.parent / "samples"
OUT = "fc_1.tmp_2"


@pytest.fixture
def mlp(tmp_path):
    out = tmp_path / "mlp.pb"
    assert cli("build", SAMPLES / "mlp.py", "-o", out).exit_code == 0
    return out


@pytest.fixture
def feeds(tmp_path, rng):
    """data/in0.npz, in1.npz (x: [rows, 16]) and in2.npy, each a different batch size."""
    folder = tmp_path / "data"
    folder.mkdir()
    arrays = [rng.standard_normal((rows, 16)).astype(np.float32) for rows in (2, 3, 5)]
    np.savez(folder / "in0.npz", x=arrays[0])
    np.savez(folder / "in1.npz", x=arrays[1])
    np.save(folder / "in2.npy", arrays[2])
    return folder, arrays


def single(model, feed, tmp_path, name="ref"):
    out = tmp_path / f"{name}.npz"
    result = cli("run", model, "--feed", feed, "-o", out, "-q")
    assert result.exit_code == 0, result.output
    return np.load(out)[OUT]


def test_run_with_two_feed_files_prints_one_result_each(mlp, feeds, tmp_path):
    folder, arrays = feeds
    result = cli("run", mlp, "--feed", folder / "in0.npz", "--feed", folder / "in1.npz")
    assert result.exit_code == 0, result.output
    blocks = result.stdout.split("== ")[1:]
    assert [b.splitlines()[0] for b in blocks] == [str(folder / "in0.npz"),
                                                   str(folder / "in1.npz")]
    assert f"{OUT}: float32 [2, 4]" in blocks[0] and f"{OUT}: float32 [3, 4]" in blocks[1]
    want = single(mlp, folder / "in1.npz", tmp_path)
    assert np.array2string(want) in blocks[1]


def test_run_on_a_directory_writes_one_output_per_input(mlp, feeds, tmp_path):
    folder, arrays = feeds
    result = cli("run", mlp, "--feed", folder, "-o", tmp_path / "scores")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (tmp_path / "scores").iterdir()) == ["in0.npz", "in1.npz",
                                                                      "in2.npz"]
    for stem, feed in (("in0", "in0.npz"), ("in2", "in2.npy")):
        got = np.load(tmp_path / "scores" / f"{stem}.npz")
        assert got.files == [OUT]
        np.testing.assert_array_equal(got[OUT], single(mlp, folder / feed, tmp_path))
    assert "3 inputs" in result.stderr and "3 written" in result.stderr


def test_named_feeds_still_make_one_feed(tmp_path, rng):
    """NAME=FILE feeds (and .npz halves) of a two-input program are one run, as before."""
    main, startup = pyir.static.Program(), pyir.static.Program()
    with pyir.static.program_guard(main, startup):
        x = pyir.static.data(name="x", shape=[None, 2], dtype="float32")
        y = pyir.static.data(name="y", shape=[None, 2], dtype="float32")
        z = x * y
    pyir.files.save_model(str(tmp_path / "m.pb"), main, ["x", "y"], [z.name])
    a, b = (rng.standard_normal((3, 2)).astype(np.float32) for _ in range(2))
    np.savez(tmp_path / "hx.npz", x=a)
    np.savez(tmp_path / "hy.npz", y=b)
    assert many.many_feeds([tmp_path / "hx.npz", tmp_path / "hy.npz"]) is None
    result = cli("run", tmp_path / "m.pb", "--feed", tmp_path / "hx.npz", "--feed",
                 tmp_path / "hy.npz", "-o", tmp_path / "z.npz", "-q")
    assert result.exit_code == 0, result.output
    np.testing.assert_allclose(np.load(tmp_path / "z.npz")[z.name], a * b)


def test_map_in_process_equals_run_and_reruns_skip_complete_outputs(mlp, feeds, tmp_path):
    folder, _ = feeds
    out = tmp_path / "out"
    result = cli("map", mlp, folder, "-o", out)
    assert result.exit_code == 0, result.output
    first = {p.name: p.stat().st_mtime_ns for p in out.iterdir()}
    assert sorted(first) == ["in0.npz", "in1.npz", "in2.npz"]
    np.testing.assert_array_equal(np.load(out / "in1.npz")[OUT],
                                  single(mlp, folder / "in1.npz", tmp_path))
    # an interrupted run: one output missing, one truncated; the third is kept as it is
    (out / "in0.npz").unlink()
    (out / "in1.npz").write_bytes((out / "in1.npz").read_bytes()[:40])
    again = cli("map", mlp, folder, "-o", out)
    assert again.exit_code == 0, again.output
    assert "2 written, 1 already complete" in again.stderr
    assert (out / "in2.npz").stat().st_mtime_ns == first["in2.npz"]
    np.testing.assert_array_equal(np.load(out / "in1.npz")[OUT],
                                  single(mlp, folder / "in1.npz", tmp_path))
    assert sorted(p.name for p in out.iterdir()) == ["in0.npz", "in1.npz", "in2.npz"]


def test_failed_inputs_are_named_and_counted_in_the_exit_status(mlp, feeds, tmp_path):
    folder, _ = feeds
    np.savez(folder / "bad_shape.npz", x=np.zeros((2, 5), np.float32))
    np.savez(folder / "bad_name.npz", q=np.zeros((2, 16), np.float32))
    result = cli("map", mlp, folder, "-o", tmp_path / "out")
    assert result.exit_code == 2, result.output
    errors = [line for line in result.stderr.splitlines() if "error" in line]
    assert len(errors) == 2
    assert errors[0].startswith(f"pyir map: error: {folder / 'bad_name.npz'}: ")
    assert "no input 'q'" in errors[0]
    assert "bad_shape.npz" in errors[1] and "fed shape [2, 5]" in errors[1]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["in0.npz", "in1.npz",
                                                                    "in2.npz"]
    assert "5 inputs" in result.stderr and "3 written, 2 failed" in result.stderr
    one = cli("run", mlp, "--feed", folder / "bad_name.npz", "--feed", folder / "in0.npz")
    assert one.exit_code == 1 and "no input 'q'" in one.stderr


def test_many_inputs_refuse_a_single_output_and_training(mlp, feeds, tmp_path):
    folder, _ = feeds
    assert_one_line_error(cli("run", mlp, "--feed", folder, "-o", tmp_path / "one.npz"),
                          "3 inputs give one output each", "directory")
    assert_one_line_error(cli("run", mlp, "--feed", folder, "--steps", "2"),
                          "--steps trains on one feed")
    assert not (tmp_path / "one.npz").exists()


def test_inputs_are_checked_before_anything_runs(mlp, feeds, tmp_path):
    folder, _ = feeds
    other = tmp_path / "other"
    other.mkdir()
    np.save(other / "in0.npy", np.zeros((1, 16), np.float32))
    out = tmp_path / "out"
    assert_one_line_error(cli("map", mlp, folder, other / "in0.npy", "-o", out),
                          "would both write in0.npz")
    assert_one_line_error(cli("map", mlp, tmp_path / "nope.npz", "-o", out),
                          "nope.npz: no such file")
    assert_one_line_error(cli("map", mlp, str(folder / "*.txt"), "-o", out),
                          "no .npy or .npz file matches")
    assert_one_line_error(cli("map", mlp, other, "-o", out, "--fetch", "nope"),
                          "cannot fetch 'nope'")
    assert not out.exists()


def test_expand_inputs_dedups_and_sorts(feeds):
    folder, _ = feeds
    got = many.expand_inputs([folder / "in1.npz", str(folder / "in*.np?"), folder])
    assert got == [str(folder / "in1.npz"), str(folder / "in0.npz"), str(folder / "in2.npy")]


def test_python_api_map_files(mlp, feeds, tmp_path):
    folder, arrays = feeds
    done = []
    result = pyir.distributed.map_files(str(mlp), [folder], str(tmp_path / "o"),
                                        on_done=lambda path, error: done.append(error))
    assert len(result.written) == 3 and not result.failed and done == [None] * 3
    assert result.outputs[str(folder / "in2.npy")] == str(tmp_path / "o" / "in2.npz")
    again = pyir.distributed.map_files(str(mlp), [folder], str(tmp_path / "o"))
    assert again.skipped == result.written and not again.written


def test_map_of_a_training_program_keeps_no_update_between_inputs(tmp_path):
    """Each input starts from the file's parameters, as `pyir run` on it alone would; with
    --fetch of a forward value, the label is not needed (only the forward ops run)."""
    from test_distributed_local import data, save_regression

    model = save_regression(tmp_path / "train.pb", "sgd")
    (tmp_path / "d").mkdir()
    for name in ("a", "b"):
        np.savez(tmp_path / "d" / f"{name}.npz", **data(rows=4))     # the same data twice
    result = cli("map", model, tmp_path / "d", "-o", tmp_path / "out")
    assert result.exit_code == 0, result.output
    a, b = (np.load(tmp_path / "out" / f"{n}.npz")["mean_0.tmp_0"] for n in ("a", "b"))
    assert a == b == single_value(model, tmp_path / "d" / "a.npz", "mean_0.tmp_0", tmp_path)
    np.savez(tmp_path / "x_only.npz", x=data(rows=4)["x"])
    np.savez(tmp_path / "x_too.npz", x=data(rows=3)["x"])
    fwd = cli("map", model, tmp_path / "x_only.npz", tmp_path / "x_too.npz",
              "-o", tmp_path / "fwd", "--fetch", "fc_0.tmp_1")
    assert fwd.exit_code == 0, fwd.output
    assert np.load(tmp_path / "fwd" / "x_too.npz")["fc_0.tmp_1"].shape == (3, 4)


def single_value(model, feed, name, tmp_path):
    out = tmp_path / "single.npz"
    result = cli("run", model, "--feed", feed, "-o", out, "-q")
    assert result.exit_code == 0, result.output
    return np.load(out)[name]
