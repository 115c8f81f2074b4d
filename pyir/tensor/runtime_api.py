"""Process-wide settings of Paddle's top-level API, as they mean on a numpy CPU: the default
float dtype, flags, the default device, mixed precision (accepted, a no-op: numpy computes in
the tensors' own dtypes), random generators, DLPack exchange, and compatibility switches.
"""

from __future__ import annotations

import builtins
import contextlib

import numpy as np

from .. import device as _device_module
from .. import dtypes
from .. import random as _stream
from ..eager import enable_grad  # noqa: F401  (a top-level name too)
from ..device import _warn_cpu
from ..eager import Tensor
from ..errors import PyirError
from ..unsupported import BFLOAT16

# --- the default float dtype -----------------------------------------------------------------
_FLOAT_DEFAULTS = ("float16", "float32", "float64")  # Paddle's also allows bfloat16


def get_default_dtype() -> str:
    """The dtype creation functions use for floats ('float32' unless changed).

    Example:
        >>> pyir.get_default_dtype()
        'float32'
    """
    return dtypes.default_float()


def set_default_dtype(d) -> None:
    """Make `d` (float16, float32 or float64) the dtype of float tensors that creation
    functions (full, ones, zeros, rand, ...) make without an explicit dtype.

    Example:
        >>> pyir.set_default_dtype("float64")
    """
    name = d.replace("paddle.", "") if isinstance(d, str) else dtypes.name_of(d)
    if name == "bfloat16":
        raise PyirError(f"set_default_dtype: {BFLOAT16}")
    if name not in _FLOAT_DEFAULTS:
        raise PyirError(f"set_default_dtype: the default dtype must be one of "
                        f"{', '.join(_FLOAT_DEFAULTS)}, got {d!r}")
    dtypes.set_default_float(name)


# --- flags ---------------------------------------------------------------------------------
_FLAGS: dict = {"FLAGS_check_nan_inf": False, "FLAGS_use_mkldnn": False,
                "FLAGS_eager_delete_tensor_gb": 0.0, "FLAGS_cudnn_deterministic": False,
                "FLAGS_enable_pir_api": False, "FLAGS_embedding_deterministic": 0}


def get_flags(flags) -> dict:
    """The values of Paddle flags (`FLAGS_...`) pyir keeps; pyir's kernels read none of them.

    Example:
        >>> pyir.get_flags("FLAGS_check_nan_inf")
        {'FLAGS_check_nan_inf': False}
    """
    names = [flags] if isinstance(flags, str) else list(flags)
    unknown = [n for n in names if n not in _FLAGS]
    if unknown:
        raise PyirError(f"get_flags: unknown flag(s) {', '.join(unknown)}; set them first "
                        f"with set_flags or use one of {', '.join(sorted(_FLAGS))}")
    return {n: _FLAGS[n] for n in names}


def set_flags(flags: dict) -> None:
    """Record Paddle flags (`{"FLAGS_check_nan_inf": True}`); get_flags reads them back.

    Example:
        >>> pyir.set_flags({"FLAGS_check_nan_inf": True})
    """
    if not isinstance(flags, dict):
        raise PyirError(f"set_flags expects a dict {{flag name: value}}, got "
                        f"{type(flags).__name__}")
    bad = [n for n in flags if not str(n).startswith("FLAGS_")]
    if bad:
        raise PyirError(f"set_flags: flag names start with 'FLAGS_', got "
                        f"{', '.join(map(str, bad))}")
    _FLAGS.update(flags)


# --- devices -----------------------------------------------------------------------------------
_default_device = ["cpu"]


def get_default_device() -> str:
    """The device tensors are made on: always 'cpu' in pyir.

    Example:
        >>> pyir.get_default_device()
        'cpu'
    """
    return _default_device[0]


def set_default_device(device) -> None:
    """Accepted; pyir makes every tensor on the CPU (warns once for another device).

    Example:
        >>> pyir.set_default_device("cpu")
    """
    text = device if isinstance(device, str) else repr(device)
    if isinstance(device, int) or not str(text).lower().startswith(("cpu", "place(cpu")):
        _warn_cpu(f"set_default_device({device!r})")


