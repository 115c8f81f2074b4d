"""Data-parallel training of one saved training program (docs/scale-out.md, "Training").

A training program's global block holds, by `op_role` (pyir/builder.py, as Paddle marks
them): the forward ops (0), the loss (256), the backward ops (1, the loss@GRAD seed 257), then
the update ops (2: gradient clipping, weight decay, the optimizer). `split_training` cuts it
in two:

    gradient part   forward + loss + backward ops: run by each worker on its shard of the
                    batch; it returns the shard's loss and the gradients the update part reads
    update part     the role-2 ops (and learning-rate schedules, role 16): run once, here,
                    on the gradients averaged over the shards (weighted by their rows),
                    updating the parameters in the scope

The average equals the full batch's gradient when the loss is a mean over the batch and each
row's loss depends only on that row; `split_training` checks the first and refuses a program
whose gradient part updates state (batch_norm's running statistics), which would differ per
shard. A step's parameters go to the workers once (the object store); the workers hold no
state, so a worker that dies is replaced and its shard recomputed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

from ..builder import ROLE_BACKWARD, ROLE_LOSS, ROLE_OPTIMIZE
from ..errors import PyirError, Where
from ..executor import Executor, Scope
from ..files.many import ModelSpec
from ..files.run import RunResult, _check_params_found, parse_id_bindings, read_feeds
from ..files.model import load_model
from ..framework import Program
from ..plan import compile_plan
from ..registry import GRAD_SUFFIX, lookup
from ..serialize import parse_program, program_to_desc
from ..training import batches, find_loss

# Paddle's learning-rate-schedule role (16): such ops (a step counter, the decayed rate) read no
# batch value and run once per step, with the update ops.
ROLE_LR_SCHED = 16
UPDATE_ROLES = ROLE_OPTIMIZE | ROLE_LR_SCHED

# Ops that average over the elements they reduce: a loss made by one of them, over a tensor
# whose first dimension is the batch, is a mean over the batch.
_MEAN_OPS = ("mean", "reduce_mean")


@dataclass
class Split:
    """A training program cut for data parallelism (see the module docstring)."""

    loss: str
    grads: list            # the gradients the update part reads: averaged over the shards
    reads: list            # the persistables the gradient part reads: sent every step
    grad_program: bytes    # forward + loss + backward ops (Paddle legacy bytes)
    update_program: Program


def _role(op) -> int:
    return int(op.attrs.get("op_role", 0))


def _is_io(op) -> bool:
    opdef = lookup(op.type)
    return opdef is not None and opdef.io is not None


def split_training(program: Program, loss: str | None = None) -> Split:
    """Cut `program` into its gradient part and its update part, or refuse it.

    Raises:
        PyirError: no update ops; a loss that is not a mean over the batch; a forward or
            backward op that writes a persistable variable; an update op that reads a
            batch-dependent value other than a gradient.

    Example:
        >>> split = split_training(loaded.program)
        >>> split.grads
        ['fc_0.w_0@GRAD', 'fc_0.b_0@GRAD']
    """
    where = Where(file=program.source)
    block = program.global_block()
    ops = [(i, op) for i, op in enumerate(block.ops) if not _is_io(op)]
    update = [(i, op) for i, op in ops if _role(op) & UPDATE_ROLES]
    gradient = [(i, op) for i, op in ops if not _role(op) & UPDATE_ROLES]
    if not update:
        raise PyirError("data-parallel training needs a training program (one whose optimizer "
                        "ops, op_role 2, update its parameters); this one has none", where)
    loss = loss or find_loss(program)
    _check_mean_loss(program, gradient, loss)

    def persistable(name: str) -> bool:
        var = block.find_var(name)
        return var is not None and var.persistable

    for i, op in gradient:
        written = [n for n in op.output_arg_names if persistable(n)]
        if written:
            raise PyirError(f"this forward/backward op updates the persistable "
                            f"{written[0]!r}, which would differ per worker's shard "
                            f"(batch_norm's running statistics, a counter): data-parallel "
                            f"training cannot split this program",
                            where.with_(op_index=i, op_type=op.type, var=written[0]))
    for sub in program.blocks[1:]:
        for i, op in enumerate(sub.ops):
            written = [n for n in op.output_arg_names if persistable(n)]
            if written:
                raise PyirError(f"this op of a sub-block updates the persistable "
                                f"{written[0]!r}: data-parallel training cannot split this "
                                f"program",
                                Where(file=program.source, block=sub.idx, op_index=i,
                                      op_type=op.type, var=written[0]))
    made = {n for _, op in gradient for n in op.output_arg_names}
    grads: dict[str, None] = {}
    for i, op in update:
        for name in op.input_arg_names:
            if name in made and not persistable(name):
                if not name.endswith(GRAD_SUFFIX):
                    raise PyirError(f"this update op reads {name!r}, a value of the batch "
                                    f"that is not a gradient: data-parallel training "
                                    f"averages only the gradients over the workers' shards",
                                    where.with_(op_index=i, op_type=op.type, var=name))
                grads[name] = None
    reads = {n: None for _, op in gradient for n in op.input_arg_names if persistable(n)}
    reads.update({n: None for sub in program.blocks[1:] for op in sub.ops
                  for n in op.input_arg_names if persistable(n)})
    return Split(loss, list(grads), list(reads),
                 program_to_desc(_keep(program, lambda op: not _role(op) & UPDATE_ROLES))
                 .SerializeToString(),
                 _keep(program, lambda op: _is_io(op) or bool(_role(op) & UPDATE_ROLES)))


def _keep(program: Program, keep: Callable) -> Program:
    """A copy of `program` whose global block holds only the ops `keep` accepts."""
    copy = parse_program(program_to_desc(program).SerializeToString(), file=program.source)
    copy.source = program.source
    block = copy.global_block()
    for index in range(len(block.ops) - 1, -1, -1):
        if not keep(block.ops[index]):
            block.remove_op(index)
    return copy


def _check_mean_loss(program: Program, gradient: list, loss: str) -> None:
    """The loss must be a mean over the batch: made by `mean` or `reduce_mean` over every
    element or over dimension 0, of a tensor whose first dimension is the batch (-1)."""
    block = program.global_block()
    makers = [(i, op) for i, op in gradient if loss in op.output_arg_names
              and _role(op) & (ROLE_LOSS | ROLE_BACKWARD) != ROLE_BACKWARD]
    if not makers:
        raise PyirError(f"no forward op computes the loss {loss!r}",
                        Where(file=program.source, var=loss))
    i, op = makers[-1]
    where = Where(file=program.source, op_index=i, op_type=op.type, var=loss)
    need = ("data-parallel training averages the shards' gradients, which is the full "
            "batch's gradient only when the loss is a mean over the batch "
            "(paddle.mean(per_example_loss))")
    if op.type not in _MEAN_OPS:
        raise PyirError(f"{need}; the loss {loss!r} is computed by {op.type}", where)
    (source,) = op.input("X")
    var = block.find_var(source)
    shape = list(var.shape) if var is not None and var.shape is not None else []
    if not shape or shape[0] != -1:
        raise PyirError(f"{need}; the loss {loss!r} averages {source!r} of shape {shape}, "
                        f"whose first dimension is not the batch (-1)", where)
    if op.type == "reduce_mean" and not op.attrs.get("reduce_all", False):
        dims = [d % len(shape) for d in op.attrs.get("dim", [])]
        if dims and 0 not in dims:
            raise PyirError(f"{need}; the loss {loss!r} averages {source!r} over dimensions "
                            f"{dims}, not over the batch (0)", where)


# --- the gradient part, on one shard ---------------------------------------------------------
class ShardRunner:
    """The gradient part of a split program, built once: `run(params, feed)` gives the
    shard's loss and gradients. What each worker holds (and the in-process pool)."""

    def __init__(self, spec: ModelSpec):
        self.spec = spec
        self.program = parse_program(spec.program, file=spec.source)
        self.program.source = spec.source
        self.executor = Executor()
        with spec.context():  # resolve callables and compile the plan now
            compile_plan(self.program, tuple(spec.feed_names), tuple(spec.fetch_names))

    def run(self, params: dict, feed: dict) -> list:
        """[loss, grad, ...] (spec.fetch_names) of the gradient part on one shard."""
        scope = Scope()
        for name, value in params.items():
            scope[name] = value
        feed = {n: feed[n] for n in self.spec.feed_names}
        with self.spec.context():
            return self.executor.run(self.program, feed=feed,
                                     fetch_list=self.spec.fetch_names, scope=scope)


