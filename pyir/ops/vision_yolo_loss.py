"""yolov3_loss (+ `_grad`): the YOLOv3 training loss of one detection head, with the rules
of Paddle's CPU kernel: GTBox [N, B, 4] holds normalized (cx, cy, w, h); each valid box is
assigned to its best-IoU anchor (by shape) and the cell holding its center; predictions whose
box overlaps some ground truth above ignore_thresh are left out of the objectness loss."""

from __future__ import annotations

import math

import numpy as np

from ..registry import Attr, Example, Slot, VarSpec, register_op
from ..registry import AttrType as T
from ._helpers import default_grad

_ATTRS = [Attr("anchors", T.INTS, []), Attr("anchor_mask", T.INTS, []),
          Attr("class_num", T.INT, 1), Attr("ignore_thresh", T.FLOAT, 0.7),
          Attr("downsample_ratio", T.INT, 32), Attr("use_label_smooth", T.BOOLEAN, True),
          Attr("scale_x_y", T.FLOAT, 1.0)]


def _sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def _sce(x, label):
    """Sigmoid cross entropy with logits."""
    return max(x, 0.0) - x * label + math.log1p(math.exp(-abs(x)))


def _iou_center(a, b):
    """IoU of (cx, cy, w, h) boxes; arrays broadcast."""
    ow = np.minimum(a[0] + a[2] / 2, b[0] + b[2] / 2) - np.maximum(a[0] - a[2] / 2,
                                                                   b[0] - b[2] / 2)
    oh = np.minimum(a[1] + a[3] / 2, b[1] + b[3] / 2) - np.maximum(a[1] - a[3] / 2,
                                                                   b[1] - b[3] / 2)
    inter = np.where((ow > 0) & (oh > 0), ow * oh, 0.0)
    return inter / (a[2] * a[3] + b[2] * b[3] - inter)


def _valid(box) -> bool:
    return box[2] >= 1e-6 and box[3] >= 1e-6


def yolo_loss_parts(X, GTBox, GTLabel, GTScore, anchors, anchor_mask, class_num,
                    ignore_thresh, downsample_ratio, use_label_smooth, scale_x_y):
    """(loss [N], objectness mask, match mask, dLoss/dX) in float64."""
    n, _, h, w = X.shape
    masks = len(anchor_mask)
    x = X.astype(np.float64).reshape(n, masks, 5 + class_num, h, w)
    boxes = GTBox.astype(np.float64)
    scores = np.ones(GTLabel.shape) if GTScore is None else GTScore.astype(np.float64)
    input_size = downsample_ratio * h
    anchor = np.asarray(anchors, np.float64).reshape(-1, 2)
    pos, neg = 1.0, 0.0
    if use_label_smooth:
        smooth = min(1.0 / class_num, 1.0 / 40)
        pos, neg = 1.0 - smooth, smooth
    bias = -0.5 * (scale_x_y - 1.0)
    loss = np.zeros(n)
    grad = np.zeros_like(x)
    obj = np.zeros((n, masks, h, w))
    match = np.full(GTLabel.shape, -1, np.int32)
    cols, rows = np.arange(w)[None, None, :], np.arange(h)[None, :, None]
    for i in range(n):
        pred = [(cols + _sigmoid(x[i, :, 0]) * scale_x_y + bias) / h,
                (rows + _sigmoid(x[i, :, 1]) * scale_x_y + bias) / h,
                np.exp(x[i, :, 2]) * anchor[anchor_mask, 0][:, None, None] / input_size,
                np.exp(x[i, :, 3]) * anchor[anchor_mask, 1][:, None, None] / input_size]
        best = np.zeros((masks, h, w))
        for gt in boxes[i]:
            if _valid(gt):
                best = np.maximum(best, _iou_center(pred, gt))
        obj[i][best > ignore_thresh] = -1.0
        for t, gt in enumerate(boxes[i]):
            if not _valid(gt):
                continue
            gi, gj = int(gt[0] * w), int(gt[1] * h)
            shape_iou = _iou_center([0.0, 0.0, anchor[:, 0] / input_size,
                                     anchor[:, 1] / input_size], [0.0, 0.0, gt[2], gt[3]])
            best_n = int(np.argmax(shape_iou))
            if best_n not in anchor_mask:
                continue
            m = list(anchor_mask).index(best_n)
            match[i, t] = m
            score = scores[i, t]
            cell = x[i, m, :, gj, gi]
            weight = (2.0 - gt[2] * gt[3]) * score
            targets = [gt[0] * h - gi, gt[1] * h - gj,
                       math.log(gt[2] * input_size / anchor[best_n, 0]),
                       math.log(gt[3] * input_size / anchor[best_n, 1])]
            # Paddle 3.3.1's grad kernel assigns (rather than adds) these terms, so where two
            # boxes share a cell and anchor only the last counts there; pyir adds both, the
            # gradient of the loss its forward (and Paddle's) computes
            for k in (0, 1):
                loss[i] += _sce(cell[k], targets[k]) * weight
                grad[i, m, k, gj, gi] += (_sigmoid(cell[k]) - targets[k]) * weight
            for k in (2, 3):
                loss[i] += abs(cell[k] - targets[k]) * weight
                grad[i, m, k, gj, gi] += (1.0 if cell[k] > targets[k] else -1.0) * weight
            obj[i, m, gj, gi] = score
            for c in range(class_num):
                label = pos if c == int(GTLabel[i, t]) else neg
                loss[i] += _sce(cell[5 + c], label) * score
                grad[i, m, 5 + c, gj, gi] += (_sigmoid(cell[5 + c]) - label) * score
        logits = x[i, :, 4]
        positive = obj[i] > 1e-5
        negative = ~positive & (obj[i] > -0.5)
        sce_pos = np.maximum(logits, 0) - logits + np.log1p(np.exp(-np.abs(logits)))
        sce_neg = np.maximum(logits, 0) + np.log1p(np.exp(-np.abs(logits)))
        loss[i] += (sce_pos * obj[i])[positive].sum() + sce_neg[negative].sum()
        grad[i, :, 4] += np.where(positive, (_sigmoid(logits) - 1.0) * obj[i],
                                  np.where(negative, _sigmoid(logits), 0.0))
    return loss, obj, match, grad.reshape(X.shape)


