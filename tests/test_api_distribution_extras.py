"""paddle.distribution corners: stddev and the deprecated `probs` spellings, Student's t
moments where they do not exist, relaxed Bernoulli samples, batched categorical sampling,
matrix properties of MultivariateNormal and transform shapes."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers_distribution import eager, in_eager

import pyir
import pyir.distribution as D

f32 = np.float32


def test_probs_spelling_matches_prob():
    v = f32([0.3, 2.0])
    for make in (lambda: D.Normal(0.5, 1.5), lambda: D.LogNormal(0.5, 1.5),
                 lambda: D.Uniform(0.0, 3.0), lambda: D.Exponential(2.0)):
        np.testing.assert_allclose(eager(lambda v, mk=make: mk().probs(v), v),
                                   eager(lambda v, mk=make: mk().prob(v), v), rtol=1e-6)
    density = np.exp(-((v - 0.5) ** 2) / (2 * 2.25)) / (1.5 * math.sqrt(2 * math.pi))
    np.testing.assert_allclose(eager(lambda v: D.Normal(0.5, 1.5).probs(v), v), density,
                               rtol=1e-6)


def test_stddev():
    assert in_eager(lambda: D.Laplace(0.0, 1.5).stddev.numpy()) == pytest.approx(
        1.5 * math.sqrt(2))
    assert in_eager(lambda: D.Gumbel(0.0, 1.5).stddev.numpy()) == pytest.approx(
        1.5 * math.pi / math.sqrt(6), rel=1e-6)
    assert in_eager(lambda: D.Geometric(0.4).stddev.numpy()) == pytest.approx(
        math.sqrt(0.6) / 0.4, rel=1e-6)
    with pytest.raises(ValueError, match="has no stddev"):
        in_eager(lambda: D.Cauchy(0.0, 1.0).stddev)


def test_geometric_log_pmf_and_log_prob():
    k = f32([0.0, 2.0])
    ref = k * np.log(0.7) + np.log(0.3)
    np.testing.assert_allclose(eager(lambda k: D.Geometric(0.3).log_pmf(k), k), ref, rtol=1e-6)
    np.testing.assert_allclose(eager(lambda k: D.Geometric(0.3).log_prob(k), k), ref, rtol=1e-6)
    np.testing.assert_allclose(eager(lambda k: D.Geometric(0.3).prob(k), k), np.exp(ref),
                               rtol=1e-6)


def test_student_t_mean_and_variance_where_they_do_not_exist():
    # values produced by Paddle 3.3.1: mean [nan, 0, 0], variance [nan, inf, 3]
    df = f32([0.5, 1.5, 3.0])
    mean = eager(lambda d: D.StudentT(d, d * 0, d * 0 + 1).mean, df)
    var = eager(lambda d: D.StudentT(d, d * 0, d * 0 + 1).variance, df)
    assert np.isnan(mean[0]) and mean[1] == 0 and mean[2] == 0
    assert np.isnan(var[0]) and var[1] == np.inf and var[2] == pytest.approx(3.0)


def test_relaxed_bernoulli_samples():
    def draw(temperature):
        pyir.seed(1)
        return D.Bernoulli(0.3).rsample([4000], temperature=temperature).numpy()
    soft = in_eager(lambda: draw(1.0))
    assert np.all((soft > 0) & (soft < 1))
    sharp = in_eager(lambda: draw(0.01))
    assert np.mean((sharp < 0.01) | (sharp > 0.99)) > 0.95
    assert abs(np.mean(sharp > 0.5) - 0.3) < 0.03

    def grad():
        p = pyir.to_tensor(f32([0.3]), stop_gradient=False)
        pyir.seed(1)
        pyir.sum(D.Bernoulli(p).rsample([50])).backward()
        return p.gradient()
    assert in_eager(grad)[0] > 0   # a larger p moves every relaxed sample up


def test_batched_categorical_sampling_keeps_rows_apart():
    logits = f32([[9.0, -9.0, -9.0], [-9.0, -9.0, 9.0]])

    def draw():
        pyir.seed(2)
        return D.Categorical(pyir.to_tensor(logits)).sample([50]).numpy()
    x = in_eager(draw)
    assert x.shape == (50, 2) and x.dtype == np.int64
    assert np.all(x[:, 0] == 0) and np.all(x[:, 1] == 2)


def test_multinomial_variance_and_multivariate_normal_matrices():
    p = f32([0.2, 0.3, 0.5])
    np.testing.assert_allclose(eager(lambda p: D.Multinomial(4, p).variance, p),
                               4 * p * (1 - p), rtol=1e-6)
    tril = np.array([[1.0, 0.0], [0.5, 2.0]])
    cov = tril @ tril.T
    np.testing.assert_allclose(eager(lambda m, l: D.MultivariateNormal(
        m, scale_tril=l).covariance_matrix, np.zeros(2), tril), cov, rtol=1e-12)
    np.testing.assert_allclose(eager(lambda m, l: D.MultivariateNormal(
        m, scale_tril=l).precision_matrix, np.zeros(2), tril), np.linalg.inv(cov), rtol=1e-10)
    np.testing.assert_allclose(eager(lambda m, c: D.MultivariateNormal(
        m, covariance_matrix=c).scale_tril, np.zeros(2), cov), tril, rtol=1e-10)


def test_transform_shapes():
    affine = D.AffineTransform(pyir.to_tensor(f32([1.0, 2.0])), pyir.to_tensor(f32(3.0)))
    assert in_eager(lambda: affine.forward_shape([4, 1])) == [4, 2]
    assert in_eager(lambda: affine.inverse_shape([4, 1])) == [4, 2]
    chain = D.ChainTransform([D.StickBreakingTransform(), D.ReshapeTransform((4,), (2, 2))])
    assert in_eager(lambda: chain.forward_shape([5, 3])) == [5, 2, 2]
    assert in_eager(lambda: chain.inverse_shape([5, 2, 2])) == [5, 3]
    stack = D.StackTransform([D.ExpTransform(), D.ExpTransform()], axis=1)
    x = f32([[0.1, 0.2], [0.3, 0.4]])
    np.testing.assert_allclose(eager(lambda x: stack.forward(x), x), np.exp(x), rtol=1e-6)
    with pytest.raises(TypeError, match="sequence of ints"):
        D.ExpTransform().forward_shape(3)


def test_normal_rsample_is_loc_plus_scale_times_the_seeded_noise():
    def run():
        pyir.seed(11)
        noise = pyir.standard_normal([3, 2]).numpy()
        pyir.seed(11)
        x = D.Normal(pyir.to_tensor(f32([0.5, -1.0])), pyir.to_tensor(f32([2.0, 3.0])))
        return noise, x.rsample([3]).numpy()
    noise, x = in_eager(run)
    np.testing.assert_allclose(x, f32([0.5, -1.0]) + noise * f32([2.0, 3.0]), rtol=1e-6)


def test_uniform_support_is_open_at_both_ends_as_in_paddle():
    got = eager(lambda v: D.Uniform(0.0, 2.0).log_prob(v), f32([0.0, 2.0, 1.0]))
    assert got[0] == -np.inf and got[1] == -np.inf and got[2] == pytest.approx(-math.log(2))


def test_continuous_bernoulli_log_constant_inside_lims():
    p = 0.55   # inside the widened lims: the Taylor branch of log C(p)
    exact = math.log(2 * math.atanh(1 - 2 * p) / (1 - 2 * p))
    got = eager(lambda v: D.ContinuousBernoulli(np.array([p]), lims=(0.4, 0.6)).log_prob(v),
                np.array([0.3]))
    want = 0.3 * math.log(p) + 0.7 * math.log1p(-p) + exact
    assert got[0] == pytest.approx(want, abs=1e-6)
    assert abs(got[0] - (want - exact + math.log(2))) > 1e-3   # the correction matters


def test_chain_log_det_sums_elementwise_parts_over_the_event_axis():
    x = np.array([0.1, -0.5, 1.2])
    chain = D.ChainTransform([D.ExpTransform(), D.StickBreakingTransform()])
    got = eager(lambda x: chain.forward_log_det_jacobian(x), x)
    want = x.sum() + eager(lambda y: D.StickBreakingTransform().forward_log_det_jacobian(y),
                           np.exp(x))
    assert got.shape == () and got == pytest.approx(want)


def test_gumbel_and_lognormal_are_transformed_distributions_as_in_paddle():
    assert in_eager(lambda: isinstance(D.Gumbel(0.0, 1.0), D.TransformedDistribution))
    assert in_eager(lambda: isinstance(D.LogNormal(0.0, 1.0), D.TransformedDistribution))
    assert in_eager(lambda: D.Gumbel([0.0, 1.0], 2.0).batch_shape) == (2,)
