"""Readable forms of a Program: the text `print(program)` shows and JSON for tools (DOT for
Graphviz is pyir/dot_graph.py).

Everything here only reads the IR (and the registry, to mark ops pyir cannot run); it never
imports or calls a py_func callable, so `pyir inspect` can show untrusted files.

Text form, one op per line:

    block 0 (parent -1): 4 vars, 2 ops
      vars:
        fc_0.w_0      float32[16, 32]  persistable
        x             float32[-1, 16]  feed
      ops:
        #0  {Out=[fc_0.tmp_0]} = mul(X=[x], Y=[fc_0.w_0]) {x_num_col_dims=1, y_num_col_dims=1}
"""

from __future__ import annotations

import json
import math

import numpy as np

from . import dtypes, registry
from .callables import references
from ._proto.framework_pb2 import AttrType, VarType
from .framework import Block, Operator, Program, Variable

# Attributes shown only when they differ from what every op carries by default.
_QUIET_ATTRS = {"op_role": 0, "op_role_var": [], "op_namescope": "/", "op_device": "",
                "with_quant_attr": False}
_HIDDEN_ATTRS = ("op_callstack",)  # stack traces: long, and in JSON anyway
_LIST_LIMIT = 16
_BLOCK_TYPES = (AttrType.BLOCK, AttrType.BLOCKS)


# --- pieces ---------------------------------------------------------------------------------
def type_name(var: Variable) -> str:
    """`float32[4, 16]` for tensors, the VarType name (FEED_MINIBATCH, ...) for holders."""
    if var.dtype is not None and var.shape is not None:
        return f"{_dtype_name(var)}[{', '.join(str(d) for d in var.shape)}]"
    kind = var.raw_type.type if var.raw_type is not None else var.type
    return _kind_name(kind)


def _dtype_name(var: Variable) -> str:
    return dtypes.name_of(var.dtype)


def _kind_name(kind: int) -> str:
    try:
        return VarType.Type.Name(kind)
    except ValueError:
        return f"VARTYPE_{kind}"


def var_flags(var: Variable) -> list[str]:
    """What the text form says about a variable besides its type: persistable, feed, ..."""
    flags = []
    if var.persistable:
        flags.append("persistable")
    if var.is_parameter:
        flags.append("parameter")
    if var.need_check_feed:
        flags.append("feed")
    if var.lod_level:
        flags.append(f"lod_level={var.lod_level}")
    return flags


def format_value(value, attr_type: int | None = None) -> str:
    """An attribute value as text: blocks as `block[N]`, long lists shortened."""
    if attr_type == AttrType.BLOCK:
        return f"block[{value}]"
    if attr_type == AttrType.BLOCKS:
        return "[" + ", ".join(f"block[{v}]" for v in value) + "]"
    if attr_type in (AttrType.FLOAT, AttrType.FLOATS):
        # FLOAT is float32 on the wire: show the shortest text that reads back the same
        value = [_Float32(v) for v in value] if isinstance(value, list) else _Float32(value)
    if isinstance(value, (list, tuple)):
        shown = ", ".join(format_value(v) for v in value[:_LIST_LIMIT])
        more = f", ... ({len(value)} items)" if len(value) > _LIST_LIMIT else ""
        return f"[{shown}{more}]"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)


class _Float32(float):
    def __repr__(self) -> str:
        return str(np.float32(self))


def _slots(slots: dict[str, list[str]]) -> str:
    return ", ".join(f"{k}=[{', '.join(v)}]" for k, v in slots.items())


def _shown_attrs(op: Operator) -> list[tuple[str, object]]:
    shown = []
    for name, value in op.attrs.items():
        if name in _HIDDEN_ATTRS or (name in _QUIET_ATTRS and value == _QUIET_ATTRS[name]):
            continue
        shown.append((name, value))
    return shown


def is_known(op: Operator) -> bool:
    """Whether pyir has a definition for the op's type (it can check and run it)."""
    return registry.lookup(op.type) is not None


def format_op(op: Operator) -> str:
    """`{Out=[y]} = tanh(X=[x]) {attr=value}`; unknown op types end with `# unknown op`."""
    attrs = ", ".join(f"{n}={format_value(v, op.attr_types.get(n))}"
                      for n, v in _shown_attrs(op))
    text = f"{{{_slots(op.outputs)}}} = {op.type}({_slots(op.inputs)})"
    if attrs:
        text += f" {{{attrs}}}"
    if not is_known(op):
        text += "  # unknown op: pyir cannot run it"
    return text


def format_var(var: Variable, width: int = 0) -> str:
    """`name  float32[4, 16]  persistable`, the name padded to `width`."""
    flags = "  ".join(var_flags(var))
    line = f"{var.name:<{width}}  {type_name(var)}"
    return f"{line}  {flags}" if flags else line


