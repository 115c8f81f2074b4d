"""Helpers of the tests/test_api_functional*.py tests: run one `paddle.nn.functional` call in
static mode (build over `data` inputs, run with the Executor) and in eager mode (values and
gradients), and central finite differences of a numpy reference."""

from __future__ import annotations

import numpy as np

import pyir
from pyir.executor import Executor
from pyir.framework import Program, program_guard


def as_list(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


def run_static(fn, arrays, **kwargs):
    """fn(*data vars, **kwargs) built into the default program and run; returns (outputs as a
    list of arrays, the program's ops)."""
    pyir.enable_static()
    main = Program()
    with program_guard(main, Program()):
        vars_ = [pyir.static.data(f"in{i}", list(a.shape), str(a.dtype)) for i, a in
                 enumerate(arrays)]
        result = fn(*vars_, **kwargs)
    outs = Executor().run(main, feed={f"in{i}": a for i, a in enumerate(arrays)},
                          fetch_list=as_list(result))
    return [np.asarray(o) for o in outs], list(main.global_block().ops)


def run_eager(fn, arrays, grad_of=(), seed=7, **kwargs):
    """fn(*tensors, **kwargs) run eagerly; with `grad_of` (input indices) also the gradients of
    sum(out * W) for a fixed random W. Returns (outputs, [grads])."""
    pyir.disable_static()
    try:
        tensors = [pyir.to_tensor(a, stop_gradient=i not in grad_of) for i, a in
                   enumerate(arrays)]
        outs = as_list(fn(*tensors, **kwargs))
        values = [o.numpy() for o in outs]
        grads = []
        if grad_of:
            weight = weights_like(values[0], seed)
            loss = pyir.sum(outs[0] * pyir.to_tensor(weight))
            loss.backward()
            grads = [tensors[i].grad.numpy() if tensors[i].grad is not None else None
                     for i in grad_of]
        return values, grads
    finally:
        pyir.enable_static()


def weights_like(value, seed=7):
    return np.random.default_rng(seed).uniform(0.5, 1.5, np.shape(value)).astype(
        np.asarray(value).dtype)


def numeric_grad(ref, arrays, index, seed=7, eps=1e-6):
    """d sum(ref(*arrays) * W) / d arrays[index] by central differences in float64."""
    arrays = [np.asarray(a, np.float64) if np.issubdtype(np.asarray(a).dtype, np.floating)
              else a for a in arrays]
    weight = weights_like(ref(*arrays), seed).astype(np.float64)
    x = arrays[index].copy()
    grad = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        saved = x[idx]
        values = []
        for step in (eps, -eps):
            x[idx] = saved + step
            args = list(arrays)
            args[index] = x
            values.append(float(np.sum(np.asarray(ref(*args)) * weight)))
        x[idx] = saved
        grad[idx] = (values[0] - values[1]) / (2 * eps)
    return grad


def op_attrs(op, names):
    return {n: op.attr(n) for n in names}
