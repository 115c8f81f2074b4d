"""The Adam family: Adam, AdamW, Adamax, NAdam, RAdam and Lamb (ops `adam`, `adamw`,
`adamax`, `nadam`, `radam`, `lamb`), with Paddle's accumulators."""

from __future__ import annotations

import numbers

from ..eager import Tensor
from ..errors import BuildError
from .base import Acc, Optimizer


def _betas(who: str, **betas) -> list[float]:
    """The betas as floats (a one-element eager Tensor is read), each in [0, 1)."""
    values = []
    for what, value in betas.items():
        if isinstance(value, Tensor) and value.size == 1:
            value = float(value.numpy().reshape(()))
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= value < 1:
            raise BuildError(f"{who}: {what} must be a number in [0, 1), got {value!r}")
        values.append(float(value))
    return values


class Adam(Optimizer):
    """Adam (op `adam`): first and second moment estimates with bias correction.

    Per parameter: `<param>_moment1_0`, `<param>_moment2_0` (zeros) and
    `<param>_beta1_pow_acc_0` / `<param>_beta2_pow_acc_0` ([1], starting at beta1 / beta2).

    Example:
        >>> opt = pyir.optimizer.Adam(learning_rate=0.001, parameters=params)
    """

    _update_op = "adam"

    def __init__(self, learning_rate=0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-8, parameters=None, weight_decay=None, grad_clip=None,
                 lazy_mode: bool = False, multi_precision: bool = False,
                 use_multi_tensor: bool = False, amsgrad: bool = False, name=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        beta1, beta2 = _betas(type(self).__name__, beta1=beta1, beta2=beta2)
        self._beta1, self._beta2, self._epsilon = beta1, beta2, float(epsilon)
        self._amsgrad = bool(amsgrad)

    def _accs(self, param):
        accs = [Acc("Moment1", "Moment1Out", "moment1"), Acc("Moment2", "Moment2Out", "moment2")]
        if self._amsgrad:
            accs.append(Acc("Moment2Max", "Moment2MaxOut", "moment2_max"))
        return accs + [Acc("Beta1Pow", "Beta1PowOut", "beta1_pow_acc", self._beta1, (1,)),
                       Acc("Beta2Pow", "Beta2PowOut", "beta2_pow_acc", self._beta2, (1,))]

    def _update_attrs(self, param) -> dict:
        return {"beta1": self._beta1, "beta2": self._beta2, "epsilon": self._epsilon,
                "amsgrad": self._amsgrad}


class AdamW(Adam):
    """Adam with decoupled weight decay (op `adamw`): before each Adam step a parameter shrinks
    by learning_rate * weight_decay * param, unless apply_decay_param_fun(name) says no.

    Example:
        >>> pyir.optimizer.AdamW(learning_rate=0.001, weight_decay=0.01).minimize(loss)
    """

    _update_op = "adamw"

    def __init__(self, learning_rate=0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-8, parameters=None, weight_decay: float = 0.01,
                 use_lowprecision_moment: bool = False, lr_ratio=None,
                 apply_decay_param_fun=None, grad_clip=None, lazy_mode: bool = False,
                 multi_precision: bool = False, amsgrad: bool = False, name=None):
        if lr_ratio is not None:
            raise BuildError("AdamW: lr_ratio is not supported (Paddle implements it only on "
                             "GPU); leave it None")
        if isinstance(weight_decay, bool) or not isinstance(weight_decay, numbers.Real):
            raise BuildError(f"AdamW: weight_decay must be a number (the decay coefficient), "
                             f"got {type(weight_decay).__name__}")
        super().__init__(learning_rate, beta1, beta2, epsilon, parameters, None, grad_clip,
                         lazy_mode, multi_precision, amsgrad=amsgrad, name=name)
        self._coeff, self._apply_decay = float(weight_decay), apply_decay_param_fun

    def _update_attrs(self, param) -> dict:
        decays = self._apply_decay is None or bool(self._apply_decay(param.name))
        return {**super()._update_attrs(param), "coeff": self._coeff, "lr_ratio": 1.0,
                "with_decay": decays}


class Adamax(Optimizer):
    """Adamax (op `adamax`, then a `scale` of the beta1 power): the infinity-norm variant.

    Example:
        >>> pyir.optimizer.Adamax(learning_rate=0.01, parameters=params)
    """

    _update_op = "adamax"

    def __init__(self, learning_rate=0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-8, parameters=None, weight_decay=None, grad_clip=None,
                 name=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        beta1, beta2 = _betas("Adamax", beta1=beta1, beta2=beta2)
        self._beta1, self._beta2, self._epsilon = beta1, beta2, float(epsilon)

    def _accs(self, param):
        return [Acc("Moment", "MomentOut", "moment"), Acc("InfNorm", "InfNormOut", "inf_norm"),
                Acc("Beta1Pow", None, "beta1_pow_acc", self._beta1, (1,))]

    def _update_attrs(self, param) -> dict:
        return {"beta1": self._beta1, "beta2": self._beta2, "epsilon": self._epsilon}

    def _after_update(self, param, acc, run) -> None:
        power = acc["Beta1Pow"]
        run("scale", {"X": power}, {"scale": self._beta1}, {"Out": power})


class NAdam(Optimizer):
    """NAdam (op `nadam`): Adam with Nesterov momentum and momentum decay.

    Example:
        >>> pyir.optimizer.NAdam(learning_rate=0.002, parameters=params)
    """

    _update_op = "nadam"
    _io = ("param", "grad", "learning_rate", "param_out")

    def __init__(self, learning_rate=0.002, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-8, momentum_decay: float = 0.004, parameters=None,
                 weight_decay=None, grad_clip=None, name=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        beta1, beta2 = _betas("NAdam", beta1=beta1, beta2=beta2)
        if momentum_decay < 0:
            raise BuildError(f"NAdam: momentum_decay must be >= 0, got {momentum_decay}")
        self._beta1, self._beta2, self._epsilon = beta1, beta2, float(epsilon)
        self._momentum_decay = float(momentum_decay)

    def _accs(self, param):
        return [Acc("momentum_decay_pow", "momentum_decay_pow_out", "momentum_decay_pow", 1.0),
                Acc("beta2_pow", "beta2_pow_out", "beta2_pow", 1.0),
                Acc("mu_product", "mu_product_out", "mu_product", 1.0),
                Acc("moment1", "moment1_out", "moment1"), Acc("moment2", "moment2_out", "moment2")]

    def _update_attrs(self, param) -> dict:
        return {"beta1": self._beta1, "beta2": self._beta2, "epsilon": self._epsilon,
                "momentum_decay": self._momentum_decay}


class RAdam(Optimizer):
    """RAdam (op `radam`): Adam with the variance rectification term.

    Example:
        >>> pyir.optimizer.RAdam(learning_rate=0.001, parameters=params)
    """

    _update_op = "radam"
    _io = ("param", "grad", "learning_rate", "param_out")

    def __init__(self, learning_rate=0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-8, parameters=None, weight_decay=None, grad_clip=None,
                 name=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        beta1, beta2 = _betas("RAdam", beta1=beta1, beta2=beta2)
        self._beta1, self._beta2, self._epsilon = beta1, beta2, float(epsilon)

    def _accs(self, param):
        return [Acc("beta1_pow", "beta1_pow_out", "beta1_pow", 1.0),
                Acc("beta2_pow", "beta2_pow_out", "beta2_pow", 1.0),
                Acc("rho", "rho_out", "rho", 1.0),
                Acc("moment1", "moment1_out", "moment1"), Acc("moment2", "moment2_out", "moment2")]

    def _update_attrs(self, param) -> dict:
        return {"beta1": self._beta1, "beta2": self._beta2, "epsilon": self._epsilon}


class Lamb(Optimizer):
    """LAMB (op `lamb`): Adam moments scaled by the layer-wise trust ratio, with its own
    weight decay (`lamb_weight_decay`, skipped for parameters where
    exclude_from_weight_decay_fn(param) is true).

    Example:
        >>> pyir.optimizer.Lamb(learning_rate=0.002, parameters=params)
    """

    _update_op = "lamb"

    def __init__(self, learning_rate=0.001, lamb_weight_decay: float = 0.01,
                 beta1: float = 0.9, beta2: float = 0.999, epsilon: float = 1e-6,
                 parameters=None, grad_clip=None, exclude_from_weight_decay_fn=None,
                 multi_precision: bool = False, always_adapt: bool = False, name=None):
        super().__init__(learning_rate, parameters, None, grad_clip, name)
        beta1, beta2 = _betas("Lamb", beta1=beta1, beta2=beta2)
        self._beta1, self._beta2, self._epsilon = beta1, beta2, float(epsilon)
        self._weight_decay, self._exclude = float(lamb_weight_decay), exclude_from_weight_decay_fn
        self._always_adapt = bool(always_adapt)

    def _accs(self, param):
        return [Acc("Moment1", "Moment1Out", "moment1"), Acc("Moment2", "Moment2Out", "moment2"),
                Acc("Beta1Pow", "Beta1PowOut", "beta1_pow_acc", self._beta1, (1,)),
                Acc("Beta2Pow", "Beta2PowOut", "beta2_pow_acc", self._beta2, (1,))]

    def _regularizer_for(self, param):
        return None

    def _update_attrs(self, param) -> dict:
        decay = 0.0 if self._exclude is not None and self._exclude(param) else self._weight_decay
        return {"beta1": self._beta1, "beta2": self._beta2, "epsilon": self._epsilon,
                "weight_decay": decay, "always_adapt": self._always_adapt}


__all__ = ["Adam", "AdamW", "Adamax", "Lamb", "NAdam", "RAdam"]
