"""The Transform base, composite transforms (Chain, Independent, Reshape, Stack) and
TransformedDistribution."""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence

from .. import tensor as T
from ._base import Distribution, sum_rightmost


class Type(enum.Enum):
    """How a transform maps its domain: bijection, injection, surjection or other."""
    BIJECTION = "bijection"
    INJECTION = "injection"
    SURJECTION = "surjection"
    OTHER = "other"

    @classmethod
    def is_injective(cls, kind) -> bool:
        return kind in (cls.BIJECTION, cls.INJECTION)


class Transform:
    """Base transform: forward, inverse, log-det-Jacobians and shapes.

    Calling a transform on a tensor applies forward; on a Distribution gives a
    TransformedDistribution; on a Transform gives their ChainTransform.

    Example:
        >>> pyir.distribution.ExpTransform().forward(x)
    """

    _type = Type.INJECTION
    _domain_rank = 0
    _codomain_rank = 0

    def __init__(self):
        pass

    @classmethod
    def _is_injective(cls) -> bool:
        return Type.is_injective(cls._type)

    def __call__(self, input):
        if isinstance(input, Distribution):
            return TransformedDistribution(input, [self])
        if isinstance(input, Transform):
            return ChainTransform([self, input])
        return self.forward(input)

    def _check(self, value, what: str, rank: int, method: str):
        if not T.is_tensor(value):
            raise TypeError(f"{type(self).__name__}.{method}: expected '{what}' is a Tensor, "
                            f"but got {type(value).__name__}")
        if len(value.shape) < rank:
            raise ValueError(f"{type(self).__name__}.{method}: '{what}' must have at least "
                             f"{rank} dimensions, got {len(value.shape)}")

    def forward(self, x):
        """y = f(x)."""
        self._check(x, "x", self._domain_rank, "forward")
        return self._forward(x)

    def inverse(self, y):
        """x = f^-1(y)."""
        self._check(y, "y", self._codomain_rank, "inverse")
        return self._inverse(y)

    def forward_log_det_jacobian(self, x):
        """log|det df/dx| at x."""
        self._check(x, "x", self._domain_rank, "forward_log_det_jacobian")
        if not self._is_injective():
            raise NotImplementedError("forward_log_det_jacobian can't be implemented for "
                                      f"non-injective transform {type(self).__name__}")
        return self._forward_log_det_jacobian(x)

    def inverse_log_det_jacobian(self, y):
        """log|det df^-1/dy| at y = -forward_log_det_jacobian(f^-1(y))."""
        self._check(y, "y", self._codomain_rank, "inverse_log_det_jacobian")
        return self._inverse_log_det_jacobian(y)

    def forward_shape(self, shape: Sequence[int]) -> Sequence[int]:
        """The shape of forward(x) for x of this shape."""
        if not isinstance(shape, Sequence):
            raise TypeError(f"forward_shape: expected a sequence of ints, got {shape!r}")
        return self._forward_shape(shape)

    def inverse_shape(self, shape: Sequence[int]) -> Sequence[int]:
        """The shape of inverse(y) for y of this shape."""
        if not isinstance(shape, Sequence):
            raise TypeError(f"inverse_shape: expected a sequence of ints, got {shape!r}")
        return self._inverse_shape(shape)

    def _forward(self, x):
        raise NotImplementedError(f"{type(self).__name__}: forward is not implemented")

    def _inverse(self, y):
        raise NotImplementedError(f"{type(self).__name__}: inverse is not implemented")

    def _forward_log_det_jacobian(self, x):
        if type(self)._inverse_log_det_jacobian is not Transform._inverse_log_det_jacobian:
            return -self._inverse_log_det_jacobian(self.forward(x))
        raise NotImplementedError(
            f"{type(self).__name__}: forward_log_det_jacobian is not implemented")

    def _inverse_log_det_jacobian(self, y):
        return -self._forward_log_det_jacobian(self._inverse(y))

    def _forward_shape(self, shape):
        return shape

    def _inverse_shape(self, shape):
        return shape


