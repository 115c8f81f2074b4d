"""Ops that pick, move, order, scatter or create elements, with their gradients.

Sections, in order: lookup_table_v2; gather_nd / index_select; strided_slice; unstack;
expand_v2 / expand_as_v2 / tile; where / one_hot_v2 / tril_triu / roll / flip; cumsum;
arg_max / arg_min / argsort / top_k_v2; range / shape / label_smooth / reduce_prod;
take_along_axis / index_sample / scatter / scatter_nd_add / where_index / masked_select;
linspace / eye / diag_v2 / meshgrid / increment; set_value / assign_value; the v1 ops
lookup_table / expand / top_k; cumprod / logsumexp; gather_tree / sequence_mask;
put_along_axis / index_add / repeat_interleave.

Gradients of gathers scatter-add dOut back (`np.add.at`), so repeated indices accumulate.
(This file outgrew the ~500-line guide; the sections are the natural split points.)
"""

from __future__ import annotations

import math

import numpy as np

from .. import dtypes
from ..errors import PyirError
from ..registry import Attr, Example, GradOp, Slot, VarSpec, register_op
from ..registry import AttrType as T
from ._helpers import broadcast_shape, default_grad, grad_name, rand, same_as, unbroadcast
from .reduce import reduced_axes

_I64 = np.dtype(np.int64)


def _ints(tensor) -> list[int]:
    return [int(v) for v in np.asarray(tensor).reshape(-1)]


def _from_list(tensors) -> list[int]:
    return [int(np.asarray(t).reshape(-1)[0]) for t in tensors]


def _runtime_ints(tensor, tensor_list, attr) -> list[int]:
    """An int list given as a 1-D tensor, as a list of 1-element tensors, or as an attribute."""
    if tensor is not None:
        return _ints(tensor)
    if tensor_list:
        return _from_list(tensor_list)
    return list(attr)


# --- lookup_table_v2 --------------------------------------------------------------------------
def _infer_lookup(ctx):
    ids, w = ctx.input("Ids"), ctx.input("W")
    return {"Out": VarSpec(tuple(ids.shape) + (w.shape[1],), w.dtype)}


def _lookup_expect(Ids, W, padding_idx):
    rows = [np.zeros_like(W[0]) if i == padding_idx else W[i] for i in Ids.reshape(-1)]
    return {"Out": np.stack(rows).reshape(Ids.shape + W.shape[1:])}


@register_op(
    "lookup_table_v2", inputs=[Slot("Ids", no_grad=True), "W"], outputs=["Out"],
    attrs=[Attr("padding_idx", T.LONG, -1)], infer=_infer_lookup,
    grad=default_grad("lookup_table_v2_grad", uses=["Ids", "W"]),
    doc="Out = W[Ids]; rows whose id equals padding_idx (unless -1) are zero",
    examples=[Example({"Ids": np.array([[1, 3, 1], [0, 4, 2]], np.int64), "W": rand(5, 3)},
                      {"padding_idx": -1}, _lookup_expect),
              Example({"Ids": np.array([[1, 0], [2, 0]], np.int64), "W": rand(4, 2)},
                      {"padding_idx": 0}, _lookup_expect)],
)
def lookup_table_v2(Ids, W, padding_idx):
    out = W[Ids]
    if padding_idx != -1:
        out[Ids == padding_idx] = 0
    return {"Out": out}


@register_op(
    "lookup_table_v2_grad", inputs=["Ids", "W", "Out@GRAD"], outputs=["W@GRAD"],
    attrs=[Attr("padding_idx", T.LONG, -1)], infer=same_as("W", out="W@GRAD"),
    grad_of="lookup_table_v2", doc="dW[i] = sum of dOut rows whose id is i (padding row: 0)",
)
def lookup_table_v2_grad(Ids, W, Out_grad, padding_idx):
    dw = np.zeros_like(W)
    ids = Ids.reshape(-1)
    rows = Out_grad.reshape(ids.size, -1)
    if padding_idx != -1:
        keep = ids != padding_idx
        ids, rows = ids[keep], rows[keep]
    np.add.at(dw, ids, rows)
    return {"W@GRAD": dw}


# --- gather_nd / index_select -------------------------------------------------------------------
def _infer_gather_nd(ctx):
    x, index = ctx.input("X"), ctx.input("Index")
    depth = index.shape[-1]
    return {"Out": VarSpec(tuple(index.shape[:-1]) + tuple(x.shape[depth:]), x.dtype)}


def _nd_index(Index):
    """Index [..., k] as the tuple of k index arrays that numpy's fancy indexing takes."""
    return tuple(np.moveaxis(Index, -1, 0))


@register_op(
    "gather_nd", inputs=["X", Slot("Index", no_grad=True)], outputs=["Out"],
    infer=_infer_gather_nd, grad=default_grad("gather_nd_grad"),
    doc="Out[i...] = X[Index[i..., 0], ..., Index[i..., k-1]]",
    examples=[
        Example({"X": rand(3, 4, 2), "Index": np.array([[0, 1], [2, 3], [0, 1]], np.int64)},
                expect=lambda X, Index: {"Out": np.stack([X[0, 1], X[2, 3], X[0, 1]])}),
        Example({"X": rand(3, 4), "Index": np.array([[[2], [0]]], np.int32)},
                expect=lambda X, Index: {"Out": np.stack([X[2], X[0]])[None]}),
    ],
)
def gather_nd(X, Index):
    return {"Out": X[_nd_index(Index)]}


@register_op("gather_nd_grad", inputs=["X", "Index", "Out@GRAD"], outputs=["X@GRAD"],
             infer=same_as("X", out="X@GRAD"), grad_of="gather_nd",
             doc="dX = scatter-add of dOut at Index")
def gather_nd_grad(X, Index, Out_grad):
    dx = np.zeros_like(X)
    np.add.at(dx, _nd_index(Index), Out_grad)
    return {"X@GRAD": dx}


def _infer_index_select(ctx):
    x, index = ctx.input("X"), ctx.input("Index")
    dim = ctx.attr("dim") % len(x.shape)
    return {"Out": VarSpec(tuple(x.shape[:dim]) + (index.shape[0],) + tuple(x.shape[dim + 1:]),
                           x.dtype)}


@register_op(
    "index_select", inputs=["X", Slot("Index", no_grad=True)], outputs=["Out"],
    attrs=[Attr("dim", T.INT, 0)], infer=_infer_index_select,
    grad=default_grad("index_select_grad"),
    doc="Out = X indexed by the 1-D Index along dim",
    examples=[
        Example({"X": rand(3, 4), "Index": np.array([3, 0, 3], np.int64)}, {"dim": 1},
                lambda X, Index, dim: {"Out": np.stack([X[:, 3], X[:, 0], X[:, 3]], 1)}),
        Example({"X": rand(3, 2, 2), "Index": np.array([2, 1], np.int32)}, {"dim": -3},
                lambda X, Index, dim: {"Out": np.stack([X[2], X[1]])}),
    ],
)
def index_select(X, Index, dim):
    return {"Out": np.take(X, Index, axis=dim)}


@register_op("index_select_grad", inputs=["X", "Index", "Out@GRAD"], outputs=["X@GRAD"],
             attrs=[Attr("dim", T.INT, 0)], infer=same_as("X", out="X@GRAD"),
             grad_of="index_select", doc="dX = scatter-add of dOut along dim at Index")
def index_select_grad(X, Index, Out_grad, dim):
    dx = np.zeros_like(X)
    moved = np.moveaxis(dx, dim, 0)  # a view: adding into it fills dx
    np.add.at(moved, Index, np.moveaxis(Out_grad, dim, 0))
    return {"X@GRAD": dx}


# --- strided_slice -------------------------------------------------------------------------------
_SS_TENSORS = [Slot("StartsTensor", dispensable=True),
               Slot("StartsTensorList", duplicable=True, dispensable=True),
               Slot("EndsTensor", dispensable=True),
               Slot("EndsTensorList", duplicable=True, dispensable=True),
               Slot("StridesTensor", dispensable=True),
               Slot("StridesTensorList", duplicable=True, dispensable=True)]
_SS_ATTRS = [Attr("axes", T.INTS, []), Attr("starts", T.INTS, []), Attr("ends", T.INTS, []),
             Attr("strides", T.INTS, []), Attr("infer_flags", T.INTS, []),
             Attr("decrease_axis", T.INTS, [])]


def _ss_index(ndim, axes, starts, ends, strides):
    """Python slicing per axis: Paddle clamps out-of-range starts/ends the same way."""
    index = [slice(None)] * ndim
    for axis, start, end, step in zip(axes, starts, ends, strides):
        index[axis % ndim] = slice(start, end, step)
    return tuple(index)


def _decreased(shape, decrease_axis):
    """shape without decrease_axis; [1] when nothing is left, as Paddle's kernel gives
    (Paddle's own compile-time shape says [] there, but its result is [1])."""
    drop = {a % len(shape) for a in decrease_axis}
    return tuple(d for i, d in enumerate(shape) if i not in drop) or (1,)


def _infer_strided_slice(ctx):
    x = ctx.input("Input")
    shape = list(x.shape)
    dynamic = any(ctx.inputs.get(s.name) for s in _SS_TENSORS)
    for axis, start, end, step in zip(ctx.attr("axes"), ctx.attr("starts"), ctx.attr("ends"),
                                      ctx.attr("strides")):
        axis %= len(shape)
        if dynamic or shape[axis] == -1:
            shape[axis] = -1
        else:
            shape[axis] = len(range(*slice(start, end, step).indices(shape[axis])))
    return {"Out": VarSpec(_decreased(shape, ctx.attr("decrease_axis")), x.dtype)}


def _ss_slices(Input, StartsTensor, StartsTensorList, EndsTensor, EndsTensorList,
               StridesTensor, StridesTensorList, axes, starts, ends, strides):
    starts = _runtime_ints(StartsTensor, StartsTensorList, starts)
    ends = _runtime_ints(EndsTensor, EndsTensorList, ends)
    strides = _runtime_ints(StridesTensor, StridesTensorList, strides)
    return _ss_index(Input.ndim, axes, starts, ends, strides)


