"""Optimizer update ops: sgd, momentum, adam. They write parameters and accumulators in place
(ParamOut is the Param variable, VelocityOut the Velocity one, ...), so the planner keeps them:
they write persistable state. The math is Paddle's CPU kernels', in the parameter's dtype."""

from __future__ import annotations

import sys

import numpy as np

from ..registry import REQUIRED, Attr, Example, Slot, VarSpec, register_op
from ..registry import AttrType as T
from ._helpers import rand, rand_positive, same_as


def _in_place(*pairs):
    """Inference for update ops: each `(input, output)` slot pair keeps the input's spec."""

    def infer(ctx):
        return {out: VarSpec(ctx.input(slot).shape, ctx.input(slot).dtype)
                for slot, out in pairs if ctx.input(slot) is not None}

    return infer


def _scalar(value, dtype):
    """A 0-d or [1] tensor (learning rate, beta powers) as a numpy scalar of `dtype`."""
    return np.asarray(value).reshape(()).astype(dtype)


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
    lr = _scalar(LearningRate, Param.dtype)
    out = {"ParamOut": (Param - lr * Grad).astype(Param.dtype, copy=False)}
    if MasterParam is not None:
        out["MasterParamOut"] = (MasterParam - lr.astype(MasterParam.dtype) * Grad).astype(
            MasterParam.dtype, copy=False)
    return out


# A plan runs a kernel's `in_place` variant (same parameters, same results) for a step whose
# output variables are its input variables for every (input, output) slot pair of
# `in_place_slots` (ParamOut is Param, ...), none of them fed (plan._in_place_kernel). The
# variant writes the new values into the input arrays themselves, as Paddle's kernels do, when
# nothing but the plan holds that array: sys.getrefcount counts the scope's dict, the plan's
# local, this call's parameter and getrefcount's own argument (4). A fetched array the caller
# kept, a view, an array also held elsewhere (np.array(tensor) of the scope's value) counts
# more, and gets a new array as before. MLP4's step: sgd's two 256 KB allocations (mmap'd)
# per parameter become one.
SOLE_HOLDERS = 4


def _owned(array, count: int) -> bool:
    """Whether `array` (a kernel's parameter, whose getrefcount in the kernel is `count`) may
    be written in place: plain (no base), writeable, held by nothing but the plan."""
    return count <= SOLE_HOLDERS and array.base is None and array.flags.writeable


def _sgd_in_place(Param, LearningRate, Grad, MasterParam, multi_precision):
    count = sys.getrefcount(Param)  # first: a pending call's arguments count too
    if MasterParam is None and Grad.dtype is Param.dtype and _owned(Param, count):
        step = _scalar(LearningRate, Param.dtype) * Grad
        np.subtract(Param, step, out=Param)  # the same float ops as sgd's Param - lr * Grad
        return {"ParamOut": Param}
    return sgd(Param, LearningRate, Grad, MasterParam, multi_precision)


sgd.in_place = _sgd_in_place
sgd.in_place_slots = (("Param", "ParamOut"),)


# --- momentum ---------------------------------------------------------------------------------
def _momentum_expect(Param, Grad, Velocity, LearningRate, mu, use_nesterov=False, **_):
    v = mu * Velocity.astype(np.float64) + Grad
    step = Grad + mu * v if use_nesterov else v
    return {"ParamOut": (Param - float(LearningRate.reshape(())) * step).astype(Param.dtype),
            "VelocityOut": v.astype(Param.dtype)}


