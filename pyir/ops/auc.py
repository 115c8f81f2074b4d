"""`auc`: Paddle's streaming ROC-AUC. Predictions are bucketed by their positive-class score
(the last column) into num_thresholds + 1 bins; StatPos/StatNeg count positives/negatives
per bin and are updated in place (StatPosOut, StatNegOut name the same variables).

    slide_steps = 0   Stat* [1, B]: counts since the start
    slide_steps = s   Stat* [(s + 1) * B + 1]: s per-step rings, then their sum over the
                      last s steps, then the step counter; AUC is over the window sum
"""

from __future__ import annotations

import numpy as np

from ..registry import Attr, Example, Slot, VarSpec, register_op
from ..registry import AttrType as T


def _infer_auc(ctx):
    pos, neg = ctx.input("StatPos"), ctx.input("StatNeg")
    return {"AUC": VarSpec((), np.dtype("float64")), "StatPosOut": VarSpec(pos.shape, pos.dtype),
            "StatNegOut": VarSpec(neg.shape, neg.dtype)}


def _area_under(pos: np.ndarray, neg: np.ndarray) -> float:
    """Trapezoids under the ROC curve, walking the bins from the highest score down."""
    tot_pos = tot_neg = 0.0
    area = 0.0
    for i in range(len(pos) - 1, -1, -1):
        prev_pos, prev_neg = tot_pos, tot_neg
        tot_pos += float(pos[i])
        tot_neg += float(neg[i])
        area += abs(tot_neg - prev_neg) * (tot_pos + prev_pos) / 2.0
    return area / tot_pos / tot_neg if tot_pos * tot_neg > 0 else 0.0


def _bins(Predict, Label, num_thresholds):
    score = np.asarray(Predict).reshape(len(Predict), -1)[:, -1]
    if np.any((score < 0) | (score > 1)):
        raise ValueError(f"auc needs scores in [0, 1], got values in "
                         f"[{score.min()}, {score.max()}]")
    bins = (score * num_thresholds).astype(np.int64)
    positive = np.asarray(Label).reshape(-1) > 0
    size = num_thresholds + 1
    return (np.bincount(bins[positive], minlength=size),
            np.bincount(bins[~positive], minlength=size))


_SCORES = np.array([[0.9, 0.1], [0.2, 0.8], [0.4, 0.6], [0.7, 0.3], [0.5, 0.55]])


@register_op(
    "auc",
    inputs=["Predict", "Label", "StatPos", "StatNeg", Slot("InsTagWeight", dispensable=True)],
    outputs=["AUC", "StatPosOut", "StatNegOut"],
    attrs=[Attr("curve", T.STRING, "ROC"), Attr("num_thresholds", T.INT, 2 ** 12 - 1),
           Attr("slide_steps", T.INT, 1)],
    infer=_infer_auc, differentiable=False,
    doc="AUC of the ROC curve from per-bin positive/negative counts (updated in place)",
    examples=[
        Example({"Predict": _SCORES, "Label": np.array([[0], [1], [0], [1], [1]]),
                 "StatPos": np.zeros((1, 8), "int64"), "StatNeg": np.zeros((1, 8), "int64")},
                {"num_thresholds": 7, "slide_steps": 0},
                {"AUC": np.array(4 / 6),  # 2 x 3 pairs, 4 ranked right
                 "StatPosOut": np.array([[0, 0, 1, 1, 0, 1, 0, 0]]),
                 "StatNegOut": np.array([[1, 0, 0, 0, 1, 0, 0, 0]])}),
        Example({"Predict": _SCORES, "Label": np.array([[0], [1], [0], [1], [1]]),
                 "StatPos": np.zeros(17, "int64"), "StatNeg": np.zeros(17, "int64")},
                {"num_thresholds": 7, "slide_steps": 1},
                {"AUC": np.array(4 / 6),
                 "StatPosOut": np.array([0, 0, 1, 1, 0, 1, 0, 0] * 2 + [1]),
                 "StatNegOut": np.array([1, 0, 0, 0, 1, 0, 0, 0] * 2 + [1])}),
    ],
)
def auc(Predict, Label, StatPos, StatNeg, InsTagWeight, curve, num_thresholds, slide_steps):
    if curve != "ROC":
        raise ValueError(f"auc supports curve='ROC' only, got {curve!r}")
    size = num_thresholds + 1
    stat_pos, stat_neg = np.array(StatPos, copy=True), np.array(StatNeg, copy=True)
    fake = InsTagWeight is not None and np.asarray(InsTagWeight).reshape(-1)[0] == 0
    pos, neg = _bins(Predict, Label, num_thresholds) if not fake else (np.zeros(size, "int64"),) * 2
    if slide_steps == 0:
        if stat_pos.size != size:
            raise ValueError(f"auc with slide_steps=0 needs stats of {size} bins, got "
                             f"{stat_pos.size}")
        flat_pos, flat_neg = stat_pos.reshape(-1), stat_neg.reshape(-1)
        flat_pos += pos
        flat_neg += neg
        window_pos, window_neg = flat_pos, flat_neg
    else:
        expected = (slide_steps + 1) * size + 1
        if stat_pos.size != expected:
            raise ValueError(f"auc with slide_steps={slide_steps} needs stats of "
                             f"{expected} values, got {stat_pos.size}")
        for flat, new in ((stat_pos.reshape(-1), pos), (stat_neg.reshape(-1), neg)):
            step = int(flat[-1]) % slide_steps
            ring = flat[step * size:(step + 1) * size]
            window = flat[slide_steps * size:(slide_steps + 1) * size]
            window -= ring
            ring[:] = new
            window += new
            flat[-1] += 1
        window_pos = stat_pos.reshape(-1)[slide_steps * size:(slide_steps + 1) * size]
        window_neg = stat_neg.reshape(-1)[slide_steps * size:(slide_steps + 1) * size]
    return {"AUC": np.array(_area_under(window_pos, window_neg)), "StatPosOut": stat_pos,
            "StatNegOut": stat_neg}