@register_op(
    "strided_slice", inputs=["Input", *_SS_TENSORS], outputs=["Out"], attrs=_SS_ATTRS,
    infer=_infer_strided_slice,
    grad=default_grad("strided_slice_grad", uses=["Input", *[s.name for s in _SS_TENSORS]]),
    doc="Out = Input[starts:ends:strides] on `axes`, then drop decrease_axis",
    examples=[
        Example({"Input": rand(3, 6)}, {"axes": [1], "starts": [0], "ends": [5], "strides": [2]},
                lambda Input, **a: {"Out": Input[:, 0:5:2]}),
        Example({"Input": rand(4, 5)},
                {"axes": [0, 1], "starts": [-1, 4], "ends": [-5, 0], "strides": [-1, -2]},
                lambda Input, **a: {"Out": Input[::-1, 4:0:-2]}),
        Example({"Input": rand(3, 4, 2)},
                {"axes": [1], "starts": [2], "ends": [3], "strides": [1],
                 "decrease_axis": [1]},
                lambda Input, **a: {"Out": Input[:, 2]}),
        Example({"Input": rand(3, 4)}, {"axes": [0, 1], "starts": [1, -1], "ends": [2, 4],
                                        "strides": [1, 1], "decrease_axis": [0, 1]},
                lambda Input, **a: {"Out": Input[1, 3:4]}),
        Example({"Input": rand(5, 3), "StartsTensorList": [np.array([1], np.int64)],
                 "EndsTensor": np.array([100], np.int32)},
                {"axes": [0], "starts": [0], "ends": [1], "strides": [2]},
                lambda Input, **a: {"Out": Input[1::2]}),
    ],
)
def strided_slice(Input, StartsTensor, StartsTensorList, EndsTensor, EndsTensorList,
                  StridesTensor, StridesTensorList, axes, starts, ends, strides, infer_flags,
                  decrease_axis):
    index = _ss_slices(Input, StartsTensor, StartsTensorList, EndsTensor, EndsTensorList,
                       StridesTensor, StridesTensorList, axes, starts, ends, strides)
    out = Input[index]
    return {"Out": np.ascontiguousarray(out.reshape(_decreased(out.shape, decrease_axis)))}


@register_op(
    "strided_slice_grad", inputs=["Input", *_SS_TENSORS, "Out@GRAD"], outputs=["Input@GRAD"],
    attrs=_SS_ATTRS, infer=same_as("Input", out="Input@GRAD"), grad_of="strided_slice",
    doc="dInput = zeros with dOut written into the sliced positions",
)
def strided_slice_grad(Input, StartsTensor, StartsTensorList, EndsTensor, EndsTensorList,
                       StridesTensor, StridesTensorList, Out_grad, axes, starts, ends, strides,
                       infer_flags, decrease_axis):
    index = _ss_slices(Input, StartsTensor, StartsTensorList, EndsTensor, EndsTensorList,
                       StridesTensor, StridesTensorList, axes, starts, ends, strides)
    dx = np.zeros_like(Input)
    dx[index] = Out_grad.reshape(dx[index].shape)
    return {"Input@GRAD": dx}


# --- unstack --------------------------------------------------------------------------------------
def _infer_unstack(ctx):
    x = ctx.input("X")
    axis = ctx.attr("axis") % len(x.shape)
    num = ctx.attr("num") or x.shape[axis]
    if num < 0:
        raise PyirError(f"unstack: axis {ctx.attr('axis')} of X has an unknown size; give "
                        f"the `num` attribute (the number of outputs)")
    part = VarSpec(tuple(d for i, d in enumerate(x.shape) if i != axis), x.dtype)
    return {"Y": [part] * num}


_UNSTACK_ATTRS = [Attr("axis", T.INT, 0), Attr("num", T.INT, 0)]


@register_op(
    "unstack", inputs=["X"], outputs=[Slot("Y", duplicable=True)], attrs=_UNSTACK_ATTRS,
    infer=_infer_unstack, grad=default_grad("unstack_grad", uses=[]),
    doc="Y[i] = X taken at index i along axis",
    examples=[Example({"X": rand(2, 3, 2)}, {"axis": 1, "num": 3},
                      lambda X, axis, num: {"Y": [X[:, 0], X[:, 1], X[:, 2]]}),
              Example({"X": rand(2, 3)}, {"axis": -2, "num": 2},
                      lambda X, axis, num: {"Y": [X[0], X[1]]})],
)
def unstack(X, axis, num):
    return {"Y": [np.ascontiguousarray(np.take(X, i, axis=axis)) for i in range(X.shape[axis])]}


@register_op("unstack_grad", inputs=[Slot("Y@GRAD", duplicable=True)], outputs=["X@GRAD"],
             attrs=_UNSTACK_ATTRS, grad_of="unstack", doc="dX = stack(dY, axis)")
def unstack_grad(Y_grad, axis, num):
    return {"X@GRAD": np.stack(Y_grad, axis=axis)}


# --- expand_v2 / expand_as_v2 / tile --------------------------------------------------------------
def _expanded_shape(x_shape, shape):
    """expand_v2's target: -1 keeps X's (right-aligned) size."""
    lead = len(shape) - len(x_shape)
    return tuple(x_shape[i - lead] if d == -1 else d for i, d in enumerate(shape))


def _infer_expand(ctx):
    x = ctx.input("X")
    if ctx.inputs.get("Shape") or ctx.inputs.get("expand_shapes_tensor"):
        return {"Out": VarSpec((-1,) * max(len(ctx.attr("shape")), len(x.shape)), x.dtype)}
    return {"Out": VarSpec(_expanded_shape(x.shape, ctx.attr("shape")), x.dtype)}


_EXPAND_SLOTS = [Slot("Shape", dispensable=True, no_grad=True),
                 Slot("expand_shapes_tensor", duplicable=True, dispensable=True, no_grad=True)]


@register_op(
    "expand_v2", inputs=["X", *_EXPAND_SLOTS], outputs=["Out"],
    attrs=[Attr("shape", T.INTS, [])], infer=_infer_expand,
    grad=default_grad("expand_v2_grad"),
    doc="Out = broadcast_to(X, shape); -1 in shape keeps X's size",
    examples=[Example({"X": rand(3, 1)}, {"shape": [2, 3, 4]},
                      lambda X, shape: {"Out": np.tile(X[None], (2, 1, 4))}),
              Example({"X": rand(1, 2)}, {"shape": [3, -1]},
                      lambda X, shape: {"Out": np.concatenate([X, X, X])}),
              Example({"X": rand(2, 1), "Shape": np.array([2, 3], np.int32)}, {"shape": []},
                      lambda X, Shape, shape: {"Out": np.concatenate([X, X, X], 1)})],
)
def expand_v2(X, Shape, expand_shapes_tensor, shape):
    target = _runtime_ints(Shape, expand_shapes_tensor, shape)
    return {"Out": np.ascontiguousarray(np.broadcast_to(X, _expanded_shape(X.shape, target)))}


@register_op("expand_v2_grad", inputs=["X", *_EXPAND_SLOTS, "Out@GRAD"], outputs=["X@GRAD"],
             attrs=[Attr("shape", T.INTS, [])], infer=same_as("X", out="X@GRAD"),
             grad_of="expand_v2", doc="dX = dOut summed over the broadcast dims")
def expand_v2_grad(X, Shape, expand_shapes_tensor, Out_grad, shape):
    return {"X@GRAD": unbroadcast(Out_grad, X.shape)}


def _infer_expand_as(ctx):
    x, y = ctx.input("X"), ctx.input("Y")
    target = ctx.attr("target_shape") or (y.shape if y is not None else ())
    return {"Out": VarSpec(tuple(target), x.dtype)}


@register_op(
    "expand_as_v2", inputs=["X", Slot("Y", dispensable=True, no_grad=True)], outputs=["Out"],
    attrs=[Attr("target_shape", T.INTS, [])], infer=_infer_expand_as,
    grad=default_grad("expand_as_v2_grad", uses=["X"]),
    doc="Out = broadcast_to(X, target_shape or Y's shape)",
    examples=[Example({"X": rand(3, 1), "Y": rand(2, 3, 4)}, {"target_shape": [2, 3, 4]},
                      lambda X, Y, target_shape: {"Out": np.tile(X[None], (2, 1, 4))}),
              Example({"X": rand(1, 2), "Y": rand(3, 2)}, {},
                      lambda X, Y: {"Out": np.concatenate([X, X, X])})],
)
def expand_as_v2(X, Y, target_shape):
    target = tuple(target_shape) if target_shape else Y.shape
    return {"Out": np.ascontiguousarray(np.broadcast_to(X, target))}


@register_op("expand_as_v2_grad", inputs=["X", "Out@GRAD"], outputs=["X@GRAD"],
             attrs=[Attr("target_shape", T.INTS, [])], infer=same_as("X", out="X@GRAD"),
             grad_of="expand_as_v2", doc="dX = dOut summed over the broadcast dims")
def expand_as_v2_grad(X, Out_grad, target_shape):
    return {"X@GRAD": unbroadcast(Out_grad, X.shape)}


def _tiled_shape(x_shape, repeats):
    n = max(len(x_shape), len(repeats))
    x_shape = (1,) * (n - len(x_shape)) + tuple(x_shape)
    repeats = (1,) * (n - len(repeats)) + tuple(repeats)
    return tuple(-1 if d == -1 else d * r for d, r in zip(x_shape, repeats))


def _infer_tile(ctx):
    x = ctx.input("X")
    if ctx.inputs.get("RepeatTimes") or ctx.inputs.get("repeat_times_tensor"):
        return {"Out": VarSpec((-1,) * max(len(x.shape), len(ctx.attr("repeat_times"))),
                               x.dtype)}
    return {"Out": VarSpec(_tiled_shape(x.shape, ctx.attr("repeat_times")), x.dtype)}


_TILE_SLOTS = [Slot("RepeatTimes", dispensable=True, no_grad=True),
               Slot("repeat_times_tensor", duplicable=True, dispensable=True, no_grad=True)]


