"""`pyir.static`: the `paddle.static` API (programs, data, executor, scopes, files).

    building    Program, program_guard, data, name_scope, create_parameter, nn.*
    running     Executor, Scope, global_scope, scope_guard, CompiledProgram
    files       save/load (checkpoints), save/load_inference_model, serialize_*, save_vars
"""

from __future__ import annotations

from .. import dtypes, unsupported
from ..backward import append_backward, gradients  # noqa: F401
from ..device import cpu_places, cuda_places, device_guard  # noqa: F401
from ..errors import BuildError
from ..executor import Executor, Scope, global_scope, scope_guard  # noqa: F401
from ..framework import (Operator, Parameter, Program, Variable,  # noqa: F401
                         default_main_program, default_startup_program, program_guard)
from ..input_spec import InputSpec  # noqa: F401
from ..pyfunc import py_func  # noqa: F401
from . import nn  # noqa: F401
from ._storage import load_inference_model, save_inference_model  # noqa: F401
from .building import (BuildStrategy, CompiledProgram, ExecutionStrategy,  # noqa: F401
                       create_global_var, create_parameter, name_scope, xpu_places)
from .io import (deserialize_persistables, deserialize_program, is_persistable,  # noqa: F401
                 load, load_from_file, load_program_state, normalize_program, save,
                 save_to_file, serialize_persistables, serialize_program, set_program_state)
from .metric import Print, accuracy, auc  # noqa: F401
from .vars_io import load_vars, save_vars  # noqa: F401


def data(name: str, shape, dtype=None, lod_level: int = 0) -> Variable:
    """Declare a program input. `None` or -1 in `shape` is a free dimension; dtype defaults
    to float32.

    Example:
        >>> x = pyir.static.data(name="x", shape=[None, 4], dtype="float32")
    """
    block = default_main_program().global_block()
    if name in block.vars:
        raise BuildError(f"data {name!r} is already declared in the main program")
    var = block.create_var(name, dtypes.to_numpy(dtype or "float32"),
                           [-1 if d is None else d for d in shape], stop_gradient=True,
                           lod_level=lod_level)
    var.need_check_feed = True
    return var


_IPU = "IPU-only (Graphcore hardware; pyir runs on the CPU with numpy)"
UNSUPPORTED = {
    "IpuCompiledProgram": _IPU, "IpuStrategy": _IPU, "ipu_shard_guard": _IPU,
    "set_ipu_shard": _IPU,
    "MetaTensor": unsupported.PADDLE_INTERNAL + " (custom C++ op shape inference)",
    "register_op": "Paddle's Python custom-op registration; define ops with "
                   "pyir.registry.register_op or call numpy code with py_func",
    "WeightNormParamAttr": "weight normalization of parameters is not supported; "
                           "normalize the weight explicitly",
    "ExponentialMovingAverage": "not supported: Paddle 3.3.1's own implementation fails in "
                                "legacy static mode (its cond() call); keep a moving average "
                                "with create_global_var and explicit ops",
    "ctr_metric_bundle": unsupported.DISTRIBUTED + " (CTR metrics)",
    "setitem": "needs static x[index] = value (op set_value), which arrives with the "
               "indexing work",
    "ParallelExecutor": "removed in Paddle 3; use Executor (with CompiledProgram)",
}

__all__ = ["Program", "Variable", "Parameter", "Operator", "Executor", "Scope", "global_scope",
           "scope_guard", "data", "InputSpec", "default_main_program",
           "default_startup_program", "program_guard", "nn", "append_backward", "gradients",
           "save_inference_model", "load_inference_model", "py_func", "cpu_places",
           "cuda_places", "xpu_places", "device_guard", "name_scope", "create_global_var",
           "create_parameter", "BuildStrategy", "ExecutionStrategy", "CompiledProgram", "save",
           "load", "load_program_state", "set_program_state", "normalize_program",
           "serialize_program", "serialize_persistables", "deserialize_program",
           "deserialize_persistables", "save_to_file", "load_from_file", "is_persistable",
           "save_vars", "load_vars", "Print", "accuracy", "auc"]

__getattr__ = unsupported.module_getattr(__name__, UNSUPPORTED)
