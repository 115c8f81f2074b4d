"""`pyir grad MODEL`: append the backward ops to a program file, or check them.

    grad
      +-- pyir.io.load_model           MODEL (+ params) into a scope
      +-- backward.differentiate       --loss (default: the single scalar output), --wrt
      |                                (default: parameters + inputs with stop_gradient=False)
      +-- training.save_program        OUT.pb with fetch targets [loss, grads...] (+ params)
      +-- --check: gradcheck.check_program   float64 finite differences; exit 1 on mismatch
"""

from __future__ import annotations

import os
import sys

import click

from pyir.errors import PyirError, Where


@click.command("grad")
@click.argument("model", type=click.Path(dir_okay=False))
@click.option("--loss", help="The scalar to differentiate (default: the program's single "
                             "scalar output).")
@click.option("--wrt", multiple=True, metavar="NAME",
              help="Variable to differentiate against (repeatable; default: every parameter "
                   "and every input with stop_gradient=False).")
@click.option("-o", "--output", "out", type=click.Path(dir_okay=False),
              help="Program file to write (default: <stem>_grad.pb in the current directory; "
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
@click.option("--max-elements", type=click.IntRange(min=1), default=32, show_default=True,
              help="--check: elements sampled per gradient.")
@click.option("--rtol", type=float, default=1e-4, show_default=True, help="--check tolerance.")
@click.option("--atol", type=float, default=1e-6, show_default=True, help="--check tolerance.")
def grad(model, loss, wrt, out, params, check, feeds, paths, max_elements, rtol, atol) -> None:
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
    from pyir.backward import differentiate
    from pyir.callables import search_path
    from pyir.executor import Scope
    from pyir.io import load_model
    from pyir.training import save_program

    if not os.path.isfile(model):
        raise PyirError("no such model file", Where(file=model))
    if check and not feeds:
        raise PyirError("--check runs the program: give its inputs with --feed")
    scope = Scope()
    with search_path(list(paths)):
        loaded = load_model(model, params=params, scope=scope)
        if check:
            _check(loaded, loss, wrt, feeds, scope, model, max_elements, rtol, atol)
            if not out:
                return
        program = loaded.program.clone()
        loss_name, pairs = differentiate(program, loss, list(wrt))
    out = out or os.path.splitext(os.path.basename(model))[0] + "_grad.pb"
    save_program(out, program, list(loaded.feed_names), [loss_name] + [g for _, g in pairs],
                 scope)
    click.echo(f"wrote {out}: loss {loss_name}, gradients "
               f"{', '.join(g for _, g in pairs)}")


def _check(loaded, loss, wrt, feeds, scope, model, max_elements, rtol, atol) -> None:
    from pyir.cli.run import bind_feeds
    from pyir.gradcheck import check_program

    feed = bind_feeds(feeds, list(loaded.feed_names), model)
    results = check_program(loaded.program, loss, feed, scope, list(wrt) or None,
                            max_elements=max_elements, rtol=rtol, atol=atol)
    for r in results:
        click.echo(str(r))
    bad = [r.grad_name for r in results if not r.ok]
    if bad:
        click.echo(f"pyir grad: gradient check failed for {', '.join(bad)} "
                   f"(|analytic - numeric| > {atol} + {rtol} * |numeric|)", err=True)
        sys.exit(1)
    click.echo(f"gradient check passed ({len(results)} gradients)")
