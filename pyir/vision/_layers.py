"""Layer classes of paddle.vision.ops: RoIAlign, RoIPool, PSRoIPool, DeformConv2D and
ConvNormActivation (Conv2D + norm + activation)."""

from __future__ import annotations

import numpy as np

from ..initializers import Normal
from ..nn import BatchNorm2D, Conv2D, ReLU, Sequential
from ..nn.layer_base import Layer
from ._rois import deform_conv2d, psroi_pool, roi_align, roi_pool
from ._util import fail, pair


class RoIAlign(Layer):
    """`roi_align` as a layer. Example: >>> y = RoIAlign(7, 0.25)(x, boxes, boxes_num)"""

    def __init__(self, output_size, spatial_scale=1.0):
        super().__init__()
        self._output_size, self._spatial_scale = output_size, spatial_scale

    def forward(self, x, boxes, boxes_num, aligned=True):
        return roi_align(x, boxes, boxes_num, self._output_size, self._spatial_scale,
                         aligned=aligned)


class RoIPool(Layer):
    """`roi_pool` as a layer. Example: >>> y = RoIPool(7, 0.25)(x, boxes, boxes_num)"""

    def __init__(self, output_size, spatial_scale=1.0):
        super().__init__()
        self._output_size, self._spatial_scale = output_size, spatial_scale

    def forward(self, x, boxes, boxes_num):
        return roi_pool(x, boxes, boxes_num, self._output_size, self._spatial_scale)


class PSRoIPool(Layer):
    """`psroi_pool` as a layer. Example: >>> y = PSRoIPool(7, 0.25)(x, boxes, boxes_num)"""

    def __init__(self, output_size, spatial_scale=1.0):
        super().__init__()
        self._output_size, self._spatial_scale = output_size, spatial_scale

    def forward(self, x, boxes, boxes_num):
        return psroi_pool(x, boxes, boxes_num, self._output_size, self._spatial_scale)


class DeformConv2D(Layer):
    """Deformable convolution with its weight [out, in/groups, kh, kw] and bias.

    Example:
        >>> y = DeformConv2D(3, 8, 3, padding=1)(x, offset, mask)
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, deformable_groups=1, groups=1, weight_attr=None, bias_attr=None):
        super().__init__()
        for what, v in (("in_channels", in_channels), ("out_channels", out_channels),
                        ("groups", groups), ("deformable_groups", deformable_groups)):
            if not isinstance(v, (int, np.integer)) or v <= 0:
                fail("DeformConv2D", f"{what} must be a positive int, got {v!r}")
        if in_channels % groups:
            fail("DeformConv2D", f"in_channels ({in_channels}) must be divisible by groups "
                                 f"({groups})")
        self._stride, self._padding, self._dilation = stride, padding, dilation
        self._groups, self._deformable_groups = groups, deformable_groups
        kernel = pair(kernel_size, "kernel_size", "DeformConv2D")
        std = (2.0 / (kernel[0] * kernel[1] * in_channels)) ** 0.5
        self.weight = self.create_parameter([out_channels, in_channels // groups] + kernel,
                                            weight_attr, default_initializer=Normal(0.0, std))
        self.bias = self.create_parameter([out_channels], bias_attr, is_bias=True)

    def forward(self, x, offset, mask=None):
        return deform_conv2d(x, offset, self.weight, self.bias, self._stride, self._padding,
                             self._dilation, self._deformable_groups, self._groups, mask)


class ConvNormActivation(Sequential):
    """Conv2D, then a norm layer, then an activation (torchvision's block).

    Example:
        >>> block = ConvNormActivation(3, 16, 3, stride=2)
    """

    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, padding=None,
                 groups=1, norm_layer=BatchNorm2D, activation_layer=ReLU, dilation=1,
                 bias=None):
        if padding is None:
            padding = (kernel_size - 1) // 2 * dilation
        if bias is None:
            bias = norm_layer is None
        layers = [Conv2D(in_channels, out_channels, kernel_size, stride, padding,
                         dilation=dilation, groups=groups,
                         bias_attr=None if bias else False)]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer())
        super().__init__(*layers)
        self.out_channels = out_channels