@register_op(
    "momentum", no_extra_attrs=True,
    inputs=["Param", "Grad", "Velocity", "LearningRate", Slot("MasterParam", dispensable=True)],
    outputs=["ParamOut", "VelocityOut", Slot("MasterParamOut", dispensable=True)],
    attrs=[Attr("mu", T.FLOAT, REQUIRED), Attr("use_nesterov", T.BOOLEAN, False),
           Attr("regularization_method", T.STRING, ""),
           Attr("regularization_coeff", T.FLOAT, 0.0), Attr("multi_precision", T.BOOLEAN, False),
           Attr("rescale_grad", T.FLOAT, 1.0)],
    infer=_in_place(("Param", "ParamOut"), ("Velocity", "VelocityOut"),
                    ("MasterParam", "MasterParamOut")),
    differentiable=False,
    doc="g = rescale_grad * Grad (+ coeff * Param for l2_decay); VelocityOut = mu * Velocity "
        "+ g; ParamOut = Param - lr * (g + mu * VelocityOut if use_nesterov else VelocityOut)",
    examples=[
        Example({"Param": rand(3, 4), "Grad": rand(3, 4), "Velocity": rand(3, 4),
                 "LearningRate": np.array(0.1, np.float32)}, {"mu": 0.9}, _momentum_expect),
        Example({"Param": rand(5), "Grad": rand(5), "Velocity": rand(5),
                 "LearningRate": np.array([0.05], np.float32)},
                {"mu": 0.8, "use_nesterov": True}, _momentum_expect),
    ],
)
def momentum(Param, Grad, Velocity, LearningRate, MasterParam, mu, use_nesterov,
             regularization_method, regularization_coeff, multi_precision, rescale_grad):
    param = Param if MasterParam is None else MasterParam
    dtype = param.dtype
    g = Grad.astype(dtype, copy=False)
    if rescale_grad != 1.0:
        g = g * dtype.type(rescale_grad)
    if regularization_method == "l2_decay":
        g = g + dtype.type(regularization_coeff) * param
    mu, lr = dtype.type(mu), _scalar(LearningRate, dtype)
    velocity = Velocity * mu + g
    new = param - (g + velocity * mu) * lr if use_nesterov else param - lr * velocity
    out = {"ParamOut": new.astype(Param.dtype, copy=False), "VelocityOut": velocity}
    if MasterParam is not None:
        out["MasterParamOut"] = new
    return out


def _momentum_in_place(Param, Grad, Velocity, LearningRate, MasterParam, mu, use_nesterov,
                       regularization_method, regularization_coeff, multi_precision,
                       rescale_grad):
    """momentum, writing VelocityOut into Velocity and ParamOut into Param (the same float
    operations in the same order)."""
    param_count, velocity_count = sys.getrefcount(Param), sys.getrefcount(Velocity)
    if MasterParam is None and Velocity.dtype is Param.dtype and Velocity is not Param and \
            _owned(Param, param_count) and _owned(Velocity, velocity_count):
        dtype = Param.dtype
        g = Grad.astype(dtype, copy=False)
        if rescale_grad != 1.0:
            g = g * dtype.type(rescale_grad)
        if regularization_method == "l2_decay":
            g = g + dtype.type(regularization_coeff) * Param
        mu, lr = dtype.type(mu), _scalar(LearningRate, dtype)
        np.multiply(Velocity, mu, out=Velocity)
        np.add(Velocity, g, out=Velocity)
        np.subtract(Param, (g + Velocity * mu) * lr if use_nesterov else lr * Velocity, out=Param)
        return {"ParamOut": Param, "VelocityOut": Velocity}
    return momentum(Param, Grad, Velocity, LearningRate, MasterParam, mu, use_nesterov,
                    regularization_method, regularization_coeff, multi_precision, rescale_grad)


momentum.in_place = _momentum_in_place
momentum.in_place_slots = (("Param", "ParamOut"), ("Velocity", "VelocityOut"))


# --- adam -------------------------------------------------------------------------------------
def _adam_expect(Param, Grad, LearningRate, Moment1, Moment2, Beta1Pow, Beta2Pow, beta1=0.9,
                 beta2=0.999, epsilon=1e-8, **_):
    b1p, b2p = float(Beta1Pow.reshape(-1)[0]), float(Beta2Pow.reshape(-1)[0])
    m1 = beta1 * Moment1.astype(np.float64) + (1 - beta1) * Grad
    m2 = beta2 * Moment2.astype(np.float64) + (1 - beta2) * Grad * Grad
    lr = float(LearningRate.reshape(())) * np.sqrt(1 - b2p) / (1 - b1p)
    out = {"ParamOut": Param - lr * m1 / (np.sqrt(m2) + epsilon * np.sqrt(1 - b2p)),
           "Moment1Out": m1, "Moment2Out": m2, "Beta1PowOut": Beta1Pow * beta1,
           "Beta2PowOut": Beta2Pow * beta2}
    return {k: v.astype(Param.dtype) for k, v in out.items()}


def _adam_inputs(*shape):
    return {"Param": rand(*shape), "Grad": rand(*shape), "LearningRate": np.array(0.1, np.float32),
            "Moment1": rand(*shape, low=-0.1, high=0.1), "Moment2": rand_positive(*shape) * 0.1,
            "Beta1Pow": np.array([0.81], np.float32), "Beta2Pow": np.array([0.998], np.float32)}


