"""`paddle.static.Print` and `paddle.static.accuracy` (ops `print`, `top_k_v2` + `accuracy`)."""

from __future__ import annotations

from ..builder import emit
from ..errors import BuildError, Where
from ..ops import static_metric  # noqa: F401  (registers the print and accuracy ops)
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


__all__ = ["Print", "accuracy"]
