"""Schedules that are a function of the epoch: Noam, piecewise, exponential and natural
exponential, inverse time, polynomial, step and multi-step, lambda, multiplicative, and the
linear warmup in front of another schedule."""

from __future__ import annotations

import itertools
import math
import numbers

from ..errors import BuildError
from ._lr_base import LRScheduler, _positive_int


class NoamDecay(LRScheduler):
    """lr * d_model^-0.5 * min(epoch^-0.5, epoch * warmup_steps^-1.5) (epoch 0: the second).

    Example:
        >>> NoamDecay(d_model=512, warmup_steps=4000)
    """

    def __init__(self, d_model: int, warmup_steps: int, learning_rate: float = 1.0,
                 last_epoch: int = -1, verbose: bool = False) -> None:
        if d_model <= 0:
            raise BuildError(f"NoamDecay: d_model must be > 0, got {d_model}")
        self.d_model, self.warmup_steps = d_model, warmup_steps
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        a = 1 if self.last_epoch == 0 else self.last_epoch ** -0.5
        b = self.warmup_steps ** -1.5 * self.last_epoch
        return self.base_lr * self.d_model ** -0.5 * min(a, b)


class PiecewiseDecay(LRScheduler):
    """values[i] while epoch < boundaries[i]; values[-1] after the last boundary.

    Example:
        >>> PiecewiseDecay(boundaries=[100, 200], values=[1.0, 0.5, 0.1])
    """

    def __init__(self, boundaries, values, last_epoch: int = -1, verbose: bool = False) -> None:
        if len(boundaries) == 0:
            raise BuildError("PiecewiseDecay: boundaries must not be empty")
        if len(values) <= len(boundaries):
            raise BuildError(f"PiecewiseDecay: values needs one more element than boundaries, "
                             f"got {len(values)} values for {len(boundaries)} boundaries")
        self.boundaries, self.values = boundaries, values
        super().__init__(last_epoch=last_epoch, verbose=verbose)

    def get_lr(self) -> float:
        for boundary, value in zip(self.boundaries, self.values):
            if self.last_epoch < boundary:
                return value
        return self.values[len(self.values) - 1]


class NaturalExpDecay(LRScheduler):
    """lr * exp(-gamma * epoch).

    Example:
        >>> NaturalExpDecay(0.5, gamma=0.1)
    """

    def __init__(self, learning_rate: float, gamma: float, last_epoch: int = -1,
                 verbose: bool = False) -> None:
        if not gamma > 0:
            raise BuildError(f"NaturalExpDecay: gamma must be > 0, got {gamma}")
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.base_lr * math.exp(-1 * self.gamma * self.last_epoch)


class InverseTimeDecay(LRScheduler):
    """lr / (1 + gamma * epoch).

    Example:
        >>> InverseTimeDecay(0.5, gamma=0.1)
    """

    def __init__(self, learning_rate: float, gamma: float, last_epoch: int = -1,
                 verbose: bool = False) -> None:
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.base_lr / (1 + self.gamma * self.last_epoch)


class PolynomialDecay(LRScheduler):
    """(lr - end_lr) * (1 - epoch / decay_steps)^power + end_lr; with `cycle`, decay_steps
    grows to the next multiple of itself past the epoch.

    Example:
        >>> PolynomialDecay(0.5, decay_steps=20)
    """

    def __init__(self, learning_rate: float, decay_steps: int, end_lr: float = 0.0001,
                 power: float = 1.0, cycle: bool = False, last_epoch: int = -1,
                 verbose: bool = False):
        self.decay_steps = _positive_int(decay_steps, "decay_steps", "PolynomialDecay")
        if not power > 0:
            raise BuildError(f"PolynomialDecay: power must be > 0, got {power}")
        self.end_lr, self.power, self.cycle = end_lr, power, cycle
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        epoch, steps = self.last_epoch, self.decay_steps
        if self.cycle:
            steps = self.decay_steps * (1 if epoch == 0 else math.ceil(epoch / steps))
        else:
            epoch = min(epoch, steps)
        return (self.base_lr - self.end_lr) * (1 - epoch / steps) ** self.power + self.end_lr


