"""Box selection ops of detection models: nms (greedy, on sorted boxes), matrix_nms (SOLOv2
score decay), generate_proposals_v2 (RPN proposals) and distribute_fpn_proposals (RoIs to
FPN levels), with the rules of Paddle's CPU kernels (multiclass NMS: vision_multiclass_nms)."""

from __future__ import annotations

import math

import numpy as np

from ..registry import Attr, Example, Slot, VarSpec, register_op
from ..registry import AttrType as T
from . import stl_sort as stl


def box_area(box, normalized: bool) -> float:
    if box[2] < box[0] or box[3] < box[1]:
        return 0.0
    extra = 0.0 if normalized else 1.0
    return (box[2] - box[0] + extra) * (box[3] - box[1] + extra)


def jaccard(a, b, normalized: bool) -> float:
    """IoU of two boxes; +1 pixel widths when not normalized."""
    if b[0] > a[2] or b[2] < a[0] or b[1] > a[3] or b[3] < a[1]:
        return 0.0
    extra = 0.0 if normalized else 1.0
    iw = min(a[2], b[2]) - max(a[0], b[0]) + extra
    ih = min(a[3], b[3]) - max(a[1], b[1]) + extra
    inter = iw * ih
    return inter / (box_area(a, normalized) + box_area(b, normalized) - inter)


def jaccard_row(box, boxes, normalized: bool) -> np.ndarray:
    """`jaccard(box, b)` for every row b of boxes [K, 4], vectorized."""
    extra = 0.0 if normalized else 1.0
    disjoint = (boxes[:, 0] > box[2]) | (boxes[:, 2] < box[0]) | (boxes[:, 1] > box[3]) | \
        (boxes[:, 3] < box[1])
    inter = (np.minimum(box[2], boxes[:, 2]) - np.maximum(box[0], boxes[:, 0]) + extra) * \
        (np.minimum(box[3], boxes[:, 3]) - np.maximum(box[1], boxes[:, 1]) + extra)
    areas = np.where((boxes[:, 2] < boxes[:, 0]) | (boxes[:, 3] < boxes[:, 1]), 0.0,
                     (boxes[:, 2] - boxes[:, 0] + extra) * (boxes[:, 3] - boxes[:, 1] + extra))
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = inter / (box_area(box, normalized) + areas - inter)
    return np.where(disjoint, 0.0, iou)


def greedy_nms(boxes, order, threshold, normalized, eta=1.0) -> list[int]:
    """Visit `order`; keep a box when its IoU with every kept box is <= the threshold (which
    shrinks by eta after each keep while above 0.5: Paddle's adaptive NMS)."""
    order = np.asarray(order, np.int64)
    worst = np.zeros(len(order))  # the highest IoU of each candidate with a kept box
    candidates = boxes[order] if len(order) else np.zeros((0, 4))
    selected = []
    for position, index in enumerate(order):
        if worst[position] > threshold:
            continue
        selected.append(int(index))
        if position + 1 < len(order):
            rest = slice(position + 1, None)
            worst[rest] = np.maximum(worst[rest], jaccard_row(boxes[index], candidates[rest],
                                                              normalized))
        if eta < 1 and threshold > 0.5:
            threshold *= eta
    return selected


# --- nms -------------------------------------------------------------------------------------
def _nms_expect(Boxes, iou_threshold):
    keep = []
    for i, box in enumerate(Boxes):
        if all(jaccard(box, Boxes[k], True) <= iou_threshold for k in keep):
            keep.append(i)
    return {"KeepBoxesIdxs": np.array(keep, np.int64)}


