"""Interpreter overhead: pyir's median per-call time as a ratio to hand-written numpy.

    W1   input [1, 4], 4 x [fc 200 + tanh], fc 10 + softmax      target <= 1.1x
    W3   200 alternating elementwise add / mul / tanh on [64, 64] target <= 1.4x
    CLI  `pyir run` of samples/mlp.py, wall time of the process, as a multiple of
         `python -c "import numpy"` timed alongside (paired runs)   target <= 1.5x

Both sides run in this process on the same arrays; the numpy side does the same math with
no framework. A benchmark, not a test: it prints figures and never fails on a slow machine.

    python benchmarks/bench_core.py [--calls N] [--cli-runs N]
"""

from __future__ import annotations

import argparse
import os
import pathlib
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import pyir
from common import fresh_programs, median_calls, report, time_w1
from pyir.builder import emit

ROOT = pathlib.Path(__file__).resolve().parent.parent
PYIR = pathlib.Path(sys.executable).parent / "pyir"


def w1(calls: int) -> tuple[float, float]:
    """(pyir, numpy) median seconds per forward call of the W1 MLP."""
    return time_w1(lambda h, i: pyir.static.nn.fc(h, size=200, activation="tanh"), calls)


W3_OPS = ("elementwise_add", "elementwise_mul", "tanh")


def w3(calls: int) -> tuple[float, float]:
    """(pyir, numpy) median seconds per call of 200 alternating add / mul / tanh ops."""
    scope = fresh_programs()
    x = pyir.static.data(name="x", shape=[64, 64], dtype="float32")
    c = pyir.static.data(name="c", shape=[64, 64], dtype="float32")
    h = x
    for i in range(200):
        op = W3_OPS[i % 3]
        inputs = {"X": h} if op == "tanh" else {"X": h, "Y": c}
        h = emit(op, inputs)["Out"]
    exe = pyir.static.Executor(pyir.CPUPlace())
    main = pyir.static.default_main_program()
    rng = np.random.default_rng(0)
    xv = rng.standard_normal((64, 64)).astype(np.float32)
    cv = (rng.standard_normal((64, 64)) * 0.5).astype(np.float32)
    feed = {"x": xv, "c": cv}
    fetch = [h.name]

    def run_pyir():
        return exe.run(main, feed=feed, fetch_list=fetch, scope=scope)

    def run_numpy():
        a = xv
        for i in range(200):
            k = i % 3
            a = a + cv if k == 0 else (a * cv if k == 1 else np.tanh(a))
        return a

    np.testing.assert_allclose(run_pyir()[0], run_numpy(), rtol=1e-5)
    times = median_calls({"pyir": run_pyir, "numpy": run_numpy}, calls)
    return times["pyir"], times["numpy"]


def cli_run(runs: int) -> tuple[float, float, float]:
    """Median (wall, CPU) seconds of `pyir run` on the built MLP sample, a fresh process each
    time, with a warm bytecode cache as an installed package has (kept outside the source
    tree), and the median wall seconds of `python -c "import numpy"` timed alongside: the
    floor any numpy tool pays, which shows how fast this machine is right now. CPU time
    (user + sys of the child) does not grow when other processes load the machine; wall
    time does."""
    with tempfile.TemporaryDirectory() as tmp:
        model = pathlib.Path(tmp) / "mlp.pb"
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(pathlib.Path(tmp) / "pycache")
        subprocess.run([str(PYIR), "build", str(ROOT / "samples" / "mlp.py"), "-o", str(model)],
                       check=True, capture_output=True, env=env)
        command = [str(PYIR), "run", str(model), "--feed", str(ROOT / "samples" / "mlp_input.npy")]
        floor = [sys.executable, "-c", "import numpy"]
        subprocess.run(command, check=True, capture_output=True, env=env)   # fills the cache
        walls, cpus, floors = [], [], []
        for _ in range(runs):
            before = _child_cpu()
            start = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True, env=env)
            walls.append(time.perf_counter() - start)
            cpus.append(_child_cpu() - before)
            start = time.perf_counter()
            subprocess.run(floor, check=True, capture_output=True, env=env)
            floors.append(time.perf_counter() - start)
        return statistics.median(walls), statistics.median(cpus), statistics.median(floors)


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=2000, help="timed calls per workload")
    parser.add_argument("--cli-runs", type=int, default=7, help="timed `pyir run` processes")
    args = parser.parse_args(argv)
    p, n = w1(args.calls)
    report("W1", p / n, 1.1, "x", f"pyir {p * 1e6:.1f} us/call, numpy {n * 1e6:.1f} us/call")
    p, n = w3(max(args.calls // 10, 50))
    report("W3", p / n, 1.4, "x", f"pyir {p * 1e6:.1f} us/call, numpy {n * 1e6:.1f} us/call")
    try:
        wall, cpu, floor = cli_run(args.cli_runs)
    except subprocess.CalledProcessError as e:
        print(f"CLI  failed: {' '.join(map(str, e.cmd))}: {e.stderr.decode().strip()}")
        return 1
    report("CLI", wall / floor, 1.5, "x", f"`pyir run` of samples/mlp.py {wall * 1e3:.0f} ms "
                                        f"wall ({cpu * 1e3:.0f} ms CPU), `python -c 'import "
                                        f"numpy'` {floor * 1e3:.0f} ms; medians of "
                                        f"{args.cli_runs} paired processes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
