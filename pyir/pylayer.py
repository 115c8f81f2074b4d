"""`static_pylayer`: build a `pylayer` op whose forward and backward are sub-blocks.

The layout is Paddle's (docs/wire-format.md §4):

    block P   pylayer(Input=[x...]) -> Out=[_generated_var_i...], Scope=[_generated_var_j]
              attrs: blocks = [F, B]
    block F   (parent P) forward_fn's ops, then assign(result) -> _generated_var_i
    block B   (parent P, forward_block_idx F, every op op_role=1)
              assign(<Out>@GRAD) -> local; backward_fn's ops; its results renamed (or
              assigned) to <Input>@GRAD by position

As in Paddle, `<Out>@GRAD` is not declared by the forward program: the backward pass declares
it in block P when it appends `pylayer_grad` (the checker knows backward blocks name such
gradients early).

The sub-blocks run on their inputs, the outputs' gradients, the forward block's own values and
persistable variables. A sub-block that reads any other variable of an enclosing block is
refused here, because the ops of the enclosing block do not keep such values alive for it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .builder import ROLE_BACKWARD, emit, op_role
from .errors import BuildError, Where
from .framework import STEP_SCOPES, Block, Variable, default_main_program
from .ops._helpers import grad_name
from .ops.pylayer import block_reads, block_writes, sub_blocks
from .registry import AttrType


def flatten(structure) -> list:
    """The leaves of nested lists/tuples/dicts, in order (a dict's in sorted key order, as
    Paddle's nest utilities order them)."""
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in flatten(structure[key])]
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in flatten(item)]
    return [structure]


def map_structure(fn: Callable, structure):
    """Apply `fn` to every leaf, keeping the list/tuple/dict nesting."""
    if isinstance(structure, dict):
        return {key: map_structure(fn, value) for key, value in structure.items()}
    if isinstance(structure, (list, tuple)):
        return type(structure)(map_structure(fn, item) for item in structure)
    return fn(structure)


class StaticPyLayerError(BuildError, ValueError):
    """static_pylayer's arguments do not fit together (Paddle raises ValueError)."""


def static_pylayer(forward_fn: Callable, inputs: list, backward_fn: Callable | None = None,
                   name: str | None = None) -> Any:
    """Return `forward_fn(*inputs)` built into a sub-block held by a `pylayer` op.

    `backward_fn`, if given, receives one gradient Variable per Variable output of
    `forward_fn` and returns one gradient (or None for "no gradient") per Variable in
    `inputs`, each with its input's dtype and shape; it is built into a second sub-block that
    the backward pass runs through `pylayer_grad`.

    Without `backward_fn` the layer has no gradient, so every Variable in `inputs` must have
    `stop_gradient=True`; otherwise this raises (as Paddle does), naming the input.

    Args:
        forward_fn: builds the forward ops; returns a Variable or a list/tuple of them.
        inputs: the list of inputs passed to `forward_fn` (non-Variables pass through).
        backward_fn: builds the backward ops from the output gradients, or None.
        name: accepted for Paddle compatibility; unused.

    Returns:
        forward_fn's result, with each Variable replaced by the pylayer's output.

    Example:
        >>> y = pyir.static.nn.static_pylayer(lambda x: pyir.exp(x), [x],
        ...                                   lambda dy: 2 * pyir.exp(dy))
    """
    _check_arguments(forward_fn, inputs, backward_fn)
    program = default_main_program()
    parent = program.current_block()
    var_inputs = [v for v in inputs if isinstance(v, Variable)]
    with program.sub_block(parent.idx) as forward:
        result = forward_fn(*inputs)
        output = map_structure(lambda v: _copy_out(v, parent), result)
    outs = [v for v in flatten(output) if isinstance(v, Variable)]
    _check_reads(forward, "forward_fn", {v.name for v in var_inputs})
    scope = parent.create_var(type=STEP_SCOPES)
    blocks = [forward.idx]
    if backward_fn is not None:
        backward = _build_backward(program, parent, forward, backward_fn, var_inputs, outs)
        blocks.append(backward.idx)
    emit("pylayer", {"Input": var_inputs}, {"blocks": blocks},
         outputs={"Out": outs, "Scope": scope}, block=parent)
    return output


def _check_arguments(forward_fn, inputs, backward_fn) -> None:
    if not callable(forward_fn):
        raise BuildError(f"static_pylayer: forward_fn must be callable, got "
                         f"{type(forward_fn).__name__}")
    if backward_fn is not None and not callable(backward_fn):
        raise BuildError(f"static_pylayer: backward_fn must be callable or None, got "
                         f"{type(backward_fn).__name__}")
    if not isinstance(inputs, (list, tuple)):
        raise BuildError(f"static_pylayer: inputs must be a list of Variables, got "
                         f"{type(inputs).__name__}")
    if any(type(v).__name__ == "Tensor" for v in inputs):
        raise BuildError("static_pylayer builds a static program and got an eager Tensor; in "
                         "eager mode subclass pyir.autograd.PyLayer instead")
    if backward_fn is None:
        for v in inputs:
            if isinstance(v, Variable) and not v.stop_gradient:
                raise StaticPyLayerError(
                    f"static_pylayer without backward_fn has no gradient, but input {v.name!r} "
                    f"has stop_gradient=False (``stop_gradient`` attr of all inputs to "
                    f"``forward_fn`` are expected to be True, when ``backward_fn == None``): "
                    f"pass a backward_fn, or set {v.name}.stop_gradient = True to treat it "
                    f"as a constant", Where(var=v.name))
    else:
        names = [v.name for v in inputs if isinstance(v, Variable)]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise BuildError(f"static_pylayer: input {twice[0]!r} is passed twice; with a "
                             f"backward_fn each input gets one gradient, so pass it once",
                             Where(var=twice[0]))