def _infer(ctx):
    x, gt = ctx.input("X"), ctx.input("GTLabel")
    masks = len(ctx.attr("anchor_mask"))
    return {"Loss": VarSpec((x.shape[0],), x.dtype),
            "ObjectnessMask": VarSpec((x.shape[0], masks, x.shape[2], x.shape[3]), x.dtype),
            # Paddle's programs declare the match mask with X's dtype (its kernel then fills
            # int32 into it); pyir produces what the program declares
            "GTMatchMask": VarSpec(tuple(gt.shape), x.dtype)}


_GT_BOX = np.array([[[0.3, 0.4, 0.4, 0.5], [0.8, 0.2, 0.1, 0.1], [0.5, 0.5, 0.0, 0.0]],
                    [[0.6, 0.7, 0.9, 0.3], [0.1, 0.1, 0.2, 0.6], [0.45, 0.9, 0.2, 0.15]]],
                   np.float32)


@register_op(
    "yolov3_loss", no_extra_attrs=True,
    inputs=["X", Slot("GTBox", no_grad=True), Slot("GTLabel", no_grad=True),
            Slot("GTScore", dispensable=True, no_grad=True)],
    outputs=["Loss", Slot("ObjectnessMask", no_grad=True), Slot("GTMatchMask", no_grad=True)],
    attrs=_ATTRS, infer=_infer,
    grad=default_grad("yolov3_loss_grad", uses=["X", "GTBox", "GTLabel", "GTScore",
                                                "ObjectnessMask", "GTMatchMask"],
                      out_grads=["Loss"], in_grads=["X"], keep_empty=()),
    doc="YOLOv3 loss per image: sigmoid CE on x/y offsets and L1 on log w/h of the matched "
        "cells (weighted 2 - w*h), sigmoid CE on classes and objectness",
    # the expectation was produced by Paddle 3.3.1 (paddle.vision.ops.yolo_loss, CPU)
    examples=[Example({"X": (np.arange(2 * 14 * 3 * 3) * 17 % 29 / 7 - 2).astype("float32")
                       .reshape(2, 14, 3, 3), "GTBox": _GT_BOX,
                       "GTLabel": np.array([[1, 0, 1], [0, 1, 1]], np.int32),
                       "GTScore": np.array([[1.0, 0.7, 1.0], [0.5, 1.0, 0.9]], np.float32)},
                      {"anchors": [10, 13, 16, 30, 33, 23, 30, 61], "anchor_mask": [0, 2],
                       "class_num": 2, "ignore_thresh": 0.5, "downsample_ratio": 8},
                      {"Loss": np.array([26.237335, 37.81611], np.float32)})],
)
def yolov3_loss(X, GTBox, GTLabel, GTScore, anchors, anchor_mask, class_num, ignore_thresh,
                downsample_ratio, use_label_smooth, scale_x_y):
    loss, obj, match, _ = yolo_loss_parts(X, GTBox, GTLabel, GTScore, anchors, anchor_mask,
                                          class_num, ignore_thresh, downsample_ratio,
                                          use_label_smooth, scale_x_y)
    return {"Loss": loss.astype(X.dtype), "ObjectnessMask": obj.astype(X.dtype),
            "GTMatchMask": match.astype(X.dtype)}


@register_op("yolov3_loss_grad",
             inputs=["X", "GTBox", "GTLabel", Slot("GTScore", dispensable=True),
                     "ObjectnessMask", "GTMatchMask", "Loss@GRAD"],
             # Paddle's grad op also lists the (never written) ground-truth gradient slots
             outputs=["X@GRAD", Slot("GTBox@GRAD", dispensable=True),
                      Slot("GTLabel@GRAD", dispensable=True),
                      Slot("GTScore@GRAD", dispensable=True)],
             attrs=_ATTRS, grad_of="yolov3_loss",
             doc="dX = dLoss[n] * (sigmoid(x) - target) for the CE terms, sign(x - target) for "
                 "the L1 terms, 0 for ignored objectness")
def yolov3_loss_grad(X, GTBox, GTLabel, GTScore, ObjectnessMask, GTMatchMask, Loss_grad,
                     anchors, anchor_mask, class_num, ignore_thresh, downsample_ratio,
                     use_label_smooth, scale_x_y):
    *_, grad = yolo_loss_parts(X, GTBox, GTLabel, GTScore, anchors, anchor_mask, class_num,
                               ignore_thresh, downsample_ratio, use_label_smooth, scale_x_y)
    scale = np.asarray(Loss_grad, np.float64).reshape(-1, 1, 1, 1)
    return {"X@GRAD": (grad * scale).astype(X.dtype)}
