"""`pyir.nn.functional`: activations and losses as functions (relu, softmax, cross_entropy)."""

from __future__ import annotations

from .. import dtypes
from ..errors import BuildError, Where
from ..framework import unique_name
from ..tensor import _out, add, cast, divide, full_like, mean, squeeze, sum, unsqueeze

__all__ = ["relu", "softmax", "log_softmax", "cross_entropy"]

_REDUCTIONS = ("mean", "sum", "none")


def relu(x, name: str | None = None):
    """max(x, 0) (op `relu`).

    Example:
        >>> h = pyir.nn.functional.relu(x)   # relu_0.tmp_0
    """
    return _out("relu", {"X": x}, name=name)


def _softmax_like(op_type: str, x, axis: int, dtype, name):
    """`op_type` on x (cast to `dtype` first, inside the same name scope, as Paddle does)."""
    helper = name
    if dtype is not None and dtypes.to_numpy(dtype) != x.dtype:
        helper = name or unique_name.generate(op_type)
        x = _out("cast", {"X": x}, {"in_dtype": dtypes.to_code(x.dtype),
                                    "out_dtype": dtypes.to_code(dtypes.to_numpy(dtype))},
                 name=helper)
    return _out(op_type, {"X": x}, {"axis": int(axis)}, name=helper)


def softmax(x, axis: int = -1, dtype=None, name: str | None = None):
    """exp(x) / sum(exp(x)) along `axis` (op `softmax`; x is cast to `dtype` first if given).

    Example:
        >>> p = pyir.nn.functional.softmax(logits, axis=-1)
    """
    return _softmax_like("softmax", x, axis, dtype, name)


def log_softmax(x, axis: int = -1, dtype=None, name: str | None = None):
    """log(softmax(x)) along `axis` (op `log_softmax`).

    Example:
        >>> logp = pyir.nn.functional.log_softmax(logits)
    """
    return _softmax_like("log_softmax", x, axis, dtype, name)


def _check_ce_args(input, label, weight, reduction, soft_label, ignore_index,
                   label_smoothing) -> None:
    where = Where(op_type="softmax_with_cross_entropy")
    if reduction not in _REDUCTIONS:
        raise BuildError(f"cross_entropy: reduction must be 'mean', 'sum' or 'none', got "
                         f"{reduction!r}", where)
    if weight is not None or label_smoothing:
        raise BuildError("cross_entropy: `weight` and `label_smoothing` are not supported yet",
                         where)
    if soft_label and ignore_index > 0:
        raise BuildError(f"cross_entropy: ignore_index must be -100 with soft labels, got "
                         f"{ignore_index}", where)
    if len(input.shape) == 0:
        raise BuildError("cross_entropy: input must have at least one dimension", where)
    if len(label.shape) not in (len(input.shape), len(input.shape) - 1):
        raise BuildError(f"cross_entropy: label must have rank {len(input.shape)} or "
                         f"{len(input.shape) - 1}, got shape {list(label.shape)}", where)


def cross_entropy(input, label, weight=None, ignore_index: int = -100, reduction: str = "mean",
                  soft_label: bool = False, axis: int = -1, use_softmax: bool = True,
                  label_smoothing: float = 0.0, name: str | None = None):
    """Softmax cross entropy, emitted as Paddle does: `unsqueeze2` of a rank-reduced label,
    `softmax_with_cross_entropy`, then `reduce_mean` / `reduce_sum` per `reduction`.

    Args:
        input: logits (probabilities when use_softmax=False), class dim at `axis`.
        label: int64 class indices (rank of input or one less), or soft labels.
        ignore_index: hard labels equal to it contribute 0 (and, when >= 0, are left out
            of the mean's denominator).
        reduction: 'mean', 'sum' or 'none'.

    Example:
        >>> loss = pyir.nn.functional.cross_entropy(logits, label)   # mean_0.tmp_0
    """
    _check_ce_args(input, label, weight, reduction, soft_label, ignore_index, label_smoothing)
    squeezed = len(label.shape) == len(input.shape) - 1
    if squeezed:
        label = unsqueeze(label, axis=axis)
    out = _out("softmax_with_cross_entropy", {"Logits": input, "Label": label},
               {"soft_label": bool(soft_label), "ignore_index": int(ignore_index),
                "numeric_stable_mode": True, "axis": int(axis),
                "use_softmax": bool(use_softmax)}, slot="Loss")
    if reduction == "sum":
        return sum(out, name=name)
    if reduction == "mean":
        if ignore_index >= 0:
            return _mean_over_kept(out, label, ignore_index, name)
        return mean(out, name=name)
    return squeeze(out, axis=axis) if squeezed else out


def _mean_over_kept(out, label, ignore_index: int, name):
    """sum(loss) / count(label != ignore_index), guarded against an all-ignored batch."""
    kept = cast(_out("not_equal", {"X": label, "Y": full_like(label, ignore_index)}), out.dtype)
    count = sum(kept)
    empty = cast(_out("equal", {"X": count, "Y": full_like(count, 0.0)}), out.dtype)
    return divide(sum(out, name=name), add(count, empty))
