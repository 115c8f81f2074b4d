"""A program as a Graphviz digraph (`pyir inspect --format dot`), drawn to be read.

    ops           boxes; a py_func names its callables, an op pyir cannot run is salmon
    parameters    folded into the one op that reads them (a line `Y: fc_0.w_0 float32[4, 8]`)
    intermediates a value one op writes and others read is the label of the edge between them
    other values  ellipses: inputs, outputs, state an op updates, values shared across blocks
    blocks        one cluster each; a dotted edge from an op to each sub-block it runs
    layout        top to bottom, tight spacing. Folding and value edges halve the ranks: the
                  48-op training program of samples/train_seed003.py renders 1684 x 3552 px
                  (9286 px tall before); left to right made a 15-op chain a 4881 x 204 strip,
                  harder to read than the 331 x 1766 column it is now

Like the other printers it only reads the IR: it never imports or calls a callable, so it is
safe on an untrusted file.
"""

from __future__ import annotations

import json

from .callables import op_references
from .framework import Block, Operator, Program
from .printer import block_refs, is_known, type_name

def _q(text: str) -> str:
    return json.dumps(str(text))


def _var_node(block: Block, name: str) -> str:
    var = block.find_var(name)
    home = var.block.idx if var is not None else block.idx
    return _q(f"b{home}:{name}")


def _op_node(block: Block, index: int) -> str:
    return _q(f"b{block.idx}:op{index}")


class _Layout:
    """Which values of a block are folded into an op, drawn as edges, or drawn as nodes."""

    def __init__(self, program: Program, block: Block):
        self.block = block
        readers: dict[str, list[int]] = {}
        writers: dict[str, list[int]] = {}
        for i, op in enumerate(block.ops):
            for name in op.input_arg_names:
                readers.setdefault(name, []).append(i)
            for name in op.output_arg_names:
                writers.setdefault(name, []).append(i)
        used_elsewhere = {n for b in program.blocks if b is not block for op in b.ops
                          for n in op.input_arg_names + op.output_arg_names}
        self.folded: dict[int, list[tuple[str, str]]] = {}  # op index -> [(slot, name)]
        self.edges: dict[str, int] = {}  # value drawn as edges -> its writer
        for name, reads in readers.items():
            var = block.vars.get(name)
            if var is None or name in used_elsewhere:
                continue
            if var.persistable and name not in writers and len(reads) == 1:
                op = block.ops[reads[0]]
                slot = next(s for s, names in op.inputs.items() if name in names)
                self.folded.setdefault(reads[0], []).append((slot, name))
            elif not (var.persistable or var.need_check_feed) and len(writers.get(name, ())) == 1:
                self.edges[name] = writers[name][0]
        self.hidden = {n for pairs in self.folded.values() for _, n in pairs} | set(self.edges)


def _op_label(op: Operator, folded: list[tuple[str, str]], block: Block) -> str:
    lines = [op.type if is_known(op) else f"{op.type}\n(unknown)"]
    lines += [f"{role}: {ref}" for role, ref in op_references(op)]
    lines += [f"{slot}: {name} {type_name(block.vars[name])}" for slot, name in folded]
    return "\n".join(lines)


def _dot_block(program: Program, block: Block, layout: _Layout, lines: list[str],
               declared: set) -> None:
    title = _q(f"block {block.idx}")
    lines.append(f"  subgraph cluster_{block.idx} {{")
    lines.append(f"    label={title};")
    # an anchor node: edges from an op to the sub-block it runs end here
    lines.append(f"    {_q(f'block{block.idx}')} [shape=plaintext, label={title}];")
    for var in block.vars.values():
        if var.name in layout.hidden:
            continue
        style = ", style=filled, fillcolor=lightgrey" if var.persistable else ""
        label = _q(var.name + "\n" + type_name(var))
        lines.append(f"    {_var_node(block, var.name)} [shape=ellipse, label={label}{style}];")
        declared.add(_var_node(block, var.name))
    for i, op in enumerate(block.ops):
        label = _q(_op_label(op, layout.folded.get(i, []), block))
        style = "" if is_known(op) else ', style="filled,dashed", fillcolor=salmon'
        lines.append(f"    {_op_node(block, i)} [shape=box, label={label}{style}];")
    lines.append("  }")


def _dot_edges(block: Block, layout: _Layout, lines: list[str], declared: set,
               shown: set) -> None:
    for i, op in enumerate(block.ops):
        node = _op_node(block, i)
        for slot, names in op.inputs.items():
            for n in names:
                if n in layout.edges:
                    lines.append(f"  {_op_node(block, layout.edges[n])} -> {node} "
                                 f"[label={_q(n)}];")
                elif n not in layout.hidden:
                    _ensure(block, n, lines, declared)
                    lines.append(f"  {_var_node(block, n)} -> {node} [label={_q(slot)}];")
        for slot, names in op.outputs.items():
            for n in names:
                if n not in layout.hidden:
                    _ensure(block, n, lines, declared)
                    lines.append(f"  {node} -> {_var_node(block, n)} [label={_q(slot)}];")
        for attr, idx in block_refs(op):
            if idx in shown:
                lines.append(f"  {node} -> {_q(f'block{idx}')} [style=dotted, "
                             f"label={_q(attr)}];")


def _ensure(block: Block, name: str, lines: list[str], declared: set) -> None:
    node = _var_node(block, name)
    if node not in declared:  # undeclared (or in a block not shown): still draw it
        lines.append(f"  {node} [shape=ellipse, style=dashed, label={_q(name)}];")
        declared.add(node)


def to_dot(program: Program, block: int | None = None) -> str:
    """The Graphviz digraph of `program` (or of one block).

    Example:
        >>> open("m.dot", "w").write(to_dot(program))    # then: dot -Tsvg m.dot > m.svg
    """
    blocks = program.blocks if block is None else [program.blocks[block]]
    lines = ["digraph program {", "  rankdir=TB;",
             "  nodesep=0.25; ranksep=0.3;",
             "  node [fontname=Helvetica, fontsize=10, margin=\"0.08,0.04\"];",
             "  edge [fontname=Helvetica, fontsize=8];"]
    declared: set = set()
    layouts = {b.idx: _Layout(program, b) for b in blocks}
    for b in blocks:
        _dot_block(program, b, layouts[b.idx], lines, declared)
    shown = {b.idx for b in blocks}
    for b in blocks:
        _dot_edges(b, layouts[b.idx], lines, declared, shown)
    lines.append("}")
    return "\n".join(lines) + "\n"


__all__ = ["to_dot"]