class LocalPool:
    """Runs the shards one after another in this process (no cluster): checks that a program
    trains data-parallel to the same numbers, and the reference the Ray pool must match."""

    def __init__(self, spec: ModelSpec, workers: int):
        self.runner = ShardRunner(spec)

    def run(self, params: dict, shards: list) -> list:
        return [self.runner.run(params, shard) for shard in shards]

    def close(self) -> None:
        pass


def shard(batch: dict, parts: int) -> list[dict]:
    """`batch` cut into at most `parts` consecutive row ranges (sizes differ by at most one);
    0-d inputs go whole to every shard."""
    rows = {len(v) for v in batch.values() if np.ndim(v) > 0}
    if len(rows) != 1:
        raise PyirError(f"data-parallel training splits the batch by rows, which needs inputs "
                        f"with the same number of rows; got {sorted(rows)}")
    n = rows.pop()
    cuts = np.array_split(np.arange(n), min(parts, n))
    return [{k: (v[c[0]:c[-1] + 1] if np.ndim(v) > 0 else v) for k, v in batch.items()}
            for c in cuts]


def average(results: list, shards: list[dict]) -> tuple[float, list]:
    """(loss, [grad, ...]) averaged over shards weighted by their rows: the full batch's."""
    rows = [len(next(v for v in s.values() if np.ndim(v) > 0)) for s in shards]
    weights = np.asarray(rows, np.float64) / sum(rows)
    loss = float(sum(w * np.asarray(r[0], np.float64).mean() for w, r in zip(weights, results)))
    grads = []
    for k in range(1, len(results[0])):
        parts = [np.asarray(r[k]) for r in results]
        total = sum(w * p.astype(np.float64) for w, p in zip(weights, parts))
        grads.append(np.asarray(total, dtype=parts[0].dtype))
    return loss, grads


