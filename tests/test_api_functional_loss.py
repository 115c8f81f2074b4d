"""paddle.nn.functional losses: ops emitted, values (static and eager) against numpy,
gradients against finite differences, every reduction, refusals."""

from __future__ import annotations

import math

import numpy as np
import pytest

import pyir
import pyir.nn.functional as F
from pyir.errors import BuildError

from functional_check import numeric_grad, run_eager, run_static

R = np.random.default_rng(11)
A = R.uniform(-2, 2, (4, 3))
B = R.uniform(-2, 2, (4, 3))
P = R.uniform(0.05, 0.95, (4, 3))
T = R.uniform(0, 1, (4, 3))
SIGN = np.array([1.0, -1.0, -1.0, 1.0])
SIGN2 = np.array([[1, -1, 1], [-1, -1, 1], [1, 1, -1], [-1, 1, 1]], np.float64)
LABEL = np.array([2, 0, 1, 2])
LOGP = np.log(R.dirichlet(np.ones(3), 4))
W3 = np.array([0.5, 1.0, 2.0])
POS = R.uniform(0.5, 2, (4, 3))


def _red(loss, reduction):
    return {"mean": np.mean, "sum": np.sum, "none": lambda v: v}[reduction](loss)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _huber(x, y, d):
    r = np.abs(y - x)
    return np.where(r <= d, 0.5 * r * r, d * (r - 0.5 * d))


def _nll(logp, label, w=None, ignore=-100, red="mean"):
    w = np.ones(logp.shape[1]) if w is None else w
    rows = [(-w[c] * logp[i, c], w[c]) if c != ignore else (0.0, 0.0)
            for i, c in enumerate(label)]
    out = np.array([r[0] for r in rows])
    total = sum(r[1] for r in rows)
    return out if red == "none" else out.sum() if red == "sum" else out.sum() / total


def _pdist(x, y, p=2.0, eps=1e-6):
    return np.sum(np.abs(x - y + eps) ** p, axis=-1) ** (1 / p)


def _multi_margin(x, y, p=1, margin=1.0, w=None):
    out = []
    for i, c in enumerate(y):
        terms = [max(0.0, margin - x[i, c] + x[i, j]) ** p for j in range(x.shape[1]) if j != c]
        out.append((1.0 if w is None else w[c]) * sum(terms) / x.shape[1])
    return np.array(out)


def _ml_margin(x, y):
    out = []
    for i in range(x.shape[0]):
        targets = []
        for c in y[i]:
            if c == -1:
                break
            targets.append(int(c))
        others = [j for j in range(x.shape[1]) if j not in targets]
        out.append(sum(max(0.0, 1 - x[i, t] + x[i, j]) for t in targets for j in others)
                   / x.shape[1])
    return np.array(out)


def _cos_embed(a, b, y, margin=0.0):
    cos = (a * b).sum(-1) / np.sqrt(((a * a).sum(-1) + 1e-11) * ((b * b).sum(-1) + 1e-11))
    return np.where(y == 1, 1 - cos, np.maximum(cos - margin, 0))


def _kl(x, t):
    return np.where(t > 0, t * (np.log(np.where(t > 0, t, 1)) - x), 0)


