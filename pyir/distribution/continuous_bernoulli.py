"""The continuous Bernoulli distribution on [0, 1] (density C(p) p^x (1-p)^(1-x))."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .. import tensor as T
from ._base import Distribution, as_tensor, like, sample_shape, stop


class ContinuousBernoulli(Distribution):
    """Continuous Bernoulli distribution with parameter `probs`; inside `lims` (around 1/2)
    Taylor expansions replace the formulas that divide by 1 - 2p.

    Example:
        >>> pyir.distribution.ContinuousBernoulli(0.3).log_prob(pyir.to_tensor(0.5))
    """

    def __init__(self, probs, lims: tuple = (0.499, 0.501)):
        probs = as_tensor(probs, "ContinuousBernoulli probs")
        self.dtype = probs.dtype
        eps = float(np.finfo(np.dtype(self.dtype)).eps)
        self.probs = T.clip(probs, min=eps, max=1.0 - eps)
        self.lims = tuple(lims)
        super().__init__(self.probs.shape)

    def _outside(self):
        return (self.probs < self.lims[0]) | (self.probs > self.lims[1])

    def _cut_probs(self):
        """probs outside lims, lims[0] inside (keeps the unused branch finite)."""
        return T.where(self._outside(), self.probs, T.full_like(self.probs, self.lims[0]))

    def _tanh_inverse(self, p):
        return T.atanh(1.0 - 2.0 * p)

    def _log_constant(self):
        p = self._cut_probs()
        exact = T.log(T.abs(2.0 * self._tanh_inverse(p))) - T.log(T.abs(1.0 - 2.0 * p))
        x = (self.probs - 0.5) ** 2.0
        taylor = np.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return T.where(self._outside(), exact, taylor)

    @property
    def mean(self):
        """Mean, one value per batch element."""
        p = self._cut_probs()
        exact = p / (2.0 * p - 1.0) + 1.0 / (2.0 * self._tanh_inverse(p))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x ** 2.0) * x
        return T.where(self._outside(), exact, taylor)

    @property
    def variance(self):
        """Variance, one value per batch element."""
        p = self._cut_probs()
        exact = (p * (p - 1.0) / (1.0 - 2.0 * p) ** 2.0
                 + 1.0 / (2.0 * self._tanh_inverse(p)) ** 2.0)
        x = (self.probs - 0.5) ** 2.0
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return T.where(self._outside(), exact, taylor)

    def sample(self, shape: Sequence[int] = ()):
        """Samples of shape `shape + batch_shape + event_shape`, without gradient."""
        return stop(self.rsample(shape))

    def rsample(self, shape: Sequence[int] = ()):
        """icdf(u) for uniform u (gradients reach probs)."""
        shape = self._extend_shape(sample_shape(shape, "ContinuousBernoulli.rsample"))
        return self.icdf(T.uniform(shape, dtype=self.dtype, min=0.0, max=1.0))

    def log_prob(self, value):
        """Log density (or mass) at value."""
        value = like(value, self.probs)
        return (value * T.log(self.probs) + (1.0 - value) * T.log1p(-self.probs)
                + self._log_constant())

    def prob(self, value):
        """Density (or mass) at value."""
        return T.exp(self.log_prob(value))

    def entropy(self):
        """Entropy in nats, one value per batch element."""
        log_p0 = T.log1p(-self.probs)
        log_p1 = T.log(self.probs)
        return -self._log_constant() - self.mean * (log_p1 - log_p0) - log_p0

    def cdf(self, value):
        """Cumulative distribution function at value."""
        value = like(value, self.probs)
        p = self._cut_probs()
        exact = ((T.pow(p, value) * T.pow(1.0 - p, 1.0 - value) + p - 1.0)
                 / (2.0 * p - 1.0))
        inner = T.where(self._outside(), exact, value + T.zeros_like(p))
        zeros = T.zeros_like(inner)
        return T.where(value <= 0.0, zeros,
                          T.where(value >= 1.0, zeros + 1.0, inner))

    def icdf(self, value):
        """Inverse cumulative distribution function at value."""
        value = like(value, self.probs)
        p = self._cut_probs()
        exact = ((T.log1p(-p + value * (2.0 * p - 1.0)) - T.log1p(-p))
                 / (T.log(p) - T.log1p(-p)))
        return T.where(self._outside(), exact, value + T.zeros_like(p))
