"""`pyir ops`: the ops pyir can run, generated from the registry (slots, attributes, defaults)."""

from __future__ import annotations

import json

import click

from pyir import registry
from pyir.errors import PyirError
from pyir.printer import format_value
from pyir.registry import AttrType


def _slot_text(slot: dict) -> str:
    marks = ("..." if slot["duplicable"] else "") + ("?" if slot["dispensable"] else "")
    return slot["name"] + marks


def _default(spec):
    return "required" if spec.default is registry.REQUIRED else spec.default


def op_summary(opdef) -> dict:
    """One op's registry entry as plain data."""
    return {
        "type": opdef.type, "doc": opdef.doc, "grad_of": opdef.grad_of,
        "differentiable": opdef.differentiable,
        "inputs": [{"name": s.name, "duplicable": s.duplicable, "dispensable": s.dispensable,
                    "no_grad": s.no_grad} for s in opdef.inputs],
        "outputs": [{"name": s.name, "duplicable": s.duplicable, "dispensable": s.dispensable}
                    for s in opdef.outputs],
        "attrs": [{"name": a.name, "type": AttrType.Name(a.type), "default": _default(a)}
                  for a in opdef.attrs],
    }


def _format_op(info: dict) -> list[str]:
    lines = [f"{info['type']}" + (f"  -- {info['doc']}" if info["doc"] else "")]
    ins = ", ".join(_slot_text(s) for s in info["inputs"]) or "-"
    outs = ", ".join(_slot_text(s) for s in info["outputs"]) or "-"
    lines.append(f"    inputs:  {ins}")
    lines.append(f"    outputs: {outs}")
    for a in info["attrs"]:
        default = a["default"] if a["default"] == "required" else format_value(a["default"])
        lines.append(f"    attr {a['name']}: {a['type']} = {default}")
    if info["grad_of"]:
        lines.append(f"    gradient of: {info['grad_of']}")
    return lines


@click.command("ops")
@click.argument("names", nargs=-1)
@click.option("--all", "show_all", is_flag=True, help="Include the _grad ops.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
def ops(names: tuple[str, ...], show_all: bool, fmt: str) -> None:
    """List the ops pyir can run, with their slots and attributes (type = default).

    A slot marked `...` takes a list of variables; `?` may be left out.

    \b
    Examples:
      pyir ops
      pyir ops elementwise_add mul
      pyir ops --all --format json
    """
    if names:
        unknown = [n for n in names if n not in registry.OPS]
        if unknown:
            raise PyirError(f"unknown op type {unknown[0]!r} (pyir has {len(registry.OPS)} "
                            f"ops; `pyir ops` lists them)")
        chosen = [registry.OPS[n] for n in names]
    else:
        chosen = [d for _, d in sorted(registry.OPS.items())
                  if show_all or d.grad_of is None]
    infos = [op_summary(d) for d in chosen]
    if fmt == "json":
        click.echo(json.dumps(infos, indent=1, sort_keys=True, default=repr))
        return
    for info in infos:
        click.echo("\n".join(_format_op(info)))
    click.echo(f"{len(infos)} ops" + ("" if show_all or names else
                                      " (pyir ops --all adds the _grad ops)"))
