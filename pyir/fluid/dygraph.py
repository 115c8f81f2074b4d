"""`fluid.dygraph` / `base.dygraph`: eager mode for fluid-era code (`guard`, `to_variable`)."""

from __future__ import annotations

import contextlib

import numpy as np

from .. import framework
from ..eager import Tensor, no_grad, to_tensor  # noqa: F401


@contextlib.contextmanager
def guard(place=None):
    """Run the block in eager (dygraph) mode, restoring the previous mode afterwards.

    Example:
        >>> with fluid.dygraph.guard():
        ...     y = fluid.dygraph.to_variable(np.ones(3, "float32")) * 2
    """
    old = framework.static_mode[0]
    framework.static_mode[0] = False
    try:
        yield
    finally:
        framework.static_mode[0] = old


def to_variable(value, name=None, zero_copy=None, dtype=None) -> Tensor:
    """An eager Tensor from a numpy array, a Tensor or a Python number/list.

    Example:
        >>> t = fluid.dygraph.to_variable(np.arange(3.0))
    """
    if isinstance(value, Tensor):
        return value if dtype is None else value.astype(dtype)
    array = np.asarray(value)
    return to_tensor(array if dtype is None else array.astype(dtype))


def enabled() -> bool:
    return not framework.static_mode[0]


__all__ = ["guard", "to_variable", "enabled", "no_grad"]
