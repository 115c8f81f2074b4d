"""Gathers, scatters and masks: `pyir.gather`, `pyir.scatter`, `pyir.take_along_axis`,
`pyir.put_along_axis`, `pyir.index_put`, `pyir.masked_fill`, `pyir.slice_scatter`,
`pyir.diagonal`, ... (part of Paddle's `paddle.tensor.manipulation`; exported through
`pyir/tensor/manipulation.py`, which also makes the in-place variants named in INPLACE)."""

from __future__ import annotations

import numbers

import numpy as np

from .. import dtypes
from ..dispatch import apply_op, dtype_of, ints, ndim, out
from ..errors import BuildError, Where
from .manip_shape import TENSORS, assign, cast, flatten, reshape, transpose
from .manip_join import _axis

__all__ = [
    "gather", "gather_nd", "scatter", "scatter_nd", "scatter_nd_add", "scatter_add",
    "scatter_reduce", "put_along_axis", "take_along_axis", "take_along_dim", "take",
    "index_add", "index_fill", "index_put", "masked_fill", "masked_scatter", "slice_scatter",
    "select_scatter", "diagonal_scatter", "diagonal",
]

# Functions whose in-place variant (`<name>_`) Paddle has; manipulation.py makes them.
INPLACE = ["scatter_", "scatter_add_", "index_add_", "index_fill_", "index_put_",
           "masked_fill_", "masked_scatter_", "put_along_axis_"]  # put_along_axis_: a method


def _where(fn: str) -> Where:
    return Where(op_type=fn)


def _index_tensor(index, like, fn: str):
    """An integer index tensor (a list or array becomes a constant, op assign_value)."""
    if not isinstance(index, TENSORS):
        index = assign(np.asarray(index, np.int64), output=None) if not isinstance(
            like, TENSORS) else _constant(np.asarray(index), like)
    if np.dtype(dtype_of(index)).kind not in "iu":
        raise BuildError(f"{fn}: the index must hold integers, got {dtype_of(index)}",
                         _where(fn))
    return index


def _constant(array: np.ndarray, like):
    """A numpy array as a constant of like's mode (op assign_value)."""
    array = array.astype(np.int64) if array.dtype.kind in "iu" else array
    kind = bool if array.dtype == np.bool_ else int if array.dtype.kind in "iu" else float
    attrs = {"shape": list(array.shape), "dtype": dtypes.to_code(array.dtype),
             "values": [kind(v) for v in array.ravel()]}
    return apply_op("assign_value", {}, attrs, like=like, stem="assign")["Out"]


def _value_like(value, x):
    """A Python number as a 0-D tensor of x's dtype (op fill_constant), or the tensor."""
    if isinstance(value, TENSORS):
        return value
    dt = np.dtype(dtype_of(x))
    attrs = {"shape": [], "value": float(value), "dtype": dtypes.to_code(dt),
             "str_value": str(bool(value)).lower() if dt == np.bool_ else
             str(int(value)) if dt.kind in "iu" else str(float(value))}
    return apply_op("fill_constant", {}, attrs, like=x, stem="full")["Out"]


# --- gathers --------------------------------------------------------------------------------
def gather(x, index, axis=None, name: str | None = None):
    """Entries of x along `axis` (0 when None) picked by a 1-D `index` (op `gather`).

    Example:
        >>> rows = pyir.gather(x, idx)
    """
    if isinstance(axis, TENSORS):
        return out("gather", {"X": x, "Index": index, "Axis": axis}, {"axis": 0}, name=name)
    axis = 0 if axis is None else _axis(x, axis, "gather")
    return out("gather", {"X": x, "Index": _index_tensor(index, x, "gather")}, {"axis": axis},
               name=name)


