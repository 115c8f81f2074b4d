"""paddle.distribution closed forms: log_prob, entropy, mean and variance of every
distribution against numpy formulas, eagerly and in a static program; gradients of log_prob
w.r.t. the parameters against central differences."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers_distribution import (
    digamma,
    eager,
    eager_grads,
    in_eager,
    lbeta,
    lgamma,
    numeric_grads,
    static,
)

import pyir
import pyir.distribution as D

LOG2PI = math.log(2 * math.pi)
EULER = 0.5772156649015329
f32 = np.float32


def _normal_lp(loc, scale, v):
    return -((v - loc) ** 2) / (2 * scale ** 2) - np.log(scale) - 0.5 * LOG2PI


def _cb_constant(p):
    return np.log(2 * np.arctanh(1 - 2 * p) / (1 - 2 * p))


def _cb_mean(p):
    return p / (2 * p - 1) + 1 / (2 * np.arctanh(1 - 2 * p))


# name: (constructor, parameters, value, log_prob, entropy, mean, variance)
CASES = {
    "Normal": (D.Normal, [f32([0.5, -1.0]), f32([1.5, 0.7])], f32([0.3, -2.0]),
               _normal_lp,
               lambda m, s: 0.5 + 0.5 * LOG2PI + np.log(s),
               lambda m, s: m, lambda m, s: s ** 2),
    "Uniform": (D.Uniform, [f32([0.0, -1.0]), f32([2.0, 3.0])], f32([0.5, 2.5]),
                lambda lo, hi, v: -np.log(hi - lo),
                lambda lo, hi: np.log(hi - lo),
                lambda lo, hi: (lo + hi) / 2, lambda lo, hi: (hi - lo) ** 2 / 12),
    "Cauchy": (D.Cauchy, [f32([0.5, -1.0]), f32([1.5, 0.7])], f32([0.3, -2.0]),
               lambda m, s, v: -np.log(np.pi * s * (1 + ((v - m) / s) ** 2)),
               lambda m, s: np.log(4 * np.pi * s), None, None),
    "Laplace": (D.Laplace, [f32([0.5, -1.0]), f32([1.5, 0.7])], f32([0.3, -2.0]),
                lambda m, s, v: -np.log(2 * s) - np.abs(v - m) / s,
                lambda m, s: 1 + np.log(2 * s), lambda m, s: m, lambda m, s: 2 * s ** 2),
    "Gumbel": (D.Gumbel, [f32([0.5, -1.0]), f32([1.5, 0.7])], f32([0.3, -2.0]),
               lambda m, s, v: -((v - m) / s + np.exp(-(v - m) / s)) - np.log(s),
               lambda m, s: np.log(s) + 1 + EULER, lambda m, s: m + s * EULER,
               lambda m, s: np.pi ** 2 / 6 * s ** 2),
    "LogNormal": (D.LogNormal, [f32([0.5, -1.0]), f32([1.5, 0.7])], f32([0.3, 2.0]),
                  lambda m, s, v: _normal_lp(m, s, np.log(v)) - np.log(v),
                  lambda m, s: 0.5 + 0.5 * LOG2PI + np.log(s) + m,
                  lambda m, s: np.exp(m + s ** 2 / 2),
                  lambda m, s: (np.exp(s ** 2) - 1) * np.exp(2 * m + s ** 2)),
    "Exponential": (D.Exponential, [f32([0.5, 3.0])], f32([0.3, 2.0]),
                    lambda r, v: np.log(r) - r * v, lambda r: 1 - np.log(r),
                    lambda r: 1 / r, lambda r: 1 / r ** 2),
    "Gamma": (D.Gamma, [f32([0.5, 3.0]), f32([2.0, 0.7])], f32([0.3, 2.0]),
              lambda a, r, v: a * np.log(r) + (a - 1) * np.log(v) - r * v - lgamma(a),
              lambda a, r: a - np.log(r) + lgamma(a) + (1 - a) * digamma(a),
              lambda a, r: a / r, lambda a, r: a / r ** 2),
    "Chi2": (D.Chi2, [f32([1.5, 4.0])], f32([0.3, 2.0]),
             lambda k, v: (k / 2 - 1) * np.log(v) - v / 2 - k / 2 * np.log(2) - lgamma(k / 2),
             lambda k: k / 2 + np.log(2) + lgamma(k / 2) + (1 - k / 2) * digamma(k / 2),
             lambda k: k, lambda k: 2 * k),
    "Beta": (D.Beta, [f32([0.5, 3.0]), f32([2.0, 0.7])], f32([0.3, 0.8]),
             lambda a, b, v: (a - 1) * np.log(v) + (b - 1) * np.log1p(-v) - lbeta(a, b),
             lambda a, b: (lbeta(a, b) - (a - 1) * digamma(a) - (b - 1) * digamma(b)
                           + (a + b - 2) * digamma(a + b)),
             lambda a, b: a / (a + b), lambda a, b: a * b / ((a + b) ** 2 * (a + b + 1))),
    "StudentT": (D.StudentT, [f32([3.0, 5.0]), f32([0.5, -1.0]), f32([1.5, 0.7])],
                 f32([0.3, -2.0]),
                 lambda d, m, s, v: (lgamma((d + 1) / 2) - lgamma(d / 2)
                                     - 0.5 * np.log(d * np.pi) - np.log(s)
                                     - (d + 1) / 2 * np.log1p(((v - m) / s) ** 2 / d)),
                 lambda d, m, s: (np.log(s) + (d + 1) / 2 * (digamma((d + 1) / 2)
                                                             - digamma(d / 2))
                                  + 0.5 * np.log(d) + lbeta(d / 2, 0.5)),
                 lambda d, m, s: m, lambda d, m, s: s ** 2 * d / (d - 2)),
    "Bernoulli": (D.Bernoulli, [f32([0.3, 0.8])], f32([1.0, 0.0]),
                  lambda p, v: v * np.log(p) + (1 - v) * np.log1p(-p),
                  lambda p: -(p * np.log(p) + (1 - p) * np.log1p(-p)),
                  lambda p: p, lambda p: p * (1 - p)),
    "Geometric": (D.Geometric, [f32([0.3, 0.8])], f32([2.0, 0.0]),
                  lambda p, k: k * np.log1p(-p) + np.log(p),
                  lambda p: -((1 - p) * np.log1p(-p) + p * np.log(p)) / p,
                  lambda p: 1 / p - 1, lambda p: (1 - p) / p ** 2),
    "Poisson": (D.Poisson, [f32([0.5, 3.0])], f32([2.0, 0.0]),
                lambda r, k: k * np.log(r) - r - lgamma(k + 1),
                lambda r: -sum(np.exp(k * np.log(r) - r - lgamma(k + 1))
                               * (k * np.log(r) - r - lgamma(k + 1)) for k in range(80)),
                lambda r: r, lambda r: r),
    "ContinuousBernoulli": (
        D.ContinuousBernoulli, [f32([0.2, 0.7])], f32([0.3, 0.9]),
        lambda p, v: v * np.log(p) + (1 - v) * np.log1p(-p) + _cb_constant(p),
        lambda p: (-_cb_constant(p) - _cb_mean(p) * (np.log(p) - np.log1p(-p))
                   - np.log1p(-p)),
        _cb_mean,
        lambda p: p * (p - 1) / (1 - 2 * p) ** 2 + 1 / (2 * np.arctanh(1 - 2 * p)) ** 2),
}


def _binomial_lp(n, p, k):
    return (lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1) + k * np.log(p)
            + (n - k) * np.log1p(-p))


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("mode", ["eager", "static"])
def test_log_prob_entropy_mean_variance(name, mode):
    ctor, params, value, log_prob, entropy, mean, variance = CASES[name]
    run = eager if mode == "eager" else (lambda fn, *a: static(fn, *a)[0])
    ref_params = [p.astype(np.float64) for p in params]
    got = run(lambda v, *ps: ctor(*ps).log_prob(v), value, *params)
    np.testing.assert_allclose(got, log_prob(*ref_params, value.astype(np.float64)),
                               rtol=2e-5, atol=2e-5)
    got = run(lambda v, *ps: ctor(*ps).prob(v), value, *params)
    np.testing.assert_allclose(got, np.exp(log_prob(*ref_params, value.astype(np.float64))),
                               rtol=2e-5, atol=2e-6)
    if name not in ("Poisson",) or mode == "eager":   # Poisson's support is sized eagerly
        got = run(lambda *ps: ctor(*ps).entropy(), *params)
        np.testing.assert_allclose(got, entropy(*ref_params), rtol=2e-5, atol=2e-5)
    if mean is not None:
        np.testing.assert_allclose(run(lambda *ps: ctor(*ps).mean, *params),
                                   mean(*ref_params), rtol=2e-5, atol=1e-6)
        np.testing.assert_allclose(run(lambda *ps: ctor(*ps).variance, *params),
                                   variance(*ref_params), rtol=2e-5, atol=1e-6)


def test_static_normal_log_prob_emits_plain_ops():
    _, ops = static(lambda v, m, s: D.Normal(m, s).log_prob(v), f32([0.3]), f32([0.0]),
                    f32([1.0]))
    assert "log" in ops and "elementwise_sub" in ops and "elementwise_div" in ops
    _, ops = static(lambda a, r: D.Gamma(a, r).entropy(), f32([2.0]), f32([1.0]))
    assert {"lgamma", "digamma", "log"} <= set(ops)


def test_python_float_parameters_become_float32_and_float64_arrays_stay():
    d = in_eager(lambda: D.Normal(0.5, 2.0))
    assert d.loc.dtype == np.float32 and d.batch_shape == ()
    d = in_eager(lambda: D.Normal(np.array([0.5, 1.0]), np.array([1.0, 2.0])))
    assert d.loc.dtype == np.float64 and d.batch_shape == (2,)
    d = in_eager(lambda: D.Normal([0.0, 1.0, 2.0], 1.0))   # broadcast to the batch shape
    assert d.batch_shape == (3,) and list(d.scale.shape) == [3]


def test_uniform_is_zero_outside_its_support():
    got = eager(lambda v: D.Uniform(0.0, 2.0).prob(v), f32([-0.5, 0.5, 2.5]))
    np.testing.assert_allclose(got, [0.0, 0.5, 0.0])
    got = eager(lambda v: D.Uniform(0.0, 2.0).log_prob(v), f32([-0.5, 0.5]))
    assert got[0] == -np.inf and got[1] == pytest.approx(-math.log(2))


@pytest.mark.parametrize("mode", ["eager", "static"])
def test_binomial(mode):
    run = eager if mode == "eager" else (lambda fn, *a: static(fn, *a)[0])
    n, p, k = f32([10.0, 4.0]), f32([0.3, 0.6]), f32([3.0, 4.0])
    got = run(lambda k, n, p: D.Binomial(n, p).log_prob(k), k, n, p)
    np.testing.assert_allclose(got, _binomial_lp(n.astype(float), p.astype(float), k), rtol=1e-5)
    np.testing.assert_allclose(run(lambda n, p: D.Binomial(n, p).mean, n, p), n * p, rtol=1e-6)
    np.testing.assert_allclose(run(lambda n, p: D.Binomial(n, p).variance, n, p),
                               n * p * (1 - p), rtol=1e-6)
    if mode == "eager":
        ks = np.arange(11.0)
        pmf = np.exp(_binomial_lp(10.0, 0.3, ks))
        got = eager(lambda n, p: D.Binomial(n, p).entropy(), f32(10.0), f32(0.3))
        np.testing.assert_allclose(got, -(pmf * np.log(pmf)).sum(), rtol=1e-5)


def test_cauchy_and_laplace_and_gumbel_and_exponential_cdfs():
    v = f32([-1.0, 0.3, 2.0])
    np.testing.assert_allclose(eager(lambda v: D.Cauchy(0.5, 2.0).cdf(v), v),
                               np.arctan((v - 0.5) / 2.0) / np.pi + 0.5, rtol=1e-6)
    z = (v - 0.5) / 2.0
    np.testing.assert_allclose(eager(lambda v: D.Laplace(0.5, 2.0).cdf(v), v),
                               np.where(z < 0, 0.5 * np.exp(z), 1 - 0.5 * np.exp(-z)), rtol=1e-6)
    np.testing.assert_allclose(eager(lambda v: D.Gumbel(0.5, 2.0).cdf(v), v),
                               np.exp(-np.exp(-z)), rtol=1e-6)
    np.testing.assert_allclose(eager(lambda v: D.Exponential(2.0).cdf(v), f32([0.3, 2.0])),
                               1 - np.exp(-2 * f32([0.3, 2.0])), rtol=1e-6)
    q = f32([0.1, 0.5, 0.9])
    np.testing.assert_allclose(eager(lambda q: D.Laplace(0.5, 2.0).icdf(q), q),
                               0.5 - 2.0 * np.sign(q - 0.5) * np.log1p(-2 * np.abs(q - 0.5)),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(eager(lambda q: D.Exponential(2.0).icdf(q), q),
                               -np.log1p(-q) / 2.0, rtol=1e-6)


def test_geometric_pmf_cdf_and_bernoulli_cdf():
    k = f32([0.0, 1.0, 3.0])
    np.testing.assert_allclose(eager(lambda k: D.Geometric(0.3).pmf(k), k), 0.7 ** k * 0.3,
                               rtol=1e-6)
    np.testing.assert_allclose(eager(lambda k: D.Geometric(0.3).cdf(k), k), 1 - 0.7 ** (k + 1),
                               rtol=1e-6)
    np.testing.assert_allclose(eager(lambda v: D.Bernoulli(0.3).cdf(v), f32([-0.5, 0.5, 1.0])),
                               [0.0, 0.7, 1.0], rtol=1e-6)


def test_continuous_bernoulli_cdf_icdf_round_trip_and_taylor_branch():
    p = f32([0.2, 0.5, 0.8])
    v = f32([0.3, 0.4, 0.9])
    cdf = eager(lambda v, p: D.ContinuousBernoulli(p).cdf(v), v, p)
    pd = p.astype(float)[[0, 2]]
    v2 = v[[0, 2]]
    exact = (pd ** v2 * (1 - pd) ** (1 - v2) + pd - 1) / (2 * pd - 1)
    np.testing.assert_allclose(cdf[[0, 2]], exact, rtol=1e-5)
    assert cdf[1] == pytest.approx(0.4)   # p = 1/2 is the uniform distribution
    back = eager(lambda c, p: D.ContinuousBernoulli(p).icdf(c), cdf, p)
    np.testing.assert_allclose(back, v, rtol=1e-4)
    # inside lims: the Taylor branch, close to the exact value just outside
    mean_in = eager(lambda p: D.ContinuousBernoulli(p).mean, f32([0.5004]))
    assert abs(mean_in[0] - _cb_mean(0.5004)) < 1e-5
    assert eager(lambda p: D.ContinuousBernoulli(p).log_prob(f32(0.3)), f32([0.5]))[0] == \
        pytest.approx(math.log(1.0), abs=1e-6)


def test_categorical_probs_normalize_weights_entropy_uses_softmax():
    w = f32([[0.2, 0.3, 0.5], [1.0, 1.0, 2.0]])
    # a 1-D value is looked up in every batch row (values produced by Paddle 3.3.1)
    got = eager(lambda w, i: D.Categorical(w).probs(i), w, np.array([1, 2]))
    np.testing.assert_allclose(got, [[0.3, 0.5], [0.25, 0.5]], rtol=1e-6)
    got = eager(lambda w, i: D.Categorical(w).log_prob(i), w, np.array([[2], [0]]))
    np.testing.assert_allclose(got, np.log([[0.5], [0.25]]), rtol=1e-6)
    soft = np.exp(w) / np.exp(w).sum(-1, keepdims=True)
    np.testing.assert_allclose(eager(lambda w: D.Categorical(w).entropy(), w),
                               -(soft * np.log(soft)).sum(-1), rtol=1e-6)
    got = eager(lambda w, i: D.Categorical(w).probs(i), f32([1.0, 3.0]), np.array([[1, 0]]))
    np.testing.assert_allclose(got, [[0.75, 0.25]], rtol=1e-6)


def test_dirichlet_and_multinomial():
    a = f32([[1.0, 2.0, 3.0], [0.5, 0.5, 4.0]])
    v = f32([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])
    ad = a.astype(float)
    a0 = ad.sum(-1)
    ref = ((ad - 1) * np.log(v)).sum(-1) + lgamma(a0) - lgamma(ad).sum(-1)
    for run in (eager, lambda fn, *x: static(fn, *x)[0]):
        np.testing.assert_allclose(run(lambda v, a: D.Dirichlet(a).log_prob(v), v, a), ref,
                                   rtol=1e-5)
    ent = lgamma(ad).sum(-1) - lgamma(a0) + (a0 - 3) * digamma(a0) - (
        (ad - 1) * digamma(ad)).sum(-1)
    np.testing.assert_allclose(eager(lambda a: D.Dirichlet(a).entropy(), a), ent, rtol=1e-5)
    np.testing.assert_allclose(eager(lambda a: D.Dirichlet(a).mean, a), ad / a0[:, None],
                               rtol=1e-6)
    np.testing.assert_allclose(eager(lambda a: D.Dirichlet(a).variance, a),
                               ad * (a0[:, None] - ad) / (a0[:, None] ** 2 * (a0[:, None] + 1)),
                               rtol=1e-5)
    p = f32([0.2, 0.3, 0.5])
    counts = f32([1.0, 0.0, 3.0])
    ref = lgamma(5.0) - lgamma(counts + 1).sum() + (counts * np.log(p.astype(float))).sum()
    np.testing.assert_allclose(eager(lambda c, p: D.Multinomial(4, p).log_prob(c), counts, p),
                               ref, rtol=1e-5)
    np.testing.assert_allclose(eager(lambda p: D.Multinomial(4, p * 2).mean, p), 4 * p,
                               rtol=1e-6)
    # entropy by enumerating every outcome of 4 draws over 3 categories
    outcomes = [(i, j, 4 - i - j) for i in range(5) for j in range(5 - i)]
    logs = [lgamma(5.0) - sum(lgamma(c + 1.0) for c in o)
            + sum(c * math.log(q) for c, q in zip(o, p.astype(float))) for o in outcomes]
    ref = -sum(math.exp(x) * x for x in logs)
    np.testing.assert_allclose(eager(lambda p: D.Multinomial(4, p).entropy(), p), ref, rtol=1e-5)


def test_multivariate_normal_three_parameterizations():
    cov = np.array([[2.0, 0.5, 0.1], [0.5, 1.0, 0.2], [0.1, 0.2, 1.5]])
    loc = np.array([0.5, -1.0, 0.0])
    v = np.array([[0.0, 0.0, 0.0], [1.0, -2.0, 0.5]])
    d = v - loc
    maha = np.einsum("bi,ij,bj->b", d, np.linalg.inv(cov), d)
    ref = -0.5 * (3 * LOG2PI + maha + np.log(np.linalg.det(cov)))
    ent = 0.5 * 3 * (1 + LOG2PI) + 0.5 * np.log(np.linalg.det(cov))
    tril = np.linalg.cholesky(cov)
    for kw, m in (("covariance_matrix", cov), ("precision_matrix", np.linalg.inv(cov)),
                  ("scale_tril", tril)):
        def make(loc, matrix, kw=kw):
            return D.MultivariateNormal(loc, **{kw: matrix})
        np.testing.assert_allclose(eager(lambda v, l, m, mk=make: mk(l, m).log_prob(v), v, loc, m),
                                   ref, rtol=1e-8)
        np.testing.assert_allclose(eager(lambda l, m, mk=make: mk(l, m).entropy(), loc, m), ent,
                                   rtol=1e-8)
    np.testing.assert_allclose(eager(lambda l, m: D.MultivariateNormal(
        l, covariance_matrix=m).variance, loc, cov), np.diag(cov), rtol=1e-8)
    got, ops = static(lambda v, l, m: D.MultivariateNormal(l, scale_tril=m).log_prob(v),
                      v, loc, tril)
    np.testing.assert_allclose(got, ref, rtol=1e-8)
    assert "triangular_solve" in ops


def test_independent_sums_the_reinterpreted_axes():
    m, s = f32([[0.0, 1.0], [0.5, -1.0]]), f32([[1.0, 2.0], [0.5, 1.5]])
    v = f32([[0.3, 0.1], [1.0, -1.0]])
    ref = _normal_lp(m.astype(float), s.astype(float), v).sum(-1)
    got = eager(lambda v, m, s: D.Independent(D.Normal(m, s), 1).log_prob(v), v, m, s)
    np.testing.assert_allclose(got, ref, rtol=1e-5)
    d = in_eager(lambda: D.Independent(D.Normal(pyir.to_tensor(m), pyir.to_tensor(s)), 1))
    assert d.batch_shape == (2,) and d.event_shape == (2,)
    ent = eager(lambda m, s: D.Independent(D.Normal(m, s), 2).entropy(), m, s)
    np.testing.assert_allclose(ent, (0.5 + 0.5 * LOG2PI + np.log(s.astype(float))).sum(),
                               rtol=1e-5)


def test_lkj_cholesky_log_prob_integrates_to_one_in_two_dimensions():
    r = np.linspace(-0.999, 0.999, 4001)
    mats = np.zeros((r.size, 2, 2))
    mats[:, 0, 0], mats[:, 1, 0], mats[:, 1, 1] = 1.0, r, np.sqrt(1 - r ** 2)
    for eta in (0.5, 1.0, 3.0):
        dens = np.exp(eager(lambda x, eta=eta: D.LKJCholesky(2, eta).log_prob(x), mats))
        area = np.sum((dens[1:] + dens[:-1]) / 2 * np.diff(r))
        if eta >= 1:   # (eta < 1 has integrable poles at r = +-1)
            assert area == pytest.approx(1.0, abs=2e-3)
        # the density over r is (1 - r^2)^(eta - 1) / (B(eta, eta) 2^(2 eta - 1))
        ref = (eta - 1) * np.log(1 - 0.25) - lbeta(eta, eta) - (2 * eta - 1) * math.log(2)
        got = eager(lambda x, eta=eta: D.LKJCholesky(2, eta).log_prob(x),
                    np.array([[1.0, 0.0], [0.5, math.sqrt(0.75)]]))
        assert got == pytest.approx(ref, rel=1e-6)


GRAD_CASES = {
    "Normal": (lambda v, a, b: D.Normal(a, b).log_prob(v), [0.3, -2.0], [0.5, -1.0], [1.5, 0.7]),
    "Gamma": (lambda v, a, b: D.Gamma(a, b).log_prob(v), [0.3, 2.0], [0.5, 3.0], [2.0, 0.7]),
    "Beta": (lambda v, a, b: D.Beta(a, b).log_prob(v), [0.3, 0.8], [0.5, 3.0], [2.0, 0.7]),
    "StudentT": (lambda v, a, b: D.StudentT(a, 0.0, b).log_prob(v), [0.3, -2.0], [3.0, 5.0],
                 [1.5, 0.7]),
    "Laplace": (lambda v, a, b: D.Laplace(a, b).log_prob(v), [0.3, -2.0], [0.5, -1.0],
                [1.5, 0.7]),
    "Normal entropy": (lambda v, a, b: D.Normal(a, b).entropy() * v, [1.0, 1.0], [0.5, -1.0],
                       [1.5, 0.7]),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_log_prob_gradients_match_finite_differences(name):
    fn, *arrays = GRAD_CASES[name]
    arrays = [np.array(a) for a in arrays]
    got = eager_grads(fn, *arrays)
    want = numeric_grads(fn, *arrays, eps=1e-6)
    for g, w in zip(got[1:], want[1:]):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-7)
