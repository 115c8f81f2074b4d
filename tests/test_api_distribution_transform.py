"""paddle.distribution transforms and TransformedDistribution: forward/inverse round trips,
log|det J| against numeric Jacobians, shapes, composition; and the constructor refusals of
every distribution."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers_distribution import eager, in_eager, static

import pyir
import pyir.distribution as D

x0 = np.array([0.1, -0.5, 1.2])
t = pyir.to_tensor


def t64(value):
    return pyir.to_tensor(np.asarray(value, np.float64))

ELEMENTWISE = {
    "Affine": (lambda: D.AffineTransform(t64(1.0), t64(-2.0)), lambda x: 1 - 2 * x),
    "Exp": (D.ExpTransform, np.exp),
    "Power": (lambda: D.PowerTransform(t64(3.0)), lambda x: x ** 3),
    "Sigmoid": (D.SigmoidTransform, lambda x: 1 / (1 + np.exp(-x))),
    "Tanh": (D.TanhTransform, np.tanh),
    "Chain": (lambda: D.ChainTransform([D.ExpTransform(), D.AffineTransform(t64(1.0), t64(2.0))]),
              lambda x: 1 + 2 * np.exp(x)),
    "Stack": (lambda: D.StackTransform([D.ExpTransform(), D.TanhTransform(),
                                        D.SigmoidTransform()]),
              lambda x: np.array([np.exp(x[0]), np.tanh(x[1]), 1 / (1 + np.exp(-x[2]))])),
}


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_elementwise_transform(name):
    make, ref = ELEMENTWISE[name]
    x = x0 if name != "Power" else np.abs(x0)
    y = eager(lambda x: make().forward(x), x)
    np.testing.assert_allclose(y, ref(x), rtol=1e-10)
    np.testing.assert_allclose(eager(lambda y: make().inverse(y), y), x, rtol=1e-8)
    h = 1e-6
    slope = (ref(x + h) - ref(x - h)) / (2 * h)
    np.testing.assert_allclose(eager(lambda x: make().forward_log_det_jacobian(x), x),
                               np.log(np.abs(slope)), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(eager(lambda y: make().inverse_log_det_jacobian(y), y),
                               -np.log(np.abs(slope)), rtol=1e-6, atol=1e-8)
    assert in_eager(lambda: make().forward_shape([3])) == [3]


def test_abs_transform_is_a_surjection():
    neg, pos = in_eager(lambda: D.AbsTransform().inverse(t([0.5, 2.0])))
    np.testing.assert_allclose(neg.numpy(), [-0.5, -2.0])
    np.testing.assert_allclose(pos.numpy(), [0.5, 2.0])
    np.testing.assert_allclose(eager(lambda x: D.AbsTransform()(x), x0), np.abs(x0))
    with pytest.raises(NotImplementedError, match="non-injective"):
        in_eager(lambda: D.AbsTransform().forward_log_det_jacobian(t(x0)))


def _jacobian(f, x, h=1e-6):
    return np.stack([(f(x + e) - f(x - e)) / (2 * h) for e in np.eye(x.size) * h], axis=-1)


def test_stick_breaking_maps_onto_the_simplex():
    y = eager(lambda x: D.StickBreakingTransform().forward(x), x0)
    assert y.shape == (4,) and y.sum() == pytest.approx(1.0) and np.all(y > 0)
    np.testing.assert_allclose(eager(lambda y: D.StickBreakingTransform().inverse(y), y), x0,
                               rtol=1e-8)
    jac = _jacobian(lambda v: eager(lambda v: D.StickBreakingTransform().forward(v), v)[:3], x0)
    np.testing.assert_allclose(
        eager(lambda x: D.StickBreakingTransform().forward_log_det_jacobian(x), x0),
        np.log(abs(np.linalg.det(jac))), rtol=1e-6)
    assert in_eager(lambda: D.StickBreakingTransform().forward_shape([2, 3])) == [2, 4]
    assert in_eager(lambda: D.StickBreakingTransform().inverse_shape([2, 4])) == [2, 3]


def test_softmax_reshape_and_independent_transforms():
    y = eager(lambda x: D.SoftmaxTransform().forward(x), x0)
    np.testing.assert_allclose(y, np.exp(x0) / np.exp(x0).sum(), rtol=1e-10)
    with pytest.raises(NotImplementedError, match="non-injective"):
        in_eager(lambda: D.SoftmaxTransform().forward_log_det_jacobian(t(x0)))
    x = np.arange(12.0).reshape(2, 6)
    r = D.ReshapeTransform((6,), (2, 3))
    assert eager(lambda x: r.forward(x), x).shape == (2, 2, 3)
    assert eager(lambda x: r.inverse(r.forward(x)), x).shape == (2, 6)
    np.testing.assert_array_equal(eager(lambda x: r.forward_log_det_jacobian(x), x), [0, 0])
    assert r.forward_shape([5, 6]) == [5, 2, 3] and r.inverse_shape([5, 2, 3]) == [5, 6]
    ind = D.IndependentTransform(D.ExpTransform(), 1)
    np.testing.assert_allclose(eager(lambda x: ind.forward_log_det_jacobian(x), x),
                               x.sum(-1))


def test_calling_a_transform_composes():
    chained = D.ExpTransform()(D.AffineTransform(t(1.0), t(2.0)))
    assert isinstance(chained, D.ChainTransform)
    dist = in_eager(lambda: D.ExpTransform()(D.Normal(0.0, 1.0)))
    assert isinstance(dist, D.TransformedDistribution)


def _normal_lp(m, s, v):
    return -((v - m) ** 2) / (2 * s ** 2) - np.log(s) - 0.5 * math.log(2 * math.pi)


def test_transformed_distribution_change_of_variables():
    v = np.array([0.3, 2.0])
    got = eager(lambda v: D.TransformedDistribution(
        D.Normal(t(0.5), t(1.5)), [D.ExpTransform(), D.AffineTransform(t(1.0), t(2.0))]
    ).log_prob(v), v + 2.0)
    # y = 1 + 2 exp(x): x = log((y - 1) / 2), log|dy/dx| = log 2 + x
    x = np.log((v + 1.0) / 2)
    np.testing.assert_allclose(got, _normal_lp(0.5, 1.5, x) - np.log(2) - x, rtol=1e-5)
    got, ops = static(lambda m, s, v: D.TransformedDistribution(
        D.Normal(m, s), [D.TanhTransform()]).log_prob(v),
        np.float32([0.5]), np.float32([1.5]), np.float32([0.25]))
    xt = np.arctanh(0.25)
    np.testing.assert_allclose(got, _normal_lp(0.5, 1.5, xt) - np.log(1 - 0.25 ** 2), rtol=1e-5)
    assert "atanh" in ops
    # an event transform turns batch axes into event axes
    d = in_eager(lambda: D.TransformedDistribution(D.Normal(pyir.zeros([2, 3]),
                                                            pyir.ones([2, 3])),
                                                   [D.StickBreakingTransform()]))
    assert d.batch_shape == (2,) and d.event_shape == (4,)
    y = in_eager(lambda: d.sample([5]).numpy())
    assert y.shape == (5, 2, 4)
    assert in_eager(lambda: d.log_prob(t(y.astype("float32"))).shape) == [5, 2]


REFUSALS = [
    (lambda: D.Chi2(-1.0), ValueError, "`df` must be positive"),
    (lambda: D.StudentT(-1.0, 0.0, 1.0), ValueError, "`df` should be nonnegative"),
    (lambda: D.StudentT(3.0, 0.0, -1.0), ValueError, "`scale` should be nonnegative"),
    (lambda: D.Multinomial(0, t([0.5, 0.5])), ValueError, "total_count must be int"),
    (lambda: D.Multinomial(2.5, t([0.5, 0.5])), ValueError, "total_count must be int"),
    (lambda: D.Multinomial(3, t(0.5)), ValueError, "over one dimension"),
    (lambda: D.Dirichlet(t(1.0)), ValueError, "at least one dimensional"),
    (lambda: D.MultivariateNormal(t([0.0, 0.0])), ValueError, "Exactly one of"),
    (lambda: D.MultivariateNormal(t([0.0, 0.0]), covariance_matrix=pyir.eye(2),
                                  scale_tril=pyir.eye(2)), ValueError, "Exactly one of"),
    (lambda: D.MultivariateNormal(t([0.0]), covariance_matrix=t([1.0])), ValueError,
     "at least two-dimensional"),
    (lambda: D.LKJCholesky(1), ValueError, "greater than or equal to 2"),
    (lambda: D.LKJCholesky(2.0), TypeError, "dim to be an integer"),
    (lambda: D.LKJCholesky(2, 1.0, "bad"), ValueError, "'cvine' or 'onion'"),
    (lambda: D.LKJCholesky(2, -1.0), ValueError, "`concentration` must be positive"),
    (lambda: D.Independent(D.Normal(0.0, 1.0), 1), ValueError, "reinterpreted_batch_rank"),
    (lambda: D.Independent(D.Normal([0.0, 1.0], [1.0, 1.0]), 0), ValueError,
     "reinterpreted_batch_rank"),
    (lambda: D.Independent("normal", 1), TypeError, "Distribution"),
    (lambda: D.Normal("a", 1.0), TypeError, "must be a float, list"),
    (lambda: D.Normal(t(0.0), 1.0), ValueError, "all arguments should be Tensor"),
    (lambda: D.Uniform(0.0, t(1.0)), ValueError, "all arguments should be Tensor"),
    (lambda: D.Gamma(t(1.0), 1.0), ValueError, "all arguments should be Tensor"),
    (lambda: D.Normal(0.0, 1.0).sample(3), TypeError, "sequence of ints"),
    (lambda: D.Cauchy(0.0, 1.0).mean, ValueError, "has no mean"),
    (lambda: D.Cauchy(0.0, 1.0).variance, ValueError, "has no variance"),
    (lambda: D.Geometric("p"), TypeError, "Expected type of probs"),
    (lambda: D.AffineTransform(1.0, t(1.0)), TypeError, "'loc' is a Tensor"),
    (lambda: D.AffineTransform(t(1.0), 2.0), TypeError, "scale is a Tensor"),
    (lambda: D.PowerTransform(2.0), TypeError, "'power' is a tensor"),
    (lambda: D.ReshapeTransform((2, 3), (4,)), ValueError, "numel"),
    (lambda: D.ReshapeTransform((2, 3), (3, 2)).forward_shape([2, 2]), ValueError,
     "Event shape mismatch"),
    (lambda: D.ChainTransform([D.ExpTransform(), "x"]), TypeError, "Transform type"),
    (lambda: D.StackTransform([D.ExpTransform()], axis=0.5), TypeError, "'axis' is int"),
    (lambda: D.StackTransform([D.ExpTransform()]).forward(t([1.0, 2.0])), ValueError,
     "equal to transforms"),
    (lambda: D.IndependentTransform(D.ExpTransform(), 0), ValueError, "grater than zero"),
    (lambda: D.ExpTransform().forward([1.0]), TypeError, "'x' is a Tensor"),
    (lambda: D.SoftmaxTransform().forward(t(1.0)), ValueError, "at least 1 dimensions"),
    (lambda: D.StickBreakingTransform().forward_shape([]), ValueError, "not empty"),
    (lambda: D.TransformedDistribution(D.Normal(0.0, 1.0), [1]), TypeError, "Transform type"),
    (lambda: D.TransformedDistribution(1, []), TypeError, "'base' is Distribution"),
    (lambda: D.TransformedDistribution(D.Normal(0.0, 1.0), [D.SoftmaxTransform()]),
     ValueError, "at least 1"),
    (lambda: D.Distribution().entropy(), NotImplementedError, "entropy"),
]


@pytest.mark.parametrize("index", range(len(REFUSALS)))
def test_refusals(index):
    make, error, message = REFUSALS[index]
    with pytest.raises(error, match=message):
        in_eager(make)


def test_support_sums_need_eager_values():
    for make in (lambda r: D.Poisson(r).entropy(), lambda n: D.Binomial(n, n * 0 + 0.5).entropy()):
        with pytest.raises(NotImplementedError, match="call it in eager mode"):
            static(make, np.float32([3.0]))


def test_positive_checks_are_eager_only_as_in_paddle():
    # static mode cannot see the values: Chi2 builds its ops without checking
    _, ops = static(lambda df: D.Chi2(df).mean, np.float32([-1.0]))
    assert "scale" in ops or "elementwise_mul" in ops