def gather_nd(x, index, name: str | None = None):
    """x at the coordinates in index's last dim (op `gather_nd`).

    Example:
        >>> y = pyir.gather_nd(x, pyir.to_tensor([[0, 1], [1, 2]]))
    """
    index = _index_tensor(index, x, "gather_nd")
    if index.shape[-1] > ndim(x):
        raise BuildError(f"gather_nd: index's last dim ({index.shape[-1]}) exceeds x's "
                         f"{ndim(x)} dims", _where("gather_nd"))
    return out("gather_nd", {"X": x, "Index": index}, name=name)


def take_along_axis(arr, indices, axis: int, broadcast: bool = True):
    """arr's entries along `axis` at `indices` (op `take_along_axis`); with broadcast, the
    other dims of indices and arr are broadcast first (ops expand_v2), as in Paddle.

    Example:
        >>> y = pyir.take_along_axis(x, idx, axis=1)
    """
    if ndim(arr) != ndim(indices):
        raise BuildError("take_along_axis: indices and arr must have the same number of dims",
                         _where("take_along_axis"))
    axis = _axis(arr, axis, "take_along_axis")
    if broadcast:
        shape = [0 if 0 in (a, i) else max(a, i) for a, i in zip(arr.shape, indices.shape)]
        shape[axis] = indices.shape[axis]
        indices = _expand(indices, shape)
        shape[axis] = arr.shape[axis]
        arr = _expand(arr, shape)
    return out("take_along_axis", {"Input": arr, "Index": indices}, {"Axis": axis},
               slot="Result")


def _expand(x, shape):
    return out("expand_v2", {"X": x}, {"shape": list(shape)}, stem="expand")


def take_along_dim(arr, indices, axis: int, broadcast: bool = True):
    """take_along_axis(arr, indices, axis, broadcast).

    Example:
        >>> y = pyir.take_along_dim(x, idx, axis=1)
    """
    return take_along_axis(arr, indices, axis, broadcast)


def take(x, index, mode: str = "raise", name: str | None = None):
    """x's flattened entries at `index`, shaped like index; mode 'raise' lets negative
    indices count from the end, 'wrap' wraps, 'clip' clamps (ops as Paddle composes them).

    Example:
        >>> y = pyir.take(x, pyir.to_tensor([0, -1]))
    """

    if mode not in ("raise", "wrap", "clip"):
        raise BuildError(f"take: mode must be 'raise', 'wrap' or 'clip', got {mode!r}",
                         _where("take"))
    index = _index_tensor(index, x, "take")
    flat_x, flat_i = flatten(x), flatten(index)
    size = int(np.prod(x.shape)) if all(d >= 0 for d in x.shape) else -1
    if size < 0:
        raise BuildError("take: x needs a known shape", _where("take"))
    if mode == "raise":
        flat_i = _where_op(flat_i < 0, flat_i + size, flat_i)
    elif mode == "wrap":
        flat_i = _where_op(flat_i < 0, flat_i % size, flat_i)
        flat_i = _where_op(flat_i >= size, flat_i % size, flat_i)
    elif size > 0:
        flat_i = out("clip", {"X": flat_i}, {"min": 0.0, "max": float(size - 1)})
    picked = out("index_select", {"X": flat_x, "Index": flat_i}, {"dim": 0})
    return reshape(picked, list(index.shape), name=name)


def _where_op(condition, x, y):
    return out("where", {"Condition": condition, "X": x, "Y": y})


def diagonal(x, offset: int = 0, axis1: int = 0, axis2: int = 1, name: str | None = None):
    """The diagonal of the (axis1, axis2) planes of x at `offset`, as a last dim (op
    `diagonal`).

    Example:
        >>> d = pyir.diagonal(x, offset=1)
    """
    a1, a2 = _axis(x, axis1, "diagonal"), _axis(x, axis2, "diagonal")
    if a1 == a2:
        raise BuildError(f"diagonal: axis1 ({axis1}) and axis2 ({axis2}) name the same dim",
                         _where("diagonal"))
    return out("diagonal", {"Input": x}, {"offset": int(offset), "axis1": a1, "axis2": a2},
               name=name)


