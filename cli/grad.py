"""`pyir grad MODEL`: a thin wrapper over `pyir.files.grad_model` (append the backward ops,
write OUT.pb) and `pyir.files.check_model_gradients` (--check)."""

from __future__ import annotations

import sys

import click

from pyir.files import check_model_gradients, grad_model


@click.command("grad")
@click.argument("model", type=click.Path(dir_okay=False))
@click.option("--loss", help="The scalar to differentiate (default: the program's single "
                             "scalar output).")
@click.option("--wrt", multiple=True, metavar="NAME",
              help="Variable to differentiate against (repeatable; default: every parameter "
                   "and every input with stop_gradient=False).")
@click.option("-o", "--output", "out", type=click.Path(dir_okay=False),
              help="Program file to write (default: <stem>_grad.pdmodel in the current directory; "
                   "with --check, nothing is written unless -o is given).")
@click.option("--params", type=click.Path(dir_okay=False),
              help="Parameter file (.pdiparams or .npz; default: MODEL's .pdiparams beside it).")
@click.option("--check", is_flag=True,
              help="Compare the backward ops with finite differences in float64 (needs "
                   "--feed); exit 1 on a mismatch.")
@click.option("--feed", "feeds", multiple=True, metavar="[NAME=]FILE",
              help="Input data for --check: FILE.npy, NAME=FILE.npy or FILE.npz.")
@click.option("--path", "paths", multiple=True, type=click.Path(file_okay=False),
              help="Directory to search for py_func callables' modules (repeatable).")
@click.option("--bind-id", "bind_id", multiple=True, metavar="ID=MODULE:NAME",
              help="--check: bind a Paddle py_func callable id (Paddle files store "
                   "process-local ids) to a registered callable. Repeatable.")
@click.option("--forward-only", is_flag=True,
              help="MODEL already holds backward or optimizer ops (a training program): "
                   "drop them and differentiate its forward part.")
@click.option("--max-elements", type=click.IntRange(min=1), default=32, show_default=True,
              help="--check: elements sampled per gradient.")
@click.option("--rtol", type=float, default=1e-4, show_default=True, help="--check tolerance.")
@click.option("--atol", type=float, default=1e-6, show_default=True, help="--check tolerance.")
def grad(model, loss, wrt, out, params, check, feeds, paths, bind_id, forward_only,
         max_elements, rtol, atol) -> None:
    """Append backward ops to MODEL and write OUT.pb, whose fetch targets are the loss and
    the gradients (`pyir run OUT.pb --feed ...` prints them), or --check them.

    \b
    Examples:
      pyir grad mlp.pb -o mlp_grad.pb
      pyir grad model.pdmodel --loss mean_0.tmp_0 --wrt fc_0.w_0 --wrt x -o g.pb
      pyir grad mlp.pb --check --feed x=x.npy --feed label=y.npy

    The check runs a float64 copy of the program; a py_func callable that does not return
    float64 for float64 inputs stops it with an error naming the op and the callable.
    """
    if check:
        _check(model, loss, wrt, params, feeds, paths, max_elements, rtol, atol, bind_id,
               forward_only)
        if not out:
            return
    written = grad_model(model, out, loss, wrt, params, paths, forward_only=forward_only)
    click.echo(f"wrote {written.path}: loss {written.loss}, gradients "
               f"{', '.join(g for _, g in written.gradients)}")
    if not written.params_written:
        click.echo(f"(no parameters found beside {model}: only the program was written; run it "
                   f"with --params FILE)", err=True)


def _check(model, loss, wrt, params, feeds, paths, max_elements, rtol, atol, bind_id,
           forward_only) -> None:
    results = check_model_gradients(model, feeds, loss, wrt, params, paths,
                                    max_elements=max_elements, rtol=rtol, atol=atol,
                                    id_bindings=bind_id, forward_only=forward_only)
    for r in results:
        click.echo(str(r))
    bad = [r.grad_name for r in results if not r.ok]
    if bad:
        click.echo(f"pyir grad: gradient check failed for {', '.join(bad)} "
                   f"(|analytic - numeric| > {atol} + {rtol} * |numeric|)", err=True)
        sys.exit(1)
    click.echo(f"gradient check passed ({len(results)} gradients)")
