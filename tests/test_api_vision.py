"""paddle.vision.ops: every function in static mode (the legacy op Paddle emits, run by the
Executor) and eagerly, against values produced by Paddle 3.3.1 (tests/vision_paddle_values.py)
and small numpy references; gradients of the RoI ops and deformable convolution; refusals."""

from __future__ import annotations

import numpy as np
import pytest

import pyir
import pyir.vision
from pyir.errors import BuildError, KernelError, PyirError
from pyir.unsupported import UnsupportedError
from pyir.vision import ops

import vision_paddle_values as P
from functional_check import numeric_grad, run_eager, run_static, weights_like


# --- the inputs the Paddle values were produced from ------------------------------------------
def _pattern(shape, mul, mod, div, shift):
    return ((np.arange(int(np.prod(shape))) * mul % mod) / div - shift).astype("float32") \
        .reshape(shape)


X = _pattern((2, 2, 4, 4), 37, 23, 11, 1)
X4 = np.concatenate([X, X[:, ::-1] * 0.5], 1)
BOXES = np.array([[0.5, 0.3, 3.2, 2.9], [1.1, 0.0, 3.6, 3.7], [2.0, 1.5, 2.4, 1.8]], "float32")
BOXES_NUM = np.array([1, 2], "int32")
OFFSET = _pattern((1, 8, 3, 3), 13, 17, 10, 0.8)
MASK = _pattern((1, 4, 3, 3), 7, 11, 10, 0)
WEIGHT = _pattern((2, 2, 2, 2), 5, 7, 4, 0.7)
YOLO_X = _pattern((1, 14, 2, 2), 29, 31, 6, 2.5)
PRIOR = np.array([[1, 2, 5, 7], [0.5, 0.5, 3, 2]], "float32")
TARGET = np.array([[1.5, 1, 4, 5], [0, 0.2, 2, 3]], "float32")
NMS_BOXES = np.array([[0, 0, 4, 4], [1, 1, 5, 5], [0, 0, 4, 3.2], [6, 6, 8, 8], [6.5, 6, 8, 8]],
                     "float32")
NMS_SCORES = np.array([.9, .8, .7, .95, .5], "float32")
M_BOXES = np.array([[[0, 0, 2, 2], [0, 0, 2, 1.6], [1, 1, 3, 3], [5, 5, 6, 6]]], "float32")
M_SCORES = np.array([[[.2, .1, .3, .4], [.9, .8, .5, .3], [.1, .6, .7, .2]]], "float32")
FPN_ROIS = np.array([[0, 0, 10, 10], [0, 0, 100, 120], [5, 5, 300, 400], [0, 0, 40, 30],
                     [1, 1, 500, 600]], "float32")
ANCHORS = np.zeros((3, 3, 2, 4), "float32")
for _i in range(3):
    for _j in range(3):
        ANCHORS[_i, _j, 0] = [_j * 10, _i * 10, _j * 10 + 15, _i * 10 + 15]
        ANCHORS[_i, _j, 1] = [_j * 10, _i * 10, _j * 10 + 25, _i * 10 + 8]
VARIANCES = np.full((3, 3, 2, 4), [0.1, 0.1, 0.2, 0.2], "float32")
YOLO_GT = np.array([[[0.3, 0.4, 0.4, 0.5], [0.8, 0.2, 0.1, 0.1], [0.5, 0.5, 0.0, 0.0]],
                    [[0.6, 0.7, 0.9, 0.3], [0.1, 0.1, 0.2, 0.6], [0.9, 0.1, 0.3, 0.35]]],
                   "float32")  # the third box of image 0 has no size: it is skipped
YOLO_LABEL = np.array([[1, 0, 1], [0, 1, 1]], "int32")
YOLO_SCORE = np.array([[1.0, 0.7, 1.0], [0.5, 1.0, 0.9]], "float32")
YOLO_HEAD = (np.arange(2 * 14 * 3 * 3) * 17 % 29 / 7 - 2).astype("float32").reshape(2, 14, 3, 3)
YOLO_ANCHORS = [10, 13, 16, 30, 33, 23, 30, 61]
RPN_SCORES = _pattern((1, 2, 3, 3), 7, 19, 19, 0)  # distinct: Paddle sorts ties unstably
RPN_DELTAS = _pattern((1, 8, 3, 3), 3, 11, 10, 0.5)


def _fpn(rois, nums):
    multi, restore, per_level = ops.distribute_fpn_proposals(rois, 2, 5, 4, 224, rois_num=nums)
    return multi + [restore] + per_level


