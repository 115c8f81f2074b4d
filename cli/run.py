"""`pyir run MODEL`: load a program file and its parameters, run it on fed arrays, print outputs.

    run
      +-- pyir.io.load_model       MODEL.pb / .pdmodel + params (default: the sidecar .pdiparams)
      +-- bind_feeds               --feed FILE.npy | NAME=FILE.npy | FILE.npz  ->  {input: array}
      +-- Executor.run             once, or --steps N times (a training program updates its
      |                            parameters in the scope each step)
      +-- print / -o OUT.npz / --save-params   (files written atomically)
"""

from __future__ import annotations

import io
import os
import sys
import zipfile

import click
import numpy as np

from pyir.errors import FeedError, PyirError, Where


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
@click.option("--quiet", "-q", is_flag=True, help="Do not print the fetched values.")
def run(model, params, feeds, fetches, out, paths, bind_id, steps, batch_size, save_params,
        quiet) -> None:
    """Run MODEL (a pyir .pb or Paddle .pdmodel) and print its outputs.

    \b
    Examples:
      pyir run out/mlp.pb --feed samples/mlp_input.npy
      pyir run model.pdmodel --feed x=x.npy --feed y=y.npy --fetch softmax_0.tmp_0 -o out.npz
      pyir run train.pb --feed data.npz --steps 100 --save-params
      pyir run paddle_net.pdmodel --feed x.npy --path funcs/ --bind-id 0=myfuncs:tanh
    """
    from pyir.callables import bind_ids, search_path
    from pyir.executor import Executor, Scope
    from pyir.io import load_model

    if not os.path.isfile(model):
        raise PyirError("no such model file", Where(file=model))
    if batch_size is not None and steps is None:
        raise PyirError("--batch-size needs --steps")
    scope = Scope()
    with search_path(list(paths)), bind_ids(_id_bindings(bind_id)):
        loaded = load_model(model, params=params, scope=scope)
        _check_params_found(loaded, model)
        feed = bind_feeds(feeds, list(loaded.feed_names), model)
        fetch_names = list(fetches) or list(loaded.fetch_names)
        if not fetch_names:
            raise PyirError("the file records no outputs (fetch ops); name them with --fetch",
                            Where(file=model))
        if steps is None:
            results = Executor().run(loaded.program, feed=feed, fetch_list=fetch_names,
                                     scope=scope)
        else:
            results = _train(loaded.program, feed, fetch_names, scope, steps, batch_size)
    named = dict(zip(fetch_names, results))
    if not quiet:
        _print_outputs(named)
    if out:
        os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
        write_npz(out, named)
    if save_params:
        _save_params(loaded, scope, params or loaded.params_path, model)


def _id_bindings(specs: tuple[str, ...]) -> dict[int, str]:
    """--bind-id ID=MODULE:NAME values as {id: reference} (resolved like a file's references)."""
    bindings = {}
    for spec in specs:
        key, sep, reference = spec.partition("=")
        if not sep or not key.strip().lstrip("-").isdigit() or ":" not in reference:
            raise PyirError(f"--bind-id {spec!r}: expected ID=MODULE:NAME, e.g. 0=myfuncs:tanh")
        bindings[int(key)] = reference.strip()
    return bindings


def _check_params_found(loaded, model: str) -> None:
    from pyir.io import persistable_names

    names = persistable_names(loaded.program)
    if names and loaded.params_path is None:
        sidecar = os.path.splitext(model)[0] + ".pdiparams"
        raise PyirError(f"the program has {len(names)} parameters ({names[0]}, ...) but there "
                        f"is no {sidecar}; pass --params FILE (.pdiparams or .npz)",
                        Where(file=model))


def bind_feeds(specs: tuple[str, ...], inputs: list[str], model: str) -> dict:
    """Turn --feed values into {input name: array}.

    Rules: `NAME=FILE.npy` binds NAME; a bare `FILE.npz` binds each array to the input of the
    same name; a bare `FILE.npy` binds to the program's only input. Every input must be bound
    exactly once, and only inputs may be bound.

    Example:
        >>> bind_feeds(("x=x.npy",), ["x"], "model.pb")["x"].shape
        (4, 16)
    """
    feed: dict[str, np.ndarray] = {}
    for spec in specs:
        for name, value in _feed_items(spec, inputs, model):
            if name not in inputs:
                raise FeedError(f"--feed {spec}: the program has no input {name!r} (its inputs: "
                                f"{', '.join(inputs) or 'none'})", Where(file=model, var=name))
            if name in feed:
                raise FeedError(f"--feed {spec}: input {name!r} is fed twice",
                                Where(file=model, var=name))
            feed[name] = value
    missing = [n for n in inputs if n not in feed]
    if missing:
        raise FeedError(f"input {missing[0]!r} is not fed ({len(missing)} of {len(inputs)} "
                        f"inputs missing: {', '.join(missing)}); pass --feed NAME=FILE.npy",
                        Where(file=model, var=missing[0]))
    return feed


