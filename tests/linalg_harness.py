"""Shared harness of the linalg / search API tests: run one API call in static mode (build,
Executor) and in eager mode on the same numpy inputs, and check eager gradients against
central finite differences of the eager function itself."""

from __future__ import annotations

import numpy as np

import pyir
from pyir import framework
from pyir.executor import Executor


def flat(result) -> list:
    return list(result) if isinstance(result, (list, tuple)) else [result]


def run_static(fn, arrays):
    """Build fn on data variables a0, a1, ... and run it; returns (values, op types)."""
    framework.reset_default_programs()
    framework.static_mode[0] = True
    names = [f"a{i}" for i in range(len(arrays))]
    variables = [pyir.static.data(n, list(np.shape(a)), str(np.asarray(a).dtype))
                 for n, a in zip(names, arrays)]
    outs = flat(fn(*variables))
    main = pyir.static.default_main_program()
    ops = [op.type for op in main.global_block().ops]
    values = Executor().run(main, feed=dict(zip(names, arrays)), fetch_list=outs)
    return [np.asarray(v) for v in values], ops


def static_ops(fn, arrays):
    """The ops fn builds on data variables shaped like the arrays (nothing is run)."""
    framework.reset_default_programs()
    framework.static_mode[0] = True
    variables = [pyir.static.data(f"a{i}", list(np.shape(a)), str(np.asarray(a).dtype))
                 for i, a in enumerate(arrays)]
    fn(*variables)
    return pyir.static.default_main_program().global_block().ops


def run_eager(fn, arrays):
    framework.static_mode[0] = False
    tensors = [pyir.to_tensor(np.asarray(a)) for a in arrays]
    return [np.asarray(t.numpy()) for t in flat(fn(*tensors))]


def check_both(fn, arrays, reference, rtol=1e-5, atol=1e-6):
    """fn in static and eager mode against reference(*arrays) (a value or a list)."""
    expected = [np.asarray(e) for e in flat(reference(*arrays))]
    static_values, ops = run_static(fn, arrays)
    eager_values = run_eager(fn, arrays)
    for got in (static_values, eager_values):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            assert g.shape == e.shape, (g.shape, e.shape)
            np.testing.assert_allclose(g, e, rtol=rtol, atol=atol)
    return ops


def eager_grads(fn, arrays, wrt, seed=0):
    """The gradients of sum(w * fn(...)) for the inputs `wrt`, by the tape (float64)."""
    framework.static_mode[0] = False
    tensors = [pyir.to_tensor(np.asarray(a), stop_gradient=i not in wrt)
               for i, a in enumerate(arrays)]
    out = flat(fn(*tensors))[0]
    weights = np.random.default_rng(seed).uniform(0.5, 1.5, out.shape)
    loss = pyir.sum(out * pyir.to_tensor(weights))
    loss.backward()
    return [tensors[i].grad.numpy() if hasattr(tensors[i].grad, "numpy")
            else np.asarray(tensors[i].grad) for i in wrt], weights


def numeric_grads(fn, arrays, wrt, weights, eps=1e-6):
    framework.static_mode[0] = False

    def loss(values):
        out = flat(fn(*[pyir.to_tensor(v) for v in values]))[0]
        return float((np.asarray(out.numpy()) * weights).sum())

    grads = []
    for i in wrt:
        base = [np.array(a, dtype=np.float64) for a in arrays]
        g = np.zeros_like(base[i])
        for k in np.ndindex(base[i].shape):
            plus = [b.copy() for b in base]
            minus = [b.copy() for b in base]
            plus[i][k] += eps
            minus[i][k] -= eps
            g[k] = (loss(plus) - loss(minus)) / (2 * eps)
        grads.append(g)
    return grads


def check_grads(fn, arrays, wrt=(0,), rtol=1e-4, atol=1e-6):
    """Tape gradients of fn (float64 inputs) against central finite differences."""
    arrays = [np.asarray(a, np.float64) if np.asarray(a).dtype.kind == "f" else np.asarray(a)
              for a in arrays]
    analytic, weights = eager_grads(fn, arrays, list(wrt))
    numeric = numeric_grads(fn, arrays, list(wrt), weights)
    for a, n in zip(analytic, numeric):
        np.testing.assert_allclose(a, n, rtol=rtol, atol=atol)
