"""`pyir.nn.loss`: loss layers. CrossEntropyLoss calls `functional.cross_entropy`; the others
are composed from registered ops (Paddle's own loss ops, e.g. `bce_loss`, `huber_loss`,
`nll_loss`, are not in pyir's registry yet)."""

from __future__ import annotations

import math

from ..dispatch import out
from ..errors import BuildError
from ..tensor import manipulation as manip
from ..tensor import math as tmath
from ..tensor import stat as tstat
from . import _ops
from . import functional as F
from .layer_base import Layer

__all__ = ["CrossEntropyLoss", "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "BCELoss",
           "BCEWithLogitsLoss", "NLLLoss", "KLDivLoss", "MarginRankingLoss",
           "HingeEmbeddingLoss", "SoftMarginLoss", "CosineEmbeddingLoss",
           "MultiLabelSoftMarginLoss", "TripletMarginLoss", "PoissonNLLLoss",
           "GaussianNLLLoss", "MultiMarginLoss", "TripletMarginWithDistanceLoss",
           "MultiLabelMarginLoss"]


class CrossEntropyLoss(Layer):
    """Softmax cross entropy as a layer; see `pyir.nn.functional.cross_entropy`.

    Example:
        >>> loss = pyir.nn.CrossEntropyLoss()(prediction, label)
    """

    def __init__(self, weight=None, ignore_index: int = -100, reduction: str = "mean",
                 soft_label: bool = False, axis: int = -1, use_softmax: bool = True,
                 label_smoothing: float = 0.0, name: str | None = None):
        super().__init__()
        _ops.check_reduction(reduction, "CrossEntropyLoss")
        self.weight, self.ignore_index, self.reduction = weight, ignore_index, reduction
        self.soft_label, self.axis, self.use_softmax = soft_label, axis, use_softmax
        self.label_smoothing, self.name = label_smoothing, name

    def forward(self, input, label):
        return F.cross_entropy(input, label, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, soft_label=self.soft_label,
                               axis=self.axis, use_softmax=self.use_softmax,
                               label_smoothing=self.label_smoothing, name=self.name)


class _Loss(Layer):
    def __init__(self, reduction: str = "mean", extra=()):
        super().__init__()
        self.reduction = _ops.check_reduction(reduction, type(self).__name__, extra)

    def _reduce(self, loss):
        return _ops.reduction(loss, self.reduction, type(self).__name__)


def _same_shape(a, b, who: str) -> None:
    if len(a.shape) != len(b.shape) or any(x != y and -1 not in (x, y)
                                           for x, y in zip(a.shape, b.shape)):
        raise BuildError(f"{who}: input shape {list(a.shape)} and label shape "
                         f"{list(b.shape)} differ")


class MSELoss(_Loss):
    """(input - label)^2, reduced.

    Example:
        >>> pyir.nn.MSELoss()(pred, label)
    """

    def forward(self, input, label):
        _same_shape(input, label, "MSELoss")
        diff = input - label
        return self._reduce(diff * diff)


class L1Loss(_Loss):
    """|input - label|, reduced."""

    def forward(self, input, label):
        _same_shape(input, label, "L1Loss")
        return self._reduce(tmath.abs(input - label))


class SmoothL1Loss(_Loss):
    """0.5 d^2 where |d| < delta, else delta * (|d| - 0.5 delta), with d = input - label."""

    def __init__(self, reduction="mean", delta=1.0, name=None):
        super().__init__(reduction)
        if delta <= 0:
            raise BuildError(f"SmoothL1Loss: delta must be positive, got {delta}")
        self.delta = float(delta)

    def forward(self, input, label):
        _same_shape(input, label, type(self).__name__)
        d = tmath.abs(input - label)
        quad = d * d * 0.5
        lin = (d - 0.5 * self.delta) * self.delta
        return self._reduce(_ops.where(d < self.delta, quad, lin))


class HuberLoss(SmoothL1Loss):
    """The Huber loss (the same function as SmoothL1Loss)."""