def _feed_items(spec: str, inputs: list[str], model: str):
    name, sep, path = spec.partition("=")
    if sep and not os.path.exists(spec):
        if not name:
            raise FeedError(f"--feed {spec}: expected NAME=FILE.npy", Where(file=model))
        return [(name, _load_array(path, spec, model))]
    if spec.endswith(".npz"):
        return list(_load_npz(spec, model).items())
    if len(inputs) != 1:
        raise FeedError(f"--feed {spec}: a bare .npy binds to the only input, but the program "
                        f"has {len(inputs)} ({', '.join(inputs) or 'none'}); use "
                        f"--feed NAME=FILE.npy or an .npz", Where(file=model))
    return [(inputs[0], _load_array(spec, spec, model))]


def _load_array(path: str, spec: str, model: str) -> np.ndarray:
    try:
        value = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise FeedError(f"--feed {spec}: no such file {path!r}", Where(file=model)) from None
    except (OSError, ValueError) as e:
        raise FeedError(f"--feed {spec}: cannot read {path!r} as .npy: {e}",
                        Where(file=model)) from None
    if not isinstance(value, np.ndarray):
        raise FeedError(f"--feed {spec}: {path!r} is an .npz archive; pass it without NAME=",
                        Where(file=model))
    return value


def _load_npz(path: str, model: str) -> dict:
    try:
        with np.load(path, allow_pickle=False) as archive:
            return {k: archive[k] for k in archive.files}
    except FileNotFoundError:
        raise FeedError(f"--feed {path}: no such file", Where(file=model)) from None
    except (OSError, ValueError, AttributeError) as e:
        raise FeedError(f"--feed {path}: cannot read it as .npz: {e}",
                        Where(file=model)) from None


def _train(program, feed: dict, fetch_names: list, scope, steps: int,
           batch_size: int | None) -> list:
    """`pyir.training.run_steps` with the first fetch as the loss: a progress bar on stderr,
    then one line with the first and last loss."""
    from pyir.training import run_steps

    loss_name = fetch_names[0]
    shown = {"loss": ""}
    with click.progressbar(length=steps, label="training", file=sys.stderr, show_pos=True,
                           item_show_func=lambda _: shown["loss"]) as bar:
        def on_step(_, loss: float) -> None:
            shown["loss"] = f"{loss_name} {loss:.6g}"
            bar.update(1)

        result = run_steps(program, feed, steps, scope, loss=loss_name,
                           fetch_list=fetch_names[1:], batch_size=batch_size, on_step=on_step)
    click.echo(f"{steps} steps: {loss_name} {result.losses[0]:.6g} -> {result.losses[-1]:.6g}",
               err=True)
    return [result.last[n] for n in fetch_names]


def _print_outputs(named: dict) -> None:
    for name, value in named.items():
        value = np.asarray(value)
        click.echo(f"{name}: {value.dtype} {list(value.shape)}")
        click.echo(np.array2string(value))


def write_npz(path: str, arrays: dict) -> None:
    """Write `arrays` (name -> array) to `path` as .npz through a temp file and a rename."""
    from pyir.serialize import atomic_write

    buf = io.BytesIO()
    # np.savez(**arrays) would reject an array named "file"; write the members directly.
    with zipfile.ZipFile(buf, "w") as archive:
        for name, value in arrays.items():
            with archive.open(name + ".npy", "w") as member:
                np.lib.format.write_array(member, np.asanyarray(value), allow_pickle=False)
    atomic_write(path, buf.getvalue())


def _save_params(loaded, scope, path: str | None, model: str) -> None:
    """Write the program's persistable values back where they came from (atomically)."""
    from pyir.io import persistable_names
    from pyir.params import write_params

    names = persistable_names(loaded.program)
    if not names:
        raise PyirError("--save-params: the program has no parameters", Where(file=model))
    write_params(path, {n: scope[n] for n in names})
    click.echo(f"saved {len(names)} parameters to {path}", err=True)
