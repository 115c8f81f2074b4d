"""Ops that depend on the order of elements along an axis, with their gradients.

Running totals: cumsum, cumprod. Positions of extremes: arg_max / arg_min. Sorting and
selection: argsort, top_k_v2 and the v1 `top_k`, whose gradients scatter dOut back to the
positions the forward op picked.
"""

from __future__ import annotations

import math

import numpy as np

from .. import dtypes
from ..registry import Attr, Example, Slot, VarSpec, register_op
from ..registry import AttrType as T
from ._double_grad import linear_rule
from ._helpers import default_grad, int_list, rand, same_as
from .stl_sort import sort as stl_sort

_I64 = np.dtype(np.int64)


# --- cumsum ---------------------------------------------------------------------------------------
_CUMSUM_ATTRS = [Attr("axis", T.INT, -1), Attr("flatten", T.BOOLEAN, False),
                 Attr("exclusive", T.BOOLEAN, False), Attr("reverse", T.BOOLEAN, False)]


def _cumsum(x, axis, flatten, exclusive, reverse):
    if flatten:
        x, axis = x.reshape(-1), 0
    if reverse:
        x = np.flip(x, axis)
    out = np.cumsum(x, axis=axis, dtype=x.dtype)
    if exclusive:
        out = out - x
    return np.flip(out, axis) if reverse else out


def _infer_cumsum(ctx):
    x = ctx.input("X")
    if ctx.attr("flatten"):
        n = -1 if -1 in x.shape else math.prod(x.shape)
        return {"Out": VarSpec((n,), x.dtype)}
    return {"Out": VarSpec(x.shape, x.dtype)}


def _cumsum_expect(X, axis=-1, flatten=False, exclusive=False, reverse=False):
    x = X.reshape(-1) if flatten else X
    x = np.moveaxis(x, axis if not flatten else 0, -1)
    n = x.shape[-1]
    out = np.zeros_like(x)
    for i in range(n):  # direct sums over the included positions
        if reverse:
            lo, hi = (i + 1 if exclusive else i), n
        else:
            lo, hi = 0, (i if exclusive else i + 1)
        out[..., i] = x[..., lo:hi].sum(-1)
    return {"Out": np.moveaxis(out, -1, axis if not flatten else 0)}


@register_op(
    "cumsum", no_extra_attrs=True, inputs=["X"], outputs=["Out"], attrs=_CUMSUM_ATTRS, infer=_infer_cumsum,
    grad=default_grad("cumsum_grad"),
    doc="Out[i] = sum of X[j] for j <= i (j < i when exclusive; j >= i when reverse)",
    examples=[Example({"X": rand(3, 4)}, {"axis": 1}, _cumsum_expect),
              Example({"X": rand(3, 4)}, {"axis": 0, "exclusive": True, "reverse": True},
                      _cumsum_expect),
              Example({"X": rand(2, 3)}, {"axis": -1, "flatten": True, "exclusive": True},
                      _cumsum_expect),
              Example({"X": np.array([[1, 2, 3]], np.int64)}, {"axis": -1, "reverse": True},
                      _cumsum_expect, grad=False)],
)
def cumsum(X, axis, flatten, exclusive, reverse):
    return {"Out": np.ascontiguousarray(_cumsum(X, axis, flatten, exclusive, reverse))}


@register_op("cumsum_grad", inputs=["X", "Out@GRAD"], outputs=["X@GRAD"], attrs=_CUMSUM_ATTRS,
             infer=same_as("X", out="X@GRAD"), grad_of="cumsum",
             grad=linear_rule("cumsum", attr_names=[a.name for a in _CUMSUM_ATTRS]),
             doc="dX = cumsum of dOut in the opposite direction (same exclusive)")
def cumsum_grad(X, Out_grad, axis, flatten, exclusive, reverse):
    dx = _cumsum(Out_grad, axis, flatten, exclusive, not reverse)
    return {"X@GRAD": np.ascontiguousarray(dx).reshape(X.shape)}


