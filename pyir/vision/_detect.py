"""Detection functions of paddle.vision.ops: yolo_box, yolo_loss, box_coder, prior_box, nms,
matrix_nms, distribute_fpn_proposals, generate_proposals, read_file."""

from __future__ import annotations

import numbers

from ..dispatch import apply_op
from ..dispatch import out as _out
from ..tensor.creation import full, ones_like, zeros_like
from ..tensor.logic import equal
from ..tensor.manip_index import gather_nd, scatter
from ..tensor.manip_shape import reshape, unsqueeze
from ..tensor.search import argsort, where
from ._util import fail, floats

def yolo_box(x, img_size, anchors, class_num, conf_thresh, downsample_ratio, clip_bbox=True,
             name=None, scale_x_y=1.0, iou_aware=False, iou_aware_factor=0.5):
    """Decode a YOLOv3 head into (boxes [N, A*H*W, 4], scores [N, A*H*W, class_num])
    (op `yolo_box`).

    Example:
        >>> boxes, scores = ops.yolo_box(x, img_size, [10, 13, 16, 30], 80, 0.01, 32)
    """
    if not isinstance(anchors, (list, tuple)) or len(anchors) % 2 or \
            not all(isinstance(v, numbers.Integral) for v in anchors):
        fail("yolo_box", f"anchors must be a list of ints (w, h pairs), got {anchors!r}")
    if not isinstance(class_num, numbers.Integral) or class_num <= 0:
        fail("yolo_box", f"class_num must be a positive int, got {class_num!r}")
    if not 0 <= iou_aware_factor <= 1:
        fail("yolo_box", f"iou_aware_factor must be in [0, 1], got {iou_aware_factor!r}")
    attrs = {"anchors": [int(v) for v in anchors], "class_num": int(class_num),
             "conf_thresh": float(conf_thresh), "downsample_ratio": int(downsample_ratio),
             "clip_bbox": bool(clip_bbox), "scale_x_y": float(scale_x_y),
             "iou_aware": bool(iou_aware), "iou_aware_factor": float(iou_aware_factor)}
    result = apply_op("yolo_box", {"X": x, "ImgSize": img_size}, attrs, name=name)
    return result["Boxes"], result["Scores"]


