"""Differentiating a whole program (what `pyir grad` and the gradient check do): which output
is the loss and which variables get gradients when nobody says, then the backward pass.

    differentiate(program, loss=None, wrt=None)
      +-- default_loss       the single scalar float output
      +-- default_wrt        trainable parameters + float inputs with stop_gradient=False
      +-- backward_of_loss   (backward.py) the ops appended; other leaves get no gradient
"""

from __future__ import annotations

import math

from . import dtypes
from .backward import backward_of_loss
from .errors import GradError, Where
from .framework import Block, Program, Variable
from .targets import default_feed_names, default_fetch_names


def differentiate(program: Program, loss: str | None = None, wrt=None,
                  ) -> tuple[str, list[tuple[str, str]]]:
    """Append the backward of `loss` w.r.t. `wrt` to `program` (what `pyir grad` does).

    Args:
        loss: the scalar's name; default: `default_loss(program)`.
        wrt: names to differentiate against (their stop_gradient is cleared); default:
            `default_wrt(program)`. Other parameters and inputs get no gradient.

    Returns:
        (loss name, [(name, gradient name)] in `wrt` order).

    Example:
        >>> loss, grads = differentiate(program, wrt=["fc_0.w_0", "x"])
    """
    block = program.global_block()
    loss = loss or default_loss(program)
    loss_var = _find(block, loss, "loss")
    wrt = list(wrt) if wrt else default_wrt(program)
    for name in wrt:
        _find(block, name, "--wrt variable").stop_gradient = False
    others = [n for n in _leaves(program) if n not in wrt]
    grads = backward_of_loss(loss_var, others)
    missing = [n for n in wrt if n not in grads]
    if missing:
        raise GradError(f"no gradient of {loss!r} reaches {', '.join(map(repr, missing))}: it "
                        f"does not depend on them, or only through an op that has no backward; "
                        f"leave them out of --wrt",
                        Where(file=program.source, var=missing[0]))
    return loss, [(n, grads[n]) for n in wrt]


def default_loss(program: Program) -> str:
    """The program's single scalar float output: among its fetch targets, else among the
    variables no op reads."""
    block = program.global_block()
    outputs = default_fetch_names(program)
    scalars = [n for n in outputs if (v := block.find_var(n)) is not None and v.dtype is not None
               and dtypes.is_float(v.dtype) and v.shape is not None
               and math.prod(v.shape) == 1 and not v.persistable]
    if len(scalars) != 1:
        found = (f"several scalar outputs could be ({', '.join(scalars)})" if scalars else
                 f"no output is a float scalar (outputs: {', '.join(outputs[:8]) or 'none'})")
        raise GradError(f"cannot tell which output is the loss: {found}; name it with --loss",
                        Where(file=program.source))
    return scalars[0]


def default_wrt(program: Program) -> list[str]:
    """Every trainable parameter and every float input whose stop_gradient=False is recorded.

    A Paddle inference file does not record `is_parameter`/`stop_gradient`, so there every
    persistable float tensor counts as a parameter, and an input whose flag is not written
    keeps `data`'s default, stop_gradient=True (docs/saving.md, "stop_gradient").
    """
    block = program.global_block()
    feeds = default_feed_names(program)
    inputs = [n for n in feeds if (v := block.find_var(n)) is not None
              and v._flags.get("stop_gradient") is False
              and v.dtype is not None and dtypes.is_float(v.dtype)]
    params = [n for n in _persistable_floats(program) if not block.var(n).stop_gradient]
    return params + inputs


def _leaves(program: Program) -> list[str]:
    """Variables of the global block that no op writes: parameters and inputs."""
    block = program.global_block()
    written = {n for op in block.ops for n in op.output_arg_names}
    return [n for n in block.vars if n not in written]


def _persistable_floats(program: Program) -> list[str]:
    block = program.global_block()
    read = {n for op in block.ops for n in op.input_arg_names}
    return [v.name for v in block.vars.values() if v.persistable and v.name in read
            and v.dtype is not None and dtypes.is_float(v.dtype)]


def _find(block: Block, name: str, what: str) -> Variable:
    var = block.find_var(name)
    if var is None:
        floats = [v.name for v in block.vars.values()
                  if v.dtype is not None and dtypes.is_float(v.dtype)]
        raise GradError(f"no {what} {name!r} in the program (float variables: "
                        f"{', '.join(floats[:12])}{', ...' if len(floats) > 12 else ''})",
                        Where(file=block.program.source, var=name))
    return var


__all__ = ["differentiate", "default_loss", "default_wrt"]
