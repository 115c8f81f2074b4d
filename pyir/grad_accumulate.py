"""Gradient accumulation for the backward pass: a gradient several grad ops write gets one
partial per writer, named as Paddle names them (`x@GRAD@RENAME@block0@N`), summed by one `sum`
op right before its first reader; a repeated pass over a program prefixes its names `grad/`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .builder import ROLE_BACKWARD
from .framework import Block, Operator, Program
from .registry import EMPTY_VAR, GRAD_SUFFIX, GradOp

ACCUMULATE_OP = "sum"
EMPTY = EMPTY_VAR


@dataclass
class Entry:
    """A grad op on its way into the block, with the forward op it came from."""

    op: GradOp
    forward: Operator | None
    role: int = ROLE_BACKWARD


def is_grad(name: str) -> bool:
    return GRAD_SUFFIX in name


def in_names(g: GradOp) -> list:
    return [n for names in g.inputs.values() for n in names]


def out_names(g: GradOp) -> list:
    return [n for names in g.outputs.values() for n in names if n != EMPTY]


def accumulate(entries: list, block_idx: int) -> list:
    """Give each extra writer of a gradient its own `@RENAME@` name; sum them before use.

    Paddle's convention: the first writer becomes `x@GRAD@RENAME@block0@0`, the next `@1`,
    ..., and a `sum` op writes `x@GRAD` right before the first op that reads it (or at the
    end, for gradients nothing reads, such as a shared parameter's).
    """
    parts: dict[str, list[str]] = {}
    first: dict[str, int] = {}
    count: Counter = Counter()
    out: list = []
    for entry in entries:
        g = entry.op
        for name in in_names(g):
            if is_grad(name) and len(parts.get(name, ())) > 1:
                first[name] = len(out)
                out.append(_sum_entry(parts[name], name))
                parts[name] = [name]
        ins = set(in_names(g))
        done = []  # this op's output positions handled so far: (slot list, index)
        for names in g.outputs.values():
            for i, name in enumerate(names):
                if not is_grad(name) or name == EMPTY or name in ins:
                    continue
                if not parts.get(name):
                    parts[name], first[name] = [name], len(out)
                else:
                    if len(parts[name]) == 1:  # the first writer becomes a partial too
                        renamed = _rename_name(name, block_idx, count)
                        for earlier in out[first[name]:]:
                            rename_args(earlier.op, {name: renamed})
                        for held, j in done:
                            if held[j] == name:
                                held[j] = renamed
                        parts[name][0] = renamed
                    names[i] = _rename_name(name, block_idx, count)
                    parts[name].append(names[i])
                done.append((names, i))
        out.append(entry)
    out += [_sum_entry(p, name) for name, p in parts.items() if len(p) > 1]
    return out


def _rename_name(name: str, block_idx: int, count: Counter) -> str:
    new = f"{name}@RENAME@block{block_idx}@{count[name]}"
    count[name] += 1
    return new


def _sum_entry(partials: list, name: str) -> Entry:
    return Entry(GradOp(ACCUMULATE_OP, {"X": list(partials)}, {"Out": [name]}), None)


def rename_args(g: GradOp, mapping: dict, outputs: bool = True) -> None:
    for slots in (g.inputs, g.outputs) if outputs else (g.inputs,):
        for names in slots.values():
            names[:] = [mapping.get(n, n) for n in names]  # in place: callers hold the lists


def repeat_prefix(program: Program, block: Block, entries: list, keep: set) -> str:
    """`grad/` * k for the k-th backward pass over a program (k > 1), as Paddle names them.

    A program read from a file does not remember its passes: there a gradient name some op
    already writes also counts as a repeated pass.
    """
    times = getattr(program, "_appending_grad_times", 0) + 1
    written = {n for op in block.ops for n in op.output_arg_names}
    if times == 1 and any(n in written for e in entries for n in out_names(e.op)
                          if n not in keep):
        times = 2
    program._appending_grad_times = times
    return "grad/" * times if times > 1 else ""


def prefix_outputs(entries: list, prefix: str, keep: set) -> None:
    mapping = {n: prefix + n for e in entries for n in out_names(e.op)
               if n not in keep and is_grad(n)}
    for entry in entries:
        rename_args(entry.op, mapping)
