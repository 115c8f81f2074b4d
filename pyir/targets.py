"""A program's inputs and outputs when nobody names them: what `pyir build`, `pyir run`,
`pyir grad` and `load_model` fall back to.

    default_feed_names(program)     feed targets by `col`, else the `data` variables
    default_fetch_names(program)    fetch targets by `col`, else default_outputs
    default_outputs(program)        the variables some op writes and no op reads
"""

from __future__ import annotations

from . import registry
from .builder import ROLE_BACKWARD
from .framework import FEED_MINIBATCH, FETCH_LIST, Program
from .plan import io_targets


def default_feed_names(program: Program) -> list[str]:
    """The inputs: feed targets by `col`, else the `data` variables (need_check_feed).

    Example:
        >>> default_feed_names(main)         # an MLP: ['x']
    """
    return io_targets(program, "feed") or [
        v.name for v in program.global_block().vars.values() if v.need_check_feed]


def default_fetch_names(program: Program) -> list[str]:
    """The outputs: fetch targets by `col`, else `default_outputs`.

    Example:
        >>> default_fetch_names(main)        # an MLP: ['fc_1.tmp_2']
    """
    return io_targets(program, "fetch") or default_outputs(program)


def default_outputs(program: Program) -> list[str]:
    """What a model computes: the non-persistable global variables some op writes and no op
    (in any block) reads, in the order they are written, without the side outputs of forward
    ops (a leaf whose sibling outputs are read: unsqueeze2's XShape, the Softmax of
    softmax_with_cross_entropy, a dropout Mask). Gradients written by backward ops stay.

    Example:
        >>> default_outputs(main)            # an MLP: ['fc_1.tmp_2']
    """
    read = {n for b in program.blocks for op in b.ops for n in op.input_arg_names}
    block = program.global_block()
    found: dict[str, None] = {}
    for op in block.ops:
        opdef = registry.lookup(op.type)
        if opdef is not None and opdef.io is not None:
            continue
        outs = [n for n in op.output_arg_names if n in block.vars]
        if not int(op.attrs.get("op_role", 0)) & ROLE_BACKWARD and any(n in read for n in outs):
            continue  # its result is used further on: its unread outputs are side outputs
        for name in outs:
            var = block.vars[name]
            if name not in read and not var.persistable and var.type not in (FEED_MINIBATCH,
                                                                               FETCH_LIST):
                found[name] = None
    return list(found)


__all__ = ["default_feed_names", "default_fetch_names", "default_outputs"]
