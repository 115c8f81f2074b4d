"""Tensors made from nothing or from a shape: `pyir.full`, `pyir.ones_like`, `pyir.randn`, ...
(Paddle's `paddle.tensor.creation` and `paddle.tensor.random`). Created static variables are
constants (stop_gradient), as in Paddle."""

from __future__ import annotations

import numpy as np

from .. import dtypes, framework
from ..dispatch import constant, dtype_of, out, shape_list
from ..framework import unique_name

__all__ = ["full", "ones", "zeros", "full_like", "ones_like", "zeros_like", "uniform", "randn",
           "rand"]

# Paddle names of this family pyir leaves out, with the reason (pyir/unsupported.py).
UNSUPPORTED: dict[str, str] = {}


def fill_attrs(shape, value, dtype, op_type="fill_constant") -> dict:
    """`fill_constant`'s attributes, with `str_value` spelled as Paddle spells it."""
    dt = dtypes.to_numpy(dtype or "float32")
    text = str(bool(value)).lower() if dt == np.bool_ else (
        str(int(value)) if np.issubdtype(dt, np.integer) else str(float(value)))
    return {"shape": shape_list(shape, op_type), "value": float(value), "str_value": text,
            "dtype": dtypes.to_code(dt)}


def full(shape, fill_value, dtype=None, name: str | None = None):
    """A tensor of `shape` filled with `fill_value` (op `fill_constant`, float32 by default).

    Example:
        >>> ones = pyir.full([2, 3], 1.0)
    """
    if name is None and framework.static_mode[0]:
        unique_name.generate("fill_constant")  # Paddle's full() draws this name twice
    return constant(out("fill_constant", {}, fill_attrs(shape, fill_value, dtype), name=name))


def ones(shape, dtype=None, name: str | None = None):
    """full(shape, 1.0, dtype)."""
    return full(shape, 1.0, dtype, name)


def zeros(shape, dtype=None, name: str | None = None):
    """full(shape, 0.0, dtype)."""
    return full(shape, 0.0, dtype, name)


def full_like(x, fill_value, dtype=None, name: str | None = None):
    """A tensor shaped like x filled with `fill_value` (op `fill_any_like`).

    Example:
        >>> z = pyir.full_like(x, 2.0)
    """
    code = dtypes.to_code(dtypes.to_numpy(dtype) if dtype is not None else dtype_of(x))
    return constant(out("fill_any_like", {"X": x}, {"value": float(fill_value), "dtype": code},
                        name=name, stem="full_like"))


def ones_like(x, dtype=None, name: str | None = None):
    """full_like(x, 1.0, dtype)."""
    return full_like(x, 1.0, dtype, name)


def zeros_like(x, dtype=None, name: str | None = None):
    """full_like(x, 0.0, dtype)."""
    return full_like(x, 0.0, dtype, name)


def uniform(shape, dtype=None, min: float = -1.0, max: float = 1.0,  # noqa: A002
            seed: int = 0, name: str | None = None):
    """Samples of U[min, max) (op `uniform_random`; a nonzero seed repeats the values).

    Example:
        >>> w = pyir.uniform([4, 3], min=-0.5, max=0.5, seed=1)
    """
    attrs = {"shape": shape_list(shape, "uniform_random"), "min": float(min),
             "max": float(max), "seed": int(seed),
             "dtype": dtypes.to_code(dtypes.to_numpy(dtype or "float32"))}
    return constant(out("uniform_random", {}, attrs, name=name, stem="uniform"))


def rand(shape, dtype=None, name: str | None = None):
    """Samples of U[0, 1) (op `uniform_random`).

    Example:
        >>> noise = pyir.rand([2, 3], dtype="float64")
    """
    return uniform(shape, dtype, min=0.0, max=1.0, name=name)


def randn(shape, dtype=None, name: str | None = None):
    """Samples of N(0, 1) (op `gaussian_random`).

    Example:
        >>> noise = pyir.randn([2, 3])
    """
    attrs = {"shape": shape_list(shape, "gaussian_random"), "mean": 0.0, "std": 1.0,
             "seed": 0, "dtype": dtypes.to_code(dtypes.to_numpy(dtype or "float32"))}
    return constant(out("gaussian_random", {}, attrs, name=name, stem="gaussian"))
