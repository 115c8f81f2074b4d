"""paddle.nn.functional vision and extension layers (affine_grid, grid_sample, shuffles,
temporal_shift, diag_embed, gather_tree, sequence_mask, scaled_dot_product_attention): ops
Paddle emits, values (static and eager) against loop references, gradients, refusals."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import pyir
import pyir.nn.functional as F
from pyir.errors import BuildError

from functional_check import numeric_grad, run_eager, run_static

R = np.random.default_rng(41)


def affine_ref(theta, shape, align_corners=True):
    n, _, h, w = shape
    out = np.zeros((n, h, w, 2))
    for b, i, j in itertools.product(range(n), range(h), range(w)):
        x = -1 + 2 * j / (w - 1)
        y = -1 + 2 * i / (h - 1)
        if not align_corners:
            x, y = x * (w - 1) / w, y * (h - 1) / h
        out[b, i, j] = theta[b] @ [x, y, 1.0]
    return out


def _fold_into(c, lo, hi):
    """Reflect c into [lo, hi] by repeated mirroring."""
    if hi == lo:
        return 0.0
    while c < lo or c > hi:
        c = 2 * lo - c if c < lo else 2 * hi - c
    return c


def sample_ref(x, grid, mode="bilinear", padding_mode="zeros", align_corners=True):
    n, c, h, w = x.shape
    _, ho, wo, _ = grid.shape
    out = np.zeros((n, c, ho, wo))
    for b, i, j in itertools.product(range(n), range(ho), range(wo)):
        coords = []
        for g, size in ((grid[b, i, j, 0], w), (grid[b, i, j, 1], h)):
            v = (g + 1) / 2 * (size - 1) if align_corners else ((g + 1) * size - 1) / 2
            if padding_mode == "reflection":
                v = _fold_into(v, 0, size - 1) if align_corners else \
                    _fold_into(v, -0.5, size - 0.5)
            if padding_mode in ("border", "reflection"):
                v = min(max(v, 0), size - 1)
            coords.append(v)
        px, py = coords
        if mode == "nearest":
            r, q = int(np.rint(py)), int(np.rint(px))
            if 0 <= r < h and 0 <= q < w:
                out[b, :, i, j] = x[b, :, r, q]
            continue
        for r in (math.floor(py), math.floor(py) + 1):
            for q in (math.floor(px), math.floor(px) + 1):
                if 0 <= r < h and 0 <= q < w:
                    out[b, :, i, j] += (1 - abs(px - q)) * (1 - abs(py - r)) * x[b, :, r, q]
    return out


def shuffle_ref(x, r):
    n, c, h, w = x.shape
    out = np.zeros((n, c // (r * r), h * r, w * r))
    for oc, i, j in itertools.product(range(c // (r * r)), range(h * r), range(w * r)):
        out[:, oc, i, j] = x[:, oc * r * r + (i % r) * r + j % r, i // r, j // r]
    return out


def unshuffle_ref(x, r):
    n, c, h, w = x.shape
    out = np.zeros((n, c * r * r, h // r, w // r))
    for oc, i, j in itertools.product(range(c * r * r), range(h // r), range(w // r)):
        ch, k = divmod(oc, r * r)
        out[:, oc, i, j] = x[:, ch, i * r + k // r, j * r + k % r]
    return out


def channel_shuffle_ref(x, g):
    c = x.shape[1]
    return x[:, [grp * (c // g) + i for i in range(c // g) for grp in range(g)]]


def shift_ref(x, seg, ratio):
    nt, c = x.shape[:2]
    out = np.zeros_like(x)
    c1, c2 = int(c * ratio), int(c * 2 * ratio)
    for i, ch in itertools.product(range(nt), range(c)):
        t = i % seg
        src = t - 1 if ch < c1 else t + 1 if ch < c2 else t
        if 0 <= src < seg:
            out[i, ch] = x[i - t + src, ch]
    return out


def diag_ref(v, offset, dim1, dim2):
    rank = v.ndim + 1
    n = v.shape[-1] + abs(offset)
    d1, d2 = dim1 % rank, dim2 % rank
    shape = list(v.shape[:-1])
    for d in sorted((d1, d2)):
        shape.insert(d, n)
    out = np.zeros(shape)
    for lead in itertools.product(*[range(s) for s in v.shape[:-1]]):
        for k in range(v.shape[-1]):
            r, q = (k, k + offset) if offset >= 0 else (k - offset, k)
            idx = list(lead)
            for d, val in sorted(((d1, r), (d2, q))):
                idx.insert(d, val)
            out[tuple(idx)] = v[lead + (k,)]
    return out


def attention_ref(q, k, v, mask=None, causal=False, scale=None):
    q, k, v = (np.swapaxes(t, 1, 2) for t in (q, k, v))  # [B, H, L, D]
    rep = q.shape[1] // k.shape[1]
    k, v = np.repeat(k, rep, axis=1), np.repeat(v, rep, axis=1)
    s = q @ np.swapaxes(k, -1, -2) * (scale or q.shape[-1] ** -0.5)
    if causal:
        s = s + np.triu(np.full(s.shape[-2:], -1e4), 1)
    elif mask is not None:
        s = s + mask
    e = np.exp(s - s.max(-1, keepdims=True))
    return np.swapaxes(e / e.sum(-1, keepdims=True) @ v, 1, 2)


X4 = R.uniform(-1, 1, (2, 8, 3, 2))
GRID = R.uniform(-1.3, 1.3, (2, 3, 4, 2))
IMG = R.uniform(-1, 1, (2, 2, 4, 5))
Q, K, V = (R.uniform(-1, 1, (2, 5, 4, 3)) for _ in range(3))
K2, V2 = R.uniform(-1, 1, (2, 6, 2, 3)), R.uniform(-1, 1, (2, 6, 2, 3))
MASK = R.uniform(-1, 0, (2, 4, 5, 6))

CASES = [
    # (id, call, inputs, numpy reference, op type, attributes)
    ("affine_grid", lambda t: F.affine_grid(t, [2, 1, 3, 4]), [R.uniform(-1, 1, (2, 2, 3))],
     lambda t: affine_ref(t, [2, 1, 3, 4]), "affine_grid",
     {"output_shape": [2, 1, 3, 4], "align_corners": True}),
    ("affine_grid_centers", lambda t: F.affine_grid(t, [1, 3, 5, 2], align_corners=False),
     [R.uniform(-1, 1, (1, 2, 3))], lambda t: affine_ref(t, [1, 3, 5, 2], False), "affine_grid",
     {"align_corners": False}),
    ("grid_sample", F.grid_sample, [IMG, GRID], sample_ref, "grid_sampler",
     {"mode": "bilinear", "padding_mode": "zeros", "align_corners": True}),
    ("grid_sample_border", lambda x, g: F.grid_sample(x, g, padding_mode="border",
                                                      align_corners=False), [IMG, GRID],
     lambda x, g: sample_ref(x, g, padding_mode="border", align_corners=False), "grid_sampler",
     {"padding_mode": "border"}),
    ("grid_sample_reflection", lambda x, g: F.grid_sample(x, g, padding_mode="reflection"),
     [IMG, GRID * 1.5], lambda x, g: sample_ref(x, g, padding_mode="reflection"),
     "grid_sampler", {"padding_mode": "reflection"}),
    ("grid_sample_reflection_centers", lambda x, g: F.grid_sample(
        x, g, padding_mode="reflection", align_corners=False), [IMG, GRID * 1.5],
     lambda x, g: sample_ref(x, g, padding_mode="reflection", align_corners=False),
     "grid_sampler", {"align_corners": False}),
    ("pixel_shuffle", lambda x: F.pixel_shuffle(x, 2), [X4], lambda x: shuffle_ref(x, 2),
     "pixel_shuffle", {"upscale_factor": 2, "data_format": "NCHW"}),
    ("pixel_shuffle_nhwc", lambda x: F.pixel_shuffle(x, 2, "NHWC"),
     [np.moveaxis(X4, 1, -1).copy()],
     lambda x: np.moveaxis(shuffle_ref(np.moveaxis(x, -1, 1), 2), 1, -1), "pixel_shuffle",
     {"data_format": "NHWC"}),
    ("pixel_unshuffle", lambda x: F.pixel_unshuffle(x, 2), [R.uniform(-1, 1, (1, 2, 4, 6))],
     lambda x: unshuffle_ref(x, 2), "pixel_unshuffle", {"downscale_factor": 2}),
    ("channel_shuffle", lambda x: F.channel_shuffle(x, 4), [X4],
     lambda x: channel_shuffle_ref(x, 4), "channel_shuffle", {"groups": 4}),
    ("temporal_shift", lambda x: F.temporal_shift(x, 2, 0.25), [R.uniform(-1, 1, (4, 8, 2, 2))],
     lambda x: shift_ref(x, 2, 0.25), "temporal_shift", {"seg_num": 2}),
    ("temporal_shift_nhwc", lambda x: F.temporal_shift(x, 3, 0.2, data_format="NHWC"),
     [R.uniform(-1, 1, (3, 2, 2, 10))],
     lambda x: np.moveaxis(shift_ref(np.moveaxis(x, -1, 1), 3, 0.2), 1, -1), "temporal_shift",
     {"data_format": "NHWC"}),
    ("diag_embed", F.diag_embed, [R.uniform(-1, 1, (2, 3))], lambda v: diag_ref(v, 0, -2, -1),
     "diag_embed", {"offset": 0}),
    ("diag_embed_offset", lambda v: F.diag_embed(v, -1, 0, 2), [R.uniform(-1, 1, (2, 3))],
     lambda v: diag_ref(v, -1, 0, 2), "diag_embed", {"offset": -1, "dim1": 0, "dim2": 2}),
    ("sdpa", F.scaled_dot_product_attention, [Q, K, V], attention_ref, "transpose2", {}),
    ("sdpa_causal_gqa", lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
     [Q[:, :6], K2, V2], lambda q, k, v: attention_ref(q, k, v, causal=True), "transpose2", {}),
    ("sdpa_mask_scale", lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, m,
                                                                          scale=0.3),
     [Q, K2[:, :, :1].repeat(4, 2), V2[:, :, :1].repeat(4, 2), MASK],
     lambda q, k, v, m: attention_ref(q, k, v, m, scale=0.3), "transpose2", {}),
]
IDS = [c[0] for c in CASES]


@pytest.mark.parametrize("name, call, inputs, ref, op_type, attrs", CASES, ids=IDS)
def test_static_op_and_values(name, call, inputs, ref, op_type, attrs):
    (out,), ops = run_static(call, [a.astype(np.float32) for a in inputs])
    assert ops[-1].type == op_type
    for key, value in attrs.items():
        assert ops[-1].attr(key) == value, key
    np.testing.assert_allclose(out, ref(*inputs), rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("name, call, inputs, ref, op_type, attrs", CASES, ids=IDS)
def test_eager_values_and_gradients(name, call, inputs, ref, op_type, attrs):
    grad_of = tuple(range(len(inputs)))
    (out,), grads = run_eager(call, inputs, grad_of=grad_of)
    np.testing.assert_allclose(out, ref(*inputs), rtol=1e-9, atol=1e-10)
    for i, g in zip(grad_of, grads):
        np.testing.assert_allclose(g, numeric_grad(ref, inputs, i), rtol=1e-5, atol=1e-7,
                                   err_msg=f"input {i}")


def test_grid_sample_nearest():
    grid = np.array([[[[-0.9, -0.8], [0.3, 0.45]], [[0.8, -0.1], [2.0, 0.2]]]])
    (out,), ops = run_static(lambda x, g: F.grid_sample(x, g, mode="nearest"),
                             [IMG[:1].astype(np.float32), grid.astype(np.float32)])
    assert ops[-1].attr("mode") == "nearest"
    np.testing.assert_allclose(out, sample_ref(IMG[:1], grid, "nearest"), rtol=1e-6)


def test_sdpa_boolean_mask_and_unbatched():
    keep = R.uniform(0, 1, (5, 6)) > 0.3
    keep[:, 0] = True
    q, k, v = Q[0], K2[0, :, :1].repeat(4, 1), V2[0, :, :1].repeat(4, 1)
    (out,), _ = run_eager(lambda a, b, c, m: F.scaled_dot_product_attention(a, b, c, m),
                          [q, k, v, keep])
    want = attention_ref(q[None], k[None], v[None], np.where(keep, 0.0, -np.inf))[0]
    np.testing.assert_allclose(out, want, rtol=1e-9)
    with F.sdp_kernel(enable_math=True):
        (again,), _ = run_eager(F.scaled_dot_product_attention, [Q, K, V])
    np.testing.assert_allclose(again, attention_ref(Q, K, V), rtol=1e-9)


def test_gather_tree_and_sequence_mask():
    ids = np.array([[[2, 2], [6, 1]], [[3, 9], [6, 1]], [[0, 1], [9, 0]]])
    parents = np.array([[[0, 0], [1, 1]], [[1, 0], [1, 0]], [[0, 0], [0, 1]]])
    (out,), ops = run_static(F.gather_tree, [ids, parents])
    assert ops[-1].type == "gather_tree"
    want = np.zeros_like(ids)
    for b, k in itertools.product(range(2), range(2)):
        beam = k
        for t in range(2, -1, -1):
            want[t, b, k] = ids[t, b, beam]
            beam = parents[t, b, beam]
    np.testing.assert_array_equal(out, want)
    lengths = np.array([[1, 3], [0, 2]])
    (mask,), ops = run_static(lambda t: F.sequence_mask(t, 4, "float32"), [lengths])
    assert ops[-1].type == "sequence_mask" and ops[-1].attr("maxlen") == 4
    np.testing.assert_array_equal(mask, (np.arange(4) < lengths[..., None]).astype(np.float32))
    (mask,), _ = run_eager(F.sequence_mask, [lengths])
    assert mask.dtype == np.int64 and mask.shape == (2, 2, 3)


@pytest.mark.parametrize("call, match", [
    (lambda x: F.affine_grid(x, [1, 2, 3]), "out_shape must be"),
    (lambda x: F.grid_sample(x, x, mode="bicubic"), "mode must be"),
    (lambda x: F.grid_sample(x, x, padding_mode="wrap"), "padding_mode must be"),
    (lambda x: F.grid_sample(x, x, align_corners=1), "align_corners must be a bool"),
    (lambda x: F.pixel_shuffle(x, 3), "not divisible by upscale_factor"),
    (lambda x: F.pixel_shuffle(x, 2, "NWHC"), "data_format must be"),
    (lambda x: F.pixel_unshuffle(x, 4), "must be divisible by downscale_factor"),
    (lambda x: F.channel_shuffle(x, 3), "not divisible by groups"),
    (lambda x: F.channel_shuffle(x, 0), "groups must be a positive int"),
    (lambda x: F.temporal_shift(x, 3), "multiple of seg_num"),
    (lambda x: F.temporal_shift(x, 2, 0.7), "shift_ratio must be"),
    (lambda x: F.diag_embed(x, 0, 1, 1), "must differ"),
    (lambda x: F.diag_embed(x, 0, 7, 1), "must be in"),
    (lambda x: F.scaled_dot_product_attention(x, x[:, :, :3], x[:, :, :3]), "multiple of key"),
    (lambda x: F.scaled_dot_product_attention(x, x[:, :, :2], x[:, :, :2], enable_gqa=False),
     "must match without GQA"),
    (lambda x: F.sdp_kernel(False, False, False).__enter__(), "at least one backend"),
])
def test_refusals(call, match):
    x = pyir.static.data("x", [4, 8, 4, 6], "float32")
    with pytest.raises(BuildError, match=match):
        call(x)


def test_flash_attn_qkvpacked_math_backend():
    qkv = R.uniform(-1, 1, (2, 5, 4, 2, 3))  # 2 query heads per key head: H = 4, Hk = 2
    q = qkv[:, :, :-2].reshape(2, 5, 4, 3)
    (out, weights), ops = run_static(lambda t: F.flash_attn_qkvpacked(t, causal=True,
                                                                      return_softmax=True),
                                     [qkv.astype(np.float32)])
    np.testing.assert_allclose(out, attention_ref(q, qkv[:, :, -2], qkv[:, :, -1], causal=True),
                               rtol=1e-5, atol=1e-6)
    assert weights.shape == (2, 4, 5, 5)
    np.testing.assert_allclose(weights.sum(-1), 1, rtol=1e-5)
    ref = lambda t: attention_ref(t[:, :, :-2].reshape(2, 5, 4, 3), t[:, :, -2],  # noqa: E731
                                  t[:, :, -1])
    (out,), (grad,) = run_eager(lambda t: F.flash_attn_qkvpacked(t)[0], [qkv], grad_of=(0,))
    np.testing.assert_allclose(out, ref(qkv), rtol=1e-9)
    np.testing.assert_allclose(grad, numeric_grad(ref, [qkv], 0), rtol=1e-6, atol=1e-9)
    with pytest.raises(BuildError, match="qkv must be 5-D"):
        F.flash_attn_qkvpacked(pyir.static.data("x", [2, 5, 3], "float32"))


@pytest.mark.parametrize("name", ["sparse_attention", "flashmask_attention", "moe_permute"])
def test_left_out_say_why(name):
    with pytest.raises(NotImplementedError, match="pyir does not support"):
        getattr(F, name)(None)
