"""`pyir run MODEL`: a thin wrapper over `pyir.files.run_model` (load a program file and its
parameters, run it on fed arrays), then print the outputs, write -o OUT.npz and --save-params.

Feeds that name many inputs (a directory, a glob, or several files each feeding the same
inputs: `files.many.many_feeds`) run once per input: printed one after another, or with
`-o DIR` written one OUTDIR/<stem>.npz each, as `pyir map` does. With `--steps`,
`--workers N` trains data-parallel on N Ray workers (`pyir.distributed.train`).
"""

from __future__ import annotations

import contextlib
import sys
from contextlib import contextmanager

import click
import numpy as np

from pyir import files
from pyir.files.many import many_feeds


@click.command("run")
@click.argument("model", type=click.Path(dir_okay=False))
@click.option("--params", type=click.Path(dir_okay=False),
              help="Parameter file (.pdiparams or .npz; default: MODEL's .pdiparams beside it).")
@click.option("--feed", "feeds", multiple=True, metavar="[NAME=]FILE",
              help="Input data: FILE.npy (the single input), NAME=FILE.npy, or FILE.npz "
                   "(array names = input names). Repeatable. Several files that each feed "
                   "every input, a directory or a glob: one run per file.")
@click.option("--fetch", "fetches", multiple=True, metavar="NAME",
              help="Variable to fetch (repeatable; default: the file's fetch targets).")
@click.option("-o", "--output", "out", type=click.Path(),
              help="Write the fetched arrays to OUT.npz (fetch name -> array); with many "
                   "inputs, a directory: OUT/<input stem>.npz each.")
@click.option("--path", "paths", multiple=True, type=click.Path(file_okay=False),
              help="Directory to search for py_func callables' modules (repeatable; also "
                   "$PYIR_PATH).")
@click.option("--bind-id", "bind_id", multiple=True, metavar="ID=MODULE:NAME",
              help="Bind a Paddle py_func callable id (Paddle files store process-local ids) "
                   "to a registered callable. Repeatable.")
@click.option("--steps", type=click.IntRange(min=1), default=None,
              help="Run N times (training: parameters are updated in place each step).")
@click.option("--batch-size", type=click.IntRange(min=1), default=None,
              help="With --steps: feed this many rows per step, cycling through the inputs "
                   "(default: all of them every step).")
@click.option("--save-params", is_flag=True,
              help="After the run, write the (updated) parameters back to the params file.")
@click.option("--max-loop-steps", type=click.IntRange(min=1), default=None, metavar="N",
              help="Stop with an error when a while loop runs more than N iterations "
                   "(default 10,000,000): a runaway loop in an untrusted file ends cleanly.")
@click.option("--workers", type=click.IntRange(min=0), default=0,
              help="With --steps: train data-parallel on N Ray workers (the loss must be a "
                   "mean over the batch); with many inputs: score them on N workers.")
@click.option("--address", metavar="ADDR",
              help="With --workers: join this Ray cluster (default $RAY_ADDRESS, else start "
                   "one here).")
@click.option("--max-memory", "max_memory", default=None, metavar="SIZE",
              help="Stop with an error when the run would allocate more than SIZE (e.g. 512M, "
                   "4G; default: half the machine's memory, at most 8G).")
