"""Every sample runs as a user runs it, `python samples/NAME.py` in a fresh process (in-process
tests run under the suite's static-mode fixture, which once hid a sample broken in a plain
process); a helper module run directly says what it is."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

SAMPLES = pathlib.Path(__file__).resolve().parent.parent / "samples"
HELPERS = {"seed_pyfuncs.py"}
SCRIPTS = sorted(p.name for p in SAMPLES.glob("*.py") if p.name not in HELPERS)


def run(name: str, tmp_path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SAMPLES / name)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=180)


@pytest.mark.parametrize("name", SCRIPTS)
def test_sample_runs_in_a_fresh_process(name, tmp_path):
    result = run(name, tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    assert result.stdout.strip(), "a sample shows what it computed"
    assert list(tmp_path.iterdir()) == []  # run in place, it writes nothing


@pytest.mark.parametrize("name", sorted(HELPERS))
def test_helper_module_run_directly_says_what_it_is(name, tmp_path):
    result = run(name, tmp_path)
    assert result.returncode == 0
    assert "is a helper module, not a script" in result.stdout
    assert "Traceback" not in result.stderr
