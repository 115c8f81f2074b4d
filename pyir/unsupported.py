"""Names of Paddle's API that pyir leaves out on purpose, with the reason, and the one-line
error a user gets for them.

A module lists its own left-out names in `UNSUPPORTED = {name: reason}` and ends with
`__getattr__ = unsupported.module_getattr(__name__, UNSUPPORTED)`: then `paddle.X` for such a
name is a stub that raises `UnsupportedError` ("pyir does not support paddle.X: <reason>")
when called, so a script that merely imports it still runs; any other missing name is a plain
AttributeError that says pyir has no such name. `tools/api_coverage.py` reads these tables
for the coverage page (docs/api-coverage.md).
"""

from __future__ import annotations

from .errors import PyirError

# The reasons, spelled once.
GPU_ONLY = "GPU-only (pyir runs on the CPU with numpy)"
DISTRIBUTED = "distributed training is out of scope (see `pyir run --workers` for scale-out)"
SPARSE = "sparse tensors are not supported"
QUANTIZATION = "quantization is not supported"
LOD = "LoD sequence ops are legacy Paddle and not supported"
INPLACE = "in-place aliases have no numpy meaning in pyir; use the out-of-place function"
COMPLEX = "complex tensors are not supported"
PADDLE_INTERNAL = "a Paddle internal (monkey patching, IR guards) with no meaning in pyir"


class UnsupportedError(PyirError, NotImplementedError):
    """A Paddle API pyir leaves out on purpose."""


def stub(qualname: str, reason: str):
    """A callable that refuses with one line naming the API and the reason."""

    def refuse(*args, **kwargs):
        raise UnsupportedError(f"pyir does not support {qualname}: {reason}")

    refuse.__name__ = qualname.rsplit(".", 1)[-1]
    refuse.__qualname__ = qualname
    refuse.__doc__ = f"Not supported by pyir: {reason}."
    refuse.pyir_unsupported = reason
    return refuse


def module_getattr(module_name: str, table: dict[str, str]):
    """A module `__getattr__` serving the stubs of `table` ({name: reason})."""
    public = "paddle" + module_name[len("pyir"):] if module_name.startswith("pyir") else \
        module_name

    def __getattr__(name: str):
        reason = table.get(name)
        if reason is None:
            raise AttributeError(f"module {public!r} has no attribute {name!r} in pyir "
                                 f"(docs/api-coverage.md lists what pyir supports)")
        return stub(f"{public}.{name}", reason)

    return __getattr__
MMAP_STORAGE = ("memory-mapped tensor storage is not supported; load arrays with "
                "`numpy.load(..., mmap_mode='r')` and `pyir.to_tensor`")
SELECTED_ROWS = "SelectedRows (sparse gradient rows) are not supported; gradients are dense"
STRING_TENSOR = "string and vocabulary tensors (faster tokenizer) are not supported"
MEMORY_VIEW = ("pyir tensors own their numpy value: re-pointing or resizing their storage in "
               "place has no meaning; use reshape, slice or a new tensor")
AUDIO = "short-time Fourier transforms (stft/istft) are not supported yet (paddle.signal)"
SAMPLING_KERNEL = "top_p_sampling is a fused GPU decoding kernel; use sort, cumsum and multinomial"
DYGRAPH_ONLY = ("only eager Tensors have it: a static Variable has no value or gradient until "
                "an Executor runs the program")
BFLOAT16 = ("bfloat16 tensors are not supported (numpy has no bfloat16 arithmetic); use "
            "float16 or float32")
TENSOR_ARRAY = ("tensor arrays (LoDTensorArray) are not supported in pyir's static mode; use "
                "a Python list of Variables")
