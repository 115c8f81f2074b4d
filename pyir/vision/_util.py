"""Argument helpers of pyir.vision.ops and the small Paddle utilities `paddle.vision.ops`
re-exports (check_type, convert_to_list, the mode queries)."""

from __future__ import annotations

import numbers

import numpy as np

from .. import dtypes
from ..errors import BuildError, Where
from ..fluid.framework import in_dygraph_mode, in_pir_mode  # noqa: F401
from ..optimizer.lr import check_type  # noqa: F401
from ..regularizer import in_dynamic_or_pir_mode  # noqa: F401


def fail(fn: str, message: str, op_type: str | None = None):
    """Raise a BuildError naming the paddle.vision.ops function."""
    raise BuildError(f"paddle.vision.ops.{fn}: {message}", Where(op_type=op_type or fn))


def pair(value, what: str, fn: str) -> list[int]:
    """An int or two ints as [a, b] (output_size, stride, padding, dilation)."""
    values = [value, value] if isinstance(value, numbers.Integral) else value
    if not isinstance(values, (list, tuple)) or len(values) != 2 or \
            not all(isinstance(v, numbers.Integral) for v in values):
        fail(fn, f"{what} must be an int or two ints, got {value!r}")
    return [int(v) for v in values]


def floats(value, what: str, fn: str) -> list[float]:
    """A float or a sequence of floats as a list of floats."""
    values = [value] if isinstance(value, numbers.Real) else value
    if not isinstance(values, (list, tuple)) or \
            not all(isinstance(v, numbers.Real) for v in values):
        fail(fn, f"{what} must be a float or a list of floats, got {value!r}")
    return [float(v) for v in values]


def check_variable_and_dtype(input, input_name, expected_dtype, op_name, extra_message=""):
    """Paddle's check: a BuildError unless `input` has one of the dtypes `expected_dtype`.

    Example:
        >>> check_variable_and_dtype(x, "x", ["float32"], "yolo_box")
    """
    allowed = [expected_dtype] if isinstance(expected_dtype, str) else list(expected_dtype)
    name = dtypes.name_of(input.dtype)
    if name not in allowed:
        raise BuildError(f"{op_name}: {input_name} must have dtype in {allowed}, got {name}. "
                         f"{extra_message}".rstrip(". ") + ".")


def convert_np_dtype_to_dtype_(np_dtype):
    """A numpy dtype (or name) as pyir's dtype. Example: >>> convert_np_dtype_to_dtype_('float32')"""
    return dtypes.to_numpy(np_dtype)


def convert_to_list(value, n, name, dtype=int):
    """An int or an n-sequence as a list of n values of `dtype` (Paddle's conv helper).

    Example:
        >>> convert_to_list(3, 2, "kernel_size")
        [3, 3]
    """
    if isinstance(value, dtype):
        return [value] * n
    values = list(value) if isinstance(value, (list, tuple, np.ndarray)) else None
    if values is None or len(values) != n or not all(isinstance(v, dtype) for v in values):
        raise BuildError(f"the argument {name} must be a {dtype.__name__} or {n} of them, got "
                         f"{value!r}")
    return values
