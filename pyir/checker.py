"""Verify a Program against the registry before anything uses it.

`check_program` raises one CheckError naming the file, block, op index and op type for the
first problem: a broken block tree, an unknown op type, a slot the op does not declare, an
attribute it does not know (or of the wrong type, or an axis outside its input's rank), a
variable no block in scope declares, or a bad block index. It never imports or runs anything,
so `inspect` can use it on untrusted files (`lenient=True` lists instead of raising).

Known attributes (docs/untrusted.md): the op's declared ones, the ones Paddle puts on every
op (registry.COMMON_ATTRS), and the ones Paddle's own definition of the op may carry
(`op_attrs_paddle.PADDLE_ATTRS`: its OpProto and op_compat.yaml's "extra" attributes); a
`<op>_grad` op also those of its forward op, which grad makers copy.
"""

from __future__ import annotations

from . import binding, dtypes, registry
from ._proto.framework_pb2 import AttrType
from .errors import CheckError, Where
from .op_attrs_paddle import PADDLE_ATTRS
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
    bf16 = any(v.dtype == dtypes.BF16_BITS for b in program.blocks for v in b.vars.values())
    for block in program.blocks:
        for i, op in enumerate(block.ops):
            where = Where(file=program.source, block=block.idx, op_index=i, op_type=op.type)
            for err in _check_op(op, where, nblocks, bf16):
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


def _check_op(op: Operator, where: Where, nblocks: int, bf16: bool = True):
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
    if opdef.io is not None:  # feed/fetch ops bind the program's inputs and outputs by `col`
        slot, kind = ("Out", "output") if opdef.io == "feed" else ("X", "input")
        given = (op.outputs if kind == "output" else op.inputs).get(slot, [])
        if len([n for n in given if n != EMPTY_VAR]) != 1:
            yield CheckError(f"a {op.type} op names exactly one {kind} variable in slot "
                             f"{slot!r}, this one {len(given)}", where)
    for name, attr_type in op.attr_types.items():
        spec = opdef.attr_spec(name)
        if spec is not None and not registry.attr_type_ok(spec.type, attr_type):
            yield CheckError(f"attribute {name!r} has type {AttrType.Name(attr_type)}, expected "
                             f"{AttrType.Name(spec.type)}", where)
    for problem in binding.required_attr_problems(opdef, op.attrs):
        yield CheckError(problem, where)
    known = _KNOWN.get(op.type) or known_attrs(op.type, opdef)
    for name in [n for n in op.attrs if n not in known]:
        yield CheckError(f"unknown attribute {name!r}: op {op.type} has no such attribute "
                         f"(a misspelling? its attributes: "
                         f"{', '.join(a.name for a in opdef.attrs) or 'none'})", where)
    yield from _axis_problems(op, opdef, where)
    if bf16 and op.type not in _BF16_OK and opdef.io is None:
        for name in op.input_arg_names:
            var = op.block.find_var(name) if name != EMPTY_VAR else None
            if var is not None and var.dtype == dtypes.BF16_BITS:
                yield CheckError(f"op {op.type} reads bfloat16 variable {name!r}: pyir keeps "
                                 f"bfloat16 as raw bits and computes with it only through cast "
                                 f"(and assign); cast it to float32 first", where.with_(var=name))
                break


_KNOWN: dict[str, frozenset] = {}


def known_attrs(op_type: str, opdef=None) -> frozenset:
    """Every attribute name an op of `op_type` may carry in a file (see the module doc)."""
    known = _KNOWN.get(op_type)
    if known is None:
        opdef = opdef or registry.lookup(op_type)
        names = set(registry.COMMON_ATTRS) | set(PADDLE_ATTRS.get(op_type, ()))
        if opdef is not None:
            names |= {a.name for a in opdef.attrs}
        forward = opdef.grad_of if opdef is not None and opdef.grad_of else None
        base = op_type
        while base.endswith("_grad"):
            base = base[:-len("_grad")]
            names |= set(PADDLE_ATTRS.get(base, ()))
            fdef = registry.lookup(base)
            if fdef is not None:
                names |= {a.name for a in fdef.attrs}
        if forward is not None and forward != op_type:
            names |= known_attrs(forward)
        known = _KNOWN[op_type] = frozenset(names)
    return known


_AXIS_ATTRS = ("axis", "axes", "dim")
# The ops that may read bfloat16 (raw uint16 bits, dtypes.cast): any other kernel would
# compute on the bits as integers, a silent wrong answer, so the checker refuses it.
_BF16_OK = frozenset({"cast", "assign", "share_data"})


def _axis_problems(op: Operator, opdef, where: Where):
    """An axis attribute must index a dimension of the op's inputs: |axis| at most the
    largest input rank plus the number of axes given (stack and unsqueeze add dimensions).
    Checked only when every input's shape is declared with rank >= 1; the op's declared
    default (a sentinel such as cross's dim=9) always passes."""
    attrs = op.attrs
    if "axis" not in attrs and "axes" not in attrs and "dim" not in attrs:
        return
    present = []
    for n in _AXIS_ATTRS:
        spec = opdef.attr_spec(n)
        if n in attrs and (spec is None or attrs[n] != spec.default):
            present.append(n)
    if not present:
        return
    ranks = []
    for names in op.inputs.values():
        for name in names:
            if name == EMPTY_VAR:
                continue
            var = op.block.find_var(name)
            if var is None or var.shape is None:
                return
            ranks.append(len(var.shape))
    if not ranks or max(ranks) < 1:
        return
    for name in present:
        value = op.attrs[name]
        values = value if isinstance(value, list) else [value]
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            continue
        bound = max(ranks) + max(len(values), 1)
        bad = [v for v in values if not -bound <= v < bound]
        if bad:
            yield CheckError(f"attribute {name!r} = {bad[0]} is outside the inputs' dimensions "
                             f"(rank {max(ranks)})", where)

