"""Shape manipulation: reshape2, transpose2, squeeze2, unsqueeze2, concat, split, stack
(gather and slice are in gather_slice.py).

The `*2` ops also output `XShape`, an empty tensor of shape [0, *X.shape] that only carries
X's shape to the gradient op (Paddle's trick to avoid keeping X alive for the backward).
"""

from __future__ import annotations

import math

import numpy as np

from ..registry import Attr, Example, GradOp, Slot, VarSpec, register_op
from ..registry import AttrType as T
from ._double_grad import linear_rule
from ._helpers import default_grad, grad_name, rand


def _aux(name: str, duplicable: bool = False) -> Slot:
    """An optional tensor input that overrides an attribute (never differentiated)."""
    return Slot(name, duplicable=duplicable, dispensable=True, no_grad=True)


# Paddle drops these ops' XShape from saved inference programs (reshape2 keeps its own).
_XSHAPE_EXTRA = Slot("XShape", extra=True)


def _xshape(shape: tuple) -> tuple:
    return (0, *shape)


def _xshape_array(X: np.ndarray) -> np.ndarray:
    return np.empty(_xshape(X.shape), X.dtype)


def _infer_from_xshape(ctx):
    xs = ctx.input("XShape")
    return {"X@GRAD": VarSpec(tuple(xs.shape[1:]), xs.dtype)}


def _xshape_grad(grad_type: str):
    """Grad maker of the `*2` ops: (XShape, Out@GRAD) -> X@GRAD, attributes copied."""

    def make(op, opdef):
        attrs = {a.name: op.attrs[a.name] for a in opdef.attrs if a.name in op.attrs}
        return [GradOp(grad_type, {"XShape": op.output("XShape"),
                                   "Out@GRAD": [grad_name(op.output("Out")[0])]},
                       {"X@GRAD": [grad_name(op.input("X")[0])]}, attrs)]

    return make


def _infer_xshape_op(out_shape, *attr_names):
    """Infer Out from out_shape(x_shape, *attrs) and XShape from X."""

    def infer(ctx):
        x = ctx.input("X")
        shape = out_shape(tuple(x.shape), *[ctx.attr(n) for n in attr_names])
        return {"Out": VarSpec(tuple(shape), x.dtype), "XShape": VarSpec(_xshape(x.shape), x.dtype)}

    return infer


def _reshaped_grad(XShape, Out_grad):
    """The gradient of every pure reshape (reshape2, squeeze2, unsqueeze2)."""
    return {"X@GRAD": Out_grad.reshape(XShape.shape[1:])}


# --- reshape2 ---------------------------------------------------------------------------------
def reshape_target(x_shape: tuple, shape) -> tuple:
    """Paddle's reshape rule: 0 copies X's dim, one -1 takes what is left (-1 if unknown)."""
    out = [x_shape[i] if d == 0 else int(d) for i, d in enumerate(shape)]
    if [int(d) for d in shape].count(-1) > 1:
        raise ValueError(f"shape {list(shape)} has more than one -1")
    known_in = math.prod(d for d in x_shape if d >= 0)
    known_out = math.prod(d for d in out if d >= 0)
    if all(d >= 0 for d in x_shape):
        if -1 in out:
            out[out.index(-1)] = known_in // known_out if known_out else 0
        elif known_in != known_out:
            raise ValueError(f"cannot reshape {known_in} elements into {list(shape)}")
    elif -1 not in out and known_in and known_out % known_in:
        raise ValueError(f"cannot reshape {list(x_shape)} into {list(shape)}")
    return tuple(out)


_RESHAPE_AUX = [_aux("Shape"), _aux("ShapeTensor", duplicable=True)]


def _infer_reshape(ctx):
    """reshape_target on the attribute; with a Shape tensor every dim is unknown, with a
    ShapeTensor list the tensor-given dims are (-1 in the attribute, as Paddle infers)."""
    x = ctx.input("X")
    xshape = VarSpec(_xshape(x.shape), x.dtype)
    if ctx.inputs.get("Shape"):
        count = ctx.input("Shape").shape[0]
        return {"Out": VarSpec((-1,) * max(count, 1), x.dtype), "XShape": xshape}
    if ctx.inputs.get("ShapeTensor"):
        shape = tuple(x.shape[i] if d == 0 else d for i, d in enumerate(ctx.attr("shape")))
        return {"Out": VarSpec(shape, x.dtype), "XShape": xshape}
    return {"Out": VarSpec(reshape_target(tuple(x.shape), ctx.attr("shape")), x.dtype),
            "XShape": xshape}


