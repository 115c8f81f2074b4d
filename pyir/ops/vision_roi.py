"""RoI pooling ops of detection models: roi_align, roi_pool, psroi_pool (+ `_grad` ops),
with the sampling rules of Paddle's CPU kernels. ROIs are [R, 4] boxes (x1, y1, x2, y2);
RoisNum [N] (int32) says how many boxes belong to each image."""

from __future__ import annotations

import math

import numpy as np

from ..errors import KernelError
from ..registry import Attr, Example, Slot, VarSpec, register_op
from ..registry import AttrType as T
from ._helpers import default_grad, same_as


def roi_batch_ids(rois, rois_num, batch: int, op_type: str) -> np.ndarray:
    """The image index of every RoI: from RoisNum, or image 0 when there is one image."""
    count = rois.shape[0]
    if rois_num is None:
        if batch != 1:
            raise KernelError(f"{op_type}: RoisNum (boxes_num) is required when the batch has "
                              f"{batch} images")
        return np.zeros(count, np.int64)
    per_image = np.asarray(rois_num).reshape(-1).astype(np.int64)
    if per_image.size != batch or per_image.sum() != count:
        raise KernelError(f"{op_type}: boxes_num {per_image.tolist()} must have one entry per "
                          f"image ({batch}) summing to the number of boxes ({count})")
    return np.repeat(np.arange(batch), per_image)


def _rois_infer(extra=None):
    def infer(ctx):
        x, rois, a = ctx.input("X"), ctx.input("ROIs"), ctx.attrs
        channels = a["output_channels"] if "output_channels" in a else x.shape[1]
        spec = VarSpec((rois.shape[0], channels, a["pooled_height"], a["pooled_width"]),
                       x.dtype)
        result = {"Out": spec}
        if extra:
            result[extra] = VarSpec(spec.shape, np.dtype("int64"))
        return result
    return infer


_ROI_INPUTS = ["X", Slot("ROIs", no_grad=True), Slot("RoisNum", dispensable=True, no_grad=True)]


# --- roi_align -------------------------------------------------------------------------------
def _bilinear_taps(y, x, height, width):
    """The four (flat index, weight) corner taps of bilinear samples at arrays y, x, with
    Paddle's rules: 0 outside [-1, size], coordinates clamped into the image."""
    inside = ~((y < -1.0) | (y > height) | (x < -1.0) | (x > width))
    y, x = np.maximum(y, 0.0), np.maximum(x, 0.0)
    y_low, x_low = np.floor(y).astype(np.int64), np.floor(x).astype(np.int64)
    y_edge, x_edge = y_low >= height - 1, x_low >= width - 1
    y_low, x_low = np.where(y_edge, height - 1, y_low), np.where(x_edge, width - 1, x_low)
    y_high = np.where(y_edge, height - 1, y_low + 1)
    x_high = np.where(x_edge, width - 1, x_low + 1)
    ly = np.where(y_edge, 0.0, y - y_low)
    lx = np.where(x_edge, 0.0, x - x_low)
    hy, hx = 1.0 - ly, 1.0 - lx
    return [(y_low * width + x_low, hy * hx * inside), (y_low * width + x_high, hy * lx * inside),
            (y_high * width + x_low, ly * hx * inside), (y_high * width + x_high, ly * lx * inside)]


def _align_taps(box, height, width, ph_n, pw_n, scale, ratio, aligned):
    """For one box: the taps over samples [PH, GH, PW, GW] and the sample count per bin."""
    shift = 0.5 if aligned else 0.0
    x1, y1, x2, y2 = [float(v) * scale - shift for v in box]
    roi_w, roi_h = x2 - x1, y2 - y1
    if not aligned:
        roi_w, roi_h = max(roi_w, 1.0), max(roi_h, 1.0)
    bin_h, bin_w = roi_h / ph_n, roi_w / pw_n
    grid_h = ratio if ratio > 0 else int(math.ceil(roi_h / ph_n))
    grid_w = ratio if ratio > 0 else int(math.ceil(roi_w / pw_n))
    ys = y1 + np.arange(ph_n)[:, None] * bin_h + (np.arange(grid_h)[None, :] + 0.5) * \
        bin_h / max(grid_h, 1)
    xs = x1 + np.arange(pw_n)[:, None] * bin_w + (np.arange(grid_w)[None, :] + 0.5) * \
        bin_w / max(grid_w, 1)
    y = np.broadcast_to(ys[:, :, None, None], (ph_n, grid_h, pw_n, grid_w))
    x = np.broadcast_to(xs[None, None], (ph_n, grid_h, pw_n, grid_w))
    return _bilinear_taps(y, x, height, width), max(grid_h * grid_w, 1)


