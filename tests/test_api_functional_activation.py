"""paddle.nn.functional activations: the op Paddle emits (type, key attributes), values in
static and eager mode against numpy, gradients against finite differences, refusals."""

from __future__ import annotations

import math

import numpy as np
import pytest

import pyir
import pyir.nn.functional as F
from pyir.errors import BuildError

from functional_check import numeric_grad, run_eager, run_static

X = np.random.default_rng(3).uniform(-3, 3, (3, 4)).astype(np.float32)
X4 = np.random.default_rng(4).uniform(-2, 2, (2, 4, 3, 2)).astype(np.float32)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


_erf = np.vectorize(math.erf)

CASES = [
    # (id, call, input, numpy reference, op type, attributes Paddle writes)
    ("relu", F.relu, X, lambda x: np.maximum(x, 0), "relu", {}),
    ("relu6", F.relu6, X * 3, lambda x: np.clip(x, 0, 6), "relu6", {}),
    ("elu", lambda x: F.elu(x, 0.5), X, lambda x: np.where(x > 0, x, 0.5 * np.expm1(x)), "elu",
     {"alpha": 0.5}),
    ("selu", F.selu, X, lambda x: 1.0507009873554805 * np.where(
        x > 0, x, 1.6732632423543772 * np.expm1(x)), "selu", {}),
    ("celu", lambda x: F.celu(x, 0.7), X, lambda x: np.maximum(x, 0) + np.minimum(
        0, 0.7 * np.expm1(x / 0.7)), "celu", {"alpha": 0.7}),
    ("gelu", F.gelu, X, lambda x: 0.5 * x * (1 + _erf(x / np.sqrt(2))), "gelu",
     {"approximate": False}),
    ("gelu_tanh", lambda x: F.gelu(x, "tanh"), X, lambda x: 0.5 * x * (1 + np.tanh(
        np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3))), "gelu", {"approximate": True}),
    ("silu", F.silu, X, lambda x: x * _sigmoid(x), "silu", {}),
    ("swish", F.swish, X, lambda x: x * _sigmoid(x), "swish", {}),
    ("mish", F.mish, X, lambda x: x * np.tanh(np.log1p(np.exp(x))), "mish", {"threshold": 20.0}),
    ("sigmoid", F.sigmoid, X, _sigmoid, "sigmoid", {}),
    ("tanh", F.tanh, X, np.tanh, "tanh", {}),
    ("hardsigmoid", F.hardsigmoid, X * 2, lambda x: np.clip(x * 0.1666667 + 0.5, 0, 1),
     "hard_sigmoid", {"offset": 0.5}),
    ("hardswish", F.hardswish, X * 2, lambda x: x * np.clip(x + 3, 0, 6) / 6, "hard_swish",
     {"threshold": 6.0, "scale": 6.0, "offset": 3.0}),
    ("hardtanh", lambda x: F.hardtanh(x, -0.5, 2.0), X, lambda x: np.clip(x, -0.5, 2.0),
     "brelu", {"t_min": -0.5, "t_max": 2.0}),
    ("hardshrink", lambda x: F.hardshrink(x, 1.0), X,
     lambda x: np.where(np.abs(x) > 1.0, x, 0), "hard_shrink", {"threshold": 1.0}),
    ("softshrink", lambda x: F.softshrink(x, 1.0), X,
     lambda x: np.sign(x) * np.maximum(np.abs(x) - 1.0, 0), "softshrink", {"lambda": 1.0}),
    ("tanhshrink", F.tanhshrink, X, lambda x: x - np.tanh(x), "tanh_shrink", {}),
    ("leaky_relu", lambda x: F.leaky_relu(x, 0.25), X, lambda x: np.where(x > 0, x, 0.25 * x),
     "leaky_relu", {"alpha": 0.25}),
    ("rrelu_eval", lambda x: F.rrelu(x, 0.1, 0.3, training=False), X,
     lambda x: np.where(x >= 0, x, 0.2 * x), "rrelu", {"is_test": True}),
    ("log_sigmoid", F.log_sigmoid, X, lambda x: np.log(_sigmoid(x)), "logsigmoid", {}),
    ("logsigmoid", F.logsigmoid, X, lambda x: np.log(_sigmoid(x)), "logsigmoid", {}),
    ("softplus", lambda x: F.softplus(x, 2, 3), X,
     lambda x: np.where(2 * x > 3, x, np.log1p(np.exp(2 * x)) / 2), "softplus",
     {"beta": 2.0, "threshold": 3.0}),
    ("softsign", F.softsign, X, lambda x: x / (1 + np.abs(x)), "softsign", {}),
    ("thresholded_relu", lambda x: F.thresholded_relu(x, 0.5, -1.0), X,
     lambda x: np.where(x > 0.5, x, -1.0), "thresholded_relu", {"threshold": 0.5, "value": -1.0}),
    ("maxout", lambda x: F.maxout(x, 2), X4,
     lambda x: x.reshape(2, 2, 2, 3, 2).max(axis=2), "maxout", {"groups": 2, "axis": 1}),
    ("maxout_nhwc", lambda x: F.maxout(x, 2, axis=-1), X4,
     lambda x: x.reshape(2, 4, 3, 1, 2).max(axis=-1), "maxout", {"groups": 2, "axis": 3}),
    ("glu", F.glu, X, lambda x: x[:, :2] * _sigmoid(x[:, 2:]), "elementwise_mul", {}),
    ("swiglu", F.swiglu, X, lambda x: x[:, :2] * _sigmoid(x[:, :2]) * x[:, 2:],
     "elementwise_mul", {}),
    ("softmax", lambda x: F.softmax(x, 0), X, lambda x: _softmax(x, 0), "softmax", {"axis": 0}),
    ("log_softmax", F.log_softmax, X, lambda x: np.log(_softmax(x)), "log_softmax",
     {"axis": -1}),
]
IDS = [c[0] for c in CASES]


