"""`py_func`: build an op that runs a Python callable (`paddle.static.py_func`, seeds 000/003).

The op and its checks live in `pyir/ops/py_func.py`; references and registration in
`pyir/callables.py`.
"""

from __future__ import annotations

from typing import Callable

from . import callables
from .builder import emit
from .errors import BuildError, Where
from .framework import Variable, default_main_program


def py_func(func: Callable, x, out, backward_func: Callable | None = None,
            skip_vars_in_backward_input=None):
    """Add an op computing `out = func(*x)` with numpy; `backward_func` gives x's gradients.

    Args:
        func: called as `func(*inputs)` with numpy arrays; returns an array, a tuple/list of
            them, or None. Any callable works in process; to save the program to a file it
            must be registered (`@pyir.register`).
        x: a Variable or a list/tuple of them (may be empty).
        out: a Variable, a list/tuple of them, or None (an op with no output, e.g. a debug
            print, which still runs). Create them beforehand with name, dtype and shape.
        backward_func: called with the forward inputs, the forward outputs and the outputs'
            gradients (None where one does not exist), minus `skip_vars_in_backward_input`;
            returns one gradient per forward input (None for an input without gradient).
        skip_vars_in_backward_input: Variable(s) of `x` or `out` that `backward_func` does
            not receive.

    Returns:
        `out`, as given.

    Example:
        >>> y = block.create_var(name="y", dtype="float32", shape=[-1, 4])
        >>> pyir.static.py_func(np.tanh, x, y, backward_func=tanh_grad,
        ...                     skip_vars_in_backward_input=x)
    """
    block = default_main_program().current_block()
    where = Where(block=block.idx, op_type="py_func")
    xs = _variables(x, "x", where)
    outs = _variables(out, "out", where)
    _check_callable(func, "func", where)
    if backward_func is not None:
        _check_callable(backward_func, "backward_func", where)
    skip = _skip_names(skip_vars_in_backward_input, xs, outs, where) \
        if backward_func is not None else []
    attrs = {"forward_callable": callables.reference_for(func),
             "backward_callable": "" if backward_func is None
             else callables.reference_for(backward_func),
             "backward_skip_vars": skip}
    emit("py_func", inputs={"X": xs}, outputs={"Out": outs}, attrs=attrs, block=block)
    return out


def _variables(value, arg: str, where: Where) -> list[Variable]:
    if value is None:
        return []
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    for item in items:
        if not isinstance(item, Variable):
            raise BuildError(f"py_func's {arg} must be a Variable or a list/tuple of Variables, "
                             f"got {type(item).__name__}; create outputs with "
                             f"block.create_var(name=..., dtype=..., shape=...)", where)
    return items


def _check_callable(fn, arg: str, where: Where) -> None:
    if not callable(fn):
        raise BuildError(f"py_func's {arg} must be callable, got {type(fn).__name__}", where)


def _skip_names(skip, xs: list, outs: list, where: Where) -> list[str]:
    """Names of the skip vars, each of which must be a forward input or output."""
    allowed = [v.name for v in xs] + [v.name for v in outs]
    names = []
    for item in [] if skip is None else skip if isinstance(skip, (list, tuple)) else [skip]:
        name = item.name if isinstance(item, Variable) else item
        if name not in allowed:
            raise BuildError(f"skip_vars_in_backward_input names {name!r}, which is neither an "
                             f"input nor an output of this py_func (those are: "
                             f"{', '.join(allowed) or 'none'})", where.with_(var=str(name)))
        if name not in names:
            names.append(name)
    return names
