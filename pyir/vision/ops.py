"""`paddle.vision.ops`: detection and OCR ops (RoI pooling, deformable convolution, box
coding, priors, YOLO decoding, NMS, proposals), static and eager alike, each one call of
`pyir.dispatch.out`, emitting the legacy ops Paddle writes into saved detection models.

Example:
    >>> from pyir.vision import ops
    >>> out = ops.roi_align(x, boxes, boxes_num, output_size=7)
"""

from __future__ import annotations

from typing import Callable, Literal, overload  # noqa: F401  (Paddle re-exports them here)

from .. import unsupported
from ..framework import Variable  # noqa: F401
from ..initializers import Normal  # noqa: F401
from ..nn import BatchNorm2D, Conv2D, Layer, ReLU, Sequential  # noqa: F401
from ._detect import (box_coder, distribute_fpn_proposals, generate_proposals,  # noqa: F401
                      matrix_nms, nms, prior_box, read_file, yolo_box, yolo_loss)
from ._rois import deform_conv2d, psroi_pool, roi_align, roi_pool  # noqa: F401
from ._layers import ConvNormActivation, DeformConv2D, PSRoIPool, RoIAlign, RoIPool  # noqa
from ._util import (check_type, check_variable_and_dtype, convert_np_dtype_to_dtype_,  # noqa
                    convert_to_list, in_dygraph_mode, in_dynamic_or_pir_mode, in_pir_mode)

__all__ = ["yolo_loss", "yolo_box", "prior_box", "box_coder", "deform_conv2d", "DeformConv2D",
           "distribute_fpn_proposals", "generate_proposals", "read_file",
           "roi_pool", "RoIPool", "psroi_pool", "PSRoIPool", "roi_align", "RoIAlign", "nms",
           "matrix_nms"]

UNSUPPORTED: dict[str, str] = {
    "LayerHelper": unsupported.PADDLE_INTERNAL,
    "decode_jpeg": unsupported.GPU_ONLY + "; Paddle 3.3.1's CPU kernel refuses it too (it "
                   "uses nvjpeg). Decode with Pillow and feed the array",
}


__getattr__ = unsupported.module_getattr(__name__, UNSUPPORTED)
