"""Pointwise math beyond the activations: scale, sum (add_n), cast, clip, pow, fill_any_like.

`scale` and `sum` are also the backward pass's workhorses: Paddle differentiates `scale` with
another `scale` and accumulates repeated gradients with `sum`.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..registry import Attr, Example, GradOp, Slot, VarSpec, register_op
from ..registry import AttrType as T
from ._helpers import default_grad, grad_name, rand, rand_positive, same_as

# --- scale ------------------------------------------------------------------------------------
_SCALE_ATTRS = [Attr("scale", T.FLOAT, 1.0), Attr("bias", T.FLOAT, 0.0),
                Attr("bias_after_scale", T.BOOLEAN, True)]


def _scale_grad(op, opdef):
    """d(scale * X + bias) = scale * dOut: another `scale` op without the bias (as Paddle)."""
    return [GradOp("scale", {"X": [grad_name(op.output("Out")[0])]},
                   {"Out": [grad_name(op.input("X")[0])]},
                   {"scale": op.attrs.get("scale", 1.0), "bias": 0.0, "bias_after_scale": True})]


@register_op(
    "scale", inputs=["X", Slot("ScaleTensor", dispensable=True, no_grad=True),
                     Slot("BiasTensor", dispensable=True, no_grad=True)],
    outputs=["Out"], attrs=_SCALE_ATTRS, infer=same_as("X"), grad=_scale_grad,
    doc="Out = scale * X + bias (bias_after_scale) or scale * (X + bias)",
    examples=[
        Example({"X": rand(3, 4)}, {"scale": 2.5, "bias": 0.5},
                lambda X, **a: {"Out": 2.5 * X + 0.5}),
        Example({"X": rand(2, 3)}, {"scale": -1.5, "bias": 1.0, "bias_after_scale": False},
                lambda X, **a: {"Out": -1.5 * (X + 1.0)}),
        Example({"X": np.arange(6, dtype=np.int64).reshape(2, 3)}, {"scale": 3.0, "bias": 1.0},
                lambda X, **a: {"Out": X * 3 + 1}, grad=False),
    ],
)
def scale(X, ScaleTensor, BiasTensor, scale, bias, bias_after_scale):
    if ScaleTensor is not None:
        scale = np.asarray(ScaleTensor).reshape(-1)[0]
    if BiasTensor is not None:
        bias = np.asarray(BiasTensor).reshape(-1)[0]
    with np.errstate(invalid="ignore", over="ignore"):  # inf * 0 is NaN, silently
        out = X * scale + bias if bias_after_scale else (X + bias) * scale
    return {"Out": np.asarray(out).astype(X.dtype, copy=False)}


# --- sum (add_n) ------------------------------------------------------------------------------
def _infer_sum(ctx):
    first = ctx.input_list("X")[0]
    return {"Out": VarSpec(first.shape, first.dtype)}


def _sum_grad(op, opdef):
    """Every input receives dOut unchanged: one `scale(1.0)` per input, as Paddle emits."""
    dout = grad_name(op.output("Out")[0])
    return [GradOp("scale", {"X": [dout]}, {"Out": [grad_name(name)]},
                   {"scale": 1.0, "bias": 0.0, "bias_after_scale": True})
            for name in op.input("X")]


@register_op(
    "sum", inputs=[Slot("X", duplicable=True)], outputs=["Out"], infer=_infer_sum,
    grad=_sum_grad, doc="Out = X[0] + X[1] + ... (Paddle's add_n)",
    examples=[
        Example({"X": [rand(3, 4), rand(3, 4), rand(3, 4)]},
                expect=lambda X: {"Out": X[0] + X[1] + X[2]}),
        Example({"X": [rand(5)]}, expect=lambda X: {"Out": X[0]}),
    ],
)
def sum_(X):
    out = np.array(X[0], copy=True)
    for x in X[1:]:
        out += x
    return {"Out": out}


# --- cast -------------------------------------------------------------------------------------
def _infer_cast(ctx):
    return {"Out": VarSpec(ctx.input("X").shape, dtypes.to_numpy(ctx.attr("out_dtype")))}


def _cast_grad(op, opdef):
    """The gradient is cast back: a `cast` with in_dtype and out_dtype swapped."""
    return [GradOp("cast", {"X": [grad_name(op.output("Out")[0])]},
                   {"Out": [grad_name(op.input("X")[0])]},
                   {"in_dtype": op.attrs["out_dtype"], "out_dtype": op.attrs["in_dtype"]})]


@register_op(
    "cast", inputs=["X"], outputs=["Out"],
    attrs=[Attr("in_dtype", T.INT, 5), Attr("out_dtype", T.INT, 5)], infer=_infer_cast,
    grad=_cast_grad, doc="Out = X converted to out_dtype (float -> int truncates toward zero)",
    examples=[
        Example({"X": rand(3, 4)}, {"in_dtype": 5, "out_dtype": 6},
                lambda X, **a: {"Out": X.astype(np.float64)}),
        Example({"X": np.array([-1.7, -0.5, 0.5, 2.9], np.float32)},
                {"in_dtype": 5, "out_dtype": 3},
                lambda X, **a: {"Out": np.trunc(X).astype(np.int64)}, grad=False),
    ],
)
def cast(X, in_dtype, out_dtype):
    return {"Out": X.astype(dtypes.to_numpy(out_dtype))}


# --- clip -------------------------------------------------------------------------------------
_CLIP_ATTRS = [Attr("min", T.FLOAT, 0.0), Attr("max", T.FLOAT, 0.0)]
_CLIP_INPUTS = ["X", Slot("Min", dispensable=True, no_grad=True),
                Slot("Max", dispensable=True, no_grad=True)]


def _bounds(Min, Max, min, max):
    lo = min if Min is None else np.asarray(Min).reshape(-1)[0]
    hi = max if Max is None else np.asarray(Max).reshape(-1)[0]
    return lo, hi


@register_op(
    "clip", inputs=_CLIP_INPUTS, outputs=["Out"], attrs=_CLIP_ATTRS, infer=same_as("X"),
    grad=default_grad("clip_grad", uses=["X", "Min", "Max"]),
    doc="Out = min(max(X, min), max)",
    examples=[
        Example({"X": rand(4, 5)}, {"min": -0.5, "max": 0.4},
                lambda X, **a: {"Out": np.clip(X, -0.5, 0.4)}),
        Example({"X": rand(3, 3).astype(np.float64)}, {"min": -0.2, "max": 0.7},
                lambda X, **a: {"Out": np.clip(X, -0.2, 0.7)}),
    ],
)
def clip(X, Min, Max, min, max):
    lo, hi = _bounds(Min, Max, min, max)
    return {"Out": np.clip(X, lo, hi).astype(X.dtype, copy=False)}


@register_op(
    "clip_grad", inputs=[*_CLIP_INPUTS, "Out@GRAD"], outputs=["X@GRAD"], attrs=_CLIP_ATTRS,
    infer=same_as("X", out="X@GRAD"), grad_of="clip",
    doc="dX = dOut where min < X < max, else 0",
)
def clip_grad(X, Min, Max, Out_grad, min, max):
    lo, hi = _bounds(Min, Max, min, max)
    return {"X@GRAD": (Out_grad * ((X > lo) & (X < hi))).astype(Out_grad.dtype, copy=False)}


# --- pow --------------------------------------------------------------------------------------
_POW_INPUTS = ["X", Slot("FactorTensor", dispensable=True, no_grad=True)]


def _factor(FactorTensor, factor):
    return factor if FactorTensor is None else np.asarray(FactorTensor).reshape(-1)[0]


@register_op(
    "pow", inputs=_POW_INPUTS, outputs=["Out"], attrs=[Attr("factor", T.FLOAT, 1.0)],
    infer=same_as("X"), grad=default_grad("pow_grad", uses=["X", "FactorTensor"]),
    doc="Out = X ** factor (a scalar exponent)",
    examples=[
        Example({"X": rand_positive(3, 4)}, {"factor": 3.0},
                lambda X, factor: {"Out": X ** 3}),
        Example({"X": rand_positive(2, 5)}, {"factor": -0.5},
                lambda X, factor: {"Out": 1.0 / np.sqrt(X)}),
    ],
)
def pow_(X, FactorTensor, factor):
    return {"Out": np.power(X, _factor(FactorTensor, factor)).astype(X.dtype, copy=False)}


@register_op(
    "pow_grad", inputs=[*_POW_INPUTS, "Out@GRAD"], outputs=["X@GRAD"],
    attrs=[Attr("factor", T.FLOAT, 1.0)], infer=same_as("X", out="X@GRAD"), grad_of="pow",
    doc="dX = dOut * factor * X ** (factor - 1)",
)
def pow_grad(X, FactorTensor, Out_grad, factor):
    f = _factor(FactorTensor, factor)
    return {"X@GRAD": (Out_grad * f * np.power(X, f - 1)).astype(X.dtype, copy=False)}


# --- fill_any_like ----------------------------------------------------------------------------
def _infer_fill_like(ctx):
    x, code = ctx.input("X"), ctx.attr("dtype")
    return {"Out": VarSpec(x.shape, x.dtype if code == -1 else dtypes.to_numpy(code))}


@register_op(
    "fill_any_like", inputs=[Slot("X", no_grad=True)], outputs=["Out"],
    attrs=[Attr("value", T.FLOAT, 0.0), Attr("dtype", T.INT, -1)], infer=_infer_fill_like,
    doc="Out = full(X.shape, value) with dtype (-1: X's dtype); paddle.full_like",
    examples=[
        Example({"X": rand(2, 3)}, {"value": 2.5, "dtype": 5},
                lambda X, **a: {"Out": np.full((2, 3), 2.5, np.float32)}),
        Example({"X": rand(4)}, {"value": 7.0, "dtype": 3},
                lambda X, **a: {"Out": np.full((4,), 7, np.int64)}),
        Example({"X": rand(2, 2).astype(np.float64)}, {"value": 1.0},
                lambda X, **a: {"Out": np.ones((2, 2), np.float64)}),
    ],
)
def fill_any_like(X, value, dtype):
    out_dtype = X.dtype if dtype == -1 else dtypes.to_numpy(dtype)
    return {"Out": np.full(X.shape, value, dtype=out_dtype)}


# --- fill_constant_batch_size_like -------------------------------------------------------------
def _batch_shape(shape, input_shape, input_dim_idx: int, output_dim_idx: int) -> tuple:
    out = [int(d) for d in shape]
    out[output_dim_idx] = input_shape[input_dim_idx]
    return tuple(out)


def _infer_fill_batch(ctx):
    shape = _batch_shape(ctx.attr("shape"), ctx.input("Input").shape, ctx.attr("input_dim_idx"),
                         ctx.attr("output_dim_idx"))
    return {"Out": VarSpec(shape, dtypes.to_numpy(ctx.attr("dtype")))}


@register_op(
    "fill_constant_batch_size_like", inputs=[Slot("Input", no_grad=True)], outputs=["Out"],
    attrs=[Attr("shape", T.INTS, []), Attr("value", T.FLOAT, 0.0),
           Attr("str_value", T.STRING, ""), Attr("dtype", T.INT, 5),
           Attr("input_dim_idx", T.INT, 0), Attr("output_dim_idx", T.INT, 0),
           Attr("force_cpu", T.BOOLEAN, False)],
    infer=_infer_fill_batch,
    doc="Out = full(shape, value) with shape[output_dim_idx] = Input.shape[input_dim_idx]",
    examples=[
        Example({"Input": rand(5, 2)}, {"shape": [-1, 3], "value": 2.0, "dtype": 5},
                lambda Input, **a: {"Out": np.full((5, 3), 2.0, np.float32)}),
        Example({"Input": rand(2, 4)}, {"shape": [3, -1], "value": 7.0, "dtype": 3,
                                        "input_dim_idx": 1, "output_dim_idx": 1},
                lambda Input, **a: {"Out": np.full((3, 4), 7, np.int64)}),
    ],
)
def fill_constant_batch_size_like(Input, shape, value, str_value, dtype, input_dim_idx,
                                  output_dim_idx, force_cpu):
    value = float(str_value) if str_value else value
    out_shape = _batch_shape(shape, Input.shape, input_dim_idx, output_dim_idx)
    return {"Out": np.full(out_shape, value, dtype=dtypes.to_numpy(dtype))}