class BCELoss(_Loss):
    """-w * (y log(x) + (1 - y) log(1 - x)), logs floored at -100 as Paddle does."""

    def __init__(self, weight=None, reduction="mean", name=None):
        super().__init__(reduction)
        self.weight = weight

    def forward(self, input, label):
        _same_shape(input, label, "BCELoss")
        log_x = tmath.clip(tmath.log(input), -100.0, math.inf)
        log_1x = tmath.clip(tmath.log(1.0 - input), -100.0, math.inf)
        loss = -(label * log_x + (1.0 - label) * log_1x)
        if self.weight is not None:
            loss = loss * self.weight
        return self._reduce(loss)


class BCEWithLogitsLoss(_Loss):
    """Sigmoid cross entropy on logits, computed stably, with optional weight and pos_weight.
    """

    def __init__(self, weight=None, reduction="mean", pos_weight=None, name=None):
        super().__init__(reduction)
        self.weight, self.pos_weight = weight, pos_weight

    def forward(self, logit, label):
        _same_shape(logit, label, "BCEWithLogitsLoss")
        # log(1 + exp(-|x|)) + max(-x, 0)
        softplus_neg = tmath.log(1.0 + tmath.exp(-tmath.abs(logit))) + \
            _ops.maximum(-logit, _ops.zeros_like(logit))
        if self.pos_weight is not None:
            log_weight = (self.pos_weight - 1.0) * label + 1.0
            loss = (1.0 - label) * logit + log_weight * softplus_neg
        else:
            loss = (1.0 - label) * logit + softplus_neg
        if self.weight is not None:
            loss = loss * self.weight
        return self._reduce(loss)