ML_LABEL = np.array([[2, 0, -1], [1, -1, 0], [0, 1, 2], [-1, 0, 1]])
CASES = [
    # (id, call, inputs, numpy reference, op types that must appear, gradient input indices)
    ("mse_mean", F.mse_loss, [A, B], lambda a, b: np.mean((a - b) ** 2),
     ["elementwise_sub", "square", "reduce_mean"], (0, 1)),
    ("mse_sum", lambda a, b: F.mse_loss(a, b, "sum"), [A, B], lambda a, b: np.sum((a - b) ** 2),
     ["reduce_sum"], (0,)),
    ("mse_none", lambda a, b: F.mse_loss(a, b, "none"), [A, B], lambda a, b: (a - b) ** 2,
     ["square"], (0,)),
    ("l1", F.l1_loss, [A, B], lambda a, b: np.mean(np.abs(a - b)), ["abs", "reduce_mean"],
     (0, 1)),
    ("l1_none", lambda a, b: F.l1_loss(a, b, "none"), [A, B], lambda a, b: np.abs(a - b),
     ["abs"], (0,)),
    ("square_error_cost", F.square_error_cost, [A, B], lambda a, b: (a - b) ** 2, ["square"],
     (0, 1)),
    ("smooth_l1", F.smooth_l1_loss, [A, B], lambda a, b: np.mean(_huber(a, b, 1.0)),
     ["huber_loss", "reduce_mean"], (0, 1)),
    ("smooth_l1_delta", lambda a, b: F.smooth_l1_loss(a, b, "sum", 0.5, is_huber=False), [A, B],
     lambda a, b: np.sum(_huber(a, b, 0.5)) / 0.5, ["huber_loss", "reduce_sum"], (0,)),
    ("nll", F.nll_loss, [LOGP, LABEL], lambda x, y: _nll(x, y), ["nll_loss"], (0,)),
    ("nll_weight_ignore", lambda x, y, w: F.nll_loss(x, y, w, ignore_index=1), [LOGP, LABEL, W3],
     lambda x, y, w: _nll(x, y, w, 1), ["nll_loss"], (0,)),
    ("nll_none_sum", lambda x, y: F.nll_loss(x, y, reduction="none") * 2 + F.nll_loss(
        x, y, reduction="sum"), [LOGP, LABEL],
     lambda x, y: _nll(x, y, red="none") * 2 + _nll(x, y, red="sum"), ["nll_loss"], (0,)),
    ("bce", F.binary_cross_entropy, [P, T],
     lambda p, t: np.mean(-(t * np.log(p) + (1 - t) * np.log(1 - p))), ["bce_loss"], (0,)),
    ("bce_weight_none", lambda p, t, w: F.binary_cross_entropy(p, t, w, "none"), [P, T, W3],
     lambda p, t, w: -(t * np.log(p) + (1 - t) * np.log(1 - p)) * w,
     ["bce_loss", "elementwise_mul"], (0,)),
    ("bce_logits", F.binary_cross_entropy_with_logits, [A, T],
     lambda x, t: np.mean(-(t * np.log(_sigmoid(x)) + (1 - t) * np.log(1 - _sigmoid(x)))),
     ["sigmoid_cross_entropy_with_logits", "reduce_mean"], (0,)),
    ("bce_logits_pos_weight", lambda x, t, pw: F.binary_cross_entropy_with_logits(
        x, t, reduction="sum", pos_weight=pw), [A, T, W3],
     lambda x, t, pw: np.sum(-(pw * t * np.log(_sigmoid(x)) + (1 - t) * np.log(
         1 - _sigmoid(x)))), ["sigmoid_cross_entropy_with_logits"], (0,)),
    ("kl_div", F.kl_div, [A, T], lambda x, t: np.mean(_kl(x, t)), ["kldiv_loss"], (0,)),
    ("kl_div_batchmean", lambda x, t: F.kl_div(x, t, "batchmean"), [A, T],
     lambda x, t: np.sum(_kl(x, t)) / 4, ["kldiv_loss"], (0,)),
    ("kl_div_log_target", lambda x, t: F.kl_div(x, t, "sum", log_target=True), [A, B],
     lambda x, t: np.sum(np.exp(t) * (t - x)), ["kldiv_loss"], (0,)),
    ("log_loss", F.log_loss, [P[:, :1], T[:, :1]], lambda p, t: -t * np.log(p + 1e-4) - (
        1 - t) * np.log(1 - p + 1e-4), ["log_loss"], (0,)),
    ("softmax_with_ce", lambda x, y: F.softmax_with_cross_entropy(x, y), [A, LABEL[:, None]],
     lambda x, y: -np.log(np.exp(x) / np.exp(x).sum(-1, keepdims=True))[
         np.arange(4), y[:, 0]][:, None], ["softmax_with_cross_entropy"], (0,)),
    ("sigmoid_focal", F.sigmoid_focal_loss, [A, np.round(T)], lambda x, t: np.sum(
        (0.25 * t + 0.75 * (1 - t)) * (1 - (_sigmoid(x) * t + (1 - _sigmoid(x)) * (1 - t))) ** 2
        * -(t * np.log(_sigmoid(x)) + (1 - t) * np.log(1 - _sigmoid(x)))), ["reduce_sum"], (0,)),
    ("sigmoid_focal_normalizer", lambda x, t, n: F.sigmoid_focal_loss(x, t, n, 0.5, 1.0, "mean"),
     [A, np.round(T), np.array([3.0])], lambda x, t, n: np.mean(
         0.5 * (1 - (_sigmoid(x) * t + (1 - _sigmoid(x)) * (1 - t)))
         * -(t * np.log(_sigmoid(x)) + (1 - t) * np.log(1 - _sigmoid(x))) / n),
     ["elementwise_div", "reduce_mean"], (0,)),
    ("dice", F.dice_loss, [P, LABEL[:, None]], lambda p, y: np.mean(1 - 2 * (p * np.eye(3)[
        y[:, 0]]).sum(1) / (p.sum(1) + 1 + 1e-5)), ["one_hot_v2", "reduce_mean"], (0,)),
    ("poisson", F.poisson_nll_loss, [A, POS], lambda x, y: np.mean(np.exp(x) - y * x),
     ["exp", "reduce_mean"], (0,)),
    ("poisson_full", lambda x, y: F.poisson_nll_loss(x, y, False, True, reduction="none"),
     [POS, POS * 2], lambda x, y: x - y * np.log(x + 1e-8) + np.where(
         y > 1, y * np.log(y) - y + 0.5 * np.log(2 * np.pi * y), 0), ["where"], (0,)),
    ("gaussian_nll", F.gaussian_nll_loss, [A, B, POS], lambda x, y, v: np.mean(
        0.5 * (np.log(v) + (x - y) ** 2 / v)), ["reduce_mean"], (0, 1)),
    ("gaussian_nll_full", lambda x, y, v: F.gaussian_nll_loss(x, y, v, True, reduction="sum"),
     [A, B, POS[:, 0]], lambda x, y, v: np.sum(0.5 * (np.log(v[:, None]) + (x - y) ** 2 / v[
         :, None]) + 0.5 * np.log(2 * np.pi)), ["reduce_sum"], (0,)),
    ("margin_ranking", lambda a, b, y: F.margin_ranking_loss(a, b, y, 0.3), [A[:, 0], B[:, 0],
                                                                            SIGN],
     lambda a, b, y: np.mean(np.maximum(-y * (a - b) + 0.3, 0)), ["relu", "mean"], (0, 1)),
    ("margin_ranking_sum", lambda a, b, y: F.margin_ranking_loss(a, b, y, 0, "sum"),
     [A[:, 0], B[:, 0], SIGN], lambda a, b, y: np.sum(np.maximum(-y * (a - b), 0)),
     ["reduce_sum"], (0,)),
    ("hinge_embedding", F.hinge_embedding_loss, [A, SIGN2], lambda x, y: np.mean(np.where(
        y == 1, x, np.maximum(1 - x, 0))), ["where", "reduce_mean"], (0,)),
    ("cosine_embedding", lambda a, b, y: F.cosine_embedding_loss(a, b, y, 0.2), [A, B, SIGN],
     lambda a, b, y: np.mean(_cos_embed(a, b, y, 0.2)), ["where", "reduce_mean"], (0, 1)),
    ("triplet", F.triplet_margin_loss, [A, B, P], lambda a, p, n: np.mean(np.maximum(
        _pdist(a, p) - _pdist(a, n) + 1, 0)), ["p_norm", "reduce_mean"], (0, 1, 2)),
    ("triplet_swap_p1", lambda a, p, n: F.triplet_margin_loss(a, p, n, 2.0, 1, swap=True,
                                                              reduction="none"), [A, B, P],
     lambda a, p, n: np.maximum(_pdist(a, p, 1) - np.minimum(_pdist(a, n, 1), _pdist(
         p, n, 1)) + 2, 0), ["clip"], (0,)),
    ("triplet_distance_fn", lambda a, p, n: F.triplet_margin_with_distance_loss(
        a, p, n, lambda x, y: pyir.sum(pyir.abs(x - y), axis=-1), margin=3.0), [A, B, P],
     lambda a, p, n: np.mean(np.maximum(np.abs(a - p).sum(-1) - np.abs(a - n).sum(-1) + 3, 0)),
     ["clip", "reduce_mean"], (0,)),
    ("multi_margin", F.multi_margin_loss, [A, LABEL], lambda x, y: np.mean(_multi_margin(x, y)),
     ["index_sample"], (0,)),
    ("multi_margin_p2_weight", lambda x, y, w: F.multi_margin_loss(x, y, 2, 0.5, w, "none"),
     [A, LABEL, W3], lambda x, y, w: _multi_margin(x, y, 2, 0.5, w), ["gather"], (0,)),
    ("multi_label_soft_margin", F.multi_label_soft_margin_loss, [A, np.round(T)],
     lambda x, y: np.mean(np.mean(-(y * np.log(_sigmoid(x)) + (1 - y) * np.log(
         _sigmoid(-x))), -1)), ["logsigmoid"], (0,)),
    ("multi_label_margin", F.multi_label_margin_loss, [A, ML_LABEL],
     lambda x, y: np.mean(_ml_margin(x, y)), ["index_sample"], (0,)),
    ("soft_margin", F.soft_margin_loss, [A, SIGN2], lambda x, y: np.mean(np.log1p(np.exp(
        -y * x))), ["exp", "log"], (0,)),
    ("npair", F.npair_loss, [A, B, np.array([0.0, 1.0, 0.0, 2.0])], None,
     ["softmax_with_cross_entropy"], (0, 1)),
]
IDS = [c[0] for c in CASES]