class ChainTransform(Transform):
    """Composition: forward applies transforms[0] first.

    Example:
        >>> pyir.distribution.ChainTransform([ExpTransform(), AffineTransform(l, s)])
    """

    def __init__(self, transforms: Sequence[Transform]):
        if not isinstance(transforms, Sequence):
            raise TypeError("Expected type of 'transforms' is Sequence, "
                            f"but got {type(transforms).__name__}")
        if not all(isinstance(t, Transform) for t in transforms):
            raise TypeError("All elements of transforms should be Transform type.")
        self.transforms = list(transforms)
        super().__init__()

    def _is_injective(self) -> bool:
        return all(t._is_injective() for t in self.transforms)

    @property
    def _domain_rank(self):
        rank = self.transforms[-1]._codomain_rank if self.transforms else 0
        for t in reversed(self.transforms):
            rank += t._domain_rank - t._codomain_rank
            rank = max(rank, t._domain_rank)
        return rank

    @property
    def _codomain_rank(self):
        rank = self.transforms[0]._domain_rank if self.transforms else 0
        for t in self.transforms:
            rank += t._codomain_rank - t._domain_rank
            rank = max(rank, t._codomain_rank)
        return rank

    def _forward(self, x):
        for t in self.transforms:
            x = t.forward(x)
        return x

    def _inverse(self, y):
        for t in reversed(self.transforms):
            y = t.inverse(y)
        return y

    def _forward_log_det_jacobian(self, x):
        total = 0.0
        rank = self._domain_rank
        for t in self.transforms:
            total = total + sum_rightmost(t.forward_log_det_jacobian(x), rank - t._domain_rank)
            x = t.forward(x)
            rank += t._codomain_rank - t._domain_rank
        return total

    def _forward_shape(self, shape):
        for t in self.transforms:
            shape = t.forward_shape(shape)
        return shape

    def _inverse_shape(self, shape):
        for t in reversed(self.transforms):
            shape = t.inverse_shape(shape)
        return shape


class IndependentTransform(Transform):
    """base applied elementwise, with its log-det-Jacobian summed over the last
    `reinterpreted_batch_rank` axes.

    Example:
        >>> pyir.distribution.IndependentTransform(ExpTransform(), 1)
    """

    def __init__(self, base: Transform, reinterpreted_batch_rank: int):
        if not isinstance(base, Transform):
            raise TypeError(f"Expected 'base' is Transform type, but get {type(base).__name__}")
        if not isinstance(reinterpreted_batch_rank, int) or reinterpreted_batch_rank <= 0:
            raise ValueError("Expected 'reinterpreted_batch_rank' is grater than zero, "
                             f"but got {reinterpreted_batch_rank}")
        self._base = base
        self._reinterpreted_batch_rank = reinterpreted_batch_rank
        super().__init__()

    def _is_injective(self) -> bool:
        return self._base._is_injective()

    @property
    def _domain_rank(self):
        return self._base._domain_rank + self._reinterpreted_batch_rank

    @property
    def _codomain_rank(self):
        return self._base._codomain_rank + self._reinterpreted_batch_rank

    def _forward(self, x):
        return self._base.forward(x)

    def _inverse(self, y):
        return self._base.inverse(y)

    def _forward_log_det_jacobian(self, x):
        return sum_rightmost(self._base.forward_log_det_jacobian(x),
                             self._reinterpreted_batch_rank)

    def _forward_shape(self, shape):
        return self._base.forward_shape(shape)

    def _inverse_shape(self, shape):
        return self._base.inverse_shape(shape)


class ReshapeTransform(Transform):
    """Reshapes the event part of a tensor from in_event_shape to out_event_shape.

    Example:
        >>> pyir.distribution.ReshapeTransform((2, 3), (3, 2)).forward(x)
    """

    _type = Type.BIJECTION

    def __init__(self, in_event_shape: Sequence[int], out_event_shape: Sequence[int]):
        if not isinstance(in_event_shape, Sequence) or not isinstance(out_event_shape, Sequence):
            raise TypeError("Expected type of 'in_event_shape' and 'out_event_shape' is "
                            f"Sequence[int], but got {in_event_shape!r}, {out_event_shape!r}")
        if math.prod(in_event_shape) != math.prod(out_event_shape):
            raise ValueError("The numel of 'in_event_shape' should be 'out_event_shape', "
                             f"but got {math.prod(in_event_shape)}!={math.prod(out_event_shape)}")
        self._in_event_shape = tuple(in_event_shape)
        self._out_event_shape = tuple(out_event_shape)
        super().__init__()

    @property
    def in_event_shape(self):
        """The event shape taken in."""
        return self._in_event_shape

    @property
    def out_event_shape(self):
        """The event shape given out."""
        return self._out_event_shape

    @property
    def _domain_rank(self):
        return len(self._in_event_shape)

    @property
    def _codomain_rank(self):
        return len(self._out_event_shape)

    def _forward(self, x):
        batch = list(x.shape[:len(x.shape) - len(self._in_event_shape)])
        return T.reshape(x, batch + list(self._out_event_shape))

    def _inverse(self, y):
        batch = list(y.shape[:len(y.shape) - len(self._out_event_shape)])
        return T.reshape(y, batch + list(self._in_event_shape))

    def _forward_log_det_jacobian(self, x):
        batch = list(x.shape[:len(x.shape) - len(self._in_event_shape)])
        return T.zeros(batch, x.dtype)

    def _swap(self, shape, have, want, what):
        shape = list(shape)
        if len(shape) < len(have):
            raise ValueError(f"Expected length of 'shape' is not less than {len(have)}, "
                             f"but got {len(shape)}")
        if tuple(shape[len(shape) - len(have):]) != tuple(have):
            raise ValueError(f"Event shape mismatch, expected: {have}, but got "
                             f"{tuple(shape[len(shape) - len(have):])} ({what})")
        return shape[:len(shape) - len(have)] + list(want)

    def _forward_shape(self, shape):
        return self._swap(shape, self._in_event_shape, self._out_event_shape, "forward_shape")

    def _inverse_shape(self, shape):
        return self._swap(shape, self._out_event_shape, self._in_event_shape, "inverse_shape")


