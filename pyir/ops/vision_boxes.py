"""Box ops of detection models: yolo_box (decode YOLOv3 heads), box_coder (encode/decode
center-size boxes), prior_box (SSD anchors), anchor_generator (Faster R-CNN anchors), and
read_file (a file's bytes as uint8)."""

from __future__ import annotations

import math

import numpy as np

from ..errors import KernelError
from ..registry import Attr, Example, Slot, VarSpec, register_op
from ..registry import AttrType as T


def _sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


# --- yolo_box --------------------------------------------------------------------------------
_YOLO_ATTRS = [Attr("anchors", T.INTS, []), Attr("class_num", T.INT, 1),
               Attr("conf_thresh", T.FLOAT, 0.01), Attr("downsample_ratio", T.INT, 32),
               Attr("clip_bbox", T.BOOLEAN, True), Attr("scale_x_y", T.FLOAT, 1.0),
               Attr("iou_aware", T.BOOLEAN, False), Attr("iou_aware_factor", T.FLOAT, 0.5)]


def _yolo_infer(ctx):
    x, a = ctx.input("X"), ctx.attrs
    anchors = len(a["anchors"]) // 2
    boxes = -1 if -1 in x.shape[2:] else anchors * x.shape[2] * x.shape[3]
    return {"Boxes": VarSpec((x.shape[0], boxes, 4), x.dtype),
            "Scores": VarSpec((x.shape[0], boxes, a["class_num"]), x.dtype)}


def _yolo_expect(X, ImgSize, anchors, class_num, conf_thresh, downsample_ratio,
                 clip_bbox=True, scale_x_y=1.0, iou_aware=False, iou_aware_factor=0.5):
    """Loop reference over every image, anchor and cell."""
    n, _, h, w = X.shape
    na = len(anchors) // 2
    boxes = np.zeros((n, na * h * w, 4))
    scores = np.zeros((n, na * h * w, class_num))
    sig = lambda v: 1 / (1 + math.exp(-v))  # noqa: E731
    for b in range(n):
        ih, iw = ImgSize[b]
        for j in range(na):
            base = na + j * (5 + class_num) if iou_aware else j * (5 + class_num)
            for k in range(h):
                for l in range(w):
                    conf = sig(X[b, base + 4, k, l])
                    if iou_aware:
                        conf = conf ** (1 - iou_aware_factor) * \
                            sig(X[b, j, k, l]) ** iou_aware_factor
                    if conf < conf_thresh:
                        continue
                    cx = (l + sig(X[b, base, k, l]) * scale_x_y - 0.5 * (scale_x_y - 1)) * iw / w
                    cy = (k + sig(X[b, base + 1, k, l]) * scale_x_y - 0.5 * (scale_x_y - 1)) \
                        * ih / h
                    bw = math.exp(X[b, base + 2, k, l]) * anchors[2 * j] * iw / \
                        (downsample_ratio * w)
                    bh = math.exp(X[b, base + 3, k, l]) * anchors[2 * j + 1] * ih / \
                        (downsample_ratio * h)
                    box = [cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2]
                    if clip_bbox:
                        box = [max(box[0], 0), max(box[1], 0), min(box[2], iw - 1),
                               min(box[3], ih - 1)]
                    i = j * h * w + k * w + l
                    boxes[b, i] = box
                    scores[b, i] = [conf * sig(X[b, base + 5 + c, k, l])
                                    for c in range(class_num)]
    return {"Boxes": boxes.astype(X.dtype), "Scores": scores.astype(X.dtype)}


