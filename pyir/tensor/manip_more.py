"""The Tensor/Variable methods `x.fill_diagonal_tensor(y)`, `x.fill_diagonal_tensor_(y)`,
`x.fill_diagonal_(v)` (METHODS, installed by operators.py)."""

from __future__ import annotations


import numpy as np

from .. import dtypes
from ..dispatch import apply_op, dtype_of, inplace_of, ndim, out
from ..errors import BuildError, Where
from .manip_shape import signed_like

__all__: list[str] = []


def _where(fn: str) -> Where:
    return Where(op_type=fn)


def fill_diagonal_tensor(x, y, offset: int = 0, dim1: int = 0, dim2: int = 1,
                         name: str | None = None):
    """x with its (dim1, dim2) diagonal at offset replaced by y (op `fill_diagonal_tensor`).

    Example:
        >>> z = x.fill_diagonal_tensor(d)
    """
    n = ndim(x)
    if n < 2 or not (-n <= dim1 < n and -n <= dim2 < n) or dim1 % n == dim2 % n:
        raise BuildError(f"fill_diagonal_tensor: dim1 {dim1} and dim2 {dim2} must be two "
                         f"different dims of a tensor of at least 2 dims",
                         _where("fill_diagonal_tensor"))
    return out("fill_diagonal_tensor", {"X": x, "Y": y},
               {"offset": int(offset), "dim1": int(dim1), "dim2": int(dim2)}, name=name)


def _with_diagonal(x, value, offset: int = 0, wrap: bool = False, name: str | None = None):
    """x with value on its main diagonal (all dims equal, or a tall matrix with wrap): ops
    assign_value (the diagonal's mask), fill_constant, expand_v2 and where."""
    shape = list(x.shape)
    if len(shape) < 2 or (len(shape) > 2 and len(set(shape)) != 1):
        raise BuildError("fill_diagonal_: x must be a matrix or have all dims equal",
                         _where("fill_diagonal_"))
    mask = np.zeros(shape, bool)
    if len(shape) == 2:
        rows, cols = shape
        if wrap and rows > cols:  # numpy's wrap: the diagonal restarts every cols + 1 rows
            flat = np.arange(0, rows * cols, cols + 1)
            r, c = flat // cols, flat % cols + int(offset)
        else:
            r = np.arange(rows)
            c = r + int(offset)
        keep = (c >= 0) & (c < cols)
        mask[r[keep], c[keep]] = True
    else:
        mask[tuple(np.arange(shape[0]) for _ in shape)] = True
    dt = np.dtype(dtype_of(x))
    constant = apply_op("assign_value", {}, {"shape": list(mask.shape), "dtype": 0,
                                             "values": [bool(v) for v in mask.ravel()]},
                        like=x, stem="assign")["Out"]
    fill = apply_op("fill_constant", {}, {"shape": [], "value": float(value),
                                          "dtype": dtypes.to_code(dt),
                                          "str_value": str(float(value))}, like=x)["Out"]
    fill = out("expand_v2", {"X": fill}, {"shape": shape})
    return out("where", {"Condition": constant, "X": fill, "Y": x}, name=name)


fill_diagonal_ = signed_like(inplace_of(_with_diagonal, "fill_diagonal_"), _with_diagonal)
fill_diagonal_tensor_ = signed_like(inplace_of(fill_diagonal_tensor, "fill_diagonal_tensor_"),
                                    fill_diagonal_tensor)
METHODS = {"fill_diagonal_tensor": fill_diagonal_tensor,
           "fill_diagonal_tensor_": fill_diagonal_tensor_, "fill_diagonal_": fill_diagonal_}
