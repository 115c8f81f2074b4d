"""paddle.distribution sampling: shapes (sample shape + batch shape + event shape), sample
moments within statistical tolerance under pyir.seed, reparameterized gradients, and the
random ops a static program gets."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers_distribution import in_eager, static

import pyir
import pyir.distribution as D

N = 20000


def _draw(make, shape=(N,), method="sample"):
    def run():
        pyir.seed(7)
        return np.asarray(getattr(make(), method)(list(shape)).numpy(), np.float64)
    return in_eager(run)


# name: (make, mean, variance) of a scalar batch
MOMENTS = {
    "Normal": (lambda: D.Normal(0.5, 1.5), 0.5, 2.25),
    "Uniform": (lambda: D.Uniform(-1.0, 3.0), 1.0, 16 / 12),
    "Laplace": (lambda: D.Laplace(0.5, 1.5), 0.5, 2 * 2.25),
    "Gumbel": (lambda: D.Gumbel(0.5, 1.5), 0.5 + 1.5 * 0.5772156649, math.pi ** 2 / 6 * 2.25),
    "LogNormal": (lambda: D.LogNormal(0.0, 0.5), math.exp(0.125),
                  (math.exp(0.25) - 1) * math.exp(0.25)),
    "Exponential": (lambda: D.Exponential(2.0), 0.5, 0.25),
    "Gamma": (lambda: D.Gamma(2.5, 2.0), 1.25, 2.5 / 4),
    "Chi2": (lambda: D.Chi2(3.0), 3.0, 6.0),
    "Beta": (lambda: D.Beta(2.0, 3.0), 0.4, 6 / (25 * 6)),
    "StudentT": (lambda: D.StudentT(6.0, 0.5, 2.0), 0.5, 4.0 * 6 / 4),
    "Bernoulli": (lambda: D.Bernoulli(0.3), 0.3, 0.21),
    "Binomial": (lambda: D.Binomial(10, 0.3), 3.0, 2.1),
    "Geometric": (lambda: D.Geometric(0.4), 1.5, 0.6 / 0.16),
    "Poisson": (lambda: D.Poisson(3.0), 3.0, 3.0),
    "ContinuousBernoulli": (lambda: D.ContinuousBernoulli(0.2),
                            0.2 / (0.4 - 1) + 1 / (2 * math.atanh(0.6)),
                            0.2 * -0.8 / 0.36 + 1 / (2 * math.atanh(0.6)) ** 2),
}


@pytest.mark.parametrize("name", sorted(MOMENTS))
def test_sample_moments(name):
    make, mean, variance = MOMENTS[name]
    x = _draw(make)
    assert x.shape == (N,)
    assert abs(x.mean() - mean) < 5 * math.sqrt(variance / N)
    assert abs(x.var() - variance) < 0.08 * variance


@pytest.mark.parametrize("name", ["Normal", "Uniform", "Laplace", "Gumbel", "LogNormal",
                                  "Exponential", "ContinuousBernoulli", "Geometric"])
def test_rsample_has_the_same_distribution(name):
    make, mean, variance = MOMENTS[name]
    x = _draw(make, method="rsample")
    assert abs(x.mean() - mean) < 5 * math.sqrt(variance / N)


def test_cauchy_sample_quartiles():
    x = _draw(lambda: D.Cauchy(0.5, 2.0))
    assert abs(np.mean(x < 0.5) - 0.5) < 0.02
    assert abs(np.mean(x < 2.5) - 0.75) < 0.02


def test_sample_shapes_put_the_sample_shape_first():
    def shapes():
        loc = pyir.zeros([2, 3])
        scale = pyir.ones([2, 3])
        return [
            D.Normal(loc, scale).sample([4]).shape,
            D.Normal(loc, scale).rsample([]).shape,
            D.Gamma(scale, scale).sample([5, 1]).shape,
            D.Dirichlet(scale).sample([4]).shape,
            D.Categorical(scale).sample([4]).shape,
            D.Multinomial(3, pyir.ones([3])).sample([4]).shape,
            D.MultivariateNormal(pyir.zeros([3]), scale_tril=pyir.eye(3)).sample([4, 2]).shape,
            D.LKJCholesky(3, 1.0).sample([2]).shape,
            D.Independent(D.Normal(loc, scale), 1).sample([4]).shape,
        ]
    assert in_eager(shapes) == [[4, 2, 3], [2, 3], [5, 1, 2, 3], [4, 2, 3], [4, 2], [4, 3],
                                [4, 2, 3], [2, 3, 3], [4, 2, 3]]


def test_seed_repeats_the_samples():
    assert np.array_equal(_draw(lambda: D.Gamma(2.0, 1.0), (5,)),
                          _draw(lambda: D.Gamma(2.0, 1.0), (5,)))


def test_categorical_and_multinomial_frequencies():
    logits = np.array([0.0, 1.0, 2.0])
    soft = np.exp(logits) / np.exp(logits).sum()
    x = _draw(lambda: D.Categorical(pyir.to_tensor(logits.astype("float32"))))
    freq = np.bincount(x.astype(int), minlength=3) / N
    np.testing.assert_allclose(freq, soft, atol=0.015)
    counts = _draw(lambda: D.Multinomial(5, pyir.to_tensor([0.2, 0.3, 0.5])), (4000,))
    assert np.all(counts.sum(-1) == 5)
    np.testing.assert_allclose(counts.mean(0), [1.0, 1.5, 2.5], atol=0.07)


def test_dirichlet_and_multivariate_normal_moments():
    x = _draw(lambda: D.Dirichlet(pyir.to_tensor([1.0, 2.0, 3.0])))
    np.testing.assert_allclose(x.sum(-1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(x.mean(0), [1 / 6, 2 / 6, 3 / 6], atol=0.01)
    cov = np.array([[2.0, 0.6], [0.6, 1.0]])
    x = _draw(lambda: D.MultivariateNormal(pyir.to_tensor([1.0, -1.0]),
                                           covariance_matrix=pyir.to_tensor(cov)))
    np.testing.assert_allclose(x.mean(0), [1.0, -1.0], atol=0.06)
    np.testing.assert_allclose(np.cov(x.T), cov, atol=0.08)


@pytest.mark.parametrize("method", ["onion", "cvine"])
def test_lkj_cholesky_samples_are_correlation_factors_with_lkj_marginals(method):
    x = _draw(lambda: D.LKJCholesky(3, 2.0, method), (8000,))
    np.testing.assert_allclose((x ** 2).sum(-1), 1.0, atol=1e-5)   # unit-norm rows
    assert np.all(np.triu(x, 1) == 0) and np.all(np.diagonal(x, 0, -2, -1) > 0)
    corr = x @ np.swapaxes(x, -1, -2)
    # each correlation is 2 Beta(b, b) - 1 with b = eta - 1 + dim / 2: E[r^2] = 1 / (2b + 1)
    for i, j in ((1, 0), (2, 0), (2, 1)):
        assert abs((corr[:, i, j] ** 2).mean() - 1 / 6) < 0.01


def test_rsample_gradients_reach_the_parameters():
    def grads():
        pyir.seed(3)
        loc = pyir.to_tensor([0.5, -1.0], stop_gradient=False)
        scale = pyir.to_tensor([1.5, 0.7], stop_gradient=False)
        x = D.Normal(loc, scale).rsample([6])
        pyir.sum(x).backward()
        eps = (x.numpy() - loc.numpy()) / scale.numpy()
        return loc.gradient(), scale.gradient(), eps.sum(0)
    g_loc, g_scale, eps_sum = in_eager(grads)
    np.testing.assert_allclose(g_loc, [6.0, 6.0])
    np.testing.assert_allclose(g_scale, eps_sum, rtol=1e-5)

    def exp_grad():
        pyir.seed(3)
        rate = pyir.to_tensor([2.0], stop_gradient=False)
        x = D.Exponential(rate).rsample([5])
        pyir.sum(x).backward()
        return rate.gradient(), x.numpy()
    g, x = in_eager(exp_grad)
    np.testing.assert_allclose(g, [-(x * 2.0).sum() / 2.0 ** 2], rtol=1e-5)   # d(e/r)/dr

    def sample_is_cut():
        loc = pyir.to_tensor([0.5], stop_gradient=False)
        return D.Normal(loc, pyir.ones([1])).sample([3]).stop_gradient
    assert in_eager(sample_is_cut)


def test_static_sampling_emits_random_ops():
    out, ops = static(lambda m, s: D.Normal(m, s).sample([4], seed=5),
                      np.zeros([2], "float32"), np.ones([2], "float32"))
    assert out.shape == (4, 2) and "gaussian_random" in ops
    out, ops = static(lambda lo, hi: D.Uniform(lo, hi).sample([3]),
                      np.zeros([2], "float32"), np.full([2], 2.0, "float32"))
    assert out.shape == (3, 2) and np.all((out >= 0) & (out < 2)) and "uniform_random" in ops
    out, ops = static(lambda a: D.Gamma(a, a).sample([3]), np.ones([2], "float32"))
    assert out.shape == (3, 2) and "standard_gamma" in ops
    # a nonzero seed repeats the values
    first = static(lambda m, s: D.Normal(m, s).sample([4], seed=5), np.zeros([2], "float32"),
                   np.ones([2], "float32"))[0]
    np.testing.assert_array_equal(first, static(
        lambda m, s: D.Normal(m, s).sample([4], seed=5), np.zeros([2], "float32"),
        np.ones([2], "float32"))[0])


STATIC_SAMPLES = {
    "Normal": (lambda a: D.Normal(a, a).rsample([3]), [3, 2]),
    "Uniform": (lambda a: D.Uniform(a * 0, a).sample([3]), [3, 2]),
    "Cauchy": (lambda a: D.Cauchy(a, a).sample([3]), [3, 2]),
    "Laplace": (lambda a: D.Laplace(a, a).sample([3]), [3, 2]),
    "Gumbel": (lambda a: D.Gumbel(a, a).sample([3]), [3, 2]),
    "LogNormal": (lambda a: D.LogNormal(a, a).sample([3]), [3, 2]),
    "Exponential": (lambda a: D.Exponential(a).sample([3]), [3, 2]),
    "Chi2": (lambda a: D.Chi2(a).sample([3]), [3, 2]),
    "Beta": (lambda a: D.Beta(a, a).sample([3]), [3, 2]),
    "StudentT": (lambda a: D.StudentT(a, a, a).sample([3]), [3, 2]),
    "Bernoulli": (lambda a: D.Bernoulli(a * 0.25).rsample([3]), [3, 2]),
    "Binomial": (lambda a: D.Binomial(a * 5, a * 0.25).sample([3]), [3, 2]),
    "Geometric": (lambda a: D.Geometric(a * 0.25).sample([3]), [3, 2]),
    "Poisson": (lambda a: D.Poisson(a).sample([3]), [3, 2]),
    "Categorical": (lambda a: D.Categorical(a).sample([3]), [3]),
    "Multinomial": (lambda a: D.Multinomial(3, a).sample([4]), [4, 2]),
    "Dirichlet": (lambda a: D.Dirichlet(a).sample([3]), [3, 2]),
    "ContinuousBernoulli": (lambda a: D.ContinuousBernoulli(a * 0.3).sample([3]), [3, 2]),
    "MultivariateNormal": (lambda a: D.MultivariateNormal(a, scale_tril=pyir.diag(a)).sample([3]),
                           [3, 2]),
    "LKJCholesky": (lambda a: D.LKJCholesky(2, 2.0).sample([3]) + a[0], [3, 2, 2]),
    "TransformedDistribution": (lambda a: D.TransformedDistribution(
        D.Normal(a, a), [D.ExpTransform()]).sample([3]), [3, 2]),
}


@pytest.mark.parametrize("name", sorted(STATIC_SAMPLES))
def test_static_programs_sample_every_distribution(name):
    make, shape = STATIC_SAMPLES[name]
    out, _ = static(make, np.array([1.0, 2.0], "float32"))
    assert list(out.shape) == shape and np.all(np.isfinite(out))
