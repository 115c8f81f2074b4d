"""More nn ops (nn_ext): rrelu, maxout, gumbel_softmax, rms_norm, class_center_sample, each
with its grad op right below (pyir/registry.py). The new nn op modules (`nn_*.py`) are
imported at the end so they register until pyir/ops/__init__.py imports them itself."""

from __future__ import annotations

import numpy as np

from ..registry import Attr, Example, Slot, VarSpec, register_op
from ..registry import AttrType as T
from ._helpers import default_grad, rand, rng_for, same_as

# --- rrelu ------------------------------------------------------------------------------------
_RRELU_ATTRS = [Attr("lower", T.FLOAT, 1.0 / 8), Attr("upper", T.FLOAT, 1.0 / 3),
                Attr("is_test", T.BOOLEAN, False)]


def _rrelu_expect(X, lower=0.125, upper=1.0 / 3, is_test=True):
    slope = np.float32((np.float32(lower) + np.float32(upper)) / 2)
    noise = np.where(X >= 0, 1, slope).astype(X.dtype)
    return {"Out": (X * noise).astype(X.dtype), "Noise": noise}


@register_op(
    "rrelu", inputs=["X"], outputs=["Out", "Noise"], attrs=_RRELU_ATTRS,
    infer=lambda ctx: {"Out": VarSpec(ctx.input("X").shape, ctx.input("X").dtype),
                       "Noise": VarSpec(ctx.input("X").shape, ctx.input("X").dtype)},
    grad=default_grad("rrelu_grad", uses=["X", "Noise"], out_grads=["Out"], in_grads=["X"]),
    doc="Out = X if X >= 0 else a X, a ~ U(lower, upper) per element in training, "
        "(lower + upper) / 2 when is_test; Noise holds the slopes (1 where X >= 0)",
    examples=[Example({"X": rand(3, 4)}, {"is_test": True}, _rrelu_expect),
              Example({"X": rand(2, 5).astype("float64")},
                      {"is_test": True, "lower": 0.2, "upper": 0.4}, _rrelu_expect)],
)
def rrelu(X, lower, upper, is_test):
    if is_test:
        slope = np.full(X.shape, (np.float32(lower) + np.float32(upper)) / 2)
    else:
        slope = rng_for(0).uniform(lower, upper, X.shape)
    noise = np.where(X >= 0, 1, slope).astype(X.dtype)
    return {"Out": (X * noise).astype(X.dtype, copy=False), "Noise": noise}


@register_op("rrelu_grad", inputs=["X", "Noise", "Out@GRAD"], outputs=["X@GRAD"],
             attrs=_RRELU_ATTRS, grad_of="rrelu", infer=same_as("X", out="X@GRAD"),
             doc="dX = dOut * Noise")
def rrelu_grad(X, Noise, Out_grad, lower, upper, is_test):
    return {"X@GRAD": (Out_grad * Noise).astype(Out_grad.dtype, copy=False)}


# --- maxout -----------------------------------------------------------------------------------
_MAXOUT_ATTRS = [Attr("groups", T.INT, 2), Attr("axis", T.INT, 1)]


