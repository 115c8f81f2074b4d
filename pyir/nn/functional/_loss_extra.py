"""Sequence and large-vocabulary losses of `paddle.nn.functional`: ctc_loss (op `warpctc`),
rnnt_loss (op `warprnnt`),
hsigmoid_loss (op `hierarchical_sigmoid`) and adaptive_log_softmax_with_loss (composed with
masks); `loss.py` re-exports them."""

from __future__ import annotations

from ...dispatch import apply_op
from ...dispatch import out as _out
from ...tensor import cast, full_like, mean, squeeze, sum, unsqueeze
from ._base import check_reduction, fail, where, zeros_of
from .activation import log_softmax
from .common import linear


def ctc_loss(log_probs, labels, input_lengths, label_lengths, blank: int = 0,
             reduction: str = "mean", norm_by_times: bool = False, zero_infinity: bool = False):
    """The CTC loss of unnormalized scores log_probs [T, B, C] (softmax taken inside, op
    `warpctc`) against padded labels [B, L]; mean divides each loss by its label length first.

    Example:
        >>> loss = F.ctc_loss(logits, labels, input_lengths, label_lengths)
    """
    check_reduction("ctc_loss", reduction)
    if len(log_probs.shape) != 3:
        fail("ctc_loss", f"log_probs must be 3-D [T, B, C], got shape {list(log_probs.shape)}",
             "warpctc")
    outs = apply_op("warpctc", {"Logits": log_probs, "Label": labels,
                                "LogitsLength": input_lengths, "LabelLength": label_lengths},
                    {"blank": int(blank), "norm_by_times": bool(norm_by_times)})
    loss = squeeze(outs["Loss"], [-1])
    if zero_infinity:
        loss = where(_out("isinf_v2", {"X": loss}), zeros_of(loss), loss)
    if reduction == "mean":
        return mean(loss / cast(label_lengths, loss.dtype))
    if reduction == "sum":
        return sum(loss)
    return loss


def rnnt_loss(input, label, input_lengths, label_lengths, blank: int = 0,
              fastemit_lambda: float = 0.001, reduction: str = "mean", name: str | None = None):
    """The RNN-Transducer loss of log-probabilities input [B, T, U + 1, V] (taken as given)
    against label [B, U] (op `warprnnt`; FastEmit scales the label-emission gradients by
    1 + fastemit_lambda); mean is the sum over the batch / B.

    Example:
        >>> loss = F.rnnt_loss(F.log_softmax(joint), labels, in_lens, label_lens)
    """
    check_reduction("rnnt_loss", reduction)
    if len(input.shape) != 4:
        fail("rnnt_loss", f"input must be 4-D [B, T, U + 1, V], got shape {list(input.shape)}",
             "warprnnt")
    loss = apply_op("warprnnt", {"input": input, "label": label, "input_lengths": input_lengths,
                                 "label_lengths": label_lengths},
                    {"blank": int(blank), "fastemit_lambda": float(fastemit_lambda)})["loss"]
    if reduction == "mean":
        return sum(loss, name=name) / float(input.shape[0])
    if reduction == "sum":
        return sum(loss, name=name)
    return loss


def hsigmoid_loss(input, label, num_classes: int, weight, bias=None, path_table=None,
                  path_code=None, is_sparse: bool = False, name: str | None = None):
    """The hierarchical sigmoid loss over a binary tree of classes (the default complete tree,
    or path_table / path_code) (op `hierarchical_sigmoid`); returns [N, 1].

    Example:
        >>> loss = F.hsigmoid_loss(x, label, num_classes=10, weight=w)   # w [9, D]
    """
    if (path_table is None) != (path_code is None):
        fail("hsigmoid_loss", "path_table and path_code must be given together",
             "hierarchical_sigmoid")
    if path_table is None and num_classes < 2:
        fail("hsigmoid_loss", f"num_classes must be at least 2, got {num_classes}",
             "hierarchical_sigmoid")
    outs = apply_op("hierarchical_sigmoid",
                    {"X": input, "W": weight, "Label": label, "PathTable": path_table,
                     "PathCode": path_code, "Bias": bias},
                    {"num_classes": int(num_classes), "is_sparse": bool(is_sparse)}, name=name)
    return outs["Out"]