@register_op(
    "nms", no_extra_attrs=True,
    inputs=["Boxes"], outputs=["KeepBoxesIdxs"],
    attrs=[Attr("iou_threshold", T.FLOAT, 1.0)],
    infer=lambda ctx: {"KeepBoxesIdxs": VarSpec((-1,), np.dtype("int64"))},
    doc="indices of the boxes (in their given order) kept by greedy NMS: a box is dropped when "
        "its IoU with a kept box exceeds iou_threshold",
    examples=[Example({"Boxes": np.array([[0, 0, 4, 4], [1, 1, 5, 5], [0, 0, 4, 3.2],
                                          [6, 6, 8, 8], [6.5, 6, 8, 8]], np.float32)},
                      {"iou_threshold": 0.5}, _nms_expect, grad=False)],
)
def nms(Boxes, iou_threshold):
    boxes = Boxes.astype(np.float64)
    keep = greedy_nms(boxes, range(len(boxes)), iou_threshold, True)
    return {"KeepBoxesIdxs": np.array(keep, np.int64)}


# --- matrix_nms ------------------------------------------------------------------------------
_MATRIX_ATTRS = [Attr("score_threshold", T.FLOAT, 0.0), Attr("nms_top_k", T.INT, -1),
                 Attr("keep_top_k", T.INT, -1), Attr("post_threshold", T.FLOAT, 0.0),
                 Attr("use_gaussian", T.BOOLEAN, False), Attr("gaussian_sigma", T.FLOAT, 2.0),
                 Attr("background_label", T.INT, 0), Attr("normalized", T.BOOLEAN, True)]


def _matrix_class(boxes, scores, a):
    """(index, decayed score) kept for one class of one image. The candidates above the
    threshold (in index order) are ranked by std::partial_sort, as Paddle's kernel does, so tied
    scores come out in libstdc++'s heap order."""
    order = [i for i in range(len(scores)) if scores[i] > a["score_threshold"]]
    count = len(order)
    if a["nms_top_k"] > -1:
        count = min(count, a["nms_top_k"])
    stl.partial_sort(order, 0, count, len(order), lambda i, j: scores[i] > scores[j])
    order = order[:count]
    iou = np.zeros((count, count))
    for i in range(count):
        for j in range(i):
            iou[i, j] = jaccard(boxes[order[i]], boxes[order[j]], a["normalized"])
    iou_max = np.array([iou[i, :i].max() if i else 0.0 for i in range(count)])
    kept = []
    for i in range(count):
        decay = 1.0
        for j in range(i):
            if a["use_gaussian"]:
                d = math.exp((iou_max[j] ** 2 - iou[i, j] ** 2) * a["gaussian_sigma"])
            else:  # a duplicate of a kept box (max IoU 1) gives inf or nan: C++ std::min
                with np.errstate(divide="ignore", invalid="ignore"):  # then keeps `decay`
                    d = (1 - iou[i, j]) / (1 - iou_max[j])
            decay = min(decay, d)  # like std::min(decay, d): d only when d < decay
        score = float(np.float32(decay * scores[order[i]]))  # Paddle decays in float32
        if score > a["post_threshold"]:
            kept.append((order[i], score))
    return kept


