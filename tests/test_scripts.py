"""Ordinary Paddle scripts run unchanged on pyir (tests/scripts/, each saying
`import pyir as paddle`) and give the numbers Paddle 3.3.1 gave for the same source
(tests/golden_scripts/, written by tools/gen_golden_scripts.py). Each script runs in its own
process and directory, as a user would run it; scripts that save files (jit.save, paddle.save,
save_inference_model) are then also read back by `pyir run`."""

import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

from conftest import cli

ROOT = pathlib.Path(__file__).resolve().parent
SCRIPTS = ROOT / "scripts"
GOLDEN = ROOT / "golden_scripts"
NAMES = sorted(p.stem for p in SCRIPTS.glob("s[0-9]*.py"))
# float32 training over a few steps: rounding differs in the last bits, and Adam divides by
# small square roots, so a loose relative tolerance on values of order one
RTOL, ATOL = 1e-4, 1e-5


def run_script(name: str, workdir: pathlib.Path) -> dict:
    out = workdir / "results.npz"
    done = subprocess.run([sys.executable, str(SCRIPTS / "_harness.py"),
                           str(SCRIPTS / f"{name}.py"), str(out)],
                          cwd=workdir, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-4000:]
    with np.load(out) as got:
        return {k: got[k] for k in got.files}


def mismatches(got: dict, want: dict) -> list[str]:
    problems = []
    if set(got) != set(want):
        problems.append(f"keys differ: pyir {sorted(set(got) - set(want))}, "
                        f"Paddle {sorted(set(want) - set(got))}")
    for key in sorted(set(got) & set(want)):
        g, w = got[key], want[key]
        if g.shape != w.shape:
            problems.append(f"{key}: shape {g.shape} != Paddle's {w.shape}")
        elif w.dtype.kind in "biuUS":
            if not np.array_equal(g, w):
                problems.append(f"{key}: {g.tolist()} != Paddle's {w.tolist()}")
        elif not np.allclose(g, w, rtol=RTOL, atol=ATOL):
            err = np.max(np.abs(g.astype("float64") - w) / (np.abs(w) + ATOL))
            problems.append(f"{key}: max rel err {err:.3g}\n  pyir   {np.ravel(g)[:6]}"
                            f"\n  Paddle {np.ravel(w)[:6]}")
    return problems


@pytest.mark.parametrize("name", NAMES)
def test_script_gives_paddles_numbers(name, tmp_path):
    got = run_script(name, tmp_path)
    with np.load(GOLDEN / f"{name}.npz") as golden:
        want = {k: golden[k] for k in golden.files}
    problems = mismatches(got, want)
    assert not problems, "\n".join(problems)


# files a script saves that `pyir run` reads back: script -> (model, feed, golden key, rows)
SAVED_MODELS = {
    "s06_jit_save_load": ("export/linear_net.pdmodel", "export/x.npy", "expected", 3),
    "s34_jit_save_sequence_model": ("export/conv.pdmodel", "export/x.npy", "conv_expected",
                                    3),
}


@pytest.mark.parametrize("name", sorted(SAVED_MODELS))
def test_saved_model_runs_with_pyir_run(name, tmp_path):
    """`paddle.jit.save` in a script, then `pyir run` of the file: Paddle's predictions."""
    model, feed, key, rows = SAVED_MODELS[name]
    run_script(name, tmp_path)
    result = cli("run", tmp_path / model, "--feed", tmp_path / feed, "-o", tmp_path / "o.npz")
    assert result.exit_code == 0, result.output
    with np.load(tmp_path / "o.npz") as got, np.load(GOLDEN / f"{name}.npz") as golden:
        (out,) = [got[k] for k in got.files]
        np.testing.assert_allclose(out, golden[key][:rows], rtol=RTOL, atol=ATOL)


def test_every_script_has_a_golden():
    assert len(NAMES) >= 14
    assert sorted(p.stem for p in GOLDEN.glob("*.npz")) == NAMES


def test_scripts_import_pyir_only():
    """The scripts are Paddle scripts with the import line swapped, nothing else."""
    for name in NAMES:
        source = (SCRIPTS / f"{name}.py").read_text()
        assert "import pyir as paddle" in source, name
        assert not re.search(r"^\s*(import|from) paddle\b", source, re.M), name
