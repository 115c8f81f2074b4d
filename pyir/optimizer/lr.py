"""Learning-rate schedulers (`paddle.optimizer.lr`), with Paddle's formulas.

A scheduler holds `last_epoch` and `last_lr`; `step()` advances the epoch and recomputes the
rate with `get_lr()`; calling the scheduler returns the current rate. Construction performs
the first `step()`, so a fresh scheduler is at epoch 0 (or `last_epoch + 1`).

Given to an optimizer as `learning_rate`:
  - eagerly, each `opt.step()` reads the scheduler's current value;
  - in a static program, the optimizer creates the persistable `learning_rate_N` variable,
    filled by the startup program with the scheduler's value at build time, and records
    `program.lr_scheduler` / `program.lr_var`; `sync_learning_rate(program, scope)` writes
    the scheduler's current value into the scope (what Paddle's Executor does before each
    run). A saved program keeps only the stored value: `pyir run --steps` trains with it.

Example:
    >>> sched = pyir.optimizer.lr.StepDecay(0.1, step_size=10, gamma=0.5)
    >>> opt = pyir.optimizer.SGD(sched, parameters=params)
    >>> for epoch in range(30): train_one_epoch(); sched.step()
"""

from __future__ import annotations

import itertools
import math
import numbers
import warnings

import numpy as np

from ..errors import BuildError
from ..executor import global_scope


