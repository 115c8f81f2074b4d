"""Search, sort and select: `pyir.argmax`, `pyir.sort`, `pyir.topk`, `pyir.where`,
`pyir.unique`, ... (Paddle's `paddle.tensor.search`). Each function is one dispatch call (or
a few), static and eager alike."""

from __future__ import annotations

import numbers
from collections import namedtuple

import numpy as np

from .. import dtypes
from .. import dispatch
from ..dispatch import apply_op, constant, dtype_of, inplace_of, ndim
from ..eager import Tensor
from ..errors import BuildError, Where
from ..framework import Variable
from .creation import fill_attrs
from .manipulation import cast

__all__ = [
    "argmax", "argmin", "argsort", "sort", "msort", "topk", "kthvalue", "mode", "where",
    "where_", "nonzero", "argwhere", "masked_select", "index_select", "index_sample",
    "searchsorted", "bucketize", "unique", "unique_consecutive",
]

# Paddle names of this family pyir leaves out, with the reason (pyir/unsupported.py).
UNSUPPORTED: dict[str, str] = {}

TopKRetType = namedtuple("TopKRetType", ["values", "indices"])


def refuse_out(out_arg, function: str) -> None:
    """Paddle's keyword `out=` (write into a given tensor) is not supported: say so."""
    if out_arg is not None:
        raise BuildError("out= is not supported by pyir; use the returned tensor",
                         Where(op_type=function))


def _index_dtype(dtype, function: str) -> int:
    code = dtypes.to_code(dtypes.to_numpy(dtype))
    if code not in (dtypes.to_code("int32"), dtypes.to_code("int64")):
        raise BuildError(f"dtype must be int32 or int64, got {dtype!r}",
                         Where(op_type=function))
    return code


def _axis(axis, x, function: str) -> int:
    if not isinstance(axis, numbers.Integral):
        raise BuildError(f"axis must be an int, got {axis!r}", Where(op_type=function))
    n = max(ndim(x), 1)
    if not -n <= axis < n:
        raise BuildError(f"axis {axis} is out of range for a {ndim(x)}-D tensor",
                         Where(op_type=function))
    return int(axis)


# --- arg extremes -------------------------------------------------------------------------------
def _arg_extreme(op_type: str, public: str, word: str):
    def fn(x, axis=None, keepdim: bool = False, dtype="int64", name: str | None = None):
        code = _index_dtype(dtype, public)
        attrs = {"axis": 0 if axis is None else _axis(axis, x, public),
                 "keepdims": bool(keepdim), "flatten": axis is None, "dtype": code}
        return dispatch.out(op_type, {"X": x}, attrs, name=name, stem=public)

    fn.__name__ = fn.__qualname__ = public
    fn.__doc__ = f"""Index of the first {word} along `axis` (of the flattened x when axis is
    None), op `{op_type}`; ties give the first index.

    Example:
        >>> idx = pyir.{public}(x, axis=1)
    """
    return fn


argmax = _arg_extreme("arg_max", "argmax", "maximum")
argmin = _arg_extreme("arg_min", "argmin", "minimum")


# --- sorting ------------------------------------------------------------------------------------
def _argsort_op(x, axis, descending, stable, name, stem):
    return apply_op("argsort", {"X": x}, {"axis": _axis(axis, x, stem),
                                          "descending": bool(descending),
                                          "stable": bool(stable)}, name=name, stem=stem)


def argsort(x, axis: int = -1, descending: bool = False, stable: bool = False,
            name: str | None = None):
    """The indices that sort x along axis (op `argsort`); equal values keep their order.

    Example:
        >>> order = pyir.argsort(x, descending=True)
    """
    return _argsort_op(x, axis, descending, stable, name, "argsort")["Indices"]


def sort(x, axis: int = -1, descending: bool = False, stable: bool = False,
         name: str | None = None):
    """x sorted along axis (op `argsort`, its Out).

    Example:
        >>> y = pyir.sort(x, axis=0)
    """
    return _argsort_op(x, axis, descending, stable, name, "sort")["Out"]