@register_op(
    "yolo_box", no_extra_attrs=True,
    inputs=["X", Slot("ImgSize", no_grad=True)], outputs=["Boxes", "Scores"],
    attrs=_YOLO_ATTRS, infer=_yolo_infer,
    doc="decode a YOLOv3 head X [N, A*(5+classes), H, W] into Boxes [N, A*H*W, 4] (x1, y1, "
        "x2, y2 in image pixels) and Scores = objectness * class probability",
    examples=[Example({"X": np.random.default_rng(1).uniform(-2, 2, (2, 14, 3, 2))
                       .astype("float32"), "ImgSize": np.array([[60, 50], [40, 90]], np.int32)},
                      {"anchors": [10, 13, 16, 30], "class_num": 2, "conf_thresh": 0.4,
                       "downsample_ratio": 16}, _yolo_expect, grad=False),
              Example({"X": np.random.default_rng(2).uniform(-2, 2, (1, 16, 2, 2)),
                       "ImgSize": np.array([[64, 48]], np.int32)},
                      {"anchors": [8, 9, 12, 5], "class_num": 2, "conf_thresh": 0.2,
                       "downsample_ratio": 8, "clip_bbox": False, "scale_x_y": 1.2,
                       "iou_aware": True, "iou_aware_factor": 0.3}, _yolo_expect, grad=False)],
)
def yolo_box(X, ImgSize, anchors, class_num, conf_thresh, downsample_ratio, clip_bbox,
             scale_x_y, iou_aware, iou_aware_factor):
    n, c, h, w = X.shape
    na = len(anchors) // 2
    per = 5 + class_num
    if c != na * (per + (1 if iou_aware else 0)):
        raise KernelError(f"yolo_box: X has {c} channels; {na} anchors and {class_num} "
                          f"classes need {na * (per + (1 if iou_aware else 0))}")
    x = X.astype(np.float64)
    iou = x[:, :na] if iou_aware else None
    head = (x[:, na:] if iou_aware else x).reshape(n, na, per, h, w)
    conf = _sigmoid(head[:, :, 4])
    if iou_aware:
        conf = conf ** (1 - iou_aware_factor) * _sigmoid(iou) ** iou_aware_factor
    keep = conf >= conf_thresh
    img = np.asarray(ImgSize, np.float64)
    img_h, img_w = img[:, 0][:, None, None, None], img[:, 1][:, None, None, None]
    bias = -0.5 * (scale_x_y - 1.0)
    grid_x = np.arange(w)[None, None, None, :]
    grid_y = np.arange(h)[None, None, :, None]
    anchor = np.asarray(anchors, np.float64).reshape(na, 2)
    cx = (grid_x + _sigmoid(head[:, :, 0]) * scale_x_y + bias) * img_w / w
    cy = (grid_y + _sigmoid(head[:, :, 1]) * scale_x_y + bias) * img_h / h
    bw = np.exp(head[:, :, 2]) * anchor[None, :, 0, None, None] * img_w / (downsample_ratio * w)
    bh = np.exp(head[:, :, 3]) * anchor[None, :, 1, None, None] * img_h / (downsample_ratio * h)
    x1, y1, x2, y2 = cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2
    if clip_bbox:
        x1, y1 = np.maximum(x1, 0), np.maximum(y1, 0)
        x2, y2 = np.minimum(x2, img_w - 1), np.minimum(y2, img_h - 1)
    boxes = np.stack([x1, y1, x2, y2], -1) * keep[..., None]
    scores = (conf[:, :, None] * _sigmoid(head[:, :, 5:]) * keep[:, :, None])
    scores = np.moveaxis(scores, 2, -1)
    return {"Boxes": boxes.reshape(n, -1, 4).astype(X.dtype),
            "Scores": scores.reshape(n, -1, class_num).astype(X.dtype)}


# --- box_coder -------------------------------------------------------------------------------
_CODER_ATTRS = [Attr("code_type", T.STRING, "encode_center_size"),
                Attr("box_normalized", T.BOOLEAN, True), Attr("axis", T.INT, 0),
                Attr("variance", T.FLOATS, [])]


def _center_size(boxes, normalized):
    extra = 0.0 if normalized else 1.0
    w = boxes[..., 2] - boxes[..., 0] + extra
    h = boxes[..., 3] - boxes[..., 1] + extra
    return boxes[..., 0] + w / 2, boxes[..., 1] + h / 2, w, h


def _coder_infer(ctx):
    p, t, a = ctx.input("PriorBox"), ctx.input("TargetBox"), ctx.attrs
    if a["code_type"] == "encode_center_size":
        shape = (t.shape[0], p.shape[0], 4)
    else:
        shape = tuple(t.shape) if len(t.shape) == 3 else (t.shape[0], p.shape[0], 4)
    return {"OutputBox": VarSpec(shape, t.dtype)}


