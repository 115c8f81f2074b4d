"""`paddle.amp` on a CPU: what Paddle does there, which is nothing. Paddle enables automatic
mixed precision only on GPU, XPU and custom devices; on a CPU `auto_cast` leaves the tracer
at float32, `GradScaler` turns itself off (`scale` returns the loss, `step` / `minimize`
call the optimizer's, `state_dict` is empty) and `decorate` returns the models and optimizers
unchanged, each with a warning. pyir runs on the CPU only, so these are Paddle's CPU paths:
GPU-first training scripts run unchanged and give float32's numbers.
"""

from __future__ import annotations

import contextlib
import warnings

from .errors import PyirError

__all__ = ["auto_cast", "GradScaler", "decorate", "is_float16_supported",
           "is_bfloat16_supported", "is_autocast_enabled", "get_autocast_dtype",
           "get_autocast_cpu_dtype", "get_autocast_gpu_dtype", "amp_guard", "amp_decorate",
           "AmpScaler"]

_NO_EFFECT = "makes no effect: pyir runs on the CPU, where Paddle does not use mixed precision"


def _check_level(level: str, who: str) -> None:
    if level not in ("O0", "OD", "O1", "O2"):
        raise PyirError(f"{who}: level must be 'O0', 'OD', 'O1' or 'O2', got {level!r}")


@contextlib.contextmanager
def auto_cast(enable: bool = True, custom_white_list=None, custom_black_list=None,
              level: str = "O1", dtype: str = "float16", use_promote: bool = True):
    """A `with` block in which Paddle would run white-listed ops in float16 on a GPU; on the
    CPU (pyir) ops keep their dtypes.

    Example:
        >>> with pyir.amp.auto_cast():
        ...     loss = model(x).mean()    # float32, as Paddle on a CPU
    """
    _check_level(level, "auto_cast")
    if enable:
        warnings.warn(f"auto_cast {_NO_EFFECT}", stacklevel=3)
    yield


amp_guard = auto_cast


def decorate(models, optimizers=None, level: str = "O1", dtype: str = "float16",
             master_weight=None, save_dtype=None, master_grad: bool = False,
             excluded_layers=None):
    """The models (and optimizers) unchanged, as Paddle returns them on a CPU."""
    if level not in ("O1", "O2"):
        raise PyirError(f"decorate: level must be 'O1' or 'O2', got {level!r}")
    if level == "O2":
        warnings.warn(f"decorate(level='O2') {_NO_EFFECT}", stacklevel=2)
    return models if optimizers is None else (models, optimizers)


amp_decorate = decorate


def is_float16_supported(device=None) -> bool:
    """False: pyir's CPU kernels do not run float16 mixed precision."""
    return False


def is_bfloat16_supported(device=None) -> bool:
    """False: numpy has no bfloat16 (Paddle's CPU answer depends on the processor)."""
    return False


def is_autocast_enabled(device_type=None) -> bool:
    """False: auto_cast never turns on in pyir (as on Paddle's CPU)."""
    return False


def get_autocast_dtype(device_type=None) -> str:
    """'float16', Paddle's answer while auto-casting is off."""
    return "float16"


get_autocast_cpu_dtype = get_autocast_gpu_dtype = get_autocast_dtype


class GradScaler:
    """Paddle's loss scaler as it behaves on a CPU: disabled. `scale(loss)` is the loss,
    `step(opt)` is `opt.step()`, `minimize(opt, loss)` is `opt.minimize(loss)`, `update()` and
    `unscale_()` do nothing.

    Example:
        >>> scaler = pyir.amp.GradScaler(init_loss_scaling=1024)
        >>> scaler.scale(loss).backward()
        >>> scaler.step(opt); scaler.update(); opt.clear_grad()
    """

    def __init__(self, enable: bool = True, init_loss_scaling: float = 65536.0,
                 incr_ratio: float = 2.0, decr_ratio: float = 0.5,
                 incr_every_n_steps: int = 2000, decr_every_n_nan_or_inf: int = 1,
                 use_dynamic_loss_scaling: bool = True):
        if enable:
            warnings.warn(f"GradScaler {_NO_EFFECT}", stacklevel=2)
        self._enable = False
        self._use_dynamic_loss_scaling = False
        self._init_loss_scaling = 1.0
        self._incr_ratio, self._decr_ratio = float(incr_ratio), float(decr_ratio)
        self._incr_every_n_steps = int(incr_every_n_steps)
        self._decr_every_n_nan_or_inf = int(decr_every_n_nan_or_inf)

    def scale(self, var):
        return var

    def minimize(self, optimizer, *args, **kwargs):
        return optimizer.minimize(*args, **kwargs)

    def step(self, optimizer) -> None:
        optimizer.step()

    def update(self) -> None:
        return None

    def unscale_(self, optimizer) -> None:
        return None

    def is_enable(self) -> bool:
        return self._enable

    def is_use_dynamic_loss_scaling(self) -> bool:
        return self._use_dynamic_loss_scaling

    def get_init_loss_scaling(self) -> float:
        return self._init_loss_scaling

    def set_init_loss_scaling(self, new_init_loss_scaling) -> None:
        self._init_loss_scaling = new_init_loss_scaling

    def get_incr_ratio(self) -> float:
        return self._incr_ratio

    def set_incr_ratio(self, new_incr_ratio: float) -> None:
        if new_incr_ratio <= 1.0:
            raise PyirError(f"GradScaler: incr_ratio must be > 1.0, got {new_incr_ratio}")
        self._incr_ratio = float(new_incr_ratio)

    def get_decr_ratio(self) -> float:
        return self._decr_ratio

    def set_decr_ratio(self, new_decr_ratio: float) -> None:
        if new_decr_ratio >= 1.0:
            raise PyirError(f"GradScaler: decr_ratio must be < 1.0, got {new_decr_ratio}")
        self._decr_ratio = float(new_decr_ratio)

    def get_incr_every_n_steps(self) -> int:
        return self._incr_every_n_steps

    def set_incr_every_n_steps(self, new_incr_every_n_steps: int) -> None:
        self._incr_every_n_steps = int(new_incr_every_n_steps)

    def get_decr_every_n_nan_or_inf(self) -> int:
        return self._decr_every_n_nan_or_inf

    def set_decr_every_n_nan_or_inf(self, new_decr_every_n_nan_or_inf: int) -> None:
        self._decr_every_n_nan_or_inf = int(new_decr_every_n_nan_or_inf)

    def state_dict(self) -> dict:
        """Empty, as a disabled Paddle scaler's."""
        return {}

    def load_state_dict(self, state_dict: dict) -> None:
        return None


AmpScaler = GradScaler
