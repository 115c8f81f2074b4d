"""paddle.nn.functional normalizations: ops and attributes Paddle emits, values (static and
eager) against numpy, gradients against finite differences, running statistics, refusals."""

from __future__ import annotations

import numpy as np
import pytest

import pyir
import pyir.nn.functional as F
from pyir.errors import BuildError

from functional_check import numeric_grad, run_eager, run_static

R = np.random.default_rng(21)
X4 = R.uniform(-2, 2, (3, 4, 2, 3))
X3 = R.uniform(-2, 2, (2, 6, 5))
W4, B4 = R.uniform(0.5, 1.5, 4), R.uniform(-1, 1, 4)
MEAN, VAR = R.uniform(-1, 1, 4), R.uniform(0.5, 2, 4)


def _bn(x, mean, var, w, b, eps=1e-5, axis=1):
    shape = [1] * x.ndim
    shape[axis] = -1
    r = lambda v: v.reshape(shape)  # noqa: E731
    return (x - r(mean)) / np.sqrt(r(var) + eps) * r(w) + r(b)


def _bn_train(x, w, b, axis=1, eps=1e-5):
    axes = tuple(i for i in range(x.ndim) if i != axis % x.ndim)
    return _bn(x, x.mean(axes), x.var(axes), w, b, eps, axis)


def _ln(x, k, w=None, b=None, eps=1e-5):
    axes = tuple(range(x.ndim - k, x.ndim))
    y = (x - x.mean(axes, keepdims=True)) / np.sqrt(x.var(axes, keepdims=True) + eps)
    return y * (1 if w is None else w) + (0 if b is None else b)


def _gn(x, groups, w=None, b=None, eps=1e-5):
    n, c = x.shape[:2]
    g = x.reshape(n, groups, -1)
    y = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + eps)).reshape(
        x.shape)
    shape = (1, c) + (1,) * (x.ndim - 2)
    return y * (1 if w is None else w.reshape(shape)) + (0 if b is None else b.reshape(shape))