_ADAM_INPUTS = ["Param", "Grad", "LearningRate", "Moment1", "Moment2",
                Slot("Moment2Max", dispensable=True), "Beta1Pow", "Beta2Pow",
                Slot("MasterParam", dispensable=True), Slot("SkipUpdate", dispensable=True),
                Slot("Beta1Tensor", dispensable=True), Slot("Beta2Tensor", dispensable=True),
                Slot("EpsilonTensor", dispensable=True)]
_ADAM_OUTPUTS = ["ParamOut", "Moment1Out", "Moment2Out", Slot("Moment2MaxOut", dispensable=True),
                 "Beta1PowOut", "Beta2PowOut", Slot("MasterParamOut", dispensable=True)]
_ADAM_ATTRS = [Attr("beta1", T.FLOAT, 0.9), Attr("beta2", T.FLOAT, 0.999),
               Attr("epsilon", T.FLOAT, 1e-8), Attr("lazy_mode", T.BOOLEAN, False),
               Attr("min_row_size_to_use_multithread", T.LONG, 1000),
               Attr("multi_precision", T.BOOLEAN, False),
               Attr("use_global_beta_pow", T.BOOLEAN, False), Attr("amsgrad", T.BOOLEAN, False)]
_ADAM_INFER = _in_place(("Param", "ParamOut"), ("Moment1", "Moment1Out"),
                        ("Moment2", "Moment2Out"), ("Moment2Max", "Moment2MaxOut"),
                        ("Beta1Pow", "Beta1PowOut"), ("Beta2Pow", "Beta2PowOut"),
                        ("MasterParam", "MasterParamOut"))


@register_op(
    "adam", no_extra_attrs=True, inputs=_ADAM_INPUTS, outputs=_ADAM_OUTPUTS, attrs=_ADAM_ATTRS, infer=_ADAM_INFER,
    differentiable=False,
    doc="Moment1Out = b1 * Moment1 + (1 - b1) * g; Moment2Out = b2 * Moment2 + (1 - b2) * g^2; "
        "ParamOut = Param - lr * sqrt(1 - b2^t) / (1 - b1^t) * Moment1Out / (sqrt(Moment2Out) "
        "+ eps * sqrt(1 - b2^t)); b^t are Beta1Pow / Beta2Pow, each multiplied by its beta",
    examples=[
        Example(_adam_inputs(3, 4), {}, _adam_expect),
        Example(_adam_inputs(6), {"beta1": 0.5, "beta2": 0.7, "epsilon": 1e-4}, _adam_expect),
    ],
)
def adam(Param, Grad, LearningRate, Moment1, Moment2, Moment2Max, Beta1Pow, Beta2Pow,
         MasterParam, SkipUpdate, Beta1Tensor, Beta2Tensor, EpsilonTensor, beta1, beta2, epsilon,
         lazy_mode, min_row_size_to_use_multithread, multi_precision, use_global_beta_pow,
         amsgrad):
    return _adam_step(Param, Grad, LearningRate, Moment1, Moment2, Moment2Max, Beta1Pow,
                      Beta2Pow, MasterParam, SkipUpdate, Beta1Tensor, Beta2Tensor, EpsilonTensor,
                      beta1, beta2, epsilon, use_global_beta_pow, amsgrad, 1.0, 0.0)


