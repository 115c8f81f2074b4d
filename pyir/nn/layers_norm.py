"""Normalization layers: BatchNorm (1D/2D/3D), LayerNorm, GroupNorm, InstanceNorm (1D/2D/3D),
LocalResponseNorm. Parameter names follow Paddle: weight/bias (scale/bias for InstanceNorm),
running statistics `_mean` / `_variance` (parameters w_1 / w_2 that take no gradient)."""

from __future__ import annotations

import numpy as np

from ..errors import BuildError
from ..initializers import Constant
from ..layer_helper import ParamAttr
from ..tensor import manipulation as manip
from ..tensor import math as tmath
from . import _ops
from .layer_base import Layer

__all__ = ["BatchNorm", "BatchNorm1D", "BatchNorm2D", "BatchNorm3D", "LayerNorm", "GroupNorm",
           "InstanceNorm1D", "InstanceNorm2D", "InstanceNorm3D", "LocalResponseNorm"]


def _positive(value, what: str, who: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise BuildError(f"{who}: {what} must be a positive int, got {value!r}")
    return int(value)


class _BatchNormBase(Layer):
    dims = 2
    formats: tuple = ("NCHW", "NHWC")

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format=None, use_global_stats=None, name=None):
        super().__init__()
        who = type(self).__name__
        _positive(num_features, "num_features", who)
        data_format = data_format or self.formats[0]
        if data_format not in self.formats:
            raise BuildError(f"{who}: data_format must be one of {', '.join(self.formats)}, "
                             f"got {data_format!r}")
        self._num_features, self._momentum, self._epsilon = num_features, momentum, epsilon
        self._data_format, self._use_global_stats = data_format, use_global_stats
        self._weight_attr, self._bias_attr = weight_attr, bias_attr
        self.weight = self.create_parameter([num_features], weight_attr,
                                            default_initializer=Constant(1.0))
        self.bias = self.create_parameter([num_features], bias_attr, is_bias=True)
        self._mean = self.create_parameter(
            [num_features], ParamAttr(initializer=Constant(0.0), trainable=False))
        self._mean.stop_gradient = True
        self._variance = self.create_parameter(
            [num_features], ParamAttr(initializer=Constant(1.0), trainable=False))
        self._variance.stop_gradient = True

    def _check_input(self, x):
        ranks = {1: (2, 3), 2: (4,), 3: (5,)}[self.dims]
        if len(x.shape) not in ranks:
            raise BuildError(f"{type(self).__name__} needs a "
                             f"{' or '.join(f'{r}-D' for r in ranks)} input, got shape "
                             f"{list(x.shape)}")

    def forward(self, input):
        self._check_input(input)
        return _ops.batch_norm(input, self._mean, self._variance, self.weight, self.bias,
                               self.training, self._momentum, self._epsilon, self._data_format,
                               self._use_global_stats)

    def extra_repr(self):
        return f"num_features={self._num_features}, momentum={self._momentum}, " \
               f"epsilon={self._epsilon}, data_format={self._data_format}"


class BatchNorm1D(_BatchNormBase):
    """Batch normalization of [N, C] or [N, C, L] input.

    Example:
        >>> pyir.nn.BatchNorm1D(16)(x)
    """

    dims, formats = 1, ("NCL", "NLC", "NC")


class BatchNorm2D(_BatchNormBase):
    """Batch normalization of NCHW input (`batch_norm`); running statistics are updated in
    training mode and used in eval mode."""


class BatchNorm3D(_BatchNormBase):
    """Batch normalization of NCDHW input."""

    dims, formats = 3, ("NCDHW", "NDHWC")


class BatchNorm(_BatchNormBase):
    """Paddle's older batch norm layer (any rank >= 2, optional activation, is_test)."""

    def __init__(self, num_channels, act=None, is_test=False, momentum=0.9, epsilon=1e-05,
                 param_attr=None, bias_attr=None, dtype="float32", data_layout="NCHW",
                 in_place=False, moving_mean_name=None, moving_variance_name=None,
                 do_model_average_for_mean_and_var=True, use_global_stats=False,
                 trainable_statistics=False):
        super().__init__(num_channels, momentum, epsilon, param_attr, bias_attr, data_layout,
                         use_global_stats or None)
        self._act, self._is_test = act, is_test

    def _check_input(self, x):
        if len(x.shape) < 2:
            raise BuildError(f"BatchNorm needs an input of at least 2 dimensions, got shape "
                             f"{list(x.shape)}")

    def forward(self, input):
        if self._is_test:
            self.training = False
        y = super().forward(input)
        if self._act is None:
            return y
        return _ops.unary(self._act, y)


