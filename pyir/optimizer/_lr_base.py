"""The scheduler base (`LRScheduler`) and the argument checks the schedulers share."""

from __future__ import annotations

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