def msort(input, *, out=None):  # noqa: A002 - Paddle's name
    """input sorted along its first axis: sort(input, axis=0).

    Example:
        >>> y = pyir.msort(x)
    """
    refuse_out(out, "msort")
    return sort(input, axis=0)


def topk(x, k, axis=None, largest: bool = True, sorted: bool = True,  # noqa: A002
         name: str | None = None, *, out=None):
    """The k largest (smallest) values along axis and their indices (op `top_k_v2`); ties
    give the first index first. k may be an int tensor of one element.

    Example:
        >>> values, indices = pyir.topk(x, 2)
    """
    refuse_out(out, "topk")
    axis = -1 if axis is None else _axis(axis, x, "topk")
    attrs = {"axis": axis, "largest": bool(largest), "sorted": bool(sorted)}
    inputs = {"X": x}
    if isinstance(k, (Variable, Tensor)):
        inputs["K"] = k
        attrs["k"] = 1
    elif isinstance(k, numbers.Integral):
        size = x.shape[axis] if ndim(x) else 1
        if k < 0 or (size >= 0 and k > size):
            raise BuildError(f"k must be in [0, {size}] (the size of axis {axis}), got "
                             f"{k}", Where(op_type="topk"))
        attrs["k"] = int(k)
    else:
        raise BuildError(f"k must be an int or an int tensor, got {k!r}",
                         Where(op_type="topk"))
    result = apply_op("top_k_v2", inputs, attrs, name=name)
    return TopKRetType(result["Out"], result["Indices"])


def kthvalue(x, k: int, axis=None, keepdim: bool = False, name: str | None = None):
    """The k-th smallest value along axis (k from 1) and its index (op `kthvalue`).

    Example:
        >>> value, index = pyir.kthvalue(x, 2, axis=1)
    """
    axis = -1 if axis is None else _axis(axis, x, "kthvalue")
    size = x.shape[axis] if ndim(x) else 1
    if not isinstance(k, numbers.Integral) or k < 1 or (size >= 0 and k > size):
        raise BuildError(f"k must be an int in [1, {size}], got {k!r}",
                         Where(op_type="kthvalue"))
    result = apply_op("kthvalue", {"X": x}, {"k": int(k), "axis": axis,
                                             "keepdim": bool(keepdim)}, name=name)
    return result["Out"], result["Indices"]


def mode(x, axis: int = -1, keepdim: bool = False, name: str | None = None):
    """The most frequent value along axis (the smallest of equally frequent ones) and the
    last index holding it (op `mode`).

    Example:
        >>> value, index = pyir.mode(x)
    """
    result = apply_op("mode", {"X": x}, {"axis": _axis(axis, x, "mode"),
                                         "keepdim": bool(keepdim)}, name=name)
    return result["Out"], result["Indices"]


# --- where, nonzero, masks, index selection -------------------------------------------------------
def _scalar_tensor(value, dtype, like):
    """A 0-D constant in `dtype`, in the mode of `like`."""
    return constant(dispatch.out("fill_constant", {}, fill_attrs([], value, dtype), like=like))


def where(condition, x=None, y=None, name: str | None = None, *, out=None):
    """x where condition else y, broadcast (op `where`); where(condition) alone is
    nonzero(condition, as_tuple=True). x or y may be Python scalars.

    Example:
        >>> z = pyir.where(x > 0, x, 0.0)
    """
    refuse_out(out, "where")
    if x is None and y is None:
        return nonzero(condition, as_tuple=True)
    if x is None or y is None:
        raise BuildError("give both x and y, or neither (then it is nonzero(condition, "
                         "as_tuple=True))", Where(op_type="where"))
    tensors = [v for v in (x, y) if isinstance(v, (Variable, Tensor))]
    dtype = dtype_of(tensors[0]) if tensors else np.dtype(np.float32)
    if not isinstance(x, (Variable, Tensor)):
        x = _scalar_tensor(x, dtype, condition)
    if not isinstance(y, (Variable, Tensor)):
        y = _scalar_tensor(y, dtype, condition)
    condition, x, y = _same_shape_operands(condition, x, y)
    return dispatch.out("where", {"Condition": condition, "X": x, "Y": y}, name=name)


