"""`pyir inspect MODEL`: show a program file as text, JSON or DOT. Never imports or runs anything.

    load_program (serialize.py)      a truncated / non-protobuf file: one-line FormatError
      +-- check_program(lenient)     problems are listed (unknown ops are marked, not fatal)
      +-- printer                    text / JSON / DOT, plus the callables the file names
"""

from __future__ import annotations

import click

from pyir.errors import PyirError, Where


def _text(program, block, problems, refs) -> str:
    from pyir.printer import format_program

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


@click.command("inspect")
@click.argument("model", type=click.Path(dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(["text", "json", "dot"]), default="text",
              show_default=True, help="text for people, json for tools, dot for Graphviz.")
@click.option("--block", "block", type=int, default=None, help="Show only block N.")
@click.option("--check", is_flag=True,
              help="Exit 1 on the first problem (unknown op, undeclared variable, ...).")
def inspect_cmd(model: str, fmt: str, block: int | None, check: bool) -> None:
    """Show MODEL (a pyir .pb or Paddle .pdmodel): blocks, variables, ops, callables.

    Ops pyir cannot run are marked; the callables py_func ops name are listed but never
    imported, so inspecting an untrusted file is safe.

    \b
    Examples:
      pyir inspect model.pb
      pyir inspect model.pdmodel --format json --block 0
      pyir inspect model.pb --format dot | dot -Tsvg > model.svg
    """
    from pyir.checker import check_program
    from pyir.printer import callable_references, to_dot, to_json
    from pyir.serialize import load_program

    program = load_program(model)
    if block is not None and not 0 <= block < len(program.blocks):
        raise PyirError(f"--block {block}: the program has blocks 0..{len(program.blocks) - 1}",
                        Where(file=model))
    problems = check_program(program, lenient=not check)
    refs = callable_references(program)
    if fmt == "json":
        click.echo(to_json(program, block, problems=[str(p) for p in problems], file=model),
                   nl=False)
        click.echo()
    elif fmt == "dot":
        click.echo(to_dot(program, block), nl=False)
    else:
        click.echo(_text(program, block, problems, refs))