def _coder_expect(PriorBox, TargetBox, PriorBoxVar=None, code_type="encode_center_size",
                  box_normalized=True, axis=0, variance=()):
    """Loop reference of both code types."""
    e = 0 if box_normalized else 1
    m = PriorBox.shape[0]
    if code_type == "encode_center_size":
        out = np.zeros((TargetBox.shape[0], m, 4))
        for i, t in enumerate(TargetBox):
            for j, p in enumerate(PriorBox):
                pw, ph = p[2] - p[0] + e, p[3] - p[1] + e
                tw, th = t[2] - t[0] + e, t[3] - t[1] + e
                v = [((t[0] + t[2]) / 2 - p[0] - pw / 2) / pw,
                     ((t[1] + t[3]) / 2 - p[1] - ph / 2) / ph,
                     math.log(abs(tw / pw)), math.log(abs(th / ph))]
                var = PriorBoxVar[j] if PriorBoxVar is not None else \
                    (variance if len(variance) else [1, 1, 1, 1])
                out[i, j] = np.array(v) / var
        return {"OutputBox": out.astype(TargetBox.dtype)}
    out = np.zeros(TargetBox.shape)
    for i in range(TargetBox.shape[0]):
        for j in range(TargetBox.shape[1]):
            k = j if axis == 0 else i
            p, t = PriorBox[k], TargetBox[i, j]
            var = PriorBoxVar[k] if PriorBoxVar is not None else \
                (variance if len(variance) else [1, 1, 1, 1])
            pw, ph = p[2] - p[0] + e, p[3] - p[1] + e
            cx, cy = var[0] * t[0] * pw + p[0] + pw / 2, var[1] * t[1] * ph + p[1] + ph / 2
            w, h = math.exp(var[2] * t[2]) * pw, math.exp(var[3] * t[3]) * ph
            out[i, j] = [cx - w / 2, cy - h / 2, cx + w / 2 - e, cy + h / 2 - e]
    return {"OutputBox": out.astype(TargetBox.dtype)}


_PRIORS = np.array([[1.0, 2.0, 5.0, 7.0], [0.5, 0.5, 3.0, 2.0], [2.0, 1.0, 4.5, 6.0]],
                   np.float32)
_TARGETS = np.array([[1.5, 1.0, 4.0, 5.0], [0.0, 0.2, 2.0, 3.0]], np.float32)


@register_op(
    "box_coder", no_extra_attrs=True,
    inputs=["PriorBox", Slot("PriorBoxVar", dispensable=True), "TargetBox"],
    outputs=["OutputBox"], attrs=_CODER_ATTRS, infer=_coder_infer,
    doc="encode TargetBox [N, 4] against PriorBox [M, 4] into [N, M, 4] offsets (or decode "
        "[N, M, 4] offsets back into boxes), divided (multiplied) by the variances",
    examples=[Example({"PriorBox": _PRIORS, "TargetBox": _TARGETS},
                      {"variance": [0.1, 0.1, 0.2, 0.2]}, _coder_expect, grad=False),
              Example({"PriorBox": _PRIORS, "PriorBoxVar": np.abs(_PRIORS) / 10 + 0.1,
                       "TargetBox": _TARGETS}, {"box_normalized": False}, _coder_expect,
                      grad=False),
              Example({"PriorBox": _PRIORS, "PriorBoxVar": np.abs(_PRIORS) / 10 + 0.1,
                       "TargetBox": np.random.default_rng(3).uniform(-1, 1, (3, 2, 4))
                       .astype("float32")},
                      {"code_type": "decode_center_size", "box_normalized": False, "axis": 1},
                      _coder_expect, grad=False)],
)
def box_coder(PriorBox, PriorBoxVar, TargetBox, code_type, box_normalized, axis, variance):
    prior = PriorBox.astype(np.float64)
    pcx, pcy, pw, ph = _center_size(prior, box_normalized)
    if PriorBoxVar is not None:
        var = PriorBoxVar.astype(np.float64)
    elif len(variance):
        if len(variance) != 4:
            raise KernelError(f"box_coder: variance must have 4 values, got {list(variance)}")
        var = np.tile(np.asarray(variance, np.float64), (prior.shape[0], 1))
    else:
        var = np.ones((prior.shape[0], 4))
    if code_type == "encode_center_size":
        # Paddle centers the target at the plain midpoint, the prior at x1 + width / 2
        target = TargetBox.astype(np.float64)[:, None, :]
        _, _, tw, th = _center_size(target, box_normalized)
        tcx, tcy = (target[..., 0] + target[..., 2]) / 2, (target[..., 1] + target[..., 3]) / 2
        out = np.stack([(tcx - pcx) / pw, (tcy - pcy) / ph, np.log(np.abs(tw / pw)),
                        np.log(np.abs(th / ph))], -1) / var[None]
        return {"OutputBox": out.astype(TargetBox.dtype)}
    if code_type != "decode_center_size":
        raise KernelError(f"box_coder: code_type must be encode_center_size or "
                          f"decode_center_size, got {code_type!r}")
    target = TargetBox.astype(np.float64)
    if target.ndim == 2:
        target = target[:, None, :] if axis == 0 and prior.shape[0] == 1 else \
            np.broadcast_to(target[:, None, :], (target.shape[0], prior.shape[0], 4))
    expand = (lambda v: v[None, :]) if axis == 0 else (lambda v: v[:, None])
    pcx, pcy, pw, ph = expand(pcx), expand(pcy), expand(pw), expand(ph)
    v = var[None] if axis == 0 else var[:, None]
    cx = v[..., 0] * target[..., 0] * pw + pcx
    cy = v[..., 1] * target[..., 1] * ph + pcy
    w = np.exp(v[..., 2] * target[..., 2]) * pw
    h = np.exp(v[..., 3] * target[..., 3]) * ph
    e = 0.0 if box_normalized else 1.0
    out = np.stack([cx - w / 2, cy - h / 2, cx + w / 2 - e, cy + h / 2 - e], -1)
    return {"OutputBox": out.astype(TargetBox.dtype)}


