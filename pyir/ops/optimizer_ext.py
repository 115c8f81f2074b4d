"""More optimizer update ops, with Paddle's slot and attribute names and CPU kernel math:
adagrad, rmsprop, adadelta, adamax, lamb, nadam, radam, rprop; and `accuracy` (the top-k
accuracy op `paddle.metric.accuracy` emits).

Update ops write the parameter and their accumulators in place (each `...Out` slot is the
input's variable), like the ops of pyir/ops/optimizer.py. Beta powers and other per-step state
are inputs; `adamax` leaves its beta1 power to a following `scale` op, as Paddle does.
"""

from __future__ import annotations

import numpy as np

from ..registry import REQUIRED, Attr, Example, Slot, VarSpec, register_op
from ..registry import AttrType as T
from ._helpers import rand, rand_positive


def _in_place(*pairs):
    """Inference for update ops: each `(input, output)` slot pair keeps the input's spec."""

    def infer(ctx):
        return {out: VarSpec(ctx.input(slot).shape, ctx.input(slot).dtype)
                for slot, out in pairs if ctx.input(slot) is not None}

    return infer


def _lr(value, dtype):
    """The 0-d or [1] learning rate as a numpy scalar of `dtype`."""
    return np.asarray(value).reshape(()).astype(dtype)


def _f64(d: dict, dtype) -> dict:
    return {k: np.asarray(v).astype(dtype) for k, v in d.items()}


_MP = Attr("multi_precision", T.BOOLEAN, False)


# --- adagrad ------------------------------------------------------------------------------
def _adagrad_expect(Param, Grad, Moment, LearningRate, epsilon=1e-6, **_):
    m = Moment.astype(np.float64) + Grad.astype(np.float64) ** 2
    p = Param - float(LearningRate.reshape(())) * Grad / (np.sqrt(m) + epsilon)
    return _f64({"ParamOut": p, "MomentOut": m}, Param.dtype)


@register_op(
    "adagrad",
    inputs=["Param", "Grad", "Moment", "LearningRate", Slot("MasterParam", dispensable=True)],
    outputs=["ParamOut", "MomentOut", Slot("MasterParamOut", dispensable=True)],
    attrs=[Attr("epsilon", T.FLOAT, 1e-6), _MP],
    infer=_in_place(("Param", "ParamOut"), ("Moment", "MomentOut")), differentiable=False,
    doc="MomentOut = Moment + g^2; ParamOut = Param - lr * g / (sqrt(MomentOut) + epsilon)",
    examples=[Example({"Param": rand(3, 4), "Grad": rand(3, 4), "Moment": rand_positive(3, 4),
                       "LearningRate": np.array(0.1, np.float32)}, {}, _adagrad_expect),
              Example({"Param": rand(5), "Grad": rand(5), "Moment": np.zeros(5, np.float32),
                       "LearningRate": np.array([0.5], np.float32)}, {"epsilon": 1e-3},
                      _adagrad_expect)],
)
def adagrad(Param, Grad, Moment, LearningRate, MasterParam, epsilon, multi_precision):
    t = Param.dtype.type
    moment = Moment + Grad * Grad
    new = Param - _lr(LearningRate, Param.dtype) * Grad / (np.sqrt(moment) + t(epsilon))
    return {"ParamOut": new.astype(Param.dtype, copy=False), "MomentOut": moment}


# --- rmsprop ------------------------------------------------------------------------------
def _rmsprop_expect(Param, Grad, Moment, MeanSquare, MeanGrad, LearningRate, decay=0.9,
                    epsilon=1e-10, momentum=0.0, centered=False, **_):
    g = Grad.astype(np.float64)
    ms = decay * MeanSquare + (1 - decay) * g * g
    out = {"MeanSquareOut": ms}
    denom = ms + epsilon
    if centered:
        mg = decay * MeanGrad + (1 - decay) * g
        denom = ms - mg * mg + epsilon  # MeanGradOut (dispensable) is checked by the
        # optimizer tests: the sweep builds required outputs only
    mom = momentum * Moment + float(LearningRate.reshape(())) * g / np.sqrt(denom)
    out.update(MomentOut=mom, ParamOut=Param - mom)
    return _f64(out, Param.dtype)


