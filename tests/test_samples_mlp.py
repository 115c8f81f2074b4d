"""The README is true: its commands on samples/mlp.py, in real subprocesses of the installed
`pyir` script, checked against the same model built and run in this process and against plain
numpy; and its Python examples, each run as written."""

from __future__ import annotations

import os
import pathlib
import runpy
import subprocess
import sys

import numpy as np
import pytest

import pyir
from pyir import framework

ROOT = pathlib.Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "mlp.py"
INPUT = ROOT / "samples" / "mlp_input.npy"
PYIR = pathlib.Path(sys.executable).parent / "pyir"


def pyir_cli(*args, cwd):
    result = subprocess.run([str(PYIR), *map(str, args)], cwd=cwd, capture_output=True,
                            text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    return result.stdout


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """`pyir build` then `pyir run` on the sample, as the README shows them."""
    out = tmp_path_factory.mktemp("mlp")
    build_log = pyir_cli("build", SAMPLE, "-o", out / "mlp.pb", cwd=out)
    run_log = pyir_cli("run", out / "mlp.pb", "--feed", INPUT, "-o", out / "probs.npz", cwd=out)
    return out, build_log, run_log


def in_process():
    """Build the sample here (its __main__ block skipped) and return (main, startup, probs)."""
    framework.reset_default_programs()
    namespace = runpy.run_path(str(SAMPLE), run_name="mlp_sample")
    return (framework.default_main_program(), framework.default_startup_program(),
            namespace["probs"])


def test_build_writes_the_model_and_its_parameters(built):
    out, log, _ = built
    assert {"mlp.pb", "mlp.pdiparams"} <= set(os.listdir(out))
    assert "x  float32 [-1, 16]" in log
    assert "parameters: 4 tensors, 676 values" in log      # 16*32 + 32 + 32*4 + 4


def test_run_matches_an_in_process_run_and_numpy(built):
    out, _, log = built
    got = np.load(out / "probs.npz")
    (name,) = got.files
    probs = got[name]
    x = np.load(INPUT)

    main, startup, probs_var = in_process()
    assert name == probs_var.name
    scope = pyir.static.Scope()
    exe = pyir.static.Executor(pyir.CPUPlace())
    exe.run(startup, scope=scope)                # paddle.seed(2024): the same initial values
    file_scope = pyir.static.Scope()
    pyir.files.load_model(str(out / "mlp.pb"), scope=file_scope)
    for param in main.all_parameters():
        np.testing.assert_array_equal(scope[param.name], file_scope[param.name])
    (want,) = exe.run(main, feed={"x": x}, fetch_list=[probs_var], scope=scope)
    np.testing.assert_allclose(probs, want, rtol=1e-6)

    w0, b0, w1, b1 = (scope[n] for n in ("fc_0.w_0", "fc_0.b_0", "fc_1.w_0", "fc_1.b_0"))
    logits = np.maximum(x @ w0 + b0, 0) @ w1 + b1
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    np.testing.assert_allclose(probs, e / e.sum(axis=1, keepdims=True), rtol=1e-5)

    assert log.startswith(f"{name}: float32 [4, 4]\n")
    assert np.array2string(probs) in log


def test_inspect_shows_the_graph(built):
    out, _, _ = built
    log = pyir_cli("inspect", out / "mlp.pb", cwd=out)
    for fragment in ("mul", "relu", "softmax", "fc_0.w_0", "x"):
        assert fragment in log


def python_blocks(text: str) -> list[str]:
    blocks, current = [], None
    for line in text.splitlines():
        if current is None and line.strip() == "```python":
            current = []
        elif current is not None and line.strip() == "```":
            blocks.append("\n".join(current) + "\n")
            current = None
        elif current is not None:
            current.append(line)
    return blocks


def test_readme_python_examples_run(tmp_path):
    """Every ```python block of the README runs as written (in a fresh process). A block whose
    first line is `# path/file.py` is also written to that path, so later blocks can import
    it; one inside a package directory is a library module and is only written."""
    blocks = python_blocks((ROOT / "README.md").read_text())
    assert len(blocks) >= 5
    scripts = []
    for i, block in enumerate(blocks):
        first = block.splitlines()[0]
        name = first[2:].strip() if first.startswith("# ") and first.endswith(".py") else None
        path = tmp_path / (name or f"readme_block_{i}.py")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(block)
        if name is None or "/" not in name:
            scripts.append(path)
    for script in scripts:
        result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                                text=True, timeout=120, check=False)
        assert result.returncode == 0, f"{script.name}:\n{script.read_text()}\n{result.stderr}"