_ALIGN_ATTRS = [Attr("pooled_height", T.INT, 1), Attr("pooled_width", T.INT, 1),
                Attr("spatial_scale", T.FLOAT, 1.0), Attr("sampling_ratio", T.INT, -1),
                Attr("aligned", T.BOOLEAN, False)]


def _align_expect(X, ROIs, RoisNum=None, pooled_height=1, pooled_width=1, spatial_scale=1.0,
                  sampling_ratio=-1, aligned=False):
    """Reference by direct averaging of bilinear samples, one output at a time."""
    n, c, h, w = X.shape
    ids = np.repeat(np.arange(n), RoisNum) if RoisNum is not None else np.zeros(len(ROIs), int)
    out = np.zeros((len(ROIs), c, pooled_height, pooled_width))
    shift = 0.5 if aligned else 0.0
    for r, (x1, y1, x2, y2) in enumerate(ROIs * spatial_scale - shift):
        rw, rh = (x2 - x1, y2 - y1) if aligned else (max(x2 - x1, 1), max(y2 - y1, 1))
        gh = sampling_ratio if sampling_ratio > 0 else math.ceil(rh / pooled_height)
        gw = sampling_ratio if sampling_ratio > 0 else math.ceil(rw / pooled_width)
        for i in range(pooled_height):
            for j in range(pooled_width):
                acc = np.zeros(c)
                for sy in range(gh):
                    for sx in range(gw):
                        yy = y1 + (i + (sy + 0.5) / gh) * rh / pooled_height
                        xx = x1 + (j + (sx + 0.5) / gw) * rw / pooled_width
                        if -1 <= yy <= h and -1 <= xx <= w:
                            yy, xx = min(max(yy, 0), h - 1), min(max(xx, 0), w - 1)
                            y0, x0 = min(int(yy), h - 1), min(int(xx), w - 1)
                            y1_, x1_ = min(y0 + 1, h - 1), min(x0 + 1, w - 1)
                            fy, fx = yy - y0, xx - x0
                            img = X[ids[r]]
                            acc += ((1 - fy) * (1 - fx) * img[:, y0, x0] +
                                    (1 - fy) * fx * img[:, y0, x1_] +
                                    fy * (1 - fx) * img[:, y1_, x0] + fy * fx * img[:, y1_, x1_])
                out[r, :, i, j] = acc / max(gh * gw, 1)
    return {"Out": out.astype(X.dtype)}


_BOXES = np.array([[0.5, 0.3, 3.2, 2.9], [1.1, 0.0, 4.6, 3.7], [2.0, 1.5, 2.4, 1.8]],
                  np.float32)


@register_op(
    "roi_align", no_extra_attrs=True,
    inputs=_ROI_INPUTS, outputs=["Out"], attrs=_ALIGN_ATTRS, infer=_rois_infer(),
    grad=default_grad("roi_align_grad", uses=["X", "ROIs", "RoisNum"], in_grads=["X"]),
    doc="Out[r, c] = the average of bilinear samples of X[batch(r), c] in each bin of box r",
    examples=[Example({"X": np.random.default_rng(1).uniform(-1, 1, (2, 2, 5, 5))
                       .astype("float32"), "ROIs": _BOXES,
                       "RoisNum": np.array([1, 2], np.int32)},
                      {"pooled_height": 2, "pooled_width": 3, "aligned": True}, _align_expect),
              Example({"X": np.random.default_rng(2).uniform(-1, 1, (1, 3, 6, 4)),
                       "ROIs": _BOXES[:2].astype("float64") * 2},
                      {"pooled_height": 2, "pooled_width": 2, "spatial_scale": 0.5,
                       "sampling_ratio": 2}, _align_expect)],
)
def roi_align(X, ROIs, RoisNum, pooled_height, pooled_width, spatial_scale, sampling_ratio,
              aligned):
    n, c, h, w = X.shape
    ids = roi_batch_ids(ROIs, RoisNum, n, "roi_align")
    flat = X.astype(np.float64).reshape(n, c, h * w)
    out = np.zeros((len(ids), c, pooled_height, pooled_width))
    for r, box in enumerate(np.asarray(ROIs, np.float64)):
        taps, count = _align_taps(box, h, w, pooled_height, pooled_width, spatial_scale,
                                  sampling_ratio, aligned)
        for index, weight in taps:
            out[r] += (flat[ids[r]][:, index] * weight).sum(axis=(2, 4)) / count
    return {"Out": out.astype(X.dtype)}