def _adam_step(Param, Grad, LearningRate, Moment1, Moment2, Moment2Max, Beta1Pow, Beta2Pow,
               MasterParam, SkipUpdate, Beta1Tensor, Beta2Tensor, EpsilonTensor, beta1, beta2,
               epsilon, use_global_beta_pow, amsgrad, lr_ratio, coeff, into=False):
    """One Adam update with the learning rate scaled by `lr_ratio`; AdamW's decoupled decay
    (`coeff`) first shrinks the parameter by lr * coeff. `into`: write the moments and the
    parameter into Moment1, Moment2 and Param (`_adam_in_place` says when)."""
    if SkipUpdate is not None and bool(np.asarray(SkipUpdate).reshape(-1)[0]):
        out = {"ParamOut": Param, "Moment1Out": Moment1, "Moment2Out": Moment2,
               "Beta1PowOut": Beta1Pow, "Beta2PowOut": Beta2Pow}
        if Moment2Max is not None:
            out["Moment2MaxOut"] = Moment2Max
        if MasterParam is not None:
            out["MasterParamOut"] = MasterParam
        return out
    param = Param if MasterParam is None else MasterParam
    t = param.dtype.type
    b1 = t(beta1 if Beta1Tensor is None else _scalar(Beta1Tensor, param.dtype))
    b2 = t(beta2 if Beta2Tensor is None else _scalar(Beta2Tensor, param.dtype))
    eps = t(epsilon if EpsilonTensor is None else _scalar(EpsilonTensor, param.dtype))
    b1p, b2p = _scalar(Beta1Pow, param.dtype), _scalar(Beta2Pow, param.dtype)
    lr = _scalar(LearningRate, param.dtype) * t(lr_ratio)
    if coeff:
        param = param - lr * t(coeff) * param
    # Paddle's CPU kernel folds the bias corrections into the step size and epsilon
    lr = lr * (np.sqrt(t(1) - b2p) / (t(1) - b1p))
    eps = eps * np.sqrt(t(1) - b2p)
    g = Grad.astype(param.dtype, copy=False)
    if into:  # the same products and sums (b1 * M1 is M1 * b1 bit for bit)
        m1 = np.add(np.multiply(Moment1, b1, out=Moment1), (t(1) - b1) * g, out=Moment1)
        m2 = np.add(np.multiply(Moment2, b2, out=Moment2), (t(1) - b2) * g * g, out=Moment2)
    else:
        m1 = b1 * Moment1 + (t(1) - b1) * g
        m2 = b2 * Moment2 + (t(1) - b2) * g * g
    out = {"Moment1Out": m1, "Moment2Out": m2}
    if amsgrad:
        m2 = out["Moment2MaxOut"] = np.maximum(m2, Moment2Max)
    if into:
        out["ParamOut"] = np.subtract(param, lr * (m1 / (np.sqrt(m2) + eps)), out=Param)
    else:
        new = param - lr * (m1 / (np.sqrt(m2) + eps))
        out["ParamOut"] = new.astype(Param.dtype, copy=False)
    if MasterParam is not None:
        out["MasterParamOut"] = new
    keep = use_global_beta_pow  # the caller updates the powers once for all parameters
    out["Beta1PowOut"] = Beta1Pow if keep else (Beta1Pow * b1).astype(Beta1Pow.dtype)
    out["Beta2PowOut"] = Beta2Pow if keep else (Beta2Pow * b2).astype(Beta2Pow.dtype)
    return out


def _adam_writable(Param, Moment1, Moment2, MasterParam, amsgrad, counts) -> bool:
    """Whether an adam step may write into Param, Moment1 and Moment2 (their getrefcounts in
    the kernel are `counts`): three distinct owned arrays of one dtype."""
    return (MasterParam is None and not amsgrad and Moment1.dtype is Param.dtype
            and Moment2.dtype is Param.dtype and len({id(Param), id(Moment1), id(Moment2)}) == 3
            and all(_owned(a, n) for a, n in zip((Param, Moment1, Moment2), counts)))


def _adam_in_place(Param, Grad, LearningRate, Moment1, Moment2, Moment2Max, Beta1Pow, Beta2Pow,
                   MasterParam, SkipUpdate, Beta1Tensor, Beta2Tensor, EpsilonTensor, beta1, beta2,
                   epsilon, lazy_mode, min_row_size_to_use_multithread, multi_precision,
                   use_global_beta_pow, amsgrad):
    counts = (sys.getrefcount(Param), sys.getrefcount(Moment1), sys.getrefcount(Moment2))
    return _adam_step(Param, Grad, LearningRate, Moment1, Moment2, Moment2Max, Beta1Pow,
                      Beta2Pow, MasterParam, SkipUpdate, Beta1Tensor, Beta2Tensor, EpsilonTensor,
                      beta1, beta2, epsilon, use_global_beta_pow, amsgrad, 1.0, 0.0,
                      _adam_writable(Param, Moment1, Moment2, MasterParam, amsgrad, counts))


_ADAM_IN_PLACE_SLOTS = (("Param", "ParamOut"), ("Moment1", "Moment1Out"),
                        ("Moment2", "Moment2Out"))
adam.in_place, adam.in_place_slots = _adam_in_place, _ADAM_IN_PLACE_SLOTS


# --- adamw ------------------------------------------------------------------------------------
def _adamw_expect(Param, LearningRate, coeff=0.01, lr_ratio=1.0, with_decay=True, **rest):
    lr = LearningRate.astype(np.float64) * lr_ratio
    decay = float(lr.reshape(())) * coeff if with_decay else 0.0
    return _adam_expect(Param * (1 - decay), LearningRate=lr, **rest)


