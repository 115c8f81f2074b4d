"""Per-element adaptive optimizers: Adagrad, RMSProp, Adadelta and Rprop (ops `adagrad`,
`rmsprop`, `adadelta`, `rprop`)."""

from __future__ import annotations

import numpy as np

from ..builder import emit
from ..eager import Tensor
from ..errors import BuildError
from .base import Acc, Optimizer


class Adagrad(Optimizer):
    """Adagrad (op `adagrad`): moment += grad^2; param -= lr * grad / (sqrt(moment) + eps).

    Example:
        >>> pyir.optimizer.Adagrad(learning_rate=0.1, parameters=params)
    """

    _update_op = "adagrad"

    def __init__(self, learning_rate, epsilon: float = 1e-6, parameters=None,
                 weight_decay=None, grad_clip=None, name=None,
                 initial_accumulator_value: float = 0.0):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._epsilon, self._initial = float(epsilon), float(initial_accumulator_value)

    def _accs(self, param):
        return [Acc("Moment", "MomentOut", "moment", self._initial)]

    def _update_attrs(self, param) -> dict:
        return {"epsilon": self._epsilon}


class RMSProp(Optimizer):
    """RMSProp (op `rmsprop`), optionally centered and with momentum.

    Example:
        >>> pyir.optimizer.RMSProp(learning_rate=0.01, rho=0.9, parameters=params)
    """

    _update_op = "rmsprop"

    def __init__(self, learning_rate, rho: float = 0.95, epsilon: float = 1e-6,
                 momentum: float = 0.0, centered: bool = False, parameters=None,
                 weight_decay=None, grad_clip=None, name=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        for what, value in (("rho", rho), ("epsilon", epsilon), ("momentum", momentum)):
            if value is None or value < 0:
                raise BuildError(f"RMSProp: {what} must be a number >= 0, got {value!r}")
        self._rho, self._epsilon = float(rho), float(epsilon)
        self._momentum, self._centered = float(momentum), bool(centered)

    def _accs(self, param):
        return [Acc("Moment", "MomentOut", "momentum"),
                Acc("MeanSquare", "MeanSquareOut", "mean_square"),
                Acc("MeanGrad", "MeanGradOut", "mean_grad")]

    def _update_attrs(self, param) -> dict:
        return {"decay": self._rho, "epsilon": self._epsilon, "momentum": self._momentum,
                "centered": self._centered}


class Adadelta(Optimizer):
    """Adadelta (op `adadelta`): step sizes from running averages of squared gradients and
    squared updates, scaled by the learning rate.

    Example:
        >>> pyir.optimizer.Adadelta(learning_rate=1.0, parameters=params)
    """

    _update_op = "adadelta"

    def __init__(self, learning_rate=0.001, epsilon: float = 1e-6, rho: float = 0.95,
                 parameters=None, weight_decay=None, grad_clip=None, name=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._epsilon, self._rho = float(epsilon), float(rho)

    def _accs(self, param):
        return [Acc("AvgSquaredGrad", "AvgSquaredGradOut", "_avg_squared_grad"),
                Acc("AvgSquaredUpdate", "AvgSquaredUpdateOut", "_avg_squared_update")]

    def _update_attrs(self, param) -> dict:
        return {"epsilon": self._epsilon, "rho": self._rho}


class Rprop(Optimizer):
    """Rprop (op `rprop`): per-element step sizes grown by etas[1] while the gradient keeps
    its sign and shrunk by etas[0] when it flips, within learning_rate_range.

    Example:
        >>> pyir.optimizer.Rprop(learning_rate=0.01, parameters=params)
    """

    _update_op = "rprop"
    _io = ("param", "grad", None, "param_out")

    def __init__(self, learning_rate=0.001, learning_rate_range=(1e-5, 50), parameters=None,
                 etas=(0.5, 1.2), grad_clip=None, multi_precision: bool = False, name=None):
        super().__init__(learning_rate, parameters, None, grad_clip, name)
        low, high = (float(v) for v in learning_rate_range)
        minus, plus = (float(v) for v in etas)
        if not 0 < low <= high:
            raise BuildError(f"Rprop: learning_rate_range must be 0 < low <= high, got "
                             f"{tuple(learning_rate_range)}")
        if not 0 < minus < 1 < plus:
            raise BuildError(f"Rprop: etas must be 0 < etas[0] < 1 < etas[1], got {tuple(etas)}")
        self._range, self._etas = [low, high], [minus, plus]

    def _accs(self, param):
        return [Acc("prev", "prev_out", "prevs"),
                Acc("learning_rate", "learning_rate_out", "learning_rates", self.get_lr())]

    def _extra_inputs(self, param, lr) -> dict:
        if isinstance(lr, Tensor):
            return {"learning_rate_range": Tensor(np.array(self._range, param.dtype)),
                    "etas": Tensor(np.array(self._etas, param.dtype))}
        block = param.block.program.global_block()
        made = {}
        for slot, values in (("learning_rate_range", self._range), ("etas", self._etas)):
            made[slot] = emit("assign_value", attrs={"shape": [2], "dtype": 5,
                                                     "fp32_values": values},
                              block=block)["Out"]
        return made


__all__ = ["Adadelta", "Adagrad", "RMSProp", "Rprop"]
