"""pyir.fluid: the fluid-era names Paddle 1.x code uses (`import pyir.fluid as fluid`).

Only the pieces seed 000 needs, and a few of their neighbours: programs, `data`,
`Executor`, `CPUPlace` and `fluid.layers`.
"""

from __future__ import annotations

from ..device import CPUPlace, CUDAPlace  # noqa: F401
from ..executor import Executor, Scope, global_scope, scope_guard  # noqa: F401
from ..framework import (Program, Variable, default_main_program,  # noqa: F401
                         default_startup_program, program_guard)
from ..layer_helper import ParamAttr  # noqa: F401
from ..static import data  # noqa: F401
from . import layers  # noqa: F401

__all__ = ["CPUPlace", "CUDAPlace", "Executor", "Scope", "global_scope", "scope_guard",
           "Program", "Variable", "default_main_program", "default_startup_program",
           "program_guard", "ParamAttr", "data", "layers"]
