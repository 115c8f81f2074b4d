"""Helpers of the test_api_math* files: run a function in static mode (build on `static.data`
variables, run with the Executor) or in eager mode (on Tensors), and check eager gradients
against central differences of a numpy reference."""

from __future__ import annotations

import numpy as np

import pyir
from pyir import framework
from pyir.executor import Executor


def as_list(result):
    return list(result) if isinstance(result, (list, tuple)) else [result]


def static_run(fn, *arrays, **kwargs):
    """(fetched values, op types, ops) of a fresh program building fn(*data vars)."""
    framework.reset_default_programs()
    names = [f"in{i}" for i in range(len(arrays))]
    inputs = [pyir.static.data(n, list(a.shape), a.dtype) for n, a in zip(names, arrays)]
    result = as_list(fn(*inputs, **kwargs))
    main = pyir.static.default_main_program()
    values = Executor().run(main, feed=dict(zip(names, arrays)), fetch_list=result)
    ops = main.global_block().ops
    return [np.asarray(v) for v in values], [op.type for op in ops], ops


def eager_run(fn, *arrays, **kwargs):
    """fn(*Tensors) as numpy arrays (a list when fn returns several)."""
    old = framework.static_mode[0]
    framework.static_mode[0] = False
    try:
        result = fn(*[pyir.to_tensor(a) for a in arrays], **kwargs)
    finally:
        framework.static_mode[0] = old
    values = [np.asarray(r.numpy()) for r in as_list(result)]
    return values if isinstance(result, (list, tuple)) else values[0]


def eager_grad(fn, x: np.ndarray, weights: np.ndarray | None = None, others=(), **kwargs):
    """d sum(weights * fn(x, *others)) / dx through the tape."""
    old = framework.static_mode[0]
    framework.static_mode[0] = False
    try:
        t = pyir.to_tensor(x, stop_gradient=False)
        out = fn(t, *[pyir.to_tensor(o) for o in others], **kwargs)
        w = np.ones(out.shape, out.dtype) if weights is None else weights.astype(out.dtype)
        out.backward(pyir.to_tensor(w))
        return np.asarray(t.gradient())
    finally:
        framework.static_mode[0] = old


def numeric_grad(reference, x: np.ndarray, weights=None, eps: float = 1e-6) -> np.ndarray:
    """Central differences of sum(weights * reference(x)) in float64."""
    x = x.astype(np.float64)
    base = np.asarray(reference(x))
    w = np.ones(base.shape) if weights is None else weights
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        grad[i] = ((np.asarray(reference(up)) - np.asarray(reference(down))) * w).sum() / (
            2 * eps)
    return grad


def uniform(shape, low=-1.0, high=1.0, dtype="float64", seed=0):
    return np.random.default_rng(seed).uniform(low, high, shape).astype(dtype)
