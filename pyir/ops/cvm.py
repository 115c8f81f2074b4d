"""`cvm` (+ `cvm_grad`): the CTR "continuous value model" op behind
`paddle.static.nn.continuous_value_model`. X's first two columns are show and click counts:

    use_cvm=True    Y = [log(show + 1), log(click + 1) - log(show + 1), X[:, 2:]]
    use_cvm=False   Y = X[:, 2:]

Its backward is Paddle's CTR convention, not a derivative: dX[:, :2] = CVM (the batch's
show/click values) and dX[:, 2:] = the matching columns of dY. Finite differences cannot
check it, so the op is registered as not differentiable (with the rule, which the backward
pass uses); tests/test_api_static_metric.py checks it against Paddle 3.3.1.
"""

from __future__ import annotations

import numpy as np

from ..registry import Attr, Example, GradOp, Slot, VarSpec, grad_name, register_op
from ..registry import AttrType as T


def _infer_cvm(ctx):
    x = ctx.input("X")
    cols = x.shape[-1] if ctx.attr("use_cvm") or x.shape[-1] < 0 else x.shape[-1] - 2
    return {"Y": VarSpec(tuple(x.shape[:-1]) + (cols,), x.dtype)}


def _cvm_grad(op, opdef):
    return [GradOp("cvm_grad", {"X": op.input("X"), "CVM": op.input("CVM"),
                                "Y@GRAD": [grad_name(n) for n in op.output("Y")]},
                   {"X@GRAD": [grad_name(n) for n in op.input("X")]},
                   {"use_cvm": op.attrs.get("use_cvm", True)})]


def _check(X, CVM):
    if X.ndim != 2 or X.shape[1] < 2 or CVM.shape != (X.shape[0], 2):
        raise ValueError(f"cvm needs X [N, D >= 2] and CVM [N, 2], got {list(X.shape)} and "
                         f"{list(CVM.shape)}")


@register_op(
    "cvm", inputs=["X", Slot("CVM", no_grad=True)], outputs=["Y"],
    attrs=[Attr("use_cvm", T.BOOLEAN, True)], infer=_infer_cvm, grad=_cvm_grad,
    differentiable=False,
    doc="Y = [log(show+1), log(click+1) - log(show+1), X[:, 2:]] (use_cvm) or X[:, 2:]",
    examples=[
        Example({"X": np.array([[3.0, 1.0, 0.5, -0.5], [0.0, 0.0, 2.0, 1.0]]),
                 "CVM": np.array([[1.0, 0.0], [2.0, 1.0]])}, {"use_cvm": True},
                {"Y": np.array([[np.log(4), np.log(2) - np.log(4), 0.5, -0.5],
                                [0.0, 0.0, 2.0, 1.0]])}, grad=False),
        Example({"X": np.array([[3.0, 1.0, 0.5, -0.5]]), "CVM": np.array([[1.0, 0.0]])},
                {"use_cvm": False}, {"Y": np.array([[0.5, -0.5]])}, grad=False),
    ],
)
def cvm(X, CVM, use_cvm):
    _check(X, CVM)
    if not use_cvm:
        return {"Y": X[:, 2:].copy()}
    y = X.copy()
    y[:, 0] = np.log(X[:, 0] + 1)
    y[:, 1] = np.log(X[:, 1] + 1) - y[:, 0]
    return {"Y": y}


@register_op(
    "cvm_grad", inputs=["X", "CVM", "Y@GRAD"], outputs=[Slot("X@GRAD", dispensable=True)],
    attrs=[Attr("use_cvm", T.BOOLEAN, True)], grad_of="cvm",
    doc="dX[:, :2] = CVM; dX[:, 2:] = dY's value columns (Paddle's CTR convention)",
)
def cvm_grad(X, CVM, Y_grad, use_cvm):
    dx = np.empty_like(X)
    dx[:, :2] = CVM
    dx[:, 2:] = Y_grad[:, 2:] if use_cvm else Y_grad
    return {"X@GRAD": dx}
