"""`pyir inspect MODEL`: a thin wrapper over `pyir.files.describe_model`. Never imports or
runs anything the file names."""

from __future__ import annotations

import click

from pyir.files import describe_model


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
    click.echo(describe_model(model, fmt, block, strict=check), nl=False)
