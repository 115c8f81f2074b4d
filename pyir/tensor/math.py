"""Elementwise math and reductions: `pyir.tanh`, `pyir.add`, `pyir.sum`, ... (Paddle's
`paddle.tensor.math`). Each function is one `dispatch.out` call, static and eager alike."""

from __future__ import annotations

import numbers

import numpy as np

from .. import dtypes
from ..dispatch import dtype_of, ints, ndim, out

__all__ = [
    "tanh", "exp", "log", "sqrt", "square", "abs", "sigmoid", "add", "subtract", "multiply",
    "divide", "pow", "scale", "sum", "max", "min", "clip", "add_n",
]

# Paddle names of this family pyir leaves out, with the reason (pyir/unsupported.py).
UNSUPPORTED: dict[str, str] = {}

_FLOAT32_MAX = float(np.finfo(np.float32).max)


# --- unary math ---------------------------------------------------------------------------------
def _unary(op_type: str):
    def fn(x, name: str | None = None):
        return out(op_type, {"X": x}, name=name)

    fn.__name__ = fn.__qualname__ = op_type
    fn.__doc__ = f"""Elementwise `{op_type}` (op `{op_type}`).

    Example:
        >>> y = pyir.{op_type}(x)   # {op_type}_0.tmp_0
    """
    return fn


tanh, exp, log, sqrt = _unary("tanh"), _unary("exp"), _unary("log"), _unary("sqrt")
square, abs, sigmoid = _unary("square"), _unary("abs"), _unary("sigmoid")  # noqa: A001


# --- binary math --------------------------------------------------------------------------------
def _elementwise(kind: str, public: str, symbol: str):
    op_type = f"elementwise_{kind}"

    def fn(x, y, name: str | None = None):
        return out(op_type, {"X": x, "Y": y}, {"axis": -1}, name=name)

    fn.__name__ = fn.__qualname__ = public
    fn.__doc__ = f"""x {symbol} y with numpy broadcasting (op `{op_type}`).

    Example:
        >>> z = pyir.{public}(x, y)
    """
    return fn


add = _elementwise("add", "add", "+")
subtract = _elementwise("sub", "subtract", "-")
multiply = _elementwise("mul", "multiply", "*")
divide = _elementwise("div", "divide", "/")


def pow(x, y, name: str | None = None):  # noqa: A001 - Paddle's name
    """x ** y: op `pow` for a scalar exponent, `elementwise_pow` for a tensor one.

    Example:
        >>> y = pyir.pow(x, 2.0)
    """
    if isinstance(y, numbers.Number):
        return out("pow", {"X": x}, {"factor": float(y)}, name=name)
    return out("elementwise_pow", {"X": x, "Y": y}, {"axis": -1}, name=name)


def scale(x, scale: float = 1.0, bias: float = 0.0, bias_after_scale: bool = True,
          act: str | None = None, name: str | None = None):
    """scale * x + bias (or scale * (x + bias)), op `scale`; `act` applies an activation op.

    Example:
        >>> y = pyir.scale(x, scale=2.0, bias=1.0)
    """
    y = out("scale", {"X": x}, {"scale": float(scale), "bias": float(bias),
                                "bias_after_scale": bool(bias_after_scale)}, name=name)
    return out(act, {"X": y}) if act else y


def add_n(inputs, name: str | None = None):
    """Sum of a list of same-shaped tensors (op `sum`)."""
    inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    return out("sum", {"X": inputs}, name=name, stem="add_n")


def clip(x, min: float | None = None, max: float | None = None,  # noqa: A002
         name: str | None = None):
    """Clamp x into [min, max] (op `clip`); a missing bound is float32's extreme.

    Example:
        >>> y = pyir.clip(x, min=-1.0, max=1.0)
    """
    lo = -_FLOAT32_MAX if min is None else float(min)
    hi = _FLOAT32_MAX if max is None else float(max)
    return out("clip", {"X": x}, {"min": lo, "max": hi}, name=name)


# --- reductions ---------------------------------------------------------------------------------
def reduce_attrs(x, axis, keepdim: bool, op_type: str) -> dict:
    """The `dim`/`keep_dim`/`reduce_all` attributes of Paddle's reduce_* ops."""
    dims = [] if axis is None else ints(axis, "axis", op_type)
    reduce_all = not dims or len(dims) == ndim(x)
    return {"dim": dims, "keep_dim": bool(keepdim), "reduce_all": reduce_all}


def sum(x, axis=None, dtype=None, keepdim: bool = False, name: str | None = None):  # noqa: A001
    """Sum over `axis` (all axes when None), op `reduce_sum`; bool/int32 sum to int64.

    Example:
        >>> total = pyir.sum(x, axis=1)
    """
    attrs = reduce_attrs(x, axis, keepdim, "reduce_sum")
    in_dtype = dtype_of(x)
    if dtype is None and in_dtype in (np.dtype(np.bool_), np.dtype(np.int32)):
        dtype = "int64"
    if dtype is not None:
        attrs.update(in_dtype=dtypes.to_code(in_dtype), out_dtype=dtypes.to_code(dtype))
    return out("reduce_sum", {"X": x}, attrs, name=name, stem="sum")


def max(x, axis=None, keepdim: bool = False, name: str | None = None):  # noqa: A001
    """Maximum over `axis` (all axes when None), op `reduce_max`."""
    return out("reduce_max", {"X": x}, reduce_attrs(x, axis, keepdim, "reduce_max"),
               name=name, stem="max")


def min(x, axis=None, keepdim: bool = False, name: str | None = None):  # noqa: A001
    """Minimum over `axis` (all axes when None), op `reduce_min`."""
    return out("reduce_min", {"X": x}, reduce_attrs(x, axis, keepdim, "reduce_min"),
               name=name, stem="min")
