"""Places and devices. pyir runs on the CPU only; Paddle code that names a GPU (`CUDAPlace(0)`,
`set_device("gpu:0")`, `device_guard("gpu")`) is accepted and runs on the CPU, with one
warning per process so the user knows."""

from __future__ import annotations

import contextlib
import warnings

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


__all__ = ["CPUPlace", "CUDAPlace", "CUDAPinnedPlace", "XPUPlace", "IPUPlace", "CustomPlace",
           "set_device", "get_device", "is_compiled_with_cuda", "is_compiled_with_rocm",
           "is_compiled_with_xpu", "is_compiled_with_ipu", "is_compiled_with_cinn",
           "is_compiled_with_custom_device", "is_compiled_with_distribute", "device_guard"]
