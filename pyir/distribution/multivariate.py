"""Distributions over vectors and matrices, and wrappers: MultivariateNormal, Independent,
LogNormal, LKJCholesky."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .. import linalg
from .. import tensor as T
from ._base import (
    LOG_2PI,
    Distribution,
    as_tensor,
    like,
    positive_or_refuse,
    sample_shape,
    stop,
    sum_rightmost,
)
from .continuous import Normal
from .gamma_family import Beta
from .transform import TransformedDistribution
from .transform_elementwise import ExpTransform


def _diagonal(matrix):
    return T.diagonal(matrix, axis1=-2, axis2=-1)


def _solve_lower(lower, rhs):
    """lower^-1 @ rhs for a lower-triangular matrix."""
    return linalg.triangular_solve(lower, rhs, upper=False)


class MultivariateNormal(Distribution):
    """Multivariate normal N(loc, covariance), given by exactly one of covariance_matrix,
    precision_matrix or scale_tril (its lower Cholesky factor).

    Example:
        >>> MultivariateNormal(pyir.to_tensor([0.0, 1.0]), covariance_matrix=cov).entropy()
    """

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None):
        given = [m for m in (covariance_matrix, precision_matrix, scale_tril) if m is not None]
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        for label, matrix in (("scale_tril matrix", scale_tril),
                              ("covariance_matrix", covariance_matrix),
                              ("precision_matrix", precision_matrix)):
            if matrix is not None and (not T.is_tensor(matrix) or len(matrix.shape) < 2):
                raise ValueError(f"{label} must be at least two-dimensional, with optional "
                                 "leading batch dimensions")
        matrix = given[0]
        self.loc = like(loc, matrix)
        if len(self.loc.shape) < 1:
            self.loc = T.expand(self.loc, [matrix.shape[-1]])
        if scale_tril is not None:
            self.scale_tril = scale_tril
        elif covariance_matrix is not None:
            self.scale_tril = linalg.cholesky(covariance_matrix)
        else:
            self.scale_tril = linalg.cholesky(linalg.inv(precision_matrix))
        self.dtype = matrix.dtype
        n = matrix.shape[-1]
        batch = list(T.broadcast_shape(list(matrix.shape[:-2]), list(self.loc.shape[:-1])))
        self.loc = T.expand(self.loc, batch + [n])
        self.scale_tril = T.expand(self.scale_tril, batch + [n, n])
        super().__init__(batch, [n])

    @property
    def covariance_matrix(self):
        """scale_tril @ scale_tril^T."""
        return T.matmul(self.scale_tril, self.scale_tril, transpose_y=True)

    @property
    def precision_matrix(self):
        """The inverse covariance."""
        return linalg.inv(self.covariance_matrix)

    @property
    def mean(self):
        """Mean, one value per batch element."""
        return self.loc

    @property
    def variance(self):
        """Variance, one value per batch element."""
        return T.sum(self.scale_tril ** 2.0, axis=-1)

    def sample(self, shape: Sequence[int] = ()):
        """Samples of shape `shape + batch_shape + event_shape`, without gradient."""
        return stop(self.rsample(shape))

    def rsample(self, shape: Sequence[int] = ()):
        """loc + scale_tril @ eps (gradients reach loc and the scale)."""
        shape = self._extend_shape(sample_shape(shape, "MultivariateNormal.rsample"))
        eps = T.unsqueeze(T.standard_normal(shape, dtype=self.dtype), -1)
        return self.loc + T.squeeze(T.matmul(self.scale_tril, eps), -1)

    def _half_log_det(self):
        return T.sum(T.log(_diagonal(self.scale_tril)), axis=-1)

    def log_prob(self, value):
        """Log density (or mass) at value."""
        diff = like(value, self.loc) - self.loc
        shape = list(diff.shape)
        lower = T.expand(self.scale_tril, shape + shape[-1:])
        solved = _solve_lower(lower, T.unsqueeze(diff, -1))
        mahalanobis = T.sum(T.squeeze(solved, -1) ** 2.0, axis=-1)
        k = float(self.event_shape[0])
        return -0.5 * (k * LOG_2PI + mahalanobis) - self._half_log_det()

    def prob(self, value):
        """Density (or mass) at value."""
        return T.exp(self.log_prob(value))

    def entropy(self):
        """Entropy in nats, one value per batch element."""
        k = float(self.event_shape[0])
        return 0.5 * k * (1.0 + LOG_2PI) + self._half_log_det()


class Independent(Distribution):
    """Reinterprets the last `reinterpreted_batch_rank` batch axes of base as event axes.

    Example:
        >>> Independent(Normal(pyir.zeros([3]), pyir.ones([3])), 1).log_prob(x)
    """

    def __init__(self, base: Distribution, reinterpreted_batch_rank: int):
        if not isinstance(base, Distribution):
            raise TypeError(f"Expected type of 'base' is Distribution, but got "
                            f"{type(base).__name__}")
        if not 0 < reinterpreted_batch_rank <= len(base.batch_shape):
            raise ValueError(f"Expected 0 < reinterpreted_batch_rank <= "
                             f"{len(base.batch_shape)}, but got {reinterpreted_batch_rank}")
        self._base = base
        self._reinterpreted_batch_rank = reinterpreted_batch_rank
        shape = list(base.batch_shape) + list(base.event_shape)
        cut = len(base.batch_shape) - reinterpreted_batch_rank
        super().__init__(shape[:cut], shape[cut:])

    @property
    def mean(self):
        """Mean, one value per batch element."""
        return self._base.mean

    @property
    def variance(self):
        """Variance, one value per batch element."""
        return self._base.variance

    def sample(self, shape: Sequence[int] = ()):
        """Samples of shape `shape + batch_shape + event_shape`, without gradient."""
        return self._base.sample(shape)

    def rsample(self, shape: Sequence[int] = ()):
        """Reparameterized samples of shape `shape + batch_shape + event_shape`."""
        return self._base.rsample(shape)

    def log_prob(self, value):
        """Log density (or mass) at value."""
        return sum_rightmost(self._base.log_prob(value), self._reinterpreted_batch_rank)

    def prob(self, value):
        """Density (or mass) at value."""
        return T.exp(self.log_prob(value))

    def entropy(self):
        """Entropy in nats, one value per batch element."""
        return sum_rightmost(self._base.entropy(), self._reinterpreted_batch_rank)


class LogNormal(TransformedDistribution):
    """Distribution of exp(X) for X ~ Normal(loc, scale).

    Example:
        >>> pyir.distribution.LogNormal(0.0, 1.0).mean
    """

    def __init__(self, loc, scale):
        self._base = Normal(loc, scale)
        self.loc, self.scale = self._base.loc, self._base.scale
        self.dtype = self.loc.dtype
        super().__init__(self._base, [ExpTransform()])

    @property
    def mean(self):
        """Mean, one value per batch element."""
        return T.exp(self.loc + self.scale ** 2.0 / 2.0)

    @property
    def variance(self):
        """Variance, one value per batch element."""
        s2 = self.scale ** 2.0
        return T.expm1(s2) * T.exp(2.0 * self.loc + s2)

    def entropy(self):
        """Entropy in nats, one value per batch element."""
        return self._base.entropy() + self.loc

    def probs(self, value):
        """Density (or mass) at value (the older spelling of prob)."""
        return T.exp(self.log_prob(value))


def _mvlgamma(a, p: int):
    """Multivariate log-gamma: p(p-1)/4 log(pi) + sum_i lgamma(a - i/2)."""
    total = p * (p - 1) / 4.0 * math.log(math.pi)
    for i in range(p):
        total = total + T.lgamma(a - i / 2.0)
    return total


class LKJCholesky(Distribution):
    """LKJ distribution over Cholesky factors of dim x dim correlation matrices.

    Example:
        >>> pyir.distribution.LKJCholesky(3, 2.0).sample([4])
    """

    def __init__(self, dim: int = 2, concentration: float = 1.0, sample_method: str = "onion"):
        if not isinstance(dim, int) or isinstance(dim, bool):
            raise TypeError(f"Expected dim to be an integer. Found dim={dim}.")
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. "
                             f"Found dim={dim}.")
        if sample_method not in ("onion", "cvine"):
            raise ValueError("`method` should be one of 'cvine' or 'onion'.")
        self.dim = dim
        self.concentration = as_tensor(concentration, "LKJCholesky concentration")
        positive_or_refuse(self.concentration, "The arg of `concentration` must be positive.")
        self.sample_method = sample_method
        self.dtype = self.concentration.dtype
        super().__init__(self.concentration.shape, [dim, dim])

    def _column_beta(self, offsets, shift):
        """(concentration + shift with a trailing axis, offsets as a tensor)."""
        offsets = T.assign(np.asarray(offsets, dtype=np.dtype(self.dtype)))
        conc = T.unsqueeze(self.concentration, -1) + shift
        return conc, offsets

    def _onion(self, shape):
        d = self.dim
        offset = np.concatenate([[0.0], np.arange(d - 1)])
        conc, offsets = self._column_beta(offset, 0.5 * (d - 2))
        # row i >= 1: y_i ~ Beta(i / 2, conc + (dim - 2) / 2 - (i - 1) / 2); row 0 is unused
        beta = Beta(0.5 * offsets + 0.5 + T.zeros_like(conc), conc - 0.5 * offsets)
        y = T.unsqueeze(beta.sample(shape), -1)                       # [..., d, 1]
        full = list(shape) + list(self.batch_shape) + [d, d]
        normal = T.tril(T.standard_normal(full, dtype=self.dtype), -1)
        norms = T.sqrt(T.sum(normal ** 2.0, axis=-1, keepdim=True))
        first_row = T.assign(np.arange(d).reshape(d, 1) > 0)
        sphere = T.where(first_row, normal / T.where(norms > 0.0, norms,
                                                             T.ones_like(norms)),
                            T.zeros_like(normal))
        w = T.sqrt(y) * sphere
        tiny = float(np.finfo(np.dtype(self.dtype)).tiny)
        diag = T.sqrt(T.clip(1.0 - T.sum(w ** 2.0, axis=-1), min=tiny))
        return w + T.diag_embed(diag)

    def _cvine(self, shape):
        d = self.dim
        offset = np.concatenate([np.arange(d - 1), [d - 2]]).astype(float)
        conc, offsets = self._column_beta(offset, 0.5 * (d - 2))
        per_column = conc - 0.5 * offsets                                    # [..., d]
        beta = Beta(per_column, per_column)
        partial = 2.0 * beta.sample(list(shape) + [d]) - 1.0                 # [..., d, d]
        eps = float(np.finfo(np.dtype(self.dtype)).eps)
        r = T.tril(T.clip(partial, min=-1.0 + eps, max=1.0 - eps), -1)
        kept = T.cumprod(T.sqrt(1.0 - r ** 2.0), dim=-1)
        ones = T.ones(list(kept.shape[:-1]) + [1], self.dtype)
        shifted = T.concat([ones, T.slice(kept, [len(kept.shape) - 1], [0], [d - 1])],
                              axis=-1)
        return (r + T.eye(d, dtype=self.dtype)) * shifted

    def sample(self, sample_shape: Sequence[int] = ()):
        """Lower-triangular factors L (L @ L^T is a correlation matrix)."""
        shape = globals()["sample_shape"](sample_shape, "LKJCholesky.sample")
        draws = self._onion(shape) if self.sample_method == "onion" else self._cvine(shape)
        return stop(draws)

    def log_prob(self, value):
        """Log density (or mass) at value."""
        d = self.dim
        value = like(value, self.concentration)
        diag = T.slice(_diagonal(value), [len(value.shape) - 2], [1], [d])
        order = T.assign(np.arange(2, d + 1).astype(np.dtype(self.dtype)))
        exponents = 2.0 * (T.unsqueeze(self.concentration, -1) - 1.0) + d - order
        unnormalized = T.sum(exponents * T.log(diag), axis=-1)
        alpha = self.concentration + 0.5 * (d - 1)
        normalizer = (0.5 * (d - 1) * math.log(math.pi) + _mvlgamma(alpha - 0.5, d - 1)
                      - (d - 1) * T.lgamma(alpha))
        return unnormalized - normalizer