# --- cumprod --------------------------------------------------------------------------------------
_CUMPROD_ATTRS = [Attr("dim", T.INT, 0), Attr("exclusive", T.BOOLEAN, False),
                  Attr("reverse", T.BOOLEAN, False)]


def _along_first(x, dim, reverse):
    """x with `dim` moved first (and flipped for reverse): cumulative ops run along axis 0."""
    x = np.moveaxis(x, dim, 0)
    return np.flip(x, 0) if reverse else x


def _back_from_first(x, dim, reverse):
    return np.ascontiguousarray(np.moveaxis(np.flip(x, 0) if reverse else x, 0, dim))


def _shift_down(x, fill):
    """[fill, x0, x1, ...] without the last row: exclusive cumulation along axis 0."""
    return np.concatenate([np.full_like(x[:1], fill), x[:-1]])


@register_op(
    "cumprod", no_extra_attrs=True, inputs=["X"], outputs=["Out"], attrs=_CUMPROD_ATTRS, infer=same_as("X"),
    grad=default_grad("cumprod_grad", uses=["X", "Out"]),
    doc="Out[i] = product of X[j] for j <= i along dim (j < i when exclusive; j >= i when "
        "reverse)",
    examples=[Example({"X": rand(3, 4)}, {"dim": 1},
                      lambda X, dim: {"Out": np.stack([X[:, :i + 1].prod(1) for i in range(4)],
                                                      1)}),
              Example({"X": np.array([[2.0, 0.0, 3.0], [1.0, 4.0, 0.5]])},
                      {"dim": -1, "exclusive": True, "reverse": True},
                      lambda X, **a: {"Out": np.array([[0.0, 3.0, 1.0], [2.0, 0.5, 1.0]])})],
)
def cumprod(X, dim, exclusive, reverse):
    x = _along_first(X, dim, reverse)
    out = np.cumprod(x, axis=0, dtype=X.dtype)
    return {"Out": _back_from_first(_shift_down(out, 1) if exclusive else out, dim, reverse)}


@register_op("cumprod_grad", inputs=["X", "Out", "Out@GRAD"], outputs=["X@GRAD"],
             attrs=_CUMPROD_ATTRS, infer=same_as("X", out="X@GRAD"), grad_of="cumprod",
             doc="dX[k] = prod(X[<k]) * S[k], S[k] = g[k] + X[k+1] S[k+1] (exact with zeros)")
def cumprod_grad(X, Out, Out_grad, dim, exclusive, reverse):
    x, g = _along_first(X, dim, reverse), _along_first(Out_grad, dim, reverse)
    if exclusive:  # Out[i] = inclusive[i-1]: move each dOut one step back
        g = np.concatenate([g[1:], np.zeros_like(g[:1])])
    before = _shift_down(np.cumprod(x, axis=0), 1)
    s = np.zeros_like(g)
    s[-1] = g[-1]
    for k in range(len(x) - 2, -1, -1):  # why a loop: exact where X has zeros
        s[k] = g[k] + x[k + 1] * s[k + 1]
    return {"X@GRAD": _back_from_first(before * s, dim, reverse)}


# --- arg_max / arg_min / argsort / top_k_v2 -------------------------------------------------------
_ARG_ATTRS = [Attr("axis", T.LONG, 0), Attr("keepdims", T.BOOLEAN, False),
              Attr("flatten", T.BOOLEAN, False), Attr("dtype", T.INT, 3)]


def _infer_arg(ctx):
    x = ctx.input("X")
    out_dtype = dtypes.to_numpy(ctx.attr("dtype"))
    if ctx.attr("flatten"):
        return {"Out": VarSpec((1,) * len(x.shape) if ctx.attr("keepdims") else (), out_dtype)}
    axis = ctx.attr("axis") % len(x.shape)
    shape = tuple(1 if i == axis else d for i, d in enumerate(x.shape)) if ctx.attr("keepdims") \
        else tuple(d for i, d in enumerate(x.shape) if i != axis)
    return {"Out": VarSpec(shape, out_dtype)}


