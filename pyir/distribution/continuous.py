"""Location-scale continuous distributions: Normal, Uniform, Cauchy, Laplace, Gumbel."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

import pyir
from ..tensor.random import _gaussian
from ._base import (EULER_GAMMA, LOG_2PI, Distribution, broadcast_all, like,
                    sample_shape, stop)


class _LocScale(Distribution):
    """Shared constructor: loc and scale broadcast to the batch shape."""

    def __init__(self, loc, scale, name: str | None = None):
        self.loc, self.scale = broadcast_all(loc, scale, what=f"{type(self).__name__} loc/scale")
        self.name = name if name is not None else type(self).__name__
        self.dtype = self.loc.dtype
        super().__init__(self.loc.shape)

    def _standard(self, value):
        return (like(value, self.loc) - self.loc) / self.scale

    def _uniform(self, shape, low=0.0, high=1.0, seed=0):
        return pyir.uniform(self._extend_shape(shape), dtype=self.dtype, min=low, max=high,
                            seed=seed)

    def sample(self, shape: Sequence[int] = ()):
        """Samples of shape `shape + batch_shape`, without gradient."""
        return stop(self.rsample(shape))

    @property
    def stddev(self):
        return pyir.sqrt(self.variance)


class Normal(_LocScale):
    """Normal (Gaussian) distribution N(loc, scale^2).

    Example:
        >>> pyir.distribution.Normal(0.0, 1.0).log_prob(pyir.to_tensor(0.5))
    """

    @property
    def mean(self):
        return self.loc + pyir.zeros_like(self.scale)

    @property
    def variance(self):
        return self.scale ** 2.0 + pyir.zeros_like(self.loc)

    def sample(self, shape: Sequence[int] = (), seed: int = 0):
        """Samples of shape `shape + batch_shape` (seed 0: the global stream)."""
        shape = sample_shape(shape, "Normal.sample")
        noise = _gaussian(self._extend_shape(shape), 0.0, 1.0, self.dtype, None, seed=seed)
        return stop(self.loc + noise * self.scale)

    def rsample(self, shape: Sequence[int] = ()):
        """Reparameterized samples loc + scale * eps (gradients reach loc and scale)."""
        shape = sample_shape(shape, "Normal.rsample")
        noise = pyir.standard_normal(self._extend_shape(shape), dtype=self.dtype)
        return self.loc + noise * self.scale

    def entropy(self):
        return 0.5 + 0.5 * LOG_2PI + pyir.log(self.scale) + pyir.zeros_like(self.loc)

    def log_prob(self, value):
        z = self._standard(value)
        return -0.5 * z * z - pyir.log(self.scale) - 0.5 * LOG_2PI

    def probs(self, value):
        return pyir.exp(self.log_prob(value))


class Uniform(_LocScale):
    """Uniform distribution on [low, high).

    Example:
        >>> pyir.distribution.Uniform(0.0, 2.0).entropy()
    """

    def __init__(self, low, high, name: str | None = None):
        super().__init__(low, high, name)
        self.low, self.high = self.loc, self.scale

    @property
    def mean(self):
        return (self.low + self.high) / 2.0

    @property
    def variance(self):
        return (self.high - self.low) ** 2.0 / 12.0

    def sample(self, shape: Sequence[int] = (), seed: int = 0):
        """Samples of shape `shape + batch_shape` (seed 0: the global stream)."""
        return stop(self._rsample(sample_shape(shape, "Uniform.sample"), seed))

    def rsample(self, shape: Sequence[int] = ()):
        return self._rsample(sample_shape(shape, "Uniform.rsample"), 0)

    def _rsample(self, shape, seed):
        return self.low + self._uniform(shape, seed=seed) * (self.high - self.low)

    def log_prob(self, value):
        value = like(value, self.low)
        inside = pyir.cast(self.low < value, self.dtype) * pyir.cast(value < self.high, self.dtype)
        return pyir.log(inside) - pyir.log(self.high - self.low)

    def probs(self, value):
        value = like(value, self.low)
        inside = pyir.cast(self.low < value, self.dtype) * pyir.cast(value < self.high, self.dtype)
        return inside / (self.high - self.low)

    def prob(self, value):
        return self.probs(value)

    def entropy(self):
        return pyir.log(self.high - self.low)


class Cauchy(_LocScale):
    """Cauchy distribution with location loc and scale.

    Example:
        >>> pyir.distribution.Cauchy(0.0, 1.0).cdf(pyir.to_tensor(1.0))
    """

    @property
    def mean(self):
        raise ValueError("Cauchy distribution has no mean.")

    @property
    def variance(self):
        raise ValueError("Cauchy distribution has no variance.")

    @property
    def stddev(self):
        raise ValueError("Cauchy distribution has no stddev.")

    def sample(self, shape: Sequence[int] = (), name: str | None = None):
        return stop(self.rsample(shape))

    def rsample(self, shape: Sequence[int] = (), name: str | None = None):
        """loc + scale * tan(pi * (u - 1/2))."""
        u = self._uniform(sample_shape(shape, "Cauchy.rsample"))
        return self.loc + self.scale * pyir.tan(math.pi * (u - 0.5))

    def log_prob(self, value):
        z = self._standard(value)
        return -math.log(math.pi) - pyir.log(self.scale) - pyir.log1p(z * z)

    def prob(self, value):
        return pyir.exp(self.log_prob(value))

    def cdf(self, value):
        return pyir.atan(self._standard(value)) / math.pi + 0.5

    def entropy(self):
        return math.log(4.0 * math.pi) + pyir.log(self.scale) + pyir.zeros_like(self.loc)


class Laplace(_LocScale):
    """Laplace distribution with location loc and scale.

    Example:
        >>> pyir.distribution.Laplace(0.0, 1.0).icdf(pyir.to_tensor(0.3))
    """

    def __init__(self, loc, scale):
        super().__init__(loc, scale)

    @property
    def mean(self):
        return self.loc + pyir.zeros_like(self.scale)

    @property
    def stddev(self):
        return math.sqrt(2.0) * self.scale + pyir.zeros_like(self.loc)

    @property
    def variance(self):
        return 2.0 * self.scale ** 2.0 + pyir.zeros_like(self.loc)

    def rsample(self, shape: Sequence[int] = ()):
        """loc - scale * sign(u) * log(1 - |u|), u uniform on (-1, 1)."""
        eps = float(np.finfo(self.dtype).eps)
        u = self._uniform(sample_shape(shape, "Laplace.rsample"), low=-1.0 + eps, high=1.0)
        return self.loc - self.scale * pyir.sign(u) * pyir.log1p(-pyir.abs(u))

    def log_prob(self, value):
        return -pyir.log(2.0 * self.scale) - pyir.abs(self._standard(value))

    def entropy(self):
        return 1.0 + pyir.log(2.0 * self.scale) + pyir.zeros_like(self.loc)

    def cdf(self, value):
        z = self._standard(value)
        return 0.5 - 0.5 * pyir.sign(z) * pyir.expm1(-pyir.abs(z))

    def icdf(self, value):
        centred = like(value, self.loc) - 0.5
        return self.loc - self.scale * pyir.sign(centred) * pyir.log1p(-2.0 * pyir.abs(centred))


class Gumbel(_LocScale):
    """Gumbel (type-I extreme value) distribution with location loc and scale.

    Example:
        >>> pyir.distribution.Gumbel(0.0, 1.0).mean
    """

    def __init__(self, loc, scale):
        super().__init__(loc, scale)

    @property
    def mean(self):
        return self.loc + self.scale * EULER_GAMMA

    @property
    def variance(self):
        return (math.pi ** 2 / 6.0) * self.scale ** 2.0 + pyir.zeros_like(self.loc)

    def rsample(self, shape: Sequence[int] = ()):
        """loc - scale * log(-log(u))."""
        tiny = float(np.finfo(self.dtype).tiny)
        u = self._uniform(sample_shape(shape, "Gumbel.rsample"), low=tiny, high=1.0)
        return self.loc - self.scale * pyir.log(-pyir.log(u))

    def log_prob(self, value):
        z = self._standard(value)
        return -(z + pyir.exp(-z)) - pyir.log(self.scale)

    def cdf(self, value):
        return pyir.exp(-pyir.exp(-self._standard(value)))

    def entropy(self):
        return pyir.log(self.scale) + 1.0 + EULER_GAMMA + pyir.zeros_like(self.loc)
