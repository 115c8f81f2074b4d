"""Elementwise math functions (pyir/tensor/math.py): each one built in static mode (the ops
Paddle emits, run by the Executor) and run eagerly, compared with numpy; gradients through
the tape against central differences of the numpy reference; in-place variants; refusals."""

from __future__ import annotations

import math

import numpy as np
import pytest

import pyir
from pyir import framework
from pyir.errors import BuildError

from test_api_math_common import eager_grad, eager_run, numeric_grad, static_run, uniform

_erf = np.vectorize(math.erf)
_lgamma = np.vectorize(math.lgamma)


def _erfinv(x):
    """Bisection on math.erf (independent of pyir's Newton iteration)."""
    lo, hi = np.full(x.shape, -6.0), np.full(x.shape, 6.0)
    for _ in range(70):
        mid = (lo + hi) / 2
        below = _erf(mid) < x
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    return (lo + hi) / 2


def _bessel(order, x, scaled=False):
    """I_n(x) = 1/pi integral_0^pi exp(x cos t) cos(n t) dt, by Simpson's rule."""
    t = np.linspace(0, np.pi, 4001)
    x = np.asarray(x, np.float64)
    f = np.exp(np.multiply.outer(x, np.cos(t)) - (np.abs(x)[..., None] if scaled else 0))
    f = f * np.cos(order * t)
    h = t[1] - t[0]
    return h / 3 * (f[..., 0] + f[..., -1] + 4 * f[..., 1:-1:2].sum(-1)
                    + 2 * f[..., 2:-1:2].sum(-1)) / np.pi


def _digamma(x):
    """psi(x) = ln(x + N) - sum_{k<N} 1/(x + k) - 1/(2(x + N)) - 1/(12 (x + N)^2), N = 2000."""
    x = np.asarray(x, np.float64)
    k = np.arange(2000.0)
    z = x + 2000.0
    return np.log(z) - (1.0 / (x[..., None] + k)).sum(-1) - 0.5 / z - 1 / (12 * z * z)


def _trigamma(x):
    k = np.arange(200000.0)
    s = (1.0 / (np.asarray(x)[..., None] + k) ** 2).sum(-1)
    return s + 1.0 / (np.asarray(x) + 200000.0)


POS = (0.5, 2.0)
UNIT = (-0.9, 0.9)
# (function, emitted op types, numpy reference, input range, gradient checked)
UNARY = [
    ("sin", ["sin"], np.sin, None, True), ("cos", ["cos"], np.cos, None, True),
    ("tan", ["tan"], np.tan, None, True), ("asin", ["asin"], np.arcsin, UNIT, True),
    ("acos", ["acos"], np.arccos, UNIT, True), ("atan", ["atan"], np.arctan, None, True),
    ("sinh", ["sinh"], np.sinh, None, True), ("cosh", ["cosh"], np.cosh, None, True),
    ("asinh", ["asinh"], np.arcsinh, None, True),
    ("acosh", ["acosh"], np.arccosh, (1.2, 3.0), True),
    ("atanh", ["atanh"], np.arctanh, UNIT, True), ("exp", ["exp"], np.exp, None, True),
    ("expm1", ["expm1"], np.expm1, None, True), ("log", ["log"], np.log, POS, True),
    ("log2", ["log2"], np.log2, POS, True), ("log10", ["log10"], np.log10, POS, True),
    ("log1p", ["log1p"], np.log1p, (-0.5, 1.0), True), ("sqrt", ["sqrt"], np.sqrt, POS, True),
    ("rsqrt", ["rsqrt"], lambda x: 1 / np.sqrt(x), POS, True),
    ("square", ["square"], np.square, None, True), ("abs", ["abs"], np.abs, None, True),
    ("sign", ["sign"], np.sign, None, False), ("sgn", ["sign"], np.sign, None, False),
    ("neg", ["scale"], np.negative, None, True), ("negative", ["scale"], np.negative, None,
                                                  True),
    ("reciprocal", ["reciprocal"], np.reciprocal, POS, True),
    ("floor", ["floor"], np.floor, (-3, 3), False), ("ceil", ["ceil"], np.ceil, (-3, 3), False),
    ("round", ["round"], np.round, (-3, 3), False), ("trunc", ["trunc"], np.trunc, (-3, 3),
                                                      False),
    ("frac", ["trunc", "elementwise_sub"], lambda x: x - np.trunc(x), (-3, 3), True),
    ("erf", ["erf"], _erf, None, True), ("erfinv", ["erfinv"], _erfinv, UNIT, True),
    ("lgamma", ["lgamma"], _lgamma, POS, True), ("gammaln", ["gammaln"], _lgamma, POS, True),
    ("digamma", ["digamma"], _digamma, POS, True),
    ("i0", ["i0"], np.i0, (-3, 3), True),
    ("i0e", ["i0e"], lambda x: _bessel(0, x, True), (-3, 3), True),
    ("i1", ["i1"], lambda x: _bessel(1, x), (-3, 3), True),
    ("i1e", ["i1e"], lambda x: _bessel(1, x, True), (-3, 3), True),
    ("sinc", ["equal", "where", "scale", "sin", "elementwise_div", "where"], np.sinc, (-2, 2),
     True),
    ("logit", ["logit"], lambda x: np.log(x / (1 - x)), (0.1, 0.9), True),
    ("stanh", ["stanh"], lambda x: 1.7159 * np.tanh(0.67 * x), None, True),
    ("deg2rad", ["scale"], np.deg2rad, (-360, 360), True),
    ("rad2deg", ["scale"], np.rad2deg, None, True),
    ("sigmoid", ["sigmoid"], lambda x: 1 / (1 + np.exp(-x)), None, True),
    ("tanh", ["tanh"], np.tanh, None, True),
    ("angle", ["angle"], lambda x: np.where(x < 0, np.pi, 0.0), None, False),
]