@register_op(
    "reshape2", inputs=["X", *_RESHAPE_AUX], outputs=["Out", "XShape"],
    attrs=[Attr("shape", T.INTS, [])], infer=_infer_reshape,
    grad=_xshape_grad("reshape2_grad"),
    doc="Out = X reshaped to `shape` (0 copies a dim, -1 is inferred)",
    examples=[
        Example({"X": rand(2, 3, 4)}, {"shape": [6, -1]},
                lambda X, shape: {"Out": X.reshape(6, 4)}),
        Example({"X": rand(2, 3, 4)}, {"shape": [0, 12]},
                lambda X, shape: {"Out": X.reshape(2, 12)}),
    ],
)
def reshape2(X, Shape, ShapeTensor, shape):
    if Shape is not None:
        shape = [int(d) for d in np.asarray(Shape).reshape(-1)]
    elif ShapeTensor:
        shape = [int(np.asarray(t).reshape(-1)[0]) for t in ShapeTensor]
    return {"Out": X.reshape(reshape_target(X.shape, shape)), "XShape": _xshape_array(X)}


@register_op(
    "reshape2_grad", inputs=[*_RESHAPE_AUX, "XShape", "Out@GRAD"], outputs=["X@GRAD"],
    attrs=[Attr("shape", T.INTS, [])], infer=_infer_from_xshape, grad_of="reshape2",
    grad=linear_rule("reshape2", attr_names=("shape",), extra=("Shape", "ShapeTensor")),
    doc="dX = dOut reshaped to X's shape",
)
def reshape2_grad(Shape, ShapeTensor, XShape, Out_grad, shape):
    return _reshaped_grad(XShape, Out_grad)


# --- transpose2 -------------------------------------------------------------------------------
@register_op(
    "transpose2", inputs=["X"], outputs=["Out", _XSHAPE_EXTRA], attrs=[Attr("axis", T.INTS, [])],
    infer=_infer_xshape_op(lambda x, axis: tuple(x[a] for a in axis), "axis"),
    grad=_xshape_grad("transpose2_grad"), doc="Out = X with its dims permuted by `axis`",
    examples=[
        Example({"X": rand(2, 3, 4)}, {"axis": [2, 0, 1]},
                lambda X, axis: {"Out": X.transpose(2, 0, 1)}),
        Example({"X": rand(3, 5)}, {"axis": [1, 0]}, lambda X, axis: {"Out": X.T}),
    ],
)
def transpose2(X, axis):
    return {"Out": np.array(np.transpose(X, axis)), "XShape": _xshape_array(X)}


@register_op(
    "transpose2_grad", inputs=["XShape", "Out@GRAD"], outputs=["X@GRAD"],
    attrs=[Attr("axis", T.INTS, [])], infer=_infer_from_xshape, grad_of="transpose2",
    grad=linear_rule("transpose2", attr_names=("axis",)),
    doc="dX = dOut transposed by the inverse permutation",
)
def transpose2_grad(XShape, Out_grad, axis):
    return {"X@GRAD": np.array(np.transpose(Out_grad, np.argsort(axis)))}


# --- unsqueeze2 / squeeze2 --------------------------------------------------------------------
def unsqueeze_shape(x_shape: tuple, axes) -> tuple:
    """Insert 1s at `axes` one after another; a negative axis counts from the growing end."""
    out = list(x_shape)
    for a in axes:
        a = a + len(out) + 1 if a < 0 else a
        out.insert(a, 1)
    return tuple(out)


def squeeze_shape(x_shape: tuple, axes) -> tuple:
    """Drop the size-1 dims named in `axes` (all size-1 dims when empty); others stay.

    An unknown (-1) dim named in `axes` is taken to be 1; without `axes` it stays.
    """
    n = len(x_shape)
    wanted = {a % n for a in axes} if axes else set(range(n))
    squeezable = (1, -1) if axes else (1,)
    return tuple(d for i, d in enumerate(x_shape) if not (i in wanted and d in squeezable))


_AXES_AUX = [_aux("AxesTensor"), _aux("AxesTensorList", duplicable=True)]


def _runtime_axes(AxesTensor, AxesTensorList, axes):
    if AxesTensor is not None:
        return [int(a) for a in np.asarray(AxesTensor).reshape(-1)]
    if AxesTensorList:
        return [int(np.asarray(t).reshape(-1)[0]) for t in AxesTensorList]
    return axes


