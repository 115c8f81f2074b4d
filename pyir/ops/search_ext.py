"""Search and selection ops: `kthvalue`, `mode` (with gradients), `searchsorted`, `unique`,
`unique_consecutive`."""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..errors import PyirError
from ..registry import Attr, Example, Slot, VarSpec, register_op
from ..registry import AttrType as T
from ._helpers import default_grad, rand

_I64 = np.dtype(np.int64)


def _reduced_shape(shape, axis: int, keepdim: bool) -> tuple:
    if not shape:
        return ()
    axis %= len(shape)
    return tuple(1 if i == axis else d for i, d in enumerate(shape)) if keepdim else \
        tuple(d for i, d in enumerate(shape) if i != axis)


def _infer_select(ctx):
    x = ctx.input("X")
    shape = _reduced_shape(tuple(x.shape), ctx.attr("axis"), ctx.attr("keepdim"))
    return {"Out": VarSpec(shape, x.dtype), "Indices": VarSpec(shape, _I64)}


def _finish(values, indices, X, axis, keepdim):
    """Values and indices picked along `axis` (kept as size 1) as the op returns them."""
    if X.ndim == 0:
        return {"Out": X.copy(), "Indices": np.zeros((), np.int64)}
    if not keepdim:
        values, indices = np.squeeze(values, axis), np.squeeze(indices, axis)
    return {"Out": np.array(values, order="C"), "Indices": indices.astype(np.int64)}


def _scatter_picked(X, Indices, Out_grad, axis, keepdim):
    """dX = dOut at the picked positions along axis, zero elsewhere."""
    if X.ndim == 0:
        return np.asarray(Out_grad, X.dtype).reshape(())
    axis %= X.ndim
    idx = Indices if keepdim else np.expand_dims(Indices, axis)
    g = Out_grad if keepdim else np.expand_dims(Out_grad, axis)
    dx = np.zeros_like(X)
    np.put_along_axis(dx, idx, g, axis)
    return dx


# --- kthvalue -------------------------------------------------------------------------------------
_KTH_ATTRS = [Attr("k", T.INT, 1), Attr("axis", T.INT, -1), Attr("keepdim", T.BOOLEAN, False)]


def _kthvalue_expect(X, k=1, axis=-1, keepdim=False):
    rows = np.moveaxis(X, axis, -1)
    flat = rows.reshape(-1, rows.shape[-1])
    picks = [sorted(range(len(r)), key=lambda j, r=r: (r[j], j))[k - 1] for r in flat]
    idx = np.array(picks, np.int64).reshape(rows.shape[:-1])
    val = np.take_along_axis(rows, idx[..., None], -1)[..., 0]
    if keepdim:
        idx, val = np.expand_dims(idx, axis), np.expand_dims(val, axis)
    return {"Out": val, "Indices": idx}


@register_op(
    "kthvalue", inputs=["X"], outputs=["Out", "Indices"], attrs=_KTH_ATTRS, infer=_infer_select,
    grad=default_grad("kthvalue_grad", uses=["X", "Indices"], out_grads=["Out"]),
    doc="Out = the k-th smallest value along axis (k from 1), Indices = its position (ties: the "
        "first in a stable sort)",
    examples=[Example({"X": rand(3, 5)}, {"k": 2}, _kthvalue_expect),
              Example({"X": rand(4, 3, 2)}, {"k": 4, "axis": 0, "keepdim": True},
                      _kthvalue_expect),
              Example({"X": np.array([[1.0, 3.0, 2.0, 3.0]], np.float32)}, {"k": 3, "axis": 1},
                      _kthvalue_expect, grad=False),
              Example({"X": rand(5)}, {"k": 5}, _kthvalue_expect)],
)
def kthvalue(X, k, axis, keepdim):
    if X.ndim == 0:
        return _finish(X, None, X, axis, keepdim)
    n = X.shape[axis]
    if not 1 <= k <= n:
        raise PyirError(f"kthvalue: k must be in [1, {n}] (the size of axis {axis}), got {k}")
    order = np.argsort(X, axis=axis, kind="stable")
    idx = np.take(order, [k - 1], axis=axis)
    return _finish(np.take_along_axis(X, idx, axis), idx, X, axis, keepdim)


@register_op("kthvalue_grad", inputs=["X", "Indices", "Out@GRAD"], outputs=["X@GRAD"],
             attrs=_KTH_ATTRS, grad_of="kthvalue", doc="dX = dOut at Indices along axis")
