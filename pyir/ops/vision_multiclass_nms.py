"""Multiclass NMS of detection heads: multiclass_nms3 (Out, Index, NmsRoisNum) and the legacy
multiclass_nms (Out only), with the rules of Paddle's CPU kernel (multiclass_nms3_kernel.cc):

- per class, boxes above score_threshold sorted by score with a stable sort (ties keep the
  lower index first), the first nms_top_k, then greedy NMS (adaptive with nms_eta);
- keep_top_k: all kept boxes of an image stably sorted by score, the first keep_top_k;
- Out rows grouped by label (ascending), within a label in NMS order; with per-class boxes
  (BBoxes [M, C, 4], Scores [M, C], RoisNum) the kept indices of each label are re-sorted
  ascending, and Index is (first box of the image + box) * C + label;
- nothing kept: multiclass_nms3 gives Out [0, 6] and Index [0, 1]; multiclass_nms gives
  Out = [[-1]] (one row, one column), Paddle's "no detection" marker.
(docs/detection-ops.md collects these conventions.)
"""

from __future__ import annotations

import numpy as np

from ..registry import Attr, Example, Slot, VarSpec, register_op
from ..registry import AttrType as T
from .vision_nms import greedy_nms

_ATTRS = [Attr("score_threshold", T.FLOAT, 0.0), Attr("nms_top_k", T.INT, -1),
          Attr("keep_top_k", T.INT, -1), Attr("nms_threshold", T.FLOAT, 0.3),
          Attr("normalized", T.BOOLEAN, True), Attr("nms_eta", T.FLOAT, 1.0),
          Attr("background_label", T.INT, 0)]


def _nms_fast(boxes, scores, score_threshold, nms_threshold, eta, top_k, normalized):
    """Greedy NMS of one class: indices kept, in descending score order."""
    order = [int(i) for i in np.argsort(-scores, kind="stable") if scores[i] > score_threshold]
    if top_k > -1:
        order = order[:top_k]
    return greedy_nms(boxes, order, nms_threshold, normalized, eta)


def _image(boxes, scores, a):
    """{label: kept indices} of one image (boxes [M, 4], or per class [M, C, 4])."""
    per_class = boxes.ndim == 3
    kept = {}
    for c in range(scores.shape[0]):
        if c == a["background_label"]:
            continue
        class_boxes = boxes[:, c] if per_class else boxes
        kept[c] = _nms_fast(class_boxes, scores[c], a["score_threshold"], a["nms_threshold"],
                            a["nms_eta"], a["nms_top_k"], a["normalized"])
        if per_class:
            kept[c].sort()
    total = sum(len(v) for v in kept.values())
    if -1 < a["keep_top_k"] < total:
        ranked = sorted(((scores[c, i], c, i) for c, idx in sorted(kept.items()) for i in idx),
                        key=lambda t: -t[0])[:a["keep_top_k"]]
        kept = {}
        for _, c, i in ranked:
            kept.setdefault(c, []).append(i)
        if per_class:
            for v in kept.values():
                v.sort()
    return kept


def _multiclass(BBoxes, Scores, RoisNum, attrs):
    """(rows [K, 6], Index [K], kept per image)."""
    if Scores.ndim == 3:  # BBoxes [N, M, 4], Scores [N, C, M]
        m = BBoxes.shape[1]
        images = [(BBoxes[b].astype(np.float64), Scores[b].astype(np.float64), b * m)
                  for b in range(Scores.shape[0])]
    else:  # BBoxes [M, C, 4], Scores [M, C], RoisNum boxes per image
        c = Scores.shape[1]
        counts = [Scores.shape[0]] if RoisNum is None else [int(v) for v in np.ravel(RoisNum)]
        starts = np.concatenate([[0], np.cumsum(counts)]).astype(int)
        images = [(BBoxes[s:e].astype(np.float64), Scores[s:e].T.astype(np.float64), s * c)
                  for s, e in zip(starts[:-1], starts[1:])]
    rows, index, per_image = [], [], []
    for boxes, scores, offset in images:
        kept = _image(boxes, scores, attrs) if scores.shape[1] else {}
        count = 0
        for c in sorted(kept):
            for i in kept[c]:
                if boxes.ndim == 3:
                    rows.append([c, scores[c, i], *boxes[i, c]])
                    index.append(offset + i * scores.shape[0] + c)
                else:
                    rows.append([c, scores[c, i], *boxes[i]])
                    index.append(offset + i)
                count += 1
        per_image.append(count)
    return rows, index, per_image


def _attrs(**kw):
    return kw


