"""Distributions built on the gamma function: Exponential, Gamma, Chi2, Beta, Dirichlet,
StudentT."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .. import tensor as T
from ._base import (
    Distribution,
    ExponentialFamily,
    as_tensor,
    broadcast_all,
    in_dynamic_mode,
    lbeta,
    like,
    positive_or_refuse,
    same_family_kl,
    sample_shape,
    stop,
    tensors_or_numbers,
)


class Exponential(ExponentialFamily):
    """Exponential distribution with rate `rate` (density rate * exp(-rate * x)).

    Example:
        >>> pyir.distribution.Exponential(2.0).cdf(pyir.to_tensor(1.0))
    """

    def __init__(self, rate):
        self.rate = as_tensor(rate, "Exponential rate")
        self.dtype = self.rate.dtype
        super().__init__(self.rate.shape)

    @property
    def mean(self):
        """Mean, one value per batch element."""
        return 1.0 / self.rate

    @property
    def variance(self):
        """Variance, one value per batch element."""
        return 1.0 / self.rate ** 2.0

    def sample(self, shape: Sequence[int] = ()):
        """Samples of shape `shape + batch_shape + event_shape`, without gradient."""
        return stop(self.rsample(shape))

    def rsample(self, shape: Sequence[int] = ()):
        """-log(1 - u) / rate."""
        shape = self._extend_shape(sample_shape(shape, "Exponential.rsample"))
        u = T.uniform(shape, dtype=self.dtype, min=0.0, max=1.0)
        return -T.log1p(-u) / self.rate

    def log_prob(self, value):
        """Log density (or mass) at value."""
        return T.log(self.rate) - self.rate * like(value, self.rate)

    def prob(self, value):
        """Density (or mass) at value."""
        return self.rate * T.exp(-self.rate * like(value, self.rate))

    def entropy(self):
        """Entropy in nats, one value per batch element."""
        return 1.0 - T.log(self.rate)

    def cdf(self, value):
        """Cumulative distribution function at value."""
        return 1.0 - T.exp(-self.rate * like(value, self.rate))

    def icdf(self, value):
        """Inverse cumulative distribution function at value."""
        return -T.log1p(-like(value, self.rate)) / self.rate

    def kl_divergence(self, other):
        """KL(self || other) for another Exponential (TypeError for any other kind)."""
        return same_family_kl(self, other, Exponential)

    @property
    def _natural_parameters(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -T.log(-x)

    @property
    def _mean_carrier_measure(self):
        return 0.0


class Gamma(ExponentialFamily):
    """Gamma distribution with shape `concentration` and `rate`.

    Example:
        >>> pyir.distribution.Gamma(2.0, 1.0).entropy()
    """

    def __init__(self, concentration, rate):
        tensors_or_numbers(concentration, rate)
        self.concentration, self.rate = broadcast_all(concentration, rate,
                                                      what="Gamma concentration/rate")
        self.dtype = self.rate.dtype
        super().__init__(self.rate.shape)

    @property
    def mean(self):
        """Mean, one value per batch element."""
        return self.concentration / self.rate

    @property
    def variance(self):
        """Variance, one value per batch element."""
        return self.concentration / self.rate ** 2.0

    def log_prob(self, value):
        """Log density (or mass) at value."""
        value = like(value, self.rate)
        a, r = self.concentration, self.rate
        return a * T.log(r) + (a - 1.0) * T.log(value) - r * value - T.lgamma(a)

    def prob(self, value):
        """Density (or mass) at value."""
        return T.exp(self.log_prob(value))

    def entropy(self):
        """Entropy in nats, one value per batch element."""
        a = self.concentration
        return a - T.log(self.rate) + T.lgamma(a) + (1.0 - a) * T.digamma(a)

    def sample(self, shape: Sequence[int] = ()):
        """Samples of shape `shape + batch_shape + event_shape`, without gradient."""
        return stop(self.rsample(shape))

    def rsample(self, shape: Sequence[int] = ()):
        """standard_gamma(concentration) / rate (the gradient reaches rate)."""
        shape = self._extend_shape(sample_shape(shape, "Gamma.rsample"))
        draws = T.standard_gamma(T.expand(stop(self.concentration * 1.0), shape))
        return draws / T.expand(self.rate, shape)

    def kl_divergence(self, other):
        """KL(self || other) for another Gamma (TypeError for any other kind)."""
        return same_family_kl(self, other, Gamma)

    @property
    def _natural_parameters(self):
        return (self.concentration - 1.0, -self.rate)

    def _log_normalizer(self, x, y):
        return T.lgamma(x + 1.0) + (x + 1.0) * T.log(-1.0 / y)

    @property
    def _mean_carrier_measure(self):
        return 0.0


class Chi2(Gamma):
    """Chi-squared distribution with `df` degrees of freedom (Gamma(df / 2, 1 / 2)).

    Example:
        >>> pyir.distribution.Chi2(3.0).mean
    """

    def __init__(self, df):
        self.df = as_tensor(df, "Chi2 df")
        positive_or_refuse(self.df, "The arg of `df` must be positive.")
        super().__init__(self.df * 0.5, T.full_like(self.df, 0.5))


class Dirichlet(ExponentialFamily):
    """Dirichlet distribution over the simplex, concentration of shape [..., K].

    Example:
        >>> pyir.distribution.Dirichlet(pyir.to_tensor([1.0, 2.0, 3.0])).mean
    """

    def __init__(self, concentration):
        if not T.is_tensor(concentration):
            raise TypeError("Dirichlet: concentration must be a Tensor")
        if len(concentration.shape) < 1 or 0 in list(concentration.shape):
            raise ValueError("`concentration` parameter must be at least one dimensional")
        self.concentration = concentration
        self.dtype = concentration.dtype
        super().__init__(concentration.shape[:-1], concentration.shape[-1:])

    def _total(self):
        return T.sum(self.concentration, axis=-1, keepdim=True)

    @property
    def mean(self):
        """Mean, one value per batch element."""
        return self.concentration / self._total()

    @property
    def variance(self):
        """Variance, one value per batch element."""
        total = self._total()
        return self.concentration * (total - self.concentration) / (total ** 2.0 * (total + 1.0))

    def sample(self, shape: Sequence[int] = ()):
        """Samples of shape `shape + batch_shape + event_shape`, without gradient."""
        shape = self._extend_shape(sample_shape(shape, "Dirichlet.sample"))
        draws = T.standard_gamma(T.expand(stop(self.concentration * 1.0), shape))
        return draws / T.sum(draws, axis=-1, keepdim=True)

    def log_prob(self, value):
        """Log density (or mass) at value."""
        value = like(value, self.concentration)
        a = self.concentration
        return (T.sum((a - 1.0) * T.log(value), axis=-1)
                + T.lgamma(T.sum(a, axis=-1)) - T.sum(T.lgamma(a), axis=-1))

    def prob(self, value):
        """Density (or mass) at value."""
        return T.exp(self.log_prob(value))

    def entropy(self):
        """Entropy in nats, one value per batch element."""
        a = self.concentration
        total = T.sum(a, axis=-1)
        k = float(a.shape[-1])
        return (T.sum(T.lgamma(a), axis=-1) - T.lgamma(total)
                + (total - k) * T.digamma(total)
                - T.sum((a - 1.0) * T.digamma(a), axis=-1))

    @property
    def _natural_parameters(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return T.sum(T.lgamma(x), axis=-1) - T.lgamma(T.sum(x, axis=-1))

    @property
    def _mean_carrier_measure(self):
        return 0.0


class Beta(ExponentialFamily):
    """Beta distribution on [0, 1] with shape parameters alpha and beta.

    Example:
        >>> pyir.distribution.Beta(2.0, 3.0).variance
    """

    def __init__(self, alpha, beta):
        self.alpha, self.beta = broadcast_all(alpha, beta, what="Beta alpha/beta")
        self.dtype = self.alpha.dtype
        self._dirichlet = Dirichlet(T.stack([self.alpha, self.beta], axis=-1))
        super().__init__(self._dirichlet.batch_shape)

    @property
    def mean(self):
        """Mean, one value per batch element."""
        return self.alpha / (self.alpha + self.beta)

    @property
    def variance(self):
        """Variance, one value per batch element."""
        total = self.alpha + self.beta
        return self.alpha * self.beta / (total ** 2.0 * (total + 1.0))

    def prob(self, value):
        """Density (or mass) at value."""
        return T.exp(self.log_prob(value))

    def log_prob(self, value):
        """Log density (or mass) at value."""
        value = like(value, self.alpha)
        return ((self.alpha - 1.0) * T.log(value) + (self.beta - 1.0) * T.log1p(-value)
                - lbeta(self.alpha, self.beta))

    def sample(self, shape: Sequence[int] = ()):
        """Samples of shape `shape + batch_shape + event_shape`, without gradient."""
        draws = self._dirichlet.sample(sample_shape(shape, "Beta.sample"))
        return T.squeeze(T.slice(draws, [len(draws.shape) - 1], [0], [1]), axis=-1)

    def entropy(self):
        """Entropy in nats, one value per batch element."""
        return self._dirichlet.entropy()

    @property
    def _natural_parameters(self):
        return (self.alpha, self.beta)

    def _log_normalizer(self, x, y):
        return lbeta(x, y)

    @property
    def _mean_carrier_measure(self):
        return 0.0


class StudentT(Distribution):
    """Student's t distribution with `df` degrees of freedom, location and scale.

    Example:
        >>> pyir.distribution.StudentT(3.0, 0.0, 1.0).log_prob(pyir.to_tensor(0.5))
    """

    def __init__(self, df, loc, scale, name: str | None = None):
        self.name = name if name is not None else "StudentT"
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale, what="StudentT parameters")
        if in_dynamic_mode():
            if not bool(np.all(np.asarray(self.df) >= 0)):
                raise ValueError("Every element of input parameter `df` should be nonnegative.")
            if not bool(np.all(np.asarray(self.scale) >= 0)):
                raise ValueError(
                    "Every element of input parameter `scale` should be nonnegative.")
        self.dtype = self.df.dtype
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.shape)

    @property
    def mean(self):
        """Mean, one value per batch element."""
        nan = T.full_like(self.loc, float("nan"))
        return T.where(self.df > 1.0, self.loc, nan)

    @property
    def variance(self):
        """Variance, one value per batch element."""
        df = self.df
        finite = self.scale ** 2.0 * df / T.where(df > 2.0, df - 2.0, T.ones_like(df))
        infinite = T.full_like(df, float("inf"))
        nan = T.full_like(df, float("nan"))
        return T.where(df > 2.0, finite, T.where(df > 1.0, infinite, nan))

    def sample(self, shape: Sequence[int] = ()):
        """loc + scale * z / sqrt(chi2 / df)."""
        shape = sample_shape(shape, "StudentT.sample")
        z = T.standard_normal(self._extend_shape(shape), dtype=self.dtype)
        chi2 = self._chi2.sample(shape)
        return stop(self.loc + self.scale * z * T.rsqrt(chi2 / self.df))

    def entropy(self):
        """Entropy in nats, one value per batch element."""
        half_df = self.df * 0.5
        half_up = (self.df + 1.0) * 0.5
        return (T.log(self.scale) + half_up * (T.digamma(half_up) - T.digamma(half_df))
                + 0.5 * T.log(self.df) + lbeta(half_df, T.full_like(self.df, 0.5)))

    def log_prob(self, value):
        """Log density (or mass) at value."""
        z = (like(value, self.loc) - self.loc) / self.scale
        half_up = (self.df + 1.0) * 0.5
        return (T.lgamma(half_up) - T.lgamma(self.df * 0.5)
                - 0.5 * T.log(self.df * math.pi) - T.log(self.scale)
                - half_up * T.log1p(z * z / self.df))

    def prob(self, value):
        """Density (or mass) at value."""
        return T.exp(self.log_prob(value))
