"""paddle.nn.functional ctc_loss, hsigmoid_loss and adaptive_log_softmax_with_loss: ops
Paddle emits, values against brute-force numpy and Paddle 3.3.1, gradients, refusals."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import pyir
import pyir.nn.functional as F
from pyir.errors import BuildError

from functional_check import numeric_grad, run_eager, run_static


def _log_softmax(x, axis=-1):
    m = x.max(axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis, keepdims=True))


def ctc_brute(logits, labels, t_lens, l_lens, blank=0):
    """-log of the summed probability of every frame path collapsing to the label."""
    out = []
    for b in range(logits.shape[1]):
        p = np.exp(_log_softmax(logits[:t_lens[b], b]))
        target = list(labels[b, :l_lens[b]])
        total = 0.0
        for path in itertools.product(range(logits.shape[2]), repeat=int(t_lens[b])):
            merged = [c for i, c in enumerate(path) if i == 0 or c != path[i - 1]]
            if [c for c in merged if c != blank] == target:
                total += np.prod([p[i, c] for i, c in enumerate(path)])
        out.append(-np.log(total))
    return np.array(out)


R = np.random.default_rng(0)
HX = R.uniform(-1, 1, (3, 4)).astype("float32")
HW = R.uniform(-1, 1, (5, 4)).astype("float32")
HB = R.uniform(-1, 1, (5, 1)).astype("float32")
LOGITS = R.uniform(-1, 1, (4, 2, 3)).astype("float32")
LABELS = np.array([[1, 2], [1, 1]], np.int32)
T_LENS, L_LENS = np.array([4, 3]), np.array([2, 1])
# Produced by Paddle 3.3.1 for the inputs above:
PADDLE_HSIGMOID = [[1.8265376], [1.120196], [2.6530323]]
PADDLE_CTC = [1.5962008, 1.1622673]


def test_ctc_loss_matches_brute_force_and_paddle():
    want = ctc_brute(LOGITS.astype(np.float64), LABELS, T_LENS, L_LENS)
    (out,), ops = run_static(lambda a, b, c, d: F.ctc_loss(a, b, c, d, reduction="none"),
                             [LOGITS, LABELS, T_LENS, L_LENS])
    assert [o.type for o in ops] == ["warpctc", "squeeze2"]
    assert ops[0].attr("blank") == 0 and ops[0].attr("norm_by_times") is False
    np.testing.assert_allclose(out, want, rtol=1e-5)
    np.testing.assert_allclose(out, PADDLE_CTC, rtol=1e-6)
    (mean,), _ = run_eager(F.ctc_loss, [LOGITS, LABELS, T_LENS, L_LENS])
    np.testing.assert_allclose(mean, np.mean(want / L_LENS), rtol=1e-5)
    (total,), _ = run_eager(lambda a, b, c, d: F.ctc_loss(a, b, c, d, blank=2, reduction="sum"),
                            [LOGITS, np.array([[1, 0], [0, 0]], np.int32), T_LENS, L_LENS])
    np.testing.assert_allclose(total, ctc_brute(LOGITS.astype(np.float64), np.array(
        [[1, 0], [0, 0]]), T_LENS, L_LENS, blank=2).sum(), rtol=1e-5)


def test_ctc_loss_gradient_and_zero_infinity():
    logits = LOGITS.astype(np.float64)
    ref = lambda x: ctc_brute(x, LABELS, T_LENS, L_LENS).sum()  # noqa: E731
    (_,), (grad,) = run_eager(lambda a, b, c, d: F.ctc_loss(a, b, c, d, reduction="sum"),
                              [logits, LABELS, T_LENS, L_LENS], grad_of=(0,))
    np.testing.assert_allclose(grad, numeric_grad(lambda x, *_: ref(x), [logits], 0),
                               rtol=1e-5, atol=1e-8)
    impossible = [logits[:2], np.array([[1, 1], [2, 2]], np.int32), np.array([2, 2]),
                  np.array([2, 2])]
    (inf,), _ = run_eager(lambda a, b, c, d: F.ctc_loss(a, b, c, d, reduction="none"),
                          impossible)
    assert np.isinf(inf).all()
    (zero,), _ = run_eager(lambda a, b, c, d: F.ctc_loss(a, b, c, d, reduction="none",
                                                         zero_infinity=True), impossible)
    np.testing.assert_array_equal(zero, [0.0, 0.0])


def hsigmoid_ref(x, w, label, num_classes, b=None):
    out = []
    length = (num_classes - 1).bit_length()
    for i in range(x.shape[0]):
        c = int(label[i]) + num_classes
        nodes = [((c >> (j + 1)) - 1, (c >> j) & 1) for j in range(c.bit_length() - 1)]
        total = (length - len(nodes)) * np.log(2.0)
        for node, bit in nodes:
            z = np.clip(x[i] @ w[node] + (0 if b is None else b[node, 0]), -40, 40)
            total += np.log1p(np.exp(z)) - bit * z
        out.append([total])
    return np.array(out)


def test_hsigmoid_loss_matches_numpy_and_paddle():
    label = np.array([[0], [5], [3]])
    (out,), ops = run_static(lambda x, y, w, b: F.hsigmoid_loss(x, y, 6, w, b),
                             [HX, label, HW, HB])
    assert ops[-1].type == "hierarchical_sigmoid" and ops[-1].attr("num_classes") == 6
    np.testing.assert_allclose(out, hsigmoid_ref(HX, HW, label[:, 0], 6, HB), rtol=1e-5)
    np.testing.assert_allclose(out, PADDLE_HSIGMOID, rtol=1e-6)
    args = [HX.astype(np.float64), label, HW.astype(np.float64), HB.astype(np.float64)]
    ref = lambda x, y, w, b: hsigmoid_ref(x, w, y[:, 0], 6, b)  # noqa: E731
    (_,), grads = run_eager(lambda x, y, w, b: F.hsigmoid_loss(x, y, 6, w, b), args,
                            grad_of=(0, 2, 3))
    for i, g in zip((0, 2, 3), grads):
        np.testing.assert_allclose(g, numeric_grad(ref, args, i), rtol=1e-6, atol=1e-9)


def test_hsigmoid_loss_custom_tree():
    table = np.array([[0, 2, -1], [1, 3, 2]])
    code = np.array([[1, 0, 0], [0, 1, 1]])
    x, w = HX[:2].astype(np.float64), HW[:4, :].astype(np.float64)
    (out,), _ = run_eager(lambda a, y, ww, t, c: F.hsigmoid_loss(a, y, 4, ww, None, t, c),
                          [x, np.array([1, 0]), w, table, code])
    want = []
    for i in range(2):
        total = 0.0
        for node, bit in zip(table[i], code[i]):
            if node < 0:
                total += np.log(2.0)
                continue
            z = x[i] @ w[node]
            total += np.log1p(np.exp(z)) - bit * z
        want.append([total])
    np.testing.assert_allclose(out, want, rtol=1e-9)


def _adaptive_ref(x, y, head_w, tails, cutoffs, head_b=None):
    head = _log_softmax(x @ head_w + (0 if head_b is None else head_b), 1)
    out = np.zeros(len(y))
    for n, label in enumerate(y):
        if label < cutoffs[0]:
            out[n] = head[n, label]
            continue
        for i in range(1, len(cutoffs)):
            if cutoffs[i - 1] <= label < cutoffs[i]:
                tail = _log_softmax(x[n] @ tails[i - 1][0] @ tails[i - 1][1])
                out[n] = head[n, cutoffs[0] + i - 1] + tail[label - cutoffs[i - 1]]
    return out


def test_adaptive_log_softmax_with_loss():
    rng = np.random.default_rng(9)
    x = rng.uniform(-1, 1, (5, 4))
    y = np.array([0, 3, 5, 8, 2])
    head_w = rng.uniform(-1, 1, (4, 5))  # shortlist 3 + 2 clusters
    tails = [[rng.uniform(-1, 1, (4, 2)), rng.uniform(-1, 1, (2, 3))],
             [rng.uniform(-1, 1, (4, 2)), rng.uniform(-1, 1, (2, 3))]]
    head_b = rng.uniform(-1, 1, 5)
    cutoffs = [3, 6, 9]
    want = _adaptive_ref(x, y, head_w, tails, cutoffs, head_b)
    flat = [t for pair in tails for t in pair]

    def call(xx, yy, hw, hb, *tw):
        return F.adaptive_log_softmax_with_loss(xx, yy, hw, [tw[0:2], tw[2:4]], cutoffs, hb)

    (out, loss), grads = run_eager(call, [x, y, head_w, head_b, *flat], grad_of=(0, 2))
    np.testing.assert_allclose(out, want, rtol=1e-9)
    np.testing.assert_allclose(loss, -want.mean(), rtol=1e-9)
    ref = lambda xx, yy, hw, hb, *tw: _adaptive_ref(  # noqa: E731
        xx, yy, hw, [tw[0:2], tw[2:4]], cutoffs, hb)
    np.testing.assert_allclose(grads[0], numeric_grad(ref, [x, y, head_w, head_b, *flat], 0),
                               rtol=1e-6, atol=1e-9)
    (out_s, loss_s), _ = run_static(call, [a.astype(np.float32) if a.dtype.kind == "f" else a
                                           for a in [x, y, head_w, head_b, *flat]])
    np.testing.assert_allclose(out_s, want, rtol=1e-5)


@pytest.mark.parametrize("call, match", [
    (lambda x, y: F.ctc_loss(x, y, y, y, reduction="avg"), "reduction must be"),
    (lambda x, y: F.ctc_loss(x[0], y, y, y), "log_probs must be 3-D"),
    (lambda x, y: F.hsigmoid_loss(x[0], y, 1, x[0]), "num_classes must be at least 2"),
    (lambda x, y: F.hsigmoid_loss(x[0], y, 4, x[0], path_table=y), "given together"),
    (lambda x, y: F.adaptive_log_softmax_with_loss(x, y, x, [], [2]), "2-D input"),
    (lambda x, y: F.adaptive_log_softmax_with_loss(x[:, 0], y, x[0], [], [2, 3]),
     "clusters need"),
])
def test_refusals(call, match):
    x = pyir.static.data("x", [4, 2, 3], "float32")
    y = pyir.static.data("y", [4], "int64")
    with pytest.raises(BuildError, match=match):
        call(x, y)


def rnnt_brute(lp, labels, t_lens, l_lens, blank=0):
    """-log-sum-exp over every lattice path (T - 1 blanks and U labels in any order, then
    the final blank)."""
    out = []
    for b in range(lp.shape[0]):
        t_len, n = int(t_lens[b]), int(l_lens[b])
        scores = []
        for moves in set(itertools.permutations("b" * (t_len - 1) + "e" * n)):
            t = u = 0
            score = 0.0
            for m in moves:
                if m == "b":
                    score, t = score + lp[b, t, u, blank], t + 1
                else:
                    score, u = score + lp[b, t, u, labels[b, u]], u + 1
            scores.append(score + lp[b, t, u, blank])
        out.append(-np.logaddexp.reduce(scores))
    return np.array(out)


RNNT_X = np.random.default_rng(3).uniform(-1, 1, (2, 4, 3, 5)).astype("float32")
RNNT_ARGS = [np.array([[1, 2], [3, 0]], np.int32), np.array([4, 3], np.int32),
             np.array([2, 1], np.int32)]
PADDLE_RNNT = [-1.6773074, -0.05822843]  # Paddle 3.3.1 (its warprnnt takes log-probs as given)


@pytest.mark.parametrize("lam", [0.0, 0.5])
def test_rnnt_loss_matches_paddle_and_brute_force(lam):
    (out,), ops = run_static(lambda x, y, a, b: F.rnnt_loss(x, y, a, b, fastemit_lambda=lam,
                                                            reduction="none"),
                             [RNNT_X, *RNNT_ARGS])
    assert ops[0].type == "warprnnt" and ops[0].attr("fastemit_lambda") == pytest.approx(lam)
    np.testing.assert_allclose(out, PADDLE_RNNT, rtol=1e-5)
    x = RNNT_X.astype(np.float64)
    np.testing.assert_allclose(out, rnnt_brute(x, *RNNT_ARGS), rtol=1e-5)
    (mean,), (grad,) = run_eager(lambda a, y, b, c: F.rnnt_loss(a, y, b, c, fastemit_lambda=lam),
                                 [x, *RNNT_ARGS], grad_of=(0,))
    np.testing.assert_allclose(mean, rnnt_brute(x, *RNNT_ARGS).sum() / 2, rtol=1e-9)
    want = numeric_grad(lambda a, *rest: rnnt_brute(a, *RNNT_ARGS).sum() / 2, [x], 0)
    labels, _, l_lens = RNNT_ARGS
    for b in range(2):  # FastEmit: label-emission gradients scaled by 1 + lambda
        for u in range(l_lens[b]):
            want[b, :, u, labels[b, u]] *= 1 + lam
    np.testing.assert_allclose(grad, want, rtol=1e-6, atol=1e-9)


def test_rnnt_loss_refusals():
    x = pyir.static.data("x", [2, 4, 3], "float32")
    with pytest.raises(BuildError, match="input must be 4-D"):
        F.rnnt_loss(x, x, x, x)
    with pytest.raises(BuildError, match="reduction must be"):
        F.rnnt_loss(x, x, x, x, reduction="avg")
