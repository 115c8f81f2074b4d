"""`pyir export TRAIN`: a thin wrapper over `pyir.files.export_model` (a trained program to a
deployable inference model)."""

from __future__ import annotations

import click

from pyir.files import export_model


@click.command("export")
@click.argument("model", type=click.Path(dir_okay=False))
@click.option("-o", "--output", "out", required=True, type=click.Path(dir_okay=False),
              help="Inference program to write (.pdmodel or .pb); its parameters go to "
                   "<stem>.pdiparams beside it.")
@click.option("--fetch", "fetches", multiple=True, metavar="NAME",
              help="Output to keep (repeatable; default: MODEL's fetch targets).")
@click.option("--params", type=click.Path(dir_okay=False),
              help="Trained parameters (.pdiparams or .npz; default: MODEL's .pdiparams "
                   "beside it).")
@click.option("--path", "paths", multiple=True, type=click.Path(file_okay=False),
              help="Directory to search for py_func callables' modules (repeatable).")
def export(model, out, fetches, params, paths) -> None:
    """Write the inference model of a trained MODEL: the forward ops the --fetch outputs
    need (backward and optimizer ops dropped, is_test set), and only the parameters those
    ops read (no optimizer moments), in Paddle's save_inference_model layout.

    \b
    The inputs of the result are the ones the outputs need: a label that only the loss
    reads is not an input any more.

    \b
    Example:
      pyir build train.py -o train.pb
      pyir run train.pb --feed data.npz --steps 100 --save-params
      pyir export train.pb -o infer.pdmodel --fetch softmax_0.tmp_0
      pyir run infer.pdmodel --feed x=new_x.npy
    """
    done = export_model(model, out, fetches, params, paths)
    click.echo(f"exported {model} -> {done.path}"
               + (f" (+ {done.params_path})" if done.params_path else "")
               + f": inputs {', '.join(done.feed_names) or 'none'}; outputs "
               f"{', '.join(done.fetch_names)}; {done.dropped_ops} training ops dropped")
