"""Convolution layers: Conv1D/2D/3D and their transposes. 1-D layers run the 2-D op on an
unsqueezed input, as Paddle's legacy mode does."""

from __future__ import annotations

import numpy as np

from .. import registry
from ..dispatch import out
from ..errors import BuildError
from ..initializers import Normal
from ..tensor import manipulation as manip
from . import _ops
from .layer_base import Layer

__all__ = ["Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose",
           "Conv3DTranspose"]


def ntuple(value, n: int, what: str, who: str) -> list[int]:
    """An int or n ints as a list of n ints."""
    values = [value] * n if isinstance(value, (int, np.integer)) else list(value)
    if len(values) != n or not all(isinstance(v, (int, np.integer)) for v in values):
        raise BuildError(f"{who}: {what} must be an int or {n} ints, got {value!r}")
    return [int(v) for v in values]


def paddings_of(padding, n: int, who: str) -> tuple[list[int], str]:
    """(paddings attribute, padding_algorithm) from Paddle's padding argument."""
    if isinstance(padding, str):
        algorithm = padding.upper()
        if algorithm not in ("SAME", "VALID"):
            raise BuildError(f"{who}: padding must be 'same', 'valid', an int or a list of "
                             f"ints, got {padding!r}")
        return [0] * n, algorithm
    if isinstance(padding, (int, np.integer)):
        return [int(padding)] * n, "EXPLICIT"
    values = list(padding)
    if len(values) in (n, 2 * n) and all(isinstance(v, (int, np.integer)) for v in values):
        return [int(v) for v in values], "EXPLICIT"
    raise BuildError(f"{who}: padding must be an int, {n} or {2 * n} ints, or 'same'/'valid', "
                     f"got {padding!r}")


def require_op(op_type: str, who: str) -> None:
    if op_type not in registry.OPS:
        raise BuildError(f"{who} needs the `{op_type}` op, which pyir does not have yet")


