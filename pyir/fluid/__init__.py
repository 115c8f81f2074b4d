"""pyir.fluid: the fluid-era names Paddle 1.x/2.x code uses (`import pyir.fluid as fluid`),
also reachable as `pyir.base` (Paddle 3's name, which Paddle's own tests import).

    fluid.Program / program_guard / Executor / CPUPlace / ParamAttr / DataFeeder
    fluid.core (Scope, DenseTensor/LoDTensor, places, is_compiled_with_cuda)
    fluid.compiler.CompiledProgram, fluid.framework, fluid.backward, fluid.executor
    fluid.dygraph (guard, to_variable), fluid.unique_name, fluid.initializer, fluid.layers
"""

from __future__ import annotations

from .. import framework as _ir
from .. import unsupported
from ..backward import append_backward, gradients  # noqa: F401
from ..device import (CPUPlace, CUDAPinnedPlace, CUDAPlace, XPUPlace,  # noqa: F401
                      cpu_places, cuda_places, device_guard, is_compiled_with_cuda)
from ..executor import Executor, Scope, global_scope, scope_guard  # noqa: F401
from ..framework import (Parameter, Program, Variable, default_main_program,  # noqa: F401
                         default_startup_program, program_guard)
from ..layer_helper import ParamAttr  # noqa: F401
from ..static import data  # noqa: F401
from ..static.building import (BuildStrategy, CompiledProgram,  # noqa: F401
                               ExecutionStrategy, name_scope)
from . import (backward, compiler, core, dygraph, executor, framework,  # noqa: F401
               initializer, layers, optimizer, unique_name)
from .data_feeder import DataFeeder  # noqa: F401
from .framework import in_dygraph_mode  # noqa: F401


def enable_dygraph(place=None) -> None:
    """Eager mode from now on (fluid's name for `pyir.disable_static`)."""
    _ir.static_mode[0] = False


def disable_dygraph() -> None:
    """Static mode from now on (fluid's name for `pyir.enable_static`)."""
    _ir.static_mode[0] = True


UNSUPPORTED = {
    "ParallelExecutor": "removed in Paddle 3; use Executor with compiler.CompiledProgram",
    "DistributeTranspiler": unsupported.DISTRIBUTED,
    "transpiler": unsupported.DISTRIBUTED,
    "contrib": "fluid.contrib (mixed precision, slim, ...) is not supported",
    "incubate": unsupported.DISTRIBUTED + " (fluid.incubate is fleet)",
    "WeightNormParamAttr": "weight normalization of parameters is not supported",
}

__all__ = ["CPUPlace", "CUDAPlace", "CUDAPinnedPlace", "XPUPlace", "Executor", "Scope",
           "global_scope", "scope_guard", "Program", "Variable", "Parameter",
           "default_main_program", "default_startup_program", "program_guard", "ParamAttr",
           "data", "layers", "core", "compiler", "framework", "dygraph", "unique_name", "optimizer",
           "backward", "executor", "initializer", "DataFeeder", "CompiledProgram",
           "BuildStrategy", "ExecutionStrategy", "name_scope", "append_backward", "gradients",
           "in_dygraph_mode", "enable_dygraph", "disable_dygraph", "is_compiled_with_cuda",
           "cpu_places", "cuda_places", "device_guard"]

__getattr__ = unsupported.module_getattr(__name__, UNSUPPORTED)