# --- prior_box -------------------------------------------------------------------------------
_PRIOR_ATTRS = [Attr("min_sizes", T.FLOATS, []), Attr("max_sizes", T.FLOATS, []),
                Attr("aspect_ratios", T.FLOATS, [1.0]),
                Attr("variances", T.FLOATS, [0.1, 0.1, 0.2, 0.2]),
                Attr("flip", T.BOOLEAN, False), Attr("clip", T.BOOLEAN, False),
                Attr("step_w", T.FLOAT, 0.0), Attr("step_h", T.FLOAT, 0.0),
                Attr("offset", T.FLOAT, 0.5), Attr("min_max_aspect_ratios_order", T.BOOLEAN,
                                                   False)]


def expand_aspect_ratios(ratios, flip):
    """1.0 first, then each new ratio (and its inverse with flip), duplicates dropped."""
    out = [1.0]
    for r in ratios:
        if any(abs(r - e) < 1e-6 for e in out):
            continue
        out.append(float(r))
        if flip:
            out.append(1.0 / r)
    return out


def _prior_sizes(min_sizes, max_sizes, ratios, order):
    """(half width, half height) of each prior at a cell, in Paddle's order."""
    sizes = []
    for i, s in enumerate(min_sizes):
        big = [(math.sqrt(s * max_sizes[i]) / 2,) * 2] if max_sizes else []
        if order:
            sizes.append((s / 2, s / 2))
            sizes += big
            sizes += [(s * math.sqrt(r) / 2, s / math.sqrt(r) / 2) for r in ratios
                      if abs(r - 1.0) >= 1e-6]
        else:
            sizes += [(s * math.sqrt(r) / 2, s / math.sqrt(r) / 2) for r in ratios]
            sizes += big
    return sizes


def _prior_infer(ctx):
    x, a = ctx.input("Input"), ctx.attrs
    count = len(expand_aspect_ratios(a["aspect_ratios"], a["flip"])) * len(a["min_sizes"]) + \
        len(a["max_sizes"])
    shape = (x.shape[2], x.shape[3], count, 4)
    return {"Boxes": VarSpec(shape, x.dtype), "Variances": VarSpec(shape, x.dtype)}


