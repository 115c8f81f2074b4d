"""More elementwise math ops (Paddle's names, slots and attributes), each with its gradient:
special functions (erfinv, lgamma, gammaln, digamma, polygamma, the Bessel i0/i0e/i1/i1e),
logit, stanh, angle, and the binary atan2, copysign, nextafter, lerp, elementwise_fmax /
fmin / heaviside, the bit shifts, multiplex; nanmedian.

The special functions are plain numpy (pyir/ops/_special.py). Each op's examples compare
against an independent formula (an integral, a bisection, Python's `math`).
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ..registry import Attr, Example, Slot, VarSpec, register_op
from ..registry import AttrType as T
from ._helpers import broadcast_shape, default_grad, rand, rand_positive, same_as, unbroadcast
from ._special import bessel_i, digamma, erfinv, lgamma, polygamma
from .elementwise import _binary
from .reduce import reduced_axes, reduced_shape

# --- unary ops with any slot names and attributes ---------------------------------------------
def _unary(name, forward, derivative, doc, examples, *, x="X", out="Out", uses=("X",),
           attrs=()):
    """Register `name` (x -> out) and `name_grad` (uses + out@GRAD -> x@GRAD).

    forward(X, *attrs) -> array (cast back to X's dtype); derivative(g, *used, *attrs)."""
    names = [a.name for a in attrs]
    used = [x if u == "X" else out if u == "Out" else u for u in uses]

    def kernel(*args):
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            value = forward(*args)
        return {out: np.asarray(value).astype(args[0].dtype, copy=False)}

    register_op(name, inputs=[x], outputs=[out], attrs=attrs, infer=same_as(x, out=out),
                grad=default_grad(f"{name}_grad", uses=used) if derivative else None,
                doc=doc, examples=examples)(_with_params(kernel, [x, *names]))
    if derivative is None:
        return

    def grad_kernel(*args):
        values, g, rest = args[:len(used)], args[len(used)], args[len(used) + 1:]
        return {f"{x}@GRAD": np.asarray(derivative(g, *values, *rest)).astype(g.dtype)}

    register_op(f"{name}_grad", inputs=[*used, f"{out}@GRAD"], outputs=[f"{x}@GRAD"],
                attrs=attrs, infer=same_as(f"{out}@GRAD", out=f"{x}@GRAD"), grad_of=name,
                doc=f"gradient of {name}")(
        _with_params(grad_kernel, [*used, f"{out}_grad", *names]))


def _with_params(fn, params):
    """A wrapper of fn(*args) whose code object names `params` (the registry reads them)."""
    source = f"def kernel({', '.join(params)}):\n    return fn({', '.join(params)})\n"
    scope = {"fn": fn}
    exec(source, scope)  # noqa: S102 - a fixed template over declared parameter names
    return scope["kernel"]


def _cases(inputs, reference, attrs=None, slot="X", out="Out", grad=True):
    """Examples for X arrays `inputs`: expect reference(X, **attrs) in X's dtype."""

    def expect(**kw):
        x = kw.pop(slot)
        return {out: np.asarray(reference(x, **kw)).astype(x.dtype)}

    return [Example({slot: v}, dict(attrs or {}), expect, grad=grad) for v in inputs]


def _integral_bessel(order, x, scaled=False):
    """I_n(x) = 1/pi * integral_0^pi exp(x cos t) cos(n t) dt (trapezoid: exact for periodic)."""
    t = np.linspace(0, np.pi, 2001)
    x = np.asarray(x, np.float64)
    vals = np.exp(np.multiply.outer(x, np.cos(t)) - (np.abs(x)[..., None] if scaled else 0))
    w = np.full(t.shape, t[1] - t[0])
    w[[0, -1]] /= 2
    return (vals * np.cos(order * t) * w).sum(-1) / np.pi


def _erfinv_reference(x):
    """Bisection on math.erf: independent of the kernel's approximation."""
    lo, hi = np.full(x.shape, -6.0), np.full(x.shape, 6.0)
    f = np.frompyfunc(math.erf, 1, 1)
    for _ in range(80):
        mid = (lo + hi) / 2
        below = np.asarray(f(mid), np.float64) < x
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    return (lo + hi) / 2


def _polygamma_reference(x, n):
    """(-1)^(n+1) n! sum_k 1/(x+k)^(n+1), summed directly with an integral tail."""
    k = np.arange(20000.0)
    a = np.asarray(x, np.float64)[..., None] + k
    s = (a ** -(n + 1.0)).sum(-1)
    end = np.asarray(x, np.float64) + 20000.0
    s += end ** -n / n + 0.5 * end ** -(n + 1.0) + (n + 1) / 12 * end ** -(n + 2.0)
    return (-1) ** (n + 1) * math.factorial(n) * s


_GAMMA_POINTS = np.array([[0.5, 1.0, 2.0, 3.5], [4.0, 0.25, 1.5, 7.0]])

_unary("erfinv", lambda X: erfinv(X),
       lambda g, out: g * math.sqrt(math.pi) / 2 * np.exp(out * out),
       "Out = erfinv(X), the inverse of erf on (-1, 1)",
       _cases([rand(3, 4, low=-0.9, high=0.9), rand(2, 3, dtype="float64", low=-0.99,
                                                    high=0.99)],
              _erfinv_reference), uses=("Out",))
_unary("lgamma", lambda X: lgamma(X), lambda g, X: g * digamma(X), "Out = ln|Gamma(X)|",
       _cases([rand_positive(3, 4), _GAMMA_POINTS],
              lambda X: np.vectorize(math.lgamma)(X.astype(np.float64))))
_unary("gammaln", lambda x: lgamma(x), lambda g, x: g * digamma(x), "out = ln|Gamma(x)|",
       _cases([rand_positive(3, 4), _GAMMA_POINTS],
              lambda x: np.vectorize(math.lgamma)(x.astype(np.float64)), slot="x", out="out"),
       x="x", out="out")
# digamma at n and n + 1/2 from harmonic sums: -gamma + H_(n-1), -gamma - 2 ln 2 + 2 sum 1/(2k-1)
_EULER = 0.5772156649015329
_unary("digamma", lambda X: digamma(X), lambda g, X: g * polygamma(1, X), "Out = psi(X)",
       _cases([np.array([[1.0, 2.0, 5.0], [0.5, 1.5, 3.5]])],
              lambda X: np.array([[-_EULER, 1 - _EULER, 25 / 12 - _EULER],
                                  [-_EULER - 2 * math.log(2), 2 - _EULER - 2 * math.log(2),
                                   2 * (1 + 1 / 3 + 1 / 5) - _EULER - 2 * math.log(2)]]))
       + _cases([rand_positive(3, 4)],
                lambda X: (np.vectorize(math.lgamma)(X.astype(np.float64) + 1e-6) -
                           np.vectorize(math.lgamma)(X.astype(np.float64) - 1e-6)) / 2e-6))
_unary("polygamma", lambda x, n: polygamma(n, x),
       lambda g, x, n: g * polygamma(n + 1, x), "out = the n-th derivative of digamma(x)",
       _cases([_GAMMA_POINTS], _polygamma_reference, {"n": 1}, "x", "out")
       + _cases([rand_positive(2, 3, dtype="float64")], _polygamma_reference, {"n": 3},
                "x", "out"),
       x="x", out="out", attrs=[Attr("n", T.INT, 0)])

_BESSEL_POINTS = [rand(3, 4, low=-3, high=3),
                  np.array([[-40.0, -12.5, 0.0], [0.3, 8.0, 35.0]])]
_unary("i0", lambda x: bessel_i(0, x, False), lambda g, x: g * bessel_i(1, x, False),
       "out = I0(x), the modified Bessel function of order 0",
       _cases(_BESSEL_POINTS[:1], lambda x: np.i0(x.astype(np.float64)), slot="x", out="out")
       + _cases(_BESSEL_POINTS[1:], lambda x: _integral_bessel(0, x), slot="x", out="out",
                grad=False),
       x="x", out="out")
_unary("i0e", lambda x: bessel_i(0, x, True),
       lambda g, x, out: g * (bessel_i(1, x, True) - np.sign(x) * out),
       "out = exp(-|x|) I0(x)",
       _cases(_BESSEL_POINTS, lambda x: _integral_bessel(0, x, True), slot="x", out="out"),
       x="x", out="out", uses=("X", "Out"))


def _i1_grad(g, x, out, scaled):
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(x == 0, 0.5, out / np.where(x == 0, 1, x))
    base = bessel_i(0, x, scaled) - np.where(x == 0, 0.0, ratio)
    if scaled:
        base = base - np.sign(x) * out
    return g * np.where(x == 0, 0.5, base)


_unary("i1", lambda x: bessel_i(1, x, False), lambda g, x, out: _i1_grad(g, x, out, False),
       "out = I1(x), the modified Bessel function of order 1",
       _cases(_BESSEL_POINTS[:1], lambda x: _integral_bessel(1, x), slot="x", out="out")
       + _cases(_BESSEL_POINTS[1:], lambda x: _integral_bessel(1, x), slot="x", out="out",
                grad=False),
       x="x", out="out", uses=("X", "Out"))
_unary("i1e", lambda x: bessel_i(1, x, True), lambda g, x, out: _i1_grad(g, x, out, True),
       "out = exp(-|x|) I1(x)",
       _cases(_BESSEL_POINTS, lambda x: _integral_bessel(1, x, True), slot="x", out="out"),
       x="x", out="out", uses=("X", "Out"))


def _logit(X, eps):
    x = np.clip(X, eps, 1 - eps) if eps > 0 else X
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(x / (1 - x))


def _logit_grad(g, X, eps):
    with np.errstate(divide="ignore", invalid="ignore"):
        d = g / (X * (1 - X))
    return np.where((X < eps) | (X > 1 - eps), 0.0, d) if eps > 0 else d


_unary("logit", _logit, _logit_grad,
       "Out = ln(X / (1 - X)), X clipped to [eps, 1 - eps] when eps > 0",
       _cases([rand(3, 4, low=0.1, high=0.9)], lambda X, eps: np.log(X / (1.0 - X)),
              {"eps": 0.0})
       + _cases([np.array([[0.01, 0.3, 0.5], [0.7, 0.96, 0.2]])],
                lambda X, eps: np.log(np.minimum(np.maximum(X, eps), 1 - eps) /
                                      (1 - np.minimum(np.maximum(X, eps), 1 - eps))),
                {"eps": 0.05}),
       attrs=[Attr("eps", T.FLOAT, 1e-6)])
_unary("stanh", lambda X, a, b: b * np.tanh(a * X),
       lambda g, X, a, b: g * a * b * (1 - np.tanh(a * X) ** 2),
       "Out = scale_b * tanh(scale_a * X)",
       _cases([rand(3, 4, low=-2, high=2)],
              lambda X, scale_a, scale_b: scale_b * (np.exp(2 * scale_a * X) - 1) /
              (np.exp(2 * scale_a * X) + 1), {"scale_a": 0.67, "scale_b": 1.7159}),
       attrs=[Attr("scale_a", T.FLOAT, 0.67), Attr("scale_b", T.FLOAT, 1.7159)])
_unary("angle", lambda X: np.where(X < 0, np.pi, np.where(np.isnan(X), np.nan, 0.0)),
       lambda g, X: np.zeros_like(g), "Out = the phase of X: pi for X < 0, else 0 (real X)",
       _cases([np.array([[-2.0, 0.0, 3.0], [-0.5, 0.7, -1.0]], np.float32)],
              lambda X: np.array([[math.pi, 0, 0], [math.pi, 0, math.pi]]), grad=False)
       + _cases([np.array([[-2.0, 0.5], [1.5, -0.7]])],
                lambda X: np.array([[math.pi, 0], [0, math.pi]])))


# --- binary ops -----------------------------------------------------------------------------
def _infer_pair(a, b, out, dtype=None):
    def infer(ctx):
        x, y = ctx.input(a), ctx.input(b)
        return {out: VarSpec(broadcast_shape(x.shape, y.shape), dtype or x.dtype)}

    return infer


def _float_of(X):
    return X.dtype if np.issubdtype(X.dtype, np.floating) else np.dtype(np.float64)


def _infer_atan2(ctx):
    x, y = ctx.input("X1"), ctx.input("X2")
    return {"Out": VarSpec(broadcast_shape(x.shape, y.shape), _float_of(x))}


@register_op(
    "atan2", inputs=["X1", "X2"], outputs=["Out"], infer=_infer_atan2,
    grad=default_grad("atan2_grad"), doc="Out = atan2(X1, X2), the angle of (X2, X1)",
    examples=[Example({"X1": rand(3, 4), "X2": rand(3, 4)},
                      expect=lambda X1, X2: {"Out": np.vectorize(math.atan2)(X1, X2)
                                             .astype(np.float32)}),
              Example({"X1": np.array([1, -1, 0], np.int32), "X2": np.array([0, 0, -1],
                                                                           np.int32)},
                      expect={"Out": np.array([math.pi / 2, -math.pi / 2, math.pi])},
                      grad=False)],
)
def atan2(X1, X2):
    return {"Out": np.arctan2(X1, X2).astype(_float_of(X1))}


@register_op("atan2_grad", inputs=["X1", "X2", "Out@GRAD"],
             outputs=[Slot("X1@GRAD", dispensable=True), Slot("X2@GRAD", dispensable=True)],
             infer=lambda ctx: {"X1@GRAD": ctx.input("X1"), "X2@GRAD": ctx.input("X2")},
             grad_of="atan2", doc="dX1 = dOut X2 / (X1^2 + X2^2), dX2 = -dOut X1 / (...)")
def atan2_grad(X1, X2, Out_grad):
    r = X1 * X1 + X2 * X2
    return {"X1@GRAD": unbroadcast(Out_grad * X2 / r, X1.shape).astype(X1.dtype),
            "X2@GRAD": unbroadcast(-Out_grad * X1 / r, X2.shape).astype(X2.dtype)}


def _copysign_dx(x, y, g):
    return g * np.where(x == 0, 0.0, np.sign(x) * np.copysign(1.0, y))


@register_op(
    "copysign", inputs=["x", "y"], outputs=["out"], infer=_infer_pair("x", "y", "out"),
    grad=default_grad("copysign_grad"), doc="out = |x| with the sign of y (-0.0 counts)",
    examples=[Example({"x": rand(3, 4), "y": rand(3, 4)},
                      expect=lambda x, y: {"out": np.vectorize(math.copysign)(x, y)
                                           .astype(np.float32)}),
              Example({"x": np.array([1.5, -2.0, 3.0]), "y": np.array([-0.0, 0.0, -1.0])},
                      expect={"out": np.array([-1.5, 2.0, -3.0])}, grad=False)],
)
def copysign(x, y):
    return {"out": np.copysign(x, y).astype(x.dtype)}


@register_op("copysign_grad", inputs=["x", "y", "out@GRAD"],
             outputs=[Slot("x@GRAD", dispensable=True), Slot("y@GRAD", dispensable=True)],
             infer=lambda ctx: {"x@GRAD": ctx.input("x"), "y@GRAD": ctx.input("y")},
             grad_of="copysign", doc="dx = dout * sign(x) * sign(y), dy = 0")
def copysign_grad(x, y, out_grad):
    return {"x@GRAD": unbroadcast(_copysign_dx(x, y, out_grad), x.shape).astype(x.dtype),
            "y@GRAD": np.zeros_like(y)}


@register_op(
    "nextafter", inputs=["x", "y"], outputs=["out"], infer=_infer_pair("x", "y", "out"),
    doc="out = the next representable value after x towards y",
    examples=[Example({"x": np.array([1.0, 1.0, 0.0]), "y": np.array([2.0, 0.0, 1.0])},
                      expect={"out": np.array([1.0 + 2.0 ** -52, 1.0 - 2.0 ** -53, 5e-324])}),
              Example({"x": np.array([1.0], np.float32), "y": np.array([2.0], np.float32)},
                      expect={"out": np.array([1.0 + 2.0 ** -23], np.float32)})],
)
def nextafter(x, y):
    return {"out": np.nextafter(x, y.astype(x.dtype))}


def _infer_lerp(ctx):
    shape = broadcast_shape(broadcast_shape(ctx.input("X").shape, ctx.input("Y").shape),
                            ctx.input("Weight").shape)
    return {"Out": VarSpec(shape, ctx.input("X").dtype)}


@register_op(
    "lerp", inputs=["X", "Y", Slot("Weight", no_grad=True)], outputs=["Out"],
    infer=_infer_lerp, grad=default_grad("lerp_grad", uses=["X", "Y", "Weight", "Out"]),
    doc="Out = X + Weight * (Y - X)",
    examples=[Example({"X": rand(3, 4), "Y": rand(3, 4), "Weight": rand(4)},
                      expect=lambda X, Y, Weight: {"Out": (1 - Weight) * X + Weight * Y}),
              Example({"X": rand(2, 3, dtype="float64"), "Y": rand(3, dtype="float64"),
                       "Weight": np.array([0.25])},
                      expect=lambda X, Y, Weight: {"Out": 0.75 * X + 0.25 * Y})],
)
def lerp(X, Y, Weight):
    return {"Out": (X + Weight * (Y - X)).astype(X.dtype)}


@register_op("lerp_grad", inputs=["X", "Y", "Weight", "Out", "Out@GRAD"],
             outputs=[Slot("X@GRAD", dispensable=True), Slot("Y@GRAD", dispensable=True)],
             infer=lambda ctx: {"X@GRAD": ctx.input("X"), "Y@GRAD": ctx.input("Y")},
             grad_of="lerp", doc="dX = dOut (1 - Weight), dY = dOut Weight")
def lerp_grad(X, Y, Weight, Out, Out_grad):
    return {"X@GRAD": unbroadcast(Out_grad * (1 - Weight), X.shape).astype(X.dtype),
            "Y@GRAD": unbroadcast(Out_grad * Weight, Y.shape).astype(Y.dtype)}


_binary("fmax", np.fmax, lambda x, y, g: g * ((x >= y) | np.isnan(y)),
        lambda x, y, g: g * ~((x >= y) | np.isnan(y)), "Out = fmax(X, Y): NaN loses")
_binary("fmin", np.fmin, lambda x, y, g: g * ((x <= y) | np.isnan(y)),
        lambda x, y, g: g * ~((x <= y) | np.isnan(y)), "Out = fmin(X, Y): NaN loses")
_binary("heaviside", lambda x, y: np.where(x == 0, y, x > 0).astype(np.result_type(x, y)),
        lambda x, y, g: np.zeros_like(g), lambda x, y, g: g * (x == 0),
        "Out = Y where X == 0, 1 where X > 0, else 0 (NaN X gives 0, as in Paddle)")


def _shift_examples(forward):
    a = np.array([[5, -8, 1], [127, -1, 64]], np.int32)
    b = np.array([[1, 2, 3], [0, 1, 4]], np.int32)
    return [Example({"x": a, "y": b}, {"is_arithmetic": arith},
                    lambda x, y, is_arithmetic: {"out": np.array(
                        [[forward(int(p), int(q), is_arithmetic) for p, q in zip(r, s)]
                         for r, s in zip(x, y)], np.int32)})
            for arith in (True, False)]


def _python_shift(left):
    def shift(p, q, arithmetic):
        if left:
            v = (p << q) & 0xFFFFFFFF
        else:
            v = p >> q if arithmetic else (p & 0xFFFFFFFF) >> q
        return v - (1 << 32) if v >= 1 << 31 else v

    return shift


def _unsigned(dtype):
    return np.dtype(f"uint{dtype.itemsize * 8}") if dtype.kind == "i" else dtype


def _shift(left: bool):
    def kernel(x, y, is_arithmetic):
        if left:
            return {"out": np.left_shift(x, y.astype(x.dtype)).astype(x.dtype)}
        if is_arithmetic or x.dtype.kind != "i":
            return {"out": np.right_shift(x, y.astype(x.dtype))}
        u = _unsigned(x.dtype)
        return {"out": np.right_shift(x.astype(u), y.astype(u)).astype(x.dtype)}

    return kernel


for _left in (True, False):
    register_op(f"bitwise_{'left' if _left else 'right'}_shift", inputs=["x", "y"],
                outputs=["out"], attrs=[Attr("is_arithmetic", T.BOOLEAN, True)],
                infer=_infer_pair("x", "y", "out"),
                doc=f"out = x {'<<' if _left else '>>'} y (is_arithmetic: sign-filling; "
                    f"else logical)",
                examples=_shift_examples(_python_shift(_left)))(_shift(_left))


# --- multiplex --------------------------------------------------------------------------------
@register_op(
    "multiplex", inputs=[Slot("Ids", no_grad=True), Slot("X", duplicable=True)],
    outputs=["Out"], infer=lambda ctx: {"Out": ctx.input_list("X")[0]},
    grad=default_grad("multiplex_grad", uses=["Ids", "X"]),
    doc="Out[i] = X[Ids[i]][i]: row i from the candidate Ids[i]",
    examples=[Example({"Ids": np.array([[1], [0], [1]], np.int32),
                       "X": [rand(3, 4), rand(3, 4)]},
                      expect=lambda Ids, X: {"Out": np.stack([X[1][0], X[0][1], X[1][2]])})],
)
def multiplex(Ids, X):
    ids = np.asarray(Ids).reshape(-1)
    rows = np.arange(X[0].shape[0])
    return {"Out": np.stack(X)[ids, rows]}


@register_op("multiplex_grad", inputs=["Ids", Slot("X", duplicable=True), "Out@GRAD"],
             outputs=[Slot("X@GRAD", duplicable=True)],
             infer=lambda ctx: {"X@GRAD": ctx.input_list("X")}, grad_of="multiplex",
             doc="dX[k][i] = dOut[i] where Ids[i] == k, else 0 (pyir's grad op also reads X "
                 "for the number of candidates)")
def multiplex_grad(Ids, X, Out_grad):
    ids = np.asarray(Ids).reshape(-1)
    count = len(X)
    return {"X@GRAD": [np.where((ids == k).reshape((-1,) + (1,) * (Out_grad.ndim - 1)),
                                Out_grad, 0).astype(Out_grad.dtype) for k in range(count)]}


# --- nanmedian --------------------------------------------------------------------------------
_NANMEDIAN_ATTRS = [Attr("axis", T.INTS, []), Attr("keepdim", T.BOOLEAN, True),
                    Attr("mode", T.STRING, "avg")]


def _to_last(X, axis):
    """X with the reduced axes moved last and merged into one; plus the output shape."""
    axes = reduced_axes(X.ndim, axis, False)
    kept = [d for d in range(X.ndim) if d not in axes]
    moved = np.transpose(X, kept + list(axes))
    return moved.reshape(moved.shape[:len(kept)] + (-1,)), axes


def _infer_nanmedian(ctx):
    x = ctx.input("X")
    axes = reduced_axes(len(x.shape), ctx.attr("axis"), False)
    shape = reduced_shape(x.shape, axes, ctx.attr("keepdim"))
    index = shape + (2,) if ctx.attr("mode") == "avg" else shape
    return {"Out": VarSpec(shape, x.dtype), "MedianIndex": VarSpec(index, np.dtype(np.int64))}


def _nanmedian_expect(X, axis=(), keepdim=True, mode="avg"):
    axes = reduced_axes(X.ndim, axis, False)
    if mode == "avg":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN slice is expected
            out = np.nanmedian(X.astype(np.float64), axis=axes, keepdims=keepdim)
    else:
        flat, _ = _to_last(X, axis)
        out = np.array([np.sort(r[~np.isnan(r)])[(np.count_nonzero(~np.isnan(r)) - 1) // 2]
                        if (~np.isnan(r)).any() else np.nan for r in flat.reshape(
                            -1, flat.shape[-1])]).reshape(reduced_shape(X.shape, axes, keepdim))
    return {"Out": np.asarray(out).astype(X.dtype)}


@register_op(
    "nanmedian", inputs=["X"], outputs=["Out", "MedianIndex"],
    attrs=_NANMEDIAN_ATTRS, infer=_infer_nanmedian,
    grad=default_grad("nanmedian_grad", uses=["X", "MedianIndex", "Out"], out_grads=["Out"]),
    doc="Out = median of the non-NaN values of X over axis ('avg' of the two middle values, "
        "or the lower one for 'min'); MedianIndex = their positions (-1 when all NaN)",
    examples=[Example({"X": np.array([[3.0, np.nan, 1.0, 2.0], [5.0, 4.0, 6.0, 7.0],
                                      [np.nan] * 4], np.float32)},
                      {"axis": [1], "keepdim": False}, _nanmedian_expect, grad=False),
              Example({"X": rand(2, 3, 4, dtype="float64")}, {"axis": [0, 2]},
                      _nanmedian_expect),
              Example({"X": rand(3, 4)}, {"axis": [-1], "mode": "min", "keepdim": False},
                      _nanmedian_expect)],
)
def nanmedian(X, axis, keepdim, mode):
    flat, axes = _to_last(X, axis)
    rows = flat.reshape(-1, flat.shape[-1])
    valid = (~np.isnan(rows)).sum(-1)
    order = np.argsort(np.where(np.isnan(rows), np.inf, rows), axis=-1, kind="stable")
    lo, hi = np.maximum((valid - 1) // 2, 0), np.maximum(valid // 2, 0)
    r = np.arange(len(rows))
    i_lo, i_hi = order[r, lo], order[r, hi if mode == "avg" else lo]
    out = (rows[r, i_lo].astype(np.float64) + rows[r, i_hi]) / 2
    empty = valid == 0
    out[empty] = np.nan
    i_lo, i_hi = np.where(empty, -1, i_lo), np.where(empty, -1, i_hi)
    shape = reduced_shape(X.shape, axes, keepdim)
    index = np.stack([i_lo, i_hi], -1).reshape(shape + (2,)) if mode == "avg" else \
        i_lo.reshape(shape)
    return {"Out": out.reshape(shape).astype(X.dtype), "MedianIndex": index.astype(np.int64)}


@register_op("nanmedian_grad", inputs=["X", "MedianIndex", "Out", "Out@GRAD"],
             outputs=["X@GRAD"],
             attrs=_NANMEDIAN_ATTRS, infer=same_as("X", out="X@GRAD"), grad_of="nanmedian",
             doc="dX = dOut at the median positions (halved for the two of 'avg')")
def nanmedian_grad(X, MedianIndex, Out, Out_grad, axis, keepdim, mode):
    flat, axes = _to_last(X, axis)
    rows = flat.reshape(-1, flat.shape[-1])
    idx = MedianIndex.reshape(len(rows), -1)
    g = np.reshape(Out_grad, (len(rows), 1)) / idx.shape[1]
    dx = np.zeros(rows.shape, X.dtype)
    r = np.repeat(np.arange(len(rows))[:, None], idx.shape[1], 1)
    ok = idx >= 0
    np.add.at(dx, (r[ok], idx[ok]), np.broadcast_to(g, idx.shape)[ok])
    kept = [d for d in range(X.ndim) if d not in axes]
    moved_shape = tuple(X.shape[d] for d in kept) + tuple(X.shape[d] for d in axes)
    return {"X@GRAD": np.transpose(dx.reshape(moved_shape), np.argsort(kept + list(axes)))}
