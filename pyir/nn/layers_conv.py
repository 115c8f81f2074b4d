"""Convolution and pooling layers: Conv1D/2D/3D and their transposes, Max/Avg/Adaptive/LP
pooling. 1-D layers run the 2-D op on an unsqueezed input, as Paddle's legacy mode does."""

from __future__ import annotations

import numpy as np

from .. import dtypes, registry
from ..dispatch import out
from ..errors import BuildError
from ..initializers import Normal
from ..tensor import manipulation as manip
from ..tensor import math as tmath
from . import _ops
from .layer_base import Layer

__all__ = ["Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose",
           "Conv3DTranspose", "MaxPool1D", "MaxPool2D", "MaxPool3D", "AvgPool1D", "AvgPool2D",
           "AvgPool3D", "AdaptiveAvgPool1D", "AdaptiveAvgPool2D", "AdaptiveAvgPool3D",
           "AdaptiveMaxPool1D", "AdaptiveMaxPool2D", "AdaptiveMaxPool3D", "LPPool1D",
           "LPPool2D", "MaxUnPool1D", "MaxUnPool2D", "MaxUnPool3D"]


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


# --- pooling ------------------------------------------------------------------------------------
class _Pool(Layer):
    dims = 2
    kind = "max"

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
                 return_mask=False, data_format=None, divisor_override=None):
        super().__init__()
        who, n = type(self).__name__, self.dims
        if return_mask and (n == 3 or self.kind != "max" or
                            data_format not in (None, "NCL", "NCHW")):
            raise BuildError(f"{who}: return_mask=True is supported for channel-first 1-D "
                             f"and 2-D max pooling")
        self._return_mask = bool(return_mask)
        if divisor_override is not None:
            raise BuildError(f"{who}: divisor_override is not supported")
        self._kernel = ntuple(kernel_size, n, "kernel_size", who)
        self._stride = self._kernel if stride is None else ntuple(stride, n, "stride", who)
        if min(self._kernel) <= 0 or min(self._stride) <= 0:
            raise BuildError(f"{who}: kernel_size and stride must be positive, got "
                             f"{self._kernel} and {self._stride}")
        self._padding, self._algorithm = paddings_of(padding, n, who)
        self._ceil_mode, self._exclusive = bool(ceil_mode), bool(exclusive)
        self._data_format = data_format or {1: "NCL", 2: "NCHW", 3: "NCDHW"}[n]

    def forward(self, x):
        who = type(self).__name__
        if len(x.shape) != self.dims + 2:
            raise BuildError(f"{who} needs a {self.dims + 2}-D input, got shape "
                             f"{list(x.shape)}")
        if self.dims == 3:
            require_op("pool3d", who)
            return out("pool3d", {"X": x}, {
                "pooling_type": self.kind, "ksize": self._kernel, "strides": self._stride,
                "paddings": self._padding, "exclusive": self._exclusive, "adaptive": False,
                "ceil_mode": self._ceil_mode, "data_format": self._data_format,
                "padding_algorithm": self._algorithm, "global_pooling": False})
        if self._return_mask:
            if self.dims == 1:
                value, mask = _max_pool_with_mask(manip.unsqueeze(x, 2), [1] + self._kernel,
                                                  [1] + self._stride,
                                                  [0, 0] + _two_sided(self._padding, 1),
                                                  self._ceil_mode, who)
                return manip.squeeze(value, 2), manip.squeeze(mask, 2)
            return _max_pool_with_mask(x, self._kernel, self._stride,
                                       _two_sided(self._padding, 2), self._ceil_mode, who)
        if self.dims == 1:
            at = 1 if self._data_format == "NLC" else 2
            pads = [0, 0] + self._padding if len(self._padding) == 2 else [0] + self._padding
            y = _ops.pool2d(manip.unsqueeze(x, at), self.kind, [1] + self._kernel,
                            [1] + self._stride, pads, self._ceil_mode, self._exclusive,
                            False, "NHWC" if at == 1 else "NCHW", self._algorithm)
            return manip.squeeze(y, at)
        return _ops.pool2d(x, self.kind, self._kernel, self._stride, self._padding,
                           self._ceil_mode, self._exclusive, False, self._data_format,
                           self._algorithm)

    def extra_repr(self):
        return f"kernel_size={self._kernel}, stride={self._stride}, padding={self._padding}"


