"""Running a program file: what `pyir run MODEL` does, and the feed files it reads.

    run_model(model, feeds)
      +-- load_model          MODEL.pb / .pdmodel + params (default: the sidecar .pdiparams)
      +-- read_feeds          FILE.npy | NAME=FILE.npy | FILE.npz  ->  {input: array}
      +-- Executor.run        once, or `steps` times through training.run_steps (a training
                              program updates its parameters in the scope each step)
    write_npz / save_params   the outputs, the (updated) parameters; atomically
"""

from __future__ import annotations

import os
import zipfile
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..callables import bind_ids, search_path
from ..errors import FeedError, PyirError, Where
from ..executor import Executor, Scope
from ..ops.control_flow import max_loop_steps as loop_limit
from ..training import run_steps
from .export import forward_part
from .inference import persistable_names, pruned_to
from .model import LoadedModel, load_model, state_updates
from .params import write_params


@dataclass
class RunResult:
    """What `run_model` returns: the fetched values by name, the model as loaded (its
    parameters, updated by training, are in `scope`) and, when it trained, the loss's name
    and each step's loss."""

    outputs: dict
    loaded: LoadedModel
    scope: Scope
    loss_name: str | None = None
    losses: list[float] = field(default_factory=list)


def run_model(model: str, feeds=(), fetches=(), params: str | None = None, *,
              steps: int | None = None, batch_size: int | None = None, paths=(),
              id_bindings=None, max_loop_steps: int | None = None,
              on_step: Callable[[int, str, float], None] | None = None) -> RunResult:
    """Load `model` (a pyir .pb or Paddle .pdmodel) with its parameters and run it, as
    `pyir run` does.

    Args:
        feeds: `{input name: array}`, or `--feed` strings (`read_feeds`).
        fetches: names to fetch (default: the file's fetch targets); with `steps`, the first
            is the loss.
        params: a `.pdiparams` or `.npz` file (default: the model's `.pdiparams` beside it).
        steps: run this many times (training); `batch_size` rows per step (default: all).
        paths: directories to search for py_func callables' modules.
        id_bindings: `{Paddle callable id: "module:name"}` for Paddle files, or `--bind-id`
            strings "ID=MODULE:NAME".
        on_step: with `steps`, called as on_step(step, loss name, loss) after each step.
        max_loop_steps: a `while` op running more iterations than this stops with an error
            (default 10,000,000).

    Example:
        >>> result = pyir.files.run_model("out/mlp.pb", {"x": x})
        >>> result.outputs["fc_1.tmp_2"].shape
        (4, 4)
    """
    if not os.path.isfile(model):
        raise PyirError("no such model file", Where(file=model))
    if batch_size is not None and steps is None:
        raise PyirError("--batch-size needs --steps")
    scope = Scope()
    if not isinstance(id_bindings, dict):
        id_bindings = parse_id_bindings(id_bindings or ())
    with search_path(list(paths)), bind_ids(id_bindings), loop_limit(max_loop_steps):
        loaded = load_model(model, params=params, scope=scope)
        _check_params_found(loaded, model)
        fetch_names = list(fetches) or list(loaded.fetch_names)
        if not fetch_names:
            raise PyirError("the file records no outputs (fetch ops); name them with --fetch",
                            Where(file=model))
        program, inputs = loaded.program, list(loaded.feed_names)
        if steps is None and fetches and state_updates(program):
            # Values of a training program, asked for by name: run only the forward ops they
            # need (no update, no label the loss alone reads).
            program = pruned_to(forward_part(program), fetch_names)
            reads = {n for op in program.global_block().ops for n in op.input_arg_names}
            inputs = [n for n in inputs if n in reads]
        feed = dict(feeds) if isinstance(feeds, dict) else read_feeds(feeds, inputs, model)
        if steps is None:
            results = Executor().run(program, feed=feed, fetch_list=fetch_names, scope=scope)
            return RunResult(dict(zip(fetch_names, results)), loaded, scope)
        if not state_updates(loaded.program):
            raise PyirError("--steps trains a training program, but no op of this one updates a "
                            "parameter (an inference program?): run it without --steps, or "
                            "build it with an optimizer's minimize(loss)", Where(file=model))
        loss = fetch_names[0]
        report = None if on_step is None else lambda step, value: on_step(step, loss, value)
        trained = run_steps(loaded.program, feed, steps, scope, loss=loss,
                            fetch_list=fetch_names[1:], batch_size=batch_size, on_step=report)
    return RunResult({n: trained.last[n] for n in fetch_names}, loaded, scope, loss,
                     trained.losses)