@register_op("roi_align_grad", inputs=["X", "ROIs", Slot("RoisNum", dispensable=True),
                                       "Out@GRAD"],
             outputs=["X@GRAD"], attrs=_ALIGN_ATTRS, grad_of="roi_align",
             infer=same_as("X", out="X@GRAD"),
             doc="dX[batch(r)] += the bilinear sample weights of each bin times dOut[r]")
def roi_align_grad(X, ROIs, RoisNum, Out_grad, pooled_height, pooled_width, spatial_scale,
                   sampling_ratio, aligned):
    n, c, h, w = X.shape
    ids = roi_batch_ids(ROIs, RoisNum, n, "roi_align")
    grad = np.zeros((n, c, h * w))
    for r, box in enumerate(np.asarray(ROIs, np.float64)):
        taps, count = _align_taps(box, h, w, pooled_height, pooled_width, spatial_scale,
                                  sampling_ratio, aligned)
        upstream = Out_grad[r].astype(np.float64)[:, :, None, :, None] / count
        for index, weight in taps:
            np.add.at(grad[ids[r]], (slice(None), index.reshape(-1)),
                      (upstream * weight).reshape(c, -1))
    return {"X@GRAD": grad.reshape(X.shape).astype(X.dtype)}


# --- roi_pool --------------------------------------------------------------------------------
_POOL_ATTRS = [Attr("pooled_height", T.INT, 1), Attr("pooled_width", T.INT, 1),
               Attr("spatial_scale", T.FLOAT, 1.0)]


def _round_half_away(v):
    return math.floor(v + 0.5) if v >= 0 else -math.floor(-v + 0.5)


def _pool_bins(box, height, width, ph_n, pw_n, scale):
    """For one box, per bin (ph, pw): (hstart, hend, wstart, wend) clipped to the image."""
    x1, y1, x2, y2 = [_round_half_away(float(v) * scale) for v in box]
    roi_h, roi_w = max(y2 - y1 + 1, 1), max(x2 - x1 + 1, 1)
    bin_h, bin_w = roi_h / ph_n, roi_w / pw_n
    for ph in range(ph_n):
        hs = min(max(int(math.floor(ph * bin_h)) + y1, 0), height)
        he = min(max(int(math.ceil((ph + 1) * bin_h)) + y1, 0), height)
        for pw in range(pw_n):
            ws = min(max(int(math.floor(pw * bin_w)) + x1, 0), width)
            we = min(max(int(math.ceil((pw + 1) * bin_w)) + x1, 0), width)
            yield ph, pw, hs, he, ws, we


