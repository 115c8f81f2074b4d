"""Elementwise math: `pyir.sin`, `pyir.erfinv`, `pyir.nan_to_num`, ... (Paddle's
`paddle.tensor.math` and `paddle.tensor.ops`). Each function is one `dispatch.out` call, or a
few of them where Paddle composes several ops, static and eager alike.

The binary functions live in `math_binary.py`, the reductions and running totals in
`math_reduce.py`; their names are exported from here too.
"""

from __future__ import annotations

import math as _math

import numpy as np

from ..dispatch import dtype_of, inplace_of, out
from ..dispatch import out as apply_out  # for functions whose `out=` argument hides `out`
from ..errors import BuildError, Where
from . import math_binary, math_reduce
from .math_binary import *  # noqa: F401,F403
from .math_common import (FLOAT_TYPES, as_tensor_like, constant_vector, filled_like, into,
                          need_tensor, scalar_like, to_float, where)
from .math_reduce import *  # noqa: F401,F403
from .math_reduce import reduce_attrs  # noqa: F401  (kept importable from here, as before)

_UNARY_WITH_OUT = {
    # public name: op type (Paddle's legacy op; functions with an `out=` argument)
    "sin": "sin", "cos": "cos", "acos": "acos", "sinh": "sinh", "cosh": "cosh",
    "acosh": "acosh", "atanh": "atanh", "exp": "exp", "expm1": "expm1", "log": "log",
    "log2": "log2", "log10": "log10", "log1p": "log1p", "sqrt": "sqrt", "rsqrt": "rsqrt",
    "abs": "abs", "sign": "sign", "floor": "floor", "ceil": "ceil", "sigmoid": "sigmoid",
    "tanh": "tanh",
}
_UNARY = {
    "tan": "tan", "asin": "asin", "atan": "atan", "asinh": "asinh", "square": "square",
    "reciprocal": "reciprocal", "erf": "erf", "erfinv": "erfinv", "lgamma": "lgamma",
    "digamma": "digamma", "angle": "angle", "isnan": "isnan_v2", "isinf": "isinf_v2",
    "isfinite": "isfinite_v2",
}
_LOWER_SLOTS = {"gammaln", "i0", "i0e", "i1", "i1e"}  # ops with slots x / out

_IN_PLACE = [
    "abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "digamma",
    "erf", "erfinv", "expm1", "frac", "gammaln", "i0", "lgamma", "log10", "log1p", "log2",
    "log", "logit", "nan_to_num", "neg", "polygamma", "sin", "sinc", "sinh", "square", "tan",
    "tanh", "trunc", "ceil", "exp", "floor", "reciprocal", "round", "rsqrt", "sigmoid",
    "sqrt",
]

__all__ = [
    *_UNARY_WITH_OUT, *_UNARY, *sorted(_LOWER_SLOTS), "sgn", "neg", "negative", "positive",
    "round", "trunc", "frac", "polygamma", "sinc", "logit", "stanh", "deg2rad", "rad2deg",
    "nan_to_num", "isneginf", "isposinf", "isreal", "signbit", "gammaincc", "gammainc",
    "multigammaln", "frexp", "gammaincc_", "gammainc_", "multigammaln_",
    *[f"{n}_" for n in _IN_PLACE],
    *math_binary.__all__, *math_reduce.__all__,
]

# Paddle names of this family pyir leaves out, with the reason (pyir/unsupported.py).
UNSUPPORTED: dict[str, str] = {**math_binary.UNSUPPORTED, **math_reduce.UNSUPPORTED}


# --- one op per function --------------------------------------------------------------------
def _unary(public: str, op_type: str, with_out: bool, lower: bool = False):
    slot_in, slot_out = ("x", "out") if lower else ("X", "Out")

    if with_out:
        def fn(x, name: str | None = None, *, out=None):  # noqa: A002 - Paddle's name
            return into(apply_out(op_type, {slot_in: x}, name=name, slot=slot_out), out)
    else:
        def fn(x, name: str | None = None):
            return apply_out(op_type, {slot_in: x}, name=name, slot=slot_out)

    fn.__name__ = fn.__qualname__ = public
    fn.__doc__ = f"""Elementwise `{public}` (op `{op_type}`).

    Example:
        >>> y = pyir.{public}(x)
    """
    return fn


