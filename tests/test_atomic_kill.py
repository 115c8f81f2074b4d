"""SIGKILL during writes: `pyir build`, `grad`, `export` and `run --save-params` killed at
random moments never leave a half-written file or a program beside params of another write,
and nothing is left behind once the next reader has looked (pyir/files/atomic.py).

Each case starts from a complete "old" pair (from model A), runs the command that writes the
"new" pair (from model B) into the same place and kills it after a random delay within the
command's measured duration (fixed seed). Then, as the next `pyir run` would, `recover` runs;
the pair on disk must be byte for byte the old pair or the new pair, and the directory must
hold nothing else. `PYIR_KILL_CASES=60 pytest tests/test_atomic_kill.py -s` runs more cases
and prints how many kills landed before, inside and after the commit.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from pyir.files.atomic import recover

CASES = int(os.environ.get("PYIR_KILL_CASES", "10"))
MODEL = """import pyir as paddle
paddle.enable_static()
paddle.seed({seed})
x = paddle.static.data(name="x", shape=[None, 8], dtype="float32")
h = paddle.static.nn.fc(x, size={hidden}, activation="relu")
loss = paddle.mean(paddle.static.nn.fc(h, size=1))
{train}
"""
TRAIN = "paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)"


def _pyir(*args, cwd):
    return [sys.executable, "-m", "pyir", *map(str, args)]


def _model(tmp, name, seed, hidden, train=""):
    path = tmp / f"{name}.py"
    path.write_text(MODEL.format(seed=seed, hidden=hidden, train=train))
    return path


def _pair(directory, stem):
    out = {}
    for ext in (".pb", ".pdiparams"):
        p = directory / (stem + ext)
        out[ext] = p.read_bytes() if p.exists() else None
    return out


def _snapshot(directory):
    return {p.name: p.read_bytes() for p in directory.iterdir()}


def _kill_cases(tmp_path, verb, prepare, command, stem, expect_files):
    """prepare(dir) writes the old files; command(dir) is the argv writing the new ones."""
    rng = random.Random(f"pyir-kill-{verb}")
    ref_old, ref_new = tmp_path / "old", tmp_path / "new"
    for d in (ref_old, ref_new):
        d.mkdir()
        prepare(d)
    old = _snapshot(ref_old)
    start = time.perf_counter()
    subprocess.run(command(ref_new), cwd=ref_new, check=True, capture_output=True)
    duration = time.perf_counter() - start
    new = _snapshot(ref_new)
    assert old != new and set(old) == set(new) == set(expect_files)
    outcome = {"old": 0, "new": 0, "left before recover": 0}
    for case in range(CASES):
        work = tmp_path / f"case{case}"
        shutil.copytree(ref_old, work)
        proc = subprocess.Popen(command(work), cwd=work, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.3, 1.05) * duration)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        if set(os.listdir(work)) != set(expect_files):
            outcome["left before recover"] += 1
        recover(str(work / expect_files[0]))
        seen = _snapshot(work)
        assert seen in (old, new), (f"case {case}: after a kill the files are neither the old "
                                    f"nor the new ones: {sorted(seen)}")
        outcome["old" if seen == old else "new"] += 1
        shutil.rmtree(work)
    print(f"\n{verb}: {CASES} kills -> {outcome}")
    return outcome


def test_killed_build_leaves_the_old_pair_or_the_new_one(tmp_path):
    def prepare(d):
        _model(d, "model", 1, 4)
        subprocess.run(_pyir("build", "model.py", "-o", "m.pb", cwd=d), cwd=d, check=True,
                       capture_output=True)
        _model(d, "model", 2, 6)  # the next build writes another pair

    _kill_cases(tmp_path, "build", prepare,
                lambda d: _pyir("build", "model.py", "-o", "m.pb", cwd=d), "m",
                ["m.pb", "m.pdiparams", "model.py"])


def test_killed_grad_leaves_the_old_pair_or_the_new_one(tmp_path):
    def prepare(d):
        _model(d, "a", 1, 4)
        _model(d, "b", 2, 6)
        for m in ("a", "b"):
            subprocess.run(_pyir("build", f"{m}.py", "-o", f"{m}.pb", cwd=d), cwd=d, check=True,
                           capture_output=True)
        subprocess.run(_pyir("grad", "a.pb", "-o", "g.pb", cwd=d), cwd=d, check=True,
                       capture_output=True)

    _kill_cases(tmp_path, "grad", prepare, lambda d: _pyir("grad", "b.pb", "-o", "g.pb", cwd=d),
                "g", ["a.py", "b.py", "a.pb", "a.pdiparams", "b.pb", "b.pdiparams", "g.pb",
                      "g.pdiparams"])


def test_killed_save_params_leaves_the_old_params_or_the_new_ones(tmp_path):
    def prepare(d):
        _model(d, "t", 3, 5, TRAIN)
        subprocess.run(_pyir("build", "t.py", "-o", "t.pb", cwd=d), cwd=d, check=True,
                       capture_output=True)
        np.save(d / "x.npy", np.linspace(-1, 1, 32, dtype="float32").reshape(4, 8))

    _kill_cases(tmp_path, "run --save-params", prepare,
                lambda d: _pyir("run", "t.pb", "--feed", "x.npy", "--steps", 3,
                                "--save-params", "-q", cwd=d), "t",
                ["t.py", "t.pb", "t.pdiparams", "x.npy"])


def test_killed_export_leaves_the_old_pair_or_the_new_one(tmp_path):
    def prepare(d):
        _model(d, "a", 1, 4, TRAIN)
        _model(d, "b", 2, 6, TRAIN)
        for m in ("a", "b"):
            subprocess.run(_pyir("build", f"{m}.py", "-o", f"{m}.pb", cwd=d), cwd=d, check=True,
                           capture_output=True)
        subprocess.run(_pyir("export", "a.pb", "-o", "e.pb", cwd=d), cwd=d, check=True,
                       capture_output=True)

    _kill_cases(tmp_path, "export", prepare, lambda d: _pyir("export", "b.pb", "-o", "e.pb",
                                                              cwd=d),
                "e", ["a.py", "b.py", "a.pb", "a.pdiparams", "b.pb", "b.pdiparams", "e.pb",
                      "e.pdiparams"])


@pytest.mark.parametrize("killed_after", ["linked", "committed"])
def test_recover_undoes_an_uncommitted_write_and_finishes_a_committed_one(tmp_path,
                                                                          killed_after):
    """The two states a kill inside the commit can leave, made by hand with a dead pid."""
    (tmp_path / "m.pb").write_bytes(b"old program")
    (tmp_path / "m.pdiparams").write_bytes(b"old params")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    token = "0123456789ab"
    (tmp_path / f".m.pb.pyir-{dead}-{token}-0").write_bytes(b"new program")
    if killed_after == "linked":
        (tmp_path / f".m.pdiparams.pyir-{dead}-{token}-1").write_bytes(b"new params")
    else:  # the params were renamed, the program not yet
        (tmp_path / "m.pdiparams").write_bytes(b"new params")
        (tmp_path / f".pyir-{dead}-{token}.commit").write_bytes(b"")
    recover(str(tmp_path / "m.pb"))
    expect = "old" if killed_after == "linked" else "new"
    assert _snapshot(tmp_path) == {"m.pb": f"{expect} program".encode(),
                                   "m.pdiparams": f"{expect} params".encode()}


def test_recover_leaves_a_live_writer_alone(tmp_path):
    (tmp_path / f".m.pb.pyir-{os.getpid()}-0123456789ab-0").write_bytes(b"in progress")
    recover(str(tmp_path / "m.pb"))
    assert os.listdir(tmp_path) == [f".m.pb.pyir-{os.getpid()}-0123456789ab-0"]