def _rmsprop_inputs(*shape):
    return {"Param": rand(*shape), "Grad": rand(*shape), "Moment": rand(*shape),
            "MeanSquare": rand_positive(*shape), "MeanGrad": rand(*shape) * 0.1,
            "LearningRate": np.array(0.1, np.float32)}


@register_op(
    "rmsprop",
    inputs=["Param", "MeanSquare", "Grad", "Moment", "LearningRate",
            Slot("MeanGrad", dispensable=True), Slot("MasterParam", dispensable=True)],
    outputs=["ParamOut", "MomentOut", "MeanSquareOut", Slot("MeanGradOut", dispensable=True),
             Slot("MasterParamOut", dispensable=True)],
    attrs=[Attr("epsilon", T.FLOAT, 1e-10), Attr("decay", T.FLOAT, 0.9),
           Attr("momentum", T.FLOAT, 0.0), Attr("centered", T.BOOLEAN, False), _MP],
    infer=_in_place(("Param", "ParamOut"), ("Moment", "MomentOut"),
                    ("MeanSquare", "MeanSquareOut"), ("MeanGrad", "MeanGradOut")),
    differentiable=False,
    doc="MeanSquareOut = decay * MeanSquare + (1 - decay) * g^2; MomentOut = momentum * Moment "
        "+ lr * g / sqrt(MeanSquareOut (- MeanGradOut^2 if centered) + epsilon); ParamOut = "
        "Param - MomentOut",
    examples=[Example(_rmsprop_inputs(3, 4), {"decay": 0.95, "momentum": 0.5}, _rmsprop_expect),
              Example(_rmsprop_inputs(6), {"centered": True, "epsilon": 1e-3}, _rmsprop_expect)],
)
def rmsprop(Param, MeanSquare, Grad, Moment, LearningRate, MeanGrad, MasterParam, epsilon,
            decay, momentum, centered, multi_precision):
    t = Param.dtype.type
    rho, eps = t(decay), t(epsilon)
    mean_square = rho * MeanSquare + (t(1) - rho) * Grad * Grad
    out = {"MeanSquareOut": mean_square}
    denom = mean_square + eps
    if centered:
        mean_grad = rho * MeanGrad + (t(1) - rho) * Grad
        denom = mean_square - mean_grad * mean_grad + eps
        out["MeanGradOut"] = mean_grad
    elif MeanGrad is not None:
        out["MeanGradOut"] = MeanGrad  # kept as it is
    moment = t(momentum) * Moment + _lr(LearningRate, Param.dtype) * Grad / np.sqrt(denom)
    out.update(MomentOut=moment, ParamOut=(Param - moment).astype(Param.dtype, copy=False))
    return out


# --- adadelta -----------------------------------------------------------------------------
def _adadelta_expect(Param, Grad, AvgSquaredGrad, AvgSquaredUpdate, LearningRate, rho=0.95,
                     epsilon=1e-6, **_):
    g = Grad.astype(np.float64)
    asg = rho * AvgSquaredGrad + (1 - rho) * g * g
    update = -np.sqrt((AvgSquaredUpdate + epsilon) / (asg + epsilon)) * g
    asu = rho * AvgSquaredUpdate + (1 - rho) * update * update
    return _f64({"ParamOut": Param + float(LearningRate.reshape(())) * update,
                 "AvgSquaredGradOut": asg, "AvgSquaredUpdateOut": asu}, Param.dtype)