for _name, _op in _UNARY_WITH_OUT.items():
    globals()[_name] = _unary(_name, _op, True)
for _name, _op in _UNARY.items():
    globals()[_name] = _unary(_name, _op, False)
for _name in _LOWER_SLOTS:
    globals()[_name] = _unary(_name, _name, False, lower=True)


def round(x, decimals: int = 0, name: str | None = None, *, out=None):  # noqa: A001,A002
    """Round half to even at `decimals` places (op `round`).

    Example:
        >>> pyir.round(x, decimals=1)
    """
    return into(apply_out("round", {"X": x}, {"decimals": int(decimals)}, name=name), out)


def trunc(input, name: str | None = None):  # noqa: A002 - Paddle's name
    """Round toward zero (op `trunc`).

    Example:
        >>> pyir.trunc(x)
    """
    return out("trunc", {"X": input}, name=name)


def sgn(x, name: str | None = None):
    """The sign of x (-1, 0, 1) for real tensors: `sign` (op `sign`).

    Example:
        >>> pyir.sgn(x)
    """
    return out("sign", {"X": x}, name=name)


def neg(x, name: str | None = None):
    """-x, as Paddle builds it: op `scale` with scale -1.

    Example:
        >>> pyir.neg(x)
    """
    return out("scale", {"X": x}, {"scale": -1.0, "bias": 0.0, "bias_after_scale": True},
               name=name)


def negative(x, name: str | None = None):
    """-x (op `scale`), an alias of `neg`.

    Example:
        >>> pyir.negative(x)
    """
    return neg(x, name)


def positive(x, name: str | None = None):
    """+x: x itself (refused for bool tensors, as Paddle refuses them).

    Example:
        >>> pyir.positive(x) is x
    """
    need_tensor(x, "positive")
    if dtype_of(x) == np.bool_:
        raise BuildError("positive is not defined for bool tensors; cast x to a number type",
                         Where(op_type="positive"))
    return x


def frac(x, name: str | None = None, *, out=None):  # noqa: A002
    """The fractional part x - trunc(x) (ops `trunc`, `elementwise_sub`).

    Example:
        >>> pyir.frac(x)
    """
    whole = apply_out("trunc", {"X": x})
    result = apply_out("elementwise_sub", {"X": x, "Y": whole}, {"axis": -1}, name=name)
    return into(result, out)


def polygamma(x, n: int, name: str | None = None):
    """The n-th derivative of digamma (op `polygamma`); n must be a non-negative int.

    Example:
        >>> pyir.polygamma(x, 1)
    """
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 0:
        raise BuildError(f"n must be a non-negative int, got {n!r}", Where(op_type="polygamma"))
    return out("polygamma", {"x": x}, {"n": int(n)}, name=name, slot="out")


def sinc(x, name: str | None = None):
    """sin(pi x) / (pi x), 1 at 0 (ops scale, sin, elementwise_div, where).

    Example:
        >>> pyir.sinc(x)
    """
    x = to_float(x)
    at_zero = out("equal", {"X": x, "Y": scalar_like(x, 0.0)})
    safe = where(at_zero, filled_like(x, 1.0), x)
    angle = out("scale", {"X": safe}, {"scale": _math.pi, "bias": 0.0,
                                       "bias_after_scale": True})
    ratio = out("elementwise_div", {"X": out("sin", {"X": angle}), "Y": angle}, {"axis": -1})
    return where(at_zero, filled_like(x, 1.0), ratio, name=name)


def logit(x, eps: float | None = None, name: str | None = None):
    """log(x / (1 - x)), x clipped to [eps, 1 - eps] when eps is given (op `logit`).

    Example:
        >>> pyir.logit(p, eps=1e-6)
    """
    return out("logit", {"X": x}, {"eps": 0.0 if eps is None else float(eps)}, name=name)


