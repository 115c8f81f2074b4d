"""`row_conv` (+ `row_conv_grad`): the lookahead convolution of `paddle.static.nn.row_conv`
on a dense [batch, time, dim] input: Out[b, t] = sum_k X[b, t + k] * Filter[k] over the
future steps that exist (k < Filter rows, t + k < time). LoD sequence input is not supported.
"""

from __future__ import annotations

import numpy as np

from ..registry import Example, Slot, register_op
from ._helpers import default_grad, rand, same_as


def _expect(X, Filter):
    out = np.zeros_like(X)
    for t in range(X.shape[1]):
        for k in range(Filter.shape[0]):
            if t + k < X.shape[1]:
                out[:, t] += X[:, t + k] * Filter[k]
    return {"Out": out}


@register_op(
    "row_conv", inputs=["X", "Filter"], outputs=["Out"], infer=same_as("X"),
    grad=default_grad("row_conv_grad"),
    doc="Out[b, t] = sum_k X[b, t + k] * Filter[k] (future context of Filter.shape[0] - 1)",
    examples=[
        Example({"X": rand(2, 4, 3), "Filter": rand(3, 3)}, {}, _expect),
        Example({"X": rand(1, 2, 2), "Filter": rand(4, 2)}, {}, _expect),  # filter > time
    ],
)
def row_conv(X, Filter):
    steps, context = X.shape[1], Filter.shape[0]
    out = np.zeros_like(X)
    for k in range(min(context, steps)):
        out[:, :steps - k] += X[:, k:] * Filter[k]
    return {"Out": out}


@register_op(
    "row_conv_grad", inputs=["X", "Filter", "Out@GRAD"],
    outputs=[Slot("X@GRAD", dispensable=True), Slot("Filter@GRAD", dispensable=True)],
    grad_of="row_conv", doc="dX[b, t + k] += dOut[b, t] * Filter[k]; dFilter[k] = sum dOut * X",
)
def row_conv_grad(X, Filter, Out_grad):
    steps, context = X.shape[1], Filter.shape[0]
    dx, dfilter = np.zeros_like(X), np.zeros_like(Filter)
    for k in range(min(context, steps)):
        dx[:, k:] += Out_grad[:, :steps - k] * Filter[k]
        dfilter[k] = (Out_grad[:, :steps - k] * X[:, k:]).sum(axis=(0, 1))
    return {"X@GRAD": dx, "Filter@GRAD": dfilter}