@register_op(
    "adadelta",
    inputs=["Param", "Grad", "AvgSquaredGrad", "AvgSquaredUpdate", "LearningRate",
            Slot("MasterParam", dispensable=True)],
    outputs=["ParamOut", "AvgSquaredGradOut", "AvgSquaredUpdateOut",
             Slot("MasterParamOut", dispensable=True)],
    attrs=[Attr("rho", T.FLOAT, 0.95), Attr("epsilon", T.FLOAT, 1e-6), _MP],
    infer=_in_place(("Param", "ParamOut"), ("AvgSquaredGrad", "AvgSquaredGradOut"),
                    ("AvgSquaredUpdate", "AvgSquaredUpdateOut")),
    differentiable=False,
    doc="AvgSquaredGradOut = rho * E[g^2] + (1 - rho) * g^2; update = -sqrt((E[dx^2] + eps) / "
        "(AvgSquaredGradOut + eps)) * g; ParamOut = Param + lr * update; AvgSquaredUpdateOut = "
        "rho * E[dx^2] + (1 - rho) * update^2",
    examples=[Example({"Param": rand(3, 4), "Grad": rand(3, 4),
                       "AvgSquaredGrad": rand_positive(3, 4),
                       "AvgSquaredUpdate": rand_positive(3, 4),
                       "LearningRate": np.array(0.5, np.float32)}, {"rho": 0.9}, _adadelta_expect)],
)
def adadelta(Param, Grad, AvgSquaredGrad, AvgSquaredUpdate, LearningRate, MasterParam, rho,
             epsilon, multi_precision):
    t = Param.dtype.type
    rho, eps = t(rho), t(epsilon)
    asg = rho * AvgSquaredGrad + (t(1) - rho) * Grad * Grad
    update = -(np.sqrt(AvgSquaredUpdate + eps) / np.sqrt(asg + eps) * Grad)
    new = Param + _lr(LearningRate, Param.dtype) * update
    return {"ParamOut": new.astype(Param.dtype, copy=False), "AvgSquaredGradOut": asg,
            "AvgSquaredUpdateOut": rho * AvgSquaredUpdate + (t(1) - rho) * update * update}


# --- adamax -------------------------------------------------------------------------------
def _adamax_expect(Param, Grad, Moment, InfNorm, Beta1Pow, LearningRate, beta1=0.9,
                   beta2=0.999, epsilon=1e-8, **_):
    g = Grad.astype(np.float64)
    m = beta1 * Moment + (1 - beta1) * g
    inf = np.maximum(beta2 * InfNorm + epsilon, np.abs(g))
    lr = float(LearningRate.reshape(())) / (1 - float(Beta1Pow.reshape(-1)[0]))
    return _f64({"ParamOut": Param - lr * m / inf, "MomentOut": m, "InfNormOut": inf},
                Param.dtype)


@register_op(
    "adamax",
    inputs=["Param", "Grad", "LearningRate", "Moment", "InfNorm", "Beta1Pow",
            Slot("MasterParam", dispensable=True)],
    outputs=["ParamOut", "MomentOut", "InfNormOut", Slot("MasterParamOut", dispensable=True)],
    attrs=[Attr("beta1", T.FLOAT, 0.9), Attr("beta2", T.FLOAT, 0.999),
           Attr("epsilon", T.FLOAT, 1e-8), _MP],
    infer=_in_place(("Param", "ParamOut"), ("Moment", "MomentOut"), ("InfNorm", "InfNormOut")),
    differentiable=False,
    doc="MomentOut = b1 * Moment + (1 - b1) * g; InfNormOut = max(b2 * InfNorm + eps, |g|); "
        "ParamOut = Param - lr / (1 - Beta1Pow) * MomentOut / InfNormOut (Beta1Pow is updated "
        "by a separate scale op)",
    examples=[Example({"Param": rand(3, 4), "Grad": rand(3, 4), "Moment": rand(3, 4) * 0.1,
                       "InfNorm": rand_positive(3, 4), "Beta1Pow": np.array([0.81], np.float32),
                       "LearningRate": np.array(0.1, np.float32)}, {}, _adamax_expect)],
)
def adamax(Param, Grad, LearningRate, Moment, InfNorm, Beta1Pow, MasterParam, beta1, beta2,
           epsilon, multi_precision):
    t = Param.dtype.type
    b1, b2 = t(beta1), t(beta2)
    moment = b1 * Moment + (t(1) - b1) * Grad
    inf_norm = np.maximum(b2 * InfNorm + t(epsilon), np.abs(Grad))
    lr = _lr(LearningRate, Param.dtype) / (t(1) - _lr(Beta1Pow, Param.dtype))
    new = Param - lr * (moment / inf_norm)
    return {"ParamOut": new.astype(Param.dtype, copy=False), "MomentOut": moment,
            "InfNormOut": inf_norm}


