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
    """Raise the first problem (or, with lenient=True, return all of them)."""
    problems: list[CheckError] = []
    nblocks = len(program.blocks)
    for block in program.blocks:
        if block.idx > 0 and not (0 <= block.parent_idx < block.idx):
            _report(problems, lenient, CheckError(
                f"parent_idx {block.parent_idx} is not an earlier block",
                Where(file=program.source, block=block.idx)))
        for i, op in enumerate(block.ops):
            where = Where(file=program.source, block=block.idx, op_index=i, op_type=op.type)
            for err in _check_op(op, where, nblocks):
                _report(problems, lenient, err)
    return problems


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
            bad = [b for b in indices if not 0 < b < nblocks]
            if bad:
                yield CheckError(f"attribute {name!r} refers to block {bad[0]}, but the program "
                                 f"has blocks 0..{nblocks - 1}", where)
    for names in list(op.inputs.values()) + list(op.outputs.values()):
        for var in names:
            if var != EMPTY_VAR and op.block.find_var(var) is None \
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
