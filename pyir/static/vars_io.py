"""`save_vars` / `load_vars`: variables of the scope to files in Paddle's tensor format,
one file per variable (named after it) or, with `filename`, one combined file of all of them
in sorted-name order (the `.pdiparams` layout).
"""

from __future__ import annotations

import os

import numpy as np

from ..errors import FormatError, PyirError, Where
from ..executor import global_scope
from ..framework import Program, Variable, default_main_program
from ._storage import atomic_write, decode_params, encode_params, encode_record
from .io import is_persistable


def _chosen(main_program, vars, predicate, what: str) -> list[Variable]:
    program = default_main_program() if main_program is None else main_program
    if not isinstance(program, Program):
        raise PyirError(f"{what}: main_program must be a Program, got {type(program).__name__}")
    if vars is None:
        keep = predicate or is_persistable
        chosen = {v.name: v for v in program.list_vars() if keep(v)}
    else:
        chosen = {}
        for v in vars:
            if not isinstance(v, Variable):
                raise PyirError(f"{what}: vars must be Variables, got {type(v).__name__}")
            chosen[v.name] = v
    return [chosen[n] for n in sorted(chosen)]


def save_vars(executor, dirname, main_program=None, vars=None, predicate=None, filename=None):
    """Write scope variables to `dirname`: `vars`, else those of `main_program` that
    `predicate` keeps (default: the persistables).

    Example:
        >>> pyir.static.save_vars(exe, "ck", main, filename="all.params")
    """
    chosen = _chosen(main_program, vars, predicate, "save_vars")
    scope = global_scope()
    values = {}
    for var in chosen:
        found = scope.find_var(var.name)
        if found is None or not found.is_initialized():
            raise PyirError(f"save_vars: {var.name!r} has no value in the scope; run the "
                            f"startup program first", Where(var=var.name))
        values[var.name] = np.array(found.get_tensor())
    os.makedirs(dirname, exist_ok=True)
    if filename is not None:
        atomic_write(os.path.join(dirname, filename), encode_params(values))
        return
    for name, value in values.items():
        path = os.path.join(dirname, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        atomic_write(path, encode_record(value))


def load_vars(executor, dirname, main_program=None, vars=None, predicate=None, filename=None):
    """Read variables written by `save_vars` into the global scope, checking shapes.

    Example:
        >>> pyir.static.load_vars(exe, "ck", main, filename="all.params")
    """
    chosen = _chosen(main_program, vars, predicate, "load_vars")
    names = [v.name for v in chosen]
    if filename is not None:
        path = os.path.join(dirname, filename)
        if not os.path.isfile(path):
            raise FormatError("no such file", Where(file=path))
        with open(path, "rb") as f:
            records = decode_params(f.read(), names, path)
    else:
        records = {}
        for name in names:
            path = os.path.join(dirname, name)
            if not os.path.isfile(path):
                raise FormatError(f"no file for variable {name!r}", Where(file=path))
            with open(path, "rb") as f:
                records.update(decode_params(f.read(), [name], path))
    scope = global_scope()
    for var in chosen:
        array = records[var.name].array
        if var.shape is not None and (len(var.shape) != array.ndim or any(
                d not in (-1, a) for d, a in zip(var.shape, array.shape))):
            raise FormatError(f"holds shape {list(array.shape)} for {var.name!r}, which the "
                              f"program declares {list(var.shape)}", Where(var=var.name))
        scope.var(var.name).get_tensor().set(array)


__all__ = ["save_vars", "load_vars"]