@register_op(
    "unsqueeze2", no_extra_attrs=True, inputs=["X", *_AXES_AUX], outputs=["Out", _XSHAPE_EXTRA],
    attrs=[Attr("axes", T.INTS, [])], infer=_infer_xshape_op(unsqueeze_shape, "axes"),
    grad=_xshape_grad("unsqueeze2_grad"), doc="Out = X with size-1 dims inserted at `axes`",
    examples=[
        Example({"X": rand(3, 4)}, {"axes": [0]}, lambda X, axes: {"Out": X[None]}),
        Example({"X": rand(3, 4)}, {"axes": [-1, 1]},
                lambda X, axes: {"Out": X[:, None, :, None]}),
    ],
)
def unsqueeze2(X, AxesTensor, AxesTensorList, axes):
    axes = _runtime_axes(AxesTensor, AxesTensorList, axes)
    return {"Out": X.reshape(unsqueeze_shape(X.shape, axes)), "XShape": _xshape_array(X)}


@register_op(
    "unsqueeze2_grad", inputs=[*_AXES_AUX, "XShape", "Out@GRAD"], outputs=["X@GRAD"],
    attrs=[Attr("axes", T.INTS, [])], infer=_infer_from_xshape, grad_of="unsqueeze2",
    grad=linear_rule("unsqueeze2", attr_names=("axes",),
                     extra=("AxesTensor", "AxesTensorList")),
    doc="dX = dOut reshaped to X's shape",
)
def unsqueeze2_grad(AxesTensor, AxesTensorList, XShape, Out_grad, axes):
    return _reshaped_grad(XShape, Out_grad)


@register_op(
    "squeeze2", inputs=["X"], outputs=["Out", _XSHAPE_EXTRA], attrs=[Attr("axes", T.INTS, [])],
    infer=_infer_xshape_op(squeeze_shape, "axes"), grad=_xshape_grad("squeeze2_grad"),
    doc="Out = X without the size-1 dims in `axes` (every size-1 dim when empty)",
    examples=[
        Example({"X": rand(1, 3, 1, 4)}, {"axes": [0]}, lambda X, axes: {"Out": X[0]}),
        Example({"X": rand(3, 1, 4, 1)}, {"axes": []},
                lambda X, axes: {"Out": X.reshape(3, 4)}),
        Example({"X": rand(1, 2, 1, 3)}, {"axes": [-2, 0, 1]},
                lambda X, axes: {"Out": X.reshape(2, 3)}),
    ],
)
def squeeze2(X, axes):
    return {"Out": X.reshape(squeeze_shape(X.shape, axes)), "XShape": _xshape_array(X)}


@register_op(
    "squeeze2_grad", inputs=["XShape", "Out@GRAD"], outputs=["X@GRAD"],
    attrs=[Attr("axes", T.INTS, [])], infer=_infer_from_xshape, grad_of="squeeze2",
    grad=linear_rule("squeeze2", attr_names=("axes",)),
    doc="dX = dOut reshaped to X's shape",
)
def squeeze2_grad(XShape, Out_grad, axes):
    return _reshaped_grad(XShape, Out_grad)


# --- concat / split / stack -------------------------------------------------------------------
def _infer_concat(ctx):
    xs = ctx.input_list("X")
    axis = ctx.attr("axis") % len(xs[0].shape)
    sizes = [x.shape[axis] for x in xs]
    shape = list(xs[0].shape)
    shape[axis] = -1 if -1 in sizes else sum(sizes)
    return {"Out": VarSpec(tuple(shape), xs[0].dtype)}


def _axis_value(AxisTensor, axis):
    return axis if AxisTensor is None else int(np.asarray(AxisTensor).reshape(-1)[0])


@register_op(
    "concat", inputs=[Slot("X", duplicable=True), _aux("AxisTensor")], outputs=["Out"],
    attrs=[Attr("axis", T.INT, 0)], infer=_infer_concat,
    grad=default_grad("concat_grad", uses=["X", "AxisTensor"]),
    doc="Out = X[0], X[1], ... joined along `axis`",
    examples=[
        Example({"X": [rand(2, 3), rand(2, 5)]}, {"axis": 1},
                lambda X, axis: {"Out": np.concatenate(X, 1)}),
        Example({"X": [rand(1, 4), rand(3, 4), rand(2, 4)]}, {"axis": -2},
                lambda X, axis: {"Out": np.concatenate(X, 0)}),
    ],
)
def concat(X, AxisTensor, axis):
    return {"Out": np.concatenate(X, axis=_axis_value(AxisTensor, axis))}


def _infer_concat_grad(ctx):
    return {"X@GRAD": [VarSpec(x.shape, x.dtype) for x in ctx.input_list("X")]}


@register_op(
    "concat_grad", inputs=[Slot("X", duplicable=True), _aux("AxisTensor"), "Out@GRAD"],
    outputs=[Slot("X@GRAD", duplicable=True, dispensable=True)], attrs=[Attr("axis", T.INT, 0)],
    infer=_infer_concat_grad, grad_of="concat",
    grad=linear_rule("concat", attr_names=("axis",), extra=("AxisTensor",), duplicable=True),
    doc="dX[i] = the slice of dOut X[i] came from",
)
def concat_grad(X, AxisTensor, Out_grad, axis):
    axis = _axis_value(AxisTensor, axis) % Out_grad.ndim
    cuts = np.cumsum([x.shape[axis] for x in X])[:-1]
    return {"X@GRAD": [np.array(g) for g in np.split(Out_grad, cuts, axis=axis)]}