def _number(value, what: str, who: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise BuildError(f"{who}: {what} must be a number, got {type(value).__name__}")
    return float(value)


def _positive_int(value, what: str, who: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value <= 0:
        raise BuildError(f"{who}: {what} must be a positive int, got {value!r}")
    return int(value)


class LRScheduler:
    """Base of the schedulers: subclasses define `get_lr()` from `base_lr` and `last_epoch`.

    Example:
        >>> class Half(LRScheduler):
        ...     def get_lr(self): return self.base_lr * 0.5 ** self.last_epoch
    """

    def __init__(self, learning_rate: float = 0.1, last_epoch: int = -1,
                 verbose: bool = False) -> None:
        who = type(self).__name__
        learning_rate = _number(learning_rate, "learning_rate", who)
        if learning_rate < 0:
            raise BuildError(f"{who}: learning_rate must be >= 0, got {learning_rate}")
        self.base_lr = self.last_lr = learning_rate
        self.last_epoch = last_epoch
        self.verbose = verbose
        self._var_name = None
        self.step()

    def __call__(self) -> float:
        """The current learning rate."""
        return self.last_lr

    def step(self, epoch: int | None = None) -> None:
        """Advance to the next epoch (or jump to `epoch`) and recompute the learning rate."""
        if epoch is None:
            self.last_epoch += 1
            self.last_lr = self.get_lr()
        else:
            self.last_epoch = epoch
            closed = getattr(self, "_get_closed_form_lr", None)
            self.last_lr = closed() if closed is not None else self.get_lr()
        self._stepped()

    def _stepped(self, quiet: bool = False) -> None:
        """After a step: print when verbose; update a static program's learning-rate
        variable in the global scope."""
        if self.verbose and not quiet:
            print(f"Epoch {self.last_epoch}: {type(self).__name__} set learning rate to "
                  f"{self.last_lr}.")
        name = getattr(self, "_var_name", None)
        if name is not None:
            scope = global_scope()
            if name in scope:
                scope[name] = np.array(self.last_lr, dtype=np.float32)

    def state_keys(self) -> None:
        self.keys = ["last_epoch", "last_lr"]

    def state_dict(self) -> dict:
        """The keys of `state_keys()` with their values (Paddle's `LR_Scheduler` entry)."""
        self.state_keys()
        state = {}
        for key in self.keys:
            if key in self.__dict__:
                value = self.__dict__[key]
                state[key] = float(np.asarray(value).reshape(())) if hasattr(value, "shape") \
                    else value
        return state

    def set_state_dict(self, state_dict: dict) -> None:
        """Restore from `state_dict()`; a missing key is an error."""
        self.state_keys()
        for key in self.keys:
            if key not in state_dict:
                raise BuildError(f"{type(self).__name__}.set_state_dict: key {key!r} is "
                                 f"missing from the state dict (it has {sorted(state_dict)})")
            self.__dict__[key] = state_dict[key]
        if len(state_dict) > len(self.keys):
            warnings.warn(f"{type(self).__name__}.set_state_dict: unused keys "
                          f"{sorted(set(state_dict) - set(self.keys))}", stacklevel=2)

    set_dict = set_state_dict

    def get_lr(self) -> float:
        raise NotImplementedError(f"{type(self).__name__} must define get_lr()")


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


# --- Paddle 1.x function forms: in pyir they return the equivalent scheduler, as Paddle's
# dygraph branch does (a scheduler works as learning_rate in both modes here).
def noam_decay(d_model, warmup_steps, learning_rate=1.0):
    """NoamDecay(d_model, warmup_steps, learning_rate). Example: >>> noam_decay(512, 4000)"""
    return NoamDecay(d_model, warmup_steps, learning_rate=learning_rate)


def exponential_decay(learning_rate, decay_steps, decay_rate, staircase=False):
    """ExponentialDecay(learning_rate, decay_rate), as Paddle's dygraph form (decay_steps and
    staircase are not used). Example: >>> exponential_decay(0.1, 100, 0.9)"""
    return ExponentialDecay(learning_rate, decay_rate)


def natural_exp_decay(learning_rate, decay_steps, decay_rate, staircase=False):
    """NaturalExpDecay(learning_rate, decay_rate). Example: >>> natural_exp_decay(0.1, 100, 0.5)"""
    return NaturalExpDecay(learning_rate, decay_rate)


def inverse_time_decay(learning_rate, decay_steps, decay_rate, staircase=False):
    """InverseTimeDecay(learning_rate, decay_rate). Example: >>> inverse_time_decay(0.1, 1, 0.5)"""
    return InverseTimeDecay(learning_rate, decay_rate)


def polynomial_decay(learning_rate, decay_steps, end_learning_rate=0.0001, power=1.0,
                     cycle=False):
    """PolynomialDecay(...). Example: >>> polynomial_decay(0.1, 100)"""
    return PolynomialDecay(learning_rate, decay_steps, end_learning_rate, power, cycle)


def piecewise_decay(boundaries, values):
    """PiecewiseDecay(boundaries, values). Example: >>> piecewise_decay([10], [0.1, 0.01])"""
    if len(values) - len(boundaries) != 1:
        raise BuildError("piecewise_decay: len(values) - len(boundaries) must be 1")
    return PiecewiseDecay(boundaries, values)


def cosine_decay(learning_rate, step_each_epoch, epochs):
    """CosineAnnealingDecay(learning_rate, epochs). Example: >>> cosine_decay(0.1, 100, 30)"""
    return CosineAnnealingDecay(learning_rate, epochs)


def linear_lr_warmup(learning_rate, warmup_steps, start_lr, end_lr):
    """LinearWarmup(...). Example: >>> linear_lr_warmup(0.1, 10, 0.0, 0.1)"""
    return LinearWarmup(learning_rate, warmup_steps, start_lr, end_lr)


def sync_learning_rate(program, scope) -> None:
    """Write the current value of a static program's scheduler into `scope` (its
    `learning_rate_N` variable), as Paddle's Executor does before each run; a program without
    a scheduler is left alone.

    Example:
        >>> sched.step(); sync_learning_rate(main, pyir.static.global_scope())
    """
    scheduler = getattr(program, "lr_scheduler", None)
    var = getattr(program, "lr_var", None)
    if scheduler is None or var is None:
        return
    scope[var.name] = np.array(scheduler(), dtype=np.float32)


__all__ = ["CosineAnnealingDecay", "CosineAnnealingWarmRestarts", "CyclicLR", "ExponentialDecay",
           "InverseTimeDecay", "LRScheduler", "LambdaDecay", "LinearLR", "LinearWarmup",
           "MultiStepDecay", "MultiplicativeDecay", "NaturalExpDecay", "NoamDecay", "OneCycleLR",
           "PiecewiseDecay", "PolynomialDecay", "ReduceOnPlateau", "StepDecay", "cosine_decay",
           "exponential_decay", "inverse_time_decay", "linear_lr_warmup", "natural_exp_decay",
           "noam_decay", "piecewise_decay", "polynomial_decay"]
