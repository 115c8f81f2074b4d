"""py_func overhead: what running a Python callable as an op costs over calling it directly.

    OP   per-op cost of a py_func minus the call of its function       target <= 2 us
         (chains of 100 and 300 py_func ops; the difference / 200 removes the fixed cost of
         Executor.run; the function returns its input, so its own work is one call)
    W1   input [1, 4], 4 x [fc 200 + tanh as a py_func], fc 10 + softmax,
         as a ratio to the same math in hand-written numpy (row W1PF)     target <= 1.2x
         (also printed: the same net with pyir's tanh op, to separate the py_func's share
         from the interpreter's)

A benchmark, not a test: it prints medians and ratios and never fails on a slow machine.

    python benchmarks/bench_py_func.py [--calls N]
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

import pyir
from common import fresh_programs, median_call, report, time_w1


def identity(x):
    return x


def tanh(x):
    return np.tanh(x)


def chain(n_ops: int, calls: int) -> float:
    """Median seconds of running `n_ops` chained py_func(identity) ops once."""
    scope = fresh_programs()
    block = pyir.static.default_main_program().global_block()
    h = pyir.static.data(name="x", shape=[4, 4], dtype="float32")
    for i in range(n_ops):
        out = block.create_var(name=f"h{i}", dtype="float32", shape=[4, 4])
        h = pyir.static.py_func(identity, h, out)
    exe = pyir.static.Executor()
    feed = {"x": np.ones((4, 4), np.float32)}
    main = pyir.static.default_main_program()
    return median_call(lambda: exe.run(main, feed=feed, fetch_list=[h.name], scope=scope), calls)


def direct_call(calls: int, n: int = 200) -> float:
    """Median seconds of one direct `identity(x)` call (a loop of `n`, divided by `n`)."""
    x = np.ones((4, 4), np.float32)

    def loop():
        for _ in range(n):
            identity(x)

    return median_call(loop, calls) / n


def w1(calls: int, as_py_func: bool = True) -> tuple[float, float]:
    """(pyir, numpy) median seconds per forward call of W1 with tanh as a py_func (or, for
    reference, as pyir's own tanh op)."""

    def hidden(h, i):
        if not as_py_func:
            return pyir.static.nn.fc(h, size=200, activation="tanh")
        z = pyir.static.nn.fc(h, size=200)
        block = pyir.static.default_main_program().global_block()
        return pyir.static.py_func(tanh, z, block.create_var(name=f"hidden_{i}",
                                                             dtype="float32", shape=z.shape))

    return time_w1(hidden, calls)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=2000, help="timed calls per workload")
    args, _ = parser.parse_known_args(argv)  # run_all.py passes every benchmark's options
    few = max(args.calls // 10, 50)
    short, long = chain(100, few), chain(300, few)
    per_op = (long - short) / 200
    direct = direct_call(few)
    report("OP", (per_op - direct) * 1e6, 2.0, "us",
           f"py_func op {per_op * 1e6:.2f} us, direct call {direct * 1e6:.3f} us "
           f"(runs of 100 / 300 ops: {short * 1e6:.0f} / {long * 1e6:.0f} us)")
    p, n = w1(args.calls)
    report("W1PF", p / n, 1.2, "x", f"pyir {p * 1e6:.1f} us/call, numpy {n * 1e6:.1f} us/call")
    native, native_numpy = w1(args.calls, as_py_func=False)
    print(f"     W1 with pyir's tanh op instead: {native * 1e6:.1f} us/call "
          f"({native / native_numpy:.2f}x numpy, timed alongside)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
