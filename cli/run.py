"""`pyir run MODEL`: a thin wrapper over `pyir.files.run_model` (load a program file and its
parameters, run it on fed arrays), then print the outputs, write -o OUT.npz and --save-params.
"""

from __future__ import annotations

import contextlib
import sys
from contextlib import contextmanager

import click
import numpy as np

from pyir import files


@click.command("run")
@click.argument("model", type=click.Path(dir_okay=False))
@click.option("--params", type=click.Path(dir_okay=False),
              help="Parameter file (.pdiparams or .npz; default: MODEL's .pdiparams beside it).")
@click.option("--feed", "feeds", multiple=True, metavar="[NAME=]FILE",
              help="Input data: FILE.npy (the single input), NAME=FILE.npy, or FILE.npz "
                   "(array names = input names). Repeatable.")
@click.option("--fetch", "fetches", multiple=True, metavar="NAME",
              help="Variable to fetch (repeatable; default: the file's fetch targets).")
@click.option("-o", "--output", "out", type=click.Path(dir_okay=False),
              help="Write the fetched arrays to OUT.npz (fetch name -> array).")
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
@click.option("--max-memory", "max_memory", default=None, metavar="SIZE",
              help="Stop with an error when the run would allocate more than SIZE (e.g. 512M, "
                   "4G; default: half the machine's memory, at most 8G).")
@click.option("--quiet", "-q", is_flag=True, help="Do not print the fetched values.")
def run(model, params, feeds, fetches, out, paths, bind_id, steps, batch_size, save_params,
        max_loop_steps, max_memory, quiet) -> None:
    """Run MODEL (a pyir .pb or Paddle .pdmodel) and print its outputs.

    \b
    Examples:
      pyir run out/mlp.pb --feed samples/mlp_input.npy
      pyir run model.pdmodel --feed x=x.npy --feed y=y.npy --fetch softmax_0.tmp_0 -o out.npz
      pyir run train.pb --feed data.npz --steps 100 --save-params
      pyir run paddle_net.pdmodel --feed x.npy --path funcs/ --bind-id 0=myfuncs:tanh
    """
    if out and not out.endswith(".npz"):
        raise click.BadParameter(f"{out!r}: the outputs are written as an .npz archive; name the "
                                 f"file OUT.npz", param_hint="-o/--output")
    from pyir.files.run import default_max_memory, parse_size

    options = {"batch_size": batch_size, "paths": paths, "id_bindings": bind_id,
               "max_loop_steps": max_loop_steps,
               "max_memory": parse_size(max_memory) if max_memory else default_max_memory()}
    if steps is None:
        result = files.run_model(model, feeds, fetches, params, **options)
    else:
        with _progress(steps) as on_step:
            result = files.run_model(model, feeds, fetches, params, steps=steps,
                                     on_step=on_step, **options)
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
