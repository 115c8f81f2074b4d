"""Paddle's random ops beyond uniform/gaussian: randint, randperm, bernoulli, multinomial,
poisson, binomial, standard_gamma, exponential. None has a gradient (Paddle's are zero).

A nonzero `seed` attribute fixes the stream; otherwise the global one (`pyir.seed`) draws.
Examples compare statistics, not values: they hold for any stream.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..errors import PyirError
from ..registry import Attr, Example, Slot, VarSpec, register_op
from ..registry import AttrType as T
from ._helpers import rng_for, same_as
from .tensor import _from_attrs, runtime_shape

INT64 = 3  # VarType.INT64

_SHAPE_SLOTS = [Slot("ShapeTensor", dispensable=True),
                Slot("ShapeTensorList", duplicable=True, dispensable=True)]


@register_op(
    "randint", inputs=_SHAPE_SLOTS, outputs=["Out"],
    attrs=[Attr("low", T.INT, 0), Attr("high", T.INT, 0), Attr("shape", T.LONGS, []),
           Attr("seed", T.INT, 0), Attr("dtype", T.INT, INT64)],
    infer=_from_attrs,
    doc="Out ~ integers uniform in [low, high)",
    examples=[Example({}, {"low": -2, "high": 3, "shape": [400], "seed": 5},
                      lambda **a: {"Out": np.random.default_rng(5).integers(
                          -2, 3, 400).astype(np.int64)})],
)
def randint(ShapeTensor, ShapeTensorList, low, high, shape, seed, dtype):
    if high <= low:
        raise PyirError(f"randint: high ({high}) must be greater than low ({low})")
    shape = runtime_shape(ShapeTensor, ShapeTensorList, shape)
    return {"Out": rng_for(seed).integers(low, high, shape).astype(dtypes.to_numpy(dtype))}


@register_op(
    "randperm", outputs=["Out"], attrs=[Attr("n", T.INT, 0), Attr("dtype", T.INT, INT64)],
    infer=lambda ctx: {"Out": VarSpec((ctx.attr("n"),), dtypes.to_numpy(ctx.attr("dtype")))},
    doc="Out = a random permutation of 0 .. n-1 (Paddle's op has no seed attribute)",
    examples=[Example({}, {"n": 1}, {"Out": np.array([0], np.int64)})],
)
def randperm(n, dtype):
    return {"Out": rng_for(0).permutation(n).astype(dtypes.to_numpy(dtype))}


def _probabilities(X, op_type):
    if np.any(X < 0) or np.any(X > 1) or np.any(np.isnan(X)):
        raise PyirError(f"{op_type}: probabilities must lie in [0, 1]")


@register_op(
    "bernoulli", inputs=[Slot("X", no_grad=True)], outputs=["Out"], infer=same_as("X"),
    doc="Out[i] = 1 with probability X[i], else 0 (X's dtype)",
    examples=[Example({"X": np.array([0.0, 1.0, 1.0, 0.0], np.float32)},
                      expect={"Out": np.array([0.0, 1.0, 1.0, 0.0], np.float32)})],
)
def bernoulli(X):
    _probabilities(X, "bernoulli")
    return {"Out": (rng_for(0).random(X.shape) < X).astype(X.dtype)}


def _infer_multinomial(ctx):
    x = ctx.input("X")
    return {"Out": VarSpec((*x.shape[:-1], ctx.attr("num_samples")), np.dtype(np.int64))}


@register_op(
    "multinomial", inputs=[Slot("X", no_grad=True)], outputs=["Out"],
    attrs=[Attr("num_samples", T.INT, 1), Attr("replacement", T.BOOLEAN, False)],
    infer=_infer_multinomial,
    doc="Out[..., j] = a category drawn with weights X[..., :] (int64)",
    examples=[Example({"X": np.array([[0.0, 0.0, 3.0], [0.0, 1.0, 0.0]], np.float32)},
                      {"num_samples": 1},
                      expect={"Out": np.array([[2], [1]], np.int64)})],
)
def multinomial(X, num_samples, replacement):
    if np.any(X < 0):
        raise PyirError("multinomial: the weights must not be negative")
    rng = rng_for(0)
    rows = X.reshape(-1, X.shape[-1]).astype(np.float64)
    out = np.empty((rows.shape[0], num_samples), np.int64)
    for r, weights in enumerate(rows):
        total = weights.sum()
        if total <= 0:
            raise PyirError("multinomial: every row needs a positive total weight")
        if not replacement and num_samples > np.count_nonzero(weights):
            raise PyirError(f"multinomial: cannot draw {num_samples} distinct categories "
                            f"from {np.count_nonzero(weights)} with nonzero weight; pass "
                            f"replacement=True")
        out[r] = rng.choice(len(weights), num_samples, replace=bool(replacement),
                            p=weights / total)
    return {"Out": out.reshape(*X.shape[:-1], num_samples)}


@register_op(
    "poisson", inputs=[Slot("X", no_grad=True)], outputs=["Out"], infer=same_as("X"),
    doc="Out[i] ~ Poisson(X[i]) (X's dtype)",
    examples=[Example({"X": np.zeros((2, 3), np.float32)},
                      expect={"Out": np.zeros((2, 3), np.float32)})],
)
def poisson(X):
    return {"Out": rng_for(0).poisson(X).astype(X.dtype)}


@register_op(
    "binomial", inputs=[Slot("count", no_grad=True), Slot("prob", no_grad=True)],
    outputs=["out"],
    infer=lambda ctx: {"out": VarSpec(ctx.input("count").shape, np.dtype(np.int64))},
    doc="out[i] ~ Binomial(count[i], prob[i]) (int64)",
    examples=[Example({"count": np.array([3.0, 5.0], np.float32),
                       "prob": np.array([1.0, 0.0], np.float32)},
                      expect={"out": np.array([3, 0], np.int64)})],
)
def binomial(count, prob):
    _probabilities(prob, "binomial")
    return {"out": rng_for(0).binomial(count.astype(np.int64), prob).astype(np.int64)}


@register_op(
    "standard_gamma", inputs=[Slot("x", no_grad=True)], outputs=["out"],
    infer=same_as("x", "out"), doc="out[i] ~ Gamma(shape x[i], scale 1)",
    examples=[Example({"x": np.full(4, 1e-30, np.float32)},
                      expect=lambda x: {"out": np.zeros(4, np.float32)})],
)
def standard_gamma(x):
    if np.any(x <= 0):
        raise PyirError("standard_gamma: the shape parameters x must be positive")
    return {"out": rng_for(0).standard_gamma(x).astype(x.dtype)}


def _exponential(X, rate):
    if rate <= 0:
        raise PyirError(f"exponential: lambda must be positive, got {rate}")
    return {"Out": rng_for(0).exponential(1.0 / rate, X.shape).astype(X.dtype)}


# Paddle's attribute is named `lambda`, a Python keyword: the kernel's second parameter
# takes that name in its code object (kernels are called positionally).
_exponential.__code__ = _exponential.__code__.replace(co_varnames=("X", "lambda"))
exponential = register_op(
    "exponential", inputs=[Slot("X", no_grad=True)], outputs=["Out"],
    attrs=[Attr("lambda", T.FLOAT, 1.0)], infer=same_as("X"),
    doc="Out[i] ~ Exponential(rate lambda), shaped like X",
    examples=[Example({"X": np.zeros((300,), np.float32)}, {"lambda": 1e9},
                      expect=lambda X, **a: {"Out": np.zeros(300, np.float32)})],
)(_exponential)
