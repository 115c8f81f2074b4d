"""Weight decay for the static optimizers, as Paddle appends it: `pyir.regularizer.L2Decay`,
`L1Decay`.

Given to an optimizer (`weight_decay=`) or to one parameter (`ParamAttr(regularizer=...)`,
which takes precedence), a regularizer adds its decay term to the gradient before the update:
`scale` (and `sign` for L1) ops into a `_generated_var_N`, then `sum` into the gradient itself.
Eager optimizers run the same ops on Tensors (`eager_term`).
"""

from __future__ import annotations

from . import framework
from .builder import emit
from .eager import run_op
from .errors import BuildError
from .framework import Variable, unique_name


class WeightDecayRegularizer:
    """A decay term `coeff * f(param)` added to param's gradient."""

    def __init__(self, coeff: float = 0.0):
        if not isinstance(coeff, (int, float)) or coeff < 0:
            raise BuildError(f"{type(self).__name__}: coeff must be a non-negative number, "
                             f"got {coeff!r}")
        self._coeff = float(coeff)

    @property
    def coeff(self) -> float:
        return self._coeff

    def __call__(self, param: Variable, grad: Variable, block) -> Variable:
        """Append the ops computing the decay term; returns its variable."""
        raise NotImplementedError

    def eager_term(self, param):
        """The decay term of an eager parameter Tensor, by the same ops (run now)."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(coeff={self._coeff})"

    def _term(self, param: Variable, block) -> Variable:
        return block.create_var(unique_name.generate("_generated_var"), param.dtype, param.shape)


class L2Decay(WeightDecayRegularizer):
    """grad += coeff * param."""

    def __call__(self, param, grad, block):
        decay = self._term(param, block)
        emit("scale", {"X": param}, {"scale": self._coeff}, {"Out": decay}, block=block)
        return decay

    def eager_term(self, param):
        return run_op("scale", {"X": param}, {"scale": self._coeff})["Out"]


class L1Decay(WeightDecayRegularizer):
    """grad += coeff * sign(param)."""

    def __call__(self, param, grad, block):
        sign = self._term(param, block)
        emit("sign", {"X": param}, outputs={"Out": sign}, block=block)
        decay = self._term(param, block)
        emit("scale", {"X": sign}, {"scale": self._coeff}, {"Out": decay}, block=block)
        return decay

    def eager_term(self, param):
        sign = run_op("sign", {"X": param})["Out"]
        return run_op("scale", {"X": sign}, {"scale": self._coeff})["Out"]


def in_dynamic_or_pir_mode() -> bool:
    """Whether pyir runs eagerly (Paddle's name; pyir has no PIR mode)."""
    return not framework.static_mode[0]


def as_regularizer(weight_decay, who: str) -> WeightDecayRegularizer | None:
    """An optimizer's `weight_decay`: None, a regularizer, or a float meaning L2Decay."""
    if weight_decay is None or isinstance(weight_decay, WeightDecayRegularizer):
        return weight_decay
    if isinstance(weight_decay, (int, float)) and not isinstance(weight_decay, bool):
        return L2Decay(weight_decay)
    raise BuildError(f"{who}: weight_decay must be a float or a pyir.regularizer.L1Decay / "
                     f"L2Decay, got {type(weight_decay).__name__}")


__all__ = ["L1Decay", "L2Decay", "WeightDecayRegularizer"]
