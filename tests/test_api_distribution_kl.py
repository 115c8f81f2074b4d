"""paddle.distribution KL divergences: every registered pair against its closed form or a
numeric integral of p log(p / q); register_kl dispatch and refusals."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers_distribution import digamma, eager, in_eager, lbeta, lgamma, static

import pyir
import pyir.distribution as D

f32 = np.float32


def _integral(logp, logq, grid):
    """integral of p (log p - log q) by the trapezoid rule on grid."""
    lp, lq = logp(grid), logq(grid)
    f = np.exp(lp) * (lp - lq)
    return float(np.sum((f[1:] + f[:-1]) / 2 * np.diff(grid)))


def _laplace(m, s):
    return lambda x: -np.log(2 * s) - np.abs(x - m) / s


def _cauchy(m, s):
    return lambda x: -np.log(np.pi * s * (1 + ((x - m) / s) ** 2))


def _gamma(a, r):
    return lambda x: a * np.log(r) + (a - 1) * np.log(x) - r * x - lgamma(a)


def _cb(p):
    c = math.log(2 * math.atanh(1 - 2 * p) / (1 - 2 * p))
    return lambda x: x * math.log(p) + (1 - x) * math.log1p(-p) + c


def _bern(p, q):
    return p * np.log(p / q) + (1 - p) * np.log((1 - p) / (1 - q))


# name: (p, q, reference)
PAIRS = {
    "Normal": (lambda: D.Normal(0.5, 1.5), lambda: D.Normal(-1.0, 0.7),
               0.5 * ((1.5 / 0.7) ** 2 + (1.5 / 0.7) ** 2 * 0 + ((0.5 + 1.0) / 0.7) ** 2 - 1
                      - np.log((1.5 / 0.7) ** 2))),
    "LogNormal": (lambda: D.LogNormal(0.5, 1.5), lambda: D.LogNormal(-1.0, 0.7),
                  0.5 * ((1.5 / 0.7) ** 2 + ((0.5 + 1.0) / 0.7) ** 2 - 1
                         - np.log((1.5 / 0.7) ** 2))),
    "Uniform": (lambda: D.Uniform(0.0, 1.0), lambda: D.Uniform(-1.0, 3.0), np.log(4.0)),
    "Laplace": (lambda: D.Laplace(0.5, 1.5), lambda: D.Laplace(-1.0, 0.7),
                _integral(_laplace(0.5, 1.5), _laplace(-1.0, 0.7), np.linspace(-60, 60, 400001))),
    "Cauchy": (lambda: D.Cauchy(0.5, 1.5), lambda: D.Cauchy(-1.0, 0.7),
               np.log(((1.5 + 0.7) ** 2 + 1.5 ** 2) / (4 * 1.5 * 0.7))),
    "Exponential": (lambda: D.Exponential(2.0), lambda: D.Exponential(0.5),
                    np.log(2.0 / 0.5) + 0.5 / 2.0 - 1),
    "Gamma": (lambda: D.Gamma(2.5, 2.0), lambda: D.Gamma(1.5, 0.7),
              _integral(_gamma(2.5, 2.0), _gamma(1.5, 0.7), np.linspace(1e-9, 40, 400001))),
    "Beta": (lambda: D.Beta(2.5, 2.0), lambda: D.Beta(1.5, 3.0),
             (lbeta(1.5, 3.0) - lbeta(2.5, 2.0) + (2.5 - 1.5) * digamma(2.5)
              + (2.0 - 3.0) * digamma(2.0) + (1.5 - 2.5 + 3.0 - 2.0) * digamma(4.5))),
    "Bernoulli": (lambda: D.Bernoulli(0.3), lambda: D.Bernoulli(0.8), _bern(0.3, 0.8)),
    "Binomial": (lambda: D.Binomial(7, 0.3), lambda: D.Binomial(7, 0.8), 7 * _bern(0.3, 0.8)),
    # Paddle 3.3.1 uses the Bernoulli formula for Geometric (no 1/p factor)
    "Geometric": (lambda: D.Geometric(0.3), lambda: D.Geometric(0.8), _bern(0.3, 0.8)),
    "Poisson": (lambda: D.Poisson(3.0), lambda: D.Poisson(0.5),
                3.0 * np.log(3.0 / 0.5) - 3.0 + 0.5),
    "ContinuousBernoulli": (lambda: D.ContinuousBernoulli(0.2),
                            lambda: D.ContinuousBernoulli(0.7),
                            _integral(_cb(0.2), _cb(0.7), np.linspace(0, 1, 20001))),
}


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_kl_pair(name):
    make_p, make_q, ref = PAIRS[name]
    got = in_eager(lambda: D.kl_divergence(make_p(), make_q()).numpy())
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-6)
    got = in_eager(lambda: make_p().kl_divergence(make_q()).numpy())
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-6)


def test_kl_uniform_is_infinite_when_p_leaves_qs_support():
    got = in_eager(lambda: D.kl_divergence(D.Uniform(0.0, 2.0), D.Uniform(0.5, 3.0)).numpy())
    assert got == np.inf


def test_kl_dirichlet_categorical_and_multivariate_normal():
    a, b = f32([1.0, 2.0, 3.0]), f32([2.0, 0.5, 1.0])
    ad, bd = a.astype(float), b.astype(float)
    ref = (lgamma(ad.sum()) - lgamma(bd.sum()) - lgamma(ad).sum() + lgamma(bd).sum()
           + ((ad - bd) * (digamma(ad) - digamma(ad.sum()))).sum())
    got = eager(lambda a, b: D.kl_divergence(D.Dirichlet(a), D.Dirichlet(b)), a, b)
    np.testing.assert_allclose(got, ref, rtol=1e-5)
    pa, pb = np.exp(ad) / np.exp(ad).sum(), np.exp(bd) / np.exp(bd).sum()
    got = eager(lambda a, b: D.kl_divergence(D.Categorical(a), D.Categorical(b)), a, b)
    np.testing.assert_allclose(got, (pa * np.log(pa / pb)).sum(), rtol=1e-5)
    c1 = np.array([[2.0, 0.5], [0.5, 1.0]])
    c2 = np.array([[1.0, 0.3], [0.3, 4.0]])
    m1, m2 = np.array([0.0, 1.0]), np.array([1.0, -1.0])
    inv2 = np.linalg.inv(c2)
    ref = 0.5 * (np.trace(inv2 @ c1) + (m2 - m1) @ inv2 @ (m2 - m1) - 2
                 + np.log(np.linalg.det(c2) / np.linalg.det(c1)))
    kl = lambda m1, c1, m2, c2: D.kl_divergence(
        D.MultivariateNormal(m1, covariance_matrix=c1), D.MultivariateNormal(m2, scale_tril=c2))
    np.testing.assert_allclose(eager(kl, m1, c1, m2, np.linalg.cholesky(c2)), ref, rtol=1e-10)
    got, ops = static(kl, m1, c1, m2, np.linalg.cholesky(c2))
    np.testing.assert_allclose(got, ref, rtol=1e-10)
    assert "cholesky" in ops and "triangular_solve" in ops


def test_kl_independent_sums_the_base_kl():
    m, s = f32([0.0, 1.0]), f32([1.0, 2.0])
    got = eager(lambda m, s: D.kl_divergence(D.Independent(D.Normal(m, s), 1),
                                             D.Independent(D.Normal(m + 1.0, s * 2.0), 1)), m, s)
    ref = (0.5 * (0.25 + (1 / (2 * s.astype(float))) ** 2 - 1 - np.log(0.25))).sum()
    np.testing.assert_allclose(got, ref, rtol=1e-5)


def test_kl_normal_in_static_mode_and_its_gradient():
    got, ops = static(lambda a, b: D.kl_divergence(D.Normal(a, a * 0 + 1.0),
                                                   D.Normal(b, b * 0 + 2.0)),
                      f32([0.5]), f32([-1.0]))
    np.testing.assert_allclose(got, 0.5 * (0.25 + (1.5 / 2) ** 2 - 1 - np.log(0.25)), rtol=1e-5)
    assert "log" in ops

    def grad():
        a = pyir.to_tensor(f32([0.5]), stop_gradient=False)
        D.kl_divergence(D.Normal(a, pyir.to_tensor(f32([1.0]))),
                        D.Normal(-1.0, 2.0)).backward()
        return a.gradient()
    np.testing.assert_allclose(in_eager(grad), [1.5 / 4], rtol=1e-5)


def test_exponential_family_bregman_kl_and_entropy_for_a_subclass():
    class MyExponential(D.ExponentialFamily):
        def __init__(self, rate):
            self.rate = pyir.to_tensor(f32(rate))
            super().__init__(self.rate.shape)

        @property
        def _natural_parameters(self):
            return (-self.rate,)

        def _log_normalizer(self, x):
            return -pyir.log(-x)

        @property
        def _mean_carrier_measure(self):
            return 0.0

    with pytest.raises(NotImplementedError, match="call it in eager mode"):
        MyExponential(2.0).entropy()   # the tests run in static mode unless in_eager
    got = in_eager(lambda: D.kl_divergence(MyExponential(2.0), MyExponential(0.5)).numpy())
    assert got == pytest.approx(np.log(4.0) + 0.25 - 1, rel=1e-5)
    assert in_eager(lambda: MyExponential(2.0).entropy().numpy()) == pytest.approx(
        1 - np.log(2.0), rel=1e-5)


def test_register_kl_dispatches_to_the_most_specific_pair():
    class Wide(D.Normal):
        pass

    calls = []

    @D.register_kl(Wide, D.Normal)
    def _kl(p, q):
        calls.append((type(p), type(q)))
        return pyir.to_tensor(7.0)

    got = in_eager(lambda: D.kl_divergence(Wide(0.0, 1.0), D.Normal(0.0, 1.0)).numpy())
    assert got == 7.0 and calls == [(Wide, D.Normal)]
    # the other order still uses Normal's formula
    got = in_eager(lambda: D.kl_divergence(D.Normal(0.0, 1.0), Wide(0.0, 1.0)).numpy())
    assert got == pytest.approx(0.0)


@pytest.mark.parametrize("make", [lambda: D.Normal(0.0, 1.0), lambda: D.Cauchy(0.0, 1.0),
                                  lambda: D.Exponential(1.0), lambda: D.Gamma(1.0, 1.0),
                                  lambda: D.Geometric(0.5)])
def test_kl_divergence_methods_take_only_their_own_family(make):
    with pytest.raises(TypeError, match="Expected type of other is"):
        in_eager(lambda: make().kl_divergence(D.Laplace(0.0, 1.0)))


def test_kl_refusals():
    with pytest.raises(TypeError, match="subclasses of Distribution"):
        D.register_kl(int, D.Normal)
    with pytest.raises(NotImplementedError, match=r"no formula for \(Normal, Gamma\)"):
        in_eager(lambda: D.kl_divergence(D.Normal(0.0, 1.0), D.Gamma(1.0, 1.0)))
    with pytest.raises(ValueError, match="same `batch_shape`"):
        in_eager(lambda: D.kl_divergence(D.Poisson([1.0, 2.0]), D.Poisson(1.0)))
    with pytest.raises(ValueError, match="same `batch_shape`"):
        in_eager(lambda: D.kl_divergence(D.ContinuousBernoulli([0.2, 0.3]),
                                         D.ContinuousBernoulli(0.4)))
