"""Schedules with state or cycles: ReduceOnPlateau, cosine annealing (with warm restarts),
one-cycle, cyclic and linear."""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..errors import BuildError
from ._lr_base import LRScheduler, _number, _positive_int


class ReduceOnPlateau(LRScheduler):
    """Multiply the rate by `factor` when the metric passed to `step(metrics)` has not
    improved for more than `patience` epochs (then wait `cooldown` epochs).

    Example:
        >>> sched = ReduceOnPlateau(0.5, patience=2); sched.step(val_loss)
    """

    def __init__(self, learning_rate: float, mode: str = "min", factor: float = 0.1,
                 patience: int = 10, threshold: float = 1e-4, threshold_mode: str = "rel",
                 cooldown: int = 0, min_lr: float = 0, epsilon: float = 1e-8,
                 verbose: bool = False) -> None:
        mode, threshold_mode = mode.lower(), threshold_mode.lower()
        if mode not in ("min", "max"):
            raise BuildError(f"ReduceOnPlateau: mode must be 'min' or 'max', got {mode!r}")
        if threshold_mode not in ("rel", "abs"):
            raise BuildError(f"ReduceOnPlateau: threshold_mode must be 'rel' or 'abs', got "
                             f"{threshold_mode!r}")
        if factor >= 1.0:
            raise BuildError(f"ReduceOnPlateau: factor must be < 1.0, got {factor}")
        self.base_lr = self.last_lr = _number(learning_rate, "learning_rate", "ReduceOnPlateau")
        self.mode, self.factor, self.patience = mode, factor, patience
        self.threshold, self.threshold_mode = threshold, threshold_mode
        self.cooldown, self.min_lr, self.epsilon = cooldown, min_lr, epsilon
        self.cooldown_counter, self.best, self.num_bad_epochs = 0, None, 0
        self.last_epoch, self.verbose, self._var_name = 0, verbose, None

    def state_keys(self) -> None:
        self.keys = ["cooldown_counter", "best", "num_bad_epochs", "last_epoch", "last_lr"]

    def step(self, metrics, epoch: int | None = None) -> None:
        """Record this epoch's metric (a number or a one-element tensor/array)."""
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        if hasattr(metrics, "shape"):
            if int(np.prod(metrics.shape)) != 1:
                raise BuildError(f"ReduceOnPlateau.step: metrics must have one element, got "
                                 f"shape {list(metrics.shape)}; take its mean first")
            metrics = float(np.asarray(metrics).reshape(()))
        elif isinstance(metrics, bool) or not isinstance(metrics, numbers.Real):
            raise BuildError(f"ReduceOnPlateau.step: metrics must be a number or a one-element "
                             f"tensor, got {type(metrics).__name__}")
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self._stepped(quiet=True)
            return
        if self.best is None or self._is_better(metrics, self.best):
            self.best, self.num_bad_epochs = metrics, 0
        else:
            self.num_bad_epochs += 1
        if self.num_bad_epochs > self.patience:
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
            new_lr = max(self.last_lr * self.factor, self.min_lr)
            if self.last_lr - new_lr > self.epsilon:
                self.last_lr = new_lr
                self._stepped()
                return
        self._stepped(quiet=True)

    def _is_better(self, current, best) -> bool:
        rel = self.threshold_mode == "rel"
        if self.mode == "min":
            return current < (best - best * self.threshold if rel else best - self.threshold)
        return current > (best + best * self.threshold if rel else best + self.threshold)