def stanh(x, scale_a: float = 0.67, scale_b: float = 1.7159, name: str | None = None):
    """scale_b * tanh(scale_a * x) (op `stanh`).

    Example:
        >>> pyir.stanh(x)
    """
    return out("stanh", {"X": x}, {"scale_a": float(scale_a), "scale_b": float(scale_b)},
               name=name)


def deg2rad(x, name: str | None = None):
    """Degrees to radians: op `scale` by pi/180 (integers computed in float32).

    Example:
        >>> pyir.deg2rad(x)
    """
    return out("scale", {"X": to_float(x)}, {"scale": _math.pi / 180.0, "bias": 0.0,
                                             "bias_after_scale": True},
               name=name, stem="deg2rad")


def rad2deg(x, name: str | None = None):
    """Radians to degrees: op `scale` by 180/pi (integers computed in float32).

    Example:
        >>> pyir.rad2deg(x)
    """
    return out("scale", {"X": to_float(x)}, {"scale": 180.0 / _math.pi, "bias": 0.0,
                                             "bias_after_scale": True},
               name=name, stem="rad2deg")


def nan_to_num(x, nan: float = 0.0, posinf: float | None = None,
               neginf: float | None = None, name: str | None = None):
    """NaN -> nan, +inf -> posinf, -inf -> neginf (default: the dtype's extremes), via
    `fill_any_like` and `where` ops.

    Example:
        >>> pyir.nan_to_num(x, nan=0.0)
    """
    dt = dtype_of(x)
    if dt not in FLOAT_TYPES:
        return x
    big = float(np.finfo(dt).max)
    posinf = big if posinf is None else posinf
    neginf = -big if neginf is None else neginf
    y = where(out("isnan_v2", {"X": x}), filled_like(x, nan), x)
    y = where(out("equal", {"X": y, "Y": filled_like(x, np.inf)}), filled_like(x, posinf), y)
    return where(out("equal", {"X": y, "Y": filled_like(x, -np.inf)}), filled_like(x, neginf),
                 y, name=name)


def _infinite_of_sign(x, positive: bool, name):
    dt = dtype_of(x)
    if dt not in FLOAT_TYPES:
        return filled_like(x, 0.0, dtype="bool", name=name)
    compare = "greater_than" if positive else "less_than"
    signed = out(compare, {"X": x, "Y": scalar_like(x, 0.0)})
    return out("logical_and", {"X": out("isinf_v2", {"X": x}), "Y": signed}, name=name)


def isneginf(x, name: str | None = None):
    """x == -inf (ops isinf_v2, less_than, logical_and); all False for integers.

    Example:
        >>> pyir.isneginf(x)
    """
    return _infinite_of_sign(x, False, name)


def isposinf(x, name: str | None = None):
    """x == +inf (ops isinf_v2, greater_than, logical_and); all False for integers.

    Example:
        >>> pyir.isposinf(x)
    """
    return _infinite_of_sign(x, True, name)


def isreal(x, name: str | None = None):
    """Whether each element is real: all True, pyir has no complex tensors
    (op `fill_any_like`, bool).

    Example:
        >>> pyir.isreal(x)
    """
    need_tensor(x, "isreal")
    return filled_like(x, 1.0, dtype="bool", name=name)


def signbit(x, name: str | None = None):
    """Whether the sign bit is set (true for -0.0 and negative numbers): copysign(1, x) < 0.

    Example:
        >>> pyir.signbit(x)
    """
    dt = dtype_of(x)
    if dt == np.bool_:
        return filled_like(x, 0.0, dtype="bool", name=name)
    if dt not in FLOAT_TYPES:
        return out("less_than", {"X": x, "Y": scalar_like(x, 0)}, name=name)
    ones = filled_like(x, 1.0)
    signed = out("copysign", {"x": ones, "y": x}, slot="out")
    return out("less_than", {"X": signed, "Y": scalar_like(x, 0.0)}, name=name)


