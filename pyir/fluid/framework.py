"""`fluid.framework` / `base.framework`: programs, variables and the mode queries."""

from __future__ import annotations

from .. import framework as _ir
from ..device import CPUPlace, CUDAPlace  # noqa: F401
from ..framework import (Block, Operator, Parameter, Program, Variable,  # noqa: F401
                         default_main_program, default_startup_program, program_guard,
                         switch_main_program, switch_startup_program)
from ..static.building import name_scope  # noqa: F401


def in_dygraph_mode() -> bool:
    """Whether eager (dygraph) mode is on: True unless `enable_static()` was called."""
    return not _ir.static_mode[0]


in_dynamic_mode = in_dygraph_mode


def in_pir_mode() -> bool:
    """pyir builds Paddle's legacy programs, never PIR ones: False."""
    return False


def use_pir_api() -> bool:
    return False


__all__ = ["Program", "Variable", "Parameter", "Operator", "Block", "default_main_program",
           "default_startup_program", "program_guard", "switch_main_program",
           "switch_startup_program", "name_scope", "in_dygraph_mode", "in_dynamic_mode",
           "in_pir_mode", "use_pir_api"]