def yolo_loss(x, gt_box, gt_label, anchors, anchor_mask, class_num, ignore_thresh,
              downsample_ratio, gt_score=None, use_label_smooth=True, name=None,
              scale_x_y=1.0):
    """The YOLOv3 loss [N] of one head x [N, len(anchor_mask)*(5+class_num), H, W] against
    gt_box [N, B, 4] (normalized cx, cy, w, h) and gt_label [N, B] (op `yolov3_loss`).

    Example:
        >>> loss = ops.yolo_loss(x, gt_box, gt_label, anchors, [0, 1, 2], 80, 0.7, 32)
    """
    for what, values in (("anchors", anchors), ("anchor_mask", anchor_mask)):
        if not isinstance(values, (list, tuple)) or \
                not all(isinstance(v, numbers.Integral) for v in values):
            fail("yolo_loss", f"{what} must be a list of ints, got {values!r}")
    if len(anchors) % 2 or any(not 0 <= m < len(anchors) // 2 for m in anchor_mask):
        fail("yolo_loss", f"anchors must be (w, h) pairs and anchor_mask must index them, got "
                          f"{list(anchors)} and {list(anchor_mask)}")
    if not isinstance(class_num, numbers.Integral) or class_num <= 0:
        fail("yolo_loss", f"class_num must be a positive int, got {class_num!r}")
    channels = x.shape[1]
    if channels > 0 and channels != len(anchor_mask) * (5 + class_num):
        fail("yolo_loss", f"x has {channels} channels; {len(anchor_mask)} masked anchors and "
                          f"{class_num} classes need {len(anchor_mask) * (5 + class_num)}")
    attrs = {"anchors": [int(v) for v in anchors],
             "anchor_mask": [int(v) for v in anchor_mask], "class_num": int(class_num),
             "ignore_thresh": float(ignore_thresh), "downsample_ratio": int(downsample_ratio),
             "use_label_smooth": bool(use_label_smooth), "scale_x_y": float(scale_x_y)}
    return _out("yolov3_loss", {"X": x, "GTBox": gt_box, "GTLabel": gt_label,
                                "GTScore": gt_score}, attrs, name=name, slot="Loss")


def box_coder(prior_box, prior_box_var, target_box, code_type="encode_center_size",
              box_normalized=True, axis=0, name=None):
    """Encode target boxes against prior boxes, or decode offsets back into boxes
    (op `box_coder`); prior_box_var is a [M, 4] tensor or 4 floats.

    Example:
        >>> deltas = ops.box_coder(priors, [0.1, 0.1, 0.2, 0.2], targets)
    """
    if code_type not in ("encode_center_size", "decode_center_size"):
        fail("box_coder", f"code_type must be 'encode_center_size' or 'decode_center_size', "
                          f"got {code_type!r}")
    if axis not in (0, 1):
        fail("box_coder", f"axis must be 0 or 1, got {axis!r}")
    attrs = {"code_type": code_type, "box_normalized": bool(box_normalized), "axis": int(axis)}
    inputs = {"PriorBox": prior_box, "TargetBox": target_box}
    if isinstance(prior_box_var, (list, tuple)):
        values = floats(prior_box_var, "prior_box_var", "box_coder")
        if len(values) != 4:
            fail("box_coder", f"prior_box_var must have 4 values, got {values}")
        attrs["variance"] = values
    elif prior_box_var is not None:
        inputs["PriorBoxVar"] = prior_box_var
        attrs["variance"] = []
    return _out("box_coder", inputs, attrs, name=name, slot="OutputBox")


def prior_box(input, image, min_sizes, max_sizes=None, aspect_ratios=[1.0],  # noqa: B006
              variance=[0.1, 0.1, 0.2, 0.2], flip=False, clip=False,  # noqa: B006
              steps=[0.0, 0.0], offset=0.5, min_max_aspect_ratios_order=False,  # noqa: B006
              name=None):
    """SSD prior boxes and variances [H, W, priors, 4] for the feature map `input` over
    `image` (op `prior_box`).

    Example:
        >>> boxes, variances = ops.prior_box(feature, image, [100.0], [200.0], [2.0])
    """
    mins = floats(min_sizes, "min_sizes", "prior_box")
    maxs = [] if max_sizes is None else floats(max_sizes, "max_sizes", "prior_box")
    if maxs and len(maxs) != len(mins):
        fail("prior_box", f"max_sizes must have one value per min size ({len(mins)}), got "
                          f"{len(maxs)}")
    step = floats(steps, "steps", "prior_box")
    if len(step) != 2:
        fail("prior_box", f"steps must be [step_w, step_h], got {steps!r}")
    var = floats(variance, "variance", "prior_box")
    if len(var) != 4:
        fail("prior_box", f"variance must have 4 values, got {var}")
    attrs = {"min_sizes": mins, "max_sizes": maxs,
             "aspect_ratios": floats(aspect_ratios, "aspect_ratios", "prior_box"),
             "variances": var, "flip": bool(flip), "clip": bool(clip), "step_w": step[0],
             "step_h": step[1], "offset": float(offset),
             "min_max_aspect_ratios_order": bool(min_max_aspect_ratios_order)}
    result = apply_op("prior_box", {"Input": input, "Image": image}, attrs, name=name)
    return result["Boxes"], result["Variances"]


def _nms(boxes, iou_threshold):
    return _out("nms", {"Boxes": boxes}, {"iou_threshold": float(iou_threshold)},
                slot="KeepBoxesIdxs")


def nms(boxes, iou_threshold=0.3, scores=None, category_idxs=None, categories=None,
        top_k=None):
    """Greedy NMS: the indices of the kept boxes (op `nms`); with scores the boxes are first
    sorted by score (argsort, gather_nd) and indices refer to the input order; with
    category_idxs and categories NMS runs per category and the kept indices come by
    descending score (the first top_k).

    Example:
        >>> keep = ops.nms(boxes, 0.5, scores)
    """
    if len(boxes.shape) != 2 or boxes.shape[1] not in (4, -1):
        fail("nms", f"boxes must be [num_boxes, 4], got shape {list(boxes.shape)}")
    if scores is None:
        return _nms(boxes, iou_threshold)
    if category_idxs is None:
        order = argsort(scores, descending=True)
        keep = _nms(gather_nd(boxes, unsqueeze(order, -1)), iou_threshold)
        return gather_nd(order, unsqueeze(keep, -1))
    if categories is None:
        fail("nms", "categories (the list of all category ids) is required with category_idxs")
    if top_k is not None and 0 < scores.shape[0] < top_k:
        fail("nms", f"top_k ({top_k}) must not exceed the number of boxes ({scores.shape[0]})")
    return _batched_nms(boxes, iou_threshold, scores, category_idxs, categories, top_k)


def _batched_nms(boxes, iou_threshold, scores, category_idxs, categories, top_k):
    """NMS within each category (Paddle's composition: where / gather / nms / scatter into a
    keep mask), then the kept boxes by descending score, the first top_k of them."""
    mask = zeros_like(scores, dtype="int32")
    for category in categories:
        same = where(equal(category_idxs, full([], category, category_idxs.dtype)))[0]
        count = same.shape[0]
        same = reshape(same, [count])
        if count == 0:
            continue
        if count == 1:
            mask = scatter(mask, same, ones_like(same, dtype="int32"), overwrite=True)
            continue
        order = argsort(gather_nd(scores, unsqueeze(same, -1)), descending=True)
        ordered = gather_nd(same, unsqueeze(order, -1))
        keep = _nms(gather_nd(boxes, unsqueeze(ordered, -1)), iou_threshold)
        kept = gather_nd(ordered, unsqueeze(keep, -1))
        mask = scatter(mask, kept, ones_like(kept, dtype="int32"), overwrite=True)
    kept = where(mask)[0]
    kept = reshape(kept, [kept.shape[0]])
    order = argsort(gather_nd(scores, unsqueeze(kept, -1)), descending=True)
    result = gather_nd(kept, unsqueeze(order, -1))
    return result if top_k is None else result[:top_k]


def matrix_nms(bboxes, scores, score_threshold, post_threshold, nms_top_k, keep_top_k,
               use_gaussian=False, gaussian_sigma=2.0, background_label=0, normalized=True,
               return_index=False, return_rois_num=True, name=None):
    """Matrix NMS over bboxes [N, M, 4] and scores [N, C, M] (op `matrix_nms`): detections
    (detections [K, 6] (label, score, box), rois_num per image or None, index or None).

    Example:
        >>> out, rois_num, _ = ops.matrix_nms(boxes, scores, 0.1, 0.1, 100, 10)
    """
    attrs = {"score_threshold": float(score_threshold), "nms_top_k": int(nms_top_k),
             "keep_top_k": int(keep_top_k), "post_threshold": float(post_threshold),
             "use_gaussian": bool(use_gaussian), "gaussian_sigma": float(gaussian_sigma),
             "background_label": int(background_label), "normalized": bool(normalized)}
    result = apply_op("matrix_nms", {"BBoxes": bboxes, "Scores": scores}, attrs, name=name)
    return (result["Out"], result["RoisNum"] if return_rois_num else None,
            result["Index"] if return_index else None)


def distribute_fpn_proposals(fpn_rois, min_level, max_level, refer_level, refer_scale,
                             pixel_offset=False, rois_num=None, name=None):
    """Split RoIs [R, 4] among FPN levels min_level..max_level by scale (op
    `distribute_fpn_proposals`): (rois per level, restore_index, rois_num per level or None).

    Example:
        >>> multi_rois, restore, nums = ops.distribute_fpn_proposals(rois, 2, 5, 4, 224,
        ...                                                          rois_num=rois_num)
    """
    if not min_level <= refer_level <= max_level:
        fail("distribute_fpn_proposals", f"need min_level <= refer_level <= max_level, got "
                                         f"{min_level}, {refer_level}, {max_level}")
    attrs = {"min_level": int(min_level), "max_level": int(max_level),
             "refer_level": int(refer_level), "refer_scale": int(refer_scale),
             "pixel_offset": bool(pixel_offset)}
    levels = max_level - min_level + 1
    result = apply_op("distribute_fpn_proposals", {"FpnRois": fpn_rois, "RoisNum": rois_num},
                      attrs, name=name)
    multi = list(result["MultiFpnRois"])[:levels]
    nums = list(result["MultiLevelRoIsNum"]) if rois_num is not None else None
    return multi, result["RestoreIndex"], nums


def generate_proposals(scores, bbox_deltas, img_size, anchors, variances, pre_nms_top_n=6000,
                       post_nms_top_n=1000, nms_thresh=0.5, min_size=0.1, eta=1.0,
                       pixel_offset=False, return_rois_num=False, name=None):
    """RPN proposals from scores [N, A, H, W] and deltas [N, 4A, H, W] over anchors
    (op `generate_proposals_v2`): (rois, roi probs, rois_num or None).

    Example:
        >>> rois, probs, num = ops.generate_proposals(s, d, im, a, v, return_rois_num=True)
    """
    attrs = {"pre_nms_topN": int(pre_nms_top_n), "post_nms_topN": int(post_nms_top_n),
             "nms_thresh": float(nms_thresh), "min_size": float(min_size), "eta": float(eta),
             "pixel_offset": bool(pixel_offset)}
    result = apply_op("generate_proposals_v2", {
        "Scores": scores, "BboxDeltas": bbox_deltas, "ImShape": img_size, "Anchors": anchors,
        "Variances": variances}, attrs, name=name)
    return result["RpnRois"], result["RpnRoiProbs"], \
        result["RpnRoisNum"] if return_rois_num else None


def read_file(filename, name=None):
    """The bytes of a file as a 1-D uint8 tensor (op `read_file`).

    Example:
        >>> data = ops.read_file("image.jpg")
    """
    if not isinstance(filename, str):
        fail("read_file", f"filename must be a str, got {type(filename).__name__}")
    return _out("read_file", {}, {"filename": filename}, name=name)
