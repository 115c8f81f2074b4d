"""`fluid.core` / `base.core`: the pieces of Paddle's C++ core module that Python code
and Paddle's own tests touch (scopes, tensors, places, build flags)."""

from __future__ import annotations

from .. import unsupported
from ..device import (CPUPlace, CUDAPinnedPlace, CUDAPlace, CustomPlace, IPUPlace,  # noqa: F401
                      XPUPlace, is_compiled_with_cinn, is_compiled_with_cuda,
                      is_compiled_with_custom_device, is_compiled_with_distribute,
                      is_compiled_with_ipu, is_compiled_with_rocm, is_compiled_with_xpu)
from ..executor import DenseTensor, Scope  # noqa: F401
from ..framework import (DENSE_TENSOR, DENSE_TENSOR_ARRAY, FEED_MINIBATCH,  # noqa: F401
                         FETCH_LIST, SELECTED_ROWS, STEP_SCOPES)

LoDTensor = DenseTensor  # the fluid-era name of the same tensor
_Scope = Scope


def get_cuda_device_count() -> int:
    """pyir sees no GPU: 0."""
    return 0


def get_xpu_device_count() -> int:
    return 0


def is_compiled_with_mkldnn() -> bool:
    return False


def is_compiled_with_brpc() -> bool:
    return False


class VarDesc:
    """`core.VarDesc.VarType`: the variable kinds and data types, by Paddle's enum values."""

    class VarType:
        BOOL, INT16, INT32, INT64, FP16, FP32, FP64 = 0, 1, 2, 3, 4, 5, 6
        UINT8, INT8, BF16, COMPLEX64, COMPLEX128 = 20, 21, 22, 23, 24
        DENSE_TENSOR, LOD_TENSOR, SELECTED_ROWS = DENSE_TENSOR, DENSE_TENSOR, SELECTED_ROWS
        FEED_MINIBATCH, FETCH_LIST, STEP_SCOPES = FEED_MINIBATCH, FETCH_LIST, STEP_SCOPES
        DENSE_TENSOR_ARRAY = LOD_TENSOR_ARRAY = DENSE_TENSOR_ARRAY
        READER, RAW = 15, 17


UNSUPPORTED = {
    "Graph": "pyir has no IR graph passes; programs run as written",
    "ProgramDesc": unsupported.PADDLE_INTERNAL + " (use Program.serialize_to_string)",
    "eager": unsupported.PADDLE_INTERNAL,
    "ops": unsupported.PADDLE_INTERNAL + " (use pyir ops / pyir.registry.OPS)",
}

__getattr__ = unsupported.module_getattr(__name__, UNSUPPORTED)