def _grouped(X, groups, axis):
    """X with the channel axis split into (C / groups, groups)."""
    axis = axis % X.ndim
    shape = X.shape[:axis] + (X.shape[axis] // groups, groups) + X.shape[axis + 1:]
    return X.reshape(shape), axis


def _infer_maxout(ctx):
    x, groups, axis = ctx.input("X"), ctx.attr("groups"), ctx.attr("axis")
    shape = list(x.shape)
    axis %= len(shape)
    shape[axis] = -1 if shape[axis] == -1 else shape[axis] // groups
    return {"Out": VarSpec(tuple(shape), x.dtype)}


def _maxout_expect(X, groups=2, axis=1):
    a = axis % X.ndim
    out = np.stack([np.max(np.take(X, range(c * groups, (c + 1) * groups), axis=a), axis=a)
                    for c in range(X.shape[a] // groups)], axis=a)
    return {"Out": out}


@register_op(
    "maxout", inputs=["X"], outputs=["Out"], attrs=_MAXOUT_ATTRS, infer=_infer_maxout,
    grad=default_grad("maxout_grad", uses=["X", "Out"]),
    doc="Out[.., c, ..] = max of X[.., c*groups : (c+1)*groups, ..] along axis",
    examples=[Example({"X": rand(2, 4, 3, 2)}, {"groups": 2}, _maxout_expect),
              Example({"X": rand(2, 3, 2, 6).astype("float64")}, {"groups": 3, "axis": -1},
                      _maxout_expect)],
)
def maxout(X, groups, axis):
    grouped, a = _grouped(X, groups, axis)
    return {"Out": grouped.max(axis=a + 1)}


@register_op("maxout_grad", inputs=["X", "Out", "Out@GRAD"], outputs=["X@GRAD"],
             attrs=_MAXOUT_ATTRS, grad_of="maxout", infer=same_as("X", out="X@GRAD"),
             doc="dX = dOut at the first maximum of each group, 0 elsewhere")
def maxout_grad(X, Out, Out_grad, groups, axis):
    grouped, a = _grouped(X, groups, axis)
    first = np.expand_dims(np.argmax(grouped, axis=a + 1), a + 1)
    hit = np.arange(groups).reshape([groups if i == a + 1 else 1 for i in range(grouped.ndim)])
    dx = np.where(hit == first, np.expand_dims(Out_grad, a + 1), 0)
    return {"X@GRAD": dx.reshape(X.shape).astype(Out_grad.dtype, copy=False)}


# --- gumbel_softmax ---------------------------------------------------------------------------
_GUMBEL_ATTRS = [Attr("temperature", T.FLOAT, 1.0), Attr("hard", T.BOOLEAN, False),
                 Attr("axis", T.INT, -1)]


def _dominant(*shape):
    """Logits whose first class leads by 200: Gumbel noise (within about [-4, 37]) cannot
    change the winner, so the sample is one-hot on class 0."""
    x = rand(*shape)
    x[..., 0] += 200
    return x


def _gumbel_expect(X, temperature=1.0, hard=False, axis=-1):
    return {"Out": (np.arange(X.shape[-1]) == 0).astype(X.dtype) * np.ones_like(X)}


@register_op(
    "gumbel_softmax", inputs=["X"], outputs=["Out"], attrs=_GUMBEL_ATTRS, infer=same_as("X"),
    grad=default_grad("gumbel_softmax_grad", uses=["Out"]),
    doc="Out = softmax((X + G) / temperature) along axis, G ~ Gumbel(0, 1); one-hot of its "
        "argmax when hard",
    examples=[Example({"X": _dominant(3, 4)}, {}, _gumbel_expect),
              Example({"X": _dominant(2, 5).astype("float64")}, {"hard": True}, _gumbel_expect)],
)
def gumbel_softmax(X, temperature, hard, axis):
    u = rng_for(0).uniform(np.finfo(np.float64).tiny, 1.0, X.shape)
    z = (X - np.log(-np.log(u))) / temperature
    z = np.exp(z - z.max(axis=axis, keepdims=True))
    out = z / z.sum(axis=axis, keepdims=True)
    if hard:
        idx = np.expand_dims(np.argmax(out, axis=axis), axis)
        out = np.zeros_like(out)
        np.put_along_axis(out, idx, 1.0, axis=axis)
    return {"Out": out.astype(X.dtype)}


@register_op("gumbel_softmax_grad", inputs=["Out", "Out@GRAD"], outputs=["X@GRAD"],
             attrs=_GUMBEL_ATTRS, grad_of="gumbel_softmax", infer=same_as("Out", out="X@GRAD"),
             doc="dX = Out * (dOut - sum(dOut * Out, axis)) / temperature")
def gumbel_softmax_grad(Out, Out_grad, temperature, hard, axis):
    dx = Out * (Out_grad - (Out_grad * Out).sum(axis=axis, keepdims=True)) / temperature
    return {"X@GRAD": dx.astype(Out_grad.dtype, copy=False)}


# --- rms_norm ---------------------------------------------------------------------------------
# Paddle's legacy op: inputs x, scale; outputs y, invvar; attrs normalized_shape, epsilon.
_RMS_ATTRS = [Attr("normalized_shape", T.LONGS, []), Attr("epsilon", T.FLOAT64, 1e-5)]


def _rms_rows(x, normalized_shape):
    lead = x.shape[:x.ndim - len(normalized_shape)]
    return x.reshape(int(np.prod(lead)), -1), lead


def _rms_expect(x, scale, normalized_shape, epsilon=1e-5):
    flat, lead = _rms_rows(x.astype(np.float64), normalized_shape)
    inv = 1 / np.sqrt((flat ** 2).mean(1, keepdims=True) + epsilon)
    out = (flat * inv).reshape(x.shape) * scale
    return {"y": out.astype(x.dtype), "invvar": inv.reshape(lead).astype(np.float32)}


@register_op(
    "rms_norm", inputs=["x", Slot("scale", dispensable=True)],
    outputs=["y", Slot("invvar", no_grad=True)], attrs=_RMS_ATTRS,
    infer=lambda ctx: {"y": VarSpec(ctx.input("x").shape, ctx.input("x").dtype),
                       "invvar": VarSpec(tuple(ctx.input("x").shape[:len(
                           ctx.input("x").shape) - len(ctx.attr("normalized_shape"))]),
                           np.dtype(np.float32))},
    grad=default_grad("rms_norm_grad", uses=["x", "scale", "invvar"], out_grads=["y"],
                      keep_empty=()),
    doc="y = x / sqrt(mean(x^2 over the normalized dims) + epsilon) * scale; invvar the "
        "inverse root (float32)",
    examples=[Example({"x": rand(3, 4), "scale": rand(4)}, {"normalized_shape": [4]},
                      _rms_expect),
              Example({"x": rand(2, 3, 2).astype("float64"),
                       "scale": rand(3, 2).astype("float64")},
                      {"normalized_shape": [3, 2], "epsilon": 1e-3}, _rms_expect)],
)
def rms_norm(x, scale, normalized_shape, epsilon):
    flat, lead = _rms_rows(x, normalized_shape)
    inv = 1 / np.sqrt(np.square(flat).mean(1, keepdims=True) + epsilon)
    out = (flat * inv).reshape(x.shape)
    if scale is not None:
        out = out * scale
    return {"y": out.astype(x.dtype, copy=False),
            "invvar": inv.reshape(lead).astype(np.float32)}


@register_op("rms_norm_grad", inputs=["x", Slot("scale", dispensable=True), "invvar", "y@GRAD"],
             outputs=["x@GRAD", Slot("scale@GRAD", dispensable=True)], attrs=_RMS_ATTRS,
             grad_of="rms_norm", infer=same_as("x", out="x@GRAD"),
             doc="dx = inv (g - xhat mean(g xhat)), g = dy * scale; dscale = sum(dy * xhat)")
def rms_norm_grad(x, scale, invvar, y_grad, normalized_shape, epsilon):
    flat, _ = _rms_rows(x, normalized_shape)
    inv = 1 / np.sqrt(np.square(flat).mean(1, keepdims=True) + epsilon)  # in x's precision
    dout = y_grad.reshape(flat.shape)
    g = dout if scale is None else dout * scale.reshape(1, -1)
    xhat = flat * inv
    dx = inv * (g - xhat * (g * xhat).mean(1, keepdims=True))
    result = {"x@GRAD": dx.reshape(x.shape).astype(x.dtype)}
    if scale is not None:
        result["scale@GRAD"] = (dout * xhat).sum(0).reshape(scale.shape).astype(scale.dtype)
    return result



# --- class_center_sample ----------------------------------------------------------------------
def _ccs_expect(Label, num_classes, num_samples, **_):
    positive = sorted(set(int(v) for v in Label.reshape(-1)))
    remapped = np.array([positive.index(int(v)) for v in Label.reshape(-1)], Label.dtype)
    return {"RemappedLabel": remapped.reshape(Label.shape),
            "SampledLocalClassCenter": np.array(positive, Label.dtype)}


@register_op(
    "class_center_sample", inputs=[Slot("Label", no_grad=True)],
    outputs=["RemappedLabel", "SampledLocalClassCenter"],
    attrs=[Attr("num_classes", T.INT, 1), Attr("num_samples", T.INT, 1),
           Attr("ring_id", T.INT, 0), Attr("rank", T.INT, 0), Attr("nranks", T.INT, 1),
           Attr("fix_seed", T.BOOLEAN, False), Attr("seed", T.INT, 0)],
    infer=lambda ctx: {"RemappedLabel": VarSpec(ctx.input("Label").shape,
                                                ctx.input("Label").dtype),
                       "SampledLocalClassCenter": VarSpec((-1,), ctx.input("Label").dtype)},
    doc="SampledLocalClassCenter = the sorted distinct labels, then random other classes up to "
        "num_samples; RemappedLabel = each label's index among them (one process)",
    examples=[Example({"Label": np.array([5, 2, 5, 9])}, {"num_classes": 12, "num_samples": 3},
                      _ccs_expect)],
)
def class_center_sample(Label, num_classes, num_samples, ring_id, rank, nranks, fix_seed, seed):
    positive = np.unique(Label.reshape(-1))
    remapped = np.searchsorted(positive, Label).astype(Label.dtype)
    extra = max(num_samples - len(positive), 0)
    if extra:
        others = np.setdiff1d(np.arange(num_classes), positive)
        picked = rng_for(seed if fix_seed else 0).permutation(others)[:extra]
        positive = np.concatenate([positive, picked])
    return {"RemappedLabel": remapped,
            "SampledLocalClassCenter": positive.astype(Label.dtype)}


# The other nn op modules register here until pyir/ops/__init__.py imports them itself.
from . import nn_loss  # noqa: E402,F401
from . import nn_conv  # noqa: E402,F401
from . import nn_pool  # noqa: E402,F401
from . import nn_interp  # noqa: E402,F401
from . import nn_vision  # noqa: E402,F401
from . import nn_grid  # noqa: E402,F401
from . import nn_ctc  # noqa: E402,F401
