"""`pyir build MODEL.py`: a thin wrapper over `pyir.files.build_model`, plus the summary."""

from __future__ import annotations

from collections import Counter

import click
import numpy as np

from pyir import dtypes, registry
from pyir.files import build_model


@click.command("build")
@click.argument("model", type=click.Path(dir_okay=False))
@click.option("-o", "--output", "out", type=click.Path(dir_okay=False),
              help="Program file to write (default: <stem>.pdmodel in the current directory).")
@click.option("--fetch", "fetches", multiple=True, metavar="NAME",
              help="Output variable to record (repeatable; default: every variable no op "
                   "consumes).")
@click.option("--path", "paths", multiple=True, type=click.Path(file_okay=False),
              help="Directory MODEL.py imports its py_func callables' modules from "
                   "(repeatable; also $PYIR_PATH).")
def build(model: str, out: str | None, fetches: tuple[str, ...], paths: tuple[str, ...]) -> None:
    """Import MODEL.py and write the program it builds to OUT.pb (+ OUT.pdiparams).

    \b
    MODEL.py runs as a module named after the file (its directory first on sys.path, as
    `python MODEL.py` has it); an `if __name__ == "__main__":` block does not run. Its
    top-level code builds into the default programs (or into module-level programs under
    program_guard). The startup program runs to give parameters their initial values.

    \b
    Inputs are the `data` variables in declaration order. Outputs are the --fetch names or,
    without any, the non-persistable variables some op writes and no op reads. The file is
    pruned to the outputs like Paddle's inference models, except a training program (one
    whose ops update parameters), which is written whole so `pyir run --steps N` trains it.

    \b
    Example:
      pyir build samples/mlp.py -o out/mlp.pb
    """
    built = build_model(model, out, fetches, paths)
    program, params = built.saved.program, built.saved.params_path
    click.echo(f"built {model} -> {built.path}" + (f" (+ {params})" if params else ""))
    click.echo("inputs:")
    for v in built.inputs:
        click.echo(f"  {v.name}  {_spec(v)}")
    click.echo("outputs:")
    for name in built.outputs:
        var = program.global_block().find_var(name)
        click.echo(f"  {name}  {_spec(var)}" if var is not None else f"  {name}")
    counts = Counter(op.type for op in program.global_block().ops if not _is_io(op))
    detail = ", ".join(f"{t} {n}" for t, n in sorted(counts.items()))
    click.echo(f"ops: {sum(counts.values())}" + (f" ({detail})" if detail else ""))
    values = sum(int(np.asarray(v).size) for v in built.parameters.values())
    click.echo(f"parameters: {len(built.parameters)} tensors, {values} values")


def _is_io(op) -> bool:
    opdef = registry.lookup(op.type)
    return opdef is not None and opdef.io is not None


def _spec(var) -> str:
    if var.dtype is None:
        return ""
    return f"{dtypes.name_of(var.dtype)} {list(var.shape)}"