@register_op(
    "matrix_nms", no_extra_attrs=True,
    inputs=["BBoxes", "Scores"],
    outputs=["Out", "Index", "RoisNum"], attrs=_MATRIX_ATTRS,
    infer=lambda ctx: {"Out": VarSpec((-1, 6), ctx.input("BBoxes").dtype),
                       "Index": VarSpec((-1, 1), np.dtype("int32")),
                       "RoisNum": VarSpec((-1,), np.dtype("int32"))},
    doc="Matrix NMS: per image and class, scores decayed by the IoU with higher-scored boxes; "
        "Out rows [label, score, x1, y1, x2, y2], Index into N*M boxes, RoisNum per image",
    # by hand: IoU(box1, box0) = 0.5 decays 0.8 by (1 - 0.5) / (1 - 0) to 0.4; box2 keeps 0.7
    examples=[Example({"BBoxes": np.array([[[0, 0, 1, 1], [0, 0, 1, 0.5], [2, 2, 3, 3]]],
                                          np.float32),
                       "Scores": np.array([[[0.3, 0.3, 0.3], [0.9, 0.8, 0.7]]], np.float32)},
                      {"score_threshold": 0.1, "post_threshold": 0.1},
                      {"Out": np.array([[1, 0.9, 0, 0, 1, 1], [1, 0.7, 2, 2, 3, 3],
                                        [1, 0.4, 0, 0, 1, 0.5]], np.float32),
                       "Index": np.array([[0], [2], [1]], np.int32),
                       "RoisNum": np.array([3], np.int32)}, grad=False)],
)
def matrix_nms(BBoxes, Scores, score_threshold, nms_top_k, keep_top_k, post_threshold,
               use_gaussian, gaussian_sigma, background_label, normalized):
    attrs = dict(score_threshold=score_threshold, nms_top_k=nms_top_k,
                 post_threshold=post_threshold, use_gaussian=use_gaussian,
                 gaussian_sigma=gaussian_sigma, normalized=normalized)
    n, classes, m = Scores.shape
    rows, index, counts = [], [], []
    for b in range(n):
        boxes = BBoxes[b].astype(np.float64)
        found = []
        for c in range(classes):
            if c == background_label:
                continue
            found += [(score, c, i) for i, score in
                      _matrix_class(boxes, Scores[b, c].astype(np.float64), attrs)]
        keep = len(found) if keep_top_k <= -1 else min(len(found), keep_top_k)
        rank = list(range(len(found)))
        stl.partial_sort(rank, 0, keep, len(found), lambda i, j: found[i][0] > found[j][0])
        found = [found[i] for i in rank[:keep]]
        counts.append(len(found))
        for score, c, i in found:
            rows.append([c, score, *boxes[i]])
            index.append(b * m + i)
    return {"Out": np.array(rows, BBoxes.dtype).reshape(-1, 6),
            "Index": np.array(index, np.int32).reshape(-1, 1),
            "RoisNum": np.array(counts, np.int32)}


# --- distribute_fpn_proposals ----------------------------------------------------------------
_FPN_ATTRS = [Attr("min_level", T.INT, 0), Attr("max_level", T.INT, 0),
              Attr("refer_level", T.INT, 0), Attr("refer_scale", T.INT, 0),
              Attr("pixel_offset", T.BOOLEAN, True)]


def fpn_levels(rois, min_level, max_level, refer_level, refer_scale, pixel_offset):
    """The FPN level of each RoI: floor(log2(sqrt(area) / refer_scale + 1e-8) + refer_level),
    clipped to [min_level, max_level]."""
    levels = []
    for box in rois:
        scale = math.sqrt(box_area(box, not pixel_offset))
        level = math.floor(math.log2(scale / refer_scale + 1e-8) + refer_level)
        levels.append(min(max(level, min_level), max_level))
    return np.array(levels, np.int64)


@register_op(
    "distribute_fpn_proposals", no_extra_attrs=True,
    inputs=["FpnRois", Slot("RoisNum", dispensable=True)],
    outputs=[Slot("MultiFpnRois", duplicable=True), "RestoreIndex",
             Slot("MultiLevelRoIsNum", duplicable=True)],
    attrs=_FPN_ATTRS,
    infer=lambda ctx: {
        "MultiFpnRois": [VarSpec((-1, 4), ctx.input("FpnRois").dtype)] *
        (ctx.attr("max_level") - ctx.attr("min_level") + 1),
        "RestoreIndex": VarSpec((-1, 1), np.dtype("int32")),
        "MultiLevelRoIsNum": [VarSpec((-1,), np.dtype("int32"))] *
        (ctx.attr("max_level") - ctx.attr("min_level") + 1)},
    doc="split RoIs by FPN level (by their scale); RestoreIndex maps the concatenated levels "
        "back to the input order",
    # by hand: sqrt(area) 10, 300, 109.5 against 224 at level 4 -> levels 2, 4, 2
    examples=[Example({"FpnRois": np.array([[0, 0, 10, 10], [0, 0, 300, 300], [0, 0, 100, 120]],
                                           np.float32), "RoisNum": np.array([3], np.int32)},
                      {"min_level": 2, "max_level": 5, "refer_level": 4, "refer_scale": 224,
                       "pixel_offset": False},
                      {"MultiFpnRois": [np.array([[0, 0, 10, 10], [0, 0, 100, 120]], np.float32),
                                        np.zeros((0, 4), np.float32),
                                        np.array([[0, 0, 300, 300]], np.float32),
                                        np.zeros((0, 4), np.float32)],
                       "RestoreIndex": np.array([[0], [2], [1]], np.int32),
                       "MultiLevelRoIsNum": [np.array([2], np.int32), np.array([0], np.int32),
                                             np.array([1], np.int32), np.array([0], np.int32)]},
                      grad=False)],
)
def distribute_fpn_proposals(FpnRois, RoisNum, min_level, max_level, refer_level, refer_scale,
                             pixel_offset):
    rois = FpnRois.astype(np.float64)
    per_image = [len(rois)] if RoisNum is None else [int(v) for v in np.ravel(RoisNum)]
    image = np.repeat(np.arange(len(per_image)), per_image)
    levels = fpn_levels(rois, min_level, max_level, refer_level, refer_scale, pixel_offset)
    outs, nums, order = [], [], []
    for level in range(min_level, max_level + 1):
        picked = np.nonzero(levels == level)[0]
        order.extend(picked.tolist())
        outs.append(FpnRois[picked].reshape(-1, 4))
        nums.append(np.array([(image[picked] == b).sum() for b in range(len(per_image))],
                             np.int32))
    restore = np.empty(len(order), np.int32)
    restore[np.array(order, np.int64)] = np.arange(len(order))
    return {"MultiFpnRois": outs, "RestoreIndex": restore.reshape(-1, 1),
            "MultiLevelRoIsNum": nums}


