"""Pieces the functional families share: argument checks that name the function, the
'mean' / 'sum' / 'none' reduction, and a few ops Paddle's composites use (where, minimum, ...)
written once over `pyir.dispatch`."""

from __future__ import annotations

import numbers

from ... import dtypes
from ...dispatch import apply_op
from ...dispatch import out as _out
from ...errors import BuildError, Where
from ...framework import Variable
from ...tensor import cast, full_like, mean, sum

REDUCTIONS = ("mean", "sum", "none")


def fail(fn: str, message: str, op_type: str | None = None):
    """Raise the BuildError an API function gives for bad arguments (names the function)."""
    text = message if op_type is None else f"{fn}: {message}"
    raise BuildError(text, Where(op_type=op_type or fn))


def check_reduction(fn: str, reduction, allowed=REDUCTIONS) -> None:
    if reduction not in allowed:
        fail(fn, f"reduction must be {', '.join(repr(r) for r in allowed[:-1])} or "
                 f"{allowed[-1]!r}, got {reduction!r}")


def reduced(loss, reduction: str, name=None):
    """Paddle's reductions: mean (reduce_mean), sum (reduce_sum) or the loss itself."""
    if reduction == "mean":
        return mean(loss, name=name)
    if reduction == "sum":
        return sum(loss, name=name)
    return loss


def check_format(fn: str, data_format, allowed) -> None:
    if data_format not in allowed:
        fail(fn, f"data_format must be one of {', '.join(allowed)}, got {data_format!r}")


def where(condition, x, y):
    """x where condition else y (op `where`). Operands of different shapes are first
    broadcast by adding zeros, as Paddle's static `where` does (its op needs equal shapes)."""
    if list(x.shape) == list(y.shape) == list(condition.shape):
        return _out("where", {"Condition": condition, "X": x, "Y": y})
    zeros = full_like(x, 0.0) + full_like(y, 0.0) + cast(full_like(condition, 0), x.dtype)
    condition = cast(cast(condition, x.dtype) + zeros, "bool")
    return _out("where", {"Condition": condition, "X": x + zeros, "Y": y + zeros})


def minimum(x, y):
    return _out("elementwise_min", {"X": x, "Y": y}, {"axis": -1})


def maximum(x, y):
    return _out("elementwise_max", {"X": x, "Y": y}, {"axis": -1})


def as_dtype(x, like):
    """x cast to like's dtype (no op when it already has it)."""
    return x if x.dtype == like.dtype else cast(x, like.dtype)


def is_float(x) -> bool:
    return dtypes.to_numpy(x.dtype).kind == "f"


def zeros_of(x):
    return full_like(x, 0.0)


def sizes(value, n: int, what: str, fn: str) -> list[int]:
    """An int or a list of n ints as a list of n ints."""
    if isinstance(value, numbers.Integral):
        return [int(value)] * n
    if isinstance(value, (list, tuple)) and len(value) == n and all(
            isinstance(v, numbers.Integral) for v in value):
        return [int(v) for v in value]
    fail(fn, f"{what} must be an int or a list of {n} ints, got {value!r}")


def written(result, out):
    """`result`, also written into the caller's `out=` tensor when one is given (static: an
    assign op into it; eager: its value)."""
    if out is None:
        return result
    if isinstance(out, Variable):
        return apply_op("assign", {"X": result}, outputs={"Out": out})["Out"]
    out._value = result.numpy()
    return out