# --- scatters -------------------------------------------------------------------------------
def scatter(x, index, updates, overwrite: bool = True, name: str | None = None):
    """x with rows `index` replaced by `updates` (or accumulated when not overwrite; rows
    written by several updates are then their sum), op `scatter`.

    Example:
        >>> y = pyir.scatter(x, idx, rows)
    """
    index = _index_tensor(index, x, "scatter")
    return out("scatter", {"X": x, "Ids": index, "Updates": updates},
               {"overwrite": bool(overwrite)}, name=name)


def scatter_nd_add(x, index, updates, name: str | None = None):
    """x with updates added at the coordinates in index's last dim (op `scatter_nd_add`).

    Example:
        >>> y = pyir.scatter_nd_add(x, idx, upd)
    """
    index = _index_tensor(index, x, "scatter_nd_add")
    return out("scatter_nd_add", {"X": x, "Index": index, "Updates": updates}, name=name)


def scatter_nd(index, updates, shape, name: str | None = None):
    """A zero tensor of `shape` with updates added at index (ops fill_constant and
    scatter_nd_add).

    Example:
        >>> y = pyir.scatter_nd(idx, upd, [3, 4])
    """
    dt = np.dtype(dtype_of(updates))
    attrs = {"shape": ints(list(shape), "shape", "scatter_nd"), "value": 0.0,
             "str_value": "0" if dt.kind in "iub" else "0.0", "dtype": dtypes.to_code(dt)}
    zeros = apply_op("fill_constant", {}, attrs, like=updates)["Out"]
    return scatter_nd_add(zeros, index, updates, name=name)


def put_along_axis(arr, indices, values, axis: int, reduce: str = "assign",
                   include_self: bool = True, broadcast: bool = True):
    """arr with `values` written (reduce='assign') or combined ('add', 'mul') at `indices`
    along `axis` (op `put_along_axis`); with broadcast, indices and values are broadcast to
    arr's other dims first (ops expand_v2).

    Example:
        >>> y = pyir.put_along_axis(x, idx, 0.0, axis=1)
    """
    if ndim(arr) != ndim(indices):
        raise BuildError("put_along_axis: indices and arr must have the same number of dims",
                         _where("put_along_axis"))
    axis = _axis(arr, axis, "put_along_axis")
    if not isinstance(values, TENSORS):
        values = _constant(np.asarray(values, dtype_of(arr)), arr) if np.ndim(values) else \
            _scalar_value(values, arr)
    if broadcast:
        shape = list(arr.shape)
        shape[axis] = indices.shape[axis]
        if all(a >= i for a, i in zip(arr.shape, indices.shape)):
            indices = _expand(indices, shape)
            values = _expand(values, shape)
        else:
            values = _expand(values, list(indices.shape))
    return out("put_along_axis", {"Input": arr, "Index": indices, "Value": values},
               {"Axis": axis, "Reduce": reduce, "Include_self": bool(include_self)},
               slot="Result")


def _scalar_value(value, like):
    """A Python scalar as Paddle's put_along_axis makes it: a 0-D assign_value."""
    dt = np.dtype(dtype_of(like))
    kind = int if dt.kind in "iu" else float
    attrs = {"shape": [], "dtype": dtypes.to_code(dt), "values": [kind(value)]}
    return apply_op("assign_value", {}, attrs, like=like, stem="assign")["Out"]


def scatter_add(input, dim: int, index, src):  # noqa: A002
    """input with src added at index along dim (op put_along_axis, Reduce='add').

    Example:
        >>> y = pyir.scatter_add(x, 1, idx, src)
    """
    return put_along_axis(input, index, src, dim, "add", True, broadcast=False)


_SCATTER_REDUCE = {"sum": "add", "prod": "multiply", "mean": "mean", "amin": "amin",
                   "amax": "amax"}


