"""Places and devices. pyir runs on the CPU only; Paddle code that names a GPU (`CUDAPlace(0)`,
`set_device("gpu:0")`, `device_guard("gpu")`) is accepted and runs on the CPU, with one
warning per process so the user knows."""

from __future__ import annotations

import contextlib
import time
import warnings

from .errors import PyirError

_warned = [False]


def _warn_cpu(what: str) -> None:
    if not _warned[0]:
        _warned[0] = True
        warnings.warn(f"pyir runs on the CPU only: {what} runs on the CPU", stacklevel=3)


class CPUPlace:
    """The place pyir runs on; accepted wherever Paddle takes a place."""

    def __init__(self, *args):
        pass

    def __repr__(self) -> str:
        return "Place(cpu)"

    def __eq__(self, other) -> bool:
        return isinstance(other, CPUPlace)

    def __hash__(self) -> int:
        return hash("cpu")

    def is_cpu_place(self) -> bool:
        return True

    def is_gpu_place(self) -> bool:
        return False


def _accelerator_place(kind: str):
    class Place(CPUPlace):
        __doc__ = f"""Paddle's {kind}: accepted, and runs on the CPU (with one warning)."""

        def __init__(self, device_id: int = 0):
            _warn_cpu(f"{kind}({device_id})")
            self.device_id = device_id

    Place.__name__ = Place.__qualname__ = kind
    return Place


CUDAPlace = _accelerator_place("CUDAPlace")
CUDAPinnedPlace = _accelerator_place("CUDAPinnedPlace")
XPUPlace = _accelerator_place("XPUPlace")
XPUPinnedPlace = _accelerator_place("XPUPinnedPlace")
IPUPlace = _accelerator_place("IPUPlace")
CustomPlace = _accelerator_place("CustomPlace")

_device = ["cpu"]


def set_device(device: str) -> CPUPlace:
    """Accepts any Paddle device string; everything runs on the CPU ("gpu:0" warns once)."""
    if not str(device).startswith("cpu"):
        _warn_cpu(f"set_device({device!r})")
    _device[0] = str(device)
    return CPUPlace()


def get_device(input=None) -> str:  # noqa: A002 - Paddle's name
    """The device pyir runs on (always "cpu")."""
    return "cpu"


def is_compiled_with_cuda() -> bool:
    return False


def is_compiled_with_rocm() -> bool:
    return False


def is_compiled_with_xpu() -> bool:
    return False


def is_compiled_with_ipu() -> bool:
    return False


def is_compiled_with_cinn() -> bool:
    return False


def is_compiled_with_custom_device(device_type: str = "") -> bool:
    return False


def is_compiled_with_distribute() -> bool:
    return False


@contextlib.contextmanager
def device_guard(device: str | None = None):
    """Paddle's static `device_guard`: ops inside run on the CPU all the same."""
    if device and not str(device).startswith("cpu"):
        _warn_cpu(f"device_guard({device!r})")
    yield


def cpu_places(device_count: int | None = None) -> list:
    return [CPUPlace()] * (device_count or 1)


def cuda_places(device_ids=None) -> list:
    _warn_cpu("cuda_places()")
    return [CPUPlace()] * (len(device_ids) if device_ids else 1)


class _Cuda:
    """`paddle.device.cuda` as a CPU-only Paddle answers it: no CUDA devices, and
    `empty_cache()` has nothing to free."""

    @staticmethod
    def device_count() -> int:
        return 0

    @staticmethod
    def empty_cache() -> None:
        return None


cuda = _Cuda()


# --- streams and events: pyir runs every op synchronously on the CPU ---------------------------
class Event:
    """A point in time on a stream. pyir's ops finish before they return, so an event is
    complete as soon as it is recorded; `elapsed_time` measures wall-clock milliseconds.

    Example:
        >>> start, end = pyir.Event(enable_timing=True), pyir.Event(enable_timing=True)
        >>> start.record(); y = x @ x; end.record(); ms = start.elapsed_time(end)
    """

    def __init__(self, enable_timing: bool = False, blocking: bool = False,
                 interprocess: bool = False) -> None:
        self.enable_timing, self._time = enable_timing, None

    def record(self, stream=None) -> None:
        self._time = time.perf_counter()

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        """Nothing to wait for."""

    def elapsed_time(self, end_event: "Event") -> float:
        if not (self.enable_timing and end_event.enable_timing):
            raise PyirError("elapsed_time needs both events made with enable_timing=True")
        if self._time is None or end_event._time is None:
            raise PyirError("elapsed_time: record() both events first")
        return (end_event._time - self._time) * 1000.0


class Stream:
    """An execution stream; on pyir's CPU every op is done when it returns, so waiting and
    synchronizing return at once.

    Example:
        >>> s = pyir.Stream(); e = s.record_event(); s.synchronize()
    """

    def __init__(self, device=None, priority: int = 2, stream_base=None) -> None:
        if device is not None and not str(device).lower().startswith(("cpu", "place(cpu")):
            _warn_cpu(f"Stream(device={device!r})")
        self.device, self.priority = "cpu", priority

    def wait_event(self, event: Event) -> None:
        """Nothing to wait for."""

    def wait_stream(self, stream: "Stream") -> None:
        """Nothing to wait for."""

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        """Nothing to wait for."""

    def record_event(self, event: Event | None = None) -> Event:
        event = event or Event()
        event.record(self)
        return event


__all__ = ["Stream", "Event", "XPUPinnedPlace", "CPUPlace", "CUDAPlace", "CUDAPinnedPlace", "XPUPlace", "IPUPlace", "CustomPlace",
           "set_device", "get_device", "is_compiled_with_cuda", "is_compiled_with_rocm",
           "is_compiled_with_xpu", "is_compiled_with_ipu", "is_compiled_with_cinn",
           "is_compiled_with_custom_device", "is_compiled_with_distribute", "device_guard"]
