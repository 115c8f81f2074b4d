"""paddle.nn.functional common and input layers: linear, bilinear, dropouts, pad,
interpolate, cosine_similarity, unfold / fold, label_smooth, one_hot, embedding - ops Paddle
emits, values (static and eager) against numpy, gradients, randomness, refusals."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import pyir
import pyir.nn.functional as F
from pyir.errors import BuildError

from functional_check import numeric_grad, run_eager, run_static

R = np.random.default_rng(31)
X2 = R.uniform(-1, 1, (4, 3))
X4 = R.uniform(-1, 1, (2, 3, 4, 5))
X3 = R.uniform(-1, 1, (2, 3, 5))
X5 = R.uniform(-1, 1, (1, 2, 3, 2, 4))


def _src_linear(i, n_in, n_out, align_corners, align_mode, scale=None):
    if align_corners:
        return i * (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    ratio = 1 / scale if scale else n_in / n_out
    return max((i + 0.5) * ratio - 0.5, 0.0) if align_mode == 0 else i * ratio


def linear_resize(x, out_sizes, align_corners=False, align_mode=0, scales=None):
    """Separable linear resampling of the trailing len(out_sizes) axes by per-point loops."""
    y = x
    n = len(out_sizes)
    for k, n_out in enumerate(out_sizes):
        axis = x.ndim - n + k
        y = np.moveaxis(y, axis, -1)
        n_in = y.shape[-1]
        res = np.zeros(y.shape[:-1] + (n_out,))
        for i in range(n_out):
            src = _src_linear(i, n_in, n_out, align_corners, align_mode,
                              scales[k] if scales else None)
            lo = min(int(src), n_in - 1)
            hi = min(lo + 1, n_in - 1)
            t = src - lo
            res[..., i] = y[..., lo] * (1 - t) + y[..., hi] * t
        y = np.moveaxis(res, -1, axis)
    return y


def nearest_resize(x, out_sizes, scales=None):
    y = x
    for k, n_out in enumerate(out_sizes):
        axis = x.ndim - len(out_sizes) + k
        n_in = y.shape[axis]
        ratio = 1 / scales[k] if scales else n_in / n_out
        idx = [min(int(math.floor(i * ratio)), n_in - 1) for i in range(n_out)]
        y = np.take(y, idx, axis=axis)
    return y


def cubic_resize(x, out_h, out_w, align_corners=False):
    a = -0.75

    def weights(n_in, n_out, i):
        src = i * (n_in - 1) / (n_out - 1) if align_corners else (i + 0.5) * n_in / n_out - 0.5
        base = math.floor(src)
        t = src - base
        ws = [((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a,
              ((a + 2) * t - (a + 3)) * t * t + 1,
              ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1,
              ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a]
        return [(min(max(base - 1 + j, 0), n_in - 1), ws[j]) for j in range(4)]

    h, w = x.shape[-2:]
    out = np.zeros(x.shape[:-2] + (out_h, out_w))
    for i, j in itertools.product(range(out_h), range(out_w)):
        for (r, wr), (q, wq) in itertools.product(weights(h, out_h, i), weights(w, out_w, j)):
            out[..., i, j] += wr * wq * x[..., r, q]
    return out


def pad_ref(x, pads_last_first, mode, value=0.0):
    """np.pad of the trailing axes; pads given last axis first, (before, after) pairs."""
    pairs = [(pads_last_first[2 * i], pads_last_first[2 * i + 1])
             for i in range(len(pads_last_first) // 2)][::-1]
    width = [(0, 0)] * (x.ndim - len(pairs)) + pairs
    kind = {"constant": "constant", "reflect": "reflect", "replicate": "edge",
            "circular": "wrap"}[mode]
    return np.pad(x, width, kind, **({"constant_values": value} if mode == "constant" else {}))


CASES = [
    # (id, call, inputs, numpy reference, op type, attributes)
    ("linear", F.linear, [X2, R.uniform(-1, 1, (3, 5)), R.uniform(-1, 1, 5)],
     lambda x, w, b: x @ w + b, "elementwise_add", {"axis": -1}),
    ("linear_nobias", F.linear, [X4, R.uniform(-1, 1, (5, 2))], lambda x, w: x @ w,
     "matmul_v2", {"trans_x": False, "trans_y": False}),
    ("bilinear", F.bilinear, [X2, R.uniform(-1, 1, (4, 2)), R.uniform(-1, 1, (5, 3, 2)),
                              R.uniform(-1, 1, (1, 5))],
     lambda a, b, w, c: np.einsum("bi,kij,bj->bk", a, w, b) + c, "bilinear_tensor_product", {}),
    ("dropout_eval", lambda x: F.dropout(x, 0.3, training=False), [X4], lambda x: x,
     "dropout", {"is_test": True, "dropout_implementation": "upscale_in_train"}),
    ("dropout_eval_downscale", lambda x: F.dropout(x, 0.3, training=False,
                                                   mode="downscale_in_infer"),
     [X4], lambda x: x * 0.7, "dropout", {"dropout_implementation": "downgrade_in_infer"}),
    ("dropout_axis_eval", lambda x: F.dropout(x, 0.25, axis=1, training=False,
                                              mode="downscale_in_infer"), [X4],
     lambda x: x * 0.75, "scale", {}),
    ("alpha_dropout_eval", lambda x: F.alpha_dropout(x, 0.5, training=False), [X4],
     lambda x: x, None, {}),
    ("pad_constant_all", lambda x: F.pad(x, [0, 0, 1, 0, 0, 2, 1, 1], value=0.5), [X4],
     lambda x: np.pad(x, [(0, 0), (1, 0), (0, 2), (1, 1)], constant_values=0.5), "pad",
     {"paddings": [0, 0, 1, 0, 0, 2, 1, 1], "pad_value": 0.5}),
    ("pad_constant_right_axes", lambda x: F.pad(x, [1, 2, 0, 1, 1, 1, 0, 0],
                                                pad_from_left_axis=False), [X4],
     lambda x: pad_ref(x, [1, 2, 0, 1, 1, 1, 0, 0], "constant"), "pad",
     {"paddings": [0, 0, 1, 1, 0, 1, 1, 2]}),
    ("pad_constant_short", lambda x: F.pad(x, [1, 2]), [X2],
     lambda x: np.pad(x, [(0, 0), (1, 2)]), "pad", {"paddings": [0, 0, 1, 2]}),
    ("pad_reflect", lambda x: F.pad(x, [1, 2, 2, 1], "reflect"), [X4],
     lambda x: pad_ref(x, [1, 2, 2, 1], "reflect"), "squeeze2", {}),
    ("pad_replicate_nhwc", lambda x: F.pad(x, [1, 0, 0, 2], "replicate", data_format="NHWC"),
     [np.moveaxis(X4, 1, -1).copy()],
     lambda x: np.moveaxis(pad_ref(np.moveaxis(x, -1, 1), [1, 0, 0, 2], "replicate"), 1, -1),
     "squeeze2", {}),
    ("pad_circular_1d", lambda x: F.pad(x, [2, 1], "circular"), [X3],
     lambda x: pad_ref(x, [2, 1], "circular"), "squeeze2", {}),
    ("pad_constant_3d", lambda x: F.pad(x, [1, 0, 0, 1, 1, 1], value=2.0), [X5],
     lambda x: pad_ref(x, [1, 0, 0, 1, 1, 1], "constant", 2.0), "pad3d",
     {"mode": "constant", "data_format": "NCDHW", "paddings": [1, 0, 0, 1, 1, 1]}),
    ("zeropad2d", lambda x: F.zeropad2d(x, [1, 2, 0, 1]), [X4],
     lambda x: pad_ref(x, [1, 2, 0, 1], "constant"), "squeeze2", {}),
    ("nearest", lambda x: F.interpolate(x, size=[7, 3]), [X4],
     lambda x: nearest_resize(x, [7, 3]), "nearest_interp_v2",
     {"out_h": 7, "out_w": 3, "align_corners": False, "interp_method": "nearest"}),
    ("nearest_scale", lambda x: F.interpolate(x, scale_factor=2), [X4],
     lambda x: nearest_resize(x, [8, 10], [2, 2]), "nearest_interp_v2", {"scale": [2.0, 2.0]}),
    ("bilinear_default", lambda x: F.interpolate(x, size=[6, 7], mode="bilinear"), [X4],
     lambda x: linear_resize(x, [6, 7]), "bilinear_interp_v2",
     {"align_corners": False, "align_mode": 0}),
    ("bilinear_corners", lambda x: F.interpolate(x, size=[3, 8], mode="bilinear",
                                                 align_corners=True), [X4],
     lambda x: linear_resize(x, [3, 8], True), "bilinear_interp_v2", {"align_corners": True}),
    ("bilinear_mode1_nhwc", lambda x: F.upsample(x, scale_factor=[1.5, 2], mode="bilinear",
                                                 align_mode=1, data_format="NHWC"),
     [np.moveaxis(X4, 1, -1).copy()],
     lambda x: np.moveaxis(linear_resize(np.moveaxis(x, -1, 1), [6, 10], False, 1,
                                         [1.5, 2]), 1, -1),
     "bilinear_interp_v2", {"data_layout": "NHWC", "scale": [1.5, 2.0]}),
    ("linear_1d", lambda x: F.interpolate(x, size=[8], mode="linear"), [X3],
     lambda x: linear_resize(x, [8]), "linear_interp_v2", {"out_w": 8}),
    ("trilinear", lambda x: F.interpolate(x, size=[4, 3, 6], mode="trilinear",
                                          align_corners=True), [X5],
     lambda x: linear_resize(x, [4, 3, 6], True), "trilinear_interp_v2",
     {"out_d": 4, "out_h": 3, "out_w": 6}),
    ("bicubic", lambda x: F.interpolate(x, size=[6, 4], mode="bicubic"), [X4],
     lambda x: cubic_resize(x, 6, 4), "bicubic_interp_v2", {"interp_method": "bicubic"}),
    ("bicubic_corners", lambda x: F.interpolate(x, size=[3, 7], mode="bicubic",
                                                align_corners=True), [X4],
     lambda x: cubic_resize(x, 3, 7, True), "bicubic_interp_v2", {}),
    ("area", lambda x: F.interpolate(x, size=[2, 3], mode="area"), [X4],
     lambda x: np.stack([np.stack([x[:, :, i * 4 // 2:-(-(i + 1) * 4 // 2),
                                     j * 5 // 3:-(-(j + 1) * 5 // 3)].mean((2, 3))
                                   for j in range(3)], -1) for i in range(2)], -2),
     "pool2d", {"adaptive": True}),
    ("cosine_similarity", F.cosine_similarity, [X4, R.uniform(-1, 1, (2, 3, 4, 5))],
     lambda a, b: (a * b).sum(1) / np.sqrt(((a * a).sum(1) * (b * b).sum(1))), "elementwise_div",
     {}),
    ("cosine_similarity_broadcast", lambda a, b: F.cosine_similarity(a, b, axis=-1),
     [X2, R.uniform(-1, 1, (1, 3))],
     lambda a, b: (a * b).sum(-1) / np.sqrt((a * a).sum(-1) * (b * b).sum(-1)),
     "elementwise_div", {}),
    ("unfold", lambda x: F.unfold(x, [2, 3], strides=[1, 2], paddings=1, dilations=[2, 1]),
     [X4], None, "unfold", {"kernel_sizes": [2, 3], "paddings": [1, 1, 1, 1]}),
    ("fold_of_unfold", lambda x: F.fold(F.unfold(x, 2, paddings=[1, 0]), [4, 5], 2,
                                        paddings=[1, 0]), [X4], None, "fold",
     {"output_sizes": [4, 5], "paddings": [1, 0, 1, 0]}),
    ("label_smooth", lambda x: F.label_smooth(x, epsilon=0.2), [np.eye(4)[[0, 2, 1]]],
     lambda x: 0.8 * x + 0.2 / 4, "label_smooth", {"epsilon": pytest.approx(0.2)}),
    ("label_smooth_prior", lambda x, p: F.label_smooth(x, p, 0.1),
     [np.eye(4)[[3, 2]], np.array([[0.1, 0.2, 0.3, 0.4]])],
     lambda x, p: 0.9 * x + 0.1 * p, "label_smooth", {}),
]
IDS = [c[0] for c in CASES]


def _unfold_ref(x):
    n, c, h, w = x.shape
    xp = np.pad(x, [(0, 0), (0, 0), (1, 1), (1, 1)])
    cols = []
    for i in range(0, h + 2 - 3 + 1, 1):
        for j in range(0, w + 2 - 3 + 1, 2):
            cols.append(xp[:, :, i:i + 3:2, j:j + 3].reshape(n, -1))
    return np.stack(cols, -1)


def _fold_unfold_ref(x):
    counts = np.zeros((4, 5))
    for i in range(0, 4 + 2 - 2 + 1):
        for j in range(0, 5 - 2 + 1):
            counts[max(i - 1, 0):min(i + 1, 4), j:j + 2] += 1
    return x * counts


REFS = {"unfold": _unfold_ref, "fold_of_unfold": _fold_unfold_ref}


@pytest.mark.parametrize("name, call, inputs, ref, op_type, attrs", CASES, ids=IDS)
def test_static_op_and_values(name, call, inputs, ref, op_type, attrs):
    ref = ref or REFS[name]
    (out,), ops = run_static(call, [a.astype(np.float32) for a in inputs])
    if op_type is not None:
        assert ops[-1].type == op_type
        op = next(o for o in ops if o.type == op_type) if not attrs else next(
            o for o in ops if all(k in o.attrs for k in attrs))
        for key, value in attrs.items():
            assert op.attr(key) == value, key
    np.testing.assert_allclose(out, ref(*inputs), rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("name, call, inputs, ref, op_type, attrs", CASES, ids=IDS)
def test_eager_values_and_gradients(name, call, inputs, ref, op_type, attrs):
    ref = ref or REFS[name]
    grad_of = (0,) if name.startswith("label_smooth") else tuple(range(len(inputs)))
    (out,), grads = run_eager(call, inputs, grad_of=grad_of)
    np.testing.assert_allclose(out, ref(*inputs), rtol=1e-9, atol=1e-10)
    for i, g in zip(grad_of, grads):
        np.testing.assert_allclose(g, numeric_grad(ref, inputs, i), rtol=1e-5, atol=1e-7,
                                   err_msg=f"input {i}")


def test_dropout_training_is_random_with_the_keep_rate_and_scaling():
    x = np.ones((200, 100))
    pyir.seed(5)
    (a,), _ = run_eager(lambda t: F.dropout(t, 0.3), [x])
    (b,), _ = run_eager(lambda t: F.dropout(t, 0.3), [x])
    assert set(np.unique(a)) == {0.0, 1 / 0.7}
    assert abs((a != 0).mean() - 0.7) < 0.02 and (a != b).any()
    pyir.seed(5)
    (again,), _ = run_eager(lambda t: F.dropout(t, 0.3), [x])
    np.testing.assert_array_equal(again, a)
    (down,), _ = run_eager(lambda t: F.dropout(t, 0.3, mode="downscale_in_infer"), [x])
    assert set(np.unique(down)) == {0.0, 1.0}
    (grad_out,), (grad,) = run_eager(lambda t: F.dropout(t, 0.5), [x], grad_of=(0,))
    np.testing.assert_array_equal(grad != 0, grad_out != 0)
    (kept,), _ = run_eager(lambda t: F.dropout(t, 0.0), [x])
    np.testing.assert_array_equal(kept, x)


def test_dropout_axis_and_channel_dropouts_drop_whole_slices():
    x = np.ones((50, 40, 3, 2))
    pyir.seed(1)
    (out,), _ = run_eager(lambda t: F.dropout2d(t, 0.4), [x])
    per_channel = out.reshape(50, 40, -1)
    assert (per_channel.min(-1) == per_channel.max(-1)).all()
    assert abs((per_channel[..., 0] != 0).mean() - 0.6) < 0.05
    np.testing.assert_allclose(np.unique(out), [0.0, 1 / 0.6])
    (out,), _ = run_eager(lambda t: F.dropout(t, 0.5, axis=[0]), [x])
    assert (out.reshape(50, -1).min(-1) == out.reshape(50, -1).max(-1)).all()
    (out,), _ = run_eager(lambda t: F.dropout3d(t, 0.5), [np.ones((4, 30, 2, 2, 2))])
    assert (out.reshape(120, -1).std(-1) == 0).all()
    (out,), _ = run_eager(lambda t: F.dropout1d(t, 0.5), [np.ones((30, 5))])
    assert (out.std(-1) == 0).all()
    _, ops = run_static(lambda t: F.dropout2d(t, 0.4), [x[:2].astype(np.float32)])
    types = [o.type for o in ops]
    assert types == ["scale", "uniform_random", "fill_constant", "greater_equal", "cast",
                     "elementwise_mul"]
    assert ops[1].attr("shape") == [2, 40, 1, 1]


def test_alpha_dropout_keeps_mean_and_variance():
    x = np.random.default_rng(2).standard_normal((400, 250))
    pyir.seed(3)
    (out,), _ = run_eager(lambda t: F.alpha_dropout(t, 0.2), [x])
    assert abs(out.mean()) < 0.02 and abs(out.std() - 1) < 0.03
    (out,), _ = run_eager(lambda t: F.feature_alpha_dropout(t, 0.5), [x[:, :, None]])
    assert (out.std(-1) == 0).all() and abs(out.std() - 1) < 0.05


def test_one_hot_and_embedding():
    label = np.array([[2, 0], [1, 3]])
    (out,), ops = run_static(lambda t: F.one_hot(t, 5), [label])
    assert ops[-1].type == "one_hot_v2" and ops[-1].attr("depth") == 5
    np.testing.assert_array_equal(out, np.eye(5, dtype=np.float32)[label])
    (out,), _ = run_eager(F.one_hot, [label])
    np.testing.assert_array_equal(out, np.eye(4)[label])
    table = R.uniform(-1, 1, (6, 3))
    ids = np.array([[0, 5, 2], [5, 5, 1]])
    (out,), ops = run_static(lambda i, w: F.embedding(i, w, padding_idx=-1),
                             [ids, table.astype(np.float32)])
    assert ops[-1].type == "lookup_table_v2" and ops[-1].attr("padding_idx") == 5
    want = table[ids] * (ids != 5)[..., None]
    np.testing.assert_allclose(out, want, rtol=1e-6)
    (out,), (grad,) = run_eager(lambda i, w: F.embedding(i, w, padding_idx=5), [ids, table],
                                grad_of=(1,))
    np.testing.assert_allclose(grad, numeric_grad(lambda i, w: w[i] * (i != 5)[..., None],
                                                  [ids, table], 1), atol=1e-8)


def test_embedding_max_norm_renormalizes_looked_up_rows():
    table = R.uniform(-2, 2, (5, 4))
    ids = np.array([1, 3, 3])
    pyir.disable_static()
    try:
        w = pyir.to_tensor(table)
        out = F.embedding(pyir.to_tensor(ids), w, max_norm=1.0)
    finally:
        pyir.enable_static()
    norms = np.linalg.norm(table, axis=1, keepdims=True)
    want = table.copy()
    for i in (1, 3):
        if norms[i] > 1.0:
            want[i] = table[i] / (norms[i] + 1e-7)
    np.testing.assert_allclose(w.numpy(), want, rtol=1e-9)
    np.testing.assert_allclose(out.numpy(), want[ids], rtol=1e-9)


@pytest.mark.parametrize("call, match", [
    (lambda x: F.dropout(x, 1.5), "p must be in"),
    (lambda x: F.dropout(x, "0.5"), "p must be a number"),
    (lambda x: F.dropout(x, 0.5, mode="scale"), "mode must be"),
    (lambda x: F.dropout(x, 0.5, axis=4), "axis must be in"),
    (lambda x: F.dropout2d(x, 0.5, data_format="NCWH"), "data_format must be"),
    (lambda x: F.dropout3d(x, 0.5), "x must be 5-D"),
    (lambda x: F.alpha_dropout(x, -0.1), "p must be in"),
    (lambda x: F.pad(x, [1, 1], mode="wrap"), "mode must be one of"),
    (lambda x: F.pad(x, [1, 1, 1], mode="reflect"), "pad must hold 4"),
    (lambda x: F.pad(x, [1, 1, 1, 1], mode="reflect", data_format="NCDHW"), "data_format"),
    (lambda x: F.interpolate(x, size=[2, 2], mode="cubic"), "mode must be one of"),
    (lambda x: F.interpolate(x, size=[2, 2], mode="linear"), "needs a 3-D x"),
    (lambda x: F.interpolate(x), "one of size and scale_factor"),
    (lambda x: F.interpolate(x, [2, 2], 2.0), "only one of size"),
    (lambda x: F.interpolate(x, [2, 2], align_corners=True), "align_corners is only"),
    (lambda x: F.interpolate(x, [2, 2], mode="bilinear", align_mode=2), "align_mode"),
    (lambda x: F.interpolate(x, scale_factor=[2, 2, 2]), "scale_factor must have 2"),
    (lambda x: F.interpolate(x, scale_factor=-1.0), "scale_factor must be positive"),
    (lambda x: F.interpolate(x, [2, 2], data_format="NCDHW"), "data_format must be"),
    (lambda x: F.unfold(x[0], 2), "x must be 4-D"),
    (lambda x: F.unfold(x, 2, paddings=[1, 1, 1]), "paddings must be"),
    (lambda x: F.label_smooth(x, epsilon=1.5), "epsilon must be in"),
    (lambda x: F.one_hot(x, 0), "num_classes must be"),
    (lambda x: F.embedding(x, x[0], padding_idx=9), "padding_idx must be in"),
])
def test_refusals(call, match):
    x = pyir.static.data("x", [2, 3, 4, 5], "float32")
    with pytest.raises(BuildError, match=match):
        call(x)


def test_class_center_sample():
    label = np.array([5, 2, 5, 9, 17])
    (remapped, centers), ops = run_static(lambda t: F.class_center_sample(t, 20, 7), [label])
    assert ops[-1].type == "class_center_sample" and ops[-1].attr("num_samples") == 7
    # Paddle 3.3.1 gives [1, 0, 1, 2, 3] and [2, 5, 9, 17, <3 random other classes>]
    np.testing.assert_array_equal(remapped, [1, 0, 1, 2, 3])
    np.testing.assert_array_equal(centers[:4], [2, 5, 9, 17])
    assert len(set(centers.tolist())) == 7 and set(centers[4:]).isdisjoint({2, 5, 9, 17})
    assert ((centers >= 0) & (centers < 20)).all()
    (remapped, centers), _ = run_eager(lambda t: F.class_center_sample(t, 20, 2), [label])
    np.testing.assert_array_equal(centers, [2, 5, 9, 17])
    with pytest.raises(BuildError, match="must not exceed"):
        F.class_center_sample(pyir.static.data("y", [4], "int64"), 5, 6)
    with pytest.raises(BuildError, match="group=None"):
        F.class_center_sample(pyir.static.data("z", [4], "int64"), 5, 2, group=object())


def test_channel_dropout_with_a_batch_dim_unknown_until_run_time():
    x = pyir.static.data("x", [None, 30, 2, 2], "float32")
    y = F.dropout2d(x, 0.3)
    z = F.feature_alpha_dropout(x, 0.5)
    pyir.seed(0)
    a, b = pyir.static.Executor().run(pyir.static.default_main_program(),
                                      feed={"x": np.ones((40, 30, 2, 2), np.float32)},
                                      fetch_list=[y, z])
    assert a.shape == (40, 30, 2, 2)
    np.testing.assert_allclose(np.unique(a), [0.0, 1 / 0.7], rtol=1e-6)
    assert abs((a[:, :, 0, 0] != 0).mean() - 0.7) < 0.04
    assert (a.reshape(1200, -1).std(-1) == 0).all() and (b.reshape(1200, -1).std(-1) == 0).all()
    assert len(np.unique(b)) == 2
