"""From a trained program to a deployable one: what `pyir export TRAIN.pb` does.

    export_model(train, out, fetches)
      +-- load_model            TRAIN (+ its trained params) into a scope
      +-- forward_part          drop the backward and optimizer ops (their op_role says which)
      +-- inference_program     prune to the fetches, is_test=True, feed/fetch ops (Paddle's
      |                         save_inference_model layout); the feeds are the inputs the
      |                         fetches need, so a label the loss reads is not asked for
      +-- write_files           OUT + <stem>.pdiparams holding only what OUT reads (no
                                optimizer moments, no learning rate), both or neither
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from .. import registry
from ..builder import ROLE_BACKWARD, ROLE_OPTIMIZE
from ..callables import search_path
from ..errors import PyirError, Where
from ..executor import Scope
from ..framework import Program
from .atomic import write_files
from .inference import inference_program, op_reads, persistable_names
from .model import _program_and_params, load_model

# Paddle's OpRole bits (docs/training.md): ops carrying either belong to training only.
_TRAINING_ROLES = ROLE_BACKWARD | ROLE_OPTIMIZE
_LR_SCHED = 16


@dataclass
class ExportedModel:
    """What `export_model` wrote: the program file, its params file (None when it has no
    parameters), its inputs and outputs, and how many ops the export dropped."""

    path: str
    params_path: str | None
    feed_names: list[str]
    fetch_names: list[str]
    dropped_ops: int


def forward_part(program: Program) -> Program:
    """A copy of `program` without its backward, optimizer and learning-rate-schedule ops.

    Example:
        >>> len(forward_part(train).global_block().ops) < len(train.global_block().ops)
        True
    """
    copy = program.clone()
    block = copy.global_block()
    block.ops = [op for op in block.ops
                 if not int(op.attrs.get("op_role", 0)) & (_TRAINING_ROLES | _LR_SCHED)]
    copy._bump()
    copy.source = program.source
    return copy


def export_model(model: str, out: str, fetches=(), params: str | None = None,
                 paths=()) -> ExportedModel:
    """Write the inference program of the trained `model` to `out` with the parameters it
    reads, as `pyir export` does.

    Args:
        model: a training program file (`pyir build` of a model with an optimizer, or any
            program file) whose params (default: `<stem>.pdiparams` beside it) hold the
            trained values.
        out: the file to write (`.pdmodel` or `.pb`); its params go to `<stem>.pdiparams`.
        fetches: the outputs to keep (default: the model's fetch targets).
        params: the trained parameters file (`.pdiparams` or `.npz`).
        paths: directories to search for py_func callables' modules.

    Example:
        >>> export_model("out/train.pb", "out/infer.pdmodel", ["softmax_0.tmp_0"]).feed_names
        ['x']
    """
    if not os.path.isfile(model):
        raise PyirError("no such model file", Where(file=model))
    if os.path.splitext(out)[1] not in (".pdmodel", ".pb"):
        raise PyirError(f"the exported program is written as a .pdmodel or .pb file, not "
                        f"{os.path.basename(out)!r}", Where(file=out))
    scope = Scope()
    with search_path(list(paths)):
        loaded = load_model(model, params=params, scope=scope)
    forward = forward_part(loaded.program)
    fetch_names = list(fetches) or list(loaded.fetch_names)
    if not fetch_names:
        raise PyirError("the model has no fetch targets: name the outputs to keep with --fetch",
                        Where(file=model))
    _check_fetches(forward, loaded.program, fetch_names, model)
    feeds = _needed_feeds(forward, loaded.feed_names, fetch_names)
    infer = inference_program(forward, feeds, fetch_names)
    missing = [n for n in persistable_names(infer) if n not in scope]
    if missing:
        raise PyirError(f"the exported program reads {', '.join(missing)}, which have no "
                        f"trained values: give the trained params with --params",
                        Where(file=model, var=missing[0]))
    files = _program_and_params(infer, out, scope, None)
    write_files(files)
    params_path = next((p for p in files if p != out), None)
    return ExportedModel(out, params_path, feeds, fetch_names,
                         len(loaded.program.global_block().ops)
                         - len(forward.global_block().ops))


def _check_fetches(forward: Program, whole: Program, names: list[str], model: str) -> None:
    """Each fetch is a variable the forward part computes (or reads)."""
    block = forward.global_block()
    computing = [op for op in block.ops if registry.get(op.type).io is None]
    made = {n: None for op in computing for n in op.output_arg_names}
    read = {n for op in computing for n in op.input_arg_names}
    for name in names:
        if whole.global_block().find_var(name) is None:
            last = [n for n in made if not block.var(n).persistable][-6:]
            raise PyirError(f"{name!r} is not a variable of the program; the last outputs of "
                            f"its forward part are {', '.join(last) or 'none'}",
                            Where(file=model, var=name))
        if name not in made and name not in read:
            raise PyirError(f"{name!r} is computed only by the backward pass or the optimizer; "
                            f"an inference program can fetch only forward values",
                            Where(file=model, var=name))


def _needed_feeds(forward: Program, feed_names: list[str], fetches: list[str]) -> list[str]:
    """The inputs (in the model's order) that the ops computing `fetches` read."""
    block = forward.global_block()
    needed = set(fetches)
    for op in reversed(block.ops):
        if any(n in needed for n in op.output_arg_names):
            needed |= op_reads(forward, op, set())
    return [n for n in feed_names if n in needed]


__all__ = ["export_model", "forward_part", "ExportedModel"]
