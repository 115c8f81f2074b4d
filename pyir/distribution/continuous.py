"""Location-scale continuous distributions: Normal, Uniform, Cauchy, Laplace, Gumbel."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .. import tensor as T
from ..tensor.random import _gaussian
from ._base import (
    EULER_GAMMA,
    LOG_2PI,
    Distribution,
    broadcast_all,
    like,
    same_family_kl,
    sample_shape,
    stop,
    tensors_or_numbers,
)
from .transform import TransformedDistribution


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
        return T.uniform(self._extend_shape(shape), dtype=self.dtype, min=low, max=high,
                            seed=seed)

    def sample(self, shape: Sequence[int] = ()):
        """Samples of shape `shape + batch_shape`, without gradient."""
        return stop(self.rsample(shape))

    @property
    def stddev(self):
        """Standard deviation."""
        return T.sqrt(self.variance)


class Normal(_LocScale):
    """Normal (Gaussian) distribution N(loc, scale^2); loc and scale are both tensors or
    both numbers/arrays.

    Example:
        >>> pyir.distribution.Normal(0.0, 1.0).log_prob(pyir.to_tensor(0.5))
    """

    def __init__(self, loc, scale, name: str | None = None):
        tensors_or_numbers(loc, scale)
        super().__init__(loc, scale, name)

    @property
    def mean(self):
        """Mean, one value per batch element."""
        return self.loc + T.zeros_like(self.scale)

    @property
    def variance(self):
        """Variance, one value per batch element."""
        return self.scale ** 2.0 + T.zeros_like(self.loc)

    def sample(self, shape: Sequence[int] = (), seed: int = 0):
        """Samples of shape `shape + batch_shape` (seed 0: the global stream)."""
        shape = sample_shape(shape, "Normal.sample")
        noise = _gaussian(self._extend_shape(shape), 0.0, 1.0, self.dtype, None, seed=seed)
        return stop(self.loc + noise * self.scale)

    def rsample(self, shape: Sequence[int] = ()):
        """Reparameterized samples loc + scale * eps (gradients reach loc and scale)."""
        shape = sample_shape(shape, "Normal.rsample")
        noise = T.standard_normal(self._extend_shape(shape), dtype=self.dtype)
        return self.loc + noise * self.scale

    def entropy(self):
        """Entropy in nats, one value per batch element."""
        return 0.5 + 0.5 * LOG_2PI + T.log(self.scale) + T.zeros_like(self.loc)

    def log_prob(self, value):
        """Log density (or mass) at value."""
        z = self._standard(value)
        return -0.5 * z * z - T.log(self.scale) - 0.5 * LOG_2PI

    def kl_divergence(self, other):
        """KL(self || other) for another Normal (TypeError for any other kind)."""
        return same_family_kl(self, other, Normal)

    def probs(self, value):
        """Density (or mass) at value (the older spelling of prob)."""
        return T.exp(self.log_prob(value))


class Uniform(_LocScale):
    """Uniform distribution on [low, high).

    Example:
        >>> pyir.distribution.Uniform(0.0, 2.0).entropy()
    """

    def __init__(self, low, high, name: str | None = None):
        tensors_or_numbers(low, high)
        super().__init__(low, high, name)
        self.low, self.high = self.loc, self.scale

    @property
    def mean(self):
        """Mean, one value per batch element."""
        return (self.low + self.high) / 2.0

    @property
    def variance(self):
        """Variance, one value per batch element."""
        return (self.high - self.low) ** 2.0 / 12.0

    def sample(self, shape: Sequence[int] = (), seed: int = 0):
        """Samples of shape `shape + batch_shape` (seed 0: the global stream)."""
        return stop(self._rsample(sample_shape(shape, "Uniform.sample"), seed))

    def rsample(self, shape: Sequence[int] = ()):
        """Reparameterized samples of shape `shape + batch_shape + event_shape`."""
        return self._rsample(sample_shape(shape, "Uniform.rsample"), 0)

    def _rsample(self, shape, seed):
        return self.low + self._uniform(shape, seed=seed) * (self.high - self.low)

    def log_prob(self, value):
        """Log density (or mass) at value."""
        value = like(value, self.low)
        inside = T.cast(self.low < value, self.dtype) * T.cast(value < self.high, self.dtype)
        return T.log(inside) - T.log(self.high - self.low)

    def probs(self, value):
        """Density (or mass) at value (the older spelling of prob)."""
        value = like(value, self.low)
        inside = T.cast(self.low < value, self.dtype) * T.cast(value < self.high, self.dtype)
        return inside / (self.high - self.low)

    def prob(self, value):
        """Density (or mass) at value."""
        return self.probs(value)

    def entropy(self):
        """Entropy in nats, one value per batch element."""
        return T.log(self.high - self.low)


class Cauchy(_LocScale):
    """Cauchy distribution with location loc and scale.

    Example:
        >>> pyir.distribution.Cauchy(0.0, 1.0).cdf(pyir.to_tensor(1.0))
    """

    @property
    def mean(self):
        """Refused: a Cauchy distribution has no mean."""
        raise ValueError("Cauchy distribution has no mean.")

    @property
    def variance(self):
        """Refused: a Cauchy distribution has no variance."""
        raise ValueError("Cauchy distribution has no variance.")

    @property
    def stddev(self):
        """Refused: a Cauchy distribution has no stddev."""
        raise ValueError("Cauchy distribution has no stddev.")

    def sample(self, shape: Sequence[int] = (), name: str | None = None):
        """Samples of shape `shape + batch_shape + event_shape`, without gradient."""
        return stop(self.rsample(shape))

    def rsample(self, shape: Sequence[int] = (), name: str | None = None):
        """loc + scale * tan(pi * (u - 1/2))."""
        u = self._uniform(sample_shape(shape, "Cauchy.rsample"))
        return self.loc + self.scale * T.tan(math.pi * (u - 0.5))

    def log_prob(self, value):
        """Log density (or mass) at value."""
        z = self._standard(value)
        return -math.log(math.pi) - T.log(self.scale) - T.log1p(z * z)

    def prob(self, value):
        """Density (or mass) at value."""
        return T.exp(self.log_prob(value))

    def cdf(self, value):
        """Cumulative distribution function at value."""
        return T.atan(self._standard(value)) / math.pi + 0.5

    def kl_divergence(self, other):
        """KL(self || other) for another Cauchy (TypeError for any other kind)."""
        return same_family_kl(self, other, Cauchy)

    def entropy(self):
        """Entropy in nats, one value per batch element."""
        return math.log(4.0 * math.pi) + T.log(self.scale) + T.zeros_like(self.loc)


class Laplace(_LocScale):
    """Laplace distribution with location loc and scale.

    Example:
        >>> pyir.distribution.Laplace(0.0, 1.0).icdf(pyir.to_tensor(0.3))
    """

    def __init__(self, loc, scale):
        super().__init__(loc, scale)

    @property
    def mean(self):
        """Mean, one value per batch element."""
        return self.loc + T.zeros_like(self.scale)

    @property
    def stddev(self):
        """Standard deviation."""
        return math.sqrt(2.0) * self.scale + T.zeros_like(self.loc)

    @property
    def variance(self):
        """Variance, one value per batch element."""
        return 2.0 * self.scale ** 2.0 + T.zeros_like(self.loc)

    def rsample(self, shape: Sequence[int] = ()):
        """loc - scale * sign(u) * log(1 - |u|), u uniform on (-1, 1)."""
        eps = float(np.finfo(self.dtype).eps)
        u = self._uniform(sample_shape(shape, "Laplace.rsample"), low=-1.0 + eps, high=1.0)
        return self.loc - self.scale * T.sign(u) * T.log1p(-T.abs(u))

    def log_prob(self, value):
        """Log density (or mass) at value."""
        return -T.log(2.0 * self.scale) - T.abs(self._standard(value))

    def entropy(self):
        """Entropy in nats, one value per batch element."""
        return 1.0 + T.log(2.0 * self.scale) + T.zeros_like(self.loc)

    def cdf(self, value):
        """Cumulative distribution function at value."""
        z = self._standard(value)
        return 0.5 - 0.5 * T.sign(z) * T.expm1(-T.abs(z))

    def icdf(self, value):
        """Inverse cumulative distribution function at value."""
        centred = like(value, self.loc) - 0.5
        return self.loc - self.scale * T.sign(centred) * T.log1p(-2.0 * T.abs(centred))


class Gumbel(_LocScale, TransformedDistribution):
    """Gumbel (type-I extreme value) distribution with location loc and scale; as in Paddle
    a TransformedDistribution over Uniform(tiny, 1 - eps) with its own closed forms.

    Example:
        >>> pyir.distribution.Gumbel(0.0, 1.0).mean
    """

    def __init__(self, loc, scale):
        self.loc, self.scale = broadcast_all(loc, scale, what="Gumbel loc/scale")
        self.name = "Gumbel"
        self.dtype = self.loc.dtype
        finfo = np.finfo(np.float32)
        self.base_dist = Uniform(T.full_like(self.loc, float(finfo.tiny)),
                                 T.full_like(self.loc, float(1.0 - finfo.eps)))
        self.transforms = ()
        TransformedDistribution.__init__(self, self.base_dist, self.transforms)

    @property
    def mean(self):
        """Mean, one value per batch element."""
        return self.loc + self.scale * EULER_GAMMA

    @property
    def variance(self):
        """Variance, one value per batch element."""
        return (math.pi ** 2 / 6.0) * self.scale ** 2.0 + T.zeros_like(self.loc)

    def rsample(self, shape: Sequence[int] = ()):
        """loc - scale * log(-log(u))."""
        tiny = float(np.finfo(self.dtype).tiny)
        u = self._uniform(sample_shape(shape, "Gumbel.rsample"), low=tiny, high=1.0)
        return self.loc - self.scale * T.log(-T.log(u))

    def log_prob(self, value):
        """Log density (or mass) at value."""
        z = self._standard(value)
        return -(z + T.exp(-z)) - T.log(self.scale)

    def cdf(self, value):
        """Cumulative distribution function at value."""
        return T.exp(-T.exp(-self._standard(value)))

    def entropy(self):
        """Entropy in nats, one value per batch element."""
        return T.log(self.scale) + 1.0 + EULER_GAMMA + T.zeros_like(self.loc)
