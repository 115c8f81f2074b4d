"""pyir: Paddle-compatible programs with Python-defined operators, run anywhere with numpy.

Change `import paddle` to `import pyir as paddle`: build with the `paddle.static` API,
save with `save_inference_model` or `pyir build`, run with `pyir run` or `Executor`.
"""

from __future__ import annotations

import builtins as _builtins

import numpy as np

from . import framework
# Public names (re-exported for `import pyir as paddle`).
from .errors import PyirError  # noqa: F401
from .framework import Program, Variable  # noqa: F401
from .layer_helper import ParamAttr  # noqa: F401
from .random import seed  # noqa: F401

__version__ = "0.1.0"

float16, float32, float64 = np.dtype("float16"), np.dtype("float32"), np.dtype("float64")
int8, int16 = np.dtype("int8"), np.dtype("int16")
int32, int64 = np.dtype("int32"), np.dtype("int64")
uint8, bool = np.dtype("uint8"), np.dtype("bool")  # noqa: A001 - Paddle spells it paddle.bool


def enable_static() -> None:
    """Creation functions (ones, full, randn, ...) build ops instead of making eager tensors."""
    framework.static_mode[0] = True


def disable_static(place=None) -> None:
    framework.static_mode[0] = False


def in_dynamic_mode() -> _builtins.bool:
    return not framework.static_mode[0]


# The public API of each part; every module lists its own names in __all__.
from .device import *  # noqa: E402,F401,F403
from .reader import batch  # noqa: E402,F401
from .tensor import *  # noqa: E402,F401,F403
from .callables import *  # noqa: E402,F401,F403
from .eager import *  # noqa: E402,F401,F403
from . import (autograd, base, device, fft, fluid, io, jit, linalg, metric, nn,  # noqa: E402,F401
               optimizer, regularizer, signal, static)
from .signal import (bartlett_window, blackman_window, hamming_window,  # noqa: E402,F401
                     hann_window, kaiser_window)
from .serialization import load, save  # noqa: E402,F401
from . import printer, serialize  # noqa: E402,F401  (they install Program's printing and files)
from . import unsupported as _unsupported  # noqa: E402
from .tensor import UNSUPPORTED as _UNSUPPORTED  # noqa: E402

__getattr__ = _unsupported.module_getattr(__name__, _UNSUPPORTED)