def _lrn(x, size, alpha=1e-4, beta=0.75, k=1.0):
    c = x.shape[1]
    sq = x ** 2
    div = np.zeros_like(x)
    for ch in range(c):
        lo, hi = max(ch - size // 2, 0), min(ch + (size - 1) // 2, c - 1)
        div[:, ch] = sq[:, lo:hi + 1].sum(1) / size
    return x / (k + alpha * div) ** beta


def _rms(x, k, w, eps=1e-5):
    axes = tuple(range(x.ndim - k, x.ndim))
    return x / np.sqrt((x ** 2).mean(axes, keepdims=True) + eps) * w


CASES = [
    # (id, call, inputs, numpy reference, op type, attributes)
    ("batch_norm_eval", lambda x, m, v, w, b: F.batch_norm(x, m, v, w, b), [X4, MEAN, VAR, W4, B4],
     lambda x, m, v, w, b: _bn(x, m, v, w, b), "batch_norm",
     {"is_test": True, "use_global_stats": True, "data_layout": "NCHW"}),
    ("batch_norm_train", lambda x, m, v, w, b: F.batch_norm(x, m, v, w, b, training=True),
     [X4, MEAN, VAR, W4, B4], lambda x, m, v, w, b: _bn_train(x, w, b), "batch_norm",
     {"is_test": False, "use_global_stats": False, "momentum": pytest.approx(0.9)}),
    ("batch_norm_nlc", lambda x, m, v, w, b: F.batch_norm(x, m, v, w, b, True, epsilon=1e-3,
                                                          data_format="NLC"),
     [np.moveaxis(X3[:, :4], 1, -1).copy(), MEAN, VAR, W4, B4],
     lambda x, m, v, w, b: _bn_train(x, w, b, axis=-1, eps=1e-3), "batch_norm",
     {"data_layout": "NHWC", "epsilon": pytest.approx(1e-3)}),
    ("layer_norm", lambda x, w, b: F.layer_norm(x, [2, 3], w, b), [X4, W4[:2, None] * np.ones(
        (2, 3)), B4[:2, None] * np.ones((2, 3))],
     lambda x, w, b: _ln(x, 2, w, b), "layer_norm", {"begin_norm_axis": 2}),
    ("layer_norm_plain", lambda x: F.layer_norm(x, 5, epsilon=1e-3), [X3],
     lambda x: _ln(x, 1, eps=1e-3), "layer_norm", {"begin_norm_axis": 2}),
    ("group_norm", lambda x, w, b: F.group_norm(x, 2, weight=w, bias=b), [X4, W4, B4],
     lambda x, w, b: _gn(x, 2, w, b), "group_norm", {"groups": 2, "data_layout": "NCHW"}),
    ("group_norm_ncl", lambda x: F.group_norm(x, 3, data_format="NCL"), [X3],
     lambda x: _gn(x, 3), "group_norm", {"groups": 3}),
    ("instance_norm", lambda x, w, b: F.instance_norm(x, weight=w, bias=b), [X4, W4, B4],
     lambda x, w, b: _gn(x, 4, w, b), "instance_norm", {"epsilon": pytest.approx(1e-5)}),
    ("instance_norm_plain", lambda x: F.instance_norm(x, eps=1e-3, data_format="NCL"), [X3],
     lambda x: _gn(x, 6, eps=1e-3), "instance_norm", {}),
    ("rms_norm", lambda x, w: F.rms_norm(x, [5], w)[0], [X3, W4[:1].repeat(5)],
     lambda x, w: _rms(x, 1, w), "rms_norm", {"normalized_shape": [5]}),
    ("local_response_norm", lambda x: F.local_response_norm(x, 3, 0.1, 0.75, 2.0), [X4],
     lambda x: _lrn(x, 3, 0.1, 0.75, 2.0), "elementwise_div", {}),
    ("local_response_norm_3d", lambda x: F.local_response_norm(x, 4, 0.2, data_format="NCL"),
     [X3], lambda x: _lrn(x, 4, 0.2), "elementwise_div", {}),
    ("local_response_norm_nhwc", lambda x: F.local_response_norm(x, 3, 0.1, data_format="NHWC"),
     [np.moveaxis(X4, 1, -1).copy()],
     lambda x: np.moveaxis(_lrn(np.moveaxis(x, -1, 1), 3, 0.1), 1, -1), "elementwise_div", {}),
    ("normalize", F.normalize, [X4], lambda x: x / np.maximum(np.sqrt((x ** 2).sum(
        1, keepdims=True)), 1e-12), "elementwise_div", {}),
    ("normalize_p1", lambda x: F.normalize(x, 1, -1), [X3], lambda x: x / np.maximum(
        np.abs(x).sum(-1, keepdims=True), 1e-12), "elementwise_div", {}),
]
IDS = [c[0] for c in CASES]


@pytest.mark.parametrize("name, call, inputs, ref, op_type, attrs", CASES, ids=IDS)
def test_static_op_and_values(name, call, inputs, ref, op_type, attrs):
    (out,), ops = run_static(call, [a.astype(np.float32) for a in inputs])
    op = next(o for o in ops if o.type == op_type)
    for key, value in attrs.items():
        assert op.attr(key) == value, key
    np.testing.assert_allclose(out, ref(*inputs), rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("name, call, inputs, ref, op_type, attrs", CASES, ids=IDS)
def test_eager_values_and_gradients(name, call, inputs, ref, op_type, attrs):
    grad_of = tuple(i for i in range(len(inputs)) if not (
        name.startswith("batch_norm") and i in (1, 2)))
    (out,), grads = run_eager(call, inputs, grad_of=grad_of)
    np.testing.assert_allclose(out, ref(*inputs), rtol=1e-9, atol=1e-10)
    if name == "batch_norm_eval":
        return  # the eval gradient is checked below against its own reference
    for i, g in zip(grad_of, grads):
        np.testing.assert_allclose(g, numeric_grad(ref, inputs, i), rtol=1e-5, atol=1e-7,
                                   err_msg=f"input {i}")


def test_batch_norm_updates_running_statistics():
    mean, var = MEAN.copy(), VAR.copy()
    pyir.disable_static()
    try:
        m, v = pyir.to_tensor(mean), pyir.to_tensor(var)
        F.batch_norm(pyir.to_tensor(X4), m, v, training=True, momentum=0.8)
        np.testing.assert_allclose(m.numpy(), 0.8 * mean + 0.2 * X4.mean((0, 2, 3)), rtol=1e-10)
        np.testing.assert_allclose(v.numpy(), 0.8 * var + 0.2 * X4.var((0, 2, 3)),
                                   rtol=1e-10)  # the biased variance, as Paddle 3.3.1
        F.batch_norm(pyir.to_tensor(X4), m, v, training=False)
        np.testing.assert_allclose(m.numpy(), 0.8 * mean + 0.2 * X4.mean((0, 2, 3)), rtol=1e-10)
    finally:
        pyir.enable_static()
    x = pyir.static.data("x", [3, 4, 2, 3], "float32")
    m = pyir.static.data("m", [4], "float32")
    v = pyir.static.data("v", [4], "float32")
    F.batch_norm(x, m, v, training=True)
    op = pyir.static.default_main_program().global_block().ops[-1]
    assert op.output("MeanOut") == ["m"] and op.output("VarianceOut") == ["v"]


def test_batch_norm_use_global_stats_in_training():
    (out,), _ = run_eager(lambda x, m, v: F.batch_norm(x, m, v, training=True,
                                                       use_global_stats=True), [X4, MEAN, VAR])
    np.testing.assert_allclose(out, _bn(X4, MEAN, VAR, np.ones(4), np.zeros(4)), rtol=1e-9)


def test_rms_norm_returns_inverse_root():
    (out, inv), _ = run_eager(lambda x: F.rms_norm(x, [6, 5]), [X3])
    np.testing.assert_allclose(inv, 1 / np.sqrt((X3 ** 2).mean((1, 2)) + 1e-5), rtol=1e-6)
    assert inv.dtype == np.float32


def test_normalize_writes_out():
    pyir.disable_static()
    try:
        target = pyir.to_tensor(np.zeros_like(X3))
        F.normalize(pyir.to_tensor(X3), out=target)
        np.testing.assert_allclose(target.numpy(), X3 / np.sqrt((X3 ** 2).sum(1, keepdims=True)))
    finally:
        pyir.enable_static()


@pytest.mark.parametrize("call, match", [
    (lambda x: F.batch_norm(x, x, x, data_format="CHWN"), "data_format must be one of"),
    (lambda x: F.batch_norm(pyir.static.data("v", [4], "float32"), x, x), "2 or more"),
    (lambda x: F.layer_norm(x, [5, 5]), "trailing dims"),
    (lambda x: F.layer_norm(x, "3"), "normalized_shape must be"),
    (lambda x: F.group_norm(x, 3), "must divide into num_groups"),
    (lambda x: F.group_norm(x, 2, data_format="NC"), "data_format must be one of"),
    (lambda x: F.instance_norm(x, data_format="NHWC"), "data_format must be NC"),
    (lambda x: F.rms_norm(x, [4]), "trailing dims"),
    (lambda x: F.local_response_norm(x, 3, data_format="CHWN"), "data_format must be one of"),
    (lambda x: F.local_response_norm(pyir.static.data("v", [4, 2], "float32"), 3), "3 or more"),
    (lambda x: F.normalize(pyir.static.data("v", [4], "float32"), axis=1), "axis must be 0"),
])
def test_refusals(call, match):
    x = pyir.static.data("x", [3, 4, 2, 3], "float32")
    with pytest.raises(BuildError, match=match):
        call(x)
