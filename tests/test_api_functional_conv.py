"""paddle.nn.functional convolutions: ops and attributes as Paddle emits them, values in
static and eager mode against a direct-loop numpy convolution, gradients against finite
differences, refusals."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import pyir
import pyir.nn.functional as F
from pyir.errors import BuildError

from functional_check import numeric_grad, run_eager, run_static

R = np.random.default_rng(5)


def conv_ref(x, w, stride, pads, dilation, groups):
    """Channels-first N-d convolution by direct loops over output cells."""
    nd = x.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + list(pads))
    o, cg = w.shape[:2]
    k = w.shape[2:]
    outs = [(xp.shape[2 + i] - dilation[i] * (k[i] - 1) - 1) // stride[i] + 1 for i in range(nd)]
    out = np.zeros((x.shape[0], o, *outs))
    per = o // groups
    for oc in range(o):
        c0 = (oc // per) * cg
        for idx in itertools.product(*[range(n) for n in outs]):
            sl = tuple(slice(i * s, i * s + d * (kk - 1) + 1, d)
                       for i, s, d, kk in zip(idx, stride, dilation, k))
            patch = xp[(slice(None), slice(c0, c0 + cg)) + sl]
            out[(slice(None), oc) + idx] = (patch * w[oc]).reshape(x.shape[0], -1).sum(1)
    return out


def convt_ref(x, w, stride, pads, dilation, groups, out_sizes):
    """Channels-first N-d transposed convolution by scattering each input cell."""
    nd = x.ndim - 2
    cin, og = w.shape[:2]
    k = w.shape[2:]
    big = [max((x.shape[2 + i] - 1) * stride[i] + dilation[i] * (k[i] - 1) + 1,
               pads[i][0] + out_sizes[i]) for i in range(nd)]
    full = np.zeros((x.shape[0], og * groups, *big))
    per = cin // groups
    for c in range(cin):
        o0 = (c // per) * og
        for idx in itertools.product(*[range(n) for n in x.shape[2:]]):
            sl = tuple(slice(i * s, i * s + d * (kk - 1) + 1, d)
                       for i, s, d, kk in zip(idx, stride, dilation, k))
            full[(slice(None), slice(o0, o0 + og)) + sl] += \
                x[(slice(None), c) + idx].reshape((-1, 1) + (1,) * nd) * w[c]
    crop = tuple(slice(p[0], p[0] + n) for p, n in zip(pads, out_sizes))
    return full[(slice(None), slice(None)) + crop]


def _last(a):
    return np.moveaxis(a, 1, -1)


def _first(a):
    return np.moveaxis(a, -1, 1)


X1 = R.uniform(-1, 1, (2, 4, 7))
W1 = R.uniform(-1, 1, (6, 2, 3))
X2 = R.uniform(-1, 1, (2, 3, 6, 5))
W2 = R.uniform(-1, 1, (4, 3, 3, 2))
WD = R.uniform(-1, 1, (6, 1, 3, 3))
X3 = R.uniform(-1, 1, (1, 2, 4, 3, 4))
W3 = R.uniform(-1, 1, (3, 2, 2, 2, 2))
B4, B6, B3 = R.uniform(-1, 1, 4), R.uniform(-1, 1, 6), R.uniform(-1, 1, 3)
WT2 = R.uniform(-1, 1, (3, 2, 3, 3))
WT1 = R.uniform(-1, 1, (4, 3, 3))
WT3 = R.uniform(-1, 1, (2, 2, 2, 2, 2))

CASES = [
    # (id, call, inputs, numpy reference, op type, attributes)
    ("conv2d", lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=1), [X2, W2, B4],
     lambda x, w, b: conv_ref(x, w, (2, 1), [(1, 1), (1, 1)], (1, 1), 1)
     + b[None, :, None, None], "elementwise_add", {"strides": [2, 1], "paddings": [1, 1]}),
    ("conv2d_asym_dilation", lambda x, w: F.conv2d(x, w, padding=[0, 1, 2, 0], dilation=2),
     [X2, W2], lambda x, w: conv_ref(x, w, (1, 1), [(0, 1), (2, 0)], (2, 2), 1), "conv2d",
     {"paddings": [0, 1, 2, 0], "dilations": [2, 2]}),
    ("conv2d_pairs", lambda x, w: F.conv2d(x, w, padding=[[0, 0], [0, 0], [1, 1], [2, 2]]),
     [X2, W2], lambda x, w: conv_ref(x, w, (1, 1), [(1, 1), (2, 2)], (1, 1), 1), "conv2d",
     {"paddings": [1, 2], "padding_algorithm": "EXPLICIT"}),
    ("conv2d_same", lambda x, w: F.conv2d(x, w, stride=2, padding="same"), [X2, W2],
     lambda x, w: conv_ref(x, w, (2, 2), [(0, 1), (0, 1)], (1, 1), 1), "conv2d",
     {"padding_algorithm": "SAME"}),
    ("conv2d_valid_nhwc", lambda x, w, b: F.conv2d(x, w, b, padding="VALID",
                                                   data_format="NHWC"),
     [_last(X2), W2, B4], lambda x, w, b: _last(conv_ref(_first(x), w, (1, 1), [(0, 0)] * 2,
                                                         (1, 1), 1)) + b,
     "elementwise_add", {"padding_algorithm": "VALID", "data_format": "NHWC"}),
    ("conv2d_groups", lambda x, w: F.conv2d(x, w, groups=2), [X2[:, :2].repeat(2, 1), W2[:2, :2]
                                                              .repeat(2, 0)],
     lambda x, w: conv_ref(x, w, (1, 1), [(0, 0)] * 2, (1, 1), 2), "conv2d", {"groups": 2}),
    ("depthwise", lambda x, w, b: F.conv2d(x, w, b, padding=1, groups=3), [X2, WD, B6],
     lambda x, w, b: conv_ref(x, w, (1, 1), [(1, 1)] * 2, (1, 1), 3) + b[None, :, None, None],
     "elementwise_add", {"groups": 3}),
    ("conv1d", lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1, groups=2), [X1, W1, B6],
     lambda x, w, b: conv_ref(x, w, (2,), [(1, 1)], (1,), 2) + b[None, :, None], "squeeze2",
     {}),
    ("conv1d_nlc", lambda x, w: F.conv1d(x, w, padding=[2, 0], dilation=2, groups=2,
                                         data_format="NLC"), [_last(X1), W1],
     lambda x, w: _last(conv_ref(_first(x), w, (1,), [(2, 0)], (2,), 2)), "squeeze2", {}),
    ("conv3d", lambda x, w, b: F.conv3d(x, w, b, stride=[1, 2, 1], padding=[1, 0, 1]),
     [X3, W3, B3], lambda x, w, b: conv_ref(x, w, (1, 2, 1), [(1, 1), (0, 0), (1, 1)],
                                            (1, 1, 1), 1) + b[None, :, None, None, None],
     "elementwise_add", {"strides": [1, 2, 1], "paddings": [1, 0, 1]}),
    ("conv3d_ndhwc_same", lambda x, w: F.conv3d(x, w, padding="SAME", stride=2,
                                                data_format="NDHWC"), [_last(X3), W3],
     lambda x, w: _last(conv_ref(_first(x), w, (2, 2, 2), [(0, 1), (0, 1), (0, 1)], (1, 1, 1),
                                 1)), "conv3d", {"data_format": "NDHWC"}),
    ("conv2d_transpose", lambda x, w, b: F.conv2d_transpose(x, w, b, stride=2, padding=1,
                                                            output_padding=1),
     [X2, WT2, R.uniform(-1, 1, 2)], lambda x, w, b: convt_ref(
         x, w, (2, 2), [(1, 1)] * 2, (1, 1), 1, (12, 10)) + b[None, :, None, None],
     "elementwise_add", {}),
    ("conv2d_transpose_size", lambda x, w: F.conv2d_transpose(x, w, stride=2, dilation=2,
                                                              output_size=[15, 13]),
     [X2, WT2], lambda x, w: convt_ref(x, w, (2, 2), [(0, 0)] * 2, (2, 2), 1, (15, 13)),
     "conv2d_transpose", {"output_size": [15, 13], "dilations": [2, 2]}),
    ("depthwise_transpose", lambda x, w: F.conv2d_transpose(x, w, stride=2, groups=3),
     [X2, WD[:3]], lambda x, w: convt_ref(x, w, (2, 2), [(0, 0)] * 2, (1, 1), 3, (13, 11)),
     "depthwise_conv2d_transpose", {"groups": 3}),
    ("conv1d_transpose", lambda x, w, b: F.conv1d_transpose(x, w, b, stride=3, padding=1,
                                                            output_padding=1, groups=2),
     [X1, WT1, B6], lambda x, w, b: convt_ref(x, w, (3,), [(1, 1)], (1,), 2, (20,))
     + b[None, :, None], "squeeze2", {}),
    ("conv3d_transpose", lambda x, w: F.conv3d_transpose(x, w, stride=2, padding=[1, 0, 0]),
     [X3, WT3], lambda x, w: convt_ref(x, w, (2, 2, 2), [(1, 1), (0, 0), (0, 0)], (1, 1, 1), 1,
                                       (6, 6, 8)), "conv3d_transpose",
     {"data_format": "NCHW", "strides": [2, 2, 2]}),
]
IDS = [c[0] for c in CASES]


@pytest.mark.parametrize("name, call, inputs, ref, op_type, attrs", CASES, ids=IDS)
def test_static_op_and_values(name, call, inputs, ref, op_type, attrs):
    (out,), ops = run_static(call, [a.astype(np.float32) for a in inputs])
    op = ops[-1]
    assert op.type == op_type
    conv = next(o for o in ops if "conv" in o.type)
    assert conv.type == (op_type if "conv" in op_type else conv.type)
    for key, value in attrs.items():
        assert conv.attr(key) == value, key
    np.testing.assert_allclose(out, ref(*inputs), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name, call, inputs, ref, op_type, attrs", CASES, ids=IDS)
def test_eager_values_and_gradients(name, call, inputs, ref, op_type, attrs):
    grad_of = tuple(range(len(inputs)))
    (out,), grads = run_eager(call, inputs, grad_of=grad_of)
    np.testing.assert_allclose(out, ref(*inputs), rtol=1e-9, atol=1e-10)
    for i, g in zip(grad_of, grads):
        np.testing.assert_allclose(g, numeric_grad(ref, inputs, i), rtol=1e-6, atol=1e-7,
                                   err_msg=f"input {i}")


def test_conv1d_emits_paddles_ops():
    _, ops = run_static(lambda x, w, b: F.conv1d(x, w, b, padding=1), [
        X1.astype(np.float32), R.uniform(-1, 1, (3, 4, 3)).astype(np.float32),
        np.zeros(3, np.float32)])
    assert [o.type for o in ops] == ["assign", "unsqueeze2", "unsqueeze2", "conv2d",
                                     "elementwise_add", "squeeze2"]
    conv = ops[3]
    assert conv.attr("paddings") == [0, 1] and conv.attr("strides") == [1, 1]
    assert ops[4].attr("axis") == 1


@pytest.mark.parametrize("call, match", [
    (lambda x, w: F.conv2d(x, w, data_format="NCWH"), "data_format must be NCHW or NHWC"),
    (lambda x, w: F.conv2d(x, w, padding="FULL"), "padding must be 'SAME', 'VALID'"),
    (lambda x, w: F.conv2d(x, w, padding=[1, 2, 3]), "padding must be"),
    (lambda x, w: F.conv2d(x, w, padding=-1), "padding must be >= 0"),
    (lambda x, w: F.conv2d(x, w, padding=[[1, 1], [0, 0], [1, 1], [1, 1]]), "batch and channel"),
    (lambda x, w: F.conv2d(x, w, groups=2), "not divisible by groups"),
    (lambda x, w: F.conv2d(x, w, groups=0), "groups must be positive"),
    (lambda x, w: F.conv2d(x, w, stride=[1, 2, 3]), "stride must be"),
    (lambda x, w: F.conv1d(x, w), "x must be 3-D"),
    (lambda x, w: F.conv3d(x, w), "x must be 5-D"),
    (lambda x, w: F.conv2d_transpose(x, w, output_padding=1, output_size=[5, 5]),
     "cannot both be given"),
    (lambda x, w: F.conv2d_transpose(x, w, stride=1, output_padding=2),
     "must not be greater than stride"),
])
def test_refusals(call, match):
    x = pyir.static.data("x", [2, 3, 6, 5], "float32")
    w = pyir.static.data("w", [4, 3, 3, 3], "float32")
    with pytest.raises(BuildError, match=match):
        call(x, w)