# --- generate_proposals_v2 -------------------------------------------------------------------
_PROPOSAL_ATTRS = [Attr("pre_nms_topN", T.INT, 6000), Attr("post_nms_topN", T.INT, 1000),
                   Attr("nms_thresh", T.FLOAT, 0.5), Attr("min_size", T.FLOAT, 0.1),
                   Attr("eta", T.FLOAT, 1.0), Attr("pixel_offset", T.BOOLEAN, True)]
_BBOX_CLIP = math.log(1000.0 / 16.0)


def decode_proposals(anchors, deltas, variances, pixel_offset):
    e = 1.0 if pixel_offset else 0.0
    aw = anchors[:, 2] - anchors[:, 0] + e
    ah = anchors[:, 3] - anchors[:, 1] + e
    acx, acy = anchors[:, 0] + 0.5 * aw, anchors[:, 1] + 0.5 * ah
    d = deltas * variances
    cx, cy = d[:, 0] * aw + acx, d[:, 1] * ah + acy
    w = np.exp(np.minimum(d[:, 2], _BBOX_CLIP)) * aw
    h = np.exp(np.minimum(d[:, 3], _BBOX_CLIP)) * ah
    return np.stack([cx - w / 2, cy - h / 2, cx + w / 2 - e, cy + h / 2 - e], 1)


def _image_proposals(scores, deltas, im_shape, anchors, variances, a):
    """Paddle's ProposalForOneImage: the top pre_nms_topN by std::nth_element (all of them by
    std::sort), in the order those leave them; NMS then visits by descending score, a tie
    taking the later candidate first (a stable ascending sort read from the back)."""
    order = list(range(len(scores)))
    higher = lambda i, j: scores[i] > scores[j]  # noqa: E731
    if 0 < a["pre_nms_topN"] < len(order):
        stl.nth_element(order, 0, a["pre_nms_topN"], len(order), higher)
        order = order[:a["pre_nms_topN"]]
    else:
        stl.sort(order, 0, len(order), higher)
    order = np.array(order, np.int64)
    e = 1.0 if a["pixel_offset"] else 0.0
    boxes = decode_proposals(anchors[order], deltas[order], variances[order], a["pixel_offset"])
    im_h, im_w = float(im_shape[0]), float(im_shape[1])
    boxes[:, 0::2] = np.clip(boxes[:, 0::2], 0, im_w - e)
    boxes[:, 1::2] = np.clip(boxes[:, 1::2], 0, im_h - e)
    min_size = max(a["min_size"], 1.0)
    w, h = boxes[:, 2] - boxes[:, 0] + e, boxes[:, 3] - boxes[:, 1] + e
    keep = (w >= min_size) & (h >= min_size)
    if a["pixel_offset"]:
        keep &= (boxes[:, 0] + w / 2 <= im_w) & (boxes[:, 1] + h / 2 <= im_h)
    boxes, probs = boxes[keep], scores[order][keep]
    if len(boxes) == 0:
        return np.zeros((1, 4)), np.zeros((1, 1))
    if a["nms_thresh"] <= 0:
        return boxes, probs.reshape(-1, 1)
    selected = greedy_nms(boxes, np.argsort(probs, kind="stable")[::-1], a["nms_thresh"],
                          not a["pixel_offset"], a["eta"])
    if 0 < a["post_nms_topN"] < len(selected):
        selected = selected[:a["post_nms_topN"]]
    return boxes[selected], probs[selected].reshape(-1, 1)


