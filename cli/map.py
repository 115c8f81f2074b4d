"""`pyir map MODEL INPUTS... -o OUTDIR`: a thin wrapper over `pyir.distributed.map_files` (one
output per input file, in this process or on N Ray workers), with a progress bar counting
files; `pyir run --feed a.npz --feed b.npz -o DIR` ends here too (`run_many`).

Exit status: 0 when every input was written (or already complete), else the number of failed
inputs (at most 100); each failure is one line naming the input.
"""

from __future__ import annotations

import contextlib
import sys

import click

MAX_STATUS = 100


@click.command("map")
@click.argument("model", type=click.Path(dir_okay=False))
@click.argument("inputs", nargs=-1, required=True)
@click.option("-o", "--output", "outdir", required=True, type=click.Path(file_okay=False),
              help="Directory for the outputs: OUTDIR/<input stem>.npz per input (created).")
@click.option("--workers", type=click.IntRange(min=0), default=0, show_default=True,
              help="Ray workers (one CPU each); 0 runs in this process, without Ray.")
@click.option("--address", metavar="ADDR",
              help="Join this Ray cluster (default $RAY_ADDRESS, else start one here).")
@click.option("--params", type=click.Path(dir_okay=False),
              help="Parameter file (.pdiparams or .npz; default: MODEL's .pdiparams beside it).")
@click.option("--fetch", "fetches", multiple=True, metavar="NAME",
              help="Variable to fetch (repeatable; default: the file's fetch targets).")
@click.option("--path", "paths", multiple=True, type=click.Path(file_okay=False),
              help="Directory to search for py_func callables' modules (repeatable; also "
                   "$PYIR_PATH); sent to every worker.")
@click.option("--bind-id", "bind_id", multiple=True, metavar="ID=MODULE:NAME",
              help="Bind a Paddle py_func callable id to a registered callable. Repeatable.")
@click.option("--max-loop-steps", type=click.IntRange(min=1), default=None, metavar="N",
              help="Stop an input with an error when a while loop runs more than N "
                   "iterations (default 10,000,000).")
def map_cmd(model, inputs, outdir, workers, address, params, fetches, paths, bind_id,
            max_loop_steps) -> None:
    """Run MODEL on every input file (.npy/.npz, globs or directories), writing one
    OUTDIR/<stem>.npz per input; outputs already complete are skipped.

    \b
    Examples:
      pyir map out/mlp.pb data/ -o out/scores
      pyir map out/mlp.pb 'data/*.npz' -o out/scores --workers 4
      pyir map model.pb data/ -o out/ --workers 16 --address ray://head:10001 --path funcs/
    """
    if address and not workers:
        raise click.BadParameter("--address joins a Ray cluster: give --workers N too",
                                 param_hint="--address")
    run_many(model, inputs, outdir, workers=workers, address=address, params=params,
             fetches=fetches, paths=paths, id_bindings=bind_id, max_loop_steps=max_loop_steps)


def run_many(model, inputs, outdir, **options) -> None:
    """map_files with a progress bar, one line per failed input, a summary, and the exit
    status counting the failures."""
    from pyir import distributed
    from pyir.files.many import expand_inputs

    total = len(expand_inputs(inputs))
    with _progress(total) as on_done:
        result = distributed.map_files(model, inputs, outdir, on_done=on_done, **options)
    verb = click.get_current_context().info_name
    for path, error in result.failed.items():
        click.echo(f"pyir {verb}: error: {path}: {' '.join(error.split())}", err=True)
    skipped = f", {len(result.skipped)} already complete" if result.skipped else ""
    failed = f", {len(result.failed)} failed" if result.failed else ""
    click.echo(f"{total} inputs -> {outdir}: {len(result.written)} written{skipped}{failed}",
               err=True)
    if result.failed:
        click.get_current_context().exit(min(len(result.failed), MAX_STATUS))


@contextlib.contextmanager
def _progress(total: int):
    """A bar on stderr counting files, started at the first finished one (so a run refused
    before any input prints only its error); yields map_files' on_done."""
    bars = []
    with contextlib.ExitStack() as stack:
        def on_done(_path, _error) -> None:
            if not bars:
                bars.append(stack.enter_context(click.progressbar(
                    length=total, label="inputs", file=sys.stderr, show_pos=True)))
            bars[0].update(1)

        yield on_done