def _zeros_like(x, dtype):
    return dispatch.out("fill_any_like", {"X": x},
                        {"value": 0.0, "dtype": dtypes.to_code(dtype)}, stem="full_like")


def _add(x, y):
    return dispatch.out("elementwise_add", {"X": x, "Y": y}, {"axis": -1})


def _same_shape_operands(condition, x, y):
    """Paddle's legacy `where` op takes operands of one shape: broadcast them as Paddle's
    `where` does, by adding a zero tensor of the broadcast shape (fill_any_like,
    elementwise_add, cast)."""
    if list(condition.shape) == list(x.shape) == list(y.shape):
        return condition, x, y
    dtype = dtype_of(x)
    zeros_x, zeros_y = _zeros_like(x, dtype), _zeros_like(y, dtype)
    zeros_condition = cast(_zeros_like(condition, np.bool_), dtype)
    as_number = cast(condition, dtype)
    zeros = _add(_add(zeros_x, zeros_y), zeros_condition)
    x, y = _add(x, zeros), _add(y, zeros)
    return cast(_add(as_number, zeros), "bool"), x, y


def _where_into(x, condition, y, name=None):
    return where(condition, x, y, name)


_where_into_x = inplace_of(_where_into, "where_")


def where_(condition, x=None, y=None, name: str | None = None):
    """In-place where: x = where(condition, x, y), returns x (static: an `assign` into x).

    Example:
        >>> pyir.where_(mask, x, 0.0)
    """
    if not isinstance(x, (Variable, Tensor)):
        raise BuildError("x must be a tensor (the result is written into it)",
                         Where(op_type="where_"))
    return _where_into_x(x, condition, y, name)


def nonzero(x, as_tuple: bool = False, *, out=None):
    """The coordinates of x's nonzero elements, [N, ndim] int64 (op `where_index`); with
    as_tuple, one 1-D tensor per dim (a `slice` of each column).

    Example:
        >>> rows, cols = pyir.nonzero(x, as_tuple=True)
    """
    refuse_out(out, "nonzero")
    coords = dispatch.out("where_index", {"Condition": x})
    if not as_tuple:
        return coords
    return tuple(dispatch.out("slice", {"Input": coords},
                                  {"axes": [1], "starts": [i], "ends": [i + 1],
                                   "infer_flags": [1], "decrease_axis": [1]})
                 for i in range(max(ndim(x), 1)))


def argwhere(input):  # noqa: A002 - Paddle's name
    """The coordinates of input's nonzero elements, [N, ndim] int64 (op `where_index`).

    Example:
        >>> coords = pyir.argwhere(x)
    """
    return dispatch.out("where_index", {"Condition": input})


def masked_select(x, mask, name: str | None = None, *, out=None):
    """The elements of x where mask (broadcast to x) is true, as a 1-D tensor (op
    `masked_select`).

    Example:
        >>> picked = pyir.masked_select(x, x > 0)
    """
    refuse_out(out, "masked_select")
    return dispatch.out("masked_select", {"X": x, "Mask": mask}, name=name, slot="Y")


def index_select(x, index, axis: int = 0, name: str | None = None, *, out=None):
    """The entries of x at `index` along axis (op `index_select`, attribute dim).

    Example:
        >>> rows = pyir.index_select(x, idx, axis=0)
    """
    refuse_out(out, "index_select")
    return dispatch.out("index_select", {"X": x, "Index": index},
                            {"dim": _axis(axis, x, "index_select")}, name=name)


def index_sample(x, index):
    """out[i, j] = x[i, index[i, j]] for 2-D x and index (op `index_sample`).

    Example:
        >>> picked = pyir.index_sample(x, idx)
    """
    if ndim(x) != 2 or ndim(index) != 2:
        raise BuildError(f"x and index must be 2-D, got {ndim(x)}-D and "
                         f"{ndim(index)}-D", Where(op_type="index_sample"))
    return dispatch.out("index_sample", {"X": x, "Index": index})