def _npair_ref(a, p, labels, l2_reg=0.002):
    eq = (labels[:, None] == labels[None, :]).astype(np.float64)
    eq = eq / eq.sum(1, keepdims=True)
    sim = a @ p.T
    logsm = sim - np.log(np.exp(sim).sum(1, keepdims=True))
    ce = -(eq * logsm).sum(1, keepdims=True)
    l2 = (np.mean((a * a).sum(1)) + np.mean((p * p).sum(1))) * 0.25 * l2_reg
    return l2 + np.mean((eq * ce).sum(0))


def _ref(ref):
    return ref or _npair_ref


def _typed(arrays, float_dtype):
    return [a.astype(float_dtype) if a.dtype.kind == "f" else a for a in arrays]


@pytest.mark.parametrize("name, call, inputs, ref, ops, grad_of", CASES, ids=IDS)
def test_static_ops_and_values(name, call, inputs, ref, ops, grad_of):
    (out,), program_ops = run_static(call, _typed(inputs, np.float32))
    types = [op.type for op in program_ops]
    assert all(t in types for t in ops), types
    np.testing.assert_allclose(out, _ref(ref)(*inputs), rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("name, call, inputs, ref, ops, grad_of", CASES, ids=IDS)
def test_eager_values_and_gradients(name, call, inputs, ref, ops, grad_of):
    (out,), grads = run_eager(call, inputs, grad_of=grad_of)
    np.testing.assert_allclose(out, _ref(ref)(*inputs), rtol=1e-7, atol=1e-9)
    for index, grad in zip(grad_of, grads):
        np.testing.assert_allclose(grad, numeric_grad(_ref(ref), inputs, index), rtol=1e-5,
                                   atol=1e-7, err_msg=f"gradient of input {index}")


def test_nll_loss_on_images_and_all_ignored():
    logp = np.log(R.dirichlet(np.ones(3), (2, 2, 5)).transpose(0, 3, 1, 2))  # [2, 3, 2, 5]
    label = R.integers(0, 3, (2, 2, 5))
    (out,), _ = run_eager(lambda x, y: F.nll_loss(x, y, reduction="none"), [logp, label])
    want = -np.take_along_axis(logp, label[:, None], 1)[:, 0]
    np.testing.assert_allclose(out, want)
    x3 = logp[:, :, 0]  # rank 3: reshaped to [N, C, 1, -1] and back, as Paddle does
    (out,), ops = run_static(lambda x, y: F.nll_loss(x, y, reduction="none"),
                             [x3.astype(np.float32), label[:, 0]])
    assert [o.type for o in ops].count("reshape2") == 3
    np.testing.assert_allclose(out, -np.take_along_axis(x3, label[:, :1], 1)[:, 0], rtol=1e-6)
    (out,), _ = run_eager(lambda x, y: F.nll_loss(x, y, ignore_index=0),
                          [LOGP, np.zeros(4, np.int64)])
    assert out == 0


def test_bce_clamps_log_at_minus_100():
    (out,), _ = run_eager(lambda p, t: F.binary_cross_entropy(p, t, reduction="none"),
                          [np.array([0.0, 1.0]), np.array([1.0, 0.0])])
    np.testing.assert_allclose(out, [100.0, 100.0])


def test_gaussian_nll_variance_gets_no_gradient_in_eager():
    _, grads = run_eager(F.gaussian_nll_loss, [A, B, POS], grad_of=(0, 2))
    assert grads[0] is not None and grads[1] is None


def test_pdist_and_pairwise_distance():
    x = A
    (out,), ops = run_static(F.pdist, [x.astype(np.float32)])
    want = [np.linalg.norm(x[i] - x[j]) for i in range(4) for j in range(i + 1, 4)]
    np.testing.assert_allclose(out, want, rtol=1e-5)
    (out,), grads = run_eager(F.pdist, [x], grad_of=(0,))
    ref = lambda v: np.array([np.linalg.norm(v[i] - v[j]) for i in range(4)  # noqa: E731
                              for j in range(i + 1, 4)])
    np.testing.assert_allclose(grads[0], numeric_grad(ref, [x], 0), rtol=1e-5)
    (out,), ops = run_static(lambda a, b: F.pairwise_distance(a, b, 3.0, keepdim=True),
                             [A.astype(np.float32), B.astype(np.float32)])
    assert ops[-1].type == "p_norm" and ops[-1].attr("porder") == 3.0
    assert ops[-1].attr("epsilon") == 0.0 and ops[-1].attr("keepdim") is True
    np.testing.assert_allclose(out, _pdist(A, B, 3.0)[:, None], rtol=1e-5)


@pytest.mark.parametrize("call, match", [
    (lambda a, b: F.mse_loss(a, b, "avg"), "reduction must be"),
    (lambda a, b: F.l1_loss(a, b, "max"), "reduction must be"),
    (lambda a, b: F.smooth_l1_loss(a, b, "mean_all"), "reduction must be"),
    (lambda a, b: F.binary_cross_entropy(a, b, reduction="avg"), "reduction must be"),
    (lambda a, b: F.binary_cross_entropy_with_logits(a, b, reduction="x"), "reduction must be"),
    (lambda a, b: F.kl_div(a, b, "avg"), "'batchmean'"),
    (lambda a, b: F.nll_loss(a, b, reduction="avg"), "reduction must be"),
    (lambda a, b: F.nll_loss(a, pyir.static.data("l", [4, 3, 2, 2], "int64")), "label must"),
    (lambda a, b: F.margin_ranking_loss(a, b, b, reduction="x"), "reduction must be"),
    (lambda a, b: F.hinge_embedding_loss(a, b, reduction="x"), "reduction must be"),
    (lambda a, b: F.cosine_embedding_loss(a, b, b), "label must be 1-D"),
    (lambda a, b: F.triplet_margin_loss(a, b, b, margin=-1), "margin must be no less"),
    (lambda a, b: F.triplet_margin_loss(a, b, b, reduction="x"), "reduction must be"),
    (lambda a, b: F.soft_margin_loss(a, b, "x"), "reduction must be"),
    (lambda a, b: F.poisson_nll_loss(a, b, epsilon=0), "epsilon must be positive"),
    (lambda a, b: F.poisson_nll_loss(a, b, reduction="x"), "reduction must be"),
    (lambda a, b: F.gaussian_nll_loss(a, b, pyir.static.data("v", [2, 3], "float32")),
     "variance has shape"),
    (lambda a, b: F.gaussian_nll_loss(a, b, b, reduction="x"), "reduction must be"),
    (lambda a, b: F.sigmoid_focal_loss(a, b, reduction="x"), "reduction must be"),
    (lambda a, b: F.sigmoid_focal_loss(a, b, normalizer=a), "normalizer must have"),
    (lambda a, b: F.dice_loss(a, b[:, :1]), "label must be int"),
    (lambda a, b: F.dice_loss(a, b), "last dimension of label must be 1"),
    (lambda a, b: F.multi_margin_loss(a, b, reduction="x"), "reduction must be"),
    (lambda a, b: F.multi_label_soft_margin_loss(a, b, reduction="x"), "reduction must be"),
    (lambda a, b: F.multi_label_margin_loss(a, b, reduction="x"), "reduction must be"),
])
def test_refusals(call, match):
    a = pyir.static.data("a", [4, 3], "float32")
    b = pyir.static.data("b", [4, 3], "float32")
    with pytest.raises(BuildError, match=match):
        call(a, b)


def _arcface(x, y, m1=1.0, m2=0.5, m3=0.0, s=64.0):
    z = x.copy()
    for i, c in enumerate(y):
        z[i, c] = math.cos(m1 * math.acos(x[i, c]) + m2) - m3
    z = z * s
    z = z - z.max(1, keepdims=True)
    return -(z - np.log(np.exp(z).sum(1, keepdims=True)))[np.arange(len(y)), y]


def test_margin_cross_entropy_one_process():
    x = R.uniform(-0.9, 0.9, (4, 6))
    y = np.array([1, 0, 5, 3])
    call = lambda a, b: F.margin_cross_entropy(a, b, 0.9, 0.3, 0.1, 4.0)  # noqa: E731
    (out,), ops = run_static(call, [x.astype(np.float32), y])
    assert ops[0].type == "margin_cross_entropy" and ops[0].attr("scale") == 4.0
    ref = lambda a, b: np.mean(_arcface(a, b, 0.9, 0.3, 0.1, 4.0))  # noqa: E731
    np.testing.assert_allclose(out, ref(x, y), rtol=1e-5)
    (out,), (grad,) = run_eager(call, [x, y], grad_of=(0,))
    np.testing.assert_allclose(grad, numeric_grad(ref, [x, y], 0), rtol=1e-6, atol=1e-9)
    (loss, soft), _ = run_eager(lambda a, b: F.margin_cross_entropy(
        a, b[:, None], return_softmax=True, reduction=None), [x, y])
    np.testing.assert_allclose(loss[:, 0], _arcface(x, y), rtol=1e-9)
    np.testing.assert_allclose(soft.sum(1), 1, rtol=1e-9)
    with pytest.raises(BuildError, match="reduction must be"):
        F.margin_cross_entropy(pyir.static.data("l", [4, 6], "float32"),
                               pyir.static.data("y", [4], "int64"), reduction="avg")
    with pytest.raises(BuildError, match="group=None"):
        F.margin_cross_entropy(pyir.static.data("l2", [4, 6], "float32"),
                               pyir.static.data("y2", [4], "int64"), group=object())
