"""Ops that create, copy and bind tensors: feed, fetch, fill_constant, random init, assign."""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..registry import Attr, Example, GradOp, Slot, VarSpec, register_op
from ..registry import AttrType as T
from ._helpers import grad_name, rand, rng_for, same_as

FP32 = 5  # VarType.FP32, Paddle's default `dtype` attribute


def _from_attrs(ctx):
    """Out's shape from the `shape` attribute; unknown dims when a shape tensor gives it."""
    shape = tuple(ctx.attr("shape"))
    given = ctx.inputs.get("ShapeTensor") or ctx.inputs.get("ShapeTensorList")
    if given:
        count = len(ctx.input_list("ShapeTensorList")) or (
            ctx.input("ShapeTensor").shape[0] if ctx.input("ShapeTensor") is not None else 0)
        shape = shape if len(shape) == count and count else (-1,) * max(count, 0)
    return {"Out": VarSpec(shape, dtypes.to_numpy(ctx.attr("dtype")))}


def runtime_shape(ShapeTensor, ShapeTensorList, shape) -> list[int]:
    """The output shape of a creation op: from ShapeTensor, ShapeTensorList or the attribute."""
    if ShapeTensor is not None:
        return [int(d) for d in np.asarray(ShapeTensor).reshape(-1)]
    if ShapeTensorList:
        return [int(np.asarray(t).reshape(-1)[0]) for t in ShapeTensorList]
    return list(shape)


@register_op(
    "feed", inputs=["X"], outputs=["Out"], attrs=[Attr("col", T.INT, 0)], io="feed",
    doc="Out = feed_holder[col]: binds a saved program's input (never run as a step)",
    examples=[Example({"X": [rand(2, 3)]}, {"col": 0}, lambda X, col: {"Out": X[col]})],
)
def feed(X, col):
    return {"Out": X[col]}


@register_op(
    "fetch", inputs=["X"], outputs=["Out"], attrs=[Attr("col", T.INT, 0)], io="fetch",
    doc="fetch_holder[col] = X: marks a saved program's output (never run as a step)",
    examples=[Example({"X": rand(2, 3)}, {"col": 0}, lambda X, col: {"Out": X})],
)
def fetch(X, col):
    return {"Out": X}


@register_op(
    "fill_constant",
    inputs=[Slot("ValueTensor", dispensable=True), Slot("ShapeTensor", dispensable=True),
            Slot("ShapeTensorList", duplicable=True, dispensable=True)],
    outputs=["Out"],
    attrs=[Attr("shape", T.LONGS, []), Attr("value", T.FLOAT, 0.0), Attr("str_value", T.STRING, ""),
           Attr("dtype", T.INT, FP32), Attr("force_cpu", T.BOOLEAN, False),
           Attr("place_type", T.INT, -1)],
    infer=_from_attrs,
    doc="Out = full(shape, value, dtype)",
    examples=[Example({}, {"shape": [2, 3], "value": 1.5, "dtype": FP32},
                      {"Out": np.full((2, 3), 1.5, np.float32)}),
              Example({}, {"shape": [2], "str_value": "7", "dtype": 3},
                      {"Out": np.array([7, 7], np.int64)})],
)
def fill_constant(ValueTensor, ShapeTensor, ShapeTensorList, shape, value, str_value, dtype,
                  force_cpu, place_type):
    shape = runtime_shape(ShapeTensor, ShapeTensorList, shape)
    if ValueTensor is not None:
        value = np.asarray(ValueTensor).reshape(-1)[0]
    elif str_value:
        text = str_value.lower()
        value = 1.0 if text == "true" else 0.0 if text == "false" else float(str_value)
    return {"Out": np.full(shape, value, dtype=dtypes.to_numpy(dtype))}


@register_op(
    "uniform_random", no_extra_attrs=True,
    inputs=[Slot("ShapeTensor", dispensable=True),
            Slot("ShapeTensorList", duplicable=True, dispensable=True)],
    outputs=["Out"],
    attrs=[Attr("shape", T.LONGS, []), Attr("min", T.FLOAT, -1.0), Attr("max", T.FLOAT, 1.0),
           Attr("seed", T.INT, 0), Attr("diag_num", T.INT, 0), Attr("diag_step", T.INT, 0),
           Attr("diag_val", T.FLOAT, 1.0), Attr("dtype", T.INT, FP32)],
    infer=_from_attrs,
    doc="Out ~ U[min, max); a nonzero seed makes every run give the same values",
    examples=[Example({}, {"shape": [50, 4], "min": -2.0, "max": 3.0, "seed": 7},
                      lambda **a: {"Out": np.random.default_rng(7).uniform(
                          -2.0, 3.0, (50, 4)).astype(np.float32)})],
)
def uniform_random(ShapeTensor, ShapeTensorList, shape, min, max, seed, diag_num, diag_step,
                   diag_val, dtype):
    shape = runtime_shape(ShapeTensor, ShapeTensorList, shape)
    out = rng_for(seed).uniform(min, max, size=shape).astype(dtypes.to_numpy(dtype))
    for i in range(diag_num):
        out.flat[i * (diag_step + 1)] = diag_val
    return {"Out": out}


@register_op(
    "gaussian_random",
    inputs=[Slot("ShapeTensor", dispensable=True),
            Slot("ShapeTensorList", duplicable=True, dispensable=True)],
    outputs=["Out"],
    attrs=[Attr("shape", T.LONGS, []), Attr("mean", T.FLOAT, 0.0), Attr("std", T.FLOAT, 1.0),
           Attr("seed", T.INT, 0), Attr("dtype", T.INT, FP32)],
    infer=_from_attrs,
    doc="Out ~ N(mean, std^2); a nonzero seed makes every run give the same values",
    examples=[Example({}, {"shape": [40, 3], "mean": 1.0, "std": 2.0, "seed": 3},
                      lambda **a: {"Out": np.random.default_rng(3).normal(
                          1.0, 2.0, (40, 3)).astype(np.float32)})],
)
def gaussian_random(ShapeTensor, ShapeTensorList, shape, mean, std, seed, dtype):
    shape = runtime_shape(ShapeTensor, ShapeTensorList, shape)
    out = rng_for(seed).normal(mean, std, size=shape)
    return {"Out": out.astype(dtypes.to_numpy(dtype))}


@register_op(
    "assign", no_extra_attrs=True, inputs=["X"], outputs=["Out"], infer=same_as("X"),
    grad=lambda op, opdef: [GradOp("assign", {"X": [grad_name(op.output("Out")[0])]},
                                   {"Out": [grad_name(op.input("X")[0])]})],
    doc="Out = X (a copy)",
    examples=[Example({"X": rand(3, 2)}, expect=lambda X: {"Out": X})],
)
def assign(X):
    return {"Out": np.array(X, copy=True)}
