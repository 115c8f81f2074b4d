"""Elementwise math: trigonometric, hyperbolic, erf, logs, rounding, sign, reciprocals.

Each op is one `_unary(...)` call (`_helpers.register_unary` underneath): the formula, its
derivative, and the open interval its examples are drawn from (so asin, acosh and atanh get
points inside their domains).
Rounding ops have zero gradients through `<op>_grad(Out@GRAD)`, as in Paddle; `sign`'s
gradient is Paddle's `scale(dOut, 0)`.
"""

from __future__ import annotations

import math

import numpy as np

from ..registry import Attr, Example, GradOp, register_op
from ..registry import AttrType as T
from ._double_grad import no_higher_grad
from ._helpers import default_grad, grad_name, rand, register_unary, same_as

_erf_scalar = np.frompyfunc(math.erf, 1, 1)


def erf(x: np.ndarray) -> np.ndarray:
    """The error function elementwise, in x's dtype: erf(np.array([0.0])) -> [0.0]."""
    # numpy has no erf; math.erf per element is exact and erf is rarely on a hot path.
    return np.asarray(_erf_scalar(x), dtype=np.float64).astype(x.dtype, copy=False)


def _quiet(fn):
    """fn with IEEE results (log(0) = -inf, asin(2) = NaN) and no numpy warnings."""

    return fn  # plans and eager ops run kernels under an IEEE-quiet errstate


def _unary(name, forward, derivative, doc, uses="X", domain=(-1.0, 1.0), **options):
    """`register_unary` with examples drawn from `domain`: float32 3x4 and float64 2x3x2; the
    result keeps X's dtype."""
    low, high = domain
    register_unary(name, _quiet(forward), _quiet(derivative), doc,
                   [rand(3, 4, low=low, high=high),
                    rand(2, 3, 2, dtype="float64", low=low, high=high)],
                   module=__name__, uses=uses, keep_dtype=True, **options)


# `second=`: d f'(v) / dv as ops on v, the grad op's own rule (higher-order gradients).
def _recip_square(v):
    return v.square().apply("reciprocal")


_unary("sin", np.sin, lambda x, g: g * np.cos(x), "Out = sin(X)",
       second=lambda r, x, a: -x.apply("sin"))
_unary("cos", np.cos, lambda x, g: -g * np.sin(x), "Out = cos(X)",
       second=lambda r, x, a: -x.apply("cos"))
_unary("tan", np.tan, lambda x, g: g / np.cos(x) ** 2, "Out = tan(X)",
       second=lambda r, x, a: (lambda t: (t * t).scale(2.0, 2.0) * t)(x.apply("tan")))
_unary("asin", np.arcsin, lambda x, g: g / np.sqrt(1 - x * x), "Out = asin(X)",
       domain=(-0.9, 0.9), no_extra_attrs=True,
       second=lambda r, x, a: x * x.square().scale(-1.0, 1.0).apply("pow", factor=-1.5))
_unary("acos", np.arccos, lambda x, g: -g / np.sqrt(1 - x * x), "Out = acos(X)",
       domain=(-0.9, 0.9), no_extra_attrs=True,
       second=lambda r, x, a: -(x * x.square().scale(-1.0, 1.0).apply("pow", factor=-1.5)))
_unary("atan", np.arctan, lambda x, g: g / (1 + x * x), "Out = atan(X)", no_extra_attrs=True,
       second=lambda r, x, a: x.scale(-2.0) * _recip_square(x.square().scale(1.0, 1.0)))
_unary("sinh", np.sinh, lambda x, g: g * np.cosh(x), "Out = sinh(X)",
       second=lambda r, x, a: x.apply("sinh"))
_unary("cosh", np.cosh, lambda x, g: g * np.sinh(x), "Out = cosh(X)",
       second=lambda r, x, a: x.apply("cosh"))
_unary("asinh", np.arcsinh, lambda x, g: g / np.sqrt(x * x + 1), "Out = asinh(X)",
       second=lambda r, x, a: -(x * x.square().scale(1.0, 1.0).apply("pow", factor=-1.5)))
_unary("acosh", np.arccosh, lambda x, g: g / np.sqrt(x * x - 1), "Out = acosh(X)",
       domain=(1.2, 3.0),
       second=lambda r, x, a: -(x * x.square().scale(1.0, -1.0).apply("pow", factor=-1.5)))
_unary("atanh", np.arctanh, lambda x, g: g / (1 - x * x), "Out = atanh(X)",
       domain=(-0.9, 0.9),
       second=lambda r, x, a: x.scale(2.0) * _recip_square(x.square().scale(-1.0, 1.0)))
_unary("erf", erf, lambda x, g: g * (2.0 / math.sqrt(math.pi)) * np.exp(-x * x),
       "Out = erf(X) = 2/sqrt(pi) * integral_0^X exp(-t^2) dt", no_extra_attrs=True,
       second=lambda r, x, a: x * x.square().scale(-1.0).apply("exp")
       .scale(-4.0 / math.sqrt(math.pi)))
_unary("log1p", np.log1p, lambda x, g: g / (1 + x), "Out = ln(1 + X)", domain=(-0.5, 1.0),
       second=lambda r, x, a: -_recip_square(x.scale(1.0, 1.0)))
