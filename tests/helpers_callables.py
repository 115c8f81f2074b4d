"""Registered py_func callables for the tests: a module without import-time side effects.

Tests import it as `helpers_callables` (pytest puts tests/ on sys.path); subprocesses find it
through `pyir.callables.search_path` or $PYIR_PATH. `unregistered_touch` is deliberately not
registered: hostile-file tests name it and check that it never runs.
"""

import os

import numpy as np

import pyir

CALLS: list = []  # what record_call saw, for tests that check a debug op ran
GRAD_ARGS: list = []  # which output gradients add_mul_grad received as None


@pyir.register
def tanh(x):
    return np.tanh(x)


@pyir.register
def tanh_grad(y, dy):
    return np.array(dy) * (1 - np.square(np.array(y)))


@pyir.register
def record_call(*xs):
    CALLS.append([None if x is None else np.array(x) for x in xs])


@pyir.register
def add_mul(a, b):
    return a + b, a * b


@pyir.register
def add_mul_grad(a, b, s, p, d_sum, d_prod):
    """Gradient of (a + b, a * b); a missing output gradient arrives as None."""
    GRAD_ARGS.append((d_sum is None, d_prod is None))
    d_sum = np.zeros_like(a) if d_sum is None else d_sum
    d_prod = np.zeros_like(a) if d_prod is None else d_prod
    return d_sum + d_prod * b, d_sum + d_prod * a


@pyir.register
def scale_first_grad(x, label, dy):
    """Backward of `x * 2` with an integer label input that has no gradient."""
    return dy * 2, None


@pyir.register
def double_first(x, label):
    return x * 2


@pyir.register
def first_grad_only(a, b, s, p, d_sum, d_prod):
    """Gradient for `a` only; `b` gets None (no gradient)."""
    return d_sum, None


@pyir.register
def last_only(*args):
    """A backward that returns one gradient whatever the number of forward inputs."""
    return args[-1]


@pyir.register
def as_float64(x):
    return x.astype("float64")


@pyir.register
def raises_value_error(x):
    raise ValueError("bad input from the callable")


@pyir.register
def inverts_singular(x):
    """numpy raises from its own Python code: the user's line is this one, not numpy's."""
    return np.linalg.inv(np.zeros((2, 2), x.dtype))


@pyir.register
def returns_two(x):
    return x, x


@pyir.register
def transposed(x):
    return x.T.copy()


@pyir.register
def touch_sentinel(x):
    """Writes the file named by $PYIR_TEST_SENTINEL: proof that an op ran."""
    with open(os.environ["PYIR_TEST_SENTINEL"], "a") as f:
        f.write("touch_sentinel ran\n")
    return x


def unregistered_touch(x):
    with open(os.environ["PYIR_TEST_SENTINEL"], "a") as f:
        f.write("unregistered_touch ran\n")
    return x
