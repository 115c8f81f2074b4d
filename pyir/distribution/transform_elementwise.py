"""Elementwise and simplex transforms: Abs, Affine, Exp, Power, Sigmoid, Tanh, Softmax,
StickBreaking."""

from __future__ import annotations

import math

import numpy as np

from .. import tensor as T
from ..nn import functional as F
from .transform import Transform, Type


class AbsTransform(Transform):
    """y = |x| (a surjection: inverse gives both preimages (-y, y)).

    Example:
        >>> pyir.distribution.AbsTransform().inverse(y)
    """

    _type = Type.SURJECTION

    def _forward(self, x):
        return T.abs(x)

    def _inverse(self, y):
        return -y, y

    def _inverse_log_det_jacobian(self, y):
        zero = T.zeros([], y.dtype)
        return zero, zero


class AffineTransform(Transform):
    """y = loc + scale * x.

    Example:
        >>> pyir.distribution.AffineTransform(pyir.to_tensor(1.0), pyir.to_tensor(2.0))
    """

    _type = Type.BIJECTION

    def __init__(self, loc, scale):
        if not T.is_tensor(loc):
            raise TypeError(f"Expected 'loc' is a Tensor, but got {type(loc).__name__}")
        if not T.is_tensor(scale):
            raise TypeError(f"Expected scale is a Tensor, but got {type(scale).__name__}")
        self._loc, self._scale = loc, scale
        super().__init__()

    @property
    def loc(self):
        """The shift."""
        return self._loc

    @property
    def scale(self):
        """The scale."""
        return self._scale

    def _forward(self, x):
        return self._loc + self._scale * x

    def _inverse(self, y):
        return (y - self._loc) / self._scale

    def _forward_log_det_jacobian(self, x):
        return T.log(T.abs(self._scale)) + T.zeros_like(x)

    def _forward_shape(self, shape):
        return list(T.broadcast_shape(T.broadcast_shape(list(shape), list(self._loc.shape)),
                                         list(self._scale.shape)))

    _inverse_shape = _forward_shape


class ExpTransform(Transform):
    """y = exp(x).

    Example:
        >>> pyir.distribution.ExpTransform().forward_log_det_jacobian(x)
    """

    _type = Type.BIJECTION

    def _forward(self, x):
        return T.exp(x)

    def _inverse(self, y):
        return T.log(y)

    def _forward_log_det_jacobian(self, x):
        return x


class PowerTransform(Transform):
    """y = x ** power.

    Example:
        >>> pyir.distribution.PowerTransform(pyir.to_tensor(2.0)).forward(x)
    """

    _type = Type.BIJECTION

    def __init__(self, power):
        if not T.is_tensor(power):
            raise TypeError(f"Expected 'power' is a tensor, but got {type(power).__name__}")
        self._power = power
        super().__init__()

    @property
    def power(self):
        """The exponent."""
        return self._power

    def _forward(self, x):
        return T.pow(x, self._power)

    def _inverse(self, y):
        return T.pow(y, 1.0 / self._power)

    def _forward_log_det_jacobian(self, x):
        return T.log(T.abs(self._power * T.pow(x, self._power - 1.0)))

    def _forward_shape(self, shape):
        return list(T.broadcast_shape(list(shape), list(self._power.shape)))

    _inverse_shape = _forward_shape


class SigmoidTransform(Transform):
    """y = sigmoid(x).

    Example:
        >>> pyir.distribution.SigmoidTransform().inverse(y)
    """

    _type = Type.BIJECTION

    def _forward(self, x):
        return F.sigmoid(x)

    def _inverse(self, y):
        return T.log(y) - T.log1p(-y)

    def _forward_log_det_jacobian(self, x):
        return -F.softplus(-x) - F.softplus(x)


class TanhTransform(Transform):
    """y = tanh(x).

    Example:
        >>> pyir.distribution.TanhTransform().forward(x)
    """

    _type = Type.BIJECTION

    def _forward(self, x):
        return T.tanh(x)

    def _inverse(self, y):
        return T.atanh(y)

    def _forward_log_det_jacobian(self, x):
        return 2.0 * (math.log(2.0) - x - F.softplus(-2.0 * x))


class SoftmaxTransform(Transform):
    """y = softmax(x) over the last axis (not injective: no log-det-Jacobian).

    Example:
        >>> pyir.distribution.SoftmaxTransform().forward(x)
    """

    _type = Type.OTHER
    _domain_rank = 1
    _codomain_rank = 1

    def _forward(self, x):
        shifted = T.exp(x - T.max(x, axis=-1, keepdim=True))
        return shifted / T.sum(shifted, axis=-1, keepdim=True)

    def _inverse(self, y):
        return T.log(y)

    def _forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError(f"Expected length of shape is grater than 1, but got {len(shape)}")
        return shape

    _inverse_shape = _forward_shape


class StickBreakingTransform(Transform):
    """Maps R^K onto the (K+1)-simplex by stick breaking.

    Example:
        >>> pyir.distribution.StickBreakingTransform().forward(pyir.to_tensor([0.1, 0.2]))
    """

    _type = Type.BIJECTION
    _domain_rank = 1
    _codomain_rank = 1

    @staticmethod
    def _offset(x):
        k = x.shape[-1]
        return T.assign(np.arange(k, 0, -1).astype(np.dtype(x.dtype)))

    def _forward(self, x):
        z = F.sigmoid(x - T.log(self._offset(x)))
        kept = T.cumprod(1.0 - z, dim=-1)
        ones = T.ones(list(x.shape[:-1]) + [1], x.dtype)
        return (T.concat([z, ones], axis=-1) * T.concat([ones, kept], axis=-1))

    def _inverse(self, y):
        crop = T.slice(y, [len(y.shape) - 1], [0], [y.shape[-1] - 1])
        rest = 1.0 - T.cumsum(crop, axis=-1)
        return T.log(crop) - T.log(rest) + T.log(self._offset(crop))

    def _forward_log_det_jacobian(self, x):
        y = self._forward(x)
        shifted = x - T.log(self._offset(x))
        crop = T.slice(y, [len(y.shape) - 1], [0], [x.shape[-1]])
        return T.sum(-shifted + F.log_sigmoid(shifted) + T.log(crop), axis=-1)

    def _forward_shape(self, shape):
        if not shape:
            raise ValueError(f"Expected 'shape' is not empty, but got {shape}")
        return list(shape[:-1]) + [shape[-1] + 1]

    def _inverse_shape(self, shape):
        if not shape:
            raise ValueError(f"Expected 'shape' is not empty, but got {shape}")
        return list(shape[:-1]) + [shape[-1] - 1]
