"""`fluid.framework` / `base.framework`: programs, variables and the mode queries."""

from __future__ import annotations

from .. import framework as _ir
from ..device import CPUPlace, CUDAPlace  # noqa: F401
from ..framework import (Block, Operator, Parameter, Program, Variable,  # noqa: F401
                         default_main_program, in_pir_mode, default_startup_program, program_guard,
                         switch_main_program, switch_startup_program)
from ..eager import is_grad_enabled, set_grad_enabled
from ..static.building import name_scope  # noqa: F401
from ..tensor.runtime_api import get_flags, set_flags


def in_dygraph_mode() -> bool:
    """Whether eager (dygraph) mode is on: True unless `enable_static()` was called."""
    return not _ir.static_mode[0]


in_dynamic_mode = in_dygraph_mode


def use_pir_api() -> bool:
    return False


class _Tracer:
    """What Paddle's `_dygraph_tracer()` returns, as far as user code touches it:
    `_has_grad` is the eager grad mode (`pyir.is_grad_enabled()`), readable and settable."""

    @property
    def _has_grad(self) -> bool:
        return is_grad_enabled()

    @_has_grad.setter
    def _has_grad(self, value: bool) -> None:
        set_grad_enabled(bool(value))


def _dygraph_tracer():
    """The eager tracer (None in static mode), as in Paddle."""
    return _Tracer() if in_dygraph_mode() else None



__all__ = ["Program", "Variable", "Parameter", "Operator", "Block", "default_main_program",
           "default_startup_program", "program_guard", "switch_main_program",
           "switch_startup_program", "name_scope", "in_dygraph_mode", "in_dynamic_mode",
           "in_pir_mode", "use_pir_api", "get_flags", "set_flags", "_dygraph_tracer"]