# --- lamb ---------------------------------------------------------------------------------
def _lamb_expect(Param, Grad, LearningRate, Moment1, Moment2, Beta1Pow, Beta2Pow,
                 weight_decay=REQUIRED, beta1=0.9, beta2=0.999, epsilon=1e-6,
                 always_adapt=False, **_):
    g, p = Grad.astype(np.float64), Param.astype(np.float64)
    m1 = beta1 * Moment1 + (1 - beta1) * g
    m2 = beta2 * Moment2 + (1 - beta2) * g * g
    b1p, b2p = float(Beta1Pow.reshape(-1)[0]), float(Beta2Pow.reshape(-1)[0])
    r = (m1 / (1 - b1p)) / (np.sqrt(m2 / (1 - b2p)) + epsilon) + weight_decay * p
    pn, rn = np.linalg.norm(p), np.linalg.norm(r)
    ratio = pn / rn if pn > 0 and rn > 0 else 1.0
    if weight_decay == 0 and not always_adapt:
        ratio = 1.0
    return _f64({"ParamOut": p - float(LearningRate.reshape(())) * ratio * r,
                 "Moment1Out": m1, "Moment2Out": m2, "Beta1PowOut": Beta1Pow * beta1,
                 "Beta2PowOut": Beta2Pow * beta2}, Param.dtype)


def _lamb_inputs(*shape):
    return {"Param": rand(*shape), "Grad": rand(*shape), "LearningRate": np.array(0.1, np.float32),
            "Moment1": rand(*shape) * 0.1, "Moment2": rand_positive(*shape) * 0.1,
            "Beta1Pow": np.array([0.81], np.float32), "Beta2Pow": np.array([0.998], np.float32)}