@register_op(
    "tile", inputs=["X", *_TILE_SLOTS], outputs=["Out"],
    attrs=[Attr("repeat_times", T.INTS, [])], infer=_infer_tile, grad=default_grad("tile_grad"),
    doc="Out = X repeated repeat_times[i] times along dim i (leading dims added as needed)",
    examples=[Example({"X": rand(2, 3)}, {"repeat_times": [2, 1]},
                      lambda X, repeat_times: {"Out": np.concatenate([X, X])}),
              Example({"X": rand(3)}, {"repeat_times": [2, 2]},
                      lambda X, repeat_times: {"Out": np.stack([np.concatenate([X, X])] * 2)}),
              Example({"X": rand(2, 1), "repeat_times_tensor": [np.array([3], np.int32)]},
                      {"repeat_times": []},
                      lambda X, repeat_times_tensor, repeat_times: {
                          "Out": np.concatenate([X, X, X], 1)})],
)
def tile(X, RepeatTimes, repeat_times_tensor, repeat_times):
    return {"Out": np.tile(X, _runtime_ints(RepeatTimes, repeat_times_tensor, repeat_times))}


@register_op("tile_grad", inputs=["X", *_TILE_SLOTS, "Out@GRAD"], outputs=["X@GRAD"],
             attrs=[Attr("repeat_times", T.INTS, [])], infer=same_as("X", out="X@GRAD"),
             grad_of="tile", doc="dX = dOut summed over the copies")
def tile_grad(X, RepeatTimes, repeat_times_tensor, Out_grad, repeat_times):
    repeats = _runtime_ints(RepeatTimes, repeat_times_tensor, repeat_times)
    n = Out_grad.ndim
    repeats = [1] * (n - len(repeats)) + list(repeats)
    x_shape = [1] * (n - X.ndim) + list(X.shape)
    split = [v for pair in zip(repeats, x_shape) for v in pair]  # (r0, d0, r1, d1, ...)
    summed = Out_grad.reshape(split).sum(axis=tuple(range(0, 2 * n, 2)))
    return {"X@GRAD": summed.reshape(X.shape)}


# --- where / one_hot / tril_triu / roll / flip ----------------------------------------------------
def _infer_where(ctx):
    c, x, y = ctx.input("Condition"), ctx.input("X"), ctx.input("Y")
    return {"Out": VarSpec(broadcast_shape(broadcast_shape(c.shape, x.shape), y.shape), x.dtype)}


@register_op(
    "where", inputs=[Slot("Condition", no_grad=True), "X", "Y"], outputs=["Out"],
    infer=_infer_where, grad=default_grad("where_grad"),
    doc="Out = X where Condition else Y",
    examples=[Example({"Condition": np.array([[True, False, True], [False, False, True]]),
                       "X": rand(2, 3), "Y": rand(2, 3)},
                      expect=lambda Condition, X, Y: {"Out": Condition * X + ~Condition * Y}),
              Example({"Condition": np.array([True, False, True]), "X": rand(2, 3),
                       "Y": rand(1, 3)},
                      expect=lambda Condition, X, Y: {
                          "Out": np.stack([Condition * r + ~Condition * Y[0] for r in X])})],
)
def where(Condition, X, Y):
    return {"Out": np.where(Condition, X, Y)}


@register_op("where_grad", inputs=["Condition", "X", "Y", "Out@GRAD"],
             outputs=["X@GRAD", "Y@GRAD"], grad_of="where",
             doc="dX = dOut where Condition, dY = dOut elsewhere")
def where_grad(Condition, X, Y, Out_grad):
    zero = np.zeros((), Out_grad.dtype)
    return {"X@GRAD": unbroadcast(np.where(Condition, Out_grad, zero), X.shape),
            "Y@GRAD": unbroadcast(np.where(Condition, zero, Out_grad), Y.shape)}


def _infer_one_hot(ctx):
    x = ctx.input("X")
    depth = -1 if ctx.inputs.get("depth_tensor") else ctx.attr("depth")
    return {"Out": VarSpec(tuple(x.shape) + (depth,), dtypes.to_numpy(ctx.attr("dtype")))}


@register_op(
    "one_hot_v2", inputs=["X", Slot("depth_tensor", dispensable=True)], outputs=["Out"],
    attrs=[Attr("depth", T.INT, -1), Attr("dtype", T.INT, 5),
           Attr("allow_out_of_range", T.BOOLEAN, False)],
    infer=_infer_one_hot, doc="Out[..., k] = (X[...] == k) for k < depth",
    examples=[Example({"X": np.array([[1, 0], [3, 2]], np.int64)}, {"depth": 4},
                      lambda X, depth: {"Out": np.eye(4, dtype=np.float32)[X]}),
              Example({"X": np.array([0, 2, 1], np.int32)}, {"depth": 3, "dtype": 3},
                      lambda X, **a: {"Out": np.array([[1, 0, 0], [0, 0, 1], [0, 1, 0]],
                                                      np.int64)})],
)
def one_hot_v2(X, depth_tensor, depth, dtype, allow_out_of_range):
    if depth_tensor is not None:
        depth = _ints(depth_tensor)[0]
    inside = (X >= 0) & (X < depth)
    if not inside.all():  # Paddle 3.3.1 refuses these whatever allow_out_of_range says
        bad = X[~inside].reshape(-1)[0]
        raise PyirError(f"one_hot_v2: label {bad} is outside [0, {depth}): every label must "
                        f"be a class index below depth (Paddle rejects it too, even with "
                        f"allow_out_of_range)")
    return {"Out": (X[..., None] == np.arange(depth)).astype(dtypes.to_numpy(dtype))}


_TRI_ATTRS = [Attr("diagonal", T.INT, 0), Attr("lower", T.BOOLEAN, False)]


def _triangle(x, diagonal, lower):
    return np.tril(x, diagonal) if lower else np.triu(x, diagonal)


@register_op(
    "tril_triu", inputs=["X"], outputs=["Out"], attrs=_TRI_ATTRS, infer=same_as("X"),
    grad=default_grad("tril_triu_grad", uses=[]),
    doc="Out = lower (lower=True) or upper triangle of X's last two dims from `diagonal`",
    examples=[Example({"X": rand(3, 4)}, {"lower": True},
                      lambda X, lower: {"Out": X * (np.arange(4)[None] <= np.arange(3)[:, None])}),
              Example({"X": rand(2, 3, 3)}, {"lower": False, "diagonal": 1},
                      lambda X, **a: {"Out": X * np.float32([[0, 1, 1], [0, 0, 1], [0, 0, 0]])}),
              Example({"X": rand(3, 3)}, {"lower": True, "diagonal": -1},
                      lambda X, **a: {"Out": X * np.float32([[0, 0, 0], [1, 0, 0], [1, 1, 0]])})],
)
def tril_triu(X, diagonal, lower):
    return {"Out": _triangle(X, diagonal, lower)}


@register_op("tril_triu_grad", inputs=["Out@GRAD"], outputs=["X@GRAD"], attrs=_TRI_ATTRS,
             infer=same_as("Out@GRAD", out="X@GRAD"), grad_of="tril_triu",
             doc="dX = the same triangle of dOut")
def tril_triu_grad(Out_grad, diagonal, lower):
    return {"X@GRAD": _triangle(Out_grad, diagonal, lower)}


_ROLL_ATTRS = [Attr("shifts", T.LONGS, []), Attr("axis", T.LONGS, [])]


def _roll(x, shifts, axis):
    if not axis:  # no axis: roll the flattened tensor
        return np.roll(x.reshape(-1), shifts).reshape(x.shape)
    return np.roll(x, shifts, axis=tuple(axis))


@register_op(
    "roll", inputs=["X", Slot("ShiftsTensor", dispensable=True, no_grad=True)], outputs=["Out"],
    attrs=_ROLL_ATTRS, infer=same_as("X"), grad=default_grad("roll_grad"),
    doc="Out = X shifted cyclically by shifts along axis (the flattened X when axis is empty)",
    examples=[Example({"X": rand(3, 4)}, {"shifts": [1], "axis": [1]},
                      lambda X, **a: {"Out": np.concatenate([X[:, 3:], X[:, :3]], 1)}),
              Example({"X": rand(2, 3)}, {"shifts": [-2], "axis": []},
                      lambda X, **a: {"Out": np.concatenate([X.reshape(-1)[2:],
                                                             X.reshape(-1)[:2]]).reshape(2, 3)}),
              Example({"X": rand(2, 3)}, {"shifts": [1, 2], "axis": [0, -1]},
                      lambda X, **a: {"Out": X[::-1][:, [1, 2, 0]]})],
)
def roll(X, ShiftsTensor, shifts, axis):
    if ShiftsTensor is not None:
        shifts = _ints(ShiftsTensor)
    return {"Out": _roll(X, list(shifts), axis)}


@register_op("roll_grad", inputs=["X", Slot("ShiftsTensor", dispensable=True), "Out@GRAD"],
             outputs=["X@GRAD"],
             attrs=_ROLL_ATTRS, infer=same_as("X", out="X@GRAD"), grad_of="roll",
             doc="dX = dOut rolled back by -shifts")
def roll_grad(X, ShiftsTensor, Out_grad, shifts, axis):
    if ShiftsTensor is not None:
        shifts = _ints(ShiftsTensor)
    return {"X@GRAD": _roll(Out_grad, [-s for s in shifts], axis)}


@register_op(
    "flip", inputs=["X"], outputs=["Out"], attrs=[Attr("axis", T.INTS, [])], infer=same_as("X"),
    # Paddle's gradient of flip is flip itself.
    grad=lambda op, opdef: [GradOp("flip", {"X": [grad_name(op.output("Out")[0])]},
                                   {"Out": [grad_name(op.input("X")[0])]},
                                   {"axis": list(op.attrs["axis"])})],
    doc="Out = X reversed along each dim in axis",
    examples=[Example({"X": rand(2, 3)}, {"axis": [1]}, lambda X, axis: {"Out": X[:, ::-1]}),
              Example({"X": rand(2, 3, 2)}, {"axis": [0, -1]},
                      lambda X, axis: {"Out": X[::-1, :, ::-1]})],
)
def flip(X, axis):
    return {"Out": np.ascontiguousarray(np.flip(X, tuple(axis)))}


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
    "cumsum", inputs=["X"], outputs=["Out"], attrs=_CUMSUM_ATTRS, infer=_infer_cumsum,
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
             doc="dX = cumsum of dOut in the opposite direction (same exclusive)")
