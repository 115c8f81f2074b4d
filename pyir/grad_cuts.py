"""Ops that cut the backward pass: a py_func without backward_func between a trainable value
and the loss passes no gradient, so what lies before it is silently not trained. The backward
pass (pyir/backward.py) calls `warn_about_cuts` after making its grad ops; Paddle users expect
to hear about it, naming the op and its callable.
"""

from __future__ import annotations

import warnings

from .callables import op_references
from .framework import Block
from .registry import grad_name as grad_var_name


class GradientCutWarning(UserWarning):
    """An op on the way from a trainable value to the loss has no backward (a py_func without
    backward_func): no gradient passes it, so what lies before it is not trained."""


def warn_about_cuts(block: Block, ops: list, entries: list, produced: set,
                     no_grad: set) -> None:
    """Warn about each op that a gradient reaches but that passes none on (its rule made no
    grad op) while an input of it depends on a trainable value: everything upstream of it
    silently gets no gradient through it."""
    passed = {id(e.forward) for e in entries}
    stopped = [op for op in ops if id(op) not in passed
               and any(grad_var_name(n) in produced for n in op.output_arg_names)]
    if not stopped:
        return  # the common case: no walk of the block for nothing
    trainable = depends_on_trainable(block, no_grad)
    for op in stopped:
        cut = [n for n in op.input_arg_names if n in trainable]
        if cut:
            fn = next((ref for role, ref in op_references(op) if role == "forward"), None)
            what = f"op #{op.idx} {op.type}" + (f" (callable {fn!r})" if fn else "")
            warnings.warn(GradientCutWarning(
                f"{what} has no backward, so no gradient flows through it to "
                f"{', '.join(map(repr, cut))} and what they are computed from; give it a "
                f"backward (py_func's backward_func, a pylayer backward_fn) or this part is "
                f"not trained"), stacklevel=4)


def depends_on_trainable(block: Block, no_grad: set) -> set:
    """Names in `block` computed (through any op) from a trainable parameter or from a
    variable with stop_gradient=False that no op writes."""
    written = {n for op in block.ops for n in op.output_arg_names}
    reached = {v.name for v in block.vars.values()
               if grad_var_name(v.name) not in no_grad and v.name not in written}
    for op in block.ops:
        if any(n in reached for n in op.input_arg_names):
            reached.update(n for n in op.output_arg_names
                           if grad_var_name(n) not in no_grad)
    return reached


__all__ = ["GradientCutWarning", "warn_about_cuts", "depends_on_trainable"]