def kthvalue_grad(X, Indices, Out_grad, k, axis, keepdim):
    return {"X@GRAD": _scatter_picked(X, Indices, Out_grad, axis, keepdim)}


# --- mode -----------------------------------------------------------------------------------------
_MODE_ATTRS = [Attr("axis", T.INT, -1), Attr("keepdim", T.BOOLEAN, False)]


def _mode_of(row: np.ndarray) -> tuple:
    """The most frequent value (the smallest among equally frequent ones) and its last index."""
    values, counts = np.unique(row, return_counts=True)
    value = values[np.argmax(counts)]
    return value, int(np.flatnonzero(row == value)[-1])


def _mode_expect(X, axis=-1, keepdim=False):
    rows = np.moveaxis(X, axis, -1)
    flat = rows.reshape(-1, rows.shape[-1])
    picked = [max(set(r.tolist()), key=lambda v, r=r: (r.tolist().count(v), -v)) for r in flat]
    last = [len(r) - 1 - r.tolist()[::-1].index(v) for r, v in zip(flat, picked)]
    val = np.array(picked, X.dtype).reshape(rows.shape[:-1])
    idx = np.array(last, np.int64).reshape(rows.shape[:-1])
    if keepdim:
        val, idx = np.expand_dims(val, axis), np.expand_dims(idx, axis)
    return {"Out": val, "Indices": idx}


@register_op(
    "mode", inputs=["X"], outputs=["Out", "Indices"], attrs=_MODE_ATTRS, infer=_infer_select,
    grad=default_grad("mode_grad", uses=["X", "Indices"], out_grads=["Out"]),
    doc="Out = the most frequent value along axis (the smallest of equally frequent ones), "
        "Indices = the last position holding it",
    examples=[Example({"X": np.array([[1, 2, 2, 3, 3], [5, 5, 4, 4, 1]], np.int64)}, {},
                      _mode_expect, grad=False),
              Example({"X": np.array([[1.0, 2.0], [2.0, 2.0], [1.0, 3.0]])},
                      {"axis": 0, "keepdim": True}, _mode_expect, grad=False),
              Example({"X": rand(3, 4)}, {"axis": 1}, _mode_expect),
              Example({"X": np.array([3, 1, 2, 3, 1], np.int64)}, {}, _mode_expect, grad=False)],
)
def mode(X, axis, keepdim):
    if X.ndim == 0:
        return _finish(X, None, X, axis, keepdim)
    rows = np.moveaxis(X, axis, -1)
    flat = rows.reshape(-1, rows.shape[-1])
    picked = [_mode_of(r) for r in flat]
    values = np.array([v for v, _ in picked], X.dtype).reshape(rows.shape[:-1])
    indices = np.array([i for _, i in picked], np.int64).reshape(rows.shape[:-1])
    ax = axis % X.ndim
    return _finish(np.expand_dims(values, ax), np.expand_dims(indices, ax), X, ax, keepdim)


@register_op("mode_grad", inputs=["X", "Indices", "Out@GRAD"], outputs=["X@GRAD"],
             attrs=_MODE_ATTRS, grad_of="mode", doc="dX = dOut at Indices along axis")
def mode_grad(X, Indices, Out_grad, axis, keepdim):
    return {"X@GRAD": _scatter_picked(X, Indices, Out_grad, axis, keepdim)}


# --- searchsorted ---------------------------------------------------------------------------------
def _searchsorted_expect(SortedSequence, Values, out_int32=False, right=False):
    """Counts the sequence entries before each value, in plain Python."""
    def count(row, v):
        return sum(1 for s in row if (s <= v if right else s < v))

    if SortedSequence.ndim == 1:
        out = [count(SortedSequence, v) for v in Values.reshape(-1)]
    else:
        rows = SortedSequence.reshape(-1, SortedSequence.shape[-1])
        vals = Values.reshape(len(rows), -1)
        out = [count(r, v) for r, vs in zip(rows, vals) for v in vs]
    return {"Out": np.array(out, np.int32 if out_int32 else np.int64).reshape(Values.shape)}