class LayerNorm(Layer):
    """Normalization over the last len(normalized_shape) dimensions (`layer_norm`); weight
    (ones) and bias (zeros) have prod(normalized_shape) elements.

    Example:
        >>> pyir.nn.LayerNorm(64)(x)
    """

    def __init__(self, normalized_shape, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 name=None):
        super().__init__()
        shape = [normalized_shape] if isinstance(normalized_shape, (int, np.integer)) else \
            list(normalized_shape)
        for d in shape:
            _positive(d, "normalized_shape", "LayerNorm")
        self._normalized_shape, self._epsilon = shape, epsilon
        size = [int(np.prod(shape))]
        self.weight = self.create_parameter(size, weight_attr,
                                            default_initializer=Constant(1.0))
        self.bias = self.create_parameter(size, bias_attr, is_bias=True)

    def forward(self, input):
        n = len(self._normalized_shape)
        if list(input.shape[-n:]) != self._normalized_shape:
            raise BuildError(f"LayerNorm: the input's last dimensions {list(input.shape[-n:])} "
                             f"do not match normalized_shape {self._normalized_shape}")
        return _ops.layer_norm(input, self.weight, self.bias, self._epsilon,
                               len(input.shape) - n)

    def extra_repr(self):
        return f"normalized_shape={self._normalized_shape}, epsilon={self._epsilon}"


class GroupNorm(Layer):
    """Normalization over groups of channels (`group_norm`)."""

    def __init__(self, num_groups, num_channels, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCHW", name=None):
        super().__init__()
        _positive(num_groups, "num_groups", "GroupNorm")
        _positive(num_channels, "num_channels", "GroupNorm")
        if num_channels % num_groups:
            raise BuildError(f"GroupNorm: num_channels ({num_channels}) must be divisible by "
                             f"num_groups ({num_groups})")
        self._num_groups, self._num_channels = num_groups, num_channels
        self._epsilon, self._data_format = epsilon, data_format
        self.weight = self.create_parameter([num_channels], weight_attr,
                                            default_initializer=Constant(1.0))
        self.bias = self.create_parameter([num_channels], bias_attr, is_bias=True)

    def forward(self, input):
        return _ops.group_norm(input, self.weight, self.bias, self._epsilon,
                               self._num_groups, self._data_format)

    def extra_repr(self):
        return f"num_groups={self._num_groups}, num_channels={self._num_channels}, " \
               f"epsilon={self._epsilon}"


class _InstanceNormBase(Layer):
    dims = 2

    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None,
                 bias_attr=None, data_format=None, name=None):
        super().__init__()
        _positive(num_features, "num_features", type(self).__name__)
        self._num_features, self._epsilon = num_features, epsilon
        if weight_attr is False or bias_attr is False:
            self.scale = self.bias = None
        else:
            self.scale = self.create_parameter([num_features], weight_attr,
                                               default_initializer=Constant(1.0))
            self.bias = self.create_parameter([num_features], bias_attr, is_bias=True)

    def forward(self, input):
        if len(input.shape) != self.dims + 2:
            raise BuildError(f"{type(self).__name__} needs a {self.dims + 2}-D input, got "
                             f"shape {list(input.shape)}")
        return _ops.instance_norm(input, self.scale, self.bias, self._epsilon)

    def extra_repr(self):
        return f"num_features={self._num_features}, epsilon={self._epsilon}"


class InstanceNorm1D(_InstanceNormBase):
    """Instance normalization of NCL input (`instance_norm`); parameters scale and bias."""

    dims = 1


class InstanceNorm2D(_InstanceNormBase):
    """Instance normalization of NCHW input (`instance_norm`)."""


class InstanceNorm3D(_InstanceNormBase):
    """Instance normalization of NCDHW input (`instance_norm`)."""

    dims = 3


class LocalResponseNorm(Layer):
    """x / (k + alpha * mean over `size` neighbouring channels of x^2)^beta."""

    def __init__(self, size, alpha=0.0001, beta=0.75, k=1.0, data_format="NCHW", name=None):
        super().__init__()
        self._size = _positive(size, "size", "LocalResponseNorm")
        self._alpha, self._beta, self._k = float(alpha), float(beta), float(k)
        if data_format not in ("NCL", "NCHW", "NCDHW"):
            raise BuildError(f"LocalResponseNorm: only channel-first data formats are "
                             f"supported, got {data_format!r}")

    def forward(self, x):
        n = len(x.shape)
        if n < 3:
            raise BuildError(f"LocalResponseNorm needs an input of at least 3 dimensions, got "
                             f"shape {list(x.shape)}")
        channels = x.shape[1]
        before, after = self._size // 2, (self._size - 1) // 2
        sq = manip.unsqueeze(x * x, 1)  # [N, 1, C, ...]: pad the channel axis as a depth
        flat = sq if n == 4 else manip.reshape(sq, [0, 1, channels, 1, -1])
        padded = _ops.pad3d(flat, [0, 0, 0, 0, before, after], "constant", 0.0, "NCDHW")
        windows = [manip.slice(padded, [2], [i], [i + channels]) for i in range(self._size)]
        total = windows[0]
        for w in windows[1:]:
            total = total + w
        mean = manip.reshape(total, [0] + list(x.shape[1:])) * (1.0 / self._size)
        div = tmath.pow(mean * self._alpha + self._k, self._beta)
        return x / div