# name -> (call, input arrays, Paddle 3.3.1 outputs, op type, key attributes)
CASES = {
    "roi_align": (lambda x, b, n: ops.roi_align(x, b, n, (2, 1), 0.9, sampling_ratio=2),
                  [X, BOXES, BOXES_NUM], [P.ROI_ALIGN], "roi_align",
                  {"pooled_height": 2, "pooled_width": 1, "sampling_ratio": 2, "aligned": True}),
    "roi_pool": (lambda x, b, n: ops.roi_pool(x, b, n, 2, 1.0), [X, BOXES, BOXES_NUM],
                 [P.ROI_POOL], "roi_pool", {"pooled_height": 2, "pooled_width": 2}),
    "psroi_pool": (lambda x, b, n: ops.psroi_pool(x, b, n, (2, 1), 1.0), [X4, BOXES, BOXES_NUM],
                   [P.PSROI], "psroi_pool",
                   {"output_channels": 2, "pooled_height": 2, "pooled_width": 1}),
    "deform_conv2d": (lambda x, o, w, m: ops.deform_conv2d(x, o, w, mask=m),
                      [X[:1], OFFSET, WEIGHT, MASK], [P.DCN], "deformable_conv",
                      {"strides": [1, 1], "paddings": [0, 0], "deformable_groups": 1,
                       "im2col_step": 1}),
    "yolo_box": (lambda x, s: ops.yolo_box(x, s, [10, 13, 16, 30], 2, 0.3, 16),
                 [YOLO_X, np.array([[50, 70]], "int32")], [P.YOLO_BOXES, P.YOLO_SCORES],
                 "yolo_box", {"anchors": [10, 13, 16, 30], "class_num": 2,
                              "downsample_ratio": 16, "clip_bbox": True}),
    "roi_align_unaligned": (lambda x, b, n: ops.roi_align(x, b, n, 2, aligned=False),
                            [X, BOXES, BOXES_NUM], [P.ROI_ALIGN_UNALIGNED], "roi_align",
                            {"aligned": False, "sampling_ratio": -1}),
    "roi_pool_half": (lambda x, b, n: ops.roi_pool(x, b, n, (1, 2), 0.5),
                      [X, BOXES * 2, BOXES_NUM], [P.ROI_POOL_HALF], "roi_pool",
                      {"pooled_height": 1, "pooled_width": 2}),
    "deform_conv2d_groups": (lambda x, o, w, m: ops.deform_conv2d(
        x, o, w, stride=2, padding=(0, 1), dilation=(1, 2), deformable_groups=2, groups=2,
        mask=m), [X, _pattern((2, 16, 2, 2), 13, 17, 10, 0.8), _pattern((4, 1, 2, 2), 5, 7, 4, 0.7),
                  _pattern((2, 8, 2, 2), 7, 11, 10, 0)], [P.DCN_GROUPS], "deformable_conv",
        {"strides": [2, 2], "paddings": [0, 1], "dilations": [1, 2], "groups": 2,
         "deformable_groups": 2}),
    "yolo_box_iou_aware": (lambda x, s: ops.yolo_box(
        x, s, [10, 13, 16, 30], 2, 0.2, 16, clip_bbox=False, scale_x_y=1.2, iou_aware=True,
        iou_aware_factor=0.3), [_pattern((1, 16, 2, 2), 29, 31, 6, 2.5),
                                np.array([[50, 70]], "int32")],
        [P.YOLO_IOU_BOXES, P.YOLO_IOU_SCORES], "yolo_box",
        {"iou_aware": True, "clip_bbox": False}),
    "box_coder_decode_axis1": (lambda p, v, t: ops.box_coder(p, v, t, "decode_center_size",
                                                             False, axis=1),
                               [PRIOR, np.abs(PRIOR) / 10 + np.float32(0.1),
                                np.stack([TARGET - 1, TARGET * np.float32(0.1)])],
                               [P.DECODE_AXIS1], "box_coder", {"axis": 1}),
    "prior_box_ordered": (lambda f, i: ops.prior_box(
        f, i, [5.0, 3.0], [7.0, 6.0], [3.0], steps=[6.0, 5.0], offset=0.3,
        min_max_aspect_ratios_order=True)[0],
        [np.zeros((1, 1, 2, 1), "float32"), np.zeros((1, 3, 16, 16), "float32")],
        [P.PRIORS_ORDERED], "prior_box",
        {"step_w": 6.0, "step_h": 5.0, "min_max_aspect_ratios_order": True}),
    "generate_proposals_offset": (lambda s, d, i, a, v: list(ops.generate_proposals(
        s, d, i, a, v, nms_thresh=0.7, min_size=3, eta=0.9, pixel_offset=True)[:2]),
        [RPN_SCORES, RPN_DELTAS, np.array([[30, 36]], "float32"), ANCHORS, VARIANCES],
        [P.PROP_OFFSET_ROIS, P.PROP_OFFSET_PROBS], "generate_proposals_v2",
        {"pixel_offset": True}),
    "yolo_loss": (lambda x, b, lab, s: ops.yolo_loss(x, b, lab, YOLO_ANCHORS, [0, 2], 2, 0.5, 8,
                                                     gt_score=s, scale_x_y=1.1),
                  [YOLO_HEAD, YOLO_GT, YOLO_LABEL, YOLO_SCORE], [P.YOLO_LOSS], "yolov3_loss",
                  {"anchor_mask": [0, 2], "class_num": 2, "downsample_ratio": 8,
                   "use_label_smooth": True}),
    "yolo_loss_plain": (lambda x, b, lab: ops.yolo_loss(x, b, lab, YOLO_ANCHORS, [0, 1], 2,
                                                        0.2, 8, use_label_smooth=False),
                        [YOLO_HEAD, YOLO_GT, YOLO_LABEL], [P.YOLO_LOSS_PLAIN], "yolov3_loss",
                        {"anchor_mask": [0, 1], "use_label_smooth": False}),
    "box_coder_encode": (lambda p, t: ops.box_coder(p, [0.1, 0.1, 0.2, 0.2], t,
                                                    box_normalized=False),
                         [PRIOR, TARGET], [P.ENCODE], "box_coder",
                         {"code_type": "encode_center_size", "box_normalized": False}),
    "box_coder_decode": (lambda p, v, t: ops.box_coder(p, v, t, "decode_center_size"),
                         [PRIOR, np.abs(PRIOR) / 10 + np.float32(0.1), TARGET[None] - 1],
                         [P.DECODE], "box_coder",
                         {"code_type": "decode_center_size", "variance": [], "axis": 0}),
    "prior_box": (lambda f, i: ops.prior_box(f, i, [4.0], [6.0], [2.0], flip=True,
                                             clip=True)[0],
                  [np.zeros((1, 1, 1, 2), "float32"), np.zeros((1, 3, 10, 20), "float32")],
                  [P.PRIORS], "prior_box", {"min_sizes": [4.0], "flip": True, "clip": True}),
    "nms": (lambda b: ops.nms(b, 0.5), [NMS_BOXES], [P.NMS], "nms", {}),
    "nms_scored": (lambda b, s: ops.nms(b, 0.3, s), [NMS_BOXES, NMS_SCORES], [P.NMS_SCORED],
                   "argsort", {"descending": True}),
    "matrix_nms": (lambda b, s: list(ops.matrix_nms(b, s, 0.15, 0.1, 3, 5, return_index=True)),
                   [M_BOXES, M_SCORES], [P.MNMS, P.MNMS_NUM, P.MNMS_IDX], "matrix_nms",
                   {"nms_top_k": 3, "keep_top_k": 5, "use_gaussian": False}),
    "matrix_nms_gaussian": (lambda b, s: ops.matrix_nms(
        b, s, 0.15, 0.1, -1, -1, use_gaussian=True, gaussian_sigma=3.0, normalized=False,
        background_label=-1)[0], [M_BOXES, M_SCORES], [P.MNMS_G], "matrix_nms",
        {"use_gaussian": True, "normalized": False, "background_label": -1}),
    "distribute_fpn_proposals": (_fpn, [FPN_ROIS, np.array([2, 3], "int32")],
                                 [P.FPN0, P.FPN1, P.FPN2, P.FPN3, P.FPN_RESTORE, P.FPN_NUM0,
                                  P.FPN_NUM1, P.FPN_NUM2, P.FPN_NUM3],
                                 "distribute_fpn_proposals",
                                 {"min_level": 2, "max_level": 5, "refer_scale": 224}),
    "generate_proposals": (lambda s, d, i, a, v: list(ops.generate_proposals(
        s, d, i, a, v, pre_nms_top_n=12, post_nms_top_n=6, nms_thresh=0.6, min_size=2,
        return_rois_num=True)),
        [RPN_SCORES, RPN_DELTAS, np.array([[40, 40]], "float32"), ANCHORS, VARIANCES],
        [P.PROP_ROIS, P.PROP_PROBS, P.PROP_NUM], "generate_proposals_v2",
        {"pre_nms_topN": 12, "post_nms_topN": 6, "pixel_offset": False}),
}


