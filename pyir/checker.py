"""Verify a Program against the registry before anything uses it.

`check_program` raises one CheckError naming the file, block, op index and op type for the
first problem: an unknown op type, a slot or attribute the op does not declare (or of the
wrong type), a variable no block in scope declares, or a bad block index. It never imports
or runs anything, so `inspect` can use it on untrusted files (`lenient=True` lists instead
of raising on unknown op types).
"""

from __future__ import annotations

from . import binding, registry
from ._proto.framework_pb2 import AttrType
from .errors import CheckError, Where
from .framework import Operator, Program
from .registry import EMPTY_VAR, GRAD_SUFFIX

_BLOCK_TYPES = (AttrType.BLOCK, AttrType.BLOCKS)


def check_program(program: Program, *, lenient: bool = False) -> list[CheckError]:
    """Raise the first problem (or, with lenient=True, return all of them).

    The block tree is checked first: every walk up a block's parents (variable lookup) relies
    on it, so a broken tree stops the check there instead of letting a lookup loop forever.
    """
    problems: list[CheckError] = []
    tree = list(_tree_problems(program)) + list(_sub_block_cycles(program))
    for err in tree:
        _report(problems, lenient, err)
    if tree:
        return problems
    nblocks = len(program.blocks)
    for block in program.blocks:
        for i, op in enumerate(block.ops):
            where = Where(file=program.source, block=block.idx, op_index=i, op_type=op.type)
            for err in _check_op(op, where, nblocks):
                _report(problems, lenient, err)
    return problems


def _sub_block_cycles(program: Program):
    """A block that (through the sub-blocks its ops run) runs itself would recurse forever."""
    nblocks = len(program.blocks)
    runs = {b.idx: {i for op in b.ops for i in op.sub_block_ids()} for b in program.blocks}
    state: dict[int, int] = {}  # 1 = on the current path, 2 = done

    def visit(block: int, path: list):
        state[block] = 1
        for sub in sorted(runs.get(block, ())):
            if state.get(sub) == 1:
                cycle = " -> ".join(str(b) for b in path[path.index(sub):] + [sub])
                return CheckError(f"blocks run each other in a cycle ({cycle}): running them "
                                  f"would never end", Where(file=program.source, block=sub))
            if sub not in state and 0 <= sub < nblocks:
                found = visit(sub, path + [sub])
                if found is not None:
                    return found
        state[block] = 2
        return None

    for start in range(nblocks):
        if start not in state:
            found = visit(start, [start])
            if found is not None:
                yield found
                return


def _tree_problems(program: Program):
    """Blocks must form a tree rooted at block 0: block 0's parent is -1, every other block's
    parent an earlier block (so no walk up the parents can cycle), indices in order."""
    nblocks = len(program.blocks)
    for position, block in enumerate(program.blocks):
        where = Where(file=program.source, block=block.idx)
        if block.idx != position:
            yield CheckError(f"block at position {position} says it is block {block.idx}; "
                             f"blocks must be numbered 0, 1, 2, ... in order", where)
        elif block.idx == 0 and block.parent_idx != -1:
            yield CheckError(f"block 0 is the root, so its parent_idx must be -1, got "
                             f"{block.parent_idx}", where)
        elif block.idx > 0 and not (0 <= block.parent_idx < block.idx):
            yield CheckError(f"parent_idx {block.parent_idx} is not an earlier block", where)
        forward = block.forward_block_idx
        if forward is not None and forward != -1 and not 0 <= forward < nblocks:
            yield CheckError(f"forward_block_idx {forward} is not a block of the program "
                             f"(it has blocks 0..{nblocks - 1})", where)


def _report(problems: list, lenient: bool, err: CheckError) -> None:
    if not lenient:
        raise err
    problems.append(err)


def _declared_by_backward(block, var: str) -> bool:
    """A backward block (pylayer's) of a forward-only program names `x@GRAD` variables that
    only `append_backward` declares: Paddle writes such files, and runs them."""
    return (block.forward_block_idx is not None and block.forward_block_idx >= 0
            and GRAD_SUFFIX in var)


def _check_op(op: Operator, where: Where, nblocks: int):
    for name, value in op.attrs.items():
        if op.attr_types.get(name) in _BLOCK_TYPES:
            indices = value if isinstance(value, list) else [value]
            bad = [b for b in indices if not isinstance(b, int) or not 0 < b < nblocks]
            if bad:
                yield CheckError(f"attribute {name!r} refers to block {bad[0]}, but the program "
                                 f"has blocks 0..{nblocks - 1}", where)
                continue
    declared = op.block.vars  # the usual case, before walking up the parent blocks
    for names in list(op.inputs.values()) + list(op.outputs.values()):
        for var in names:
            if var not in declared and var != EMPTY_VAR and op.block.find_var(var) is None \
                    and not _declared_by_backward(op.block, var):
                yield CheckError(f"variable {var!r} is not declared in block {op.block.idx} "
                                 f"or its ancestors", where.with_(var=var))
    opdef = registry.lookup(op.type)
    if opdef is None:
        yield CheckError(f"unknown op type {op.type!r}: pyir cannot run it "
                         f"(`pyir ops` lists the supported ops)", where)
        return
    for problem in binding.slot_problems(opdef, op.inputs, op.outputs):
        yield CheckError(problem, where)
    for name, attr_type in op.attr_types.items():
        spec = opdef.attr_spec(name)
        if spec is not None and not registry.attr_type_ok(spec.type, attr_type):
            yield CheckError(f"attribute {name!r} has type {AttrType.Name(attr_type)}, expected "
                             f"{AttrType.Name(spec.type)}", where)
    for problem in binding.required_attr_problems(opdef, op.attrs):
        yield CheckError(problem, where)
