"""RoI pooling and deformable convolution functions of paddle.vision.ops: roi_align,
roi_pool, psroi_pool, deform_conv2d."""

from __future__ import annotations

import numbers

from ..dispatch import apply_op
from ..dispatch import out as _out
from ._util import fail, pair


def _rois_call(fn, op_type, x, boxes, boxes_num, output_size, spatial_scale, extra, name):
    if len(x.shape) != 4:
        fail(fn, f"x must be 4-D [N, C, H, W], got shape {list(x.shape)}")
    if len(boxes.shape) != 2 or boxes.shape[1] not in (4, -1):
        fail(fn, f"boxes must be [num_boxes, 4], got shape {list(boxes.shape)}")
    height, width = pair(output_size, "output_size", fn)
    attrs = {"pooled_height": height, "pooled_width": width,
             "spatial_scale": float(spatial_scale), **extra}
    return apply_op(op_type, {"X": x, "ROIs": boxes, "RoisNum": boxes_num}, attrs, name=name)


def roi_align(x, boxes, boxes_num, output_size, spatial_scale: float = 1.0,
              sampling_ratio: int = -1, aligned: bool = True, name=None):
    """RoI Align: each box of `boxes` [R, 4] (image given by `boxes_num`) pooled to
    output_size by averaging bilinear samples of x [N, C, H, W] (op `roi_align`).

    Example:
        >>> y = ops.roi_align(x, boxes, boxes_num, 2, spatial_scale=0.5)
    """
    if not isinstance(sampling_ratio, numbers.Integral):
        fail("roi_align", f"sampling_ratio must be an int, got {sampling_ratio!r}")
    return _rois_call("roi_align", "roi_align", x, boxes, boxes_num, output_size, spatial_scale,
                      {"sampling_ratio": int(sampling_ratio), "aligned": bool(aligned)},
                      name)["Out"]


def roi_pool(x, boxes, boxes_num, output_size, spatial_scale: float = 1.0, name=None):
    """RoI max pooling of each box of `boxes` over x [N, C, H, W] (op `roi_pool`).

    Example:
        >>> y = ops.roi_pool(x, boxes, boxes_num, (2, 2))
    """
    return _rois_call("roi_pool", "roi_pool", x, boxes, boxes_num, output_size, spatial_scale,
                      {}, name)["Out"]


def psroi_pool(x, boxes, boxes_num, output_size, spatial_scale: float = 1.0, name=None):
    """Position-sensitive RoI average pooling: bin (i, j) of output channel c averages input
    channel (c*PH + i)*PW + j (op `psroi_pool`; x has C = out_channels*PH*PW channels).

    Example:
        >>> y = ops.psroi_pool(x, boxes, boxes_num, 7)
    """
    height, width = pair(output_size, "output_size", "psroi_pool")
    channels = x.shape[1]
    if channels > 0 and channels % (height * width):
        fail("psroi_pool", f"the {channels} input channels are not divisible by "
                           f"output_size[0] * output_size[1] = {height * width}")
    if 0 < channels <= height * width:
        fail("psroi_pool", f"the {channels} input channels give {channels // (height * width)} "
                           f"output channel; Paddle's psroi_pool needs at least 2 (x needs "
                           f"2 * output_size[0] * output_size[1] channels or more)")
    # Paddle's legacy static branch leaves RoisNum out (relying on LoD, which pyir has not);
    # pyir passes it in both modes so batches of several images work.
    return _rois_call("psroi_pool", "psroi_pool", x, boxes, boxes_num, output_size,
                      spatial_scale,
                      {"output_channels": channels // (height * width)}, name)["Out"]


def deform_conv2d(x, offset, weight, bias=None, stride=1, padding=0, dilation=1,
                  deformable_groups: int = 1, groups: int = 1, mask=None, name=None):
    """Deformable convolution: v2 (op `deformable_conv`) with `mask`, v1 (op
    `deformable_conv_v1`) without; a bias is added by `elementwise_add` on axis 1.

    Example:
        >>> y = ops.deform_conv2d(x, offset, weight, padding=1, mask=mask)
    """
    for what, v in (("deformable_groups", deformable_groups), ("groups", groups)):
        if not isinstance(v, numbers.Integral) or v <= 0:
            fail("deform_conv2d", f"{what} must be a positive int, got {v!r}")
    if len(x.shape) != 4 or len(weight.shape) != 4:
        fail("deform_conv2d", f"x and weight must be 4-D, got {list(x.shape)} and "
                              f"{list(weight.shape)}")
    attrs = {"strides": pair(stride, "stride", "deform_conv2d"),
             "paddings": pair(padding, "padding", "deform_conv2d"),
             "dilations": pair(dilation, "dilation", "deform_conv2d"),
             "groups": int(groups), "deformable_groups": int(deformable_groups),
             "im2col_step": 1}
    inputs = {"Input": x, "Offset": offset, "Filter": weight}
    if mask is None:
        result = _out("deformable_conv_v1", inputs, attrs, name=name, slot="Output",
                      stem="deformable_conv")
    else:
        result = _out("deformable_conv", {**inputs, "Mask": mask}, attrs, name=name,
                      slot="Output")
    if bias is None:
        return result
    return _out("elementwise_add", {"X": result, "Y": bias}, {"axis": 1}, stem="deformable_conv")
