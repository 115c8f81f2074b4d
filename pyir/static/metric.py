"""`paddle.static.Print`, `accuracy` and `auc` (ops `print`, `top_k_v2` + `accuracy`, `auc`)."""

from __future__ import annotations

from ..builder import emit
from ..errors import BuildError, Where
from ..ops import auc as _auc_op  # noqa: F401  (registers the auc op)
from ..ops import static_metric  # noqa: F401  (registers the print and accuracy ops)
from .building import create_global_var
from .nn_common import _input, _stem, _tmp

_PHASES = ("FORWARD", "BACKWARD", "BOTH")


def Print(input, first_n=-1, message=None, summarize=20, print_tensor_name=True,  # noqa: N802
          print_tensor_type=True, print_tensor_shape=True, print_tensor_layout=True,
          print_tensor_lod=True, print_phase="both"):
    """Pass `input` through unchanged, printing it when the program runs (and its gradient
    in the backward pass, per `print_phase`: "forward", "backward" or "both").

    Example:
        >>> x = pyir.static.Print(x, message="after fc", summarize=5)
    """
    input = _input(input, "input", "print")
    phase = str(print_phase).upper()
    if phase not in _PHASES:
        raise BuildError(f"Print: print_phase must be one of forward/backward/both, got "
                         f"{print_phase!r}", Where(op_type="print"))
    stem = _stem("print", None)
    out = _tmp(stem, input.dtype, input.shape, stop_gradient=input.stop_gradient)
    emit("print", {"In": input},
         {"first_n": int(first_n), "message": message or "", "summarize": int(summarize),
          "print_tensor_name": bool(print_tensor_name),
          "print_tensor_type": bool(print_tensor_type),
          "print_tensor_shape": bool(print_tensor_shape),
          "print_tensor_layout": bool(print_tensor_layout),
          "print_tensor_lod": bool(print_tensor_lod), "print_phase": phase,
          "is_forward": True}, outputs={"Out": out})
    return out


def accuracy(input, label, k=1, correct=None, total=None):
    """Top-k accuracy of the scores `input` [N, C] against `label` [N, 1]: the share of rows
    whose k best classes include the label (ops `top_k_v2` + `accuracy`).

    Example:
        >>> acc = pyir.static.accuracy(prediction, label, k=5)
    """
    input = _input(input, "input", "accuracy")
    label = _input(label, "label", "accuracy")
    if not isinstance(k, int) or k < 1:
        raise BuildError(f"accuracy: k must be a positive int, got {k!r}",
                         Where(op_type="accuracy"))
    stem = _stem("accuracy", None)
    shape = list(input.shape[:-1]) + [k]
    values = _tmp(stem, input.dtype, shape, stop_gradient=True)
    indices = _tmp(stem, "int64", shape, stop_gradient=True)
    emit("top_k_v2", {"X": input}, {"k": k, "axis": -1, "largest": True, "sorted": False},
         outputs={"Out": values, "Indices": indices})
    acc = _tmp(stem, "float32", [], stop_gradient=True)
    correct = correct if correct is not None else _tmp(stem, "int32", [], stop_gradient=True)
    total = total if total is not None else _tmp(stem, "int32", [], stop_gradient=True)
    emit("accuracy", {"Out": values, "Indices": indices, "Label": label},
         outputs={"Accuracy": acc, "Correct": correct, "Total": total})
    return acc




def auc(input, label, curve="ROC", num_thresholds=2 ** 12 - 1, topk=1, slide_steps=1,
        ins_tag_weight=None):
    """Streaming ROC-AUC of the positive-class scores (last column of `input`): two `auc`
    ops over persistable bin counts, one over the last `slide_steps` batches and one over
    everything since the startup program ran.

    Returns:
        (auc, batch_auc, [batch_stat_pos, batch_stat_neg, stat_pos, stat_neg])

    Example:
        >>> global_auc, batch_auc, states = pyir.static.auc(prediction, label)
    """
    input = _input(input, "input", "auc")
    label = _input(label, "label", "auc")
    if curve != "ROC":
        raise BuildError(f"auc: only curve='ROC' is supported, got {curve!r}",
                         Where(op_type="auc"))
    if not isinstance(num_thresholds, int) or num_thresholds < 1:
        raise BuildError(f"auc: num_thresholds must be a positive int, got {num_thresholds!r}",
                         Where(op_type="auc"))
    if not isinstance(slide_steps, int) or slide_steps < 0:
        raise BuildError(f"auc: slide_steps must be an int >= 0, got {slide_steps!r}",
                         Where(op_type="auc"))
    if ins_tag_weight is None:  # Paddle builds this constant and then does not pass it on
        emit("fill_constant", attrs={"shape": [1, 1], "value": 1.0, "dtype": 5},
             helper=_stem("fill_constant", None))
    stem = _stem("auc", None)
    auc_out = _tmp(stem, "float64", [])
    batch_auc_out = _tmp(stem, "float64", [])
    bins = num_thresholds + 1
    states = [create_global_var([(1 + slide_steps) * bins + 1], 0, "int64", persistable=True)
              for _ in range(2)]
    states += [create_global_var([1, bins], 0, "int64", persistable=True) for _ in range(2)]
    for state in states:
        state.stop_gradient = False  # as Paddle's create_global_variable leaves them
    attrs = {"curve": curve, "num_thresholds": num_thresholds}
    emit("auc", {"Predict": input, "Label": label, "StatPos": states[0], "StatNeg": states[1]},
         {**attrs, "slide_steps": slide_steps},
         outputs={"AUC": batch_auc_out, "StatPosOut": states[0], "StatNegOut": states[1]})
    emit("auc", {"Predict": input, "Label": label, "StatPos": states[2], "StatNeg": states[3]},
         {**attrs, "slide_steps": 0},
         outputs={"AUC": auc_out, "StatPosOut": states[2], "StatNegOut": states[3]})
    return auc_out, batch_auc_out, states


__all__ = ["Print", "accuracy", "auc"]