@register_op(
    "lamb",
    inputs=["Param", "Grad", "LearningRate", "Moment1", "Moment2", "Beta1Pow", "Beta2Pow",
            Slot("MasterParam", dispensable=True), Slot("SkipUpdate", dispensable=True)],
    outputs=["ParamOut", "Moment1Out", "Moment2Out", "Beta1PowOut", "Beta2PowOut",
             Slot("MasterParamOut", dispensable=True)],
    attrs=[Attr("weight_decay", T.FLOAT, REQUIRED), Attr("beta1", T.FLOAT, 0.9),
           Attr("beta2", T.FLOAT, 0.999), Attr("epsilon", T.FLOAT, 1e-6),
           Attr("always_adapt", T.BOOLEAN, False), _MP],
    infer=_in_place(("Param", "ParamOut"), ("Moment1", "Moment1Out"),
                    ("Moment2", "Moment2Out"), ("Beta1Pow", "Beta1PowOut"),
                    ("Beta2Pow", "Beta2PowOut")),
    differentiable=False,
    doc="Adam moments with bias correction; r = m1_hat / (sqrt(m2_hat) + eps) + weight_decay "
        "* Param; ParamOut = Param - lr * (||Param|| / ||r||) * r (trust ratio 1 when a norm is "
        "0, or when weight_decay is 0 unless always_adapt)",
    examples=[Example(_lamb_inputs(3, 4), {"weight_decay": 0.01}, _lamb_expect),
              Example(_lamb_inputs(5), {"weight_decay": 0.0}, _lamb_expect),
              Example(_lamb_inputs(5), {"weight_decay": 0.0, "always_adapt": True}, _lamb_expect)],
)
def lamb(Param, Grad, LearningRate, Moment1, Moment2, Beta1Pow, Beta2Pow, MasterParam,
         SkipUpdate, weight_decay, beta1, beta2, epsilon, always_adapt, multi_precision):
    if SkipUpdate is not None and bool(np.asarray(SkipUpdate).reshape(-1)[0]):
        return {"ParamOut": Param, "Moment1Out": Moment1, "Moment2Out": Moment2,
                "Beta1PowOut": Beta1Pow, "Beta2PowOut": Beta2Pow}
    t = Param.dtype.type
    b1, b2 = t(beta1), t(beta2)
    m1 = b1 * Moment1 + (t(1) - b1) * Grad
    m2 = b2 * Moment2 + (t(1) - b2) * Grad * Grad
    b1p, b2p = _lr(Beta1Pow, Param.dtype), _lr(Beta2Pow, Param.dtype)
    r = (m1 / (t(1) - b1p)) / (np.sqrt(m2 / (t(1) - b2p)) + t(epsilon)) + t(weight_decay) * Param
    p_norm, r_norm = np.sqrt(np.square(Param).sum()), np.sqrt(np.square(r).sum())
    ratio = p_norm / r_norm if p_norm > 0 and r_norm > 0 else t(1)
    if weight_decay == 0 and not always_adapt:
        ratio = t(1)
    new = Param - _lr(LearningRate, Param.dtype) * ratio * r
    return {"ParamOut": new.astype(Param.dtype, copy=False), "Moment1Out": m1, "Moment2Out": m2,
            "Beta1PowOut": (Beta1Pow * b1).astype(Beta1Pow.dtype),
            "Beta2PowOut": (Beta2Pow * b2).astype(Beta2Pow.dtype)}


# --- nadam --------------------------------------------------------------------------------
def _nadam_expect(param, grad, learning_rate, momentum_decay_pow, beta2_pow, mu_product,
                  moment1, moment2, beta1=0.9, beta2=0.999, epsilon=1e-8,
                  momentum_decay=0.004, **_):
    g = grad.astype(np.float64)
    mdp = momentum_decay_pow * 0.96
    b2p = beta2_pow * beta2
    mu_t = beta1 * (1 - 0.5 * mdp ** momentum_decay)
    mu_next = beta1 * (1 - 0.5 * mdp ** momentum_decay * 0.96 ** momentum_decay)
    mup = mu_product * mu_t
    m1 = beta1 * moment1 + (1 - beta1) * g
    m2 = beta2 * moment2 + (1 - beta2) * g * g
    m1_hat = mu_next * m1 / (1 - mup * mu_next) + (1 - mu_t) * g / (1 - mup)
    m2_hat = m2 / (1 - b2p)
    p = param - float(learning_rate.reshape(())) * m1_hat / (np.sqrt(m2_hat) + epsilon)
    return _f64({"param_out": p, "momentum_decay_pow_out": mdp, "beta2_pow_out": b2p,
                 "mu_product_out": mup, "moment1_out": m1, "moment2_out": m2}, param.dtype)


