"""SGD and Momentum (ops `sgd`, `momentum`)."""

from __future__ import annotations

import numpy as np

from ..eager import Tensor, run_op
from ..errors import BuildError
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




class ASGD(Optimizer):
    """Averaged SGD (op `asgd`): each step moves by the mean of the last `batch_num`
    gradients, kept per parameter in `<param>_y_0` ([batch_num, *shape]) with their running
    sum in `<param>_d_0` and the step count in `<param>_m_0`. Eager only: Paddle 3.3.1's
    legacy static mode cannot build it either.

    Example:
        >>> opt = pyir.optimizer.ASGD(0.01, batch_num=4, parameters=params)
    """

    _update_op = "asgd"
    _io = ("param", "grad", "learning_rate", "param_out")

    def __init__(self, learning_rate=0.001, batch_num: int = 1, parameters=None,
                 weight_decay=None, grad_clip=None, multi_precision: bool = False, name=None):
        if isinstance(batch_num, bool) or not isinstance(batch_num, int) or batch_num <= 0:
            raise BuildError(f"ASGD: batch_num must be a positive int, got {batch_num!r}")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._n = batch_num

    def _accs(self, param):
        return [Acc("d", "d_out", "d"), Acc("y", None, "y", 0.0, (self._n, *param.shape)),
                Acc("m", None, "m", 0, (1,), "int64")]

    def apply_gradients(self, params_grads, loss=None, startup_program=None):
        if params_grads and not isinstance(params_grads[0][0], Tensor):
            raise BuildError("ASGD builds no static program (Paddle 3.3.1's legacy static "
                             "mode cannot either); train with it eagerly")
        return super().apply_gradients(params_grads, loss, startup_program)

    def _eager_update(self, param, grad, lr, acc) -> bool:
        count = acc["m"]
        index = int(count.numpy()[0]) % self._n
        count._value = count.numpy() + 1
        window = acc["y"]
        seen = np.minimum(count.numpy(), self._n).astype(np.int64)
        outs = run_op("asgd", {"param": param, "grad": grad, "learning_rate": lr,
                               "d": acc["d"], "y": Tensor(window.numpy()[index]),
                               "n": Tensor(seen)})
        param._value = outs["param_out"]._value
        acc["d"]._value = outs["d_out"]._value
        updated = window.numpy().copy()
        updated[index] = outs["y_out"].numpy()
        window._value = updated
        return True


__all__ = ["ASGD", "SGD", "Momentum"]
