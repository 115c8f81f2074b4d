"""`paddle.static` helpers for building programs: `name_scope`, `create_global_var`,
`create_parameter`, and the parallel-execution wrappers (`CompiledProgram`, `BuildStrategy`,
`ExecutionStrategy`) that pyir accepts and runs as the plain program.
"""

from __future__ import annotations

import contextlib
from collections import defaultdict

from .. import dtypes
from ..device import _warn_cpu, CPUPlace
from ..errors import BuildError, PyirError
from ..framework import Program, default_main_program, default_startup_program, unique_name
from ..layer_helper import (Constant, Initializer, ParamAttr, create_parameter as _create_param,
                            to_param_attr)

# --- name_scope -------------------------------------------------------------------------------
_scope_path: list[str] = []  # full names of the open scopes, innermost last ("/a/", "/a/b/")
_scope_counts: dict[str, dict[str, int]] = defaultdict(dict)  # parent path -> prefix -> uses


@contextlib.contextmanager
def name_scope(prefix: str | None = None):
    """Ops built inside get `op_namescope = "/prefix/"` (nested scopes join: "/a/b/"); a
    prefix used again under the same parent becomes `prefix_1`, as in Paddle.

    Example:
        >>> with pyir.static.name_scope("encoder"):
        ...     h = x * 2                  # its scale op has op_namescope "/encoder/"
    """
    parent = _scope_path[-1] if _scope_path else "/"
    stem = prefix or "scope"
    uses = _scope_counts[parent].get(stem, 0)
    _scope_counts[parent][stem] = uses + 1
    full = f"{parent}{stem if uses == 0 else f'{stem}_{uses}'}/"
    block = default_main_program().current_block()
    start = len(block.ops)
    _scope_path.append(full)
    try:
        yield
    finally:
        _scope_path.pop()
        for op in block.ops[start:]:
            if op.attrs.get("op_namescope", "/") == "/":
                op.attrs["op_namescope"] = full


# --- variables and parameters -----------------------------------------------------------------
def create_global_var(shape, value: float, dtype, persistable: bool = False,
                      force_cpu: bool = False, name: str | None = None):
    """A global variable of the main program filled with `value` by the startup program
    (`fill_constant`); it stops gradients.

    Example:
        >>> step = pyir.static.create_global_var([1], 0.0, "float32", persistable=True)
    """
    shape = _shape(shape, "create_global_var")
    np_dtype = dtypes.to_numpy(dtype)
    main = default_main_program().global_block()
    if name is not None and name in main.vars:
        raise BuildError(f"create_global_var: {name!r} already exists in the main program")
    var = main.create_var(name, np_dtype, shape, persistable=persistable, stop_gradient=True)
    startup = default_startup_program().global_block()
    init_var = startup.create_var(var.name, np_dtype, shape, persistable=True,
                                  stop_gradient=True)
    Constant(value).init(init_var, startup)
    return var


def create_parameter(shape, dtype, name: str | None = None, attr=None, is_bias: bool = False,
                     default_initializer: Initializer | None = None):
    """A trainable parameter `create_parameter_N.w_0` (`.b_0` with `is_bias`) initialized
    by the startup program: `default_initializer`, else zeros for a bias, else Xavier.

    Example:
        >>> w = pyir.static.create_parameter([784, 10], "float32")
    """
    shape = _shape(shape, "create_parameter")
    attr = ParamAttr(name=name) if attr is None else to_param_attr(attr)
    if attr is None:
        raise BuildError("create_parameter: attr=False makes no parameter; pass a ParamAttr")
    stem = unique_name.generate("create_parameter")
    default = default_initializer or (Constant(0.0) if is_bias else None)
    return _create_param(shape, dtypes.to_numpy(dtype), attr, name_stem=stem,
                         suffix="b" if is_bias else "w", default_initializer=default)


def _shape(shape, what: str) -> list[int]:
    if isinstance(shape, int):
        shape = [shape]
    if not isinstance(shape, (list, tuple)) or not all(
            isinstance(d, int) and not isinstance(d, bool) for d in shape):
        raise BuildError(f"{what}: shape must be a list of ints, got {shape!r}")
    if any(d < 0 for d in shape):
        raise BuildError(f"{what}: shape must be fully known (no -1/None), got {list(shape)}")
    return list(shape)


# --- parallel execution: accepted, runs the plain program -------------------------------------
class _Options:
    """An attribute bag: any option can be set and read back; none changes how pyir runs."""

    def __init__(self, **options):
        self.__dict__.update(options)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.__dict__})"


class BuildStrategy(_Options):
    """Paddle's graph build options (fusions, reduce strategy, ...): accepted and ignored,
    pyir runs the program as written.

    Example:
        >>> bs = pyir.static.BuildStrategy(); bs.fuse_all_reduce_ops = True
    """


class ExecutionStrategy(_Options):
    """Paddle's executor options (num_threads, ...): accepted and ignored.

    Example:
        >>> es = pyir.static.ExecutionStrategy(); es.num_threads = 4
    """


class CompiledProgram(Program):
    """Paddle's data-parallel wrapper of a Program. In pyir it is the same program (it shares
    its blocks, ops and variables), so `exe.run(CompiledProgram(main), ...)` runs `main`.

    Example:
        >>> compiled = pyir.static.CompiledProgram(main, build_strategy=bs)
        >>> exe.run(compiled, feed=..., fetch_list=[loss])
    """

    def __init__(self, program_or_graph, build_strategy: BuildStrategy | None = None):
        if not isinstance(program_or_graph, Program):
            raise PyirError(f"CompiledProgram expects a Program, got "
                            f"{type(program_or_graph).__name__} (pyir has no Graph)")
        self.__dict__ = program_or_graph.__dict__  # one program, two names

    def with_data_parallel(self, loss_name=None, build_strategy=None, exec_strategy=None,
                           share_vars_from=None, places=None) -> "CompiledProgram":
        """Accepted for fluid-era code; runs on one CPU all the same."""
        return self


def xpu_places(device_ids=None) -> list:
    """Paddle's XPU places: pyir runs them on the CPU (with one warning)."""
    _warn_cpu("xpu_places()")
    return [CPUPlace()] * (len(device_ids) if device_ids else 1)


__all__ = ["name_scope", "create_global_var", "create_parameter", "BuildStrategy",
           "ExecutionStrategy", "CompiledProgram", "xpu_places"]