def _check_values(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert np.shape(g) == np.shape(w)
        assert np.asarray(g).dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("name", sorted(CASES))
def test_static_matches_paddle_and_emits_the_legacy_op(name):
    call, arrays, want, op_type, attrs = CASES[name]
    got, program_ops = run_static(call, arrays)
    _check_values(got, want)
    op = next(o for o in program_ops if o.type == op_type)
    assert {k: op.attrs[k] for k in attrs} == attrs


@pytest.mark.parametrize("name", sorted(CASES))
def test_eager_matches_paddle(name):
    call, arrays, want, _, _ = CASES[name]
    got, _ = run_eager(call, arrays)
    _check_values(got, want)


# --- gradients (Paddle 3.3.1 values of d sum(out * W) for functional_check's W) ---------------
LARGE = (BOXES[:2], np.array([1, 1], "int32"))  # boxes at least one pixel wide and high
GRADS = {
    "roi_align": ([X, *LARGE], [0], [P.ROI_ALIGN_DX_LARGE]),
    "roi_pool": (CASES["roi_pool"][1], [0], [P.ROI_POOL_DX]),
    "psroi_pool": (CASES["psroi_pool"][1], [0], [P.PSROI_DX]),
    "yolo_loss": (CASES["yolo_loss"][1], [0], [P.YOLO_LOSS_DX]),
    "deform_conv2d": (CASES["deform_conv2d"][1], [0, 1, 2, 3],
                      [P.DCN_DX, P.DCN_DO, P.DCN_DW, P.DCN_DM]),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_eager_gradients_match_paddle(name):
    call = CASES[name][0]
    arrays, indices, want = GRADS[name]
    _, grads = run_eager(call, arrays, grad_of=indices)
    for g, w in zip(grads, want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


def _eager_forward(call):
    def forward(*arrays):
        pyir.disable_static()
        try:
            return call(*[pyir.to_tensor(a) for a in arrays]).numpy()
        finally:
            pyir.enable_static()
    return forward


def test_roi_align_gradient_of_a_box_under_one_pixel_matches_its_forward():
    """pyir differentiates the forward it computes; Paddle 3.3.1's CPU grad kernel widens an
    aligned box under one pixel to one pixel (its forward does not), so it differs here."""
    call = CASES["roi_align"][0]
    arrays = [X.astype("float64"), BOXES[2:], np.array([0, 1], "int32")]
    want = numeric_grad(_eager_forward(call), arrays, 0)
    _, (got,) = run_eager(call, arrays, grad_of=[0])
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
    # every sample lies inside the image, so the bin weights of dX sum to those of dOut
    assert got.sum() == pytest.approx(weights_like(np.zeros((1, 2, 2, 1))).sum())


def test_yolo_loss_gradient_where_two_boxes_share_a_cell_matches_finite_differences():
    """Both boxes of image 1 fall in cell (2, 1) of anchor 0: the loss sums both terms and
    pyir's gradient does too (Paddle 3.3.1's grad kernel keeps only the last box there)."""
    boxes = YOLO_GT.copy()
    boxes[1, 2] = [0.45, 0.9, 0.2, 0.15]
    call = lambda x: ops.yolo_loss(x, pyir.to_tensor(boxes), pyir.to_tensor(YOLO_LABEL),  # noqa
                                   YOLO_ANCHORS, [0, 2], 2, 0.5, 8)
    arrays = [YOLO_HEAD.astype("float64")]
    want = numeric_grad(_eager_forward(call), arrays, 0)
    _, (got,) = run_eager(call, arrays, grad_of=[0])
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_deform_conv2d_v1_gradient_matches_finite_differences():
    rng = np.random.default_rng(5)  # random offsets keep the samples off the bilinear kinks
    arrays = [X[:1].astype("float64"), rng.uniform(-1.5, 1.5, (1, 8, 3, 3)),
              WEIGHT.astype("float64")]
    call = lambda x, o, w: ops.deform_conv2d(x, o, w)  # noqa: E731
    refs = [numeric_grad(_eager_forward(call), arrays, i) for i in range(3)]
    _, grads = run_eager(call, arrays, grad_of=[0, 1, 2])
    for g, r in zip(grads, refs):
        np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-6)


def test_static_backward_through_roi_align():
    pyir.enable_static()
    main = pyir.static.Program()
    with pyir.static.program_guard(main, pyir.static.Program()):
        x = pyir.static.data("x", [2, 2, 4, 4], "float32")
        x.stop_gradient = False
        b = pyir.static.data("b", [2, 4], "float32")
        n = pyir.static.data("n", [2], "int32")
        y = ops.roi_align(x, b, n, (2, 1), 0.9, sampling_ratio=2)
        w = pyir.static.data("w", [2, 2, 2, 1], "float32")
        loss = pyir.sum(y * w)
        (dx,) = pyir.static.gradients([loss], [x])
    weight = weights_like(np.zeros((2, 2, 2, 1), "float32"))
    (got,) = pyir.static.Executor().run(main, feed={"x": X, "b": LARGE[0], "n": LARGE[1],
                                                    "w": weight}, fetch_list=[dx])
    assert "roi_align_grad" in [op.type for op in main.global_block().ops]
    np.testing.assert_allclose(got, P.ROI_ALIGN_DX_LARGE, rtol=1e-4, atol=1e-5)


# --- numpy references and edge cases ----------------------------------------------------------
def _greedy_nms(boxes, threshold):
    keep = []
    for i, a in enumerate(boxes):
        ok = True
        for k in keep:
            b = boxes[k]
            iw = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
            ih = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
            inter = iw * ih
            union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
            ok &= inter / union <= threshold
        if ok:
            keep.append(i)
    return keep


def test_nms_against_numpy_and_its_tie_rule():
    rng = np.random.default_rng(3)
    corner = rng.uniform(0, 10, (12, 2))
    boxes = np.concatenate([corner, corner + rng.uniform(1, 5, (12, 2))], 1).astype("float32")
    got, _ = run_eager(lambda b: ops.nms(b, 0.25), [boxes])
    assert got[0].tolist() == _greedy_nms(boxes.astype(np.float64), 0.25)
    # IoU exactly at the threshold keeps the box (Paddle 3.3.1 keeps both: [0, 1])
    tie = np.array([[0, 0, 2, 2], [0, 0, 2, 1]], "float32")
    assert run_eager(lambda b: ops.nms(b, 0.5), [tie])[0][0].tolist() == [0, 1]
    empty, _ = run_eager(lambda b: ops.nms(b, 0.5), [np.zeros((0, 4), "float32")])
    assert empty[0].shape == (0,) and empty[0].dtype == np.int64


def _batched_inputs():
    rng = np.random.default_rng(8)
    corner = rng.uniform(0, 6, (10, 2))
    boxes = np.concatenate([corner, corner + rng.uniform(1, 4, (10, 2))], 1).astype("float32")
    scores = rng.permutation(10).astype("float32") / 10 + np.float32(0.05)
    return boxes, scores, np.array([0, 1, 0, 2, 1, 0, 0, 3, 1, 0], "int64")


@pytest.mark.parametrize("threshold, categories, top_k, want", [
    # Paddle 3.3.1 values
    (0.2, [0, 1, 2, 3], None, [9, 1, 5, 3, 2, 7, 0, 4]),
    (0.2, [0, 1, 2, 3, 4], 4, [9, 1, 5, 3]),
    (0.4, [1, 3], 3, [1, 7, 4]),
])
def test_nms_per_category(threshold, categories, top_k, want):
    call = lambda b, s, c: ops.nms(b, threshold, s, c, categories, top_k)  # noqa: E731
    for run in (run_static, run_eager):
        got, _ = run(call, list(_batched_inputs()))
        assert got[0].tolist() == want


def test_matrix_nms_with_nothing_above_the_threshold():
    # Paddle 3.3.1: Out [0, 6], RoisNum [0], Index [0, 1]
    boxes = np.array([[[0, 0, 2, 2], [1, 1, 3, 3]]], "float32")
    scores = np.array([[[.9, .9], [.05, .02]]], "float32")
    (out, num, index), _ = run_eager(
        lambda b, s: list(ops.matrix_nms(b, s, 0.1, 0.1, -1, -1, return_index=True)),
        [boxes, scores])
    assert out.shape == (0, 6) and num.tolist() == [0] and index.shape == (0, 1)


def test_roi_pool_and_roi_align_outside_the_image_are_zero():
    x = np.arange(16, dtype="float32").reshape(1, 1, 4, 4)
    num = np.array([1], "int32")
    pooled, _ = run_eager(lambda a, b, n: ops.roi_pool(a, b, n, 2), [
        x, np.array([[5, 5, 9, 9]], "float32"), num])
    aligned, _ = run_eager(lambda a, b, n: ops.roi_align(a, b, n, 1, aligned=False), [
        x, np.array([[-3, -3, -1.5, -1.5]], "float32"), num])
    assert not pooled[0].any() and not aligned[0].any()


def _prior_reference(feature_hw, image_hw, min_size, max_size, ratios):
    h, w = feature_hw
    ih, iw = image_hw
    rows = []
    for i in range(h):
        for j in range(w):
            cx, cy = (j + 0.5) * iw / w, (i + 0.5) * ih / h
            sizes = [(min_size * np.sqrt(r), min_size / np.sqrt(r)) for r in ratios]
            sizes.append((np.sqrt(min_size * max_size),) * 2)
            rows += [[(cx - bw / 2) / iw, (cy - bh / 2) / ih, (cx + bw / 2) / iw,
                      (cy + bh / 2) / ih] for bw, bh in sizes]
    return np.array(rows).reshape(h, w, -1, 4)


def test_prior_box_against_numpy():
    got, _ = run_static(lambda f, i: list(ops.prior_box(f, i, 6.0, 9.0, [2.0, 3.0], flip=True,
                                                        variance=[0.1, 0.2, 0.3, 0.4])),
                        [np.zeros((1, 4, 3, 2), "float32"), np.zeros((1, 3, 12, 8), "float32")])
    want = _prior_reference((3, 2), (12, 8), 6.0, 9.0, [1.0, 2.0, 0.5, 3.0, 1 / 3])
    np.testing.assert_allclose(got[0], want, rtol=1e-6)
    np.testing.assert_allclose(got[1], np.broadcast_to([0.1, 0.2, 0.3, 0.4], want.shape))


def test_deform_conv2d_with_bias_adds_it_on_axis_1():
    bias = np.array([1.0, -2.0], "float32")
    got, program_ops = run_static(lambda x, o, w, m, b: ops.deform_conv2d(x, o, w, b, mask=m),
                                  [X[:1], OFFSET, WEIGHT, MASK, bias])
    np.testing.assert_allclose(got[0], P.DCN + bias[:, None, None], rtol=2e-5, atol=2e-5)
    add = program_ops[-1]
    assert add.type == "elementwise_add" and add.attrs["axis"] == 1


def test_deform_conv2d_without_mask_emits_v1():
    _, program_ops = run_static(lambda x, o, w: ops.deform_conv2d(x, o, w, stride=2, padding=1),
                                [X[:1], np.zeros((1, 8, 3, 3), "float32"), WEIGHT])
    op = program_ops[-1]
    assert op.type == "deformable_conv_v1" and op.attrs["strides"] == [2, 2]
    assert op.attrs["paddings"] == [1, 1] and "Mask" not in op.inputs


def test_layers_run_their_functions():
    pyir.disable_static()
    try:
        x, b, n = (pyir.to_tensor(v) for v in (X, BOXES, BOXES_NUM))
        np.testing.assert_allclose(ops.RoIPool(2)(x, b, n).numpy(), P.ROI_POOL, atol=1e-6)
        np.testing.assert_allclose(ops.PSRoIPool((2, 1))(pyir.to_tensor(X4), b, n).numpy(),
                                   P.PSROI, atol=2e-5)
        layer = ops.DeformConv2D(2, 2, 2)
        assert layer.weight.shape == [2, 2, 2, 2] and layer.bias.shape == [2]
        layer.weight.set_value(WEIGHT)
        layer.bias.set_value(np.zeros(2, "float32"))
        out = layer(pyir.to_tensor(X[:1]), pyir.to_tensor(OFFSET), pyir.to_tensor(MASK))
        np.testing.assert_allclose(out.numpy(), P.DCN, rtol=2e-5, atol=2e-5)
        block = ops.ConvNormActivation(2, 3, 3)
        assert block(x).shape == [2, 3, 4, 4]
    finally:
        pyir.enable_static()


def test_read_file_returns_the_bytes(tmp_path):
    path = tmp_path / "data.bin"
    path.write_bytes(bytes([0, 255, 7, 128]))
    got, program_ops = run_static(lambda: ops.read_file(str(path)), [])
    assert got[0].dtype == np.uint8 and got[0].tolist() == [0, 255, 7, 128]
    assert program_ops[-1].type == "read_file"
    with pytest.raises(KernelError, match="read_file: cannot read"):
        run_eager(lambda: ops.read_file(str(tmp_path / "missing.bin")), [])


# --- refusals -----------------------------------------------------------------------------------
REFUSALS = [
    (lambda: ops.roi_align(pyir.to_tensor(X[0]), pyir.to_tensor(BOXES),
                           pyir.to_tensor(BOXES_NUM), 2), BuildError, "x must be 4-D"),
    (lambda: ops.roi_pool(pyir.to_tensor(X), pyir.to_tensor(BOXES),
                          pyir.to_tensor(BOXES_NUM), (2, 2, 2)), BuildError, "output_size"),
    (lambda: ops.roi_align(pyir.to_tensor(X), pyir.to_tensor(BOXES),
                           pyir.to_tensor(np.array([1, 1], "int32")), 2), KernelError,
     "boxes_num"),
    (lambda: ops.psroi_pool(pyir.to_tensor(X), pyir.to_tensor(BOXES),
                            pyir.to_tensor(BOXES_NUM), 3), BuildError, "not divisible"),
    (lambda: ops.psroi_pool(pyir.to_tensor(X), pyir.to_tensor(BOXES),
                            pyir.to_tensor(BOXES_NUM), (2, 1)), BuildError, "at least 2"),
    (lambda: ops.deform_conv2d(pyir.to_tensor(X[:1]), pyir.to_tensor(OFFSET[:, :6]),
                               pyir.to_tensor(WEIGHT)), KernelError, "Offset must have shape"),
    (lambda: ops.deform_conv2d(pyir.to_tensor(X[:1]), pyir.to_tensor(OFFSET),
                               pyir.to_tensor(WEIGHT), groups=0), BuildError, "groups"),
    (lambda: ops.yolo_box(pyir.to_tensor(YOLO_X), pyir.to_tensor(np.array([[5, 5]], "int32")),
                          [10, 13, 16], 2, 0.3, 16), BuildError, "anchors"),
    (lambda: ops.yolo_box(pyir.to_tensor(YOLO_X), pyir.to_tensor(np.array([[5, 5]], "int32")),
                          [10, 13, 16, 30], 3, 0.3, 16), KernelError, "channels"),
    (lambda: ops.box_coder(pyir.to_tensor(PRIOR), [0.1, 0.2], pyir.to_tensor(TARGET)),
     BuildError, "4 values"),
    (lambda: ops.box_coder(pyir.to_tensor(PRIOR), None, pyir.to_tensor(TARGET), "center"),
     BuildError, "code_type"),
    (lambda: ops.prior_box(pyir.to_tensor(X), pyir.to_tensor(X), [2.0, 3.0], [4.0]),
     BuildError, "max_sizes"),
    (lambda: ops.nms(pyir.to_tensor(NMS_BOXES), 0.3, pyir.to_tensor(NMS_SCORES),
                     pyir.to_tensor(np.zeros(5, "int64"))), BuildError, "categories"),
    (lambda: ops.nms(pyir.to_tensor(NMS_BOXES), 0.3, pyir.to_tensor(NMS_SCORES),
                     pyir.to_tensor(np.zeros(5, "int64")), [0], top_k=6), BuildError, "top_k"),
    (lambda: ops.distribute_fpn_proposals(pyir.to_tensor(FPN_ROIS), 2, 5, 6, 224), BuildError,
     "refer_level"),
    (lambda: ops.read_file(3), BuildError, "filename must be a str"),
    (lambda: ops.decode_jpeg(pyir.to_tensor(np.zeros(4, "uint8"))), UnsupportedError,
     "decode_jpeg: GPU-only"),
    (lambda: ops.yolo_loss(pyir.to_tensor(YOLO_HEAD), pyir.to_tensor(YOLO_GT),
                           pyir.to_tensor(YOLO_LABEL), YOLO_ANCHORS, [0, 4], 2, 0.5, 8),
     BuildError, "anchor_mask must index"),
    (lambda: ops.yolo_loss(pyir.to_tensor(YOLO_HEAD), pyir.to_tensor(YOLO_GT),
                           pyir.to_tensor(YOLO_LABEL), YOLO_ANCHORS, [0, 1, 2], 2, 0.5, 8),
     BuildError, "need 21"),
    (lambda: ops.LayerHelper("x"), UnsupportedError, "Paddle internal"),
]


@pytest.mark.parametrize("index", range(len(REFUSALS)))
def test_refusals(index):
    call, error, message = REFUSALS[index]
    pyir.disable_static()
    try:
        with pytest.raises(error, match=message):
            call()
    finally:
        pyir.enable_static()


def test_unknown_names_and_reexports():
    with pytest.raises(AttributeError, match="paddle.vision.ops"):
        ops.no_such_op  # noqa: B018
    assert ops.convert_to_list(3, 2, "k") == [3, 3]
    with pytest.raises(PyirError, match="kernel_size"):
        ops.convert_to_list([1, 2, 3], 2, "kernel_size")
    assert ops.in_pir_mode() is False
    assert ops.Conv2D is pyir.nn.Conv2D and pyir.vision.ops is ops


# --- multiclass_nms3: no paddle.vision.ops function, but PaddleDetection models save it --------
def _multiclass_inputs():
    rng = np.random.default_rng(4)
    corner = rng.uniform(0, 10, (2, 8, 2))
    boxes = np.concatenate([corner, corner + rng.uniform(1, 4, (2, 8, 2))], -1).astype("float32")
    return boxes, rng.uniform(0, 1, (2, 4, 8)).astype("float32")


def test_multiclass_nms3_runs_in_a_static_program_and_eagerly():
    boxes, scores = _multiclass_inputs()
    attrs = {"score_threshold": 0.3, "nms_top_k": 3, "keep_top_k": 2, "nms_threshold": 0.5,
             "normalized": True, "nms_eta": 1.0, "background_label": 2}
    # Paddle 3.3.1 (_C_ops.multiclass_nms3 on these inputs)
    want_out = np.array([[0, 0.9176400, 9.022150, 4.771540, 10.59452, 7.151280],
                         [0, 0.8764300, 8.716350, 5.439410, 11.79401, 8.751310],
                         [0, 0.9348800, 7.048650, 9.428040, 10.79382, 12.03955],
                         [3, 0.8485400, 7.048650, 9.428040, 10.79382, 12.03955]], "float32")
    want_index, want_num = [5, 4, 10, 10], [2, 2]
    call = lambda b, s: list(pyir.dispatch.apply_op(  # noqa: E731
        "multiclass_nms3", {"BBoxes": b, "Scores": s}, attrs).values())
    for got, _ in (run_static(call, [boxes, scores]), run_eager(call, [boxes, scores])):
        out, index, num = got
        np.testing.assert_allclose(out, want_out, rtol=1e-5)
        assert index.ravel().tolist() == want_index and num.tolist() == want_num
    (out, index, num), _ = run_eager(call, [boxes, scores * 0])
    assert out.shape == (0, 6) and index.shape == (0, 1) and num.tolist() == [0, 0]


def test_saved_program_with_vision_ops_loads_and_runs(tmp_path):
    """Attributes of every type (empty FLOATS, INTS, STRING, BOOLEAN) survive the file."""
    pyir.enable_static()
    main, startup = pyir.static.Program(), pyir.static.Program()
    with pyir.static.program_guard(main, startup):
        p = pyir.static.data("p", [2, 4], "float32")
        t = pyir.static.data("t", [2, 4], "float32")
        x = pyir.static.data("x", [1, 14, 2, 2], "float32")
        s = pyir.static.data("s", [1, 2], "int32")
        coded = ops.box_coder(p, [0.1, 0.1, 0.2, 0.2], t, box_normalized=False)
        boxes, scores = ops.yolo_box(x, s, [10, 13, 16, 30], 2, 0.3, 16)
    exe = pyir.static.Executor()
    exe.run(startup)
    feed = {"p": PRIOR, "t": TARGET, "x": YOLO_X, "s": np.array([[50, 70]], "int32")}
    pyir.static.save_inference_model(str(tmp_path / "det"), [main.global_block().var(n)
                                                            for n in feed],
                                     [coded, boxes, scores], exe, program=main)
    program, feeds, fetches = pyir.static.load_inference_model(str(tmp_path / "det"), exe)
    got = exe.run(program, feed={n: feed[n] for n in feeds}, fetch_list=fetches)
    _check_values(got, [P.ENCODE, P.YOLO_BOXES, P.YOLO_SCORES])
    ops_by_type = {op.type: op for op in program.global_block().ops}
    assert ops_by_type["box_coder"].attrs["code_type"] == "encode_center_size"
    assert ops_by_type["yolo_box"].attrs["anchors"] == [10, 13, 16, 30]