# --- sorted search, unique ----------------------------------------------------------------------
def searchsorted(sorted_sequence, values, out_int32: bool = False, right: bool = False,
                 name: str | None = None, *, side: str | None = None, out=None, sorter=None):
    """Where values would go into the sorted last axis of sorted_sequence (op
    `searchsorted`); side="right" is right=True; sorter sorts an unsorted sequence first.

    Example:
        >>> positions = pyir.searchsorted(edges, x)
    """
    refuse_out(out, "searchsorted")
    if side is not None:
        if side not in ("left", "right"):
            raise BuildError(f"side must be 'left' or 'right', got {side!r}",
                             Where(op_type="searchsorted"))
        if right and side == "left":
            raise BuildError("right=True contradicts side='left'",
                             Where(op_type="searchsorted"))
        right = side == "right"
    if sorter is not None:
        sorted_sequence = dispatch.out(
            "take_along_axis", {"Input": sorted_sequence, "Index": sorter},
            {"Axis": ndim(sorted_sequence) - 1}, slot="Result")
    return dispatch.out("searchsorted",
                            {"SortedSequence": sorted_sequence, "Values": values},
                            {"out_int32": bool(out_int32), "right": bool(right)}, name=name)


def bucketize(x, sorted_sequence, out_int32: bool = False, right: bool = False,
              name: str | None = None, *, out=None):
    """The bucket of each x in the 1-D sorted_sequence (op `searchsorted`).

    Example:
        >>> buckets = pyir.bucketize(x, edges)
    """
    refuse_out(out, "bucketize")
    if ndim(sorted_sequence) != 1:
        raise BuildError(f"sorted_sequence must be 1-D, got {ndim(sorted_sequence)}"
                         f"-D (searchsorted takes N-D sequences)", Where(op_type="bucketize"))
    return searchsorted(sorted_sequence, x, out_int32, right, name)


def _unique_axis(axis, x, function):
    return [] if axis is None else [_axis(axis, x, function)]


def unique(x, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis=None, dtype="int64", sorted: bool = True,  # noqa: A002
           name: str | None = None):
    """The distinct elements of x (flattened, or the distinct slices along axis), sorted;
    optionally the first index of each, the inverse map and the counts (op `unique`).

    Example:
        >>> values, counts = pyir.unique(x, return_counts=True)
    """
    attrs = {"return_index": bool(return_index), "return_inverse": bool(return_inverse),
             "return_counts": bool(return_counts), "axis": _unique_axis(axis, x, "unique"),
             "dtype": _index_dtype(dtype, "unique"), "is_sorted": bool(sorted)}
    result = apply_op("unique", {"X": x}, attrs, name=name)
    picked = [result["Out"]] + [result[slot] for slot, wanted in
                                (("Indices", return_index), ("Index", return_inverse),
                                 ("Counts", return_counts)) if wanted]
    return picked[0] if len(picked) == 1 else tuple(picked)


def unique_consecutive(x, return_inverse: bool = False, return_counts: bool = False, axis=None,
                       dtype="int64", name: str | None = None):
    """x with runs of equal neighbours collapsed (flattened, or slices along axis);
    optionally the inverse map and the run lengths (op `unique_consecutive`).

    Example:
        >>> values, counts = pyir.unique_consecutive(x, return_counts=True)
    """
    attrs = {"return_inverse": bool(return_inverse), "return_counts": bool(return_counts),
             "axis": _unique_axis(axis, x, "unique_consecutive"),
             "dtype": _index_dtype(dtype, "unique_consecutive")}
    result = apply_op("unique_consecutive", {"X": x}, attrs, name=name)
    picked = [result["Out"]] + [result[slot] for slot, wanted in
                                (("Index", return_inverse), ("Counts", return_counts)) if wanted]
    return picked[0] if len(picked) == 1 else tuple(picked)
