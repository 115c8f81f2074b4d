"""Helpers of the test_api_distribution* files: numpy references of special functions, and
running a distribution method eagerly or in a static program (built on `static.data`
parameters, run by the Executor)."""

from __future__ import annotations

import math

import numpy as np

import pyir
from pyir import framework
from pyir.executor import Executor

lgamma = np.vectorize(math.lgamma)


def digamma(x):
    """psi(x) by recurrence up to x >= 8, then the asymptotic series."""
    x = np.asarray(x, np.float64).copy()
    shift = np.zeros_like(x)
    while np.any(x < 8):
        small = x < 8
        shift = shift - np.where(small, 1.0 / x, 0.0)
        x = np.where(small, x + 1, x)
    inv = 1.0 / (x * x)
    series = np.log(x) - 0.5 / x - inv * (1 / 12 - inv * (1 / 120 - inv * (1 / 252 - inv / 240)))
    return series + shift


def lbeta(a, b):
    return lgamma(a) + lgamma(b) - lgamma(a + b)


def eager(fn, *arrays):
    """fn(*Tensors) in eager mode, as numpy."""
    old = framework.static_mode[0]
    framework.static_mode[0] = False
    try:
        result = fn(*[pyir.to_tensor(a) for a in arrays])
        return np.asarray(result.numpy())
    finally:
        framework.static_mode[0] = old


def in_eager(fn):
    """fn() run in eager mode."""
    old = framework.static_mode[0]
    framework.static_mode[0] = False
    try:
        return fn()
    finally:
        framework.static_mode[0] = old


def static(fn, *arrays):
    """(value, op types) of fn(*data variables) built in a fresh program and run."""
    framework.reset_default_programs()
    names = [f"p{i}" for i in range(len(arrays))]
    inputs = [pyir.static.data(n, list(a.shape), a.dtype) for n, a in zip(names, arrays)]
    result = fn(*inputs)
    main = pyir.static.default_main_program()
    (value,) = Executor().run(main, feed=dict(zip(names, arrays)), fetch_list=[result])
    return np.asarray(value), [op.type for op in main.global_block().ops]


def eager_grads(fn, *arrays):
    """Gradients of sum(fn(*Tensors)) w.r.t. every input, through the tape."""
    old = framework.static_mode[0]
    framework.static_mode[0] = False
    try:
        tensors = [pyir.to_tensor(a, stop_gradient=False) for a in arrays]
        pyir.sum(fn(*tensors)).backward()
        return [np.zeros(t.shape) if t.gradient() is None else np.asarray(t.gradient())
                for t in tensors]
    finally:
        framework.static_mode[0] = old


def numeric_grads(fn, *arrays, eps=1e-3):
    """Central differences of sum(fn(*Tensors)) (float64 inputs) w.r.t. every input."""
    arrays = [np.asarray(a, np.float64) for a in arrays]
    grads = []
    for i, a in enumerate(arrays):
        g = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            up, down = [x.copy() for x in arrays], [x.copy() for x in arrays]
            up[i][idx] += eps
            down[i][idx] -= eps
            g[idx] = (eager(fn, *up).sum() - eager(fn, *down).sum()) / (2 * eps)
        grads.append(g)
    return grads