@register_op(
    "nadam",
    inputs=["param", "grad", "learning_rate", "momentum_decay_pow", "beta2_pow", "mu_product",
            "moment1", "moment2", Slot("master_param", dispensable=True)],
    outputs=["param_out", "momentum_decay_pow_out", "beta2_pow_out", "mu_product_out",
             "moment1_out", "moment2_out", Slot("master_param_out", dispensable=True)],
    attrs=[Attr("beta1", T.FLOAT, 0.9), Attr("beta2", T.FLOAT, 0.999),
           Attr("epsilon", T.FLOAT, 1e-8), Attr("momentum_decay", T.FLOAT, 0.004), _MP],
    infer=_in_place(("param", "param_out"), ("momentum_decay_pow", "momentum_decay_pow_out"),
                    ("beta2_pow", "beta2_pow_out"), ("mu_product", "mu_product_out"),
                    ("moment1", "moment1_out"), ("moment2", "moment2_out")),
    differentiable=False,
    doc="Nesterov Adam with momentum decay: mu_t = b1 * (1 - 0.5 * 0.96^(t * psi)); "
        "param -= lr * (mu_{t+1} m / (1 - prod mu_{..t+1}) + (1 - mu_t) g / (1 - prod mu_{..t}))"
        " / (sqrt(v / (1 - b2^t)) + eps)",
    examples=[Example({"param": rand(3, 4), "grad": rand(3, 4),
                       "learning_rate": np.array(0.1, np.float32),
                       "momentum_decay_pow": np.full((3, 4), 0.96, np.float32),
                       "beta2_pow": np.full((3, 4), 0.999, np.float32),
                       "mu_product": np.full((3, 4), 0.9, np.float32),
                       "moment1": rand(3, 4) * 0.1, "moment2": rand_positive(3, 4) * 0.1},
                      {}, _nadam_expect)],
)
def nadam(param, grad, learning_rate, momentum_decay_pow, beta2_pow, mu_product, moment1,
          moment2, master_param, beta1, beta2, epsilon, momentum_decay, multi_precision):
    t = param.dtype.type
    b1, b2, psi = t(beta1), t(beta2), t(momentum_decay)
    decay_pow = momentum_decay_pow * t(0.96)
    b2_pow = beta2_pow * b2
    mu_t = b1 * (t(1) - t(0.5) * decay_pow ** psi)
    mu_next = b1 * (t(1) - t(0.5) * decay_pow ** psi * t(0.96) ** psi)
    mu_prod = mu_product * mu_t
    m1 = b1 * moment1 + (t(1) - b1) * grad
    m2 = b2 * moment2 + (t(1) - b2) * grad * grad
    m1_hat = mu_next * m1 / (t(1) - mu_prod * mu_next) + (t(1) - mu_t) * grad / (t(1) - mu_prod)
    m2_hat = m2 / (t(1) - b2_pow)
    new = param - _lr(learning_rate, param.dtype) * m1_hat / (np.sqrt(m2_hat) + t(epsilon))
    return {"param_out": new.astype(param.dtype, copy=False),
            "momentum_decay_pow_out": decay_pow, "beta2_pow_out": b2_pow,
            "mu_product_out": mu_prod, "moment1_out": m1, "moment2_out": m2}


# --- radam --------------------------------------------------------------------------------
def _radam_expect(param, grad, learning_rate, beta1_pow, beta2_pow, rho, moment1, moment2,
                  beta1=0.9, beta2=0.999, epsilon=1e-8, **_):
    g = grad.astype(np.float64)
    rho_inf = 2 / (1 - beta2) - 1
    b1p, b2p = beta1_pow * beta1, beta2_pow * beta2
    rho_out = (rho * (beta2 - b2p) + b2p) / (1 - b2p)
    m1 = beta1 * moment1 + (1 - beta1) * g
    m2 = beta2 * moment2 + (1 - beta2) * g * g
    m1_hat = m1 / (1 - b1p)
    rho_t = rho_inf - 2 * float(rho_out.reshape(-1)[0])
    lr = float(learning_rate.reshape(()))
    if rho_t > 5:
        l_t = np.sqrt(1 - b2p) / (np.sqrt(m2) + epsilon)
        r_t = np.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf /
                      ((rho_inf - 4) * (rho_inf - 2) * rho_t))
        p = param - lr * m1_hat * r_t * l_t
    else:
        p = param - lr * m1_hat
    return _f64({"param_out": p, "beta1_pow_out": b1p, "beta2_pow_out": b2p, "rho_out": rho_out,
                 "moment1_out": m1, "moment2_out": m2}, param.dtype)


