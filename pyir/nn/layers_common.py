"""Common layers: Linear, Bilinear, Embedding, Identity, Flatten/Unflatten, dropout,
padding, upsampling, pixel shuffles and distances."""

from __future__ import annotations

import math

from ..dispatch import out
from ..errors import BuildError
from ..tensor import manipulation as manip
from ..tensor import linalg as tlinalg
from ..tensor import math as tmath
from . import _ops
from .layer_base import Layer

__all__ = ["Linear", "Bilinear", "Embedding", "Identity", "Flatten", "Unflatten", "Dropout",
           "Dropout2D", "Dropout3D", "AlphaDropout", "FeatureAlphaDropout", "Pad1D", "Pad2D",
           "Pad3D", "ZeroPad1D", "ZeroPad2D", "ZeroPad3D", "ConstantPad1D", "ConstantPad2D",
           "ConstantPad3D", "ReflectionPad1D", "ReflectionPad2D", "ReflectionPad3D",
           "ReplicationPad1D", "ReplicationPad2D", "ReplicationPad3D", "CircularPad1D",
           "CircularPad2D", "CircularPad3D", "Upsample", "UpsamplingNearest2D",
           "UpsamplingBilinear2D", "PixelShuffle", "PixelUnshuffle", "ChannelShuffle",
           "CosineSimilarity", "PairwiseDistance"]


