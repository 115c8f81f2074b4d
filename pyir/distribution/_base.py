"""The Distribution base class and the helpers every distribution shares.

Parameters become pyir tensors once (python numbers and lists as float32, numpy float64
arrays stay float64); every computation afterwards is a pyir tensor function, so the same
code runs eagerly (with gradients through the tape) and builds ops in static mode.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .. import framework
from .. import tensor as T
from ..eager import grad as tape_grad
from ..tensor.logic import is_tensor

EULER_GAMMA = 0.5772156649015329
LOG_2PI = math.log(2.0 * math.pi)


def in_dynamic_mode() -> bool:
    """Whether calls run eagerly (as `pyir.in_dynamic_mode`)."""
    return not framework.static_mode[0]


def as_tensor(value, what: str):
    """value as a float tensor (python/numpy data is copied into an `assign_value` op)."""
    if is_tensor(value):
        return value
    if isinstance(value, bool) or not isinstance(
            value, (int, float, list, tuple, np.ndarray, np.generic)):
        raise TypeError(f"{what} must be a float, list, tuple, numpy.ndarray or Tensor, "
                        f"got {type(value).__name__}")
    array = np.asarray(value)
    keep64 = isinstance(value, np.ndarray) and array.dtype == np.float64
    return T.assign(array.astype("float64" if keep64 else "float32"))


def broadcast_all(*values, what: str = "parameters"):
    """The parameters as tensors of one dtype and one broadcast shape."""
    tensors = [as_tensor(v, what) for v in values]
    dtype = tensors[0].dtype
    tensors = [t if t.dtype == dtype else T.cast(t, dtype) for t in tensors]
    shapes = [list(t.shape) for t in tensors]
    if all(s == shapes[0] for s in shapes):
        return tensors
    return T.broadcast_tensors(tensors)


def tensors_or_numbers(*values) -> None:
    """Refuse a mix of tensors and python/numpy data (Paddle's Normal, Uniform and Gamma)."""
    kinds = {is_tensor(v) for v in values}
    if len(kinds) > 1:
        raise ValueError("if one argument is Tensor, all arguments should be Tensor")


def like(value, ref):
    """value (number or tensor) as a tensor with ref's dtype."""
    if is_tensor(value):
        return value if value.dtype == ref.dtype else T.cast(value, ref.dtype)
    return T.assign(np.asarray(value, dtype=ref.dtype))


def sample_shape(shape, who: str) -> list:
    """A sample shape given as a sequence of ints, as a list."""
    if isinstance(shape, (int, np.integer)) or not isinstance(shape, Sequence):
        raise TypeError(f"{who}: sample shape must be a sequence of ints, got {shape!r}")
    return [int(d) for d in shape]


def stop(value):
    """value cut from the gradient tape (samples that are not reparameterized)."""
    if hasattr(value, "detach"):
        return value.detach()
    value.stop_gradient = True
    return value


def sum_rightmost(value, n: int):
    """value summed over its n last axes."""
    return T.sum(value, axis=list(range(-n, 0))) if n > 0 else value


def xlogy(x, y):
    """x * log(y) with 0 * log(0) = 0."""
    safe = T.where(x == 0.0, T.ones_like(y), y)
    return x * T.log(safe)


def lbeta(a, b):
    """log B(a, b) = lgamma(a) + lgamma(b) - lgamma(a + b)."""
    return T.lgamma(a) + T.lgamma(b) - T.lgamma(a + b)


def eager_values(tensor, who: str) -> np.ndarray:
    """The values of a parameter tensor, for methods that size a support from them."""
    if not in_dynamic_mode():
        raise NotImplementedError(f"{who} sizes its support from the parameter values, "
                                  "which a static program does not know: call it in eager mode")
    return np.asarray(tensor)


def positive_or_refuse(value, message: str) -> None:
    """Refuse a tensor with an element <= 0 (eager only, as Paddle checks)."""
    if in_dynamic_mode() and not bool(np.all(np.asarray(value) > 0)):
        raise ValueError(message)


_KL_FORMULAS: dict = {}


def register_kl(cls_p, cls_q):
    """Decorator registering fn(p, q) as KL(p || q) for distributions of these classes.

    Example:
        >>> @pyir.distribution.register_kl(MyP, MyQ)
        ... def _kl(p, q): ...
    """
    if not (isinstance(cls_p, type) and issubclass(cls_p, Distribution)
            and isinstance(cls_q, type) and issubclass(cls_q, Distribution)):
        raise TypeError("register_kl: cls_p and cls_q must be subclasses of Distribution")

    def decorator(fn):
        _KL_FORMULAS[cls_p, cls_q] = fn
        return fn
    return decorator


def _most_specific(cls_p, cls_q):
    matches = [(p, q) for (p, q) in _KL_FORMULAS if issubclass(cls_p, p) and issubclass(cls_q, q)]
    if not matches:
        return None
    # the pair closest to (cls_p, cls_q) in both method resolution orders
    return min(matches, key=lambda pq: (cls_p.__mro__.index(pq[0]) + cls_q.__mro__.index(pq[1])))


def kl_divergence(p, q):
    """KL(p || q) between two distributions, from the formula registered for their classes.

    Example:
        >>> pyir.distribution.kl_divergence(Normal(0.0, 1.0), Normal(1.0, 2.0))
    """
    pair = _most_specific(type(p), type(q))
    if pair is None:
        raise NotImplementedError(
            f"kl_divergence: no formula for ({type(p).__name__}, {type(q).__name__}); "
            "register one with T.distribution.register_kl")
    return _KL_FORMULAS[pair](p, q)


def same_family_kl(p, q, family: type):
    """KL(p || q) for a method that, as in Paddle, takes only `family` for q."""
    if not isinstance(q, family):
        raise TypeError(f"Expected type of other is {family.__name__}, "
                        f"but got {type(q).__name__}")
    return kl_divergence(p, q)


class Distribution:
    """Base class of probability distributions: batch/event shapes and the method set.

    Example:
        >>> d = pyir.distribution.Normal(0.0, 1.0); d.batch_shape
    """

    def __init__(self, batch_shape: Sequence[int] = (), event_shape: Sequence[int] = ()):
        self._batch_shape = tuple(batch_shape)
        self._event_shape = tuple(event_shape)

    @property
    def batch_shape(self) -> tuple:
        """The shape of the independent parameter sets."""
        return self._batch_shape

    @property
    def event_shape(self) -> tuple:
        """The shape of one draw."""
        return self._event_shape

    @property
    def mean(self):
        """Mean, one value per batch element."""
        raise NotImplementedError(f"{type(self).__name__} has no mean")

    @property
    def variance(self):
        """Variance, one value per batch element."""
        raise NotImplementedError(f"{type(self).__name__} has no variance")

    def sample(self, shape: Sequence[int] = ()):
        """Samples of shape `shape + batch_shape + event_shape`, without gradient."""
        raise NotImplementedError(f"{type(self).__name__}.sample is not implemented")

    def rsample(self, shape: Sequence[int] = ()):
        """Reparameterized samples of shape `shape + batch_shape + event_shape`."""
        raise NotImplementedError(f"{type(self).__name__}.rsample is not implemented")

    def entropy(self):
        """Entropy in nats, one value per batch element."""
        raise NotImplementedError(f"{type(self).__name__}.entropy is not implemented")

    def kl_divergence(self, other):
        """KL(self || other) from the formula registered for the pair (see register_kl)."""
        return kl_divergence(self, other)

    def log_prob(self, value):
        """Log density (or mass) at value."""
        raise NotImplementedError(f"{type(self).__name__}.log_prob is not implemented")

    def prob(self, value):
        """exp(log_prob(value))."""
        return T.exp(self.log_prob(value))

    def probs(self, value):
        """Deprecated spelling of prob."""
        return self.prob(value)

    def _extend_shape(self, shape: Sequence[int]) -> list:
        return list(shape) + list(self._batch_shape) + list(self._event_shape)

    def _value(self, value, ref):
        return like(value, ref)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(batch_shape={list(self._batch_shape)}, "
                f"event_shape={list(self._event_shape)})")


class ExponentialFamily(Distribution):
    """Base of exponential-family distributions: entropy from the log normalizer's gradient
    (Bregman divergence), for subclasses that define `_natural_parameters`,
    `_log_normalizer` and `_mean_carrier_measure`.

    Example:
        >>> isinstance(pyir.distribution.Gamma(1.0, 1.0), pyir.distribution.ExponentialFamily)
    """

    @property
    def _natural_parameters(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_parameters):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        """-<eta, grad A(eta)> + A(eta) - E[carrier measure] (eager mode: needs gradients)."""
        if not in_dynamic_mode():
            raise NotImplementedError(f"{type(self).__name__}.entropy differentiates the log "
                                      "normalizer on the tape: call it in eager mode")
        naturals = [p.detach() for p in self._natural_parameters]
        for p in naturals:
            p.stop_gradient = False
        log_norm = self._log_normalizer(*naturals)
        grads = tape_grad([T.sum(log_norm)], naturals, create_graph=True)
        result = log_norm - self._mean_carrier_measure
        for p, g in zip(naturals, grads):
            result = result - sum_rightmost(p * g, len(self.event_shape))
        return result
