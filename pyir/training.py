"""Run a training program (forward + backward + updates) for N steps: the loop behind
`pyir run train.pb --steps N` and the Python API.

Each step feeds a batch (the whole feed, or the next `batch_size` rows cycling through it),
runs the program once in the given scope, so the update ops change the parameters there in
place, and records the loss. Saving a training program is `pyir.files.save_training_program`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .builder import ROLE_BACKWARD, ROLE_LOSS
from .errors import PyirError, Where
from .executor import Executor, Scope
from .framework import Program


@dataclass
class TrainResult:
    """What `run_steps` returns: the loss of every step and the last step's fetched values."""

    loss_name: str
    losses: list[float] = field(default_factory=list)
    last: dict = field(default_factory=dict)


def find_loss(program: Program) -> str:
    """The loss of a training program: the output of its op with op_role = loss (256)."""
    found = [op for op in program.global_block().ops  # 257 is the loss@GRAD seed: skip it
             if int(op.attrs.get("op_role", 0)) & (ROLE_LOSS | ROLE_BACKWARD) == ROLE_LOSS]
    names = [n for op in found for n in op.output_arg_names]
    if len(names) != 1:
        raise PyirError(f"cannot tell the loss of this program: {len(names)} ops are marked as "
                        f"the loss (op_role 256) {names[:5]}; name it explicitly",
                        Where(file=program.source))
    return names[0]


def batches(feed: dict, batch_size: int | None, steps: int):
    """The feed of each step: all of `feed`, or consecutive `batch_size`-row slices of it."""
    if batch_size is None:
        for _ in range(steps):
            yield feed
        return
    rows = {len(v) for v in feed.values() if np.ndim(v) > 0}
    if len(rows) != 1:
        raise PyirError(f"batching needs inputs with the same number of rows, got {sorted(rows)}")
    n = rows.pop()
    if batch_size > n:
        raise PyirError(f"batch_size {batch_size} is larger than the {n} rows fed")
    start = 0
    for _ in range(steps):
        if start + batch_size > n:
            start = 0
        yield {k: v[start:start + batch_size] for k, v in feed.items()}
        start += batch_size


def run_steps(program: Program, feed: dict, steps: int, scope: Scope, *,
              loss: str | None = None, fetch_list=(), batch_size: int | None = None,
              on_step: Callable[[int, float], None] | None = None) -> TrainResult:
    """Run `program` `steps` times, updating the parameters held in `scope`.

    Args:
        program: a training program (e.g. built with `SGD(...).minimize(loss)`).
        feed: input name -> array.
        steps: how many updates to run.
        scope: holds the parameters (run the startup program or load them first).
        loss: the loss variable's name (default: `find_loss(program)`).
        fetch_list: extra names whose last-step values are returned.
        batch_size: rows per step (default: the whole feed each step).
        on_step: called as on_step(step_index, loss_value) after each step (progress bars).

    Returns:
        TrainResult with every step's loss.

    Example:
        >>> result = run_steps(main, {"x": x, "y": y}, 100, scope)
        >>> result.losses[0], result.losses[-1]
    """
    loss = loss or find_loss(program)
    names = [loss] + [n for n in fetch_list if n != loss]
    exe = Executor()
    result = TrainResult(loss)
    values = []
    for i, batch in enumerate(batches(feed, batch_size, steps)):
        values = exe.run(program, feed=batch, fetch_list=names, scope=scope)
        result.losses.append(float(np.asarray(values[0]).mean()))
        if on_step is not None:
            on_step(i, result.losses[-1])
    result.last = dict(zip(names, values))
    return result


__all__ = ["TrainResult", "run_steps", "find_loss", "batches"]
