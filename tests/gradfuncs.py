"""Registered py_func callables for the autodiff tests: a tanh with a correct and a wrong
Python backward. Module-level and side-effect free, so saved programs can reference them."""

import numpy as np

import pyir


@pyir.register
def tanh(x):
    return np.tanh(x)


@pyir.register
def tanh_grad(y, dy):
    """d tanh = dy * (1 - y^2), from the forward output y (x is skipped)."""
    return np.asarray(dy) * (1.0 - np.square(np.asarray(y)))


@pyir.register
def tanh_grad_wrong(y, dy):
    """A plausible bug: the derivative of tanh taken as 1 - y."""
    return np.asarray(dy) * (1.0 - np.asarray(y))


@pyir.register
def tanh_float32(x):
    """Casts its result to float32 whatever it gets (cannot run in a float64 check)."""
    return np.tanh(x).astype(np.float32)