def scatter_reduce(input, dim: int, index, src, reduce: str, *,  # noqa: A002
                   include_self: bool = True):
    """input with src combined at index along dim by `reduce` (op put_along_axis).

    Example:
        >>> y = pyir.scatter_reduce(x, 0, idx, src, "sum")
    """
    if reduce not in _SCATTER_REDUCE:
        raise BuildError(f"scatter_reduce: reduce must be one of {list(_SCATTER_REDUCE)}, got "
                         f"{reduce!r}", _where("scatter_reduce"))
    return put_along_axis(input, index, src, dim, _SCATTER_REDUCE[reduce], include_self,
                          broadcast=False)


def index_add(x, index, axis: int, value, alpha=1, name: str | None = None):
    """x with value added at `index` along `axis` (op `index_add`; alpha scales value).

    Example:
        >>> y = pyir.index_add(x, idx, 0, rows)
    """
    axis = _axis(x, axis, "index_add")
    if alpha != 1:
        value = out("scale", {"X": value}, {"scale": float(alpha), "bias": 0.0,
                                           "bias_after_scale": True})
    return out("index_add", {"X": x, "Index": _index_tensor(index, x, "index_add"),
                             "AddValue": value}, {"axis": axis}, name=name)


def index_put(x, indices, value, accumulate: bool = False, name: str | None = None):
    """x with x[indices] = value (or += with accumulate), numpy's advanced indexing with a
    tuple of index tensors or one bool mask (op `index_put`).

    Example:
        >>> y = pyir.index_put(x, (rows, cols), pyir.to_tensor(0.0))
    """
    if not isinstance(indices, (list, tuple)) or not indices:
        raise BuildError("index_put: indices must be a non-empty tuple of tensors",
                         _where("index_put"))
    items = [i if isinstance(i, TENSORS) else _constant(np.asarray(i), x) for i in indices]
    for item in items:
        if np.dtype(dtype_of(item)).kind not in "iub":
            raise BuildError(f"index_put: index tensors must be integer or bool, got "
                             f"{dtype_of(item)}", _where("index_put"))
    value = _value_like(value, x)
    return out("index_put", {"x": x, "indices": items, "value": value},
               {"accumulate": bool(accumulate)}, name=name, slot="out")


def index_fill(x, index, axis: int, value, name: str | None = None):
    """x with the slices at `index` along `axis` set to `value` (ops transpose2 and
    index_put, as Paddle composes it).

    Example:
        >>> y = pyir.index_fill(x, idx, 0, -1.0)
    """
    axis = _axis(x, axis, "index_fill")
    n = ndim(x)
    perm = [axis] + [a for a in range(n) if a != axis]
    moved = transpose(x, perm) if axis else x
    filled = index_put(moved, (_index_tensor(index, x, "index_fill"),), value)
    return transpose(filled, list(np.argsort(perm))) if axis else filled


def masked_fill(x, mask, value, name: str | None = None):
    """x with `value` where the bool `mask` (broadcast) is True (ops fill_constant for a
    number, cast and masked_fill, as Paddle emits).

    Example:
        >>> y = pyir.masked_fill(x, x < 0, 0.0)
    """
    if dtype_of(mask) != np.bool_:
        raise BuildError(f"masked_fill: mask must be bool, got {dtype_of(mask)}",
                         _where("masked_fill"))
    value = _value_like(value, x)
    mask = cast(mask, "bool")
    return out("masked_fill", {"x": x, "mask": mask, "value": value}, name=name, slot="out")


