"""Showing a program file as text, JSON or DOT: what `pyir inspect MODEL` prints. Nothing here
imports or runs what the file names, so an untrusted file is safe to describe.

    describe_model(model, fmt)
      +-- load_program            a truncated / non-protobuf file: one-line FormatError
      +-- check_program           problems are listed (lenient: unknown ops are marked)
      +-- printer                 text / JSON / DOT, plus the callables the file names
"""

from __future__ import annotations

from ..callables import static_refusal
from ..checker import check_program
from ..errors import CheckError, PyirError, Where
from ..dot_graph import to_dot
from ..printer import callable_references, format_program, to_json
from ..serialize import load_program

FORMATS = ("text", "json", "dot")


def describe_model(model: str, fmt: str = "text", block: int | None = None,
                   strict: bool = False) -> str:
    """The text `pyir inspect` prints for `model` (a pyir .pb or Paddle .pdmodel), ending in
    a newline.

    Args:
        fmt: "text" for people, "json" for tools, "dot" for Graphviz.
        block: show only this block.
        strict: raise on the first problem (unknown op, undeclared variable, ...) instead of
            listing the problems.

    Example:
        >>> print(pyir.files.describe_model("out/mlp.pb"), end="")
        program: 1 blocks, 8 ops, version 3003001
        ...
    """
    if fmt not in FORMATS:
        raise PyirError(f"describe_model: fmt {fmt!r} is not one of {', '.join(FORMATS)}")
    program = load_program(model)
    if block is not None and not 0 <= block < len(program.blocks):
        raise PyirError(f"--block {block}: the program has blocks 0..{len(program.blocks) - 1}",
                        Where(file=model))
    problems = check_program(program, lenient=not strict)
    refs = callable_references(program)
    for r in refs:  # references `pyir run` would refuse whatever the user trusts
        if r["reference"].startswith("<paddle callable id"):
            continue  # Paddle's ids run once bound (--bind-id)
        refusal = static_refusal(r["reference"])
        if refusal is not None:
            problem = CheckError(refusal, Where(file=model, block=r["block"],
                                                op_index=r["op_index"], op_type=r["op_type"],
                                                callable=r["reference"]))
            if strict:
                raise problem
            problems.append(problem)
    if fmt == "json":
        return to_json(program, block, problems=[str(p) for p in problems], file=model) + "\n"
    if fmt == "dot":
        return to_dot(program, block)
    return _text(program, block, problems, refs) + "\n"


def _text(program, block, problems, refs) -> str:
    lines = [format_program(program, block)]
    shown = [r for r in refs if block is None or r["block"] == block]
    if shown:
        lines.append("callables (never imported by inspect):")
        for r in shown:
            place = f"block {r['block']} op #{r['op_index']} {r['op_type']}"
            lines.append(f"  {place}: {r['role']} = {r['reference']!r}")
    if problems:
        lines.append(f"problems ({len(problems)}):")
        lines += [f"  {p}" for p in problems]
    return "\n".join(lines)


__all__ = ["describe_model"]