class NLLLoss(_Loss):
    """-input[label] (input holds log-probabilities), weighted per class; 'mean' divides by
    the total weight of the non-ignored labels."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", name=None):
        super().__init__(reduction)
        self.weight, self.ignore_index = weight, ignore_index

    def forward(self, input, label):
        if len(input.shape) < 2 or len(label.shape) != len(input.shape) - 1:
            raise BuildError(f"NLLLoss: expected input [N, C, ...] and label [N, ...], got "
                             f"{list(input.shape)} and {list(label.shape)}")
        keep = label != self.ignore_index
        safe = _ops.where(keep, label, _ops.zeros_like(label))
        picked = manip.squeeze(out("take_along_axis", {"Input": input,
                                                       "Index": manip.unsqueeze(safe, 1)},
                                   {"Axis": 1}, slot="Result"), 1)
        weight = _ops.cast(keep, input.dtype)
        if self.weight is not None:
            weight = weight * _gather_weight(self.weight, safe)
        loss = -picked * weight
        if self.reduction == "mean":
            return tmath.sum(loss) / tmath.sum(weight)
        return self._reduce(loss)


def _gather_weight(weight, label):
    flat = manip.gather(weight, manip.reshape(label, [-1]))
    return manip.reshape(flat, list(label.shape) if -1 not in label.shape else
                         [0] * len(label.shape))


class KLDivLoss(_Loss):
    """label * (log(label) - input) (0 where label <= 0); reduction 'batchmean' divides the
    sum by the batch size."""

    def __init__(self, reduction="mean", log_target=False, name=None):
        super().__init__(reduction, extra=("batchmean",))
        self.log_target = log_target

    def forward(self, input, label):
        if self.log_target:
            loss = tmath.exp(label) * (label - input)
        else:
            positive = label > 0.0
            safe = _ops.where(positive, label, _ops.ones_like(label))
            loss = _ops.where(positive, label * (tmath.log(safe) - input),
                              _ops.zeros_like(label))
        if self.reduction == "batchmean":
            return tmath.sum(loss) * (1.0 / input.shape[0])
        return self._reduce(loss)


class MarginRankingLoss(_Loss):
    """max(0, -label * (input - other) + margin)."""

    def __init__(self, margin=0.0, reduction="mean", name=None):
        super().__init__(reduction)
        self.margin = float(margin)

    def forward(self, input, other, label):
        raw = -label * (input - other) + self.margin
        return self._reduce(_ops.maximum(raw, _ops.zeros_like(raw)))


class HingeEmbeddingLoss(_Loss):
    """input where label == 1, max(0, margin - input) where label == -1."""

    def __init__(self, margin=1.0, reduction="mean", name=None):
        super().__init__(reduction)
        self.margin = float(margin)

    def forward(self, input, label):
        hinge = _ops.maximum(self.margin - input, _ops.zeros_like(input))
        loss = _ops.where(label == 1.0, input, _ops.zeros_like(input)) + \
            _ops.where(label == -1.0, hinge, _ops.zeros_like(input))
        return self._reduce(loss)


class SoftMarginLoss(_Loss):
    """log(1 + exp(-label * input))."""

    def forward(self, input, label):
        return self._reduce(tmath.log(1.0 + tmath.exp(-label * input)))


class CosineEmbeddingLoss(_Loss):
    """1 - cos(x1, x2) where label == 1, max(0, cos(x1, x2) - margin) where label == -1."""

    def __init__(self, margin=0, reduction="mean", name=None):
        super().__init__(reduction)
        if not -1 <= margin <= 1:
            raise BuildError(f"CosineEmbeddingLoss: margin must be in [-1, 1], got {margin}")
        self.margin = float(margin)

    def forward(self, input1, input2, label):
        dot = tmath.sum(input1 * input2, axis=-1)
        n1 = tmath.sum(input1 * input1, axis=-1)
        n2 = tmath.sum(input2 * input2, axis=-1)
        cos = dot / tmath.sqrt(n1 * n2)
        zeros = _ops.zeros_like(cos)
        pos = _ops.where(label == 1, 1.0 - cos, zeros)
        neg = _ops.where(label == -1, _ops.maximum(cos - self.margin, zeros), zeros)
        return self._reduce(pos + neg)


class MultiLabelSoftMarginLoss(_Loss):
    """mean over classes of -(y log sigmoid(x) + (1 - y) log sigmoid(-x)), times weight."""

    def __init__(self, weight=None, reduction="mean", name=None):
        super().__init__(reduction)
        self.weight = weight

    def forward(self, input, label):
        log_sig = -_ops.softplus(-input)
        log_sig_neg = -_ops.softplus(input)
        loss = -(label * log_sig + (1.0 - label) * log_sig_neg)
        if self.weight is not None:
            loss = loss * self.weight
        return self._reduce(tstat.mean(loss, axis=-1))


class TripletMarginLoss(_Loss):
    """max(d(a, p) - d(a, n) + margin, 0) with the p-norm distance (swap: also d(p, n))."""

    def __init__(self, margin=1.0, p=2.0, epsilon=1e-6, swap=False, reduction="mean",
                 name=None):
        super().__init__(reduction)
        self.margin, self.p, self.epsilon, self.swap = float(margin), float(p), epsilon, swap

    def _dist(self, x, y):
        return out("p_norm", {"X": x - y + self.epsilon},
                   {"porder": self.p, "axis": -1, "epsilon": 1e-12, "keepdim": False,
                    "asvector": False})

    def forward(self, input, positive, negative):
        d_pos = self._dist(input, positive)
        d_neg = self._dist(input, negative)
        if self.swap:
            d_neg = tmath.min(manip.stack([d_neg, self._dist(positive, negative)]), axis=0)
        raw = d_pos - d_neg + self.margin
        return self._reduce(_ops.maximum(raw, _ops.zeros_like(raw)))


class TripletMarginWithDistanceLoss(_Loss):
    """TripletMarginLoss with a user distance function (default: pairwise 2-norm)."""

    def __init__(self, distance_function=None, margin=1.0, swap=False, reduction="mean",
                 name=None):
        super().__init__(reduction)
        self.distance_function, self.margin, self.swap = distance_function, float(margin), swap
        self._default = TripletMarginLoss(margin, 2.0, 1e-6, swap, reduction)

    def forward(self, input, positive, negative):
        dist = self.distance_function or self._default._dist
        d_pos, d_neg = dist(input, positive), dist(input, negative)
        if self.swap:
            d_neg = tmath.min(manip.stack([d_neg, dist(positive, negative)]), axis=0)
        raw = d_pos - d_neg + self.margin
        return self._reduce(_ops.maximum(raw, _ops.zeros_like(raw)))


class PoissonNLLLoss(_Loss):
    """exp(x) - y x (log_input) or x - y log(x + eps); `full` adds Stirling's term."""

    def __init__(self, log_input=True, full=False, epsilon=1e-8, reduction="mean", name=None):
        super().__init__(reduction)
        self.log_input, self.full, self.epsilon = log_input, full, float(epsilon)

    def forward(self, input, label):
        if self.log_input:
            loss = tmath.exp(input) - label * input
        else:
            loss = input - label * tmath.log(input + self.epsilon)
        if self.full:
            safe = _ops.where(label > 1.0, label, _ops.ones_like(label))
            stirling = safe * tmath.log(safe) - safe + 0.5 * tmath.log(safe * (2 * math.pi))
            loss = loss + _ops.where(label > 1.0, stirling, _ops.zeros_like(label))
        return self._reduce(loss)