def _radam_inputs(steps: int, beta2: float = 0.999):
    """State after `steps` updates, so rho_t is past (or before) the rectification point."""
    b2p = beta2 ** steps
    rho = (np.float64(1.0) if steps == 0 else
           (steps * b2p / (1 - b2p)))  # the running quantity t * b2^t / (1 - b2^t)
    shape = (3, 4)
    return {"param": rand(*shape), "grad": rand(*shape), "learning_rate": np.array(0.1, np.float32),
            "beta1_pow": np.full(shape, 0.9 ** steps, np.float32),
            "beta2_pow": np.full(shape, b2p, np.float32),
            "rho": np.full(shape, rho, np.float32), "moment1": rand(*shape) * 0.1,
            "moment2": rand_positive(*shape) * 0.1}


@register_op(
    "radam",
    inputs=["param", "grad", "learning_rate", "beta1_pow", "beta2_pow", "rho", "moment1",
            "moment2", Slot("master_param", dispensable=True)],
    outputs=["param_out", "beta1_pow_out", "beta2_pow_out", "rho_out", "moment1_out",
             "moment2_out", Slot("master_param_out", dispensable=True)],
    attrs=[Attr("beta1", T.FLOAT, 0.9), Attr("beta2", T.FLOAT, 0.999),
           Attr("epsilon", T.FLOAT, 1e-8), _MP],
    infer=_in_place(("param", "param_out"), ("beta1_pow", "beta1_pow_out"),
                    ("beta2_pow", "beta2_pow_out"), ("rho", "rho_out"),
                    ("moment1", "moment1_out"), ("moment2", "moment2_out")),
    differentiable=False,
    doc="Rectified Adam: rho_t = rho_inf - 2 t b2^t / (1 - b2^t); when rho_t > 5 the step is "
        "lr * m_hat * r_t * sqrt(1 - b2^t) / (sqrt(v) + eps), else lr * m_hat",
    examples=[Example(_radam_inputs(1), {}, _radam_expect),
              Example(_radam_inputs(10), {}, _radam_expect)],
)
def radam(param, grad, learning_rate, beta1_pow, beta2_pow, rho, moment1, moment2,
          master_param, beta1, beta2, epsilon, multi_precision):
    t = param.dtype.type
    b1, b2 = t(beta1), t(beta2)
    rho_inf = t(2) / (t(1) - b2) - t(1)
    b1p, b2p = beta1_pow * b1, beta2_pow * b2
    rho_out = (rho * (b2 - b2p) + b2p) / (t(1) - b2p)
    m1 = b1 * moment1 + (t(1) - b1) * grad
    m2 = b2 * moment2 + (t(1) - b2) * grad * grad
    m1_hat = m1 / (t(1) - b1p)
    rho_t = rho_inf - t(2) * rho_out.reshape(-1)[0]
    lr = _lr(learning_rate, param.dtype)
    if rho_t > 5:
        l_t = np.sqrt(t(1) - b2p) / (np.sqrt(m2) + t(epsilon))
        r_t = np.sqrt((rho_t - t(4)) * (rho_t - t(2)) * rho_inf /
                      ((rho_inf - t(4)) * (rho_inf - t(2)) * rho_t))
        new = param - lr * m1_hat * r_t * l_t
    else:
        new = param - lr * m1_hat
    return {"param_out": new.astype(param.dtype, copy=False), "beta1_pow_out": b1p,
            "beta2_pow_out": b2p, "rho_out": rho_out, "moment1_out": m1, "moment2_out": m2}