@pytest.mark.parametrize("name, call, x, ref, op_type, attrs", CASES, ids=IDS)
def test_static_emits_paddles_op_and_matches_numpy(name, call, x, ref, op_type, attrs):
    (out,), ops = run_static(call, [x])
    assert ops[-1].type == op_type
    for key, value in attrs.items():
        assert ops[-1].attr(key) == pytest.approx(value), key
    np.testing.assert_allclose(out, ref(x.astype(np.float64)), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name, call, x, ref, op_type, attrs", CASES, ids=IDS)
def test_eager_value_and_gradient(name, call, x, ref, op_type, attrs):
    x = x.astype(np.float64)
    (out,), (grad,) = run_eager(call, [x], grad_of=(0,))
    np.testing.assert_allclose(out, ref(x), rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(grad, numeric_grad(ref, [x], 0), rtol=1e-5, atol=1e-6)


def test_hardtanh_and_hardshrink_at_the_kinks():
    x = np.array([-1.0, -0.5, 0.0, 0.5, 1.0, 2.0], np.float32)
    (h,), _ = run_eager(F.hardtanh, [x])
    (s,), _ = run_eager(lambda t: F.hardshrink(t, 0.5), [x])
    (r,), _ = run_eager(lambda t: F.thresholded_relu(t, 1.0), [x])
    np.testing.assert_array_equal(h, np.array([-1, -0.5, 0, 0.5, 1, 1], np.float32))
    np.testing.assert_array_equal(s, np.array([-1, 0, 0, 0, 1, 2], np.float32))
    np.testing.assert_array_equal(r, np.array([0, 0, 0, 0, 0, 2], np.float32))


def test_prelu_all_and_channel_modes():
    alpha = np.array([0.1, 0.2, 0.3, 0.4], np.float32)
    (out,), ops = run_static(F.prelu, [X4, alpha])
    assert ops[-1].type == "prelu" and ops[-1].attr("mode") == "channel"
    np.testing.assert_allclose(out, np.where(X4 > 0, X4, X4 * alpha.reshape(1, 4, 1, 1)),
                               rtol=1e-6)
    one = np.array([0.25], np.float32)
    (out,), grads = run_eager(F.prelu, [X4, one], grad_of=(0, 1))
    assert grads[1].shape == (1,)
    ref = lambda x, a: np.where(x > 0, x, x * a)  # noqa: E731
    np.testing.assert_allclose(grads[1], numeric_grad(ref, [X4, one], 1), rtol=1e-4)
    nhwc = np.transpose(X4, (0, 2, 3, 1))
    (out,), ops = run_static(lambda x, a: F.prelu(x, a, "NHWC"), [nhwc, alpha])
    assert ops[-1].attr("data_format") == "NHWC"
    np.testing.assert_allclose(out, np.where(nhwc > 0, nhwc, nhwc * alpha), rtol=1e-6)


def test_rrelu_training_is_random_within_bounds():
    x = -np.ones((2000,), np.float32)
    (out,), _ = run_eager(lambda t: F.rrelu(t, 0.1, 0.3), [x])
    slopes = -out
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3 and slopes.std() > 0.03
    (pos,), _ = run_eager(lambda t: F.rrelu(t), [np.ones(5, np.float32)])
    np.testing.assert_array_equal(pos, np.ones(5))


def test_gumbel_softmax_is_a_distribution_and_hard_is_one_hot():
    pyir.seed(3)
    (soft,), _ = run_eager(lambda t: F.gumbel_softmax(t, 0.5), [X])
    np.testing.assert_allclose(soft.sum(-1), 1, rtol=1e-5)
    (hard,), _ = run_eager(lambda t: F.gumbel_softmax(t, hard=True, axis=0), [X])
    assert set(np.unique(hard)) <= {0.0, 1.0} and (hard.sum(0) == 1).all()
    logits = np.log(np.array([[0.7, 0.2, 0.1]] * 4000, np.float64))
    (draws,), _ = run_eager(lambda t: F.gumbel_softmax(t, hard=True), [logits])
    np.testing.assert_allclose(draws.mean(0), [0.7, 0.2, 0.1], atol=0.03)


@pytest.mark.parametrize("inplace, ref", [
    (F.relu_, lambda x: np.maximum(x, 0)), (F.elu_, lambda x: np.where(x > 0, x, np.expm1(x))),
    (F.hardtanh_, lambda x: np.clip(x, -1, 1)),
    (F.leaky_relu_, lambda x: np.where(x > 0, x, .01 * x)),
    (F.softmax_, _softmax), (F.tanh_, np.tanh),
    (F.thresholded_relu_, lambda x: np.where(x > 1, x, 0))])
def test_inplace_variants_write_into_x(inplace, ref):
    pyir.disable_static()
    try:
        t = pyir.to_tensor(X)
        result = inplace(t)
        assert result is t
        np.testing.assert_allclose(t.numpy(), ref(X.astype(np.float64)), rtol=1e-5, atol=1e-7)
    finally:
        pyir.enable_static()
    x = pyir.static.data("x", [3, 4], "float32")
    inplace(x)
    ops = pyir.static.default_main_program().global_block().ops
    assert ops[-1].type == "assign" and ops[-1].output("Out") == [x.name]


def test_silu_inplace_and_out_argument():
    pyir.disable_static()
    try:
        t = pyir.to_tensor(X)
        assert F.silu(t, inplace=True) is t
        np.testing.assert_allclose(t.numpy(), X * _sigmoid(X), rtol=1e-6)
        target = pyir.to_tensor(np.zeros_like(X))
        F.sigmoid(pyir.to_tensor(X), out=target)
        np.testing.assert_allclose(target.numpy(), _sigmoid(X), rtol=1e-6)
    finally:
        pyir.enable_static()


@pytest.mark.parametrize("call, match", [
    (lambda x: F.selu(x, scale=1.0), "scale must be greater than 1"),
    (lambda x: F.selu(x, alpha=-1.0), "alpha must be no less than 0"),
    (lambda x: F.celu(x, 0.0), "alpha cannot be 0"),
    (lambda x: F.gelu(x, "fast"), "approximate must be"),
    (lambda x: F.softshrink(x, -1.0), "threshold must be no less than 0"),
    (lambda x: F.rrelu(x, -0.1), "lower must be in"),
    (lambda x: F.rrelu(x, 0.1, 1.5), "upper must be in"),
    (lambda x: F.rrelu(x, 0.3, 0.2), "no greater than upper"),
    (lambda x: F.maxout(x, 2, axis=2), "axis must be 1"),
    (lambda x: F.maxout(x, 3), "not divisible"),
    (lambda x: F.glu(x, axis=2), "must be even"),
    (lambda x: F.gumbel_softmax(x, 0.0), "temperature must be positive"),
    (lambda x: F.prelu(x, np.ones((2, 2), np.float32)), "weight must be 1-D"),
    (lambda x: F.prelu(x, pyir.ones([3]), "NCHW"), "weight has 3 values"),
    (lambda x: F.prelu(x, pyir.ones([1]), "CHWN"), "data_format must be one of"),
])
def test_refusals(call, match):
    x = pyir.static.data("x", [2, 4, 3, 3], "float32")
    with pytest.raises(BuildError, match=match):
        call(x)