@register_op(
    "searchsorted", inputs=[Slot("SortedSequence", no_grad=True), Slot("Values", no_grad=True)],
    outputs=["Out"], attrs=[Attr("out_int32", T.BOOLEAN, False), Attr("right", T.BOOLEAN, False)],
    differentiable=False,
    infer=lambda ctx: {"Out": VarSpec(tuple(ctx.input("Values").shape),
                                      np.dtype(np.int32 if ctx.attr("out_int32") else np.int64))},
    doc="Out = where each value would be inserted into the sorted last axis of SortedSequence "
        "(before equal entries, or after them when right); a 1-D sequence serves every value",
    examples=[Example({"SortedSequence": np.array([1.0, 3.0, 5.0, 7.0], np.float32),
                       "Values": np.array([[3.0, 6.0], [0.0, 9.0]], np.float32)}, {},
                      _searchsorted_expect),
              Example({"SortedSequence": np.array([[1, 3, 5], [2, 4, 6]], np.int64),
                       "Values": np.array([[3, 6], [0, 4]], np.int64)},
                      {"right": True, "out_int32": True}, _searchsorted_expect)],
)
def searchsorted(SortedSequence, Values, out_int32, right):
    side = "right" if right else "left"
    dtype = np.int32 if out_int32 else np.int64
    if SortedSequence.ndim == 1:
        return {"Out": np.searchsorted(SortedSequence, Values, side=side).astype(dtype)}
    if SortedSequence.shape[:-1] != Values.shape[:-1]:
        raise PyirError(f"searchsorted: sorted_sequence {list(SortedSequence.shape)} and values "
                        f"{list(Values.shape)} must agree in all but the last dim (or the "
                        f"sequence must be 1-D)")
    seq = SortedSequence.reshape(-1, SortedSequence.shape[-1])
    vals = Values.reshape(len(seq), -1)
    out = np.stack([np.searchsorted(s, v, side=side) for s, v in zip(seq, vals)])
    return {"Out": out.reshape(Values.shape).astype(dtype)}


# --- unique, unique_consecutive -------------------------------------------------------------------
_UNIQUE_ATTRS = [Attr("return_index", T.BOOLEAN, False), Attr("return_inverse", T.BOOLEAN, False),
                 Attr("return_counts", T.BOOLEAN, False), Attr("axis", T.INTS, []),
                 Attr("dtype", T.INT, 3), Attr("is_sorted", T.BOOLEAN, False)]


def _infer_unique(ctx):
    x = ctx.input("X")
    index_dtype = dtypes.to_numpy(ctx.attr("dtype"))
    axis = ctx.attr("axis")
    if axis:
        ax = axis[0] % len(x.shape)
        out = tuple(-1 if i == ax else d for i, d in enumerate(x.shape))
        inverse = (x.shape[ax],)
    else:
        out = (-1,)
        inverse = (-1 if -1 in x.shape else int(np.prod(x.shape)),)
    return {"Out": VarSpec(out, x.dtype), "Indices": VarSpec((-1,), index_dtype),
            "Index": VarSpec(inverse, index_dtype), "Counts": VarSpec((-1,), index_dtype)}


def _unique_expect(X, axis=(), dtype=3, **_):
    """Plain Python: rows (or elements) deduplicated, sorted, with first index / inverse /
    counts."""
    items = [tuple(np.moveaxis(X, axis[0], 0)[i].reshape(-1)) for i in range(X.shape[axis[0]])] \
        if axis else [(v,) for v in X.reshape(-1)]
    keys = sorted(set(items))
    index_dtype = dtypes.to_numpy(dtype)
    out = {"Indices": np.array([items.index(k) for k in keys], index_dtype),
           "Index": np.array([keys.index(k) for k in items], index_dtype),
           "Counts": np.array([items.count(k) for k in keys], index_dtype)}
    if not axis:
        out["Out"] = np.array([k[0] for k in keys], X.dtype)
    return out