def _pool_expect(X, ROIs, RoisNum=None, pooled_height=1, pooled_width=1, spatial_scale=1.0):
    n, c, h, w = X.shape
    ids = np.repeat(np.arange(n), RoisNum) if RoisNum is not None else np.zeros(len(ROIs), int)
    out = np.zeros((len(ROIs), c, pooled_height, pooled_width), X.dtype)
    arg = np.full(out.shape, -1, np.int64)
    for r, box in enumerate(ROIs):
        x1, y1, x2, y2 = [int(np.sign(v) * np.floor(abs(v) + 0.5)) for v in box * spatial_scale]
        rh, rw = max(y2 - y1 + 1, 1), max(x2 - x1 + 1, 1)
        for i in range(pooled_height):
            for j in range(pooled_width):
                hs = int(np.clip(np.floor(i * rh / pooled_height) + y1, 0, h))
                he = int(np.clip(np.ceil((i + 1) * rh / pooled_height) + y1, 0, h))
                ws = int(np.clip(np.floor(j * rw / pooled_width) + x1, 0, w))
                we = int(np.clip(np.ceil((j + 1) * rw / pooled_width) + x1, 0, w))
                if he <= hs or we <= ws:
                    continue
                patch = X[ids[r], :, hs:he, ws:we].reshape(c, -1)
                out[r, :, i, j] = patch.max(1)
                k = patch.argmax(1)
                arg[r, :, i, j] = (hs + k // (we - ws)) * w + ws + k % (we - ws)
    return {"Out": out, "Argmax": arg}


@register_op(
    "roi_pool", no_extra_attrs=True,
    inputs=_ROI_INPUTS, outputs=["Out", Slot("Argmax", no_grad=True)],
    attrs=_POOL_ATTRS, infer=_rois_infer("Argmax"),
    grad=default_grad("roi_pool_grad", uses=["X", "ROIs", "RoisNum", "Argmax"],
                      out_grads=["Out"], in_grads=["X"]),
    doc="Out[r, c] = the max of X[batch(r), c] over each bin of the rounded box r; Argmax the "
        "flat h*W+w of that max (-1 for an empty bin)",
    examples=[Example({"X": np.random.default_rng(3).uniform(-1, 1, (2, 2, 6, 5))
                       .astype("float32"), "ROIs": _BOXES * 1.4,
                       "RoisNum": np.array([2, 1], np.int32)},
                      {"pooled_height": 2, "pooled_width": 2}, _pool_expect),
              Example({"X": np.random.default_rng(4).uniform(-1, 1, (1, 1, 4, 4)),
                       "ROIs": np.array([[0.0, 0.0, 7.0, 5.0], [6.0, 6.0, 9.0, 9.0]])},
                      {"pooled_height": 3, "pooled_width": 2, "spatial_scale": 0.5},
                      _pool_expect)],
)
def roi_pool(X, ROIs, RoisNum, pooled_height, pooled_width, spatial_scale):
    n, c, h, w = X.shape
    ids = roi_batch_ids(ROIs, RoisNum, n, "roi_pool")
    out = np.zeros((len(ids), c, pooled_height, pooled_width), X.dtype)
    arg = np.full(out.shape, -1, np.int64)
    for r, box in enumerate(np.asarray(ROIs, np.float64)):
        for ph, pw, hs, he, ws, we in _pool_bins(box, h, w, pooled_height, pooled_width,
                                                 spatial_scale):
            if he <= hs or we <= ws:
                continue
            patch = X[ids[r], :, hs:he, ws:we].reshape(c, -1)
            k = patch.argmax(1)
            out[r, :, ph, pw] = patch[np.arange(c), k]
            arg[r, :, ph, pw] = (hs + k // (we - ws)) * w + ws + k % (we - ws)
    return {"Out": out, "Argmax": arg}


@register_op("roi_pool_grad", inputs=["X", "ROIs", Slot("RoisNum", dispensable=True),
                                      "Argmax", "Out@GRAD"],
             outputs=["X@GRAD"], attrs=_POOL_ATTRS, grad_of="roi_pool",
             infer=same_as("X", out="X@GRAD"), doc="dX[batch(r), c, Argmax] += dOut[r, c]")
def roi_pool_grad(X, ROIs, RoisNum, Argmax, Out_grad, pooled_height, pooled_width,
                  spatial_scale):
    n, c, h, w = X.shape
    ids = roi_batch_ids(ROIs, RoisNum, n, "roi_pool")
    grad = np.zeros((n, c, h * w))
    for r, b in enumerate(ids):
        for ch in range(c):
            where = Argmax[r, ch].reshape(-1)
            valid = where >= 0
            np.add.at(grad[b, ch], where[valid], Out_grad[r, ch].reshape(-1)[valid])
    return {"X@GRAD": grad.reshape(X.shape).astype(X.dtype)}


# --- psroi_pool ------------------------------------------------------------------------------
_PS_ATTRS = [Attr("pooled_height", T.INT, 1), Attr("pooled_width", T.INT, 1),
             Attr("output_channels", T.INT, 1), Attr("spatial_scale", T.FLOAT, 1.0)]


def _ps_bins(box, height, width, ph_n, pw_n, scale):
    x1 = _round_half_away(float(box[0])) * scale
    y1 = _round_half_away(float(box[1])) * scale
    x2 = (_round_half_away(float(box[2])) + 1.0) * scale
    y2 = (_round_half_away(float(box[3])) + 1.0) * scale
    bin_h, bin_w = max(y2 - y1, 0.1) / ph_n, max(x2 - x1, 0.1) / pw_n
    for ph in range(ph_n):
        hs = min(max(int(math.floor(bin_h * ph + y1)), 0), height)
        he = min(max(int(math.ceil(bin_h * (ph + 1) + y1)), 0), height)
        for pw in range(pw_n):
            ws = min(max(int(math.floor(bin_w * pw + x1)), 0), width)
            we = min(max(int(math.ceil(bin_w * (pw + 1) + x1)), 0), width)
            yield ph, pw, hs, he, ws, we


def _ps_expect(X, ROIs, RoisNum=None, pooled_height=1, pooled_width=1, output_channels=1,
               spatial_scale=1.0):
    n = X.shape[0]
    ids = np.repeat(np.arange(n), RoisNum) if RoisNum is not None else np.zeros(len(ROIs), int)
    out = np.zeros((len(ROIs), output_channels, pooled_height, pooled_width))
    for r, box in enumerate(ROIs):
        x1, y1, x2, y2 = np.sign(box) * np.floor(np.abs(box) + 0.5) + [0, 0, 1, 1]
        x1, y1, x2, y2 = x1 * spatial_scale, y1 * spatial_scale, x2 * spatial_scale, \
            y2 * spatial_scale
        bh, bw = max(y2 - y1, 0.1) / pooled_height, max(x2 - x1, 0.1) / pooled_width
        for c in range(output_channels):
            for i in range(pooled_height):
                for j in range(pooled_width):
                    hs, he = np.clip([np.floor(y1 + i * bh), np.ceil(y1 + (i + 1) * bh)], 0,
                                     X.shape[2]).astype(int)
                    ws, we = np.clip([np.floor(x1 + j * bw), np.ceil(x1 + (j + 1) * bw)], 0,
                                     X.shape[3]).astype(int)
                    if he > hs and we > ws:
                        ch = (c * pooled_height + i) * pooled_width + j
                        out[r, c, i, j] = X[ids[r], ch, hs:he, ws:we].mean()
    return {"Out": out.astype(X.dtype)}


def _ps_weights(X, ROIs, RoisNum, pooled_height, pooled_width, output_channels, spatial_scale):
    """Yields (roi, image, out channel, ph, pw, in channel, hs, he, ws, we) of non-empty bins."""
    n, channels, h, w = X.shape
    if channels != output_channels * pooled_height * pooled_width:
        raise KernelError(f"psroi_pool: the input has {channels} channels; it needs "
                          f"output_channels * pooled_height * pooled_width = "
                          f"{output_channels * pooled_height * pooled_width}")
    ids = roi_batch_ids(ROIs, RoisNum, n, "psroi_pool")
    for r, box in enumerate(np.asarray(ROIs, np.float64)):
        for ph, pw, hs, he, ws, we in _ps_bins(box, h, w, pooled_height, pooled_width,
                                               spatial_scale):
            if he <= hs or we <= ws:
                continue
            for c in range(output_channels):
                yield r, ids[r], c, ph, pw, (c * pooled_height + ph) * pooled_width + pw, \
                    hs, he, ws, we


@register_op(
    "psroi_pool", no_extra_attrs=True,
    inputs=_ROI_INPUTS, outputs=["Out"], attrs=_PS_ATTRS, infer=_rois_infer(),
    grad=default_grad("psroi_pool_grad", uses=["X", "ROIs", "RoisNum"], in_grads=["X"]),
    doc="Out[r, c, i, j] = the mean of X[batch(r), (c*PH + i)*PW + j] over bin (i, j) of box r",
    examples=[Example({"X": np.random.default_rng(5).uniform(-1, 1, (2, 8, 6, 6))
                       .astype("float32"), "ROIs": _BOXES * 1.3,
                       "RoisNum": np.array([1, 2], np.int32)},
                      {"pooled_height": 2, "pooled_width": 2, "output_channels": 2},
                      _ps_expect),
              Example({"X": np.random.default_rng(6).uniform(-1, 1, (1, 6, 5, 5)),
                       "ROIs": np.array([[0.4, 0.6, 7.0, 5.0], [4.0, 3.0, 9.0, 9.0]])},
                      {"pooled_height": 3, "pooled_width": 1, "output_channels": 2,
                       "spatial_scale": 0.5}, _ps_expect)],
)
def psroi_pool(X, ROIs, RoisNum, pooled_height, pooled_width, output_channels, spatial_scale):
    out = np.zeros((ROIs.shape[0], output_channels, pooled_height, pooled_width), X.dtype)
    for r, b, c, ph, pw, ch, hs, he, ws, we in _ps_weights(
            X, ROIs, RoisNum, pooled_height, pooled_width, output_channels, spatial_scale):
        out[r, c, ph, pw] = X[b, ch, hs:he, ws:we].mean()
    return {"Out": out}


@register_op("psroi_pool_grad", inputs=["X", "ROIs", Slot("RoisNum", dispensable=True),
                                        "Out@GRAD"],
             outputs=["X@GRAD"], attrs=_PS_ATTRS, grad_of="psroi_pool",
             infer=same_as("X", out="X@GRAD"),
             doc="dX[batch(r), in channel, bin] += dOut[r, c, i, j] / bin area")
def psroi_pool_grad(X, ROIs, RoisNum, Out_grad, pooled_height, pooled_width, output_channels,
                    spatial_scale):
    grad = np.zeros(X.shape)
    for r, b, c, ph, pw, ch, hs, he, ws, we in _ps_weights(
            X, ROIs, RoisNum, pooled_height, pooled_width, output_channels, spatial_scale):
        grad[b, ch, hs:he, ws:we] += Out_grad[r, c, ph, pw] / ((he - hs) * (we - ws))
    return {"X@GRAD": grad.astype(X.dtype)}
