"""Control flow ops in Paddle's legacy layout (docs/wire-format.md §6): `conditional_block`
(run a sub-block when a condition holds), `select_input` / `select_output` (pick a branch's
value by an int32 mask) and `while` (run a sub-block while a condition variable is true).

Sub-blocks run through the plan machinery, as pylayer's do: `prepare` compiles the sub-block
once (its feeds are the values it reads from enclosing blocks, its fetches the enclosing
variables it writes), and the kernel executes that plan with the running scope
(`scope_vars`). A branch that does not run leaves its outputs as empty placeholders of their
declared dtype; `select_input` only ever reads the branch that ran.
"""

from __future__ import annotations

import numpy as np

from ..errors import CheckError, GradError, KernelError, Where
from ..framework import Operator
from ..registry import REQUIRED, Attr, Example, Slot, VarSpec, register_op
from ..registry import AttrType as T
from .pylayer import StepScope, _holder, block_reads


def _placeholder(dtype) -> np.ndarray:
    """What a branch that did not run leaves in its outputs."""
    return np.zeros((0,), dtype=dtype if dtype is not None else np.float32)


def _declared_dtypes(op: Operator, names) -> tuple:
    dts = []
    for name in names:
        var = op.block.find_var(name)
        dts.append(None if var is None else var.dtype)
    return tuple(dts)


def _sub_block_feeds(op: Operator, ctx, given: set) -> tuple:
    """The non-persistable names the op's sub-block reads from outside; each must be among
    the values the op is given."""
    sub = ctx.program.blocks[op.attr("sub_block")]
    feeds = []
    for name in block_reads(sub):
        var = sub.find_var(name)
        if var is not None and var.persistable:
            continue
        if name not in given:
            raise CheckError(f"the sub-block {sub.idx} of {op.type} reads {name!r}, which the "
                             f"op is not given as an input: list it in the op's inputs",
                             ctx.where.with_(var=name))
        feeds.append(name)
    return tuple(feeds)


def _no_gradient_yet(op: Operator, opdef):
    """Control flow is differentiable in principle; refuse rather than drop the gradient."""
    raise GradError(f"gradients through {op.type} (cond / while_loop) are not supported by "
                    f"pyir yet: set stop_gradient=True on the inputs of the branch or loop, or "
                    f"differentiate in eager mode, where cond and while_loop are Python control "
                    f"flow", op.where())


def _truth(value, where: Where, what: str) -> bool:
    array = np.asarray(value)
    if array.size != 1:
        raise KernelError(f"{what} must hold exactly one value, got shape {list(array.shape)}",
                          where)
    return bool(array.reshape(()))


# --- conditional_block ---------------------------------------------------------------------
def _prepare_conditional_block(op: Operator, ctx) -> dict:
    in_names = tuple(op.input("Input"))
    out_names = tuple(op.output("Out"))
    feeds = _sub_block_feeds(op, ctx, set(in_names))
    plan = ctx.compile_block(op.attr("sub_block"), feeds, out_names)
    return {"plan": plan, "input_names": in_names, "out_dtypes": _declared_dtypes(op, out_names),
            "where": ctx.where}


@register_op(
    "conditional_block",
    inputs=[Slot("Cond", duplicable=True), Slot("Input", duplicable=True, dispensable=True)],
    outputs=[Slot("Out", duplicable=True, dispensable=True), Slot("Scope")],
    attrs=[Attr("sub_block", T.BLOCK, REQUIRED), Attr("is_scalar_condition", T.BOOLEAN, False),
           Attr("skip_eager_deletion_vars", T.STRINGS, [], extra=True)],
    runtime=("plan", "input_names", "out_dtypes", "where", "scope_vars"),
    prepare=_prepare_conditional_block,
    grad=_no_gradient_yet,
    doc="Out = sub_block(Input) if Cond holds (one true scalar, or every Cond non-empty)",
)
def conditional_block(Cond, Input, sub_block, is_scalar_condition, skip_eager_deletion_vars,
                      plan, input_names, out_dtypes, where, scope_vars):
    if is_scalar_condition:
        run = _truth(Cond[0], where, "the condition of conditional_block")
    else:
        run = all(np.asarray(c).size > 0 for c in Cond)
    if not run:
        outs = [_placeholder(dt) for dt in out_dtypes]
        return {"Out": outs, "Scope": _holder(StepScope({}, ()))}
    given = dict(zip(input_names, Input or ()))
    outs = plan.execute({name: given[name] for name in plan.feeds}, scope_vars)
    return {"Out": outs, "Scope": _holder(StepScope(dict(zip(plan.fetches, outs)), ()))}