def _two_sided(paddings: list[int], dims: int) -> list[int]:
    """[before0, after0, before1, after1, ...] from per-axis or two-sided paddings."""
    if len(paddings) == 2 * dims:
        return list(paddings)
    return [p for p in paddings for _ in range(2)]


def _max_pool_with_mask(x, kernel, stride, pads, ceil_mode, who):
    """(max, flat index of the max within each H*W plane) of NCHW max pooling, from the
    windows as strided slices of the input padded with -inf."""
    h, w = int(x.shape[2]), int(x.shape[3])
    if h < 0 or w < 0:
        raise BuildError(f"{who}: return_mask needs known spatial sizes, got {[h, w]}")
    (kh, kw), (sh, sw), (top, bottom, left, right) = kernel, stride, pads

    def out_len(size, k, s, before, after):
        span = size + before + after - k
        return (span + s - 1) // s + 1 if ceil_mode else span // s + 1

    oh, ow = out_len(h, kh, sh, top, bottom), out_len(w, kw, sw, left, right)
    extra_h = max(0, (oh - 1) * sh + kh - (h + top + bottom))
    extra_w = max(0, (ow - 1) * sw + kw - (w + left + right))
    padded = manip.squeeze(_ops.pad3d(manip.unsqueeze(x, 2),
                                      [left, right + extra_w, top, bottom + extra_h, 0, 0],
                                      "constant", -3.0e38, "NCDHW"), 2)
    windows = [out("strided_slice", {"Input": padded},
                   {"axes": [2, 3], "starts": [i, j],
                    "ends": [i + (oh - 1) * sh + 1, j + (ow - 1) * sw + 1],
                    "strides": [sh, sw], "infer_flags": [1, 1], "decrease_axis": []})
               for i in range(kh) for j in range(kw)]
    stacked = manip.stack(windows, axis=4)  # [N, C, oh, ow, K]
    value = tmath.max(stacked, axis=4)
    tap = out("arg_max", {"X": stacked}, {"axis": 4, "keepdims": False, "flatten": False,
                                          "dtype": 3})
    rows = np.arange(oh)[:, None, None] * sh - top + np.arange(kh).repeat(kw)[None, None, :]
    cols = np.arange(ow)[None, :, None] * sw - left + np.tile(np.arange(kw), kh)[None, None, :]
    flat = (rows * w + cols).astype("float64")  # [oh, ow, K]: the input index of each tap
    table = out("assign_value", {}, {"shape": list(flat.shape), "dtype": 6,
                                     "values": [float(v) for v in flat.ravel()]}, like=x)
    hot = out("one_hot_v2", {"X": tap}, {"depth": kh * kw, "dtype": 6})
    index = _ops.cast(tmath.sum(hot * table, axis=-1), "int32")
    return value, index


class MaxPool1D(_Pool):
    """Max over sliding windows of NCL input (`pool2d` on NC1L)."""

    dims = 1

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False,
                 ceil_mode=False, name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode, True, return_mask)


class MaxPool2D(_Pool):
    """Max over sliding windows (`pool2d`, pooling_type max).

    Example:
        >>> pyir.nn.MaxPool2D(2)(x)
    """

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False,
                 ceil_mode=False, data_format="NCHW", name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode, True, return_mask,
                         data_format)


class MaxPool3D(_Pool):
    """Max over sliding windows of NCDHW input (`pool3d`)."""

    dims = 3

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False,
                 ceil_mode=False, data_format="NCDHW", name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode, True, return_mask,
                         data_format)


class AvgPool1D(_Pool):
    """Average over sliding windows of NCL input; exclusive leaves padding out."""

    dims, kind = 1, "avg"

    def __init__(self, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False,
                 name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode, exclusive)


class AvgPool2D(_Pool):
    """Average over sliding windows (`pool2d`, pooling_type avg)."""

    kind = "avg"

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
                 divisor_override=None, data_format="NCHW", name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode, exclusive, False,
                         data_format, divisor_override)