@click.option("--quiet", "-q", is_flag=True, help="Do not print the fetched values.")
def run(model, params, feeds, fetches, out, paths, bind_id, steps, batch_size, save_params,
        max_loop_steps, workers, address, max_memory, quiet) -> None:
    """Run MODEL (a pyir .pb or Paddle .pdmodel) and print its outputs.

    \b
    Examples:
      pyir run out/mlp.pb --feed samples/mlp_input.npy
      pyir run model.pdmodel --feed x=x.npy --feed y=y.npy --fetch softmax_0.tmp_0 -o out.npz
      pyir run train.pb --feed data.npz --steps 100 --save-params
      pyir run paddle_net.pdmodel --feed x.npy --path funcs/ --bind-id 0=myfuncs:tanh
      pyir run out/mlp.pb --feed a.npz --feed b.npz -o out/scores/     (one output each)
      pyir run train.pb --feed data.npz --steps 100 --batch-size 64 --workers 2
    """
    many = many_feeds(feeds)
    if many is not None:
        _run_many(model, many, params, fetches, out, paths, bind_id, steps, save_params,
                  max_loop_steps, workers, address, quiet)
        return
    if out and not out.endswith(".npz"):
        raise click.BadParameter(f"{out!r}: the outputs are written as an .npz archive; name the "
                                 f"file OUT.npz", param_hint="-o/--output")
    if workers and steps is None:
        raise click.BadParameter("--workers splits training (--steps) or many inputs (several "
                                 "--feed files, a directory); this run has neither",
                                 param_hint="--workers")
    if (workers or address) and fetches[1:]:
        raise click.BadParameter("data-parallel training fetches only the loss (the first "
                                 "--fetch)", param_hint="--fetch")
    options = {"batch_size": batch_size, "paths": paths, "id_bindings": bind_id,
               "max_loop_steps": max_loop_steps}
    from pyir.files.run import default_max_memory, parse_size

    memory = parse_size(max_memory) if max_memory else default_max_memory()
    if steps is None:
        result = files.run_model(model, feeds, fetches, params, max_memory=memory, **options)
    elif workers:
        from pyir import distributed

        with _progress(steps) as on_step:
            result = distributed.train(model, feeds, steps, workers=workers, params=params,
                                       loss=fetches[0] if fetches else None, address=address,
                                       on_step=on_step, **options)
    else:
        with _progress(steps) as on_step:
            result = files.run_model(model, feeds, fetches, params, steps=steps,
                                     on_step=on_step, max_memory=memory, **options)
    if steps is not None:
        click.echo(f"{steps} steps: {result.loss_name} {result.losses[0]:.6g} -> "
                   f"{result.losses[-1]:.6g}", err=True)
    if not quiet:
        _print_outputs(result.outputs)
    if out:
        files.write_npz(out, result.outputs)
    if save_params:
        path = params or result.loaded.params_path
        names = files.save_params(result.loaded, result.scope, path)
        click.echo(f"saved {len(names)} parameters to {path}", err=True)


def _run_many(model, inputs, params, fetches, out, paths, bind_id, steps, save_params,
              max_loop_steps, workers, address, quiet) -> None:
    """One run per input file: with -o DIR as `pyir map` (one DIR/<stem>.npz each), else
    printed one after another; a failed input is one line, the others still run."""
    for flag, given in (("--steps", steps), ("--save-params", save_params)):
        if given:
            raise click.BadParameter(f"{len(inputs)} inputs give {len(inputs)} runs; {flag} "
                                     f"trains on one feed (pass one .npz, or NAME=FILE feeds)",
                                     param_hint=flag)
    options = {"params": params, "fetches": fetches, "paths": paths, "id_bindings": bind_id,
               "max_loop_steps": max_loop_steps}
    if out:
        if out.endswith(".npz"):
            raise click.BadParameter(f"{out!r}: {len(inputs)} inputs give one output each; "
                                     f"-o names a directory for them", param_hint="-o/--output")
        from pyir.cli.map import run_many

        run_many(model, inputs, out, workers=workers, address=address, **options)
        return
    if workers:
        raise click.BadParameter("with many inputs, --workers needs -o DIR for the outputs",
                                 param_hint="--workers")
    from pyir.files.many import ModelSpec, Scorer, score_all

    failed = 0
    for path, outputs, error in score_all(Scorer(ModelSpec.load(model, **options)), inputs):
        if error is not None:
            failed += 1
            click.echo(f"pyir run: error: {path}: {' '.join(error.split())}", err=True)
        elif not quiet:
            click.echo(f"== {path}")
            _print_outputs(outputs)
    if failed:
        click.get_current_context().exit(min(failed, 100))


@contextmanager
def _progress(steps: int):
    """A progress bar on stderr that shows the last loss, started at the first step (so a run
    refused before it trains prints only its error); yields run_model's on_step."""
    shown, bars = {"loss": ""}, []
    with contextlib.ExitStack() as stack:
        def on_step(_, loss_name: str, loss: float) -> None:
            if not bars:
                bars.append(stack.enter_context(click.progressbar(
                    length=steps, label="training", file=sys.stderr, show_pos=True,
                    item_show_func=lambda _: shown["loss"])))
            shown["loss"] = f"{loss_name} {loss:.6g}"
            bars[0].update(1)

        yield on_step


def _print_outputs(named: dict) -> None:
    for name, value in named.items():
        value = np.asarray(value)
        click.echo(f"{name}: {value.dtype} {list(value.shape)}")
        click.echo(np.array2string(value))