def cumsum_grad(X, Out_grad, axis, flatten, exclusive, reverse):
    dx = _cumsum(Out_grad, axis, flatten, exclusive, not reverse)
    return {"X@GRAD": np.ascontiguousarray(dx).reshape(X.shape)}


# --- arg_max / arg_min / argsort / top_k_v2 ------------------------------------------------------
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


@register_op("arg_max", inputs=["X"], outputs=["Out"], attrs=_ARG_ATTRS, infer=_infer_arg,
             doc="Out = index of the first maximum along axis (of the flattened X if flatten)",
             examples=_arg_examples(_first_index(max)))
def arg_max(X, axis, keepdims, flatten, dtype):
    return _arg_reduce(np.argmax, X, axis, keepdims, flatten, dtype)


@register_op("arg_min", inputs=["X"], outputs=["Out"], attrs=_ARG_ATTRS, infer=_infer_arg,
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
    "argsort", inputs=["X"], outputs=["Out", "Indices"], attrs=_ARGSORT_ATTRS,
    infer=_infer_sorted, grad=default_grad("argsort_grad", uses=["Indices", "X"]),
    doc="Out = X sorted along axis, Indices = the positions they came from",
    examples=[Example({"X": rand(3, 4)}, {"axis": -1}, _argsort_expect),
              Example({"X": rand(3, 2, 2)}, {"axis": 0, "descending": True}, _argsort_expect),
              Example({"X": np.array([[2, 1, 2, 0]], np.int32)},
                      {"axis": 1, "descending": True, "stable": True}, _argsort_expect,
                      grad=False)],
)
def argsort(X, axis, descending, stable):
    idx = _sort_order(X, axis, descending)
    return {"Out": np.take_along_axis(X, idx, axis), "Indices": idx.astype(np.int64)}


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
    "top_k_v2", inputs=["X", Slot("K", dispensable=True, no_grad=True)],
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
        k = _ints(K)[0]
    idx = np.take(_sort_order(X, axis, largest), np.arange(k), axis=axis)
    return {"Out": np.take_along_axis(X, idx, axis), "Indices": idx.astype(np.int64)}


@register_op("top_k_v2_grad", inputs=["X", Slot("K", dispensable=True), "Indices", "Out@GRAD"],
             outputs=["X@GRAD"],
             attrs=_TOPK_ATTRS, infer=same_as("X", out="X@GRAD"), grad_of="top_k_v2",
             doc="dX[Indices] = dOut along axis, zero elsewhere")
def top_k_v2_grad(X, K, Indices, Out_grad, k, axis, largest, sorted):
    return {"X@GRAD": _scatter_back(X, Indices, Out_grad, axis)}


# --- range / shape / label_smooth / reduce_prod -----------------------------------------------
def _range_size(start, end, step):
    return max(int(np.ceil(abs((end - start) / step))), 0) if (end - start) * step > 0 else 0


@register_op(
    "range", inputs=[Slot("Start", no_grad=True), Slot("End", no_grad=True),
                     Slot("Step", no_grad=True)], outputs=["Out"],
    infer=lambda ctx: {"Out": VarSpec((-1,), ctx.input("Start").dtype)},
    doc="Out = [Start, Start + Step, ...] up to but excluding End",
    examples=[Example({"Start": np.array([1], np.int64), "End": np.array([8], np.int64),
                       "Step": np.array([3], np.int64)},
                      expect={"Out": np.array([1, 4, 7], np.int64)}),
              Example({"Start": np.array([1.0], np.float32), "End": np.array([0.0], np.float32),
                       "Step": np.array([-0.25], np.float32)},
                      expect={"Out": np.array([1.0, 0.75, 0.5, 0.25], np.float32)})],
)
def range_(Start, End, Step):
    start, end, step = (np.asarray(v).reshape(-1)[0] for v in (Start, End, Step))
    if step == 0:
        raise PyirError("range: Step must not be 0")
    n = _range_size(float(start), float(end), float(step))
    return {"Out": (start + np.arange(n) * step).astype(np.asarray(Start).dtype)}


@register_op(
    "shape", inputs=[Slot("Input", no_grad=True)], outputs=["Out"],
    infer=lambda ctx: {"Out": VarSpec((len(ctx.input("Input").shape),), np.dtype(np.int32))},
    doc="Out = Input's shape as int32",
    examples=[Example({"Input": rand(2, 3, 5)}, expect={"Out": np.array([2, 3, 5], np.int32)})],
)
def shape(Input):
    return {"Out": np.array(Input.shape, dtype=np.int32)}


@register_op(
    "label_smooth", inputs=["X", Slot("PriorDist", dispensable=True, no_grad=True)],
    outputs=["Out"], attrs=[Attr("epsilon", T.FLOAT, 0.0)], infer=same_as("X"),
    grad=default_grad("label_smooth_grad", uses=[]),
    doc="Out = (1 - epsilon) * X + epsilon * PriorDist (uniform 1/C when absent)",
    examples=[Example({"X": np.eye(4, dtype=np.float32)[[0, 2, 3]]}, {"epsilon": 0.1},
                      lambda X, epsilon: {"Out": np.where(X == 1, 0.925, 0.025).astype(
                          np.float32)}),
              Example({"X": rand(2, 3), "PriorDist": np.array([[0.5, 0.3, 0.2]], np.float32)},
                      {"epsilon": 0.2},
                      lambda X, PriorDist, epsilon: {"Out": 0.8 * X + 0.2 * PriorDist})],
)
def label_smooth(X, PriorDist, epsilon):
    prior = 1.0 / X.shape[-1] if PriorDist is None else PriorDist
    return {"Out": ((1 - epsilon) * X + epsilon * prior).astype(X.dtype, copy=False)}


@register_op("label_smooth_grad", inputs=["Out@GRAD"], outputs=["X@GRAD"],
             attrs=[Attr("epsilon", T.FLOAT, 0.0)], infer=same_as("Out@GRAD", out="X@GRAD"),
             grad_of="label_smooth", doc="dX = (1 - epsilon) * dOut")
def label_smooth_grad(Out_grad, epsilon):
    return {"X@GRAD": (Out_grad * (1 - epsilon)).astype(Out_grad.dtype, copy=False)}


# The attributes every reduce_* op carries (reduce.py's ops have the same list).
_PROD_ATTRS = [Attr("dim", T.INTS, [0]), Attr("keep_dim", T.BOOLEAN, False),
               Attr("reduce_all", T.BOOLEAN, False), Attr("in_dtype", T.INT, -1),
               Attr("out_dtype", T.INT, -1)]


def _reduced_shape(shape: tuple, axes: tuple, keep: bool) -> tuple:
    if keep:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _infer_prod(ctx):
    x = ctx.input("X")
    axes = reduced_axes(len(x.shape), ctx.attr("dim"), ctx.attr("reduce_all"))
    code = ctx.attr("out_dtype")
    return {"Out": VarSpec(_reduced_shape(x.shape, axes, ctx.attr("keep_dim")),
                           x.dtype if code == -1 else dtypes.to_numpy(code))}


def _prod_expect(X, dim=(0,), keep_dim=False, reduce_all=False, **_):
    axes = reduced_axes(X.ndim, dim, reduce_all)
    out = X
    for a in sorted(axes, reverse=True):  # product as repeated multiplication
        parts = [np.take(out, i, axis=a) for i in range(out.shape[a])]
        acc = parts[0]
        for p in parts[1:]:
            acc = acc * p
        out = np.expand_dims(acc, a) if keep_dim else acc
    return {"Out": np.asarray(out, X.dtype)}


@register_op(
    "reduce_prod", inputs=["X"], outputs=["Out"], attrs=_PROD_ATTRS, infer=_infer_prod,
    grad=default_grad("reduce_prod_grad", uses=["X", "Out"]),
    doc="Out = product of X over dim",
    examples=[Example({"X": rand(3, 4)}, {"dim": [1]}, _prod_expect),
              Example({"X": rand(2, 3, 2)}, {"dim": [0, -1], "keep_dim": True}, _prod_expect),
              Example({"X": rand(2, 3)}, {"dim": [], "reduce_all": True}, _prod_expect),
              Example({"X": np.array([[2.0, 0.0, 3.0], [0.0, 4.0, 0.0]])}, {"dim": [1]},
                      _prod_expect),
              Example({"X": np.array([[2, 0, 3], [1, 4, 5]], np.int64)}, {"dim": [1]},
                      _prod_expect, grad=False)],
)
def reduce_prod(X, dim, keep_dim, reduce_all, in_dtype, out_dtype):
    axes = reduced_axes(X.ndim, dim, reduce_all)
    out = np.asarray(np.prod(X, axis=axes, keepdims=keep_dim))
    dtype = X.dtype if out_dtype == -1 else dtypes.to_numpy(out_dtype)
    return {"Out": out.astype(dtype, copy=False)}


@register_op("reduce_prod_grad", inputs=["X", "Out", "Out@GRAD"], outputs=["X@GRAD"],
             attrs=_PROD_ATTRS, infer=same_as("X", out="X@GRAD"), grad_of="reduce_prod",
             doc="dX = dOut * product of the other reduced elements (exact with zeros)")
def reduce_prod_grad(X, Out, Out_grad, dim, keep_dim, reduce_all, in_dtype, out_dtype):
    axes = reduced_axes(X.ndim, dim, reduce_all)
    kept = [a for a in range(X.ndim) if a not in axes]
    moved = np.transpose(X, kept + list(axes))
    flat = moved.reshape(moved.shape[:len(kept)] + (-1,))
    ones = np.ones(flat.shape[:-1] + (1,), X.dtype)
    before = np.cumprod(np.concatenate([ones, flat[..., :-1]], -1), -1)
    after = np.flip(np.cumprod(np.concatenate([ones, np.flip(flat, -1)[..., :-1]], -1), -1), -1)
    g = np.reshape(Out_grad, flat.shape[:-1] + (1,))
    dx = (before * after * g).reshape(moved.shape)
    return {"X@GRAD": np.transpose(dx, np.argsort(kept + list(axes))).astype(X.dtype)}


