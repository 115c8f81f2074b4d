"""`pyir.static`: the `paddle.static` API (programs, data, executor, files)."""

from __future__ import annotations

from .. import dtypes
from ..device import cpu_places, cuda_places, device_guard  # noqa: F401
from ..errors import BuildError
from ..executor import Executor, Scope, global_scope, scope_guard
from ..framework import (Program, Variable, default_main_program, default_startup_program,
                         program_guard)
from ..backward import append_backward, gradients
from ..files import load_inference_model, save_inference_model
from ..pyfunc import py_func
from . import nn


def data(name: str, shape, dtype="float32", lod_level: int = 0) -> Variable:
    """Declare a program input. `None` or -1 in `shape` is a free dimension.

    Example:
        >>> x = pyir.static.data(name="x", shape=[None, 4], dtype="float32")
    """
    block = default_main_program().global_block()
    if name in block.vars:
        raise BuildError(f"data {name!r} is already declared in the main program")
    var = block.create_var(name, dtypes.to_numpy(dtype), [-1 if d is None else d for d in shape],
                           stop_gradient=True, lod_level=lod_level)
    var.need_check_feed = True
    return var




__all__ = ["Program", "Variable", "Executor", "Scope", "global_scope", "scope_guard", "data",
           "default_main_program", "default_startup_program", "program_guard", "nn",
           "append_backward", "gradients", "save_inference_model", "load_inference_model",
           "py_func"]