def split_sizes(dim: int, num: int, sections) -> list[int]:
    """Section sizes along the split axis: `num` equal parts, or `sections` (one may be -1)."""
    if not sections:
        return [dim // num if dim >= 0 else -1] * num
    sizes = [int(s) for s in sections]
    if -1 in sizes and dim >= 0:
        sizes[sizes.index(-1)] = dim - (sum(sizes) + 1)
    return sizes


def _infer_split(ctx):
    x = ctx.input("X")
    axis = ctx.attr("axis") % len(x.shape)
    specs = []
    for size in split_sizes(x.shape[axis], ctx.attr("num"), ctx.attr("sections")):
        shape = list(x.shape)
        shape[axis] = size
        specs.append(VarSpec(tuple(shape), x.dtype))
    return {"Out": specs}


def _split_grad(op, opdef):
    """dX = concat of the outputs' gradients, as Paddle emits."""
    return [GradOp("concat", {"X": [grad_name(n) for n in op.output("Out")]},
                   {"Out": [grad_name(op.input("X")[0])]}, {"axis": op.attrs.get("axis", 0)})]


@register_op(
    "split", inputs=["X", _aux("AxisTensor"), _aux("SectionsTensorList", duplicable=True)],
    outputs=[Slot("Out", duplicable=True)],
    attrs=[Attr("axis", T.INT, 0), Attr("num", T.INT, 0), Attr("sections", T.INTS, [])],
    infer=_infer_split, grad=_split_grad,
    doc="Out = X cut along `axis` into `num` equal parts or parts of sizes `sections`",
    examples=[
        Example({"X": rand(2, 3, 4)}, {"axis": 2, "num": 2},
                lambda X, **a: {"Out": [X[..., :2], X[..., 2:]]}),
        Example({"X": rand(6, 2)}, {"axis": 0, "sections": [1, -1, 2]},
                lambda X, **a: {"Out": [X[:1], X[1:4], X[4:]]}),
    ],
)
def split(X, AxisTensor, SectionsTensorList, axis, num, sections):
    axis = _axis_value(AxisTensor, axis) % X.ndim
    if SectionsTensorList:
        sections = [int(np.asarray(t).reshape(-1)[0]) for t in SectionsTensorList]
    cuts = np.cumsum(split_sizes(X.shape[axis], num, sections))[:-1]
    return {"Out": [np.array(p) for p in np.split(X, cuts, axis=axis)]}


def _infer_stack(ctx):
    xs = ctx.input_list("X")
    axis = ctx.attr("axis") % (len(xs[0].shape) + 1)
    shape = list(xs[0].shape)
    shape.insert(axis, len(xs))
    return {"Y": VarSpec(tuple(shape), xs[0].dtype)}


@register_op(
    "stack", inputs=[Slot("X", duplicable=True)], outputs=["Y"], attrs=[Attr("axis", T.INT, 0)],
    infer=_infer_stack, grad=default_grad("stack_grad", uses=["X"]),
    doc="Y = X[0], X[1], ... stacked along a new axis",
    examples=[
        Example({"X": [rand(2, 3), rand(2, 3)]}, {"axis": 0},
                lambda X, axis: {"Y": np.stack(X, 0)}),
        Example({"X": [rand(2, 3), rand(2, 3), rand(2, 3)]}, {"axis": -1},
                lambda X, axis: {"Y": np.stack(X, -1)}),
    ],
)
def stack(X, axis):
    return {"Y": np.stack(X, axis=axis)}


@register_op(
    "stack_grad", inputs=[Slot("X", duplicable=True, dispensable=True), "Y@GRAD"],
    outputs=[Slot("X@GRAD", duplicable=True, dispensable=True)], attrs=[Attr("axis", T.INT, 0)],
    infer=lambda ctx: {"X@GRAD": [VarSpec(x.shape, x.dtype) for x in ctx.input_list("X")]},
    grad_of="stack", doc="dX[i] = dY taken at index i of the stacked axis",
    grad=linear_rule("stack", out="Y", attr_names=("axis",), duplicable=True),
)
def stack_grad(X, Y_grad, axis):
    axis = axis % Y_grad.ndim
    return {"X@GRAD": [np.array(np.take(Y_grad, i, axis=axis))
                       for i in range(Y_grad.shape[axis])]}