# --- along-axis gathers, scatters, masks ---------------------------------------------------------
def _along_axis(index: np.ndarray, axis: int) -> tuple:
    """The fancy index that picks `index` along `axis` and keeps every other position."""
    axis %= index.ndim
    grids = np.ogrid[tuple(slice(n) for n in index.shape)]
    return tuple(index if d == axis else grids[d] for d in range(index.ndim))


@register_op(
    "take_along_axis", inputs=["Input", Slot("Index", no_grad=True)], outputs=["Result"],
    attrs=[Attr("Axis", T.INT, 0)],
    infer=lambda ctx: {"Result": VarSpec(ctx.input("Index").shape, ctx.input("Input").dtype)},
    grad=default_grad("take_along_axis_grad"),
    doc="Result[..., i, ...] = Input[..., Index[..., i, ...], ...] along Axis",
    examples=[Example({"Input": rand(3, 4), "Index": np.array([[3, 0], [1, 1], [2, 0]], np.int64)},
                      {"Axis": 1}, lambda Input, Index, Axis: {"Result": np.array(
                          [[Input[r, c] for c in row] for r, row in enumerate(Index)])}),
              Example({"Input": rand(2, 3), "Index": np.array([[1, 0, 1]], np.int32)},
                      {"Axis": -2}, lambda Input, Index, Axis: {"Result": np.array(
                          [[Input[Index[0, c], c] for c in range(3)]])})],
)
def take_along_axis(Input, Index, Axis):
    return {"Result": Input[_along_axis(Index, Axis)]}


@register_op("take_along_axis_grad", inputs=["Input", "Index", "Result@GRAD"],
             outputs=["Input@GRAD"], attrs=[Attr("Axis", T.INT, 0)],
             infer=same_as("Input", out="Input@GRAD"), grad_of="take_along_axis",
             doc="dInput = scatter-add of dResult along Axis")
def take_along_axis_grad(Input, Index, Result_grad, Axis):
    dx = np.zeros_like(Input)
    np.add.at(dx, _along_axis(Index, Axis), Result_grad)
    return {"Input@GRAD": dx}


@register_op(
    "index_sample", inputs=["X", Slot("Index", no_grad=True)], outputs=["Out"],
    infer=lambda ctx: {"Out": VarSpec(ctx.input("Index").shape, ctx.input("X").dtype)},
    grad=default_grad("index_sample_grad"),
    doc="Out[b, k] = X[b, Index[b, k]]",
    examples=[Example({"X": rand(2, 4), "Index": np.array([[3, 3, 0], [1, 2, 0]], np.int64)},
                      expect=lambda X, Index: {"Out": np.array(
                          [[X[b, k] for k in row] for b, row in enumerate(Index)])})],
)
def index_sample(X, Index):
    return {"Out": X[_along_axis(Index, 1)]}


@register_op("index_sample_grad", inputs=["X", "Index", "Out@GRAD"], outputs=["X@GRAD"],
             infer=same_as("X", out="X@GRAD"), grad_of="index_sample",
             doc="dX[b, Index[b, k]] += dOut[b, k]")
def index_sample_grad(X, Index, Out_grad):
    dx = np.zeros_like(X)
    np.add.at(dx, _along_axis(Index, 1), Out_grad)
    return {"X@GRAD": dx}


def _scatter_expect(X, Ids, Updates, overwrite):
    out = X.copy()
    if not overwrite:
        out[Ids] = 0
    for i, row in zip(Ids, Updates):
        out[i] = row if overwrite else out[i] + row
    return {"Out": out}


@register_op(
    "scatter", inputs=["X", Slot("Ids", no_grad=True), "Updates"], outputs=["Out"],
    attrs=[Attr("overwrite", T.BOOLEAN, True)], infer=same_as("X"),
    grad=default_grad("scatter_grad", uses=["Ids", "Updates"]),
    doc="Out = X with rows Ids replaced by Updates (overwrite=False: zeroed, then summed)",
    examples=[Example({"X": rand(4, 2), "Ids": np.array([2, 0], np.int64), "Updates": rand(2, 2)},
                      {"overwrite": True}, _scatter_expect),
              Example({"X": rand(4, 2), "Ids": np.array([1, 3, 1], np.int32),
                       "Updates": rand(3, 2)}, {"overwrite": False}, _scatter_expect)],
)
def scatter(X, Ids, Updates, overwrite):
    out = X.copy()
    ids = Ids.reshape(-1)
    if overwrite:
        out[ids] = Updates  # numpy keeps the last of repeated ids, as Paddle's CPU loop does
    else:
        out[ids] = 0
        np.add.at(out, ids, Updates)
    return {"Out": out}


@register_op("scatter_grad", inputs=["Ids", "Updates", "Out@GRAD"],
             outputs=["X@GRAD", "Updates@GRAD"], attrs=[Attr("overwrite", T.BOOLEAN, True)],
             grad_of="scatter", doc="dX = dOut with rows Ids zeroed; dUpdates = dOut[Ids]")
def scatter_grad(Ids, Updates, Out_grad, overwrite):
    ids = Ids.reshape(-1)
    dx = Out_grad.copy()
    dx[ids] = 0
    return {"X@GRAD": dx, "Updates@GRAD": Out_grad[ids]}


@register_op(
    "scatter_nd_add", inputs=["X", Slot("Index", no_grad=True), "Updates"], outputs=["Out"],
    infer=same_as("X"), grad=default_grad("scatter_nd_add_grad", uses=["Index", "Updates"]),
    doc="Out = X; Out[Index[i...]] += Updates[i...] (repeated indices accumulate)",
    examples=[Example({"X": rand(3, 2), "Index": np.array([[2], [0], [2]], np.int64),
                       "Updates": rand(3, 2)},
                      expect=lambda X, Index, Updates: {"Out": X + np.stack(
                          [Updates[1], np.zeros(2, np.float32), Updates[0] + Updates[2]])})],
)
def scatter_nd_add(X, Index, Updates):
    out = X.copy()
    np.add.at(out, _nd_index(Index), Updates)
    return {"Out": out}


@register_op("scatter_nd_add_grad", inputs=["Index", "Updates", "Out@GRAD"],
             outputs=["X@GRAD", "Updates@GRAD"], grad_of="scatter_nd_add",
             doc="dX = dOut; dUpdates = dOut gathered at Index")
def scatter_nd_add_grad(Index, Updates, Out_grad):
    return {"X@GRAD": Out_grad, "Updates@GRAD": Out_grad[_nd_index(Index)]}


@register_op(
    "where_index", inputs=[Slot("Condition", no_grad=True)], outputs=["Out"],
    infer=lambda ctx: {"Out": VarSpec((-1, len(ctx.input("Condition").shape)), _I64)},
    doc="Out = the coordinates of Condition's true (nonzero) elements, in row-major order",
    examples=[Example({"Condition": np.array([[True, False], [True, True]])},
                      expect={"Out": np.array([[0, 0], [1, 0], [1, 1]], np.int64)})],
)
def where_index(Condition):
    return {"Out": np.argwhere(Condition).astype(np.int64)}


@register_op(
    "masked_select", inputs=["X", Slot("Mask", no_grad=True)], outputs=["Y"],
    infer=lambda ctx: {"Y": VarSpec((-1,), ctx.input("X").dtype)},
    grad=default_grad("masked_select_grad"),
    doc="Y = the elements of X where Mask is true, flattened in row-major order",
    examples=[Example({"X": rand(2, 3), "Mask": np.array([[True, False, True], [False] * 3])},
                      expect=lambda X, Mask: {"Y": np.array([X[0, 0], X[0, 2]])})],
)
def masked_select(X, Mask):
    return {"Y": X[np.broadcast_to(Mask, X.shape)]}


@register_op("masked_select_grad", inputs=["X", "Mask", "Y@GRAD"], outputs=["X@GRAD"],
             infer=same_as("X", out="X@GRAD"), grad_of="masked_select",
             doc="dX = dY written back at Mask's true positions, zero elsewhere")
def masked_select_grad(X, Mask, Y_grad):
    dx = np.zeros_like(X)
    dx[np.broadcast_to(Mask, X.shape)] = Y_grad
    return {"X@GRAD": dx}


