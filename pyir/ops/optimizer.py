"""Optimizer update ops. They write parameters in place (ParamOut is the Param variable), so
the planner keeps them: they write persistable state."""

from __future__ import annotations

import numpy as np

from ..registry import Attr, Example, Slot, register_op
from ..registry import AttrType as T
from ._helpers import rand, rand_positive, same_as


def _sgd_expect(Param, LearningRate, Grad, MasterParam=None, multi_precision=False):
    return {"ParamOut": Param - LearningRate.reshape(()) * Grad}


@register_op(
    "sgd",
    inputs=["Param", "LearningRate", "Grad", Slot("MasterParam", dispensable=True)],
    outputs=["ParamOut", Slot("MasterParamOut", dispensable=True)],
    attrs=[Attr("multi_precision", T.BOOLEAN, False)],
    infer=same_as("Param", out="ParamOut"),
    differentiable=False,
    doc="ParamOut = Param - LearningRate * Grad (in place: ParamOut is Param)",
    examples=[
        Example({"Param": rand(3, 4), "LearningRate": np.array(0.1, np.float32),
                 "Grad": rand(3, 4)}, expect=_sgd_expect),
        Example({"Param": rand(5), "LearningRate": rand_positive(1), "Grad": rand(5)},
                expect=_sgd_expect),
    ],
)
def sgd(Param, LearningRate, Grad, MasterParam, multi_precision):
    lr = np.asarray(LearningRate).reshape(()).astype(Param.dtype, copy=False)
    out = {"ParamOut": (Param - lr * Grad).astype(Param.dtype, copy=False)}
    if MasterParam is not None:
        out["MasterParamOut"] = (MasterParam - lr.astype(MasterParam.dtype) * Grad).astype(
            MasterParam.dtype, copy=False)
    return out