_unary("log2", np.log2, lambda x, g: g / (x * math.log(2)), "Out = log2(X)", domain=(0.5, 2.0),
       second=lambda r, x, a: _recip_square(x).scale(-1.0 / math.log(2)))
_unary("log10", np.log10, lambda x, g: g / (x * math.log(10)), "Out = log10(X)",
       domain=(0.5, 2.0), second=lambda r, x, a: _recip_square(x).scale(-1.0 / math.log(10)))
_unary("expm1", np.expm1, lambda out, g: g * (out + 1), "Out = exp(X) - 1", uses="Out",
       second=lambda r, out, a: 1.0)
_unary("reciprocal", lambda x: 1.0 / x, lambda out, g: -g * out * out, "Out = 1 / X",
       uses="Out", domain=(0.5, 2.0), second=lambda r, out, a: out.scale(-2.0))
_unary("rsqrt", lambda x: 1.0 / np.sqrt(x), lambda out, g: -0.5 * g * out ** 3,
       "Out = 1 / sqrt(X)", uses="Out", domain=(0.5, 2.0),
       second=lambda r, out, a: out.square().scale(-1.5))


_ROUNDING_CASE = np.array([[-2.5, -1.5, -0.5, 0.5], [1.5, 2.5, 0.26, -0.74]], np.float32)
# Points at least 0.1 from every jump, where finite differences see the zero gradient.
_SMOOTH_CASE = np.array([[0.2, 1.3, -0.7], [2.1, -1.2, 0.3]])


def _zero_grad(name, forward, doc, attrs=(), example_attrs=None, **options):
    """Register a piecewise-constant op's `name_grad(Out@GRAD) -> zeros`; returns a decorator
    for the forward kernel, whose example is the half-way points of `_ROUNDING_CASE`."""
    register_op(f"{name}_grad", inputs=["Out@GRAD"], outputs=["X@GRAD"], attrs=attrs,
                infer=same_as("Out@GRAD", out="X@GRAD"), grad_of=name,
                doc=f"gradient of {name}: zero almost everywhere", grad=no_higher_grad,
                )(_ZERO_GRAD_KERNELS[len(attrs)])
    example_attrs = example_attrs or {}
    return register_op(
        name, inputs=["X"], outputs=["Out"], attrs=attrs, infer=same_as("X"),
        grad=default_grad(f"{name}_grad", uses=[]), doc=doc,
        examples=[Example({"X": _ROUNDING_CASE}, example_attrs,
                          lambda X, **a: {"Out": forward(X, **a)}, grad=False),
                  Example({"X": _SMOOTH_CASE}, example_attrs,
                          lambda X, **a: {"Out": forward(X, **a)})], **options)


def _zeros_like_grad(Out_grad):
    return {"X@GRAD": np.zeros_like(Out_grad)}


def _zeros_like_grad_decimals(Out_grad, decimals):
    return {"X@GRAD": np.zeros_like(Out_grad)}


_ZERO_GRAD_KERNELS = {0: _zeros_like_grad, 1: _zeros_like_grad_decimals}


@_zero_grad("floor", lambda X: np.floor(X), "Out = floor(X)")
def floor(X):
    return {"Out": np.floor(X)}


@_zero_grad("ceil", lambda X: np.ceil(X), "Out = ceil(X)")
def ceil(X):
    return {"Out": np.ceil(X)}


@_zero_grad("trunc", lambda X: np.where(X < 0, np.ceil(X), np.floor(X)),
            "Out = X rounded toward zero", no_extra_attrs=True)
def trunc(X):
    return {"Out": np.trunc(X)}


# Independent expectation: Python's round() is half-to-even on exact halves, like Paddle.
@_zero_grad("round", lambda X, decimals: np.vectorize(round)(X.astype(np.float64), decimals)
            .astype(X.dtype), "Out = X rounded half to even at `decimals` places",
            attrs=[Attr("decimals", T.INT, 0)], example_attrs={"decimals": 0})
def round_(X, decimals):
    return {"Out": np.round(X, decimals).astype(X.dtype, copy=False)}


@register_op(
    "sign", no_extra_attrs=True, inputs=["X"], outputs=["Out"], infer=same_as("X"),
    grad=lambda op, opdef: [GradOp("scale", {"X": [grad_name(op.output("Out")[0])]},
                                   {"Out": [grad_name(op.input("X")[0])]},
                                   {"scale": 0.0, "bias": 0.0, "bias_after_scale": True})],
    doc="Out = -1, 0 or 1 by the sign of X (gradient: scale(dOut, 0), as Paddle emits)",
    examples=[Example({"X": np.array([[-2.0, 0.0, 3.5], [0.1, -0.1, 0.0]], np.float32)},
                      expect=lambda X: {"Out": np.array([[-1, 0, 1], [1, -1, 0]], np.float32)},
                      grad=False),
              Example({"X": _SMOOTH_CASE},
                      expect=lambda X: {"Out": np.array([[1, 1, -1], [1, -1, 1]], np.float64)})],
)
def sign(X):
    return {"Out": np.sign(X)}