def _arg_reduce(find, X, axis, keepdims, flatten, dtype):
    if flatten:
        out = np.asarray(find(X.reshape(-1)))
        out = out.reshape((1,) * X.ndim) if keepdims else out
    else:
        out = find(X, axis=axis, keepdims=keepdims)
    return {"Out": np.asarray(out).astype(dtypes.to_numpy(dtype))}


def _arg_examples(pick):
    x = np.array([[3.0, 1.0, 4.0, 1.5], [5.0, 9.0, 2.0, 6.0], [5.0, 3.0, 5.0, 0.5]], np.float32)

    def expect(X, axis=0, keepdims=False, flatten=False, dtype=3):
        if flatten:
            return {"Out": np.asarray(pick(list(X.reshape(-1))), dtypes.to_numpy(dtype))}
        rows = np.moveaxis(X, axis, -1)
        out = np.array([pick(list(r)) for r in rows.reshape(-1, rows.shape[-1])])
        out = out.reshape(rows.shape[:-1]).astype(dtypes.to_numpy(dtype))
        return {"Out": np.expand_dims(out, axis) if keepdims else out}

    return [Example({"X": x}, {"axis": 1}, expect),
            Example({"X": x}, {"axis": -2, "keepdims": True, "dtype": 2}, expect),
            Example({"X": x}, {"axis": 0, "flatten": True}, expect)]


def _first_index(best):
    return lambda values: values.index(best(values))


@register_op("arg_max", no_extra_attrs=True, inputs=["X"], outputs=["Out"], attrs=_ARG_ATTRS, infer=_infer_arg,
             doc="Out = index of the first maximum along axis (of the flattened X if flatten)",
             examples=_arg_examples(_first_index(max)))
def arg_max(X, axis, keepdims, flatten, dtype):
    return _arg_reduce(np.argmax, X, axis, keepdims, flatten, dtype)


@register_op("arg_min", no_extra_attrs=True, inputs=["X"], outputs=["Out"], attrs=_ARG_ATTRS, infer=_infer_arg,
             doc="Out = index of the first minimum along axis (of the flattened X if flatten)",
             examples=_arg_examples(_first_index(min)))
def arg_min(X, axis, keepdims, flatten, dtype):
    return _arg_reduce(np.argmin, X, axis, keepdims, flatten, dtype)


def _sort_order(x, axis, descending):
    """Stable ascending order, or descending with ties still in index order."""
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    key = -x.astype(np.float64) if x.dtype.kind in "bu" else -x
    return np.argsort(key, axis=axis, kind="stable")


def _infer_sorted(ctx, k=None):
    x = ctx.input("X")
    shape = list(x.shape)
    if k is not None:
        shape[ctx.attr("axis") % len(shape)] = k
    return {"Out": VarSpec(tuple(shape), x.dtype), "Indices": VarSpec(tuple(shape), _I64)}


_ARGSORT_ATTRS = [Attr("axis", T.INT, -1), Attr("descending", T.BOOLEAN, False),
                  Attr("stable", T.BOOLEAN, False)]


def _argsort_expect(X, axis=-1, descending=False, stable=False):
    rows = np.moveaxis(X, axis, -1)
    flat = rows.reshape(-1, rows.shape[-1])
    idx = np.array([sorted(range(len(r)), key=lambda j, r=r: (-r[j] if descending else r[j], j))
                    for r in flat]).reshape(rows.shape)
    values = np.take_along_axis(rows, idx, -1)
    return {"Out": np.moveaxis(values, -1, axis), "Indices": np.moveaxis(idx, -1, axis)}