@register_op(
    "unique", inputs=["X"], outputs=["Out", "Indices", "Index", "Counts"], attrs=_UNIQUE_ATTRS,
    infer=_infer_unique, differentiable=False,
    doc="Out = the distinct elements of X (flattened; or the distinct slices along axis), "
        "sorted; Indices = first positions, Index = the inverse, Counts",
    examples=[Example({"X": np.array([3, 1, 2, 3, 1], np.int64)},
                      {"is_sorted": True, "return_index": True, "return_inverse": True,
                       "return_counts": True}, _unique_expect),
              Example({"X": np.array([[3, 1], [2, 3], [3, 1]], np.int32)},
                      {"is_sorted": True, "axis": [0], "dtype": 2}, lambda X, **a: {
                          **_unique_expect(X, [0], 2),
                          "Out": np.array([[2, 3], [3, 1]], np.int32)}),
              Example({"X": np.array([[2.5, 1.0], [2.5, -1.0]], np.float32)},
                      {"is_sorted": True}, _unique_expect)],
)
def unique(X, return_index, return_inverse, return_counts, axis, dtype, is_sorted):
    index_dtype = dtypes.to_numpy(dtype)
    ax = None
    if axis:
        if len(axis) != 1:
            raise PyirError(f"unique: axis must be one int, got {axis}")
        ax = axis[0] % X.ndim
    out, first, inverse, counts = np.unique(X, return_index=True, return_inverse=True,
                                            return_counts=True, axis=ax)
    # is_sorted=False sorts too: Paddle 3.3.1's CPU kernel returns sorted values either way.
    return {"Out": out, "Indices": first.astype(index_dtype),
            "Index": inverse.reshape(-1).astype(index_dtype),
            "Counts": counts.astype(index_dtype)}


_UNIQUE_CONSECUTIVE_ATTRS = [Attr("return_inverse", T.BOOLEAN, False),
                             Attr("return_counts", T.BOOLEAN, False), Attr("axis", T.INTS, []),
                             Attr("dtype", T.INT, 3)]


def _consecutive_expect(X, axis=(), dtype=3, **_):
    items = [tuple(np.moveaxis(X, axis[0], 0)[i].reshape(-1)) for i in range(X.shape[axis[0]])] \
        if axis else [(v,) for v in X.reshape(-1)]
    runs, inverse = [], []
    for item in items:
        if not runs or runs[-1][0] != item:
            runs.append([item, 0])
        runs[-1][1] += 1
        inverse.append(len(runs) - 1)
    index_dtype = dtypes.to_numpy(dtype)
    out = {"Index": np.array(inverse, index_dtype),
           "Counts": np.array([n for _, n in runs], index_dtype)}
    if not axis:
        out["Out"] = np.array([k[0] for k, _ in runs], X.dtype)
    return out


def _infer_consecutive(ctx):
    spec = _infer_unique(ctx)
    return {k: spec[k] for k in ("Out", "Index", "Counts")}


@register_op(
    "unique_consecutive", inputs=["X"], outputs=["Out", "Index", "Counts"],
    attrs=_UNIQUE_CONSECUTIVE_ATTRS, infer=_infer_consecutive, differentiable=False,
    doc="Out = X (flattened, or slices along axis) with runs of equal neighbours collapsed; "
        "Index = the run of each element, Counts = run lengths",
    examples=[Example({"X": np.array([3, 3, 1, 1, 3, 2], np.int64)},
                      {"return_inverse": True, "return_counts": True}, _consecutive_expect),
              Example({"X": np.array([[3, 1], [3, 1], [2, 3]], np.int64)},
                      {"axis": [0], "dtype": 2}, lambda X, **a: {
                          **_consecutive_expect(X, [0], 2),
                          "Out": np.array([[3, 1], [2, 3]], np.int64)}),
              Example({"X": np.array([[1.0, 1.0], [1.0, 2.0]], np.float32)}, {},
                      _consecutive_expect)],
)
def unique_consecutive(X, return_inverse, return_counts, axis, dtype):
    index_dtype = dtypes.to_numpy(dtype)
    if axis:
        if len(axis) != 1:
            raise PyirError(f"unique_consecutive: axis must be one int, got {axis}")
        ax = axis[0] % X.ndim
        moved = np.moveaxis(X, ax, 0)
        flat = moved.reshape(moved.shape[0], -1)
    else:
        ax, moved = None, X.reshape(-1)
        flat = moved.reshape(-1, 1)
    if len(flat) == 0:
        starts = np.zeros(0, bool)
    else:
        starts = np.concatenate([[True], np.any(flat[1:] != flat[:-1], axis=1)])
    inverse = np.cumsum(starts) - 1
    first = np.flatnonzero(starts)
    counts = np.diff(np.append(first, len(flat)))
    out = moved[first]
    return {"Out": out if ax is None else np.ascontiguousarray(np.moveaxis(out, 0, ax)),
            "Index": inverse.astype(index_dtype), "Counts": counts.astype(index_dtype)}