def positive_int(value, what: str, who: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise BuildError(f"{who}: {what} must be a positive int, got {value!r}")
    return value


class Linear(Layer):
    """y = x @ weight + bias: `matmul_v2` + `elementwise_add` (axis -1).

    Parameters: weight [in_features, out_features] (Xavier uniform), bias [out_features]
    (zeros), named `linear_N.w_0` / `linear_N.b_0`.

    Example:
        >>> fc = pyir.nn.Linear(4, 10)
        >>> y = fc(x)
    """

    def __init__(self, in_features: int, out_features: int, weight_attr=None, bias_attr=None,
                 name: str | None = None):
        super().__init__()
        positive_int(in_features, "in_features", "Linear")
        positive_int(out_features, "out_features", "Linear")
        self._in_features, self._out_features = in_features, out_features
        self.weight = self.create_parameter([in_features, out_features], weight_attr)
        self.bias = self.create_parameter([out_features], bias_attr, is_bias=True)
        self.name = name

    def forward(self, input):
        return _ops.linear(input, self.weight, self.bias, name=self.name or self._full_name)

    def extra_repr(self):
        name = f", name={self.name}" if self.name else ""
        return (f"in_features={self._in_features}, out_features={self._out_features}, "
                f"dtype={self._dtype}{name}")


class Bilinear(Layer):
    """out[b, o] = x1[b] @ weight[o] @ x2[b] + bias[o]; weight [out, in1, in2], bias [1, out].

    Example:
        >>> pyir.nn.Bilinear(2, 3, 4)(x1, x2)     # [batch, 4]
    """

    def __init__(self, in1_features: int, in2_features: int, out_features: int,
                 weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        for what, v in (("in1_features", in1_features), ("in2_features", in2_features),
                        ("out_features", out_features)):
            positive_int(v, what, "Bilinear")
        self._sizes = (in1_features, in2_features, out_features)
        self.weight = self.create_parameter([out_features, in1_features, in2_features],
                                            weight_attr)
        self.bias = self.create_parameter([1, out_features], bias_attr, is_bias=True)

    def forward(self, x1, x2):
        i1, i2, o = self._sizes
        w = manip.reshape(manip.transpose(self.weight, [1, 0, 2]), [i1, o * i2])
        mixed = manip.reshape(tlinalg.matmul(x1, w), [-1, o, i2])
        y = tmath.sum(mixed * manip.unsqueeze(x2, 1), axis=-1)
        return y if self.bias is None else y + self.bias


class Embedding(Layer):
    """Rows of weight [num_embeddings, embedding_dim] picked by integer ids
    (`lookup_table_v2`); the row padding_idx reads as zeros.

    Example:
        >>> pyir.nn.Embedding(100, 8)(ids)
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx=None,
                 sparse: bool = False, weight_attr=None, name=None):
        super().__init__()
        positive_int(num_embeddings, "num_embeddings", "Embedding")
        positive_int(embedding_dim, "embedding_dim", "Embedding")
        if padding_idx is not None and not -num_embeddings <= padding_idx < num_embeddings:
            raise BuildError(f"Embedding: padding_idx must be in [-{num_embeddings}, "
                             f"{num_embeddings}), got {padding_idx}")
        self._num_embeddings, self._embedding_dim = num_embeddings, embedding_dim
        self._padding_idx = -1 if padding_idx is None else (
            padding_idx if padding_idx >= 0 else num_embeddings + padding_idx)
        self._sparse = sparse
        self.weight = self.create_parameter([num_embeddings, embedding_dim], weight_attr)

    def forward(self, x):
        return _ops.embedding(x, self.weight, self._padding_idx)

    def extra_repr(self):
        return f"{self._num_embeddings}, {self._embedding_dim}, sparse={self._sparse}, " \
               f"scale_grad_by_freq=False"


class Identity(Layer):
    """Returns its input.

    Example:
        >>> pyir.nn.Identity()(x) is x
    """

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Flatten(Layer):
    """Dimensions start_axis..stop_axis merged into one (`flatten_contiguous_range`)."""

    def __init__(self, start_axis: int = 1, stop_axis: int = -1):
        super().__init__()
        self.start_axis, self.stop_axis = start_axis, stop_axis

    def forward(self, input):
        n = len(input.shape)
        start, stop = self.start_axis % max(n, 1), self.stop_axis % max(n, 1)
        if start > stop:
            raise BuildError(f"Flatten: start_axis {self.start_axis} is after stop_axis "
                             f"{self.stop_axis} for a {n}-D input")
        return out("flatten_contiguous_range", {"X": input},
                   {"start_axis": start, "stop_axis": stop})


class Unflatten(Layer):
    """Dimension `axis` split into `shape`."""

    def __init__(self, axis: int, shape, name=None):
        super().__init__()
        self.axis, self.shape = axis, list(shape)

    def forward(self, input):
        n = len(input.shape)
        axis = self.axis % n
        shape = [0] * axis + self.shape + [0] * (n - axis - 1)
        return manip.reshape(input, shape)


class Dropout(Layer):
    """Zero each element with probability p while training (`dropout`); mode
    'upscale_in_train' scales the kept ones by 1/(1-p), 'downgrade_in_infer' scales by
    (1-p) at inference.

    Example:
        >>> pyir.nn.Dropout(0.1)(x)
    """

    def __init__(self, p: float = 0.5, axis=None, mode: str = "upscale_in_train", name=None):
        super().__init__()
        if not isinstance(p, (int, float)) or not 0 <= p <= 1:
            raise BuildError(f"Dropout: p must be a number in [0, 1], got {p!r}")
        if mode not in ("upscale_in_train", "downgrade_in_infer"):
            raise BuildError(f"Dropout: mode must be 'upscale_in_train' or "
                             f"'downgrade_in_infer', got {mode!r}")
        self.p, self.axis, self.mode = float(p), axis, mode

    def forward(self, input):
        if self.axis is None:
            return _ops.dropout(input, self.p, self.training, self.mode)
        return _dropout_along(input, self.p, self.axis, self.training, self.mode)

    def extra_repr(self):
        return f"p={self.p}, axis={self.axis}, mode={self.mode}, inplace=False"


def _dropout_along(x, p, axis, training, mode):
    """Dropout with one draw per index of `axis` (whole channels), through a mask of ones
    reduced over the other axes."""
    axes = [axis] if isinstance(axis, int) else list(axis)
    n = len(x.shape)
    others = [d for d in range(n) if d not in [a % n for a in axes]]
    if not training:
        return x if mode == "upscale_in_train" else x * (1.0 - p)
    mask = _ops.ones_like(_ops.reduce("reduce_mean", x, others, keepdim=True))
    return x * _ops.dropout(mask, p, True, mode)


class Dropout2D(Dropout):
    """Whole channels of NCHW input dropped."""

    def __init__(self, p: float = 0.5, data_format: str = "NCHW", name=None):
        super().__init__(p, [0, 1] if data_format == "NCHW" else [0, 3])
        self.data_format = data_format


class Dropout3D(Dropout):
    """Whole channels of NCDHW input dropped."""

    def __init__(self, p: float = 0.5, data_format: str = "NCDHW", name=None):
        super().__init__(p, [0, 1] if data_format == "NCDHW" else [0, 4])
        self.data_format = data_format


_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


class AlphaDropout(Layer):
    """Dropout that keeps SELU's mean and variance: dropped elements become -alpha*scale,
    then an affine correction."""

    _channels = False

    def __init__(self, p: float = 0.5, name=None):
        super().__init__()
        if not isinstance(p, (int, float)) or not 0 <= p < 1:
            raise BuildError(f"{type(self).__name__}: p must be a number in [0, 1), got {p!r}")
        self.p = float(p)

    def forward(self, input):
        if not self.training or self.p == 0:
            return input
        alpha_p = -_SELU_ALPHA * _SELU_SCALE
        a = ((1 - self.p) * (1 + self.p * alpha_p ** 2)) ** -0.5
        b = -a * alpha_p * self.p
        source = input
        if self._channels:
            n = len(input.shape)
            source = _ops.reduce("reduce_mean", input, list(range(2, n)), keepdim=True)
        keep = _ops.dropout(_ops.ones_like(source), self.p, True, "downgrade_in_infer")
        return (input * keep + (1.0 - keep) * alpha_p) * a + b


class FeatureAlphaDropout(AlphaDropout):
    """AlphaDropout with one draw per channel."""

    _channels = True


# --- padding ----------------------------------------------------------------------------------
class _Pad(Layer):
    dims = 2
    fixed_mode: str | None = None

    def __init__(self, padding, mode: str = "constant", value: float = 0.0,
                 data_format: str | None = None, name=None):
        super().__init__()
        mode = self.fixed_mode or mode
        if mode not in ("constant", "reflect", "replicate", "circular"):
            raise BuildError(f"{type(self).__name__}: mode must be constant, reflect, replicate "
                             f"or circular, got {mode!r}")
        count = 2 * self.dims
        pads = [padding] * count if isinstance(padding, int) else list(padding)
        if len(pads) != count or not all(isinstance(p, int) for p in pads):
            raise BuildError(f"{type(self).__name__}: padding must be an int or {count} ints, "
                             f"got {padding!r}")
        self.padding, self.mode, self.value = pads, mode, float(value)
        self.data_format = data_format or {1: "NCL", 2: "NCHW", 3: "NCDHW"}[self.dims]

    def forward(self, x):
        channel_last = self.data_format in ("NLC", "NHWC", "NDHWC")
        extra = 3 - self.dims
        if extra:
            at = list(range(1, 1 + extra)) if channel_last else list(range(2, 2 + extra))
            x = manip.unsqueeze(x, at)
        pads = self.padding + [0] * (6 - len(self.padding))
        y = _ops.pad3d(x, pads, self.mode, self.value, "NDHWC" if channel_last else "NCDHW")
        return manip.squeeze(y, at) if extra else y

    def extra_repr(self):
        return f"padding={self.padding}, mode={self.mode}, value={self.value}, " \
               f"data_format={self.data_format}"


def _pad_class(name: str, dims: int, mode: str | None, doc: str):
    if mode is None:
        cls = type(name, (_Pad,), {"dims": dims, "__doc__": doc})
    else:
        def __init__(self, padding, data_format=None, name=None, **_kw):
            _Pad.__init__(self, padding, mode, _kw.get("value", 0.0), data_format, name)
        cls = type(name, (_Pad,), {"dims": dims, "fixed_mode": mode, "__doc__": doc,
                                   "__init__": __init__})
    cls.__module__ = __name__
    return cls


Pad1D = _pad_class("Pad1D", 1, None, "Pad the last dimension of NCL input (`pad3d`).")
Pad2D = _pad_class("Pad2D", 2, None, "Pad H and W of NCHW input (`pad3d`).")
Pad3D = _pad_class("Pad3D", 3, None, "Pad D, H and W of NCDHW input (`pad3d`).")
ZeroPad1D = _pad_class("ZeroPad1D", 1, "constant", "Zero padding of NCL input.")
ZeroPad2D = _pad_class("ZeroPad2D", 2, "constant", "Zero padding of NCHW input.")
ZeroPad3D = _pad_class("ZeroPad3D", 3, "constant", "Zero padding of NCDHW input.")
ReflectionPad1D = _pad_class("ReflectionPad1D", 1, "reflect", "Reflection padding, NCL.")
ReflectionPad2D = _pad_class("ReflectionPad2D", 2, "reflect", "Reflection padding, NCHW.")
ReflectionPad3D = _pad_class("ReflectionPad3D", 3, "reflect", "Reflection padding, NCDHW.")
ReplicationPad1D = _pad_class("ReplicationPad1D", 1, "replicate", "Edge padding, NCL.")
ReplicationPad2D = _pad_class("ReplicationPad2D", 2, "replicate", "Edge padding, NCHW.")
ReplicationPad3D = _pad_class("ReplicationPad3D", 3, "replicate", "Edge padding, NCDHW.")
CircularPad1D = _pad_class("CircularPad1D", 1, "circular", "Circular padding, NCL.")
CircularPad2D = _pad_class("CircularPad2D", 2, "circular", "Circular padding, NCHW.")
CircularPad3D = _pad_class("CircularPad3D", 3, "circular", "Circular padding, NCDHW.")


class _ConstantPad(_Pad):
    def __init__(self, padding, value: float = 0.0, data_format=None, name=None):
        super().__init__(padding, "constant", value, data_format, name)


ConstantPad1D = type("ConstantPad1D", (_ConstantPad,), {"dims": 1, "__module__": __name__})
ConstantPad2D = type("ConstantPad2D", (_ConstantPad,), {"dims": 2, "__module__": __name__})
ConstantPad3D = type("ConstantPad3D", (_ConstantPad,), {"dims": 3, "__module__": __name__})


# --- upsampling -------------------------------------------------------------------------------
class Upsample(Layer):
    """Resize NCHW input to `size` or by `scale_factor` (`nearest_interp_v2` /
    `bilinear_interp_v2`)."""

    def __init__(self, size=None, scale_factor=None, mode: str = "nearest",
                 align_corners: bool = False, align_mode: int = 0, data_format: str = "NCHW",
                 name=None):
        super().__init__()
        if mode == "nearest" and align_corners:
            raise BuildError("Upsample: align_corners is only valid for 'bilinear' mode")
        self.size, self.scale_factor, self.mode = size, scale_factor, mode.lower()
        self.align_corners, self.align_mode, self.data_format = align_corners, align_mode, \
            data_format

    def forward(self, x):
        return _ops.interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners,
                                self.align_mode, self.data_format)


class UpsamplingNearest2D(Upsample):
    """Nearest-neighbour upsampling of NCHW input."""

    def __init__(self, size=None, scale_factor=None, data_format="NCHW", name=None):
        super().__init__(size, scale_factor, "nearest", False, 0, data_format)


class UpsamplingBilinear2D(Upsample):
    """Bilinear upsampling of NCHW input with align_corners=True."""

    def __init__(self, size=None, scale_factor=None, data_format="NCHW", name=None):
        super().__init__(size, scale_factor, "bilinear", True, 0, data_format)


class PixelShuffle(Layer):
    """[N, C*r*r, H, W] -> [N, C, H*r, W*r]."""

    def __init__(self, upscale_factor: int, data_format: str = "NCHW", name=None):
        super().__init__()
        self.factor = positive_int(upscale_factor, "upscale_factor", "PixelShuffle")
        if data_format != "NCHW":
            raise BuildError("PixelShuffle: only data_format='NCHW' is supported")

    def forward(self, x):
        _, c, h, w = x.shape
        r = self.factor
        if c % (r * r):
            raise BuildError(f"PixelShuffle: channels {c} are not divisible by "
                             f"upscale_factor^2 = {r * r}")
        y = manip.reshape(x, [0, c // (r * r), r, r, h, w])
        y = manip.transpose(y, [0, 1, 4, 2, 5, 3])
        return manip.reshape(y, [0, c // (r * r), h * r, w * r])


class PixelUnshuffle(Layer):
    """[N, C, H*r, W*r] -> [N, C*r*r, H, W]."""

    def __init__(self, downscale_factor: int, data_format: str = "NCHW", name=None):
        super().__init__()
        self.factor = positive_int(downscale_factor, "downscale_factor", "PixelUnshuffle")

    def forward(self, x):
        _, c, h, w = x.shape
        r = self.factor
        if h % r or w % r:
            raise BuildError(f"PixelUnshuffle: H={h} and W={w} must be divisible by {r}")
        y = manip.reshape(x, [0, c, h // r, r, w // r, r])
        y = manip.transpose(y, [0, 1, 3, 5, 2, 4])
        return manip.reshape(y, [0, c * r * r, h // r, w // r])


class ChannelShuffle(Layer):
    """Channels regrouped: [N, g*k, H, W] -> view [N, g, k] -> transpose -> [N, k*g, H, W]."""

    def __init__(self, groups: int, data_format: str = "NCHW", name=None):
        super().__init__()
        self.groups = positive_int(groups, "groups", "ChannelShuffle")

    def forward(self, x):
        _, c, h, w = x.shape
        if c % self.groups:
            raise BuildError(f"ChannelShuffle: channels {c} not divisible by groups "
                             f"{self.groups}")
        y = manip.reshape(x, [0, self.groups, c // self.groups, h, w])
        y = manip.transpose(y, [0, 2, 1, 3, 4])
        return manip.reshape(y, [0, c, h, w])


class CosineSimilarity(Layer):
    """sum(x1*x2) / sqrt(max(|x1|^2 |x2|^2, eps^2)) along `axis`."""

    def __init__(self, axis: int = 1, eps: float = 1e-8):
        super().__init__()
        self.axis, self.eps = axis, float(eps)

    def forward(self, x1, x2):
        w12 = tmath.sum(x1 * x2, axis=self.axis)
        w1 = tmath.sum(x1 * x1, axis=self.axis)
        w2 = tmath.sum(x2 * x2, axis=self.axis)
        n12 = tmath.sqrt(tmath.clip(w1 * w2, min=self.eps ** 2, max=math.inf))
        return w12 / n12


class PairwiseDistance(Layer):
    """The p-norm of x - y + epsilon along the last axis (`p_norm`)."""

    def __init__(self, p: float = 2.0, epsilon: float = 1e-6, keepdim: bool = False,
                 name=None):
        super().__init__()
        self.p, self.epsilon, self.keepdim = float(p), float(epsilon), keepdim

    def forward(self, x, y):
        return out("p_norm", {"X": x - y + self.epsilon},
                   {"porder": self.p, "axis": -1, "epsilon": 1e-12, "keepdim": self.keepdim,
                    "asvector": False})

