"""Autodiff overhead: forward + backward of the W1 network per call, pyir vs hand-written numpy.

    W1   input [1, 4], 4 x [fc 200 + tanh], fc 10 + softmax, cross-entropy loss (seed 003's
         network with native tanh); one call = loss + every parameter gradient.
         target: pyir <= 1.5x numpy

pyir runs the program `append_backward` produced (forward, `loss@GRAD` seed, grad ops) through
`Executor.run`, fetching the loss and the 10 parameter gradients. The numpy side computes the
same loss and gradients with no framework, on the same arrays, in the same process; the two
are checked equal first. A benchmark, not a test: it prints figures and never fails.

    python benchmarks/bench_autodiff.py [--calls N]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import pyir
from pyir import framework
from pyir.backward import append_backward
from pyir.plan import compile_plan


def median_call(fn, calls: int, warmup: int = 50) -> float:
    """Median seconds of one `fn()` over `calls` timed calls."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def build_w1():
    """The W1 training graph: (main program, scope, loss, [(param, grad)], feed)."""
    framework.reset_default_programs()
    pyir.enable_static()
    pyir.seed(0)
    scope = pyir.static.Scope()
    x = pyir.static.data(name="x", shape=[1, 4], dtype="float32")
    y = pyir.static.data(name="y", shape=[1, 1], dtype="int64")
    h = x
    for _ in range(4):
        h = pyir.static.nn.fc(h, size=200, activation="tanh")
    prob = pyir.static.nn.fc(h, size=10, activation="softmax")
    loss = pyir.nn.loss.CrossEntropyLoss()(prob, y)
    params_grads = append_backward(loss)
    pyir.static.Executor().run(pyir.static.default_startup_program(), scope=scope)
    rng = np.random.default_rng(0)
    feed = {"x": rng.standard_normal((1, 4)).astype(np.float32),
            "y": np.array([[3]], dtype=np.int64)}
    return pyir.static.default_main_program(), scope, loss, params_grads, feed


def numpy_w1(params, x, label):
    """Hand-written forward + backward: returns [loss, dW0, db0, ..., dW4, db4]."""
    acts = [x]
    for w, b in params[:4]:
        acts.append(np.tanh(acts[-1] @ w + b))
    w5, b5 = params[4]
    z = acts[-1] @ w5 + b5
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    p = e / e.sum(axis=-1, keepdims=True)
    # CrossEntropyLoss applies softmax again to the softmax output (as in seed 003)
    e2 = np.exp(p - p.max(axis=-1, keepdims=True))
    q = e2 / e2.sum(axis=-1, keepdims=True)
    loss = -np.log(q[0, label]).mean()
    dp = q.copy()
    dp[0, label] -= 1.0
    dz = p * (dp - (dp * p).sum(axis=-1, keepdims=True))
    grads = [(acts[-1].T @ dz, dz.sum(axis=0))]
    dh = dz @ w5.T
    for k in range(3, -1, -1):
        w, _ = params[k]
        da = dh * (1.0 - acts[k + 1] * acts[k + 1])
        grads.append((acts[k].T @ da, da.sum(axis=0)))
        if k:
            dh = da @ w.T
    out = [np.float32(loss)]
    for dw, db in reversed(grads):
        out += [dw, db]
    return out


def w1(calls: int) -> dict:
    """Median seconds per forward+backward call: Executor.run, the bare plan, and numpy."""
    main, scope, loss, params_grads, feed = build_w1()
    grads = {p.name: g.name for p, g in params_grads}
    order = [n for i in range(5) for n in (f"fc_{i}.w_0", f"fc_{i}.b_0")]
    fetch = [loss.name] + [grads[n] for n in order]
    exe = pyir.static.Executor()

    def run_pyir():
        return exe.run(main, feed=feed, fetch_list=fetch, scope=scope)

    plan = compile_plan(main, tuple(feed), tuple(fetch))
    from pyir.executor import run_plan

    def run_bare_plan():
        return run_plan(plan, dict(feed), scope)

    params = [(scope[f"fc_{i}.w_0"], scope[f"fc_{i}.b_0"]) for i in range(5)]
    label = int(feed["y"][0, 0])

    def run_numpy():
        return numpy_w1(params, feed["x"], label)

    for got, want in zip(run_pyir(), run_numpy()):
        np.testing.assert_allclose(got, want, rtol=2e-4, atol=1e-7)
    return {"pyir": median_call(run_pyir, calls), "plan": median_call(run_bare_plan, calls),
            "numpy": median_call(run_numpy, calls), "ops": len(main.global_block().ops)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    r = w1(args.calls)
    print(f"W1 forward+backward ({r['ops']} ops), median of {args.calls} calls:")
    print(f"  numpy (hand-written)   {r['numpy'] * 1e6:8.1f} us")
    print(f"  pyir Executor.run      {r['pyir'] * 1e6:8.1f} us   "
          f"ratio {r['pyir'] / r['numpy']:.2f}x (target <= 1.5x)")
    print(f"  pyir run_plan (bare)   {r['plan'] * 1e6:8.1f} us   "
          f"ratio {r['plan'] / r['numpy']:.2f}x")


if __name__ == "__main__":
    main()
