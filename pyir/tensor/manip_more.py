"""More of Paddle's manipulation functions: `pyir.unique`, `pyir.unique_consecutive`,
`pyir.block_diag`, `pyir.tensordot` (exported through `pyir/tensor/manipulation.py`) and the
Tensor/Variable methods `x.fill_diagonal_tensor(y)`, `x.fill_diagonal_tensor_(y)`,
`x.fill_diagonal_(v)` (METHODS, installed by operators.py)."""

from __future__ import annotations

import numbers

import numpy as np

from .. import dtypes
from ..dispatch import apply_op, dtype_of, inplace_of, ints, ndim, out, tensor_list
from ..errors import BuildError, Where
from .manip_join import concat
from .manip_shape import reshape, signed_like, transpose

__all__ = ["unique", "unique_consecutive", "block_diag", "tensordot"]


def _where(fn: str) -> Where:
    return Where(op_type=fn)


def _index_dtype(dtype, fn: str) -> int:
    dt = dtypes.to_numpy(dtype)
    if dt not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise BuildError(f"{fn}: dtype must be int32 or int64, got {dt}", _where(fn))
    return dtypes.to_code(dt)


def _axis_list(x, axis, fn: str) -> list:
    if axis is None:
        return []
    n = ndim(x)
    if not isinstance(axis, numbers.Integral) or not -n <= axis < n:
        raise BuildError(f"{fn}: axis {axis!r} is out of range for a {n}-D x", _where(fn))
    return [int(axis) % n]


def unique(x, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis=None, dtype="int64", sorted: bool = True,  # noqa: A002
           name: str | None = None):
    """The sorted distinct values of x (flattened, or its distinct slices along axis), op
    `unique`; with the flags also the first indices, the inverse map and the counts.

    Example:
        >>> values, counts = pyir.unique(x, return_counts=True)
    """
    attrs = {"dtype": _index_dtype(dtype, "unique"), "return_index": bool(return_index),
             "return_inverse": bool(return_inverse), "return_counts": bool(return_counts),
             "axis": _axis_list(x, axis, "unique"), "is_sorted": True}
    results = apply_op("unique", {"X": x}, attrs, name=name)
    picked = [results["Out"]] + [results[slot] for slot, wanted in (
        ("Indices", return_index), ("Index", return_inverse), ("Counts", return_counts))
        if wanted]
    return picked[0] if len(picked) == 1 else tuple(picked)


def unique_consecutive(x, return_inverse: bool = False, return_counts: bool = False,
                       axis=None, dtype="int64", name: str | None = None):
    """x with runs of equal values (or slices along axis) collapsed (op
    `unique_consecutive`); with the flags also the inverse map and the run lengths.

    Example:
        >>> values = pyir.unique_consecutive(x)
    """
    attrs = {"dtype": _index_dtype(dtype, "unique_consecutive"),
             "return_inverse": bool(return_inverse), "return_counts": bool(return_counts),
             "axis": _axis_list(x, axis, "unique_consecutive")}
    results = apply_op("unique_consecutive", {"X": x}, attrs, name=name)
    picked = [results["Out"]] + [results[slot] for slot, wanted in (
        ("Index", return_inverse), ("Counts", return_counts)) if wanted]
    return picked[0] if len(picked) == 1 else tuple(picked)


def block_diag(inputs, name: str | None = None):
    """The block-diagonal matrix of the given matrices (zero blocks from fill_constant, joined
    by concat, as Paddle builds it).

    Example:
        >>> m = pyir.block_diag([a, b])
    """
    items = tensor_list(inputs, "block_diag")
    mats = [reshape(t, [1, -1] if ndim(t) == 1 else [1, 1]) if ndim(t) < 2 else t
            for t in items]
    if any(ndim(t) != 2 or any(d < 0 for d in t.shape) for t in mats):
        raise BuildError("block_diag: expects matrices (or vectors / scalars) of known shape",
                         _where("block_diag"))
    dt = np.dtype(dtype_of(mats[0]))
    total_cols = sum(t.shape[1] for t in mats)
    rows, start = [], 0
    for t in mats:
        pieces = []
        for width, at in ((start, "left"), (total_cols - start - t.shape[1], "right")):
            if width:
                attrs = {"shape": [t.shape[0], width], "value": 0.0, "dtype": dtypes.to_code(dt),
                         "str_value": "0.0" if dt.kind == "f" else "0"}
                zero = apply_op("fill_constant", {}, attrs, like=t)["Out"]
                pieces.append((at, zero))
        row = [z for at, z in pieces if at == "left"] + [t] + \
            [z for at, z in pieces if at == "right"]
        rows.append(concat(row, axis=1) if len(row) > 1 else t)
        start += t.shape[1]
    return concat(rows, axis=0) if len(rows) > 1 else rows[0]


def tensordot(x, y, axes=2, name: str | None = None):
    """Sum of products over the given axes of x and y (ops transpose2, reshape2, matmul_v2):
    `axes` = n (x's last n dims with y's first n) or [x_axes, y_axes].

    Example:
        >>> z = pyir.tensordot(a, b, axes=[[1], [0]])
    """
    nx, ny = ndim(x), ndim(y)
    if isinstance(axes, numbers.Integral):
        if not 0 <= axes <= min(nx, ny):
            raise BuildError(f"tensordot: axes={axes} must be in [0, {min(nx, ny)}]",
                             _where("tensordot"))
        ax, ay = list(range(nx - axes, nx)), list(range(axes))
    elif isinstance(axes, (list, tuple)) and len(axes) == 2:
        ax = [a % nx for a in ints(axes[0], "axes", "tensordot")]
        ay = [a % ny for a in ints(axes[1], "axes", "tensordot")]
    else:
        raise BuildError(f"tensordot: axes must be an int or [x_axes, y_axes], got {axes!r}",
                         _where("tensordot"))
    if len(ax) != len(ay) or any(x.shape[a] != y.shape[b] for a, b in zip(ax, ay)):
        raise BuildError(f"tensordot: contracted dims differ: x {[x.shape[a] for a in ax]}, "
                         f"y {[y.shape[b] for b in ay]}", _where("tensordot"))
    free_x = [a for a in range(nx) if a not in ax]
    free_y = [b for b in range(ny) if b not in ay]
    inner = int(np.prod([x.shape[a] for a in ax]))
    left = reshape(transpose(x, free_x + ax) if free_x + ax != list(range(nx)) else x,
                   [-1, inner])
    right = reshape(transpose(y, ay + free_y) if ay + free_y != list(range(ny)) else y,
                    [inner, -1])
    product = out("matmul_v2", {"X": left, "Y": right}, {"trans_x": False, "trans_y": False})
    return reshape(product, [x.shape[a] for a in free_x] + [y.shape[b] for b in free_y],
                   name=name)


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