def get_device_module(device=None):
    """The module of a device family: `pyir.device` (CPU) for every device.

    Example:
        >>> pyir.get_device_module().get_device()
    """
    return _device_module


def get_cudnn_version():
    """None: pyir has no cuDNN.

    Example:
        >>> pyir.get_cudnn_version() is None
        True
    """
    return None


def disable_signal_handler() -> None:
    """Accepted: pyir installs no signal handlers.

    Example:
        >>> pyir.disable_signal_handler()
    """


# --- mixed precision: accepted, a no-op on numpy ----------------------------------------------
_autocast = {"enabled": False, "dtype": "float16"}


@contextlib.contextmanager
def autocast(device_type=None, dtype="float16", enabled: bool = True,
             cache_enabled: bool = True):
    """Accepted for torch-style AMP code: ops inside still compute in their inputs' dtypes
    (numpy has no fast half-precision path), but is_autocast_enabled() reports the block.

    Example:
        >>> with pyir.autocast("cpu"):
        ...     y = model(x)
    """
    old = dict(_autocast)
    name = dtype.replace("paddle.", "") if isinstance(dtype, str) else dtypes.name_of(dtype)
    _autocast.update(enabled=bool(enabled), dtype=name)
    try:
        yield
    finally:
        _autocast.update(old)


def is_autocast_enabled(device_type=None) -> bool:
    """Whether an `autocast` block is active (its ops still compute in their own dtypes).

    Example:
        >>> pyir.is_autocast_enabled()
        False
    """
    return _autocast["enabled"]


def get_autocast_dtype(device_type=None) -> str:
    """The dtype the current (or next) `autocast` block names: 'float16' by default.

    Example:
        >>> pyir.get_autocast_dtype()
        'float16'
    """
    return _autocast["dtype"]


get_autocast_cpu_dtype = get_autocast_gpu_dtype = get_autocast_dtype


# --- compatibility switches (torch-style API shims of Paddle) ---------------------------------
_compat = [False]


def enable_compat(*, scope=None, blocked_modules=None, backend="torch", silent=False) -> None:
    """Accepted: pyir has no torch proxy to turn on; the flag is recorded.

    Example:
        >>> pyir.enable_compat()
    """
    _compat[0] = True


def disable_compat() -> None:
    """Turn the recorded compat flag off.

    Example:
        >>> pyir.disable_compat()
    """
    _compat[0] = False


@contextlib.contextmanager
def use_compat_guard(*, enable: bool = True, scope=None, silent: bool = False):
    """The compat flag set to `enable` inside the block.

    Example:
        >>> with pyir.use_compat_guard():
        ...     pass
    """
    old, _compat[0] = _compat[0], bool(enable)
    try:
        yield
    finally:
        _compat[0] = old


class LazyGuard:
    """Paddle defers parameter initialization inside it; pyir initializes at once (a no-op).

    Example:
        >>> with pyir.LazyGuard():
        ...     layer = pyir.nn.Linear(4, 2)
    """

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class IrGuard(LazyGuard):
    """Paddle switches to its new IR inside it; pyir has one program format (a no-op).

    Example:
        >>> with pyir.IrGuard():
        ...     pass
    """


# --- saving ----------------------------------------------------------------------------------
def clear_async_save_task_queue() -> None:
    """Nothing to wait for: async_save saves synchronously.

    Example:
        >>> pyir.clear_async_save_task_queue()
    """


# --- DLPack ----------------------------------------------------------------------------------
def to_dlpack(x):
    """A DLPack capsule of x's value (numpy's `__dlpack__`), for another framework.

    Example:
        >>> capsule = pyir.to_dlpack(t)
    """
    if not isinstance(x, Tensor):
        raise PyirError(f"to_dlpack expects an eager Tensor, got {type(x).__name__}")
    return np.ascontiguousarray(x._value).__dlpack__()


class _Capsule:
    """Hands a bare capsule to np.from_dlpack, which wants an object with __dlpack__."""

    def __init__(self, capsule):
        self._capsule = capsule

    def __dlpack__(self, **kwargs):
        return self._capsule

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU


