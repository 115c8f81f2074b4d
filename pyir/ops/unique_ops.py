"""unique and unique_consecutive: the distinct values of a tensor (or its distinct slices
along an axis), with first-occurrence indices, the inverse map and counts. No gradient."""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..errors import PyirError
from ..registry import Attr, Example, Slot, VarSpec, register_op
from ..registry import AttrType as T

_UNIQUE_ATTRS = [Attr("dtype", T.INT, 3), Attr("return_index", T.BOOLEAN, False),
                 Attr("return_inverse", T.BOOLEAN, False),
                 Attr("return_counts", T.BOOLEAN, False), Attr("axis", T.INTS, []),
                 Attr("is_sorted", T.BOOLEAN, False)]


def _rows(X, axis):
    """X as a 2-D array of the items unique compares (elements, or slices along axis)."""
    if not axis:
        return X.reshape(-1, 1), None
    a = axis[0] % X.ndim
    moved = np.moveaxis(X, a, 0)
    return moved.reshape(moved.shape[0], -1), (a, moved.shape)


def _unshape(rows, plan, X):
    if plan is None:
        return rows.reshape(-1).astype(X.dtype)
    a, moved_shape = plan
    return np.moveaxis(rows.reshape((rows.shape[0], *moved_shape[1:])), 0, a).astype(X.dtype)


def _infer_unique(ctx, consecutive=False):
    x = ctx.input("X")
    index_dtype = dtypes.to_numpy(ctx.attr("dtype"))
    axis = ctx.attr("axis")
    if axis:
        a = axis[0] % len(x.shape)
        out = tuple(-1 if i == a else d for i, d in enumerate(x.shape))
        inverse = (x.shape[a],)
    else:
        out = (-1,)
        inverse = (int(np.prod(x.shape)) if all(d >= 0 for d in x.shape) else -1,)
    specs = {"Out": VarSpec(out, x.dtype), "Index": VarSpec(inverse, index_dtype),
             "Counts": VarSpec((-1,), index_dtype)}
    if not consecutive:
        specs["Indices"] = VarSpec((-1,), index_dtype)
    return specs


@register_op(
    "unique", inputs=[Slot("X", no_grad=True)],
    outputs=["Out", "Indices", "Index", "Counts"],
    attrs=_UNIQUE_ATTRS, infer=_infer_unique,
    doc="Out = the sorted distinct values (or slices along axis) of X; Indices = their first "
        "positions, Index = each item's place in Out, Counts = how often each occurs",
    examples=[Example({"X": np.array([[2.0, 1.0], [2.0, 3.0]], np.float32)},
                      {"return_index": True, "return_inverse": True, "return_counts": True,
                       "is_sorted": True},
                      expect={"Out": np.array([1.0, 2.0, 3.0], np.float32),
                              "Indices": np.array([1, 0, 3], np.int64),
                              "Index": np.array([1, 0, 1, 2], np.int64),
                              "Counts": np.array([1, 2, 1], np.int64)}),
              Example({"X": np.array([[1, 1], [0, 0], [1, 1]], np.int32)},
                      {"axis": [0], "dtype": 2, "return_inverse": True},
                      expect={"Out": np.array([[0, 0], [1, 1]], np.int32),
                              "Index": np.array([1, 0, 1], np.int32)})],
)
def unique(X, dtype, return_index, return_inverse, return_counts, axis, is_sorted):
    rows, plan = _rows(X, axis)
    values, first, inverse, counts = np.unique(rows, axis=0, return_index=True,
                                               return_inverse=True, return_counts=True)
    index_dtype = dtypes.to_numpy(dtype)
    return {"Out": _unshape(values, plan, X), "Indices": first.astype(index_dtype),
            "Index": inverse.reshape(-1).astype(index_dtype),
            "Counts": counts.astype(index_dtype)}


@register_op(
    "unique_consecutive", inputs=[Slot("X", no_grad=True)],
    outputs=["Out", "Index", "Counts"],
    attrs=[a for a in _UNIQUE_ATTRS if a.name not in ("return_index", "is_sorted")],
    infer=lambda ctx: _infer_unique(ctx, consecutive=True),
    doc="Out = X with runs of equal values (or slices along axis) collapsed to one; Index = "
        "each item's run, Counts = the run lengths",
    examples=[Example({"X": np.array([1.0, 1.0, 2.0, 1.0, 1.0], np.float32)},
                      {"return_inverse": True, "return_counts": True},
                      expect={"Out": np.array([1.0, 2.0, 1.0], np.float32),
                              "Index": np.array([0, 0, 1, 2, 2], np.int64),
                              "Counts": np.array([2, 1, 2], np.int64)})],
)
def unique_consecutive(X, dtype, return_inverse, return_counts, axis):
    rows, plan = _rows(X, axis)
    if rows.shape[0] == 0:
        starts = np.zeros(0, bool)
    else:
        starts = np.concatenate([[True], np.any(rows[1:] != rows[:-1], axis=1)])
    run = np.cumsum(starts) - 1
    index_dtype = dtypes.to_numpy(dtype)
    if index_dtype.kind not in "iu":
        raise PyirError(f"unique_consecutive: dtype must be int32 or int64, got {index_dtype}")
    return {"Out": _unshape(rows[starts], plan, X), "Index": run.astype(index_dtype),
            "Counts": np.bincount(run, minlength=int(starts.sum())).astype(index_dtype)}
