"""`pyir.distributed`: scale one saved model out over a Ray cluster (docs/scale-out.md).

    map_files(model, inputs, outdir, workers=N)    `pyir map`: one output per input file
    train(model, feeds, steps, workers=N)          `pyir run --steps K --workers N`:
                                                   data-parallel training

With `workers=0` both run in this process and need no Ray; with `workers > 0` they start a
Ray cluster on this machine, or join the one at `address` / $RAY_ADDRESS (`pip install
'pyir[ray]'`). Only `cluster.py` imports Ray.

Of Paddle's `paddle.distributed` it has what means something in one process (single.py:
rank 0 of 1, `init_parallel_env()` a no-op), so scripts that guard logging by rank run; its
collectives, process groups and fleet are refused with one line that points here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Callable

from .. import unsupported as _unsupported
from ..errors import PyirError
from ..files.many import ModelSpec, Scorer, expand_inputs, is_complete, output_paths, score_all
from ..files.params import write_npz
from ..files.run import RunResult, run_model
from . import cluster as _cluster
from .data_parallel import LocalPool, split_training, train_data_parallel
from .single import (ParallelEnv, get_rank, get_world_size, init_parallel_env,  # noqa: F401
                     is_available, is_initialized)


@dataclass
class MapResult:
    """What `map_files` did: the outputs written and skipped (already complete), and the
    failed inputs with their error."""

    written: list = field(default_factory=list)
    skipped: list = field(default_factory=list)
    failed: dict = field(default_factory=dict)
    outputs: dict = field(default_factory=dict)     # input -> its output path


def map_files(model: str, inputs, outdir: str, *, workers: int = 0, fetches=(),
              params: str | None = None, paths=(), id_bindings=None,
              max_loop_steps: int | None = None, address: str | None = None,
              on_done: Callable[[str, str | None], None] | None = None) -> MapResult:
    """Run `model` on every input file, writing OUTDIR/<input stem>.npz for each (the same
    arrays `pyir run MODEL --feed INPUT -o OUT.npz` writes).

    Args:
        inputs: `.npy` / `.npz` files, directories (their `.npy`/`.npz` files) and globs.
        workers: 0 runs in this process; N > 0 runs N Ray workers, each building the model
            once from one copy in the object store.
        fetches, params, paths, id_bindings, max_loop_steps: as for `pyir.files.run_model`.
        address: a Ray cluster to join (default $RAY_ADDRESS, else a local one).
        on_done: called as on_done(input, error or None) after each input, skipped ones
            included (progress bars).

    An output that exists and holds every fetch is complete (outputs are written atomically)
    and is skipped, so an interrupted run is finished by running it again. A failed input
    does not stop the others: its error is in `result.failed`.

    Example:
        >>> result = pyir.distributed.map_files("out/mlp.pb", ["data/"], "out/scores",
        ...                                     workers=2)
        >>> len(result.written), result.failed
        (64, {})
    """
    if workers < 0:
        raise PyirError(f"workers must be 0 (in this process) or more, got {workers}")
    files = expand_inputs(inputs)
    outputs = output_paths(files, outdir)
    spec = ModelSpec.load(model, fetches, params, paths=paths, id_bindings=id_bindings,
                          max_loop_steps=max_loop_steps)
    result = MapResult(outputs=outputs)
    todo = []
    for path in files:
        if is_complete(outputs[path], spec.fetch_names):
            result.skipped.append(path)
            if on_done is not None:
                on_done(path, None)
        else:
            todo.append(path)
    if not todo:
        return result
    if workers == 0:
        _collect(score_all(Scorer(spec), todo), outputs, result, on_done)
        return result
    pool = _cluster.MapPool(spec, workers, address)
    try:
        _collect(pool.map(todo), outputs, result, on_done)
    finally:
        pool.close()
    return result


def _collect(results, outputs: dict, result: MapResult, on_done) -> None:
    for path, values, error in results:
        if error is None:
            try:
                write_npz(outputs[path], values)
                result.written.append(path)
            except OSError as e:
                error = f"{e.filename or outputs[path]}: {e.strerror or e}"
        if error is not None:
            result.failed[path] = error
        if on_done is not None:
            on_done(path, error)


def train(model: str, feeds=(), steps: int = 1, *, workers: int = 2,
          batch_size: int | None = None, params: str | None = None, loss: str | None = None,
          paths=(), id_bindings=None, max_loop_steps: int | None = None,
          address: str | None = None, in_process: bool = False,
          on_step: Callable[[int, str, float], None] | None = None) -> RunResult:
    """Train a saved training program data-parallel: each step's batch is split over
    `workers` shards, each computes its gradients with the program's backward ops, the
    gradients are averaged (weighted by rows) and the update ops apply once, here.

    The parameters after `steps` steps equal a one-process `pyir run --steps` on the same
    batches, to float tolerance. The program's loss must be a mean over the batch
    (docs/scale-out.md); others are refused.

    Args:
        feeds: {input: array} or `--feed` strings; `batch_size` rows per step (cycling).
        workers: shards per step; 0 trains in this process without splitting.
        in_process: compute the shards one after another in this process (no Ray): the
            same numbers as a cluster, to check a program before sending it out.
        address, paths, id_bindings, max_loop_steps, params: as for `map_files`.

    Returns:
        RunResult: `scope` holds the trained parameters (`pyir.files.save_params` writes
        them), `losses` each step's loss.

    Example:
        >>> result = pyir.distributed.train("train.pb", ["data.npz"], 100, workers=2,
        ...                                 batch_size=64)
        >>> pyir.files.save_params(result.loaded, result.scope)
    """
    if workers < 0:
        raise PyirError(f"workers must be 0 (in this process) or more, got {workers}")
    options = {"batch_size": batch_size, "paths": paths, "id_bindings": id_bindings,
               "max_loop_steps": max_loop_steps}
    if workers == 0:
        return run_model(model, feeds, [loss] if loss else (), params, steps=steps,
                         on_step=on_step, **options)
    common = dict(workers=workers, params=params, loss=loss, on_step=on_step, **options)
    if in_process:
        return train_data_parallel(model, feeds, steps, make_pool=LocalPool, **common)
    return train_data_parallel(model, feeds, steps, **common,
                               make_pool=partial(_cluster.GradPool, address=address))


# Paddle's own `paddle.distributed` (collectives, process groups, fleet) is another API.
_NOT_PADDLE = ("Paddle's collective training API is not part of pyir; pyir.distributed scales "
               "a saved program out with Ray instead: map_files / train, `pyir map`, `pyir run "
               "--workers` (docs/scale-out.md)")
UNSUPPORTED = {name: _NOT_PADDLE for name in (
    "DataParallel", "spawn", "launch", "fleet", "new_group", "barrier", "all_reduce",
    "all_gather", "broadcast", "reduce", "scatter", "alltoall", "send", "recv", "ReduceOp",
    "shard_tensor", "ProcessMesh", "all_gather_object", "broadcast_object_list", "split",
    "get_group", "wait", "irecv", "isend", "stream", "rpc", "sharding", "gloo_barrier")}
__getattr__ = _unsupported.module_getattr(__name__, UNSUPPORTED)

__all__ = ["map_files", "train", "MapResult", "split_training", "get_rank", "get_world_size",
           "is_initialized", "is_available", "init_parallel_env", "ParallelEnv"]