def masked_scatter(x, mask, value, name: str | None = None):
    """x with the True places of `mask` (broadcast) filled, in order, from value's elements
    (ops cumsum, gather and where).

    Example:
        >>> y = pyir.masked_scatter(x, mask, src)
    """
    if dtype_of(mask) != np.bool_:
        raise BuildError(f"masked_scatter: mask must be bool, got {dtype_of(mask)}",
                         _where("masked_scatter"))
    shape = _broadcast_dims(mask.shape, x.shape)  # broadcast_tensors needs one dtype
    mask = mask if list(mask.shape) == shape else _expand(mask, shape)
    x = x if list(x.shape) == shape else _expand(x, shape)
    order = out("cumsum", {"X": flatten(cast(mask, "int64"))},
                {"axis": 0, "flatten": False, "exclusive": True, "reverse": False})
    picked = out("gather", {"X": flatten(value), "Index": order}, {"axis": 0})
    return out("where", {"Condition": mask, "X": reshape(picked, list(x.shape)), "Y": x},
               name=name)


def _broadcast_dims(a, b) -> list:
    """numpy's broadcast of two static shapes (-1 stays unknown)."""
    n = max(len(a), len(b))
    a, b = [1] * (n - len(a)) + list(a), [1] * (n - len(b)) + list(b)
    dims = []
    for p, q in zip(a, b):
        if p != q and 1 not in (p, q) and -1 not in (p, q):
            raise BuildError(f"shapes {a} and {b} do not broadcast", _where("masked_scatter"))
        dims.append(q if p == 1 else p if q == 1 else max(p, q))
    return dims


def _set_value(x, value, axes, starts, ends, steps, decrease=(), name=None, fn="set_value"):
    attrs = {"axes": list(axes), "starts": list(starts), "ends": list(ends),
             "steps": list(steps), "decrease_axes": list(decrease), "none_axes": [],
             "dtype": dtypes.to_code(dtype_of(x)), "values": [], "shape": []}
    return out("set_value", {"Input": x, "ValueTensor": value}, attrs, name=name, stem=fn)


def slice_scatter(x, value, axes, starts, ends, strides, name: str | None = None):
    """x with x[starts:ends:strides on axes] = value (op `set_value`).

    Example:
        >>> y = pyir.slice_scatter(x, v, [1], [0], [4], [2])
    """
    axes = ints(axes, "axes", "slice_scatter")
    lists = [ints(v, k, "slice_scatter") for k, v in
             (("starts", starts), ("ends", ends), ("strides", strides))]
    if any(len(v) != len(axes) for v in lists):
        raise BuildError("slice_scatter: axes, starts, ends and strides need the same length",
                         _where("slice_scatter"))
    return _set_value(x, value, axes, *lists, name=name, fn="slice_scatter")


def select_scatter(x, values, axis: int, index: int, name: str | None = None):
    """x with x[..., index, ...] (at `axis`) = values (op `set_value`).

    Example:
        >>> y = pyir.select_scatter(x, row, 0, 1)
    """
    axis = _axis(x, axis, "select_scatter")
    if not isinstance(index, numbers.Integral) or not -x.shape[axis] <= index < x.shape[axis]:
        raise BuildError(f"select_scatter: index {index!r} is out of range for dim {axis} of "
                         f"size {x.shape[axis]}", _where("select_scatter"))
    start = int(index) % x.shape[axis]
    return _set_value(x, values, [axis], [start], [start + 1], [1], [axis], name=name,
                      fn="select_scatter")


def diagonal_scatter(x, y, offset: int = 0, axis1: int = 0, axis2: int = 1,
                     name: str | None = None):
    """x with its (axis1, axis2) diagonal at `offset` replaced by y (op
    `fill_diagonal_tensor`; a 1-D y is reshaped to [1, n] first, as Paddle does).

    Example:
        >>> z = pyir.diagonal_scatter(x, d)
    """
    if ndim(x) < 2:
        raise BuildError("diagonal_scatter: x must be at least 2-D",
                         _where("fill_diagonal_tensor"))
    if ndim(y) == 1:
        y = reshape(y, [1, -1])
    return out("fill_diagonal_tensor", {"X": x, "Y": y},
               {"offset": int(offset), "dim1": int(axis1), "dim2": int(axis2)}, name=name)