def from_dlpack(dlpack, *, device=None, copy=None) -> Tensor:
    """A Tensor from an object with `__dlpack__` (numpy, torch CPU tensors, ...) or a DLPack
    capsule, through numpy's `from_dlpack`.

    Example:
        >>> t = pyir.from_dlpack(np.arange(3.0))
    """
    source = dlpack if hasattr(dlpack, "__dlpack__") else _Capsule(dlpack)
    try:
        value = np.from_dlpack(source)
    except (TypeError, BufferError, RuntimeError) as e:
        raise PyirError(f"from_dlpack: numpy cannot read this DLPack object ({e}); only CPU "
                        f"memory can be shared with pyir") from None
    return Tensor(np.array(value, copy=True) if copy or copy is None else value)


# --- random generators -------------------------------------------------------------------------
class Generator:
    """A random generator with Paddle's methods, backed by a numpy Generator.

    Example:
        >>> g = pyir.Generator(); g.manual_seed(1); state = g.get_state()
    """

    def __init__(self, device=None):
        self._seed = int(np.random.SeedSequence().entropy % (2 ** 63))
        self._rng = np.random.default_rng(self._seed)

    def manual_seed(self, seed: int) -> "Generator":
        self._seed = int(seed)
        self._rng = np.random.default_rng(self._seed)
        return self

    def seed(self) -> int:
        """Reseed from fresh entropy; the new seed."""
        return self.manual_seed(int(np.random.SeedSequence().entropy % (2 ** 63)))._seed

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self) -> dict:
        return dict(self._rng.bit_generator.state)

    def set_state(self, state) -> "Generator":
        if not isinstance(state, dict):
            raise PyirError("Generator.set_state expects the state get_state returned")
        self._rng.bit_generator.state = state
        return self

    def random(self) -> int:
        """One random 64-bit integer."""
        return int(self._rng.integers(0, 2 ** 63))

    @property
    def numpy_generator(self) -> np.random.Generator:
        return self._rng


class _GlobalGenerator(Generator):
    """The global stream of unseeded random ops (pyir.random) seen as a Generator."""

    def __init__(self):
        self._seed = None

    @property
    def _rng(self):
        return _stream.generator()

    def manual_seed(self, seed: int) -> "Generator":
        self._seed = int(seed)
        _stream.seed(self._seed)
        return self


def manual_seed(seed: int) -> Generator:
    """Seed the global random stream (as `pyir.seed`); the global generator.

    Example:
        >>> pyir.manual_seed(2024)
    """
    if isinstance(seed, builtins.bool) or not isinstance(seed, (int, np.integer)):
        raise PyirError(f"manual_seed expects an int seed, got {seed!r}")
    return _GlobalGenerator().manual_seed(int(seed))


def get_cuda_rng_state() -> list:
    """The CPU stream's state (pyir has no GPU streams); set_cuda_rng_state restores it.

    Example:
        >>> state = pyir.get_cuda_rng_state()
    """
    return [dict(_stream.generator().bit_generator.state)]


def set_cuda_rng_state(state_list) -> None:
    """Restore get_cuda_rng_state's list into the CPU stream.

    Example:
        >>> pyir.set_cuda_rng_state(state)
    """
    if not isinstance(state_list, (list, tuple)) or len(state_list) != 1 or \
            not isinstance(state_list[0], dict):
        raise PyirError("set_cuda_rng_state expects the list get_cuda_rng_state returned")
    _stream.generator().bit_generator.state = state_list[0]


UNSUPPORTED: dict[str, str] = {}

__all__ = ["get_default_dtype", "set_default_dtype", "get_flags", "set_flags", "enable_grad",
           "get_default_device", "set_default_device", "get_device_module", "get_cudnn_version",
           "disable_signal_handler", "autocast", "is_autocast_enabled", "get_autocast_dtype",
           "get_autocast_cpu_dtype", "get_autocast_gpu_dtype", "enable_compat",
           "disable_compat", "use_compat_guard", "LazyGuard", "IrGuard",
           "clear_async_save_task_queue", "to_dlpack", "from_dlpack", "Generator",
           "manual_seed", "get_cuda_rng_state", "set_cuda_rng_state"]