@register_op(
    "generate_proposals_v2", no_extra_attrs=True,
    inputs=["Scores", "BboxDeltas", "ImShape", "Anchors", "Variances"],
    outputs=["RpnRois", "RpnRoiProbs", "RpnRoisNum"],
    attrs=_PROPOSAL_ATTRS,
    infer=lambda ctx: {"RpnRois": VarSpec((-1, 4), ctx.input("Scores").dtype),
                       "RpnRoiProbs": VarSpec((-1, 1), ctx.input("Scores").dtype),
                       "RpnRoisNum": VarSpec((-1,), np.dtype("int32"))},
    doc="RPN proposals: anchors decoded by BboxDeltas, the top pre_nms_topN by score clipped "
        "to the image, small boxes dropped, NMS, the top post_nms_topN kept",
    # by hand: zero deltas keep the anchors; the 0.6-score anchor overlaps the 0.9 one by
    # IoU 0.81 and is suppressed; the 0.5-score anchor (IoU 0) stays
    examples=[Example({"Scores": np.array([[[[0.9, 0.6, 0.5]]]], np.float32),
                       "BboxDeltas": np.zeros((1, 4, 1, 3), np.float32),
                       "ImShape": np.array([[40, 40]], np.float32),
                       "Anchors": np.array([[[[0, 0, 10, 10]], [[0, 0, 9, 9]], [[20, 20, 30, 30]]]],
                                           np.float32).reshape(1, 3, 1, 4),
                       "Variances": np.ones((1, 3, 1, 4), np.float32)},
                      {"pixel_offset": False},
                      {"RpnRois": np.array([[0, 0, 10, 10], [20, 20, 30, 30]], np.float32),
                       "RpnRoiProbs": np.array([[0.9], [0.5]], np.float32),
                       "RpnRoisNum": np.array([2], np.int32)}, grad=False)],
)
def generate_proposals_v2(Scores, BboxDeltas, ImShape, Anchors, Variances, pre_nms_topN,
                          post_nms_topN, nms_thresh, min_size, eta, pixel_offset):
    attrs = dict(pre_nms_topN=pre_nms_topN, post_nms_topN=post_nms_topN, nms_thresh=nms_thresh,
                 min_size=min_size, eta=eta, pixel_offset=pixel_offset)
    n, a_num, h, w = Scores.shape
    anchors = Anchors.reshape(-1, 4).astype(np.float64)
    variances = Variances.reshape(-1, 4).astype(np.float64)
    rois, probs, counts = [], [], []
    for b in range(n):
        scores = Scores[b].transpose(1, 2, 0).reshape(-1).astype(np.float64)
        deltas = BboxDeltas[b].reshape(a_num, 4, h, w).transpose(2, 3, 0, 1).reshape(-1, 4)
        boxes, p = _image_proposals(scores, deltas.astype(np.float64), ImShape[b], anchors,
                                    variances, attrs)
        rois.append(boxes)
        probs.append(p)
        counts.append(len(boxes))
    return {"RpnRois": np.concatenate(rois).astype(Scores.dtype),
            "RpnRoiProbs": np.concatenate(probs).astype(Scores.dtype),
            "RpnRoisNum": np.array(counts, np.int32)}