# --- rprop --------------------------------------------------------------------------------
def _rprop_expect(param, grad, prev, learning_rate, learning_rate_range, etas, **_):
    product = grad * prev
    eta = np.where(product > 0, etas[1], np.where(product < 0, etas[0], 1.0))
    g = np.where(product < 0, 0.0, grad)
    lr = np.clip(learning_rate * eta, learning_rate_range[0], learning_rate_range[1])
    return _f64({"param_out": param - np.sign(g) * lr, "prev_out": g,
                 "learning_rate_out": lr}, param.dtype)


@register_op(
    "rprop",
    inputs=["param", "grad", "prev", "learning_rate", Slot("master_param", dispensable=True),
            "learning_rate_range", "etas"],
    outputs=["param_out", "prev_out", "learning_rate_out",
             Slot("master_param_out", dispensable=True)],
    attrs=[_MP],
    infer=_in_place(("param", "param_out"), ("prev", "prev_out"),
                    ("learning_rate", "learning_rate_out")),
    differentiable=False,
    doc="Per element: grad * prev > 0 -> lr *= etas[1]; < 0 -> lr *= etas[0] and grad = 0; "
        "lr clipped to learning_rate_range; param -= sign(grad) * lr; prev = grad",
    examples=[Example({"param": rand(3, 4), "grad": rand(3, 4),
                       "prev": np.where(np.arange(12).reshape(3, 4) % 3 == 0, 0.0,
                                        rand(3, 4)).astype(np.float32),
                       "learning_rate": rand_positive(3, 4) * 0.1,
                       "learning_rate_range": np.array([1e-3, 0.12], np.float32),
                       "etas": np.array([0.5, 1.2], np.float32)}, {}, _rprop_expect)],
)
def rprop(param, grad, prev, learning_rate, master_param, learning_rate_range, etas,
          multi_precision):
    t = param.dtype.type
    lo, hi = learning_rate_range.reshape(-1)[:2].astype(param.dtype)
    eta_minus, eta_plus = etas.reshape(-1)[:2].astype(param.dtype)
    product = grad * prev
    eta = np.where(product > 0, eta_plus, np.where(product < 0, eta_minus, t(1)))
    g = np.where(product < 0, t(0), grad).astype(param.dtype)
    lr = np.clip(learning_rate * eta, lo, hi).astype(param.dtype)
    new = param - np.sign(g) * lr
    return {"param_out": new.astype(param.dtype, copy=False), "prev_out": g,
            "learning_rate_out": lr}


# --- asgd ---------------------------------------------------------------------------------
def _asgd_expect(param, grad, learning_rate, d, y, n, **_):
    d_out = d.astype(np.float64) - y + grad
    p = param - float(learning_rate.reshape(())) / float(n.reshape(-1)[0]) * d_out
    return _f64({"param_out": p, "d_out": d_out, "y_out": grad}, param.dtype)


@register_op(
    "asgd",
    inputs=["param", "grad", "learning_rate", "d", "y", "n",
            Slot("master_param", dispensable=True)],
    outputs=["param_out", "d_out", "y_out", Slot("master_param_out", dispensable=True)],
    attrs=[_MP],
    infer=_in_place(("param", "param_out"), ("d", "d_out"), ("y", "y_out")),
    differentiable=False,
    doc="Averaged SGD over the last n gradients: d_out = d - y + grad (y: this slot's "
        "gradient n steps ago); y_out = grad; param_out = param - lr / n * d_out",
    examples=[Example({"param": rand(3, 4), "grad": rand(3, 4),
                       "learning_rate": np.array(0.1, np.float32), "d": rand(3, 4),
                       "y": rand(3, 4), "n": np.array([2], np.int64)}, {}, _asgd_expect)],
)
def asgd(param, grad, learning_rate, d, y, n, master_param, multi_precision):
    d_out = d - y + grad
    step = _lr(learning_rate, param.dtype) / _lr(n.reshape(-1)[0], param.dtype)
    new = param - step * d_out
    return {"param_out": new.astype(param.dtype, copy=False), "d_out": d_out,
            "y_out": grad.astype(param.dtype, copy=True)}