class _ConvNd(Layer):
    dims = 2
    transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, dilation=1, groups=1, padding_mode="zeros",
                 weight_attr=None, bias_attr=None, data_format=None):
        super().__init__()
        who, n = type(self).__name__, self.dims
        for what, v in (("in_channels", in_channels), ("out_channels", out_channels),
                        ("groups", groups)):
            if not isinstance(v, (int, np.integer)) or v <= 0:
                raise BuildError(f"{who}: {what} must be a positive int, got {v!r}")
        if in_channels % groups:
            raise BuildError(f"{who}: in_channels ({in_channels}) must be divisible by groups "
                             f"({groups})")
        if out_channels % groups:
            raise BuildError(f"{who}: out_channels ({out_channels}) must be divisible by "
                             f"groups ({groups})")
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            raise BuildError(f"{who}: padding_mode must be zeros, reflect, replicate or "
                             f"circular, got {padding_mode!r}")
        self._in_channels, self._out_channels, self._groups = in_channels, out_channels, groups
        self._kernel_size = ntuple(kernel_size, n, "kernel_size", who)
        self._stride = ntuple(stride, n, "stride", who)
        self._dilation = ntuple(dilation, n, "dilation", who)
        self._output_padding = ntuple(output_padding, n, "output_padding", who)
        self._padding_mode = padding_mode
        self._padding, self._algorithm = paddings_of(padding, n, who)
        self._padding_arg = padding
        self._data_format = data_format or {1: "NCL", 2: "NCHW", 3: "NCDHW"}[n]
        self._channel_last = self._data_format in ("NLC", "NHWC", "NDHWC")
        if self.transposed:
            shape = [in_channels, out_channels // groups] + self._kernel_size
            default = None
        else:
            shape = [out_channels, in_channels // groups] + self._kernel_size
            default = Normal(0.0, (2.0 / (np.prod(self._kernel_size) * in_channels)) ** 0.5)
        self.weight = self.create_parameter(shape, weight_attr, default_initializer=default)
        self.bias = self.create_parameter([out_channels], bias_attr, is_bias=True)

    def _pre_pad(self, x):
        """Non-zero padding modes pad first (pad3d), then convolve without padding."""
        if self._padding_mode == "zeros":
            return x, self._padding
        pads = self._padding if len(self._padding) == 2 * self.dims else \
            [p for p in self._padding for _ in range(2)]
        # pad3d wants [left, right, top, bottom, front, back]: last dimension first
        pairs = [pads[2 * i:2 * i + 2] for i in range(self.dims)][::-1]
        flat = [v for pair in pairs for v in pair]
        extra = 3 - self.dims
        fmt = "NDHWC" if self._channel_last else "NCDHW"
        if extra:
            at = list(range(1, 1 + extra)) if self._channel_last else list(range(2, 2 + extra))
            x = manip.squeeze(_ops.pad3d(manip.unsqueeze(x, at), flat + [0] * (2 * extra),
                                         self._padding_mode, 0.0, fmt), at)
        else:
            x = _ops.pad3d(x, flat, self._padding_mode, 0.0, fmt)
        return x, [0] * self.dims

    def forward(self, x, output_size=None):
        who = type(self).__name__
        if len(x.shape) != self.dims + 2:
            raise BuildError(f"{who} needs a {self.dims + 2}-D input, got shape "
                             f"{list(x.shape)}")
        channels = x.shape[-1 if self._channel_last else 1]
        if channels not in (-1, self._in_channels):
            raise BuildError(f"{who}: the input has {channels} channels, expected "
                             f"{self._in_channels}")
        x, paddings = self._pre_pad(x)
        size = [] if output_size is None else ntuple(output_size, self.dims, "output_size",
                                                     who)
        if self.dims == 1:
            return self._forward_1d(x, paddings, size)
        if self.dims == 3:
            return self._forward_3d(x, paddings, size)
        return _ops.conv_nd(x, self.weight, self.bias, self._stride, paddings, self._dilation,
                            self._groups, "NHWC" if self._channel_last else "NCHW",
                            self._algorithm, self.transposed, self._output_padding
                            if any(self._output_padding) else [], size)

    def _forward_1d(self, x, paddings, size):
        at = 1 if self._channel_last else 2
        x = manip.unsqueeze(x, at)
        weight = manip.unsqueeze(self.weight, 2)
        pads = [0, 0] + paddings if len(paddings) == 2 else [0] + paddings
        y = _ops.conv_nd(x, weight, None, [1] + self._stride, pads, [1] + self._dilation,
                         self._groups, "NHWC" if self._channel_last else "NCHW",
                         self._algorithm, self.transposed,
                         [0] + self._output_padding if any(self._output_padding) else [],
                         [1] + size if size else [])
        y = manip.squeeze(y, at)
        return _ops.add_channel_bias(y, self.bias, 2 if self._channel_last else 1)

    def _forward_3d(self, x, paddings, size):
        op_type = "conv3d_transpose" if self.transposed else "conv3d"
        require_op(op_type, type(self).__name__)
        attrs = {"strides": self._stride, "paddings": paddings, "dilations": self._dilation,
                 "groups": self._groups, "data_format": self._data_format,
                 "padding_algorithm": self._algorithm}
        if self.transposed:
            attrs.update(output_padding=self._output_padding if any(self._output_padding)
                         else [], output_size=size)
        y = out(op_type, {"Input": x, "Filter": self.weight}, attrs, slot="Output")
        return _ops.add_channel_bias(y, self.bias, 4 if self._channel_last else 1)

    def extra_repr(self):
        text = f"{self._in_channels}, {self._out_channels}, kernel_size={self._kernel_size}"
        if self._stride != [1] * self.dims:
            text += f", stride={self._stride}"
        if self._padding_arg != 0:
            text += f", padding={self._padding_arg}"
        if self._padding_mode != "zeros":
            text += f", padding_mode={self._padding_mode}"
        if self._dilation != [1] * self.dims:
            text += f", dilation={self._dilation}"
        if self._groups != 1:
            text += f", groups={self._groups}"
        return text + f", data_format={self._data_format}"


def _conv_class(name: str, dims: int, transposed: bool, doc: str):
    if transposed:
        def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                     output_padding=0, groups=1, dilation=1, weight_attr=None, bias_attr=None,
                     data_format=None):
            _ConvNd.__init__(self, in_channels, out_channels, kernel_size, stride, padding,
                             output_padding, dilation, groups, "zeros", weight_attr, bias_attr,
                             data_format)
    else:
        def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                     dilation=1, groups=1, padding_mode="zeros", weight_attr=None,
                     bias_attr=None, data_format=None):
            _ConvNd.__init__(self, in_channels, out_channels, kernel_size, stride, padding, 0,
                             dilation, groups, padding_mode, weight_attr, bias_attr,
                             data_format)
    return type(name, (_ConvNd,), {"dims": dims, "transposed": transposed, "__doc__": doc,
                                   "__init__": __init__, "__module__": __name__})


Conv1D = _conv_class("Conv1D", 1, False, "1-D convolution of NCL input (`conv2d` on NC1L). "
                     "Weight [out, in/groups, k] ~ N(0, 2/(k*in)), bias zeros.")
Conv2D = _conv_class("Conv2D", 2, False, "2-D convolution (`conv2d`, `depthwise_conv2d` when "
                     "groups == in_channels). Weight [out, in/groups, kh, kw] ~ "
                     "N(0, 2/(kh*kw*in)), bias zeros.\n\nExample:\n    >>> "
                     "pyir.nn.Conv2D(3, 8, 3, padding=1)(x)")
Conv3D = _conv_class("Conv3D", 3, False, "3-D convolution (`conv3d`).")
Conv1DTranspose = _conv_class("Conv1DTranspose", 1, True, "1-D transposed convolution. "
                              "Weight [in, out/groups, k] (Xavier uniform).")
Conv2DTranspose = _conv_class("Conv2DTranspose", 2, True, "2-D transposed convolution "
                              "(`conv2d_transpose`). Weight [in, out/groups, kh, kw].")
Conv3DTranspose = _conv_class("Conv3DTranspose", 3, True, "3-D transposed convolution "
                              "(`conv3d_transpose`).")
