"""paddle.nn.functional pooling: ops and attributes as Paddle emits them, values (static and
eager) against direct-loop numpy pooling, gradients against finite differences, refusals."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import pyir
import pyir.nn.functional as F
from pyir.errors import BuildError

from functional_check import numeric_grad, run_eager, run_static

R = np.random.default_rng(8)


def pool_ref(x, kind, k, s, pads, ceil=False, exclusive=True, p=None):
    """Channels-first N-d pooling by loops over output cells; pads are (lo, hi) per dim."""
    nd = x.ndim - 2
    outs = []
    for i in range(nd):
        span = x.shape[2 + i] + pads[i][0] + pads[i][1] - k[i]
        outs.append(-(-span // s[i]) + 1 if ceil else span // s[i] + 1)
    res = np.zeros(x.shape[:2] + tuple(outs))
    for idx in itertools.product(*[range(o) for o in outs]):
        lo = [i * st - pd[0] for i, st, pd in zip(idx, s, pads)]
        hi = [min(a + kk, size + pd[0]) for a, kk, size, pd in zip(lo, k, x.shape[2:], pads)]
        sl = tuple(slice(max(a, 0), min(h, size)) for a, h, size in zip(lo, hi, x.shape[2:]))
        win = x[(slice(None), slice(None)) + sl]
        axes = tuple(range(2, 2 + nd))
        cell = (slice(None), slice(None)) + idx
        if kind == "max":
            res[cell] = win.max(axis=axes)
        elif kind == "lp":
            res[cell] = (win ** p).sum(axis=axes) ** (1 / p)
        else:
            div = np.prod(win.shape[2:]) if exclusive else np.prod([h - a for a, h in
                                                                   zip(lo, hi)])
            res[cell] = win.sum(axis=axes) / div
    return res


def adaptive_ref(x, kind, outs):
    nd = x.ndim - 2
    res = np.zeros(x.shape[:2] + tuple(outs))
    idxs = np.zeros(res.shape, np.int64)
    for idx in itertools.product(*[range(o) for o in outs]):
        lo = [i * x.shape[2 + a] // outs[a] for a, i in enumerate(idx)]
        hi = [-(-(i + 1) * x.shape[2 + a] // outs[a]) for a, i in enumerate(idx)]
        sl = tuple(slice(a, h) for a, h in zip(lo, hi))
        win = x[(slice(None), slice(None)) + sl]
        cell = (slice(None), slice(None)) + idx
        flat = win.reshape(x.shape[0], x.shape[1], -1)
        if kind == "max":
            res[cell] = flat.max(-1)
            local = np.unravel_index(flat.argmax(-1), win.shape[2:])
            idxs[cell] = np.ravel_multi_index(tuple(c + a for c, a in zip(local, lo)),
                                              x.shape[2:])
        else:
            res[cell] = flat.mean(-1)
    return res, idxs


def _last(a):
    return np.moveaxis(a, 1, -1)


def _first(a):
    return np.moveaxis(a, -1, 1)


X1 = R.uniform(-1, 1, (2, 3, 9))
X2 = R.uniform(-1, 1, (2, 3, 7, 6))
X3 = R.uniform(-1, 1, (1, 2, 5, 4, 6))
XP = R.uniform(0.1, 1, (2, 2, 6, 7))

CASES = [
    # (id, call, input, numpy reference, op type of the pooling op, attributes)
    ("avg_pool1d", lambda x: F.avg_pool1d(x, 3, 2, padding=1), X1,
     lambda x: pool_ref(x[:, :, None], "avg", (1, 3), (1, 2), [(0, 0), (1, 1)])[:, :, 0],
     "pool2d", {"ksize": [1, 3], "strides": [1, 2], "paddings": [0, 1]}),
    ("avg_pool1d_incl_ceil", lambda x: F.avg_pool1d(x, 4, 3, exclusive=False, ceil_mode=True),
     X1, lambda x: pool_ref(x[:, :, None], "avg", (1, 4), (1, 3), [(0, 0), (0, 0)], ceil=True,
                            exclusive=False)[:, :, 0], "pool2d", {"ceil_mode": True}),
    ("max_pool1d", lambda x: F.max_pool1d(x, 2), X1,
     lambda x: pool_ref(x[:, :, None], "max", (1, 2), (1, 2), [(0, 0)] * 2)[:, :, 0], "pool2d",
     {"pooling_type": "max"}),
    ("avg_pool2d", lambda x: F.avg_pool2d(x, 3, 2, 1), X2,
     lambda x: pool_ref(x, "avg", (3, 3), (2, 2), [(1, 1)] * 2), "pool2d",
     {"pooling_type": "avg", "ksize": [3, 3], "exclusive": True}),
    ("avg_pool2d_divisor", lambda x: F.avg_pool2d(x, [2, 3], divisor_override=4), X2,
     lambda x: pool_ref(x, "avg", (2, 3), (2, 3), [(0, 0)] * 2) * 6 / 4, "pool2d", {}),
    ("avg_pool2d_nhwc_asym", lambda x: F.avg_pool2d(x, 2, 1, [1, 0, 0, 1], exclusive=False,
                                                    data_format="NHWC"), _last(X2),
     lambda x: _last(pool_ref(_first(x), "avg", (2, 2), (1, 1), [(1, 0), (0, 1)],
                              exclusive=False)), "pool2d", {"paddings": [1, 0, 0, 1]}),
    ("max_pool2d_ceil", lambda x: F.max_pool2d(x, 3, 2, ceil_mode=True), X2,
     lambda x: pool_ref(x, "max", (3, 3), (2, 2), [(0, 0)] * 2, ceil=True), "pool2d",
     {"ceil_mode": True}),
    ("max_pool2d_same", lambda x: F.max_pool2d(x, 3, 2, "SAME"), X2,
     lambda x: pool_ref(x, "max", (3, 3), (2, 2), [(1, 1), (0, 1)]), "pool2d",
     {"padding_algorithm": "SAME"}),
    ("avg_pool3d", lambda x: F.avg_pool3d(x, 2, [1, 2, 2], 1), X3,
     lambda x: pool_ref(x, "avg", (2, 2, 2), (1, 2, 2), [(1, 1)] * 3), "pool3d",
     {"ksize": [2, 2, 2], "strides": [1, 2, 2]}),
    ("max_pool3d_ndhwc", lambda x: F.max_pool3d(x, [2, 2, 3], data_format="NDHWC"), _last(X3),
     lambda x: _last(pool_ref(_first(x), "max", (2, 2, 3), (2, 2, 3), [(0, 0)] * 3)), "pool3d",
     {"data_format": "NDHWC"}),
    ("adaptive_avg_pool1d", lambda x: F.adaptive_avg_pool1d(x, 4), X1,
     lambda x: adaptive_ref(x, "avg", [4])[0], "pool2d", {"adaptive": True, "ksize": [1, 4]}),
    ("adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, [3, None]), X2,
     lambda x: adaptive_ref(x, "avg", [3, 6])[0], "pool2d", {"adaptive": True, "ksize": [3, 6]}),
    ("adaptive_avg_pool2d_nhwc", lambda x: F.adaptive_avg_pool2d(x, 2, "NHWC"), _last(X2),
     lambda x: _last(adaptive_ref(_first(x), "avg", [2, 2])[0]), "pool2d",
     {"data_format": "NHWC"}),
    ("adaptive_avg_pool3d", lambda x: F.adaptive_avg_pool3d(x, [2, 3, 4]), X3,
     lambda x: adaptive_ref(x, "avg", [2, 3, 4])[0], "pool3d", {"adaptive": True}),
    ("adaptive_max_pool1d", lambda x: F.adaptive_max_pool1d(x, 4), X1,
     lambda x: adaptive_ref(x, "max", [4])[0], "max_pool2d_with_index", {"adaptive": True}),
    ("adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, [3, 4]), X2,
     lambda x: adaptive_ref(x, "max", [3, 4])[0], "max_pool2d_with_index",
     {"adaptive": True, "ksize": [3, 4]}),
    ("adaptive_max_pool3d", lambda x: F.adaptive_max_pool3d(x, 2), X3,
     lambda x: adaptive_ref(x, "max", [2, 2, 2])[0], "max_pool3d_with_index", {"adaptive": True}),
    ("lp_pool2d", lambda x: F.lp_pool2d(x, 2, 2, 2), XP,
     lambda x: pool_ref(x, "lp", (2, 2), (2, 2), [(0, 0)] * 2, p=2.0), "lp_pool2d",
     {"norm_type": 2.0, "kernel_size": [2, 2]}),
    ("lp_pool2d_pad", lambda x: F.lp_pool2d(x, 3, 3, 2, padding=1, ceil_mode=True), XP,
     lambda x: pool_ref(x, "lp", (3, 3), (2, 2), [(1, 1)] * 2, ceil=True, p=3.0), "lp_pool2d",
     {"ceil_mode": True}),
    ("lp_pool1d_nlc", lambda x: F.lp_pool1d(x, 1.5, 3, 2, data_format="NLC"), _last(XP[:, :, 0]),
     lambda x: _last(pool_ref(_first(x)[:, :, None], "lp", (1, 3), (1, 2), [(0, 0)] * 2,
                              p=1.5)[:, :, 0]), "lp_pool2d", {"data_format": "NHWC"}),
]
IDS = [c[0] for c in CASES]


@pytest.mark.parametrize("name, call, x, ref, op_type, attrs", CASES, ids=IDS)
def test_static_op_and_values(name, call, x, ref, op_type, attrs):
    (out,), ops = run_static(call, [x.astype(np.float32)])
    pool = next(o for o in ops if "pool" in o.type)
    assert pool.type == op_type
    for key, value in attrs.items():
        assert pool.attr(key) == value, key
    np.testing.assert_allclose(out, ref(x), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name, call, x, ref, op_type, attrs", CASES, ids=IDS)
def test_eager_values_and_gradients(name, call, x, ref, op_type, attrs):
    (out,), (grad,) = run_eager(call, [x], grad_of=(0,))
    np.testing.assert_allclose(out, ref(x), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(grad, numeric_grad(ref, [x], 0), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("n, x", [(1, X1), (2, X2), (3, X3)])
def test_max_pool_mask_and_unpool_round_trip(n, x):
    pool = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}[n]
    unpool = {1: F.max_unpool1d, 2: F.max_unpool2d, 3: F.max_unpool3d}[n]
    (out, mask), ops = run_static(lambda t: pool(t, 2, return_mask=True), [x.astype(np.float32)])
    assert any(o.type == f"max_pool{max(n, 2)}d_with_index" for o in ops)
    assert mask.dtype == np.int32
    k = (2,) * n
    np.testing.assert_allclose(out, pool_ref(x, "max", k, k, [(0, 0)] * n), rtol=1e-6)
    flat = x.reshape(x.shape[0], x.shape[1], -1)
    np.testing.assert_allclose(np.take_along_axis(flat, mask.reshape(*mask.shape[:2], -1), 2),
                               out.reshape(*out.shape[:2], -1), rtol=1e-6)
    size = [s // 2 * 2 for s in x.shape[2:]]
    (restored,), ops = run_eager(lambda o, m: unpool(o, m, 2, output_size=size), [out, mask])
    want = np.zeros(x.shape[:2] + tuple(size))
    for b, c in np.ndindex(*x.shape[:2]):
        want[b, c].reshape(-1)[mask[b, c].reshape(-1)] = out[b, c].reshape(-1)
    np.testing.assert_allclose(restored, want, rtol=1e-6)


def test_adaptive_max_mask_and_gradient():
    (out, mask), _ = run_eager(lambda t: F.adaptive_max_pool2d(t, 3, return_mask=True), [X2])
    np.testing.assert_array_equal(mask, adaptive_ref(X2, "max", [3, 3])[1])
    (out, mask), _ = run_eager(lambda t: F.max_pool2d(t, 2, 2, 1, return_mask=True), [X2])
    (grad,), = run_eager(lambda t: F.max_pool2d(t, 2, 2, 1, return_mask=True)[0], [X2],
                         grad_of=(0,))[1:]
    ref = lambda v: pool_ref(v, "max", (2, 2), (2, 2), [(1, 1)] * 2)  # noqa: E731
    np.testing.assert_allclose(out, ref(X2))
    np.testing.assert_allclose(grad, numeric_grad(ref, [X2], 0), atol=1e-8)


@pytest.mark.parametrize("call, match", [
    (lambda x: F.max_pool2d(x, 2, data_format="NCWH"), "data_format must be NCHW or NHWC"),
    (lambda x: F.max_pool2d(x, 2, padding="FULL"), "padding must be 'SAME', 'VALID'"),
    (lambda x: F.max_pool2d(x, 2, padding="VALID", ceil_mode=True), "ceil_mode must be False"),
    (lambda x: F.avg_pool2d(x, 2, padding=-1), "padding must be >= 0"),
    (lambda x: F.avg_pool2d(x, 0), "must be positive"),
    (lambda x: F.avg_pool2d(x, [2, 2, 2]), "kernel_size must be"),
    (lambda x: F.avg_pool2d(x, 2, divisor_override=0), "divisor_override"),
    (lambda x: F.max_pool2d(pyir.static.data("y", [2, 5, 6, 3], "float32"), 2, return_mask=True,
                            data_format="NHWC"), "return_mask needs data_format NCHW"),
    (lambda x: F.max_pool1d(x, 2), "x must be 3-D"),
    (lambda x: F.avg_pool3d(x, 2), "x must be 5-D"),
    (lambda x: F.lp_pool2d(x, 0, 2), "norm_type cannot be 0"),
    (lambda x: F.adaptive_avg_pool2d(x, [1, 2, 3]), "output_size must be"),
    (lambda x: F.max_unpool2d(x, x, 2, data_format="NHWC"), "data_format must be NCHW"),
    (lambda x: F.max_unpool2d(x, x, 2, output_size=[20, 20]), "must be between"),
])
def test_refusals(call, match):
    x = pyir.static.data("x", [2, 3, 6, 6], "float32")
    with pytest.raises(BuildError, match=match):
        call(x)


FRAC_X = np.sin(np.arange(63, dtype=np.float32) * 1.7).reshape(1, 1, 7, 9)
# Produced by Paddle 3.3.1 for FRAC_X:
PADDLE_FRAC_MASKS = {
    (None, 0.3): [[[[1, 12, 5, 16], [27, 38, 23, 34], [45, 56, 49, 53]]]],
    ((2, 3), 0.7): [[[[1, 12, 16], [38, 30, 34], [45, 49, 60]]]],
}


@pytest.mark.parametrize("kernel, u", list(PADDLE_FRAC_MASKS))
def test_fractional_max_pool2d_matches_paddle(kernel, u):
    size = [3, 4] if kernel is None else [3, 3]
    (out, mask), ops = run_static(lambda t: F.fractional_max_pool2d(t, size, kernel, u,
                                                                    return_mask=True), [FRAC_X])
    assert ops[-1].type == "fractional_max_pool2d" and ops[-1].attr("random_u") == \
        pytest.approx(u)
    np.testing.assert_array_equal(mask, PADDLE_FRAC_MASKS[(kernel, u)])
    np.testing.assert_allclose(out, FRAC_X.reshape(-1)[mask], rtol=0)
    x = FRAC_X.astype(np.float64)
    (_,), (grad,) = run_eager(lambda t: F.fractional_max_pool2d(t, size, kernel, u), [x],
                              grad_of=(0,))
    weights = np.random.default_rng(7).uniform(0.5, 1.5, mask.shape)
    want = np.zeros(x.size)
    np.add.at(want, np.asarray(mask).reshape(-1), weights.reshape(-1))
    np.testing.assert_allclose(grad.reshape(-1), want)


def test_fractional_max_pool_random_windows_and_refusal():
    x = np.random.default_rng(1).uniform(-1, 1, (1, 2, 5, 6, 7))
    (out,), _ = run_eager(lambda t: F.fractional_max_pool3d(t, [2, 3, 3]), [x])
    assert out.shape == (1, 2, 2, 3, 3) and np.isin(out, x).all()
    with pytest.raises(BuildError, match="random_u must be in"):
        F.fractional_max_pool2d(pyir.static.data("x", [1, 1, 7, 9], "float32"), 3, random_u=1.0)
