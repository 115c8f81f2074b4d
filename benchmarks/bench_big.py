"""Big programs: what loading and first running a program costs, against running it again.

    B10K  a 10,000-op chain (W3's alternating elementwise add / mul / tanh on [64, 64]):
          load (parse its bytes) + first run (check, plan, run), as a multiple of one steady
          run of the same program in the same process                      target <= 15x
    B100K a 100,000-op chain of the same ops on [4, 4], read from a file in a fresh process:
          load + plan compile, seconds                                     target <= 3 s
          peak RSS of that process                                         target <= 400 MB

The programs are built in this process with `emit` and serialized, so the figures are for
the same bytes `pyir run` reads. Times are CPU seconds of this process (process_time), which
other load on a shared machine does not inflate as it does wall time; on a quiet machine the
two agree. A benchmark, not a test: it prints figures, never fails.

    python benchmarks/bench_big.py [--repeats N] [--ops-big N]
"""

from __future__ import annotations

import argparse
import json
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
from common import fresh_programs, report
from pyir.builder import emit
from pyir.executor import Executor, Scope
from pyir.serialize import load_program, parse_program

OPS = ("elementwise_add", "elementwise_mul", "tanh")


def chain(n: int, size: int) -> tuple[bytes, str, dict]:
    """(program bytes, fetch name, feed) of an n-op chain of OPS on [size, size]."""
    fresh_programs()
    x = pyir.static.data(name="x", shape=[size, size], dtype="float32")
    c = pyir.static.data(name="c", shape=[size, size], dtype="float32")
    h = x
    for i in range(n):
        op = OPS[i % 3]
        h = emit(op, {"X": h} if op == "tanh" else {"X": h, "Y": c})["Out"]
    rng = np.random.default_rng(0)
    feed = {"x": rng.standard_normal((size, size)).astype(np.float32),
            "c": (rng.standard_normal((size, size)) * 0.5).astype(np.float32)}
    return pyir.static.default_main_program().serialize_to_string(), h.name, feed


def numpy_chain(n: int, feed: dict) -> np.ndarray:
    a, c = feed["x"], feed["c"]
    for i in range(n):
        k = i % 3
        a = a + c if k == 0 else (a * c if k == 1 else np.tanh(a))
    return a


clock = time.process_time


def first_vs_steady(n: int, size: int, repeats: int, steady_calls: int = 20) -> dict:
    """Median CPU seconds of (parse + first Executor.run) over `repeats` fresh loads, and of one
    steady run (after the second, which generates the plan's code)."""
    data, fetch, feed = chain(n, size)
    want = numpy_chain(n, feed)
    firsts, parses = [], []
    for _ in range(repeats):
        start = clock()
        program = parse_program(data)
        parsed = clock()
        exe, scope = Executor(), Scope()
        got = exe.run(program, feed=feed, fetch_list=[fetch], scope=scope)[0]
        firsts.append(clock() - start)
        parses.append(parsed - start)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    start = clock()
    exe.run(program, feed=feed, fetch_list=[fetch], scope=scope)
    second = clock() - start
    steady = []
    for _ in range(steady_calls):
        start = clock()
        got = exe.run(program, feed=feed, fetch_list=[fetch], scope=scope)[0]
        steady.append(clock() - start)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    return {"first": statistics.median(firsts), "parse": statistics.median(parses),
            "second": second, "steady": statistics.median(steady)}


def child(path: str, fetch: str) -> None:
    """In a fresh process: load + plan compile of the file, then one run; prints JSON."""
    from pyir.plan import compile_plan

    wall, cpu = time.perf_counter(), time.process_time()
    program = load_program(path)
    loaded = time.perf_counter()
    plan = compile_plan(program, ("x", "c"), (fetch,))
    result = {"load": loaded - wall, "plan": time.perf_counter() - loaded,
              "cpu": time.process_time() - cpu,
              "rss_mb": peak_rss_mb()}
    size = program.global_block().var("x").shape[0]
    feed = {"x": np.ones((size, size), np.float32), "c": np.full((size, size), 0.5, np.float32)}
    start = time.perf_counter()
    plan.execute(dict(feed), {})
    result["first_run"] = time.perf_counter() - start
    start = time.perf_counter()
    plan.execute(dict(feed), {})  # generates the plan's code
    result["second_run"] = time.perf_counter() - start
    result["rss_after_mb"] = peak_rss_mb()
    print(json.dumps(result))


def peak_rss_mb() -> float:
    """This process's peak resident memory: VmHWM, which starts afresh at exec (ru_maxrss
    keeps the parent's size at the fork that started this process)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def big_load(n: int) -> dict:
    data, fetch, _ = chain(n, 4)
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "chain.pdmodel"
        path.write_bytes(data)
        del data
        out = subprocess.run([sys.executable, __file__, "--child", str(path), fetch],
                             check=True, capture_output=True, text=True,
                             env=dict(os.environ))
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="fresh loads of the 10k chain")
    parser.add_argument("--ops-big", type=int, default=100_000)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(*args.child)
        return 0
    r = first_vs_steady(10_000, 64, args.repeats)
    report("B10K", r["first"] / r["steady"], 15, "x",
           f"load + first run {r['first'] * 1e3:.0f} ms (parse {r['parse'] * 1e3:.0f} ms), "
           f"steady run {r['steady'] * 1e3:.1f} ms; 2nd run (generates code) "
           f"{r['second'] * 1e3:.0f} ms")
    b = big_load(args.ops_big)
    report("B100K", b["cpu"], 3, "s",
           f"{args.ops_big} ops: load + plan compile, CPU (wall: load {b['load']:.2f} s + plan "
           f"{b['plan']:.2f} s); first run {b['first_run']:.2f} s, second (generates "
           f"the code) {b['second_run']:.2f} s")
    report("RSS", b["rss_mb"], 400, "MB", f"peak RSS of that process after load + plan "
                                          f"({b['rss_after_mb']:.0f} MB after the 2nd run)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