@register_op(
    "argsort", no_extra_attrs=True, inputs=["X"], outputs=["Out", "Indices"], attrs=_ARGSORT_ATTRS,
    infer=_infer_sorted, grad=default_grad("argsort_grad", uses=["Indices", "X"]),
    doc="Out = X sorted along axis, Indices = the positions they came from",
    examples=[Example({"X": rand(3, 4)}, {"axis": -1}, _argsort_expect),
              Example({"X": rand(3, 2, 2)}, {"axis": 0, "descending": True}, _argsort_expect),
              Example({"X": np.array([[2, 1, 2, 0]], np.int32)},
                      {"axis": 1, "descending": True, "stable": True}, _argsort_expect,
                      grad=False)],
)
def argsort(X, axis, descending, stable):
    if X.ndim == 0:  # the kernel's 0-D case: the value, index 0
        return {"Out": X.copy(), "Indices": np.zeros((), np.int64)}
    idx = _argsort_order(X, axis, descending, stable)
    return {"Out": np.take_along_axis(X, idx, axis), "Indices": idx.astype(np.int64)}


# Rows holding ties are re-ordered by replaying std::sort in Python; past this many elements
# in such rows the order stays the stable one (docs/design.md, "argsort ties").
REPLAY_LIMIT = 1 << 20


def _argsort_order(x, axis, descending, stable):
    """Paddle's CPU argsort order (argsort_kernel.cc): NaN last ascending and first descending;
    ties in index order when `stable`, else where libstdc++'s std::sort leaves them."""
    rows = np.moveaxis(x, axis, -1)
    if x.dtype.kind == "f":
        nan = np.isnan(rows)
        key = np.where(nan, 0, -rows if descending else rows)
        first = ~nan if descending else nan  # lexsort: the last key is the primary one
        order = np.lexsort((key, first), axis=-1)
    else:
        order = np.argsort(-rows.astype(np.float64) if descending and x.dtype.kind in "bu"
                           else (-rows if descending else rows), axis=-1, kind="stable")
    if not stable and rows.size:
        order = _as_std_sort(rows, order, descending)
    return np.moveaxis(order, -1, axis)


def _as_std_sort(rows, order, descending):
    """`order` (stable) with each row that holds a tie re-ordered as Paddle's std::sort does."""
    flat_rows = rows.reshape(-1, rows.shape[-1])
    flat = order.reshape(-1, order.shape[-1]).copy()
    ranked = np.take_along_axis(flat_rows, flat, -1)
    same = ranked[:, 1:] == ranked[:, :-1]
    if ranked.dtype.kind == "f":
        same |= np.isnan(ranked[:, 1:]) & np.isnan(ranked[:, :-1])
    tied = np.flatnonzero(same.any(axis=1)) if same.size else []
    if len(tied) * flat.shape[1] > REPLAY_LIMIT:
        return order
    for r in tied:
        pairs = list(zip(flat_rows[r].tolist(), range(flat.shape[1])))
        stl_sort(pairs, 0, len(pairs), _paddle_less(descending))
        flat[r] = [j for _, j in pairs]
    return flat.reshape(order.shape)


def _paddle_less(descending):
    """The comparator of argsort_kernel.cc on (value, index) pairs."""
    if descending:
        return lambda a, b: (a[0] != a[0] and b[0] == b[0]) or a[0] > b[0]
    return lambda a, b: (a[0] == a[0] and b[0] != b[0]) or a[0] < b[0]


def _scatter_back(X, Indices, Out_grad, axis):
    dx = np.zeros_like(X)
    np.put_along_axis(dx, Indices, Out_grad, axis)
    return dx


@register_op("argsort_grad", inputs=["Indices", "X", "Out@GRAD"], outputs=["X@GRAD"],
             attrs=_ARGSORT_ATTRS, infer=same_as("X", out="X@GRAD"), grad_of="argsort",
             doc="dX[Indices] = dOut along axis")
def argsort_grad(Indices, X, Out_grad, axis, descending, stable):
    return {"X@GRAD": _scatter_back(X, Indices, Out_grad, axis)}