def _copy_out(value, parent: Block):
    """A forward result, copied into a new variable of the parent block (Paddle's layout)."""
    if not isinstance(value, Variable):
        return value
    out = parent.create_var(None, value.dtype, value.shape)
    emit("assign", {"X": value}, outputs={"Out": out})
    return out


def _check_reads(block: Block, fn_name: str, allowed: set) -> None:
    """Refuse sub-blocks reading non-persistable variables they are not given."""
    for name in block_reads(block):
        var = block.find_var(name)
        if name in allowed or (var is not None and var.persistable):
            continue
        raise BuildError(
            f"{fn_name} reads variable {name!r} of an enclosing block, which the pylayer is not "
            f"given: a pylayer's blocks see only its inputs (and, in the backward block, its "
            f"outputs, their gradients and the forward block's values) plus parameters; pass "
            f"{name!r} in `inputs`", Where(block=block.idx, var=name))


def _build_backward(program, parent: Block, forward: Block, backward_fn, var_inputs: list,
                    outs: list) -> Block:
    with program.sub_block(parent.idx) as backward, op_role(ROLE_BACKWARD):
        backward.forward_block_idx = forward.idx
        grads = []
        for out in outs:
            # Not added to any block: the backward pass declares it (Paddle's layout).
            out_grad = Variable(parent, grad_name(out.name), out.dtype, out.shape)
            local = backward.create_var(None, out.dtype, out.shape)
            emit("assign", {"X": out_grad}, outputs={"Out": local})
            grads.append(local)
        results = backward_fn(*grads)
        _bind_results(backward, results, var_inputs)
    for op in backward.ops:
        op.attrs["op_role"], op.attr_types["op_role"] = ROLE_BACKWARD, AttrType.INT
    allowed = {v.name for v in var_inputs} | {v.name for v in outs} | block_writes(forward)
    _check_reads(backward, "backward_fn", allowed | {grad_name(v.name) for v in outs})
    return backward


def _bind_results(backward: Block, results, var_inputs: list) -> None:
    """Check backward_fn's results against the inputs; name each one `<input>@GRAD`."""
    flat = [r for r in flatten(results) if r is None or isinstance(r, Variable)]
    if len(flat) != len(var_inputs):
        names = ", ".join(v.name for v in var_inputs)
        raise BuildError(f"backward_fn returned {len(flat)} gradient(s), but forward_fn has "
                         f"{len(var_inputs)} Variable input(s) ({names}): return one gradient "
                         f"per input, in order (None for an input without gradient)",
                         Where(block=backward.idx))
    for position, (grad, x) in enumerate(zip(flat, var_inputs)):
        if grad is None:
            continue
        _check_like(grad, x, position, backward)
        target = grad_name(x.name)
        if _renamable(backward, grad.name):
            _rename(backward, grad.name, target)
        elif grad.name != target:
            out = backward.create_var(target, x.dtype, x.shape)
            emit("assign", {"X": grad}, outputs={"Out": out})


def _renamable(block: Block, name: str) -> bool:
    """A result Paddle renames in place: a local of the block written by one plain op (not a
    value from outside, not a result already renamed, not the output of a sub-block op)."""
    writers = [op for op in block.ops if name in op.output_arg_names]
    return (name in block.vars and not name.endswith("@GRAD") and len(writers) == 1
            and not sub_blocks(writers[0]))


def _check_like(grad: Variable, x: Variable, position: int, backward: Block) -> None:
    where = Where(block=backward.idx, var=grad.name)
    if grad.dtype != x.dtype:
        raise BuildError(f"backward_fn's gradient #{position} ({grad.name}) is {grad.dtype}, but "
                         f"input {x.name!r} is {x.dtype}: a gradient has its input's dtype "
                         f"(cast it)", where)
    if grad.shape is not None and x.shape is not None and (
            len(grad.shape) != len(x.shape) or
            any(g != s and -1 not in (g, s) for g, s in zip(grad.shape, x.shape))):
        raise BuildError(f"backward_fn's gradient #{position} ({grad.name}) has shape "
                         f"{list(grad.shape)}, but input {x.name!r} has shape {list(x.shape)}: "
                         f"a gradient has its input's shape", where)


def _rename(block: Block, old: str, new: str) -> None:
    """Rename variable `old` of `block` to `new`, in its ops and their sub-blocks."""
    var = block.vars[old]
    block.remove_var(old)
    var.name = new
    block.add_var(var)
    _rename_uses(block, old, new)


def _rename_uses(block: Block, old: str, new: str) -> None:
    for op in block.ops:
        for slots in (op.inputs, op.outputs):
            for slot, names in slots.items():
                slots[slot] = [new if n == old else n for n in names]
        for sub in sub_blocks(op):
            if old not in sub.vars:
                _rename_uses(sub, old, new)


__all__ = ["static_pylayer"]