# --- select_input / select_output ----------------------------------------------------------
def _mask_index(mask, count: int, op_type: str) -> int:
    index = int(np.asarray(mask).reshape(-1)[0])
    if not 0 <= index < count:
        raise KernelError(f"{op_type}: mask {index} selects none of its {count} branches",
                          Where(op_type=op_type))
    return index


def _infer_select_input(ctx):
    specs = ctx.input_list("X")
    first, second = specs[0], specs[-1]
    if len(first.shape) != len(second.shape):
        return {"Out": VarSpec(second.shape, second.dtype)}
    shape = tuple(a if a == b else -1 for a, b in zip(first.shape, second.shape))
    return {"Out": VarSpec(shape, second.dtype)}


@register_op(
    "select_input",
    inputs=[Slot("X", duplicable=True), Slot("Mask", no_grad=True)],
    outputs=["Out"],
    infer=_infer_select_input,
    grad=_no_gradient_yet,
    examples=[Example({"X": [np.float32([1, 2]), np.float32([3, 4])], "Mask": np.int32([1])},
                      expect={"Out": np.float32([3, 4])}, grad=False),
              Example({"X": [np.float32([1, 2]), np.float32([3, 4])], "Mask": np.int32([0])},
                      expect={"Out": np.float32([1, 2])}, grad=False)],
    doc="Out = X[Mask]",
)
def select_input(X, Mask):
    return {"Out": X[_mask_index(Mask, len(X), "select_input")]}


@register_op(
    "select_output",
    inputs=["X", Slot("Mask", no_grad=True)],
    outputs=[Slot("Out", duplicable=True)],
    runtime=("count",),
    prepare=lambda op, ctx: {"count": len(op.output("Out"))},
    doc="Out[Mask] = X (the other outputs are left empty)",
)
def select_output(X, Mask, count):
    index = _mask_index(Mask, count, "select_output")
    return {"Out": [X if i == index else _placeholder(np.asarray(X).dtype)
                    for i in range(count)]}


# --- while -----------------------------------------------------------------------------------
def _prepare_while(op: Operator, ctx) -> dict:
    x_names = tuple(op.input("X"))
    (cond_name,) = op.input("Condition") or (None,)
    if cond_name is None:
        raise CheckError("while needs its Condition variable", ctx.where)
    out_names = tuple(op.output("Out"))
    if cond_name not in out_names:
        raise CheckError(f"the sub-block of while never writes its condition {cond_name!r}, so "
                         f"the loop could never end", ctx.where.with_(var=cond_name))
    feeds = _sub_block_feeds(op, ctx, set(x_names) | {cond_name})
    plan = ctx.compile_block(op.attr("sub_block"), feeds, out_names)
    return {"plan": plan, "x_names": x_names, "cond_name": cond_name,
            "out_dtypes": _declared_dtypes(op, out_names), "where": ctx.where}


@register_op(
    "while",
    inputs=[Slot("X", duplicable=True, dispensable=True), Slot("Condition", no_grad=True)],
    outputs=[Slot("Out", duplicable=True, dispensable=True), Slot("StepScopes")],
    attrs=[Attr("sub_block", T.BLOCK, REQUIRED), Attr("is_test", T.BOOLEAN, False),
           Attr("skip_eager_deletion_vars", T.STRINGS, [], extra=True)],
    runtime=("plan", "x_names", "cond_name", "out_dtypes", "where", "scope_vars"),
    prepare=_prepare_while,
    grad=_no_gradient_yet,
    doc="while Condition: Out = sub_block(X, Out)",
)
def while_(X, Condition, sub_block, is_test, skip_eager_deletion_vars, plan, x_names,
           cond_name, out_dtypes, where, scope_vars):
    env = dict(zip(x_names, X or ()))
    env[cond_name] = Condition
    steps = 0
    while _truth(env[cond_name], where, f"the while condition {cond_name!r}"):
        results = plan.execute({name: env[name] for name in plan.feeds}, scope_vars)
        env.update(zip(plan.fetches, results))
        steps += 1
    outs = [env[name] if name in env else _placeholder(dt)
            for name, dt in zip(plan.fetches, out_dtypes)]
    return {"Out": outs, "StepScopes": _holder(StepScope({"steps": steps}, ()))}