def _prior_expect(Input, Image, min_sizes, max_sizes=(), aspect_ratios=(1.0,),
                  variances=(0.1, 0.1, 0.2, 0.2), flip=False, clip=False, step_w=0.0,
                  step_h=0.0, offset=0.5, min_max_aspect_ratios_order=False):
    h, w = Input.shape[2:]
    ih, iw = Image.shape[2:]
    sw = step_w or iw / w
    sh = step_h or ih / h
    ratios = expand_aspect_ratios(aspect_ratios, flip)
    rows = []
    for i in range(h):
        for j in range(w):
            cx, cy = (j + offset) * sw, (i + offset) * sh
            for hw, hh in _prior_sizes(min_sizes, max_sizes, ratios,
                                       min_max_aspect_ratios_order):
                rows.append([(cx - hw) / iw, (cy - hh) / ih, (cx + hw) / iw, (cy + hh) / ih])
    boxes = np.array(rows).reshape(h, w, -1, 4)
    if clip:
        boxes = np.clip(boxes, 0, 1)
    return {"Boxes": boxes.astype(Input.dtype),
            "Variances": np.broadcast_to(np.array(variances), boxes.shape).astype(Input.dtype)}


@register_op(
    "prior_box", inputs=[Slot("Input", no_grad=True), Slot("Image", no_grad=True)],
    outputs=["Boxes", "Variances"], attrs=_PRIOR_ATTRS, infer=_prior_infer,
    doc="SSD prior boxes [H, W, priors, 4] (normalized x1, y1, x2, y2) around each cell of "
        "Input's feature map, and their variances",
    examples=[Example({"Input": np.zeros((1, 2, 2, 3), np.float32),
                       "Image": np.zeros((1, 3, 20, 30), np.float32)},
                      {"min_sizes": [4.0, 8.0], "max_sizes": [9.0, 12.0],
                       "aspect_ratios": [2.0, 1.0], "flip": True, "clip": True},
                      _prior_expect, grad=False),
              Example({"Input": np.zeros((1, 2, 3, 2), np.float32),
                       "Image": np.zeros((1, 3, 16, 16), np.float32)},
                      {"min_sizes": [5.0], "max_sizes": [7.0], "aspect_ratios": [3.0],
                       "step_w": 6.0, "step_h": 5.0, "offset": 0.3,
                       "min_max_aspect_ratios_order": True}, _prior_expect, grad=False)],
)
def prior_box(Input, Image, min_sizes, max_sizes, aspect_ratios, variances, flip, clip,
              step_w, step_h, offset, min_max_aspect_ratios_order):
    h, w = Input.shape[2:]
    ih, iw = Image.shape[2:]
    sw = step_w if step_w != 0 else iw / w
    sh = step_h if step_h != 0 else ih / h
    sizes = np.array(_prior_sizes(list(min_sizes), list(max_sizes),
                                  expand_aspect_ratios(aspect_ratios, flip),
                                  min_max_aspect_ratios_order)).reshape(-1, 2)
    cx = ((np.arange(w) + offset) * sw)[None, :, None]
    cy = ((np.arange(h) + offset) * sh)[:, None, None]
    boxes = np.stack([(cx - sizes[:, 0]) / iw + 0 * cy, (cy - sizes[:, 1]) / ih + 0 * cx,
                      (cx + sizes[:, 0]) / iw + 0 * cy, (cy + sizes[:, 1]) / ih + 0 * cx], -1)
    if clip:
        boxes = np.clip(boxes, 0.0, 1.0)
    var = np.broadcast_to(np.asarray(variances, np.float64), boxes.shape)
    return {"Boxes": boxes.astype(Input.dtype), "Variances": var.astype(Input.dtype)}


# --- anchor_generator ------------------------------------------------------------------------
_ANCHOR_ATTRS = [Attr("anchor_sizes", T.FLOATS, [64.0, 128.0, 256.0, 512.0]),
                 Attr("aspect_ratios", T.FLOATS, [0.5, 1.0, 2.0]),
                 Attr("variances", T.FLOATS, [0.1, 0.1, 0.2, 0.2]),
                 Attr("stride", T.FLOATS, [16.0, 16.0]), Attr("offset", T.FLOAT, 0.5)]


def _anchor_infer(ctx):
    x, a = ctx.input("Input"), ctx.attrs
    shape = (x.shape[2], x.shape[3], len(a["anchor_sizes"]) * len(a["aspect_ratios"]), 4)
    return {"Anchors": VarSpec(shape, x.dtype), "Variances": VarSpec(shape, x.dtype)}


