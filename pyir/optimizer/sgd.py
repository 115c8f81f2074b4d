"""SGD and Momentum (ops `sgd`, `momentum`)."""

from __future__ import annotations

from ..regularizer import L2Decay
from .base import Acc, Optimizer


class SGD(Optimizer):
    """Plain stochastic gradient descent: `param -= learning_rate * grad` (op `sgd`).

    Example:
        >>> opt = pyir.optimizer.SGD(learning_rate=0.1, parameters=params)
        >>> loss.backward(); opt.step(); opt.clear_grad()
    """

    _update_op = "sgd"

    def __init__(self, learning_rate=0.001, parameters=None, weight_decay=None, grad_clip=None,
                 multi_precision: bool = False, name=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)


class Momentum(Optimizer):
    """Momentum SGD (op `momentum`): velocity = momentum * velocity + grad, then
    param -= learning_rate * velocity, or with Nesterov's look-ahead
    param -= learning_rate * (grad + momentum * velocity). L2 decay is fused into the op.

    Example:
        >>> pyir.optimizer.Momentum(learning_rate=0.1, momentum=0.9).minimize(loss)
    """

    _update_op = "momentum"

    def __init__(self, learning_rate=0.001, momentum: float = 0.9, parameters=None,
                 use_nesterov: bool = False, weight_decay=None, grad_clip=None,
                 multi_precision: bool = False, rescale_grad: float = 1.0,
                 use_multi_tensor: bool = False, name=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._momentum, self._use_nesterov = float(momentum), bool(use_nesterov)
        self._rescale_grad = float(rescale_grad)

    def _accs(self, param):
        return [Acc("Velocity", "VelocityOut", "velocity")]

    def _regularizer_for(self, param):
        """L2 decay is fused into the momentum op (its regularization_* attributes)."""
        regularizer = super()._regularizer_for(param)
        return None if isinstance(regularizer, L2Decay) else regularizer

    def _update_attrs(self, param) -> dict:
        fused = super()._regularizer_for(param)
        fused = fused if isinstance(fused, L2Decay) else None
        return {"mu": self._momentum, "use_nesterov": self._use_nesterov,
                "rescale_grad": self._rescale_grad,
                "regularization_method": "l2_decay" if fused else "",
                "regularization_coeff": fused.coeff if fused else 0.0}


__all__ = ["SGD", "Momentum"]