class CosineAnnealingDecay(LRScheduler):
    """Cosine annealing from lr to eta_min over T_max epochs (Paddle's recursive form;
    `step(epoch)` uses the closed form).

    Example:
        >>> CosineAnnealingDecay(0.5, T_max=10)
    """

    def __init__(self, learning_rate: float, T_max: int, eta_min: float = 0,
                 last_epoch: int = -1, verbose: bool = False) -> None:
        self.T_max = _positive_int(T_max, "T_max", "CosineAnnealingDecay")
        self.eta_min = _number(eta_min, "eta_min", "CosineAnnealingDecay")
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        epoch, t_max = self.last_epoch, self.T_max
        if epoch == 0:
            return self.base_lr
        if (epoch - 1 - t_max) % (2 * t_max) == 0:
            return self.last_lr + (self.base_lr - self.eta_min) * \
                (1 - math.cos(math.pi / t_max)) / 2
        return (1 + math.cos(math.pi * epoch / t_max)) / \
            (1 + math.cos(math.pi * (epoch - 1) / t_max)) * \
            (self.last_lr - self.eta_min) + self.eta_min

    def _get_closed_form_lr(self) -> float:
        return self.eta_min + (self.base_lr - self.eta_min) * \
            (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2


class OneCycleLR(LRScheduler):
    """One cycle: from max_learning_rate / divide_factor up to max_learning_rate over
    phase_pct of total_steps, then down to end_learning_rate (cos or linear annealing;
    three_phase goes back to the initial rate before the final descent).

    Example:
        >>> OneCycleLR(max_learning_rate=1.0, total_steps=100)
    """

    def __init__(self, max_learning_rate: float, total_steps: int, divide_factor: float = 25.0,
                 end_learning_rate: float = 0.0001, phase_pct: float = 0.3,
                 anneal_strategy: str = "cos", three_phase: bool = False, last_epoch: int = -1,
                 verbose: bool = False) -> None:
        who = "OneCycleLR"
        max_lr = _number(max_learning_rate, "max_learning_rate", who)
        end_lr = _number(end_learning_rate, "end_learning_rate", who)
        if max_lr < 0 or end_lr < 0:
            raise BuildError(f"{who}: max_learning_rate and end_learning_rate must be >= 0")
        self.total_steps = _positive_int(total_steps, "total_steps", who)
        if not isinstance(phase_pct, float) or not 0 <= phase_pct <= 1:
            raise BuildError(f"{who}: phase_pct must be a float in [0, 1], got {phase_pct!r}")
        initial = max_lr / float(_number(divide_factor, "divide_factor", who))
        n = self.total_steps
        if three_phase:
            if phase_pct >= 0.5:
                raise BuildError(f"{who}: with three_phase, phase_pct must be < 0.5")
            self._step_config = [0, phase_pct * n - 1, 2 * phase_pct * n - 2, n - 1, n - 1]
            c = self._step_config
            self._steps_size = [c[1] - c[0], c[2] - c[1], c[3] - c[2], c[3] - c[2]]
            self._lr_config = [initial, max_lr, initial, end_lr]
        else:
            self._step_config = [0, phase_pct * n - 1, n - 1, n - 1]
            c = self._step_config
            self._steps_size = [c[1] - c[0], c[2] - c[1], c[2] - c[1]]
            self._lr_config = [initial, max_lr, end_lr]
        if anneal_strategy not in ("cos", "linear"):
            raise BuildError(f"{who}: anneal_strategy must be 'cos' or 'linear', got "
                             f"{anneal_strategy!r}")
        self.anneal_func = self._cos_annealing if anneal_strategy == "cos" \
            else self._linear_annealing
        super().__init__(initial, last_epoch, verbose)

    @staticmethod
    def _cos_annealing(start_lr: float, end_lr: float, pct: float) -> float:
        return end_lr + (start_lr - end_lr) / 2.0 * (math.cos(math.pi * pct) + 1)

    @staticmethod
    def _linear_annealing(start_lr: float, end_lr: float, pct: float) -> float:
        return (end_lr - start_lr) * pct + start_lr

    def get_lr(self) -> float:
        step = self.last_epoch
        if step > self.total_steps:
            raise BuildError(f"OneCycleLR: stepped {step} times, more than total_steps "
                             f"{self.total_steps}")
        phases = list(zip(self._step_config[1:], self._steps_size))
        for i, (end_step, size) in enumerate(phases):
            if step <= end_step or i == len(self._lr_config) - 2:
                pct = (step - self._step_config[i]) / size
                return self.anneal_func(self._lr_config[i], self._lr_config[i + 1], pct)
        return self.last_lr


class CyclicLR(LRScheduler):
    """Cycle between base_learning_rate and max_learning_rate (triangular, triangular2,
    exp_range, or a custom scale_fn).

    Example:
        >>> CyclicLR(0.1, 1.0, step_size_up=10)
    """

    def __init__(self, base_learning_rate: float, max_learning_rate: float, step_size_up: int,
                 step_size_down: int | None = None, mode: str = "triangular",
                 exp_gamma: float = 1.0, scale_fn=None, scale_mode: str = "cycle",
                 last_epoch: int = -1, verbose: bool = False) -> None:
        who = "CyclicLR"
        max_lr = _number(max_learning_rate, "max_learning_rate", who)
        if max_lr < 0:
            raise BuildError(f"{who}: max_learning_rate must be >= 0, got {max_lr}")
        up = _positive_int(step_size_up, "step_size_up", who)
        down = up if step_size_down is None else \
            _positive_int(step_size_down, "step_size_down", who)
        if not isinstance(exp_gamma, float):
            raise BuildError(f"{who}: exp_gamma must be a float, got {exp_gamma!r}")
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise BuildError(f"{who}: mode must be triangular, triangular2 or exp_range "
                             f"(or give scale_fn), got {mode!r}")
        if scale_mode not in ("cycle", "iterations"):
            raise BuildError(f"{who}: scale_mode must be 'cycle' or 'iterations', got "
                             f"{scale_mode!r}")
        self.cycle_size = float(up + down)
        self.step_up_pct = up / self.cycle_size
        self.max_lr = max_lr
        self.amplitude = max_lr - base_learning_rate
        self.mode, self.gamma = mode, exp_gamma
        if scale_fn is not None:
            self.scale_fn, self.scale_mode = scale_fn, scale_mode
        else:
            self.scale_fn = {"triangular": lambda x: 1.0,
                             "triangular2": lambda x: 1 / (2.0 ** (x - 1)),
                             "exp_range": lambda x: self.gamma ** x}[mode]
            self.scale_mode = "iterations" if mode == "exp_range" else "cycle"
        super().__init__(base_learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        iterations = self.last_epoch
        cycle = 1 + iterations // self.cycle_size
        pct = 1.0 + iterations / self.cycle_size - cycle
        scale = pct / self.step_up_pct if pct <= self.step_up_pct \
            else (1 - pct) / (1 - self.step_up_pct)
        x = cycle if self.scale_mode == "cycle" else iterations
        return self.base_lr + self.amplitude * scale * self.scale_fn(x)


class LinearLR(LRScheduler):
    """The rate scaled by a factor going linearly from start_factor to end_factor over
    total_steps (Paddle's multiplicative update).

    Example:
        >>> LinearLR(0.5, total_steps=5)
    """

    def __init__(self, learning_rate: float, total_steps: int, start_factor: float = 1.0 / 3,
                 end_factor: float = 1.0, last_epoch: int = -1, verbose: bool = False) -> None:
        if not 0 < start_factor <= 1.0:
            raise BuildError(f"LinearLR: start_factor must be in (0, 1], got {start_factor}")
        if not 0 <= end_factor <= 1.0:
            raise BuildError(f"LinearLR: end_factor must be in [0, 1], got {end_factor}")
        if total_steps <= 0:
            raise BuildError(f"LinearLR: total_steps must be > 0, got {total_steps}")
        self.start_factor, self.end_factor = start_factor, end_factor
        self.total_steps = total_steps
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        if self.last_epoch == 0:
            return self.base_lr * self.start_factor
        if self.last_epoch > self.total_steps:
            return self.last_lr
        span = self.end_factor - self.start_factor
        base = self.total_steps * self.start_factor
        return self.last_lr * (1.0 + span / (base + (self.last_epoch - 1) * span))


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing restarted every T_i epochs (T_0, then times T_mult).

    Example:
        >>> CosineAnnealingWarmRestarts(0.5, T_0=5, T_mult=2)
    """

    def __init__(self, learning_rate: float, T_0: int, T_mult: int = 1,
                 eta_min: float = 0, last_epoch: int = -1, verbose: bool = False):
        self.T_0 = self.T_i = _positive_int(T_0, "T_0", "CosineAnnealingWarmRestarts")
        if isinstance(T_mult, bool) or not isinstance(T_mult, int) or T_mult < 1:
            raise BuildError(f"CosineAnnealingWarmRestarts: T_mult must be an int >= 1, got "
                             f"{T_mult!r}")
        self.T_mult, self.eta_min, self.T_cur = T_mult, eta_min, last_epoch
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.eta_min + (self.base_lr - self.eta_min) * \
            (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2

    def step(self, epoch: int | None = None) -> None:
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                self.T_cur -= self.T_i
                self.T_i *= self.T_mult
        elif epoch < 0:
            raise BuildError(f"CosineAnnealingWarmRestarts.step: epoch must be >= 0, got {epoch}")
        elif epoch >= self.T_0:
            if self.T_mult == 1:
                self.T_cur = epoch % self.T_0
            else:
                n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                self.T_i = self.T_0 * self.T_mult ** n
        else:
            self.T_i, self.T_cur = self.T_0, epoch
        self.last_epoch = math.floor(epoch)
        self.last_lr = self.get_lr()
        self._stepped()