class AvgPool3D(_Pool):
    """Average over sliding windows of NCDHW input (`pool3d`)."""

    dims, kind = 3, "avg"

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
                 divisor_override=None, data_format="NCDHW", name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode, exclusive, False,
                         data_format, divisor_override)


class _AdaptivePool(Layer):
    dims = 2
    kind = "avg"

    def __init__(self, output_size, return_mask=False, data_format=None, name=None):
        super().__init__()
        who = type(self).__name__
        if return_mask:
            raise BuildError(f"{who}: return_mask=True is not supported")
        sizes = [output_size] * self.dims if isinstance(output_size, int) or \
            output_size is None else list(output_size)
        if len(sizes) != self.dims or any(s is not None and (not isinstance(s, int) or s <= 0)
                                          for s in sizes):
            raise BuildError(f"{who}: output_size must be a positive int or {self.dims} of "
                             f"them (None keeps a size), got {output_size!r}")
        self._output_size = sizes
        self._data_format = data_format or {1: "NCL", 2: "NCHW", 3: "NCDHW"}[self.dims]

    def forward(self, x):
        who = type(self).__name__
        if len(x.shape) != self.dims + 2:
            raise BuildError(f"{who} needs a {self.dims + 2}-D input, got shape "
                             f"{list(x.shape)}")
        spatial = x.shape[2:] if self._data_format.startswith("NC") else x.shape[1:-1]
        sizes = [s if s is not None else int(d) for s, d in zip(self._output_size, spatial)]
        if self.dims == 3:
            require_op("pool3d", who)
            return out("pool3d", {"X": x}, {"pooling_type": self.kind, "ksize": sizes,
                                            "adaptive": True,
                                            "data_format": self._data_format})
        if self.kind == "max":
            return _adaptive_max(x, sizes, spatial, self._data_format.startswith("NC"), who)
        if self.dims == 1:
            y = _ops.pool2d(manip.unsqueeze(x, 2), self.kind, [1] + sizes, [1, 1], [0, 0],
                            adaptive=True)
            return manip.squeeze(y, 2)
        return _ops.pool2d(x, self.kind, sizes, [1, 1], [0, 0], adaptive=True,
                           data_format=self._data_format)

    def extra_repr(self):
        return f"output_size={self._output_size}"


