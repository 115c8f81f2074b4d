"""Losses of `paddle.nn.functional` (cross_entropy, ...), emitted as Paddle emits them."""

from __future__ import annotations

from ...dispatch import out as _out
from ...errors import BuildError, Where
from ...tensor import (cast, full_like, matmul, mean, multiply, reshape, squeeze, sum, transpose,
                       unsqueeze)

from ._loss_basic import (binary_cross_entropy, binary_cross_entropy_with_logits, dice_loss,
                          gaussian_nll_loss, kl_div, l1_loss, log_loss, mse_loss, nll_loss,
                          npair_loss, poisson_nll_loss, sigmoid_focal_loss, smooth_l1_loss,
                          softmax_with_cross_entropy, square_error_cost)
from ._loss_extra import (adaptive_log_softmax_with_loss, ctc_loss, hsigmoid_loss,
                          margin_cross_entropy, rnnt_loss)
from ._loss_margin import (cosine_embedding_loss, hinge_embedding_loss, margin_ranking_loss,
                           multi_label_margin_loss, multi_label_soft_margin_loss,
                           multi_margin_loss, soft_margin_loss, triplet_margin_loss,
                           triplet_margin_with_distance_loss)

__all__ = [
    "cross_entropy", "binary_cross_entropy", "binary_cross_entropy_with_logits", "dice_loss",
    "gaussian_nll_loss", "kl_div", "l1_loss", "log_loss", "mse_loss", "nll_loss", "npair_loss",
    "poisson_nll_loss", "sigmoid_focal_loss", "smooth_l1_loss", "softmax_with_cross_entropy",
    "square_error_cost", "cosine_embedding_loss", "hinge_embedding_loss", "margin_ranking_loss",
    "multi_label_margin_loss", "multi_label_soft_margin_loss", "multi_margin_loss",
    "soft_margin_loss", "triplet_margin_loss", "triplet_margin_with_distance_loss",
    "ctc_loss", "hsigmoid_loss", "adaptive_log_softmax_with_loss", "rnnt_loss",
    "margin_cross_entropy",
]

# Paddle names of this family pyir leaves out, with the reason (pyir/unsupported.py).
UNSUPPORTED: dict[str, str] = {}

_REDUCTIONS = ("mean", "sum", "none")


def _check_ce_args(input, label, reduction, soft_label, ignore_index) -> None:
    where = Where(op_type="softmax_with_cross_entropy")
    if reduction not in _REDUCTIONS:
        raise BuildError(f"cross_entropy: reduction must be 'mean', 'sum' or 'none', got "
                         f"{reduction!r}", where)
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
    `softmax_with_cross_entropy`, the optional class weighting, then the reduction.

    Args:
        input: logits (probabilities when use_softmax=False), class dim at `axis`.
        label: int64 class indices (rank of input or one less), or soft labels.
        weight: per-class weights [C]; the mean is then weighted.
        ignore_index: hard labels equal to it contribute 0 (and, when >= 0, are left out
            of the mean's denominator).
        reduction: 'mean', 'sum' or 'none'.
        label_smoothing: mixes one-hot labels with the uniform distribution.

    Example:
        >>> loss = pyir.nn.functional.cross_entropy(logits, label)   # mean_0.tmp_0
    """
    _check_ce_args(input, label, reduction, soft_label, ignore_index)
    squeezed = len(label.shape) == len(input.shape) - 1
    if squeezed:
        label = unsqueeze(label, axis=axis)
    if label_smoothing > 0.0:
        label = _smoothed(input, label, axis, squeezed, label_smoothing)
        soft_label, squeezed = True, False  # Paddle keeps the loss's class dim here
    out = _out("softmax_with_cross_entropy", {"Logits": input, "Label": label},
               {"soft_label": bool(soft_label), "ignore_index": int(ignore_index),
                "numeric_stable_mode": True, "axis": int(axis),
                "use_softmax": bool(use_softmax)}, slot="Loss")
    per_item = None
    if weight is not None:
        per_item = _class_weights(input, label, weight, out, soft_label, ignore_index, axis)
        out = multiply(out, per_item, name=name if reduction == "none" else None)
    if reduction == "sum":
        return sum(out, name=name)
    if reduction == "mean":
        if ignore_index >= 0:
            kept = cast(_compare("not_equal", label, ignore_index), out.dtype)
            return _safe_ratio(sum(out, name=name),
                               sum(kept if per_item is None else kept * per_item))
        if per_item is not None:
            return _safe_ratio(sum(out, name=name), sum(per_item))
        return mean(out, name=name)
    return squeeze(out, axis=axis) if squeezed else out


def _compare(op_type: str, x, value):
    return _out(op_type, {"X": x, "Y": full_like(x, value)})


def _safe_ratio(total, count):
    """total / count, with a zero count counted as one (an all-ignored batch gives 0)."""
    return total / (count + cast(_compare("equal", count, 0.0), count.dtype))


def _smoothed(input, label, axis: int, squeezed: bool, epsilon: float):
    """One-hot labels mixed with the uniform distribution (`one_hot_v2` + `label_smooth`)."""
    if squeezed:
        label = squeeze(label, axis=axis)
    onehot = _out("one_hot_v2", {"X": label}, {"depth": int(input.shape[-1]),
                                               "allow_out_of_range": False})
    smooth = _out("label_smooth", {"X": onehot}, {"epsilon": float(epsilon)})
    return smooth if smooth.dtype == input.dtype else cast(smooth, input.dtype)


def _class_weights(input, label, weight, out, soft_label: bool, ignore_index: int, axis: int):
    """Each item's class weight, shaped like the loss: label @ weight for soft labels, else
    weight gathered at the label (0 where the label is ignored)."""
    if soft_label:
        gathered = matmul(cast(label, weight.dtype), weight, transpose_y=True)
        return reshape(gathered, list(out.shape))
    if input.shape[axis] != weight.shape[-1]:
        raise BuildError(f"cross_entropy: input has {input.shape[axis]} classes, weight has "
                         f"{weight.shape[-1]}", Where(op_type="softmax_with_cross_entropy"))
    kept = _compare("not_equal", label, ignore_index)
    valid = multiply(cast(kept, label.dtype), label)
    mask = cast(kept, input.dtype)
    if len(mask.shape) > 1 and mask.shape[axis] == 1:
        mask = squeeze(mask, axis)
    ndim = len(valid.shape)
    if axis not in (-1, ndim - 1):
        a = axis % ndim
        valid = transpose(valid, [*range(a), *range(a + 1, ndim), a])
    gathered = multiply(_out("gather_nd", {"X": weight, "Index": valid}), mask)
    return reshape(gathered, list(label.shape))