def train_data_parallel(model: str, feeds=(), steps: int = 1, *, workers: int = 2,
                        make_pool: Callable = LocalPool, batch_size: int | None = None,
                        params: str | None = None, loss: str | None = None, paths=(),
                        id_bindings=None, max_loop_steps: int | None = None,
                        on_step: Callable[[int, str, float], None] | None = None) -> RunResult:
    """Train `model` for `steps` steps, each batch split over `workers` shards whose
    gradients `make_pool(spec, workers)` computes (LocalPool here, a Ray pool on a cluster).

    Returns the same RunResult as `pyir.files.run_model(..., steps=...)`: the parameters in
    `result.scope`, each step's loss in `result.losses`.
    """
    if not isinstance(id_bindings, dict):
        id_bindings = parse_id_bindings(id_bindings or ())
    scope = Scope()
    spec = ModelSpec(model, b"", {}, [], [], list(paths), dict(id_bindings), max_loop_steps)
    with spec.context():
        loaded = load_model(model, params=params, scope=scope)
    _check_params_found(loaded, model)
    feed = dict(feeds) if isinstance(feeds, dict) else read_feeds(
        feeds, list(loaded.feed_names), model)
    split = split_training(loaded.program, loss)
    spec = replace(spec, program=split.grad_program, feed_names=list(feed),
                   fetch_names=[split.loss] + split.grads, paths=[str(p) for p in paths])
    update = Executor()
    result = RunResult({}, loaded, scope, split.loss)
    pool = make_pool(spec, workers)
    try:
        for step, batch in enumerate(batches(feed, batch_size, steps)):
            shards = shard(batch, workers)
            value, grads = average(pool.run({n: scope[n] for n in split.reads}, shards),
                                   shards)
            with spec.context():
                update.run(split.update_program, feed=dict(zip(split.grads, grads)),
                           fetch_list=[], scope=scope)
            result.losses.append(value)
            if on_step is not None:
                on_step(step, split.loss, value)
    finally:
        pool.close()
    result.outputs = {split.loss: np.asarray(result.losses[-1], np.float32)}
    return result


__all__ = ["Split", "split_training", "ShardRunner", "LocalPool", "shard", "average",
           "train_data_parallel"]