def gammaincc(x, y, name: str | None = None):
    """The regularized upper incomplete gamma function Q(x, y) = Gamma(x, y) / Gamma(x)
    (op `gammaincc`; the gradient flows to y only, as in Paddle).

    Example:
        >>> pyir.gammaincc(a, t)
    """
    need_tensor(x, "gammaincc")
    return out("gammaincc", {"x": x, "y": as_tensor_like(x, y, "gammaincc")}, name=name,
               slot="out")


def gammainc(x, y, name: str | None = None):
    """The regularized lower incomplete gamma function P(x, y) = 1 - Q(x, y) (`gammaincc`
    then `scale` by -1 with bias 1).

    Example:
        >>> pyir.gammainc(a, t)
    """
    return out("scale", {"X": gammaincc(x, y)}, {"scale": -1.0, "bias": 1.0,
                                                 "bias_after_scale": True}, name=name)


def multigammaln(x, p: int, name: str | None = None):
    """log of the multivariate gamma function of dimension p: sum over j < p of
    lgamma(x - j/2) + p (p - 1) / 4 log(pi) (ops unsqueeze2, elementwise_add, lgamma,
    reduce_sum, scale).

    Example:
        >>> pyir.multigammaln(x, 3)
    """
    need_tensor(x, "multigammaln")
    if not isinstance(p, (int, np.integer)) or isinstance(p, bool) or p < 1:
        raise BuildError(f"p must be an int >= 1, got {p!r}", Where(op_type="multigammaln"))
    shifts = constant_vector(x, [0.5 * k for k in range(1 - p, 1)])
    spread = out("elementwise_add", {"X": out("unsqueeze2", {"X": x}, {"axes": [len(x.shape)]}),
                                     "Y": shifts}, {"axis": -1})
    total = out("reduce_sum", {"X": out("lgamma", {"X": spread})},
                {"dim": [-1], "keep_dim": False, "reduce_all": False})
    return out("scale", {"X": total}, {"scale": 1.0, "bias": 0.25 * p * (p - 1) *
                                       _math.log(_math.pi), "bias_after_scale": True},
               name=name)


def frexp(x, name: str | None = None):
    """(mantissa, exponent) with x = mantissa * 2**exponent, 0.5 <= |mantissa| < 1 (both in
    x's float dtype; 0 gives 0, 0), composed as Paddle does from abs, log2, floor, where.

    Example:
        >>> mantissa, exponent = pyir.frexp(x)
    """
    need_tensor(x, "frexp")
    if dtype_of(x) not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise BuildError(f"expects a float32 or float64 tensor, got {dtype_of(x)}",
                         Where(op_type="frexp"))
    size = out("abs", {"X": x})
    exponent = out("floor", {"X": out("log2", {"X": size})})
    exponent = where(out("isinf_v2", {"X": exponent}), filled_like(exponent, 0.0), exponent)
    power = out("elementwise_pow", {"X": scalar_like(x, 2.0), "Y": exponent}, {"axis": -1})
    mantissa = out("elementwise_div", {"X": size, "Y": power}, {"axis": -1})
    too_big = out("greater_equal", {"X": mantissa, "Y": scalar_like(x, 1.0)})
    exponent = where(too_big, out("scale", {"X": exponent}, {"bias": 1.0}), exponent)
    mantissa = where(too_big, out("scale", {"X": mantissa}, {"scale": 0.5}), mantissa)
    negative = out("less_than", {"X": x, "Y": scalar_like(x, 0.0)})
    mantissa = where(negative, out("scale", {"X": mantissa}, {"scale": -1.0}), mantissa,
                     name=name)
    return mantissa, exponent


for _name in ("gammaincc", "gammainc", "multigammaln"):
    globals()[f"{_name}_"] = inplace_of(globals()[_name], f"{_name}_")
for _name in _IN_PLACE:
    globals()[f"{_name}_"] = inplace_of(globals()[_name], f"{_name}_")
del _name, _op