@register_op(
    "adamw", no_extra_attrs=True, inputs=_ADAM_INPUTS, outputs=_ADAM_OUTPUTS, infer=_ADAM_INFER,
    attrs=_ADAM_ATTRS + [Attr("lr_ratio", T.FLOAT, 1.0), Attr("coeff", T.FLOAT, 0.01),
                         Attr("with_decay", T.BOOLEAN, False)],
    differentiable=False,
    doc="adam with learning rate lr * lr_ratio, after decoupled weight decay "
        "Param -= lr * lr_ratio * coeff * Param (with_decay)",
    examples=[
        Example(_adam_inputs(3, 4), {"coeff": 0.05, "with_decay": True}, _adamw_expect),
        Example(_adam_inputs(5), {"coeff": 0.05, "with_decay": False}, _adamw_expect),
        Example(_adam_inputs(4), {"coeff": 0.05, "with_decay": True, "lr_ratio": 0.5},
                _adamw_expect),
    ],
)
def adamw(Param, Grad, LearningRate, Moment1, Moment2, Moment2Max, Beta1Pow, Beta2Pow,
          MasterParam, SkipUpdate, Beta1Tensor, Beta2Tensor, EpsilonTensor, beta1, beta2,
          epsilon, lazy_mode, min_row_size_to_use_multithread, multi_precision,
          use_global_beta_pow, amsgrad, lr_ratio, coeff, with_decay):
    return _adam_step(Param, Grad, LearningRate, Moment1, Moment2, Moment2Max, Beta1Pow,
                      Beta2Pow, MasterParam, SkipUpdate, Beta1Tensor, Beta2Tensor, EpsilonTensor,
                      beta1, beta2, epsilon, use_global_beta_pow, amsgrad, lr_ratio,
                      coeff if with_decay else 0.0)


def _adamw_in_place(Param, Grad, LearningRate, Moment1, Moment2, Moment2Max, Beta1Pow, Beta2Pow,
                    MasterParam, SkipUpdate, Beta1Tensor, Beta2Tensor, EpsilonTensor, beta1,
                    beta2, epsilon, lazy_mode, min_row_size_to_use_multithread, multi_precision,
                    use_global_beta_pow, amsgrad, lr_ratio, coeff, with_decay):
    counts = (sys.getrefcount(Param), sys.getrefcount(Moment1), sys.getrefcount(Moment2))
    return _adam_step(Param, Grad, LearningRate, Moment1, Moment2, Moment2Max, Beta1Pow,
                      Beta2Pow, MasterParam, SkipUpdate, Beta1Tensor, Beta2Tensor, EpsilonTensor,
                      beta1, beta2, epsilon, use_global_beta_pow, amsgrad, lr_ratio,
                      coeff if with_decay else 0.0,
                      _adam_writable(Param, Moment1, Moment2, MasterParam, amsgrad, counts))


adamw.in_place, adamw.in_place_slots = _adamw_in_place, _ADAM_IN_PLACE_SLOTS


# --- gradient clipping ------------------------------------------------------------------------
def _clip_by_norm_expect(X, max_norm):
    norm = np.sqrt((X.astype(np.float64) ** 2).sum())
    return {"Out": (X * (max_norm / norm if norm > max_norm else 1.0)).astype(X.dtype)}


@register_op(
    "clip_by_norm", no_extra_attrs=True, inputs=["X"], outputs=["Out"], attrs=[Attr("max_norm", T.FLOAT, REQUIRED)],
    infer=same_as("X"), differentiable=False,
    doc="Out = X * max_norm / ||X||_2 when ||X||_2 > max_norm, else X",
    examples=[Example({"X": rand(3, 4)}, {"max_norm": 0.5}, _clip_by_norm_expect),
              Example({"X": rand(5) * 0.01}, {"max_norm": 1.0}, _clip_by_norm_expect)],
)
def clip_by_norm(X, max_norm):
    norm = np.sqrt(np.square(X).sum())
    return {"Out": X * (X.dtype.type(max_norm) / norm) if norm > max_norm else X.copy()}


@register_op(
    "squared_l2_norm", no_extra_attrs=True, inputs=["X"], outputs=["Out"],
    infer=lambda ctx: {"Out": VarSpec((1,), ctx.input("X").dtype)}, differentiable=False,
    doc="Out = [sum(X ** 2)]",
    examples=[Example({"X": rand(3, 4)},
                      expect=lambda X: {"Out": np.square(X).sum(dtype=X.dtype).reshape(1)})],
)
def squared_l2_norm(X):
    return {"Out": np.square(X).sum(dtype=X.dtype).reshape(1)}
