"""Matrix products and losses: mul (the `fc` product), matmul_v2, softmax, cross entropy."""

from __future__ import annotations

import numpy as np

from ..registry import Attr, Example, VarSpec, register_op
from ..registry import AttrType as T
from ._helpers import default_grad, rand


def _flatten2d(a, num_col_dims):
    rows = int(np.prod(a.shape[:num_col_dims]))
    return a.reshape(rows, -1)


def _infer_mul(ctx):
    x, y = ctx.input("X"), ctx.input("Y")
    xd, yd = ctx.attr("x_num_col_dims"), ctx.attr("y_num_col_dims")
    return {"Out": VarSpec(tuple(x.shape[:xd]) + tuple(y.shape[yd:]), x.dtype)}


_MUL_ATTRS = [Attr("x_num_col_dims", T.INT, 1), Attr("y_num_col_dims", T.INT, 1)]


@register_op(
    "mul", inputs=["X", "Y"], outputs=["Out"], attrs=_MUL_ATTRS, infer=_infer_mul,
    grad=default_grad("mul_grad"),
    doc="Out = flatten(X, x_num_col_dims) @ flatten(Y, y_num_col_dims), unflattened",
    examples=[
        Example({"X": rand(4, 3), "Y": rand(3, 5)}, {"x_num_col_dims": 1, "y_num_col_dims": 1},
                lambda X, Y, **a: {"Out": X @ Y}),
        Example({"X": rand(2, 3, 4), "Y": rand(12, 5)}, {"x_num_col_dims": 1, "y_num_col_dims": 1},
                lambda X, Y, **a: {"Out": X.reshape(2, 12) @ Y}),
        Example({"X": rand(2, 3, 4), "Y": rand(4, 5)}, {"x_num_col_dims": 2, "y_num_col_dims": 1},
                lambda X, Y, **a: {"Out": np.einsum("abk,kn->abn", X, Y)}),
    ],
)
def mul(X, Y, x_num_col_dims, y_num_col_dims):
    out = _flatten2d(X, x_num_col_dims) @ _flatten2d(Y, y_num_col_dims)
    return {"Out": out.reshape(X.shape[:x_num_col_dims] + Y.shape[y_num_col_dims:])}


@register_op(
    "mul_grad", inputs=["X", "Y", "Out@GRAD"], outputs=["X@GRAD", "Y@GRAD"], attrs=_MUL_ATTRS,
    grad_of="mul", doc="dX = dOut @ Y^T, dY = X^T @ dOut (in flattened 2-D form)",
)
def mul_grad(X, Y, Out_grad, x_num_col_dims, y_num_col_dims):
    x2, y2 = _flatten2d(X, x_num_col_dims), _flatten2d(Y, y_num_col_dims)
    g2 = Out_grad.reshape(x2.shape[0], y2.shape[1])
    return {"X@GRAD": (g2 @ y2.T).reshape(X.shape), "Y@GRAD": (x2.T @ g2).reshape(Y.shape)}
