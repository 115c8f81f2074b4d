"""`pylayer` / `pylayer_grad`: a custom layer whose forward and backward are sub-blocks.

Layout (Paddle's, docs/wire-format.md §4): `pylayer` takes `Input` (duplicable), writes `Out`
(duplicable) and `Scope` (one STEP_SCOPES variable), and holds `blocks = [forward, backward]`
(just `[forward]` when there is no backward). `pylayer_grad` takes `Input`, `Out@GRAD` and
`Scope`, writes `Input@GRAD`, and holds `backward_block`.

Run time: the forward kernel runs the forward block's plan on its inputs and returns the outputs
plus a `StepScope` (Paddle's step scope): the forward values its backward block reads. The
grad kernel runs the backward block over that step scope, the inputs and the output gradients
(`<Out>@GRAD`, zeros where none flowed back) and returns `<Input>@GRAD` by position.
Both plans are compiled once, by the `prepare` hooks, through the ordinary plan machinery.
"""

from __future__ import annotations

import numpy as np

from ..errors import CheckError, GradError, KernelError, Where
from ..framework import Block, Operator
from ..registry import REQUIRED, Attr, GradOp, Slot, VarSpec, register_op
from ..registry import AttrType as T
from ._helpers import EMPTY_VAR, grad_name


# --- sub-block analysis (shared with the builder in pyir/pylayer.py) -------------------------
def sub_blocks(op: Operator) -> list[Block]:
    """The blocks an op holds through BLOCK / BLOCKS attributes, in attribute order."""
    return [op.block.program.blocks[i] for i in op.sub_block_ids()]


def block_reads(block: Block) -> list[str]:
    """Names the block reads before writing them: its free variables, in first-read order.

    Reads of an op's sub-blocks count too, except names the sub-block declares itself (or its
    forward block, for a gradient block) and the op's own outputs and their gradients (a pylayer's backward block gets those from the op).
    """
    written: set[str] = set()
    reads: dict[str, None] = {}
    for op in block.ops:
        names = list(op.input_arg_names)
        given = set(op.output_arg_names) | {grad_name(n) for n in op.output_arg_names}
        for sub in sub_blocks(op):
            names += [n for n in block_reads(sub) if n not in given and not _own(sub, n)]
        for name in names:
            if name not in written and name != EMPTY_VAR:
                reads[name] = None
        written.update(op.output_arg_names)
    return list(reads)


def _own(block: Block, name: str) -> bool:
    """Whether `name` is the block's own: declared in it or, for a gradient block, in its
    forward block (values its op takes from the forward run, not from outside)."""
    if name in block.vars:
        return True
    fwd = block.forward_block_idx
    blocks = block.program.blocks
    return fwd is not None and 0 <= fwd < len(blocks) and name in blocks[fwd].vars


def block_writes(block: Block) -> set[str]:
    """Names the ops of the block write."""
    return {n for op in block.ops for n in op.output_arg_names if n != EMPTY_VAR}


def _persistable(block: Block, name: str) -> bool:
    var = block.find_var(name)
    return var is not None and var.persistable


class StepScope:
    """One forward run of a pylayer: the values its backward block may read, by name."""

    __slots__ = ("values", "out_names")

    def __init__(self, values: dict, out_names: tuple):
        self.values = values
        self.out_names = out_names

    def __repr__(self) -> str:
        return f"StepScope({', '.join(self.values)})"


def _holder(step: StepScope) -> np.ndarray:
    """A STEP_SCOPES value: a 0-d object array, so it travels through the plan like a tensor."""
    box = np.empty((), dtype=object)
    box[()] = step
    return box


# --- pylayer ---------------------------------------------------------------------------------
def _blocks_of(op: Operator, where) -> list[int]:
    blocks = list(op.attr("blocks") or [])
    if not blocks:
        raise CheckError("pylayer has an empty `blocks` attribute: it needs its forward block",
                         where)
    return blocks


def _prepare_pylayer(op: Operator, ctx) -> dict:
    """Compile the forward block; keep the outputs and what the backward block will read."""
    blocks = _blocks_of(op, ctx.where)
    program = ctx.program
    forward = program.blocks[blocks[0]]
    out_names = tuple(op.output("Out"))
    missing = [n for n in out_names if n not in block_writes(forward)]
    if missing:
        raise CheckError(f"output {missing[0]!r} is never written by the forward block "
                         f"{forward.idx}", ctx.where.with_(var=missing[0]))
    keep = list(out_names)
    if len(blocks) > 1:
        produced = block_writes(forward)
        keep += [n for n in block_reads(program.blocks[blocks[1]])
                 if n in produced and n not in keep]
    in_names = tuple(dict.fromkeys(op.input("Input")))
    plan = ctx.compile_block(forward.idx, in_names, tuple(keep))
    return {"plan": plan, "input_names": tuple(op.input("Input")), "out_names": out_names,
            "keep_names": tuple(keep)}