def _adaptive_max(x, sizes, spatial, channel_first: bool, who: str):
    """Adaptive max pooling: the maximum over window i = [floor(i*n/out), ceil((i+1)*n/out))
    per spatial axis, one reduce_max per output cell. (pool2d's `adaptive` flag keeps fixed
    windows for max, as Paddle's pool2d kernel does; Paddle's layer uses
    max_pool2d_with_index, which pyir does not have.)"""
    if any(int(d) < 0 for d in spatial):
        raise BuildError(f"{who}: the spatial size of the input must be known, got "
                         f"{list(spatial)}")
    axes = list(range(2, 2 + len(sizes))) if channel_first else \
        list(range(1, 1 + len(sizes)))

    def cells(depth: int, starts: list, ends: list):
        if depth == len(sizes):
            window = manip.slice(x, axes, starts, ends)
            return _ops.reduce("reduce_max", window, axes, keepdim=True)
        n, m = int(spatial[depth]), sizes[depth]
        parts = [cells(depth + 1, starts + [(i * n) // m], ends + [-(-((i + 1) * n) // m)])
                 for i in range(m)]
        return manip.concat(parts, axis=axes[depth])

    return cells(0, [], [])


def _adaptive(name: str, dims: int, kind: str):
    if kind == "avg":
        def __init__(self, output_size, data_format=None, name=None):
            _AdaptivePool.__init__(self, output_size, False, data_format)
    else:
        def __init__(self, output_size, return_mask=False, name=None):
            _AdaptivePool.__init__(self, output_size, return_mask)
    return type(name, (_AdaptivePool,), {
        "dims": dims, "kind": kind, "__init__": __init__, "__module__": __name__,
        "__doc__": f"Adaptive {kind} pooling to output_size ({dims}-D, `pool2d` adaptive)."})


AdaptiveAvgPool1D = _adaptive("AdaptiveAvgPool1D", 1, "avg")
AdaptiveAvgPool2D = _adaptive("AdaptiveAvgPool2D", 2, "avg")
AdaptiveAvgPool3D = _adaptive("AdaptiveAvgPool3D", 3, "avg")
AdaptiveMaxPool1D = _adaptive("AdaptiveMaxPool1D", 1, "max")
AdaptiveMaxPool2D = _adaptive("AdaptiveMaxPool2D", 2, "max")
AdaptiveMaxPool3D = _adaptive("AdaptiveMaxPool3D", 3, "max")


class _LPPool(Layer):
    dims = 2

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False,
                 data_format=None, name=None):
        super().__init__()
        if not isinstance(norm_type, (int, float)) or norm_type <= 0:
            raise BuildError(f"{type(self).__name__}: norm_type must be a positive number, "
                             f"got {norm_type!r}")
        self._p = float(norm_type)
        self._pool = (AvgPool1D if self.dims == 1 else AvgPool2D)(kernel_size, stride,
                                                                  ceil_mode=ceil_mode)
        self._area = float(np.prod(self._pool._kernel))

    def forward(self, x):
        pooled = self._pool(tmath.pow(x, self._p)) * self._area
        return tmath.pow(pooled, 1.0 / self._p)


class LPPool1D(_LPPool):
    """(sum over windows of x^p)^(1/p) of NCL input."""

    dims = 1


class LPPool2D(_LPPool):
    """(sum over windows of x^p)^(1/p) of NCHW input."""


class _MaxUnPool(Layer):
    dims = 2

    def __init__(self, kernel_size, stride=None, padding=0, data_format=None,
                 output_size=None, name=None):
        super().__init__()
        who, n = type(self).__name__, self.dims
        self._kernel = ntuple(kernel_size, n, "kernel_size", who)
        self._stride = self._kernel if stride is None else ntuple(stride, n, "stride", who)
        self._padding = ntuple(padding, n, "padding", who)
        self._output_size = output_size
        fmt = data_format or {1: "NCL", 2: "NCHW", 3: "NCDHW"}[n]
        if not fmt.startswith("NC"):
            raise BuildError(f"{who}: only channel-first data formats are supported, got {fmt}")

    def forward(self, x, indices, output_size=None):
        """Scatter each value of x to its index (from max pooling with return_mask) in a zero
        tensor of the unpooled size (`put_along_axis` on the flattened planes)."""
        who = type(self).__name__
        if len(x.shape) != self.dims + 2 or list(indices.shape) != list(x.shape):
            raise BuildError(f"{who}: expected x and indices of the same {self.dims + 2}-D "
                             f"shape, got {list(x.shape)} and {list(indices.shape)}")
        size = output_size or self._output_size
        if size is None:
            size = [(int(d) - 1) * s - 2 * p + k for d, s, p, k in
                    zip(x.shape[2:], self._stride, self._padding, self._kernel)]
        else:
            size = list(size)[-self.dims:]
        channels = int(x.shape[1])
        flat_x = manip.reshape(x, [0, channels, -1])
        flat_i = manip.reshape(_ops.cast(indices, "int64"), [0, channels, -1])
        zeros = out("fill_constant_batch_size_like", {"Input": flat_x},
                    {"shape": [-1, channels, int(np.prod(size))], "value": 0.0,
                     "dtype": dtypes.to_code(x.dtype), "input_dim_idx": 0,
                     "output_dim_idx": 0})
        placed = out("put_along_axis", {"Input": zeros, "Index": flat_i, "Value": flat_x},
                     {"Axis": 2, "Reduce": "assign", "Include_self": True}, slot="Result")
        return manip.reshape(placed, [0, channels] + size)


class MaxUnPool1D(_MaxUnPool):
    """The partial inverse of MaxPool1D(return_mask=True): values back at their indices."""

    dims = 1


class MaxUnPool2D(_MaxUnPool):
    """The partial inverse of MaxPool2D(return_mask=True): values back at their indices,
    zeros elsewhere."""


class MaxUnPool3D(_MaxUnPool):
    """The partial inverse of 3-D max pooling with indices."""

    dims = 3