def block_owners(program: Program) -> dict[int, tuple[int, int, str]]:
    """Sub-block index -> (block, op index, op type) of the op that runs it."""
    owners = {}
    for b in program.blocks:
        for i, op in enumerate(b.ops):
            for sub in op.sub_block_ids():
                owners.setdefault(sub, (b.idx, i, op.type))
    return owners


def format_block(block: Block, owner: tuple | None = None) -> str:
    """A block's header (with the op that runs it), its variables and one line per op."""
    head = f"block {block.idx} (parent {block.parent_idx}"
    if block.forward_block_idx is not None and block.forward_block_idx >= 0:
        head += f", backward of block {block.forward_block_idx}"
    if owner is not None:
        head += f", run by block {owner[0]} op #{owner[1]} {owner[2]}"
    lines = [f"{head}): {len(block.vars)} vars, {len(block.ops)} ops", "  vars:"]
    width = max((len(n) for n in block.vars), default=0)
    lines += [f"    {format_var(v, width)}" for v in block.vars.values()]
    lines.append("  ops:")
    digits = len(str(max(len(block.ops) - 1, 0)))
    lines += [f"    #{i:<{digits}}  {format_op(op)}" for i, op in enumerate(block.ops)]
    return "\n".join(lines)


def format_program(program: Program, block: int | None = None) -> str:
    """The whole program (or one block) as deterministic text."""
    nops = sum(len(b.ops) for b in program.blocks)
    head = f"program: {len(program.blocks)} blocks, {nops} ops"
    if program.version is not None:
        head += f", version {program.version}"
    blocks = program.blocks if block is None else [program.blocks[block]]
    owners = block_owners(program)
    return "\n".join([head] + [format_block(b, owners.get(b.idx)) for b in blocks])


# --- callables ------------------------------------------------------------------------------
def callable_references(program: Program) -> list[dict]:
    """Every callable the program's py_func ops name: {block, op_index, op_type, role,
    reference}; Paddle's process-local ids read `<paddle callable id N>`. Imports nothing.
    """
    return [{"block": b, "op_index": i, "op_type": program.blocks[b].ops[i].type,
             "role": role, "reference": ref} for b, i, role, ref in references(program)]


# --- JSON -----------------------------------------------------------------------------------
def _jsonable(value):
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, complex):
        return [_jsonable(value.real), _jsonable(value.imag)]
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def _var_dict(var: Variable) -> dict:
    kind = var.raw_type.type if var.raw_type is not None else var.type
    return {"name": var.name, "type": _kind_name(kind),
            "dtype": None if var.dtype is None else _dtype_name(var),
            "shape": None if var.shape is None else list(var.shape),
            "persistable": var.persistable, "is_parameter": var.is_parameter,
            "need_check_feed": var.need_check_feed, "stop_gradient": var.stop_gradient,
            "lod_level": var.lod_level}


def _op_dict(index: int, op: Operator) -> dict:
    attrs = {}
    for name, value in op.attrs.items():
        t = op.attr_types.get(name)
        attrs[name] = {"type": AttrType.Name(t) if t is not None else None,
                       "value": _jsonable(value)}
    return {"index": index, "type": op.type, "known": is_known(op),
            "inputs": dict(op.inputs), "outputs": dict(op.outputs), "attrs": attrs,
            "sub_blocks": [v for n, v in block_refs(op)]}


def block_refs(op: Operator):
    for name, value in op.attrs.items():
        if op.attr_types.get(name) in _BLOCK_TYPES:
            for v in value if isinstance(value, list) else [value]:
                yield name, v


def to_dict(program: Program, block: int | None = None) -> dict:
    """The program as plain data (what `to_json` dumps)."""
    blocks = program.blocks if block is None else [program.blocks[block]]
    owners = block_owners(program)
    return {"version": program.version,
            "blocks": [{"idx": b.idx, "parent_idx": b.parent_idx,
                        "forward_block_idx": b.forward_block_idx,
                        "run_by": (None if b.idx not in owners else
                                   dict(zip(("block", "op_index", "op_type"), owners[b.idx]))),
                        "vars": [_var_dict(v) for v in b.vars.values()],
                        "ops": [_op_dict(i, op) for i, op in enumerate(b.ops)]}
                       for b in blocks],
            "callables": [r for r in callable_references(program)
                          if block is None or r["block"] == block]}


def to_json(program: Program, block: int | None = None, **extra) -> str:
    """Deterministic JSON (sorted keys, 1-space indent); `extra` adds top-level keys."""
    return json.dumps({**to_dict(program, block), **extra}, indent=1, sort_keys=True)


# The IR sits below this module; its text form is installed here.
Operator.__repr__ = format_op
Program.__str__ = format_program


__all__ = ["format_program", "format_op", "format_block", "format_var", "to_json", "to_dict",
           "callable_references", "block_refs", "is_known", "type_name"]