def _anchor_expect(Input, anchor_sizes, aspect_ratios, variances, stride, offset=0.5):
    """Loop reference of Paddle's anchor_generator kernel."""
    h, w = Input.shape[2:]
    sw, sh = stride
    rows = []
    for i in range(h):
        for j in range(w):
            cx, cy = j * sw + offset * (sw - 1), i * sh + offset * (sh - 1)
            for r in aspect_ratios:
                for size in anchor_sizes:
                    base_w = math.floor(math.sqrt(sw * sh / r) + 0.5)
                    base_h = math.floor(base_w * r + 0.5)
                    aw, ah = size / sw * base_w, size / sh * base_h
                    rows.append([cx - (aw - 1) / 2, cy - (ah - 1) / 2, cx + (aw - 1) / 2,
                                 cy + (ah - 1) / 2])
    boxes = np.array(rows).reshape(h, w, -1, 4)
    return {"Anchors": boxes.astype(Input.dtype),
            "Variances": np.broadcast_to(np.array(variances), boxes.shape).astype(Input.dtype)}


@register_op(
    "anchor_generator", no_extra_attrs=True,
    inputs=[Slot("Input", no_grad=True)], outputs=["Anchors", "Variances"],
    attrs=_ANCHOR_ATTRS, infer=_anchor_infer,
    doc="Faster R-CNN anchors [H, W, ratios*sizes, 4] (pixel x1, y1, x2, y2) centered at "
        "(j * stride_w + offset * (stride_w - 1), i * stride_h + ...) of Input's feature map: "
        "for each aspect ratio r and size s, a base box round(sqrt(stride area / r)) wide and "
        "round(width * r) high scaled by s / stride; and their variances",
    examples=[Example({"Input": np.zeros((1, 2, 2, 3), np.float32)},
                      {"anchor_sizes": [16.0, 40.0], "aspect_ratios": [0.5, 1.0, 2.0],
                       "variances": [0.1, 0.1, 0.2, 0.2], "stride": [8.0, 6.0],
                       "offset": 0.3}, _anchor_expect, grad=False)],
)
def anchor_generator(Input, anchor_sizes, aspect_ratios, variances, stride, offset):
    h, w = Input.shape[2:]
    sw, sh = float(stride[0]), float(stride[1])
    ratios = np.asarray(aspect_ratios, np.float64)[:, None]
    sizes = np.asarray(anchor_sizes, np.float64)[None, :]
    base_w = np.floor(np.sqrt(sw * sh / ratios) + 0.5)  # C++ round: half away from zero
    base_h = np.floor(base_w * ratios + 0.5)
    half_w = ((sizes / sw * base_w - 1) / 2).reshape(-1)
    half_h = ((sizes / sh * base_h - 1) / 2).reshape(-1)
    cx = (np.arange(w) * sw + offset * (sw - 1))[None, :, None]
    cy = (np.arange(h) * sh + offset * (sh - 1))[:, None, None]
    zeros = np.zeros((h, w, half_w.size))
    boxes = np.stack([cx - half_w + zeros, cy - half_h + zeros, cx + half_w + zeros,
                      cy + half_h + zeros], -1)
    var = np.broadcast_to(np.asarray(variances, np.float64), boxes.shape)
    return {"Anchors": boxes.astype(Input.dtype), "Variances": var.astype(Input.dtype)}


# --- read_file -------------------------------------------------------------------------------
@register_op(
    "read_file", outputs=["Out"], attrs=[Attr("filename", T.STRING, "")],
    infer=lambda ctx: {"Out": VarSpec((-1,), np.dtype("uint8"))},
    doc="Out = the bytes of the file `filename` as a 1-D uint8 tensor",
    examples=[Example({}, {"filename": __file__},
                      lambda filename: {"Out": np.fromfile(filename, np.uint8)}, grad=False)],
)
def read_file(filename):
    try:
        with open(filename, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise KernelError(f"read_file: cannot read {filename!r}: {exc.strerror}") from None
    return {"Out": np.frombuffer(data, np.uint8).copy()}