class StackTransform(Transform):
    """Applies transforms[i] to slice i along `axis`.

    Example:
        >>> pyir.distribution.StackTransform([ExpTransform(), TanhTransform()], axis=1)
    """

    def __init__(self, transforms: Sequence[Transform], axis: int = 0):
        if not transforms or not isinstance(transforms, Sequence):
            raise TypeError(f"Expected 'transforms' is Sequence[Transform], but got {transforms!r}")
        if not all(isinstance(t, Transform) for t in transforms):
            raise TypeError("Expected all element in transforms is Transform Type.")
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise TypeError(f"Expected 'axis' is int, but got {type(axis).__name__}.")
        self._transforms = list(transforms)
        self._axis = axis
        super().__init__()

    @property
    def transforms(self):
        """The stacked transforms."""
        return self._transforms

    @property
    def axis(self):
        """The axis the transforms are stacked on."""
        return self._axis

    def _is_injective(self) -> bool:
        return all(t._is_injective() for t in self._transforms)

    def _map(self, value, method: str):
        count = value.shape[self._axis]
        if count != len(self._transforms):
            raise ValueError(f"Input dimensions {count} should be equal to transforms "
                             f"length {len(self._transforms)}")
        parts = T.unbind(value, axis=self._axis)
        return T.stack([getattr(t, method)(part) for part, t in zip(parts, self._transforms)],
                          axis=self._axis)

    def _forward(self, x):
        return self._map(x, "forward")

    def _inverse(self, y):
        return self._map(y, "inverse")

    def _forward_log_det_jacobian(self, x):
        return self._map(x, "forward_log_det_jacobian")

    def _inverse_log_det_jacobian(self, y):
        return self._map(y, "inverse_log_det_jacobian")


class TransformedDistribution(Distribution):
    """The distribution of transforms(base sample), with the change-of-variables log_prob.

    Example:
        >>> TransformedDistribution(Normal(0.0, 1.0), [ExpTransform()])
    """

    def __init__(self, base: Distribution, transforms: Sequence[Transform]):
        if not isinstance(base, Distribution):
            raise TypeError(f"Expected type of 'base' is Distribution, but got "
                            f"{type(base).__name__}.")
        if not isinstance(transforms, Sequence):
            raise TypeError(f"Expected type of 'transforms' is Sequence[Transform] or Chain, "
                            f"but got {type(transforms).__name__}.")
        if not all(isinstance(t, Transform) for t in transforms):
            raise TypeError("All element of transforms must be Transform type.")
        self._base = base
        self._transforms = list(transforms)
        chain = ChainTransform(self._transforms)
        shape = list(base.batch_shape) + list(base.event_shape)
        if len(shape) < chain._domain_rank:
            raise ValueError(f"'base' needs to have shape with size at least "
                             f"{chain._domain_rank}, but got {len(shape)}.")
        out_shape = list(chain.forward_shape(shape))
        event_rank = max(chain._codomain_rank, len(base.event_shape)
                         + chain._codomain_rank - chain._domain_rank)
        self._event_rank = event_rank
        cut = len(out_shape) - event_rank
        super().__init__(out_shape[:cut], out_shape[cut:])

    def sample(self, shape: Sequence[int] = ()):
        """Samples of shape `shape + batch_shape + event_shape`, without gradient."""
        x = self._base.sample(shape)
        for t in self._transforms:
            x = t.forward(x)
        return x

    def rsample(self, shape: Sequence[int] = ()):
        """Reparameterized samples of shape `shape + batch_shape + event_shape`."""
        x = self._base.rsample(shape)
        for t in self._transforms:
            x = t.forward(x)
        return x

    def log_prob(self, value):
        """Log density (or mass) at value."""
        log_prob = 0.0
        y = value
        rank = self._event_rank
        for t in reversed(self._transforms):
            x = t.inverse(y)
            rank += t._domain_rank - t._codomain_rank
            log_prob = log_prob - sum_rightmost(t.forward_log_det_jacobian(x),
                                                rank - t._domain_rank)
            y = x
        return log_prob + sum_rightmost(self._base.log_prob(y),
                                        rank - len(self._base.event_shape))