# --- grids, diagonals, counters: linspace, eye, diag_v2, meshgrid, increment ---------------------
def _linspace(start, stop, num, dtype):
    """Paddle's symmetric linspace: the first half steps up from start, the rest down from stop."""
    if num == 1:
        return np.array([start], dtype)
    step = (stop - start) / (num - 1)
    i = np.arange(num)
    return np.where(i < num // 2, start + step * i, stop - step * (num - 1 - i)).astype(dtype)


@register_op(
    "linspace", inputs=[Slot("Start", no_grad=True), Slot("Stop", no_grad=True),
                        Slot("Num", no_grad=True)], outputs=["Out"],
    attrs=[Attr("dtype", T.INT, 5)],
    infer=lambda ctx: {"Out": VarSpec((-1,), dtypes.to_numpy(ctx.attr("dtype")))},
    doc="Out = num evenly spaced values from Start to Stop, both included",
    examples=[Example({"Start": np.array([0.0], np.float32), "Stop": np.array([1.0], np.float32),
                       "Num": np.array([5], np.int32)}, {"dtype": 5},
                      lambda **a: {"Out": np.array([0, 0.25, 0.5, 0.75, 1], np.float32)}),
              Example({"Start": np.array([2.0], np.float32), "Stop": np.array([-4.0], np.float32),
                       "Num": np.array([4], np.int32)}, {"dtype": 3},
                      lambda **a: {"Out": np.array([2, 0, -2, -4], np.int64)})],
)
def linspace(Start, Stop, Num, dtype):
    num = _ints(Num)[0]
    values = _linspace(float(np.asarray(Start).reshape(-1)[0]),
                       float(np.asarray(Stop).reshape(-1)[0]), num, np.float64)
    return {"Out": values.astype(dtypes.to_numpy(dtype))}


def _infer_eye(ctx):
    rows, cols = ctx.attr("num_rows"), ctx.attr("num_columns")
    return {"Out": VarSpec((rows, rows if cols == -1 else cols),
                           dtypes.to_numpy(ctx.attr("dtype")))}


@register_op(
    "eye", outputs=["Out"],
    attrs=[Attr("num_rows", T.LONG, 1), Attr("num_columns", T.LONG, -1), Attr("dtype", T.INT, 5)],
    infer=_infer_eye, doc="Out = identity matrix [num_rows, num_columns (-1: num_rows)]",
    examples=[Example({}, {"num_rows": 2, "num_columns": 3},
                      lambda **a: {"Out": np.array([[1, 0, 0], [0, 1, 0]], np.float32)}),
              Example({}, {"num_rows": 2, "dtype": 3},
                      lambda **a: {"Out": np.array([[1, 0], [0, 1]], np.int64)})],
)
def eye(num_rows, num_columns, dtype):
    cols = num_rows if num_columns == -1 else num_columns
    return {"Out": np.eye(num_rows, cols, dtype=dtypes.to_numpy(dtype))}


_DIAG_ATTRS = [Attr("offset", T.INT, 0), Attr("padding_value", T.FLOAT, 0.0)]


def _infer_diag(ctx):
    x, k = ctx.input("X"), ctx.attr("offset")
    if len(x.shape) == 1:
        n = -1 if x.shape[0] == -1 else x.shape[0] + abs(k)
        return {"Out": VarSpec((n, n), x.dtype)}
    rows, cols = x.shape
    n = -1 if -1 in (rows, cols) else max(0, min(rows, cols - k) if k >= 0 else min(rows + k,
                                                                                    cols))
    return {"Out": VarSpec((n,), x.dtype)}


@register_op(
    "diag_v2", inputs=["X"], outputs=["Out"], attrs=_DIAG_ATTRS, infer=_infer_diag,
    grad=default_grad("diag_v2_grad", uses=["X"]),
    doc="1-D X: a matrix with X on diagonal `offset`, padding_value elsewhere; 2-D X: that "
        "diagonal of X",
    examples=[Example({"X": rand(2)}, {"offset": 1, "padding_value": 0.5},
                      lambda X, **a: {"Out": np.array([[0.5, X[0], 0.5], [0.5, 0.5, X[1]],
                                                       [0.5, 0.5, 0.5]], np.float32)}),
              Example({"X": rand(3, 4)}, {"offset": -1},
                      lambda X, **a: {"Out": np.array([X[1, 0], X[2, 1]])})],
)
def diag_v2(X, offset, padding_value):
    if X.ndim == 2:
        return {"Out": np.ascontiguousarray(np.diagonal(X, offset))}
    out = np.diag(X, offset)
    out[~np.eye(*out.shape, k=offset, dtype=bool)] = padding_value
    return {"Out": out}


@register_op("diag_v2_grad", inputs=["X", "Out@GRAD"], outputs=["X@GRAD"], attrs=_DIAG_ATTRS,
             infer=same_as("X", out="X@GRAD"), grad_of="diag_v2",
             doc="dX = the diagonal of dOut (1-D X) or dOut placed on the diagonal (2-D X)")
def diag_v2_grad(X, Out_grad, offset, padding_value):
    if X.ndim == 1:
        return {"X@GRAD": np.ascontiguousarray(np.diagonal(Out_grad, offset))}
    dx = np.zeros_like(X)
    rows = np.arange(Out_grad.shape[0]) + max(-offset, 0)
    dx[rows, rows + offset] = Out_grad
    return {"X@GRAD": dx}


def _infer_meshgrid(ctx):
    xs = ctx.input_list("X")
    shape = tuple(x.shape[0] if x.shape else 1 for x in xs)
    return {"Out": [VarSpec(shape, x.dtype) for x in xs]}


@register_op(
    "meshgrid", inputs=[Slot("X", duplicable=True)], outputs=[Slot("Out", duplicable=True)],
    infer=_infer_meshgrid, grad=default_grad("meshgrid_grad"),
    doc="Out[i] = X[i] broadcast along every other input's axis ('ij' indexing)",
    examples=[Example({"X": [rand(2), rand(3)]}, expect=lambda X: {
        "Out": [np.stack([X[0]] * 3, 1), np.stack([X[1]] * 2, 0)]})],
)
def meshgrid(X):
    return {"Out": [np.ascontiguousarray(a) for a in np.meshgrid(*X, indexing="ij")]}


@register_op("meshgrid_grad", inputs=[Slot("X", duplicable=True),
                                      Slot("Out@GRAD", duplicable=True)],
             outputs=[Slot("X@GRAD", duplicable=True)], grad_of="meshgrid",
             doc="dX[i] = dOut[i] summed over every axis but i")
def meshgrid_grad(X, Out_grad):
    n = len(X)
    grads = [np.zeros_like(x) if g is None else
             g.sum(axis=tuple(a for a in range(n) if a != i)).reshape(X[i].shape)
             for i, (x, g) in enumerate(zip(X, Out_grad))]
    return {"X@GRAD": grads}


@register_op(
    "increment", inputs=["X"], outputs=["Out"], attrs=[Attr("step", T.FLOAT, 1.0)],
    infer=same_as("X"), doc="Out = X + step (X has one element; a loop counter)",
    examples=[Example({"X": np.array([3], np.int64)}, {"step": 2.0},
                      expect=lambda X, step: {"Out": np.array([5], np.int64)}),
              Example({"X": np.array([0.5], np.float32)}, {"step": -1.5},
                      expect=lambda X, step: {"Out": np.array([-1.0], np.float32)})],
)
def increment(X, step):
    return {"Out": (X + step).astype(X.dtype)}


# --- set_value (static `x[index] = value`) and assign_value (constants) --------------------------
_SV_TENSORS = [Slot("ValueTensor", dispensable=True),
               Slot("StartsTensorList", duplicable=True, dispensable=True, no_grad=True),
               Slot("EndsTensorList", duplicable=True, dispensable=True, no_grad=True),
               Slot("StepsTensorList", duplicable=True, dispensable=True, no_grad=True)]
_SV_ATTRS = [Attr("dtype", T.INT, 5), Attr("axes", T.LONGS, []), Attr("starts", T.LONGS, []),
             Attr("ends", T.LONGS, []), Attr("steps", T.LONGS, []),
             Attr("decrease_axes", T.LONGS, []), Attr("none_axes", T.LONGS, []),
             Attr("values", T.SCALARS, []), Attr("shape", T.LONGS, [])]


def _sv_region(Input, StartsTensorList, EndsTensorList, StepsTensorList, axes, starts, ends,
               steps, decrease_axes, none_axes):
    """(index into Input, the shape a value is broadcast to before it is written there)."""
    index = _ss_index(Input.ndim, axes, _runtime_ints(None, StartsTensorList, starts),
                      _runtime_ints(None, EndsTensorList, ends),
                      _runtime_ints(None, StepsTensorList, steps))
    region = list(np.empty(Input.shape, bool)[index].shape)
    value_shape = [d for i, d in enumerate(region) if i not in {a % Input.ndim
                                                                   for a in decrease_axes}]
    for axis in sorted(none_axes):
        value_shape.insert(axis, 1)
    return index, tuple(region), tuple(value_shape)


@register_op(
    "set_value", inputs=["Input", *_SV_TENSORS], outputs=["Out"], attrs=_SV_ATTRS,
    infer=same_as("Input"),
    grad=default_grad("set_value_grad", uses=[s.name for s in _SV_TENSORS]),
    doc="Out = Input with Out[starts:ends:steps on axes] = ValueTensor (or `values` in `shape`),"
        " broadcast",
    examples=[Example({"Input": rand(3, 4)},
                      {"axes": [0, 1], "starts": [1, 0], "ends": [2**31 - 1, 1], "steps": [1, 1],
                       "decrease_axes": [1], "values": [5.0], "shape": [1]},
                      lambda Input, **a: {"Out": np.concatenate(
                          [Input[:1], np.concatenate([np.full((2, 1), 5, np.float32),
                                                      Input[1:, 1:]], 1)])}),
              Example({"Input": rand(3, 4), "ValueTensor": rand(2)},
                      {"axes": [0, 1], "starts": [0, 0], "ends": [1, 2**31 - 1],
                       "steps": [1, 2], "decrease_axes": [0]},
                      lambda Input, ValueTensor, **a: {"Out": np.concatenate(
                          [np.stack([ValueTensor[0], Input[0, 1], ValueTensor[1],
                                     Input[0, 3]])[None], Input[1:]])}),
              Example({"Input": rand(2, 3), "ValueTensor": rand(1, 3)},
                      {"axes": [0], "starts": [-1], "ends": [2], "steps": [1]},
                      lambda Input, ValueTensor, **a: {"Out": np.concatenate(
                          [Input[:1], ValueTensor])})],
)
def set_value(Input, ValueTensor, StartsTensorList, EndsTensorList, StepsTensorList, dtype,
              axes, starts, ends, steps, decrease_axes, none_axes, values, shape):
    index, region, value_shape = _sv_region(Input, StartsTensorList, EndsTensorList,
                                            StepsTensorList, axes, starts, ends, steps,
                                            decrease_axes, none_axes)
    value = ValueTensor if ValueTensor is not None else \
        np.asarray(values, dtypes.to_numpy(dtype)).reshape(shape)
    out = Input.copy()
    out[index] = np.broadcast_to(value, value_shape).reshape(region)
    return {"Out": out}


@register_op(
    "set_value_grad", inputs=["Out@GRAD", *_SV_TENSORS],
    outputs=[Slot("Input@GRAD", dispensable=True), Slot("ValueTensor@GRAD", dispensable=True)],
    attrs=_SV_ATTRS, grad_of="set_value",
    doc="dInput = dOut with the written region zeroed; dValue = dOut's region, unbroadcast")
def set_value_grad(Out_grad, ValueTensor, StartsTensorList, EndsTensorList, StepsTensorList,
                   dtype, axes, starts, ends, steps, decrease_axes, none_axes, values, shape):
    index, _, value_shape = _sv_region(Out_grad, StartsTensorList, EndsTensorList,
                                       StepsTensorList, axes, starts, ends, steps,
                                       decrease_axes, none_axes)
    dx = Out_grad.copy()
    dx[index] = 0
    grads = {"Input@GRAD": dx}
    if ValueTensor is not None:
        grads["ValueTensor@GRAD"] = unbroadcast(Out_grad[index].reshape(value_shape),
                                                ValueTensor.shape)
    return grads


def _infer_assign_value(ctx):
    return {"Out": VarSpec(tuple(ctx.attr("shape")), dtypes.to_numpy(ctx.attr("dtype")))}


@register_op(
    "assign_value", inputs=[Slot("ValuesTensor", dispensable=True)], outputs=["Out"],
    attrs=[Attr("shape", T.INTS, []), Attr("dtype", T.INT, 5), Attr("values", T.SCALARS, []),
           Attr("bool_values", T.INTS, []), Attr("fp32_values", T.FLOATS, []),
           Attr("int32_values", T.INTS, []), Attr("int64_values", T.LONGS, []),
           Attr("fp64_values", T.FLOAT64S, [])],
    infer=_infer_assign_value,
    # Paddle 2.x wrote the values in a typed list (fp32_values, ...); 3.x writes `values`.
    doc="Out = the constant `values` with `shape` and `dtype`",
    examples=[Example({}, {"shape": [2, 2], "dtype": 5, "values": [1.5, 2.5, -1.0, 0.0]},
                      lambda **a: {"Out": np.array([[1.5, 2.5], [-1, 0]], np.float32)}),
              Example({}, {"shape": [3], "dtype": 3, "int64_values": [4, 5, 6]},
                      lambda **a: {"Out": np.array([4, 5, 6], np.int64)})],
)
def assign_value(ValuesTensor, shape, dtype, values, bool_values, fp32_values, int32_values,
                 int64_values, fp64_values):
    if ValuesTensor is not None:
        return {"Out": np.asarray(ValuesTensor).astype(dtypes.to_numpy(dtype)).reshape(shape)}
    legacy = (bool_values, fp32_values, int32_values, int64_values, fp64_values)
    data = values or next((v for v in legacy if len(v)), [])
    return {"Out": np.asarray(data).astype(dtypes.to_numpy(dtype)).reshape(shape)}


# --- Paddle 1.x/2.x ops older models still carry: lookup_table, expand, top_k --------------------
_LOOKUP_V1_ATTRS = [
    Attr("is_sparse", T.BOOLEAN, False), Attr("is_distributed", T.BOOLEAN, False),
    Attr("padding_idx", T.LONG, -1), Attr("remote_prefetch", T.BOOLEAN, False),
    Attr("entry_config", T.STRING, ""), Attr("entry", T.STRING, "none"),
    Attr("table_class", T.STRING, "none"), Attr("table_names", T.STRINGS, []),
    Attr("trainer_id", T.INT, 0), Attr("slot", T.INT, 0), Attr("grad_inplace", T.BOOLEAN, False),
    Attr("epmap", T.STRINGS, []), Attr("height_sections", T.LONGS, [])]


def _v1_ids(Ids):
    """lookup_table (v1) takes ids with a trailing dim of 1."""
    return Ids[..., 0] if Ids.ndim > 1 and Ids.shape[-1] == 1 else Ids


def _infer_lookup_v1(ctx):
    ids, w = ctx.input("Ids"), ctx.input("W")
    lead = ids.shape[:-1] if len(ids.shape) > 1 and ids.shape[-1] == 1 else ids.shape
    return {"Out": VarSpec(tuple(lead) + (w.shape[1],), w.dtype)}


@register_op(
    "lookup_table", inputs=["W", Slot("Ids", no_grad=True)], outputs=["Out"],
    attrs=_LOOKUP_V1_ATTRS, infer=_infer_lookup_v1,
    grad=default_grad("lookup_table_grad", uses=["Ids", "W"]),
    doc="Out = W[Ids[..., 0]] (the v1 embedding: Ids end in a dim of 1); padding rows are 0",
    examples=[Example({"W": rand(5, 3), "Ids": np.array([[[1], [0]], [[4], [1]]], np.int64)},
                      {"padding_idx": 0},
                      lambda W, Ids, padding_idx: _lookup_expect(Ids[..., 0], W, padding_idx))],
)
def lookup_table(W, Ids, is_sparse, is_distributed, padding_idx, remote_prefetch, entry_config,
                 entry, table_class, table_names, trainer_id, slot, grad_inplace, epmap,
                 height_sections):
    return lookup_table_v2(_v1_ids(Ids), W, padding_idx)


@register_op("lookup_table_grad", inputs=["Ids", "W", "Out@GRAD"], outputs=["W@GRAD"],
             attrs=_LOOKUP_V1_ATTRS, infer=same_as("W", out="W@GRAD"), grad_of="lookup_table",
             doc="dW[i] = sum of dOut rows whose id is i (padding row: 0)")
def lookup_table_grad(Ids, W, Out_grad, is_sparse, is_distributed, padding_idx, remote_prefetch,
                      entry_config, entry, table_class, table_names, trainer_id, slot,
                      grad_inplace, epmap, height_sections):
    return lookup_table_v2_grad(_v1_ids(Ids), W, Out_grad, padding_idx)


_EXPAND_V1_SLOTS = [Slot("ExpandTimes", dispensable=True, no_grad=True),
                    Slot("expand_times_tensor", duplicable=True, dispensable=True, no_grad=True)]


def _infer_expand_v1(ctx):
    x = ctx.input("X")
    if ctx.inputs.get("ExpandTimes") or ctx.inputs.get("expand_times_tensor"):
        return {"Out": VarSpec((-1,) * len(x.shape), x.dtype)}
    return {"Out": VarSpec(_tiled_shape(x.shape, ctx.attr("expand_times")), x.dtype)}


@register_op(
    "expand", inputs=["X", *_EXPAND_V1_SLOTS], outputs=["Out"],
    attrs=[Attr("expand_times", T.INTS, [])], infer=_infer_expand_v1,
    grad=default_grad("expand_grad"),
    doc="Out = X repeated expand_times[i] times along dim i (the v1 expand is a tile)",
    examples=[Example({"X": rand(2, 3)}, {"expand_times": [1, 2]},
                      lambda X, expand_times: {"Out": np.concatenate([X, X], 1)})],
)
def expand(X, ExpandTimes, expand_times_tensor, expand_times):
    return tile(X, ExpandTimes, expand_times_tensor, expand_times)


@register_op("expand_grad", inputs=["X", *_EXPAND_V1_SLOTS, "Out@GRAD"], outputs=["X@GRAD"],
             attrs=[Attr("expand_times", T.INTS, [])], infer=same_as("X", out="X@GRAD"),
             grad_of="expand", doc="dX = dOut summed over the copies")
def expand_grad(X, ExpandTimes, expand_times_tensor, Out_grad, expand_times):
    return tile_grad(X, ExpandTimes, expand_times_tensor, Out_grad, expand_times)


@register_op(
    "top_k", inputs=["X", Slot("K", dispensable=True, no_grad=True)],
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


# --- cumprod, logsumexp --------------------------------------------------------------------------
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
    "cumprod", inputs=["X"], outputs=["Out"], attrs=_CUMPROD_ATTRS, infer=same_as("X"),
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


_LSE_ATTRS = [Attr("axis", T.INTS, []), Attr("keepdim", T.BOOLEAN, False),
              Attr("reduce_all", T.BOOLEAN, False)]


def _infer_logsumexp(ctx):
    x = ctx.input("X")
    axes = reduced_axes(len(x.shape), ctx.attr("axis"), ctx.attr("reduce_all"))
    return {"Out": VarSpec(_reduced_shape(x.shape, axes, ctx.attr("keepdim")), x.dtype)}


@register_op(
    "logsumexp", inputs=["X"], outputs=["Out"], attrs=_LSE_ATTRS, infer=_infer_logsumexp,
    grad=default_grad("logsumexp_grad", uses=["X", "Out"]),
    doc="Out = log(sum(exp(X))) over axis (all axes when empty or reduce_all), computed stably",
    examples=[Example({"X": rand(3, 4)}, {"axis": [1]},
                      lambda X, axis: {"Out": np.log(np.exp(X.astype(np.float64)).sum(1))
                                       .astype(np.float32)}),
              Example({"X": np.array([[1000.0, 1000.0], [-5.0, 0.0]])},
                      {"axis": [0, 1], "keepdim": True},
                      lambda X, **a: {"Out": np.array([[1000.0 + np.log(2.0)]])})],
)
def logsumexp(X, axis, keepdim, reduce_all):
    axes = reduced_axes(X.ndim, axis, reduce_all)
    peak = X.max(axis=axes, keepdims=True)
    out = np.log(np.exp(X - peak).sum(axis=axes, keepdims=True)) + peak
    return {"Out": (out if keepdim else np.squeeze(out, axes)).astype(X.dtype, copy=False)}


@register_op("logsumexp_grad", inputs=["X", "Out", "Out@GRAD"], outputs=["X@GRAD"],
             attrs=_LSE_ATTRS, infer=same_as("X", out="X@GRAD"), grad_of="logsumexp",
             doc="dX = dOut * exp(X - Out), i.e. dOut * softmax(X) over the axes")
def logsumexp_grad(X, Out, Out_grad, axis, keepdim, reduce_all):
    axes = reduced_axes(X.ndim, axis, reduce_all)
    kept = tuple(1 if i in axes else d for i, d in enumerate(X.shape))
    return {"X@GRAD": (Out_grad.reshape(kept) * np.exp(X - Out.reshape(kept))).astype(X.dtype)}


# --- decoding helpers: gather_tree (beam search), sequence_mask ---------------------------------
@register_op(
    "gather_tree", inputs=[Slot("Ids", no_grad=True), Slot("Parents", no_grad=True)],
    outputs=["Out"], infer=same_as("Ids"),
    doc="Out = the full beam-search paths: walk Parents back from the last step [T, B, beam]",
    examples=[Example({"Ids": np.array([[[2, 5]], [[6, 1]], [[3, 9]]], np.int64),
                       "Parents": np.array([[[0, 0]], [[1, 0]], [[1, 0]]], np.int64)},
                      expect={"Out": np.array([[[2, 5]], [[1, 6]], [[3, 9]]], np.int64)})],
)
def gather_tree(Ids, Parents):
    out = np.empty_like(Ids)
    batch = np.arange(Ids.shape[1])[:, None]
    beam = np.broadcast_to(np.arange(Ids.shape[2]), Ids.shape[1:])
    for t in range(Ids.shape[0] - 1, -1, -1):
        out[t] = Ids[t][batch, beam]
        beam = Parents[t][batch, beam]
    return {"Out": out}


def _infer_sequence_mask(ctx):
    x = ctx.input("X")
    length = -1 if ctx.inputs.get("MaxLenTensor") or ctx.attr("maxlen") < 0 else \
        ctx.attr("maxlen")
    return {"Y": VarSpec(tuple(x.shape) + (length,), dtypes.to_numpy(ctx.attr("out_dtype")))}


@register_op(
    "sequence_mask", inputs=[Slot("X", no_grad=True), Slot("MaxLenTensor", dispensable=True)],
    outputs=["Y"], attrs=[Attr("maxlen", T.INT, -1), Attr("out_dtype", T.INT, 3)],
    infer=_infer_sequence_mask,
    doc="Y[..., j] = j < X[...] for j < maxlen (maxlen -1: the largest length in X)",
    examples=[Example({"X": np.array([3, 1, 0], np.int64)}, {"maxlen": -1, "out_dtype": 3},
                      lambda X, **a: {"Y": np.array([[1, 1, 1], [1, 0, 0], [0, 0, 0]],
                                                    np.int64)}),
              Example({"X": np.array([[2], [4]], np.int32)}, {"maxlen": 3, "out_dtype": 5},
                      lambda X, **a: {"Y": np.array([[[1, 1, 0]], [[1, 1, 1]]], np.float32)})],
)
def sequence_mask(X, MaxLenTensor, maxlen, out_dtype):
    if MaxLenTensor is not None:
        maxlen = _ints(MaxLenTensor)[0]
    if maxlen < 0:
        maxlen = int(X.max()) if X.size else 0
    return {"Y": (np.arange(maxlen) < X[..., None]).astype(dtypes.to_numpy(out_dtype))}


# --- put_along_axis, index_add, repeat_interleave ---------------------------------------------
_PUT_ATTRS = [Attr("Axis", T.INT, 0), Attr("Reduce", T.STRING, "assign"),
              Attr("Include_self", T.BOOLEAN, True)]
_PUT_REDUCE = {"assign": (None, None), "add": (np.add, 0), "mul": (np.multiply, 1),
               "multiply": (np.multiply, 1)}


def _put_expect(Input, Index, Value, Axis, Reduce="assign", Include_self=True):
    out = Input.copy()
    for pos in np.ndindex(Index.shape):
        target = list(pos)
        target[Axis] = Index[pos]
        target = tuple(target)
        out[target] = Value[pos] if Reduce == "assign" else out[target] + Value[pos]
    return {"Result": out}


@register_op(
    "put_along_axis", inputs=["Input", Slot("Index", no_grad=True), "Value"],
    outputs=["Result"], attrs=_PUT_ATTRS, infer=lambda ctx: {"Result": ctx.input("Input")},
    grad=default_grad("put_along_axis_grad", uses=["Input", "Index", "Value", "Result"]),
    doc="Result = Input with Value written (Reduce=assign) or combined (add, mul) at Index "
        "along Axis",
    examples=[Example({"Input": rand(2, 4), "Index": np.array([[3, 0], [1, 2]], np.int64),
                       "Value": rand(2, 2)}, {"Axis": 1}, _put_expect),
              Example({"Input": rand(3, 2), "Index": np.array([[2, 0], [0, 0]], np.int64),
                       "Value": rand(2, 2)}, {"Axis": 0, "Reduce": "add"}, _put_expect)],
)
def put_along_axis(Input, Index, Value, Axis, Reduce, Include_self):
    if Reduce not in _PUT_REDUCE:
        raise PyirError(f"put_along_axis: Reduce={Reduce!r} is not supported; pyir has "
                        f"{', '.join(_PUT_REDUCE)}")
    where = _along_axis(Index, Axis)
    value = np.broadcast_to(Value, Index.shape)
    out = Input.copy()
    combine, identity = _PUT_REDUCE[Reduce]
    if combine is None:
        out[where] = value
        return {"Result": out}
    if not Include_self:
        out[where] = identity
    combine.at(out, where, value)
    return {"Result": out}


@register_op("put_along_axis_grad", inputs=["Input", "Index", "Value", "Result", "Result@GRAD"],
             outputs=["Input@GRAD", "Value@GRAD"], attrs=_PUT_ATTRS, grad_of="put_along_axis",
             doc="assign: dInput = dResult zeroed at Index; add: dInput = dResult; "
                 "dValue = dResult at Index")
def put_along_axis_grad(Input, Index, Value, Result, Result_grad, Axis, Reduce, Include_self):
    if Reduce not in ("assign", "add") or not Include_self:
        raise PyirError(f"put_along_axis_grad: pyir differentiates Reduce='assign' or 'add' "
                        f"with Include_self=True, not Reduce={Reduce!r}, "
                        f"Include_self={Include_self}")
    where = _along_axis(Index, Axis)
    dx = Result_grad.copy()
    if Reduce == "assign":
        dx[where] = 0
    return {"Input@GRAD": dx, "Value@GRAD": unbroadcast(Result_grad[where], Value.shape)}


@register_op(
    "index_add", inputs=["X", Slot("Index", no_grad=True), "AddValue"], outputs=["Out"],
    attrs=[Attr("axis", T.INT, 0)], infer=same_as("X"),
    grad=default_grad("index_add_grad", uses=["Index", "AddValue"]),
    doc="Out = X; Out[..., Index[i], ...] += AddValue[..., i, ...] along axis",
    examples=[Example({"X": rand(2, 4), "Index": np.array([3, 0, 3], np.int64),
                       "AddValue": rand(2, 3)}, {"axis": 1},
                      lambda X, Index, AddValue, axis: {"Out": X + np.stack(
                          [AddValue[:, 1], np.zeros(2, np.float32), np.zeros(2, np.float32),
                           AddValue[:, 0] + AddValue[:, 2]], 1)})],
)
def index_add(X, Index, AddValue, axis):
    out = X.copy()
    np.add.at(np.moveaxis(out, axis, 0), Index, np.moveaxis(AddValue, axis, 0))
    return {"Out": out}


@register_op("index_add_grad", inputs=["Index", "AddValue", "Out@GRAD"],
             outputs=["X@GRAD", "AddValue@GRAD"], attrs=[Attr("axis", T.INT, 0)],
             grad_of="index_add", doc="dX = dOut; dAddValue = dOut taken at Index along axis")
def index_add_grad(Index, AddValue, Out_grad, axis):
    return {"X@GRAD": Out_grad, "AddValue@GRAD": np.take(Out_grad, Index, axis=axis)}


_REPEAT_ATTRS = [Attr("Repeats", T.INT, 0), Attr("dim", T.INT, 0),
                 Attr("output_size", T.LONG, -1)]


def _repeats(RepeatsTensor, Repeats):
    return np.asarray(RepeatsTensor).reshape(-1) if RepeatsTensor is not None else Repeats


def _infer_repeat(ctx):
    x = ctx.input("X")
    dim = ctx.attr("dim") % len(x.shape)
    n = -1 if ctx.inputs.get("RepeatsTensor") or x.shape[dim] == -1 else \
        x.shape[dim] * ctx.attr("Repeats")
    return {"Out": VarSpec(tuple(n if i == dim else d for i, d in enumerate(x.shape)), x.dtype)}


@register_op(
    "repeat_interleave", inputs=["X", Slot("RepeatsTensor", dispensable=True, no_grad=True)],
    outputs=["Out"], attrs=_REPEAT_ATTRS, infer=_infer_repeat,
    grad=default_grad("repeat_interleave_grad", uses=["X", "RepeatsTensor"]),
    doc="Out = each slice of X along dim repeated Repeats times (or RepeatsTensor[i] times)",
    examples=[Example({"X": rand(2, 3)}, {"Repeats": 2, "dim": 1},
                      lambda X, **a: {"Out": X[:, [0, 0, 1, 1, 2, 2]]}),
              Example({"X": rand(3, 2), "RepeatsTensor": np.array([1, 0, 2], np.int64)},
                      {"dim": 0}, lambda X, **a: {"Out": X[[0, 2, 2]]})],
)
def repeat_interleave(X, RepeatsTensor, Repeats, dim, output_size):
    return {"Out": np.repeat(X, _repeats(RepeatsTensor, Repeats), axis=dim)}


@register_op("repeat_interleave_grad", inputs=["X", Slot("RepeatsTensor", dispensable=True),
                                               "Out@GRAD"], outputs=["X@GRAD"],
             attrs=_REPEAT_ATTRS, infer=same_as("X", out="X@GRAD"),
             grad_of="repeat_interleave", doc="dX[i] = sum of dOut over slice i's copies")
def repeat_interleave_grad(X, RepeatsTensor, Out_grad, Repeats, dim, output_size):
    counts = np.broadcast_to(_repeats(RepeatsTensor, Repeats), (X.shape[dim],))
    owner = np.repeat(np.arange(X.shape[dim]), counts)
    dx = np.zeros_like(X)
    np.add.at(np.moveaxis(dx, dim, 0), owner, np.moveaxis(Out_grad, dim, 0))
    return {"X@GRAD": dx}