def adaptive_log_softmax_with_loss(input, label, head_weight, tail_weights, cutoffs,
                                   head_bias=None, name: str | None = None):
    """The log-probability of each label under an adaptive softmax (a head over the
    shortlist and one entry per cluster, each cluster a two-layer tail), and the mean
    negative log-likelihood; returns (output [N], loss).

    Example:
        >>> out, loss = F.adaptive_log_softmax_with_loss(x, y, head_w, tails, [4, 8])
    """
    fn = "adaptive_log_softmax_with_loss"
    if len(label.shape) == 1:
        if len(input.shape) != 2:
            fail(fn, f"a 1-D label needs a 2-D input, got shape {list(input.shape)}")
        if input.shape[0] != label.shape[0]:
            fail(fn, "input and label must have the same batch size")
    elif len(label.shape) == 0:
        if len(input.shape) != 1:
            fail(fn, f"a 0-D label needs a 1-D input, got shape {list(input.shape)}")
    else:
        fail(fn, "label must be 0-D or 1-D")
    batched = len(label.shape) == 1
    if not batched:
        input, label = unsqueeze(input, [0]), unsqueeze(label, [0])
    cutoffs = [int(c) for c in cutoffs]
    if len(tail_weights) != len(cutoffs) - 1:
        fail(fn, f"{len(cutoffs) - 1} clusters need as many tail weight pairs, got "
                 f"{len(tail_weights)}")
    head = log_softmax(linear(input, head_weight, head_bias), axis=1)
    gather = label
    output = None
    for i in range(1, len(cutoffs)):
        low, high = cutoffs[i - 1], cutoffs[i]
        inside = _out("logical_and", {"X": label >= low, "Y": label < high})
        gather = where(inside, full_like(label, cutoffs[0] + i - 1), gather)
        tail = log_softmax(linear(linear(input, tail_weights[i - 1][0]),
                                  tail_weights[i - 1][1]), axis=1)
        relative = where(inside, label - low, zeros_of(label))
        picked = squeeze(_out("take_along_axis", {"Input": tail, "Index": unsqueeze(
            relative, [1])}, {"Axis": 1}, slot="Result"), [1])
        term = where(inside, picked, zeros_of(picked))
        output = term if output is None else output + term
    head_part = squeeze(_out("take_along_axis", {"Input": head, "Index": unsqueeze(gather, [1])},
                             {"Axis": 1}, slot="Result"), [1])
    output = head_part if output is None else output + head_part
    loss = mean(-output)
    return (output if batched else squeeze(output, [0])), loss


def margin_cross_entropy(logits, label, margin1: float = 1.0, margin2: float = 0.5,
                         margin3: float = 0.0, scale: float = 64.0, group=None,
                         return_softmax: bool = False, reduction="mean"):
    """ArcFace / CosFace loss on one process: softmax cross entropy of scale * logits with
    the target cosine replaced by cos(margin1 * acos(x) + margin2) - margin3 (op
    `margin_cross_entropy`); reduction 'mean', 'sum' or None.

    Example:
        >>> loss = F.margin_cross_entropy(cosines, label, margin2=0.5, scale=64.0)
    """
    if reduction not in ("mean", "sum", "none", None):
        fail("margin_cross_entropy", f"reduction must be 'mean', 'sum', 'none' or None, got "
                                     f"{reduction!r}")
    if group not in (None, False):
        fail("margin_cross_entropy", "a communication group needs distributed training, "
                                     "which pyir leaves out; pass group=None")
    if len(logits.shape) != 2:
        fail("margin_cross_entropy", f"logits must be 2-D [N, C], got shape "
                                     f"{list(logits.shape)}")
    if len(label.shape) == 2 and label.shape[1] == 1:
        label = squeeze(label, [1])
    elif len(label.shape) != 1:
        fail("margin_cross_entropy", f"label must be [N] or [N, 1], got {list(label.shape)}")
    outs = apply_op("margin_cross_entropy", {"Logits": logits, "Label": label},
                    {"return_softmax": bool(return_softmax), "ring_id": 0, "rank": 0,
                     "nranks": 1, "margin1": float(margin1), "margin2": float(margin2),
                     "margin3": float(margin3), "scale": float(scale)})
    loss = outs["Loss"]
    if reduction == "mean":
        loss = mean(loss)
    elif reduction == "sum":
        loss = sum(loss)
    return (loss, outs["Softmax"]) if return_softmax else loss