class GaussianNLLLoss(_Loss):
    """0.5 (log(max(var, eps)) + (input - label)^2 / max(var, eps)) (+ 0.5 log(2 pi))."""

    def __init__(self, full=False, epsilon=1e-6, reduction="mean", name=None):
        super().__init__(reduction)
        self.full, self.epsilon = full, float(epsilon)

    def forward(self, input, label, variance):
        var = tmath.clip(variance, self.epsilon, math.inf)
        diff = input - label
        loss = (tmath.log(var) + diff * diff / var) * 0.5
        if self.full:
            loss = loss + 0.5 * math.log(2 * math.pi)
        return self._reduce(loss)


class MultiMarginLoss(_Loss):
    """sum over j != y of max(0, margin - x[y] + x[j])^p / C, per sample."""

    def __init__(self, p=1, margin=1.0, weight=None, reduction="mean", name=None):
        super().__init__(reduction)
        if p not in (1, 2):
            raise BuildError(f"MultiMarginLoss: p must be 1 or 2, got {p}")
        self.p, self.margin, self.weight = p, float(margin), weight

    def forward(self, input, label):
        picked = out("take_along_axis", {"Input": input, "Index": manip.unsqueeze(label, 1)},
                     {"Axis": 1}, slot="Result")
        raw = input - picked + self.margin
        hinge = _ops.maximum(raw, _ops.zeros_like(raw))
        if self.p == 2:
            hinge = hinge * hinge
        if self.weight is not None:
            hinge = hinge * manip.unsqueeze(_gather_weight(self.weight, label), 1)
        # the j == y term contributes margin^p (times weight): subtract it
        own = self.margin ** self.p
        own_term = own if self.weight is None else \
            manip.unsqueeze(_gather_weight(self.weight, label), 1) * own
        loss = (tmath.sum(hinge, axis=1, keepdim=True) - own_term) * (1.0 / input.shape[1])
        return self._reduce(manip.squeeze(loss, 1))


class MultiLabelMarginLoss(_Loss):
    """Per sample: sum over target classes j (label entries before the first -1) and
    non-target classes i of max(0, 1 - (x[j] - x[i])), divided by the number of classes."""

    def forward(self, input, label):
        if len(input.shape) != 2 or list(label.shape) != list(input.shape):
            raise BuildError(f"MultiLabelMarginLoss: expected input and label of the same 2-D "
                             f"shape, got {list(input.shape)} and {list(label.shape)}")
        classes = input.shape[1]
        valid = _ops.cast(label >= 0, input.dtype)
        valid = out("cumprod", {"X": valid}, {"dim": 1})  # targets end at the first -1
        safe = _ops.where(label >= 0, label, _ops.zeros_like(label))
        picked = out("take_along_axis", {"Input": input, "Index": safe}, {"Axis": 1},
                     slot="Result")  # x[y_j]: [N, J]
        hot = out("one_hot_v2", {"X": safe}, {"depth": classes,
                                              "dtype": 5 if input.dtype == "float32" else 6})
        is_target = tmath.max(hot * manip.unsqueeze(_ops.cast(valid, hot.dtype), 2), axis=1)
        hinge = 1.0 - manip.unsqueeze(picked, 2) + manip.unsqueeze(input, 1)  # [N, J, C]
        hinge = _ops.maximum(hinge, _ops.zeros_like(hinge))
        mask = manip.unsqueeze(valid, 2) * manip.unsqueeze(1.0 - _ops.to_dtype(is_target, input),
                                                           1)
        loss = tmath.sum(tmath.sum(hinge * mask, axis=2), axis=1) * (1.0 / classes)
        return self._reduce(loss)