def _ops_without_constants(ops):
    return [t for t in ops if t not in ("fill_constant", "fill_any_like", "feed", "fetch")]


@pytest.mark.parametrize("name, op_types, reference, domain, _", UNARY,
                         ids=[c[0] for c in UNARY])
def test_unary_static_emits_paddles_ops_and_matches_numpy(name, op_types, reference, domain, _):
    x = uniform((3, 4), *(domain or (-1.0, 1.0)), dtype="float32")
    (value,), ops, _ops = static_run(getattr(pyir, name), x)
    assert _ops_without_constants(ops) == op_types
    assert value.dtype == np.float32 and value.shape == (3, 4)
    np.testing.assert_allclose(value, reference(x.astype(np.float64)), rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("name, op_types, reference, domain, _", UNARY,
                         ids=[c[0] for c in UNARY])
def test_unary_eager_matches_numpy_in_float64(name, op_types, reference, domain, _):
    x = uniform((2, 3, 2), *(domain or (-1.0, 1.0)), seed=1)
    value = eager_run(getattr(pyir, name), x)
    assert value.dtype == np.float64
    np.testing.assert_allclose(value, reference(x), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("name, reference, domain",
                         [(c[0], c[2], c[3]) for c in UNARY if c[4]],
                         ids=[c[0] for c in UNARY if c[4]])
def test_unary_eager_gradient_matches_central_differences(name, reference, domain):
    low, high = domain or (-1.0, 1.0)
    x = uniform((2, 3), low, high, seed=2)
    w = uniform((2, 3), seed=3)
    got = eager_grad(getattr(pyir, name), x, w)
    np.testing.assert_allclose(got, numeric_grad(reference, x, w), rtol=1e-5, atol=1e-6)


def test_special_function_values_at_known_points():
    x = np.array([1.0, 2.0, 0.5, 5.0])
    gamma = 0.5772156649015329
    np.testing.assert_allclose(eager_run(pyir.digamma, x),
                               [-gamma, 1 - gamma, -gamma - 2 * math.log(2),
                                25 / 12 - gamma], rtol=1e-12)
    np.testing.assert_allclose(eager_run(pyir.polygamma, x, n=1), _trigamma(x), rtol=1e-8)
    np.testing.assert_allclose(eager_run(pyir.polygamma, x, n=0),
                               eager_run(pyir.digamma, x), rtol=1e-12)
    np.testing.assert_allclose(eager_run(pyir.digamma, np.array([-0.5, -1.5])),
                               _digamma(np.array([-0.5, -1.5])), rtol=1e-6)
    big = np.array([-40.0, -31.0, 29.0, 45.0])  # both sides of the series/asymptotic switch
    np.testing.assert_allclose(eager_run(pyir.i0e, big), _bessel(0, big, True), rtol=1e-10)
    np.testing.assert_allclose(eager_run(pyir.i1e, big), _bessel(1, big, True), rtol=1e-10)
    np.testing.assert_allclose(eager_run(pyir.i1, big[1:3]), _bessel(1, big[1:3]), rtol=1e-10)
    np.testing.assert_allclose(eager_run(pyir.erfinv, np.array([0.999999, -0.5, 0.0])),
                               _erfinv(np.array([0.999999, -0.5, 0.0])), rtol=1e-9,
                               atol=1e-15)
    edges = eager_run(pyir.erfinv, np.array([1.0, -1.0, 1.5]))
    assert edges[0] == np.inf and edges[1] == -np.inf and np.isnan(edges[2])
    assert eager_run(pyir.lgamma, np.array([0.0, -1.0]))[0] == np.inf


def test_polygamma_static_attribute_and_refusals():
    x = np.array([0.5, 1.5, 3.0], np.float64)
    (value,), ops, op_list = static_run(pyir.polygamma, x, n=2)
    assert ops[-1] == "polygamma" and op_list[-1].attrs["n"] == 2
    k = np.arange(100000.0)
    expect = -2 * (1.0 / (x[:, None] + k) ** 3).sum(-1) - 1.0 / (x + 100000.0) ** 2
    np.testing.assert_allclose(value, expect, rtol=1e-8)
    for bad in (-1, 1.5, True):
        with pytest.raises(BuildError, match="n must be a non-negative int"):
            pyir.polygamma(pyir.static.data(f"p{bad}", [2], "float32"), bad)


def test_sinc_is_one_at_zero_with_zero_gradient():
    x = np.array([0.0, 0.5, -1.0])
    np.testing.assert_allclose(eager_run(pyir.sinc, x), np.sinc(x), rtol=1e-12)
    assert np.isfinite(eager_grad(pyir.sinc, x)).all()
    assert eager_grad(pyir.sinc, x)[0] == 0.0


@pytest.mark.parametrize("eps, expect", [
    (None, lambda x: np.log(x / (1 - x))),
    (0.2, lambda x: np.log(np.clip(x, 0.2, 0.8) / (1 - np.clip(x, 0.2, 0.8)))),
])
def test_logit_eps_clips_and_is_written_as_an_attribute(eps, expect):
    x = np.array([0.05, 0.3, 0.5, 0.95], np.float32)
    (value,), _, ops = static_run(pyir.logit, x, eps=eps)
    assert ops[-1].type == "logit" and ops[-1].attrs["eps"] == pytest.approx(eps or 0.0)
    np.testing.assert_allclose(value, expect(x.astype(np.float64)), rtol=1e-5)
    if eps:  # outside [eps, 1 - eps] the gradient is zero
        grad = eager_grad(pyir.logit, x.astype(np.float64), eps=eps)
        assert grad[0] == 0.0 and grad[3] == 0.0 and grad[1] > 0


def test_stanh_attributes_and_values():
    x = np.array([-1.0, 0.5], np.float32)
    (value,), _, ops = static_run(pyir.stanh, x, scale_a=2.0, scale_b=0.5)
    assert ops[-1].attrs["scale_a"] == 2.0 and ops[-1].attrs["scale_b"] == 0.5
    np.testing.assert_allclose(value, 0.5 * np.tanh(2.0 * x), rtol=1e-6)


def test_round_decimals_half_to_even():
    x = np.array([0.5, 1.5, 2.5, -0.5, 1.25, 1.35])
    (value,), _, ops = static_run(pyir.round, x, decimals=1)
    assert ops[-1].attrs["decimals"] == 1
    np.testing.assert_allclose(value, np.round(x, 1))
    np.testing.assert_array_equal(eager_run(pyir.round, x), [0.0, 2.0, 2.0, -0.0, 1.0, 1.0])


def test_deg2rad_of_integers_is_float32_with_paddles_scale():
    x = np.array([180, -90], np.int64)
    (value,), ops, op_list = static_run(pyir.deg2rad, x)
    assert ops[-2:] == ["cast", "scale"] and value.dtype == np.float32
    assert op_list[-1].attrs["scale"] == pytest.approx(math.pi / 180)
    assert op_list[-1].output("Out")[0].startswith("deg2rad_")
    np.testing.assert_allclose(value, [math.pi, -math.pi / 2], rtol=1e-6)


def test_neg_is_scale_minus_one():
    (value,), ops, op_list = static_run(pyir.neg, np.array([1.0, -2.0], np.float32))
    assert ops[-1] == "scale" and op_list[-1].attrs["scale"] == -1.0
    np.testing.assert_array_equal(value, [-1.0, 2.0])


SPECIALS = np.array([0.0, -0.0, 1.5, -2.0, np.inf, -np.inf, np.nan], np.float32)
PREDICATES = [
    ("isnan", np.isnan), ("isinf", np.isinf), ("isfinite", np.isfinite),
    ("isneginf", np.isneginf), ("isposinf", np.isposinf), ("signbit", np.signbit),
    ("isreal", np.isreal),
]


@pytest.mark.parametrize("name, reference", PREDICATES, ids=[p[0] for p in PREDICATES])
def test_predicates_on_special_values(name, reference):
    (value,), _, _ = static_run(getattr(pyir, name), SPECIALS)
    assert value.dtype == np.bool_
    np.testing.assert_array_equal(value, reference(SPECIALS))
    np.testing.assert_array_equal(eager_run(getattr(pyir, name), SPECIALS), reference(SPECIALS))


@pytest.mark.parametrize("name, expect", [
    ("isneginf", [False, False, False]), ("isposinf", [False, False, False]),
    ("signbit", [True, False, False]), ("isnan", [False, False, False]),
])
def test_predicates_on_integers(name, expect):
    x = np.array([-3, 0, 7], np.int32)
    np.testing.assert_array_equal(eager_run(getattr(pyir, name), x), expect)


def test_nan_to_num_defaults_and_explicit_values():
    x = np.array([np.nan, np.inf, -np.inf, 1.5], np.float32)
    (value,), ops, _ = static_run(pyir.nan_to_num, x)
    big = np.finfo(np.float32).max
    np.testing.assert_array_equal(value, [0.0, big, -big, 1.5])
    assert "isnan_v2" in ops and ops.count("where") == 3
    got = eager_run(pyir.nan_to_num, x.astype(np.float64), nan=1.0, posinf=2.0, neginf=-3.0)
    np.testing.assert_array_equal(got, [1.0, 2.0, -3.0, 1.5])
    ints = np.array([1, 2], np.int64)
    np.testing.assert_array_equal(eager_run(pyir.nan_to_num, ints), ints)


def test_positive_returns_x_and_refuses_bool():
    x = pyir.static.data("x", [2], "float32")
    assert pyir.positive(x) is x
    with pytest.raises(BuildError, match="positive is not defined for bool"):
        pyir.positive(pyir.static.data("b", [2], "bool"))
    with pytest.raises(BuildError, match="expects a Variable or Tensor"):
        pyir.positive(np.ones(2))


def test_unary_out_argument_writes_into_the_given_tensor():
    framework.static_mode[0] = False
    x = pyir.to_tensor(np.array([0.0, 1.0]))
    target = pyir.to_tensor(np.zeros(2))
    result = pyir.exp(x, out=target)
    assert result is target
    np.testing.assert_allclose(target.numpy(), np.exp([0.0, 1.0]))


def test_unary_out_argument_in_static_mode_assigns():
    x = pyir.static.data("x", [2], "float32")
    target = pyir.static.data("t", [2], "float32")
    assert pyir.sqrt(x, out=target) is target
    assert [op.type for op in pyir.static.default_main_program().global_block().ops][-2:] == \
        ["sqrt", "assign"]


INPLACE_UNARY = ["sin_", "cos_", "tan_", "exp_", "sqrt_", "log_", "floor_", "ceil_", "round_",
                 "trunc_", "frac_", "neg_", "erf_", "erfinv_", "lgamma_", "digamma_",
                 "reciprocal_", "rsqrt_", "sigmoid_", "tanh_", "square_", "abs_", "i0_",
                 "logit_", "nan_to_num_", "sinc_", "expm1_", "log1p_", "log2_", "log10_",
                 "gammaln_"]


@pytest.mark.parametrize("name", INPLACE_UNARY)
def test_inplace_unary_updates_x_eagerly(name):
    framework.static_mode[0] = False
    data = np.array([0.3, 0.6, 0.9])
    x = pyir.to_tensor(data.copy())
    expect = getattr(pyir, name[:-1])(pyir.to_tensor(data)).numpy()
    assert getattr(pyir, name)(x) is x
    np.testing.assert_allclose(x.numpy(), expect)
    assert getattr(x, name)  # also a method


def test_inplace_static_assigns_into_x_and_refuses_tensors_needing_grad():
    x = pyir.static.data("x", [3], "float32")
    assert pyir.tanh_(x) is x
    ops = [op.type for op in pyir.static.default_main_program().global_block().ops]
    assert ops[-2:] == ["tanh", "assign"]
    framework.static_mode[0] = False
    t = pyir.to_tensor(np.ones(3), stop_gradient=False)
    with pytest.raises(BuildError, match="in-place update of a tensor that needs a gradient"):
        pyir.sin_(t)


def test_unary_functions_are_methods():
    framework.static_mode[0] = False
    t = pyir.to_tensor(np.array([0.25, 0.5]))
    np.testing.assert_allclose(t.erfinv().numpy(), _erfinv(np.array([0.25, 0.5])), rtol=1e-9)
    np.testing.assert_allclose(t.lgamma().numpy(), _lgamma(np.array([0.25, 0.5])))
    np.testing.assert_allclose(t.deg2rad().numpy(), np.deg2rad([0.25, 0.5]))


def test_name_argument_names_the_output():
    x = pyir.static.data("x", [2], "float32")
    assert pyir.sin(x, name="angle").name.startswith("angle")
    assert pyir.i0(x, name="bessel").name.startswith("bessel")


def _gammaincc(a, t):
    """Q(a, t) from the continued fraction evaluated backwards in plain Python (t > a + 1)
    or the lower series (t < a + 1)."""
    if t < a + 1:
        term = total = 1.0 / a
        for k in range(1, 500):
            term *= t / (a + k)
            total += term
        return 1 - total * math.exp(-t + a * math.log(t) - math.lgamma(a))
    value = 0.0
    for k in range(300, 0, -1):  # t + 1 - a - k (k - a) / (t + 3 - a - ...)
        value = k * (k - a) / (t + 2 * k + 1 - a - value)
    return math.exp(-t + a * math.log(t) - math.lgamma(a)) / (t + 1 - a - value)


def test_gammaincc_and_gammainc():
    a = np.array([0.5, 1.0, 3.0, 10.0, 2.0])
    t = np.array([0.2, 1.0, 5.0, 4.0, 30.0])
    expect = np.array([_gammaincc(p, q) for p, q in zip(a, t)])
    (upper, lower), ops, op_list = static_run(
        lambda p, q: (pyir.gammaincc(p, q), pyir.gammainc(p, q)), a, t)
    assert ops == ["gammaincc", "gammaincc", "scale"] and op_list[-1].attrs["bias"] == 1.0
    np.testing.assert_allclose(upper, expect, rtol=1e-10)
    np.testing.assert_allclose(lower, 1 - expect, rtol=1e-10)
    # dQ/dt = -t^(a-1) e^-t / Gamma(a); a gets no gradient
    grad = eager_grad(lambda q, p: pyir.gammaincc(p, q), t, others=(a,))
    np.testing.assert_allclose(grad, [-math.exp(-q + (p - 1) * math.log(q) - math.lgamma(p))
                                      for p, q in zip(a, t)], rtol=1e-10)
    assert eager_run(pyir.gammaincc, np.array([2.0]), np.array([0.0]))[0] == 1.0


def test_multigammaln_matches_the_lgamma_sum():
    x = np.array([2.5, 3.0, 7.25])
    for p in (1, 3):
        expect = p * (p - 1) / 4 * math.log(math.pi) + sum(
            _lgamma(x - j / 2) for j in range(p))
        (value,), ops, _ = static_run(pyir.multigammaln, x, p=p)
        assert ops[-3:] == ["lgamma", "reduce_sum", "scale"] and "assign_value" in ops
        np.testing.assert_allclose(value, expect, rtol=1e-12)
    np.testing.assert_allclose(eager_grad(pyir.multigammaln, x, p=2),
                               numeric_grad(lambda v: _lgamma(v) + _lgamma(v - 0.5), x),
                               rtol=1e-6)
    with pytest.raises(BuildError, match="p must be an int >= 1"):
        pyir.multigammaln(pyir.static.data("m", [2], "float32"), 0)


def test_frexp_matches_numpy():
    x = np.array([[1.0, -2.0, 3.0], [0.5, 0.0, -1e-3]], np.float32)
    (mantissa, exponent), _, _ = static_run(pyir.frexp, x)
    m, e = np.frexp(x)
    np.testing.assert_array_equal(mantissa, m)
    np.testing.assert_array_equal(exponent, e.astype(np.float32))
    assert exponent.dtype == np.float32
    with pytest.raises(BuildError, match="float32 or float64"):
        pyir.frexp(pyir.static.data("i", [2], "int32"))


def test_inplace_special_functions():
    framework.static_mode[0] = False
    x = pyir.to_tensor(np.array([1.0, 3.0]))
    pyir.gammaincc_(x, pyir.to_tensor(np.array([1.0, 5.0])))
    np.testing.assert_allclose(x.numpy(), [_gammaincc(1.0, 1.0), _gammaincc(3.0, 5.0)],
                               rtol=1e-10)
    y = pyir.to_tensor(np.array([2.5]))
    pyir.multigammaln_(y, 1)
    np.testing.assert_allclose(y.numpy(), [math.lgamma(2.5)])