class LinearWarmup(LRScheduler):
    """start_lr rising linearly to end_lr over warmup_steps, then `learning_rate` (a number,
    or a scheduler stepped to epoch - warmup_steps).

    Example:
        >>> LinearWarmup(StepDecay(0.5, 10), warmup_steps=20, start_lr=0, end_lr=0.5)
    """

    def __init__(self, learning_rate, warmup_steps: int, start_lr: float, end_lr: float,
                 last_epoch: int = -1, verbose: bool = False):
        if not isinstance(learning_rate, (numbers.Real, LRScheduler)) or \
                isinstance(learning_rate, bool):
            raise BuildError(f"LinearWarmup: learning_rate must be a number or an "
                             f"LRScheduler, got {type(learning_rate).__name__}")
        self.learning_rate = learning_rate
        self.warmup_steps = _positive_int(warmup_steps, "warmup_steps", "LinearWarmup")
        if not end_lr > start_lr:
            raise BuildError(f"LinearWarmup: end_lr {end_lr} must be greater than start_lr "
                             f"{start_lr}")
        self.start_lr, self.end_lr = start_lr, end_lr
        super().__init__(start_lr, last_epoch, verbose)

    def state_dict(self) -> dict:
        state = super().state_dict()
        if isinstance(self.learning_rate, LRScheduler):
            state["LinearWarmup_LR"] = self.learning_rate.state_dict()
        return state

    def set_state_dict(self, state_dict: dict) -> None:
        inner = state_dict.get("LinearWarmup_LR")
        super().set_state_dict({k: v for k, v in state_dict.items() if k != "LinearWarmup_LR"})
        if isinstance(self.learning_rate, LRScheduler):
            if inner is None:
                raise BuildError("LinearWarmup.set_state_dict: key 'LinearWarmup_LR' (the "
                                 "wrapped scheduler's state) is missing")
            self.learning_rate.set_state_dict(inner)

    def get_lr(self) -> float:
        if self.last_epoch < self.warmup_steps:
            return (self.end_lr - self.start_lr) * self.last_epoch / self.warmup_steps \
                + self.start_lr
        if isinstance(self.learning_rate, LRScheduler):
            self.learning_rate.step(self.last_epoch - self.warmup_steps)
            return self.learning_rate()
        return self.learning_rate


class ExponentialDecay(LRScheduler):
    """lr * gamma^epoch.

    Example:
        >>> ExponentialDecay(0.5, gamma=0.9)
    """

    def __init__(self, learning_rate: float, gamma: float, last_epoch: int = -1,
                 verbose: bool = False) -> None:
        if not 0 < gamma < 1:
            raise BuildError(f"ExponentialDecay: gamma must be in (0, 1), got {gamma}")
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.base_lr * self.gamma ** self.last_epoch


class MultiStepDecay(LRScheduler):
    """lr * gamma^(number of milestones <= epoch).

    Example:
        >>> MultiStepDecay(0.5, milestones=[2, 4, 6], gamma=0.8)
    """

    def __init__(self, learning_rate: float, milestones, gamma: float = 0.1,
                 last_epoch: int = -1, verbose: bool = False):
        if not isinstance(milestones, (tuple, list)):
            raise BuildError(f"MultiStepDecay: milestones must be a list or tuple, got "
                             f"{type(milestones).__name__}")
        if any(a >= b for a, b in itertools.pairwise(milestones)):
            raise BuildError(f"MultiStepDecay: milestones must increase, got {list(milestones)}")
        if gamma >= 1.0:
            raise BuildError(f"MultiStepDecay: gamma must be < 1.0, got {gamma}")
        self.milestones, self.gamma = milestones, gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        for i, milestone in enumerate(self.milestones):
            if self.last_epoch < milestone:
                return self.base_lr * self.gamma ** i
        return self.base_lr * self.gamma ** len(self.milestones)


class StepDecay(LRScheduler):
    """lr * gamma^(epoch // step_size).

    Example:
        >>> StepDecay(0.5, step_size=5, gamma=0.8)
    """

    def __init__(self, learning_rate: float, step_size: int, gamma: float = 0.1,
                 last_epoch: int = -1, verbose: bool = False) -> None:
        self.step_size = _positive_int(step_size, "step_size", "StepDecay")
        if gamma >= 1.0:
            raise BuildError(f"StepDecay: gamma must be < 1.0, got {gamma}")
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.base_lr * self.gamma ** (self.last_epoch // self.step_size)


class LambdaDecay(LRScheduler):
    """lr * lr_lambda(epoch).

    Example:
        >>> LambdaDecay(0.5, lr_lambda=lambda epoch: 0.95 ** epoch)
    """

    def __init__(self, learning_rate: float, lr_lambda, last_epoch: int = -1,
                 verbose: bool = False):
        if not callable(lr_lambda):
            raise BuildError(f"LambdaDecay: lr_lambda must be a function, got "
                             f"{type(lr_lambda).__name__}")
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.base_lr * self.lr_lambda(self.last_epoch)


class MultiplicativeDecay(LRScheduler):
    """lr * prod(lr_lambda(e) for e in 1..epoch).

    Example:
        >>> MultiplicativeDecay(0.5, lr_lambda=lambda epoch: 0.95)
    """

    def __init__(self, learning_rate: float, lr_lambda, last_epoch: int = -1,
                 verbose: bool = False) -> None:
        if not callable(lr_lambda):
            raise BuildError(f"MultiplicativeDecay: lr_lambda must be a function, got "
                             f"{type(lr_lambda).__name__}")
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        lr = self.base_lr
        for epoch in range(1, self.last_epoch + 1):
            lr = lr * self.lr_lambda(epoch)
        return lr
