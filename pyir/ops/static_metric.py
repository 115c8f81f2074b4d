"""Ops behind `paddle.static.Print` and `paddle.static.accuracy`: `print` (identity that
prints its input; its gradient is another `print` with is_forward=False that prints the
gradient; a backward print runs only when the gradients it passes on are needed) and
`accuracy` (share of rows whose top-k indices hold the label).
"""

from __future__ import annotations

import numpy as np

from ..registry import Attr, Example, GradOp, Slot, VarSpec, grad_name, register_op
from ..registry import AttrType as T
from ._helpers import rand, same_as

_PRINT_ATTRS = [Attr("first_n", T.INT, -1), Attr("message", T.STRING, ""),
                Attr("summarize", T.INT, 20), Attr("print_tensor_name", T.BOOLEAN, True),
                Attr("print_tensor_type", T.BOOLEAN, True),
                Attr("print_tensor_shape", T.BOOLEAN, True),
                Attr("print_tensor_layout", T.BOOLEAN, True),
                Attr("print_tensor_lod", T.BOOLEAN, True),
                Attr("print_phase", T.STRING, "BOTH"), Attr("is_forward", T.BOOLEAN, True)]


def _print_grad(op, opdef):
    attrs = {a.name: op.attrs.get(a.name, a.default) for a in opdef.attrs}
    attrs["is_forward"] = False
    return [GradOp("print", {"In": [grad_name(n) for n in op.output("Out")]},
                   {"Out": [grad_name(n) for n in op.input("In")]}, attrs)]


def format_print(value: np.ndarray, message: str, summarize: int, name: str = "",
                 show_name: bool = True, show_type: bool = True, show_shape: bool = True,
                 show_layout: bool = True, show_lod: bool = True) -> str:
    """The text Paddle's print op writes for one tensor (first `summarize` values; -1: all)."""
    lines = [f"Variable: {name}"] if show_name else []
    if message:
        lines.append(f"  - message: {message}")
    if show_lod:
        lines.append("  - lod: {}")
    lines.append("  - place: Place(cpu)")
    if show_shape:
        lines.append(f"  - shape: {list(value.shape)}")
    if show_layout:
        lines.append("  - layout: NCHW")
    if show_type:
        lines.append(f"  - dtype: {value.dtype}")
    flat = value.reshape(-1)
    shown = flat if summarize < 0 else flat[:summarize]
    if value.dtype.kind == "f":
        text = " ".join(f"{v:.6f}" for v in shown)
    else:
        text = " ".join(str(v) for v in shown)
    lines.append(f"  - data: [{text}]")
    return "\n".join(lines)


def _prepare_print(op, ctx) -> dict:
    """The printed variable's name, and a per-op count of prints (for first_n)."""
    names = op.input("In")
    return {"var_name": names[0] if names else "", "printed": [0]}


@register_op(
    "print", inputs=["In"], outputs=["Out"], attrs=_PRINT_ATTRS, infer=same_as("In"),
    grad=_print_grad, side_effects=lambda op: bool(op.attrs.get("is_forward", True)),
    runtime=("var_name", "printed"), prepare=_prepare_print,
    doc="Out = In; prints In (forward) or its gradient (is_forward=False) per print_phase",
    examples=[Example({"In": rand(2, 3)}, {"message": "x", "summarize": 2},
                      lambda In, **_: {"Out": In})],
)
def print_op(In, first_n, message, summarize, print_tensor_name, print_tensor_type,
             print_tensor_shape, print_tensor_layout, print_tensor_lod, print_phase,
             is_forward, var_name, printed):
    phase = str(print_phase).upper()
    wanted = phase == "BOTH" or (phase == "FORWARD") == bool(is_forward)
    if wanted and (first_n < 0 or printed[0] < first_n):
        printed[0] += 1
        print(format_print(np.asarray(In), message, summarize, var_name, print_tensor_name,
                           print_tensor_type, print_tensor_shape, print_tensor_layout,
                           print_tensor_lod), flush=True)
    return {"Out": np.array(In, copy=True)}


def _infer_accuracy(ctx):
    scalar = VarSpec((), np.dtype("float32"))
    return {"Accuracy": scalar, "Correct": VarSpec((), np.dtype("int32")),
            "Total": VarSpec((), np.dtype("int32"))}


def _accuracy_expect(Out, Indices, Label):
    hits = sum(int(Label[i, 0] in Indices[i]) for i in range(len(Label)))
    return {"Accuracy": np.array(hits / len(Label), "float32"),
            "Correct": np.array(hits, "int32"), "Total": np.array(len(Label), "int32")}


def accuracy(Out, Indices, Label):
    rows = Indices.shape[0]
    label = np.asarray(Label).reshape(rows, -1)[:, :1] if rows else Label
    correct = int(np.any(Indices == label, axis=1).sum()) if rows else 0
    return {"Accuracy": np.array(correct / rows if rows else 0.0, "float32"),
            "Correct": np.array(correct, "int32"), "Total": np.array(rows, "int32")}


# Another module (the optimizers' metrics) may define the same Paddle op; one definition wins.
register_op(
    "accuracy", inputs=["Out", "Indices", Slot("Label", no_grad=True)],
    outputs=["Accuracy", "Correct", "Total"], infer=_infer_accuracy, differentiable=False,
    doc="Correct = rows whose top-k Indices contain Label; Accuracy = Correct / Total",
    examples=[
        Example({"Out": rand(4, 2), "Indices": np.array([[1, 0], [2, 3], [0, 4], [4, 1]]),
                 "Label": np.array([[0], [1], [4], [3]])}, {}, _accuracy_expect),
        Example({"Out": rand(0, 2), "Indices": np.zeros((0, 2), "int64"),
                 "Label": np.zeros((0, 1), "int64")}, {},
                {"Accuracy": np.array(0.0, "float32"), "Correct": np.array(0, "int32"),
                 "Total": np.array(0, "int32")}),
    ],
)(accuracy)