def _pylayer_grad_maker(op: Operator, opdef) -> list[GradOp]:
    """`pylayer_grad` running the backward block; no gradient for inputs it does not compute."""
    blocks = list(op.attr("blocks") or [])
    ins = op.input("Input")
    if len(blocks) < 2:
        needy = [n for n in ins if (v := op.block.find_var(n)) is not None and
                 not v.stop_gradient]
        if needy:
            raise GradError(
                f"this pylayer has no backward block (static_pylayer was called without "
                f"backward_fn, or the program was saved as an inference model, which drops "
                f"backward blocks), but its input {needy[0]!r} needs a gradient: build it with "
                f"a backward_fn and save the program whole, or set {needy[0]}.stop_gradient = "
                f"True to treat it as a constant", op.where().with_(var=needy[0]))
        return []
    backward = op.block.program.blocks[blocks[1]]
    computed = block_writes(backward)
    in_grads = [grad_name(n) if grad_name(n) in computed else EMPTY_VAR for n in ins]
    if all(g == EMPTY_VAR for g in in_grads):
        return []
    return [GradOp("pylayer_grad",
                   {"Input": list(ins), "Out@GRAD": [grad_name(n) for n in op.output("Out")],
                    "Scope": list(op.output("Scope"))},
                   {"Input@GRAD": in_grads},
                   {"backward_block": blocks[1], "skip_eager_deletion_vars": []})]


@register_op(
    "pylayer",
    inputs=[Slot("Input", duplicable=True, dispensable=True)],
    outputs=[Slot("Out", duplicable=True, dispensable=True), Slot("Scope")],
    attrs=[Attr("blocks", T.BLOCKS, REQUIRED),
           Attr("skip_eager_deletion_vars", T.STRINGS, [], extra=True)],
    grad=_pylayer_grad_maker,
    runtime=("plan", "input_names", "out_names", "keep_names", "scope_vars"),
    prepare=_prepare_pylayer,
    doc="Out = forward_block(Input); Scope keeps what backward_block reads",
)
def pylayer(Input, blocks, skip_eager_deletion_vars, plan, input_names, out_names, keep_names,
            scope_vars):
    unset = [n for n, v in zip(input_names, Input) if v is None]
    if unset:
        raise KernelError(f"input {unset[0]!r} has no value: it is neither fed nor computed "
                          f"before the pylayer", Where(var=unset[0]))
    feed = dict(zip(input_names, Input))
    values = dict(zip(keep_names, plan.execute_nested(feed, scope_vars)))
    step = StepScope(values, out_names)
    return {"Out": [values[n] for n in out_names], "Scope": _holder(step)}


# --- pylayer_grad ----------------------------------------------------------------------------
def _prepare_pylayer_grad(op: Operator, ctx) -> dict:
    """Compile the backward block: it reads the step scope, inputs and output gradients."""
    backward = ctx.program.blocks[op.attr("backward_block")]
    feeds = tuple(n for n in block_reads(backward) if not _persistable(backward, n))
    computed = block_writes(backward)
    in_names = tuple(op.input("Input"))
    results = tuple(grad_name(n) if grad_name(n) in computed else None for n in in_names)
    plan = ctx.compile_block(backward.idx, feeds, tuple(r for r in results if r))
    return {"plan": plan, "input_names": in_names, "result_names": results,
            "given": tuple(n != EMPTY_VAR for n in op.input("Out@GRAD")),
            "wanted": tuple(n != EMPTY_VAR for n in op.output("Input@GRAD")),
            "where": ctx.where}


def _infer_pylayer_grad(ctx):
    return {"Input@GRAD": [VarSpec(s.shape, s.dtype) for s in ctx.input_list("Input")]}


@register_op(
    "pylayer_grad",
    inputs=[Slot("Input", duplicable=True, dispensable=True),
            Slot("Out@GRAD", duplicable=True, dispensable=True), Slot("Scope")],
    outputs=[Slot("Input@GRAD", duplicable=True, dispensable=True)],
    attrs=[Attr("backward_block", T.BLOCK, REQUIRED),
           Attr("skip_eager_deletion_vars", T.STRINGS, [])],
    infer=_infer_pylayer_grad,
    runtime=("plan", "input_names", "result_names", "given", "wanted", "where", "scope_vars"),
    prepare=_prepare_pylayer_grad,
    grad_of="pylayer",
    doc="Input@GRAD = backward_block(Out@GRAD) over the forward run's step scope",
)
def pylayer_grad(Input, Out_grad, Scope, backward_block, skip_eager_deletion_vars, plan,
                 input_names, result_names, given, wanted, where, scope_vars):
    step: StepScope = Scope.item()
    env = dict(step.values)
    env.update(zip(input_names, Input))
    grads = [g if ok else None for g, ok in zip(Out_grad or (), given)]
    grads += [None] * (len(step.out_names) - len(grads))
    for name, grad in zip(step.out_names, grads):
        # An output no gradient flowed back to contributes zeros, as Paddle materializes it.
        env[grad_name(name)] = np.zeros_like(step.values[name]) if grad is None else grad
    missing = [n for n in plan.feeds if n not in env]
    if missing:
        raise KernelError(f"the backward block reads {missing[0]!r}, which is neither an input "
                          f"of the pylayer, an output gradient, nor computed by its forward "
                          f"block", where.with_(var=missing[0]))
    env = dict(zip(plan.fetches, plan.execute_nested(env, scope_vars)))
    grads = []
    for x, result, want in zip(Input, result_names, wanted):
        grads.append(None if not want else np.zeros_like(x) if result is None else env[result])
    return {"Input@GRAD": grads}
