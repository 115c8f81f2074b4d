"""Discrete distributions: Bernoulli, Binomial, Geometric, Poisson, Categorical, Multinomial."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .. import tensor as T
from ..nn import functional as F
from ._base import (
    Distribution,
    ExponentialFamily,
    as_tensor,
    broadcast_all,
    eager_values,
    like,
    same_family_kl,
    sample_shape,
    stop,
    xlogy,
)


def _clip_probs(probs):
    eps = float(np.finfo(probs.dtype).eps)
    return T.clip(probs, min=eps, max=1.0 - eps)


class Bernoulli(ExponentialFamily):
    """Bernoulli distribution: 1 with probability `probs`, else 0.

    Example:
        >>> pyir.distribution.Bernoulli(0.3).log_prob(pyir.to_tensor(1.0))
    """

    def __init__(self, probs, name: str | None = None):
        self.name = name if name is not None else "Bernoulli"
        self.probs = as_tensor(probs, "Bernoulli probs")
        self.logits = T.log(_clip_probs(self.probs)) - T.log1p(-_clip_probs(self.probs))
        self.dtype = self.probs.dtype
        super().__init__(self.probs.shape)

    @property
    def mean(self):
        """Mean, one value per batch element."""
        return self.probs

    @property
    def variance(self):
        """Variance, one value per batch element."""
        return self.probs * (1.0 - self.probs)

    def sample(self, shape: Sequence[int] = ()):
        """0/1 samples (probs' dtype) of shape `shape + batch_shape`."""
        shape = self._extend_shape(sample_shape(shape, "Bernoulli.sample"))
        return stop(T.bernoulli(T.expand(stop(self.probs * 1.0), shape)))

    def rsample(self, shape: Sequence[int] = (), temperature: float = 1.0):
        """Relaxed samples sigmoid((logits + logistic noise) / temperature)."""
        shape = self._extend_shape(sample_shape(shape, "Bernoulli.rsample"))
        eps = float(np.finfo(self.dtype).eps)
        u = T.uniform(shape, dtype=self.dtype, min=eps, max=1.0 - eps)
        noise = T.log(u) - T.log1p(-u)
        return F.sigmoid((self.logits + noise) / temperature)

    def cdf(self, value):
        """Cumulative distribution function at value."""
        value = like(value, self.probs)
        zeros = T.zeros_like(value + self.probs)
        ones = T.ones_like(zeros)
        return T.where(value < 0.0, zeros,
                          T.where(value < 1.0, zeros + 1.0 - self.probs, ones))

    def log_prob(self, value):
        """Log density (or mass) at value."""
        value = like(value, self.probs)
        return -F.binary_cross_entropy_with_logits(self.logits + T.zeros_like(value),
                                                   value + T.zeros_like(self.logits),
                                                   reduction="none")

    def prob(self, value):
        """Density (or mass) at value."""
        return T.exp(self.log_prob(value))

    def entropy(self):
        """Entropy in nats, one value per batch element."""
        p = self.probs
        return -(xlogy(p, p) + xlogy(1.0 - p, 1.0 - p))

    @property
    def _natural_parameters(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        return T.log1p(T.exp(x))

    @property
    def _mean_carrier_measure(self):
        return 0.0


class Binomial(Distribution):
    """Binomial distribution: successes in `total_count` trials of probability `probs`.

    Example:
        >>> pyir.distribution.Binomial(10, 0.3).mean
    """

    def __init__(self, total_count, probs):
        self.probs = as_tensor(probs, "Binomial probs")
        self.dtype = self.probs.dtype
        count = total_count if T.is_tensor(total_count) else T.assign(
            np.asarray(total_count, dtype=self.dtype))
        self.total_count, self.probs = broadcast_all(T.cast(count, self.dtype), self.probs)
        super().__init__(self.probs.shape)

    @property
    def mean(self):
        """Mean, one value per batch element."""
        return self.total_count * self.probs

    @property
    def variance(self):
        """Variance, one value per batch element."""
        return self.total_count * self.probs * (1.0 - self.probs)

    def sample(self, shape: Sequence[int] = ()):
        """Counts (probs' dtype) of shape `shape + batch_shape`."""
        shape = self._extend_shape(sample_shape(shape, "Binomial.sample"))
        counts = T.cast(T.expand(stop(self.total_count * 1.0), shape), "int32")
        draws = T.binomial(counts, T.expand(stop(self.probs * 1.0), shape))
        return stop(T.cast(draws, self.dtype))

    def log_prob(self, value):
        """Log density (or mass) at value."""
        value = like(value, self.probs)
        n, p = self.total_count, self.probs
        return (T.lgamma(n + 1.0) - T.lgamma(value + 1.0) - T.lgamma(n - value + 1.0)
                + xlogy(value, p) + xlogy(n - value, 1.0 - p))

    def prob(self, value):
        """Density (or mass) at value."""
        return T.exp(self.log_prob(value))

    def entropy(self):
        """-sum_k pmf(k) log pmf(k) over k = 0 .. max(total_count) (eager: needs the count)."""
        top = int(np.max(eager_values(self.total_count, "Binomial.entropy")))
        support = T.reshape(T.arange(0, top + 1, dtype=self.dtype),
                               [top + 1] + [1] * len(self.batch_shape))
        log_pmf = self.log_prob(support)
        inside = T.cast(support <= self.total_count, self.dtype)
        pmf = T.exp(log_pmf) * inside
        return -T.sum(pmf * T.where(inside > 0.0, log_pmf, T.zeros_like(log_pmf)),
                         axis=0)


class Geometric(Distribution):
    """Geometric distribution: failures before the first success, pmf (1-p)^k p.

    Example:
        >>> pyir.distribution.Geometric(0.5).pmf(2)
    """

    def __init__(self, probs):
        if not (T.is_tensor(probs) or isinstance(probs, (int, float))) or isinstance(
                probs, bool):
            raise TypeError("Expected type of probs is Number.Real|Tensor, "
                            f"but got {type(probs).__name__}")
        self.probs = probs if T.is_tensor(probs) else T.full([], float(probs), "float32")
        self.dtype = self.probs.dtype
        super().__init__(self.probs.shape)

    @property
    def mean(self):
        """Mean, one value per batch element."""
        return 1.0 / self.probs - 1.0

    @property
    def variance(self):
        """Variance, one value per batch element."""
        return (1.0 / self.probs - 1.0) / self.probs

    @property
    def stddev(self):
        """Standard deviation."""
        return T.sqrt(self.variance)

    def pmf(self, k):
        """Probability mass at k."""
        return T.pow(1.0 - self.probs, like(k, self.probs)) * self.probs

    def log_pmf(self, k):
        """Log probability mass at k."""
        return T.log(self.pmf(k))

    def log_prob(self, value):
        """Log density (or mass) at value."""
        return self.log_pmf(value)

    def prob(self, value):
        """Density (or mass) at value."""
        return self.pmf(value)

    def sample(self, shape: Sequence[int] = ()):
        """Samples of shape `shape + batch_shape + event_shape`, without gradient."""
        return stop(self.rsample(shape))

    def rsample(self, shape: Sequence[int] = ()):
        """floor(log(u) / log(1 - p))."""
        shape = self._extend_shape(sample_shape(shape, "Geometric.rsample"))
        tiny = float(np.finfo(self.dtype).tiny)
        u = T.uniform(shape, dtype=self.dtype, min=tiny, max=1.0)
        return T.floor(T.log(u) / T.log1p(-self.probs))

    def entropy(self):
        """Entropy in nats, one value per batch element."""
        p = self.probs
        return -(xlogy(1.0 - p, 1.0 - p) + p * T.log(p)) / p

    def kl_divergence(self, other):
        """KL(self || other) for another Geometric (TypeError for any other kind)."""
        return same_family_kl(self, other, Geometric)

    def cdf(self, k):
        """Cumulative distribution function at value."""
        return 1.0 - T.pow(1.0 - self.probs, like(k, self.probs) + 1.0)


class Poisson(Distribution):
    """Poisson distribution with rate `rate`.

    Example:
        >>> pyir.distribution.Poisson(3.0).log_prob(pyir.to_tensor(2.0))
    """

    def __init__(self, rate):
        self.rate = as_tensor(rate, "Poisson rate")
        self.dtype = self.rate.dtype
        super().__init__(self.rate.shape)

    @property
    def mean(self):
        """Mean, one value per batch element."""
        return self.rate

    @property
    def variance(self):
        """Variance, one value per batch element."""
        return self.rate

    def sample(self, shape: Sequence[int] = ()):
        """Samples of shape `shape + batch_shape + event_shape`, without gradient."""
        shape = self._extend_shape(sample_shape(shape, "Poisson.sample"))
        return stop(T.poisson(T.expand(stop(self.rate * 1.0), shape)))

    def log_prob(self, value):
        """Log density (or mass) at value."""
        value = like(value, self.rate)
        return xlogy(value, self.rate) - self.rate - T.lgamma(value + 1.0)

    def prob(self, value):
        """Density (or mass) at value."""
        return T.exp(self.log_prob(value))

    def entropy(self):
        """-sum_k pmf(k) log pmf(k) over a support that holds all but a negligible tail."""
        top = float(np.max(eager_values(self.rate, "Poisson.entropy")))
        count = int(top + 30.0 * np.sqrt(top) + 30.0)
        support = T.reshape(T.arange(0, count, dtype=self.dtype),
                               [count] + [1] * len(self.batch_shape))
        log_pmf = self.log_prob(support)
        return -T.sum(T.exp(log_pmf) * log_pmf, axis=0)


class Categorical(Distribution):
    """Categorical distribution over the last axis of `logits`.

    As in Paddle, `probs`/`log_prob` normalize `logits` by their sum (weights), while
    `sample`, `entropy` and `kl_divergence` use softmax(logits).

    Example:
        >>> pyir.distribution.Categorical(pyir.to_tensor([0.2, 0.3, 0.5])).probs(idx)
    """

    def __init__(self, logits, name: str | None = None):
        self.name = name if name is not None else "Categorical"
        self.logits = as_tensor(logits, "Categorical logits")
        self.dtype = self.logits.dtype
        self._prob = self.logits / T.sum(self.logits, axis=-1, keepdim=True)
        super().__init__(self.logits.shape[:-1])

    def _log_softmax(self):
        shifted = self.logits - T.max(self.logits, axis=-1, keepdim=True)
        return shifted - T.log(T.sum(T.exp(shifted), axis=-1, keepdim=True))

    def sample(self, shape: Sequence[int] = ()):
        """Category indices (int64) of shape `shape + batch_shape`."""
        shape = sample_shape(shape, "Categorical.sample")
        draws = int(np.prod(shape)) if shape else 1
        k = self.logits.shape[-1]
        rows = T.reshape(T.exp(self._log_softmax()), [-1, k])
        picked = T.multinomial(stop(rows), draws, True)          # [rows, draws]
        picked = T.transpose(picked, [1, 0])
        return T.reshape(picked, shape + list(self.batch_shape))

    def entropy(self):
        """Entropy in nats, one value per batch element."""
        log_p = self._log_softmax()
        return -T.sum(T.exp(log_p) * log_p, axis=-1)

    def probs(self, value):
        """Probability (logits normalized by their sum) of the categories in value."""
        value = T.cast(value, "int64") if T.is_tensor(value) else T.assign(
            np.asarray(value, dtype="int64"))
        if len(self._prob.shape) == 1:
            return T.reshape(T.gather(self._prob, T.reshape(value, [-1])), list(value.shape))
        if len(value.shape) == 1:
            # the categories are looked up in every batch row: shape batch_shape[:-1] + [n]
            index = T.reshape(value, [1] * (len(self._prob.shape) - 1) + [-1])
            return T.take_along_axis(self._prob, index, -1)
        return T.take_along_axis(self._prob, value, -1)

    def prob(self, value):
        """Density (or mass) at value."""
        return self.probs(value)

    def log_prob(self, value):
        """Log density (or mass) at value."""
        return T.log(self.probs(value))


class Multinomial(Distribution):
    """Multinomial distribution: counts of `total_count` draws over the last axis of `probs`.

    Example:
        >>> pyir.distribution.Multinomial(10, pyir.to_tensor([0.2, 0.8])).mean
    """

    def __init__(self, total_count: int, probs):
        if not isinstance(total_count, int) or isinstance(total_count, bool) or total_count < 1:
            raise ValueError("input parameter total_count must be int type and grater than zero.")
        if not T.is_tensor(probs) or len(probs.shape) < 1:
            raise ValueError("probs parameter should not be none and over one dimension")
        self.total_count = total_count
        self.probs = probs / T.sum(probs, axis=-1, keepdim=True)
        self.dtype = probs.dtype
        self._categorical = Categorical(T.log(self.probs))
        super().__init__(probs.shape[:-1], probs.shape[-1:])

    @property
    def mean(self):
        """Mean, one value per batch element."""
        return self.probs * float(self.total_count)

    @property
    def variance(self):
        """Variance, one value per batch element."""
        return float(self.total_count) * self.probs * (1.0 - self.probs)

    def log_prob(self, value):
        """Log density (or mass) at value."""
        value = like(value, self.probs)
        n = float(self.total_count)
        return (T.lgamma(T.full([], n + 1.0, self.dtype))
                - T.sum(T.lgamma(value + 1.0), axis=-1)
                + T.sum(xlogy(value, self.probs), axis=-1))

    def prob(self, value):
        """Density (or mass) at value."""
        return T.exp(self.log_prob(value))

    def sample(self, shape: Sequence[int] = ()):
        """Counts (probs' dtype) of shape `shape + batch_shape + [K]`."""
        shape = sample_shape(shape, "Multinomial.sample")
        picks = self._categorical.sample([self.total_count] + shape)
        k = self.probs.shape[-1]
        return stop(T.sum(T.cast(F.one_hot(picks, k), self.dtype), axis=0))

    def entropy(self):
        """Entropy from the binomial marginals of every category."""
        n = self.total_count
        support = T.reshape(T.arange(0, n + 1, dtype=self.dtype),
                               [n + 1] + [1] * len(self.probs.shape))
        marginal = Binomial(n, self.probs)
        weights = T.exp(marginal.log_prob(support)) * T.lgamma(support + 1.0)
        n_log_n = T.lgamma(T.full([], n + 1.0, self.dtype))
        return (-n_log_n - float(n) * T.sum(xlogy(self.probs, self.probs), axis=-1)
                + T.sum(T.sum(weights, axis=0), axis=-1))