def parse_id_bindings(specs) -> dict[int, str]:
    """`--bind-id` strings ID=MODULE:NAME as {id: reference} (resolved like a file's references).

    Example:
        >>> parse_id_bindings(["0=myfuncs:tanh"])
        {0: 'myfuncs:tanh'}
    """
    bindings = {}
    for spec in specs:
        key, sep, reference = spec.partition("=")
        if not sep or not key.strip().lstrip("-").isdigit() or ":" not in reference:
            raise PyirError(f"--bind-id {spec!r}: expected ID=MODULE:NAME, e.g. 0=myfuncs:tanh")
        bindings[int(key)] = reference.strip()
    return bindings


def _check_params_found(loaded: LoadedModel, model: str) -> None:
    names = persistable_names(loaded.program)
    if names and loaded.params_path is None:
        sidecar = os.path.splitext(model)[0] + ".pdiparams"
        raise PyirError(f"the program has {len(names)} parameters ({names[0]}, ...) but there "
                        f"is no {sidecar}; pass --params FILE (.pdiparams or .npz)",
                        Where(file=model))


def save_params(loaded: LoadedModel, scope: Scope, path: str | None = None) -> list[str]:
    """Write the program's persistable values from `scope` back to `path` (default: where
    they were loaded from), atomically; returns their names.

    Example:
        >>> save_params(result.loaded, result.scope)      # after training
    """
    path = path or loaded.params_path
    names = persistable_names(loaded.program)
    if not names:
        raise PyirError("--save-params: the program has no parameters",
                        Where(file=loaded.program.source))
    write_params(path, {n: scope[n] for n in names})
    return names


# --- feed files ------------------------------------------------------------------------------
def read_feeds(specs, inputs: list[str], model: str) -> dict:
    """Turn `--feed` strings into {input name: array}.

    Rules: `NAME=FILE.npy` binds NAME; a bare `FILE.npz` binds each array to the input of the
    same name; a bare `FILE.npy` binds to the program's only input. Every input must be bound
    exactly once, and only inputs may be bound.

    Example:
        >>> read_feeds(("x=x.npy",), ["x"], "model.pb")["x"].shape
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
        return _load_npz(spec, model, inputs)
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


def _load_npz(path: str, model: str, inputs: list[str]) -> list:
    """(name, array) for each member; a member that is no input is refused before any member
    is decompressed, and each member's read error names it."""
    try:
        archive = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise FeedError(f"--feed {path}: no such file", Where(file=model)) from None
    except (OSError, ValueError, zipfile.BadZipFile) as e:
        raise FeedError(f"--feed {path}: cannot read it as .npz: {e}",
                        Where(file=model)) from None
    if not hasattr(archive, "files"):
        raise FeedError(f"--feed {path}: not an .npz archive (an .npy? pass it as NAME=FILE)",
                        Where(file=model))
    with archive:
        stray = [k for k in archive.files if k not in inputs]
        if stray:
            raise FeedError(f"--feed {path}: the program has no input {stray[0]!r} (its "
                            f"inputs: {', '.join(inputs) or 'none'})",
                            Where(file=model, var=stray[0]))
        items = []
        for name in archive.files:
            try:
                items.append((name, archive[name]))
            except (OSError, ValueError, zipfile.BadZipFile, EOFError) as e:
                raise FeedError(f"--feed {path}: member {name!r} cannot be read: {e}",
                                Where(file=model, var=name)) from None
        return items


__all__ = ["run_model", "RunResult", "read_feeds", "save_params"]
