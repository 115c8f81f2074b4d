"""Pooling layers: Max/Avg/Adaptive/LP pooling (1-D through the 2-D op on an unsqueezed
input), max pooling with indices, and MaxUnPool."""

from __future__ import annotations

import math

import numpy as np

from .. import dtypes
from .. import random as pyir_random
from ..dispatch import out
from ..errors import BuildError
from ..tensor import manipulation as manip
from ..tensor import math as tmath
from . import _ops
from .layer_base import Layer
from .layers_conv import ntuple, paddings_of, require_op

__all__ = ["MaxPool1D", "MaxPool2D", "MaxPool3D", "AvgPool1D", "AvgPool2D", "AvgPool3D",
           "AdaptiveAvgPool1D", "AdaptiveAvgPool2D", "AdaptiveAvgPool3D", "AdaptiveMaxPool1D",
           "AdaptiveMaxPool2D", "AdaptiveMaxPool3D", "LPPool1D", "LPPool2D", "MaxUnPool1D",
           "MaxUnPool2D", "MaxUnPool3D", "FractionalMaxPool2D", "FractionalMaxPool3D"]


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
    per spatial axis. (pool2d's `adaptive` flag keeps fixed windows for max, as Paddle's
    pool2d kernel does; Paddle's layer uses max_pool2d_with_index, which pyir does not
    have.)"""
    bounds = [[((i * int(n)) // m, -(-((i + 1) * int(n)) // m)) for i in range(m)]
              for n, m in zip(spatial, sizes)]
    return window_max(x, bounds, spatial, channel_first, who)


def window_max(x, bounds, spatial, channel_first: bool, who: str):
    """The maximum over explicit windows: bounds[axis] lists (start, end) per output index;
    one reduce_max per output cell, concatenated back."""
    if any(int(d) < 0 for d in spatial):
        raise BuildError(f"{who}: the spatial size of the input must be known, got "
                         f"{list(spatial)}")
    axes = list(range(2, 2 + len(bounds))) if channel_first else \
        list(range(1, 1 + len(bounds)))

    def cells(depth: int, starts: list, ends: list):
        if depth == len(bounds):
            window = manip.slice(x, axes, starts, ends)
            return _ops.reduce("reduce_max", window, axes, keepdim=True)
        parts = [cells(depth + 1, starts + [lo], ends + [hi]) for lo, hi in bounds[depth]]
        return manip.concat(parts, axis=axes[depth])

    return cells(0, [], [])


def fractional_bounds(n: int, m: int, u: float, kernel: int | None) -> list[tuple]:
    """Paddle's fractional max pooling windows of an axis of size n pooled to m, for random
    u in (0, 1): alpha = n/m (or (n-k)/(m-1) with a kernel k), u scaled into the range that
    keeps every window inside, start_i = ceil(alpha*(i+u) - 1) shifted so start_0 = 0, end_i
    the next start (or start_i + k)."""
    if kernel:
        alpha = (n - kernel) / (m - 1) if m > 1 else 0.0
    else:
        alpha = n / m
        base = n // m
        limit = min((base + 2) / alpha - 1, (n + 1 - base) / alpha - (m - 1))
        u = u * limit
    offset = math.ceil(alpha * u - 1)
    starts = [math.ceil(alpha * (i + u) - 1) - offset for i in range(m)]
    ends = [s + kernel for s in starts] if kernel else \
        [math.ceil(alpha * (i + 1 + u) - 1) - offset for i in range(m)]
    return [(max(0, lo), min(n, hi)) for lo, hi in zip(starts, ends)]


class _FractionalMaxPool(Layer):
    dims = 2

    def __init__(self, output_size, kernel_size=None, random_u=None, return_mask=False,
                 name=None):
        super().__init__()
        who, n = type(self).__name__, self.dims
        if return_mask:
            raise BuildError(f"{who}: return_mask=True is not supported")
        self._output_size = ntuple(output_size, n, "output_size", who)
        self._kernel = None if kernel_size is None else ntuple(kernel_size, n, "kernel_size",
                                                               who)
        if random_u is not None and not 0 < random_u < 1:
            raise BuildError(f"{who}: random_u must be in (0, 1), got {random_u}")
        self._random_u = random_u

    def forward(self, x):
        who = type(self).__name__
        if len(x.shape) != self.dims + 2:
            raise BuildError(f"{who} needs a {self.dims + 2}-D input, got shape "
                             f"{list(x.shape)}")
        u = self._random_u
        if u is None:
            u = float(pyir_random.generator().uniform(1e-6, 1.0))
        spatial = [int(d) for d in x.shape[2:]]
        kernels = self._kernel or [None] * self.dims
        for size, out_size in zip(spatial, self._output_size):
            if out_size > size:
                raise BuildError(f"{who}: output_size {self._output_size} is larger than the "
                                 f"input {spatial}")
        bounds = [fractional_bounds(n, m, u, k)
                  for n, m, k in zip(spatial, self._output_size, kernels)]
        return window_max(x, bounds, spatial, True, who)


class FractionalMaxPool2D(_FractionalMaxPool):
    """Max pooling over pseudo-random windows of NCHW input to output_size (Graham's
    fractional max pooling); random_u fixes the windows."""


class FractionalMaxPool3D(_FractionalMaxPool):
    """Fractional max pooling of NCDHW input."""

    dims = 3


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