_TOPK_ATTRS = [Attr("k", T.INT, 1), Attr("axis", T.INT, -1), Attr("largest", T.BOOLEAN, True),
               Attr("sorted", T.BOOLEAN, True)]


def _topk_expect(X, k=1, axis=-1, largest=True, sorted=True):
    full = _argsort_expect(X, axis, descending=largest)
    take = [slice(None)] * X.ndim
    take[axis] = slice(0, k)
    return {"Out": full["Out"][tuple(take)], "Indices": full["Indices"][tuple(take)]}


@register_op(
    "top_k_v2", no_extra_attrs=True, inputs=["X", Slot("K", dispensable=True, no_grad=True)],
    outputs=["Out", "Indices"], attrs=_TOPK_ATTRS,
    infer=lambda ctx: _infer_sorted(ctx, -1 if ctx.inputs.get("K") else ctx.attr("k")),
    grad=default_grad("top_k_v2_grad", uses=["X", "K", "Indices"]),
    doc="Out, Indices = the k largest (smallest if not largest) along axis, best first",
    examples=[Example({"X": rand(3, 5)}, {"k": 2}, _topk_expect),
              Example({"X": rand(4, 3)}, {"k": 3, "axis": 0, "largest": False}, _topk_expect),
              Example({"X": rand(2, 4), "K": np.array([3], np.int32)}, {"k": 1},
                      lambda X, K, k: _topk_expect(X, 3))],
)
def top_k_v2(X, K, k, axis, largest, sorted):
    if K is not None:
        k = int_list(K)[0]
    idx = np.take(_sort_order(X, axis, largest), np.arange(k), axis=axis)
    return {"Out": np.take_along_axis(X, idx, axis), "Indices": idx.astype(np.int64)}


@register_op("top_k_v2_grad", inputs=["X", Slot("K", dispensable=True), "Indices", "Out@GRAD"],
             outputs=["X@GRAD"],
             attrs=_TOPK_ATTRS, infer=same_as("X", out="X@GRAD"), grad_of="top_k_v2",
             doc="dX[Indices] = dOut along axis, zero elsewhere")
def top_k_v2_grad(X, K, Indices, Out_grad, k, axis, largest, sorted):
    return {"X@GRAD": _scatter_back(X, Indices, Out_grad, axis)}


# --- top_k: the Paddle 1.x op older models still carry --------------------------------------------
@register_op(
    "top_k", no_extra_attrs=True, inputs=["X", Slot("K", dispensable=True, no_grad=True)],
    outputs=["Out", "Indices"], attrs=[Attr("k", T.INT, 1)],
    infer=lambda ctx: _infer_sorted_last(ctx, -1 if ctx.inputs.get("K") else ctx.attr("k")),
    grad=default_grad("top_k_grad", uses=["X", "K", "Indices"]),
    doc="Out, Indices = the k largest along the last axis, largest first (the v1 top_k)",
    examples=[Example({"X": rand(3, 5)}, {"k": 2}, lambda X, k: _topk_expect(X, 2))],
)
def top_k(X, K, k):
    return top_k_v2(X, K, k, -1, True, True)


def _infer_sorted_last(ctx, k):
    x = ctx.input("X")
    shape = tuple(x.shape[:-1]) + (k,)
    return {"Out": VarSpec(shape, x.dtype), "Indices": VarSpec(shape, _I64)}


@register_op("top_k_grad", inputs=["X", Slot("K", dispensable=True), "Indices", "Out@GRAD"],
             outputs=["X@GRAD"], attrs=[Attr("k", T.INT, 1)], infer=same_as("X", out="X@GRAD"),
             grad_of="top_k", doc="dX[Indices] = dOut along the last axis, zero elsewhere")
def top_k_grad(X, K, Indices, Out_grad, k):
    return {"X@GRAD": _scatter_back(X, Indices, Out_grad, -1)}