@register_op(
    "multiclass_nms3", no_extra_attrs=True,
    inputs=["BBoxes", "Scores", Slot("RoisNum", dispensable=True)],
    outputs=["Out", "Index", "NmsRoisNum"], attrs=_ATTRS,
    infer=lambda ctx: {"Out": VarSpec((-1, 6), ctx.input("BBoxes").dtype),
                       "Index": VarSpec((-1, 1), np.dtype("int32")),
                       "NmsRoisNum": VarSpec((-1,), np.dtype("int32"))},
    doc="per image and class greedy NMS (adaptive with nms_eta), the keep_top_k best kept; Out "
        "rows [label, score, x1, y1, x2, y2] by label then score, Index into the boxes",
    # by hand: class 1 keeps boxes 0 and 2 (box 1 overlaps box 0 by IoU 0.5 > 0.4); class 2
    # keeps box 1 only (its 0.05 is under the score threshold for box 2)
    examples=[Example({"BBoxes": np.array([[[0, 0, 1, 1], [0, 0, 1, 0.5], [2, 2, 3, 3]]],
                                          np.float32),
                       "Scores": np.array([[[0.3, 0.3, 0.3], [0.9, 0.8, 0.7],
                                            [0.2, 0.6, 0.05]]], np.float32)},
                      {"score_threshold": 0.1, "nms_threshold": 0.4},
                      {"Out": np.array([[1, 0.9, 0, 0, 1, 1], [1, 0.7, 2, 2, 3, 3],
                                        [2, 0.6, 0, 0, 1, 0.5]], np.float32),
                       "Index": np.array([[0], [2], [1]], np.int32),
                       "NmsRoisNum": np.array([3], np.int32)}, grad=False),
              # per-class boxes: box 1 of class 1 is kept before box 0 by score, but Paddle
              # lists a label's boxes by index; Index = box * classes + label
              Example({"BBoxes": np.array([[[0, 0, 1, 1], [0, 0, 1, 1]],
                                           [[5, 5, 6, 6], [2, 2, 3, 3]]], np.float32),
                       "Scores": np.array([[0.1, 0.4], [0.2, 0.9]], np.float32),
                       "RoisNum": np.array([2], np.int32)},
                      {"score_threshold": 0.3, "nms_threshold": 0.5},
                      {"Out": np.array([[1, 0.4, 0, 0, 1, 1], [1, 0.9, 2, 2, 3, 3]],
                                       np.float32),
                       "Index": np.array([[1], [3]], np.int32),
                       "NmsRoisNum": np.array([2], np.int32)}, grad=False)],
)
def multiclass_nms3(BBoxes, Scores, RoisNum, score_threshold, nms_top_k, keep_top_k,
                    nms_threshold, normalized, nms_eta, background_label):
    attrs = _attrs(score_threshold=score_threshold, nms_top_k=nms_top_k, keep_top_k=keep_top_k,
                   nms_threshold=nms_threshold, normalized=normalized, nms_eta=nms_eta,
                   background_label=background_label)
    rows, index, per_image = _multiclass(BBoxes, Scores, RoisNum, attrs)
    return {"Out": np.array(rows, BBoxes.dtype).reshape(-1, 6),
            "Index": np.array(index, np.int32).reshape(-1, 1),
            "NmsRoisNum": np.array(per_image, np.int32)}


@register_op(
    "multiclass_nms", no_extra_attrs=True,
    inputs=["BBoxes", "Scores"], outputs=["Out"], attrs=_ATTRS,
    infer=lambda ctx: {"Out": VarSpec((-1, 6), ctx.input("BBoxes").dtype)},
    doc="the legacy multiclass NMS: multiclass_nms3's Out only (Paddle kept the images apart "
        "by LoD); with nothing kept Out is [[-1]]",
    examples=[Example({"BBoxes": np.array([[[0, 0, 1, 1], [0, 0, 1, 0.5], [2, 2, 3, 3]]],
                                          np.float32),
                       "Scores": np.array([[[0.3, 0.3, 0.3], [0.9, 0.8, 0.7]]], np.float32)},
                      {"score_threshold": 0.1, "nms_threshold": 0.4, "keep_top_k": 1},
                      {"Out": np.array([[1, 0.9, 0, 0, 1, 1]], np.float32)}, grad=False)],
)
def multiclass_nms(BBoxes, Scores, score_threshold, nms_top_k, keep_top_k, nms_threshold,
                   normalized, nms_eta, background_label):
    attrs = _attrs(score_threshold=score_threshold, nms_top_k=nms_top_k, keep_top_k=keep_top_k,
                   nms_threshold=nms_threshold, normalized=normalized, nms_eta=nms_eta,
                   background_label=background_label)
    rows, _, _ = _multiclass(BBoxes, Scores, None, attrs)
    if not rows:
        return {"Out": np.full((1, 1), -1, BBoxes.dtype)}
    return {"Out": np.array(rows, BBoxes.dtype).reshape(-1, 6)}
