"""Op calls the layers need while `pyir.nn.functional` is being filled in (one definition for
static and eager mode each, through `pyir.dispatch.out`). Each should become a call of the
matching `pyir.nn.functional` function once it exists; the names say which.
"""

from __future__ import annotations

from .. import dtypes
from ..dispatch import apply_op, out
from ..errors import BuildError
from ..tensor import math as tmath
from ..tensor import manipulation as manip


def unary(op_type: str, x, **attrs):
    return out(op_type, {"X": x}, attrs)


def maximum(x, y):
    return out("elementwise_max", {"X": x, "Y": y}, {"axis": -1})


def where(condition, x, y):
    return out("where", {"Condition": condition, "X": x, "Y": y})


def cast(x, dtype):
    return manip.cast(x, dtype)


def ones_like(x):
    return out("fill_any_like", {"X": x}, {"value": 1.0, "dtype": -1})


def zeros_like(x):
    return out("fill_any_like", {"X": x}, {"value": 0.0, "dtype": -1})


def reduce(op_type: str, x, axis=None, keepdim: bool = False):
    if axis is None:
        return out(op_type, {"X": x}, {"dim": [0], "keep_dim": keepdim, "reduce_all": True})
    axes = [axis] if isinstance(axis, int) else list(axis)
    return out(op_type, {"X": x}, {"dim": axes, "keep_dim": keepdim, "reduce_all": False})


def reduction(loss, reduction: str, who: str):
    """Apply a loss layer's `reduction` ('mean', 'sum' or 'none')."""
    if reduction == "mean":
        return reduce("reduce_mean", loss)
    if reduction == "sum":
        return reduce("reduce_sum", loss)
    if reduction == "none":
        return loss
    raise BuildError(f"{who}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


def check_reduction(reduction: str, who: str, extra=()) -> str:
    if reduction not in ("mean", "sum", "none", *extra):
        allowed = ", ".join(repr(r) for r in ("mean", "sum", "none", *extra))
        raise BuildError(f"{who}: reduction must be one of {allowed}, got {reduction!r}")
    return reduction


# --- F.linear, F.dropout, F.embedding ------------------------------------------------------------
def linear(x, weight, bias=None, name=None):
    y = out("matmul_v2", {"X": x, "Y": weight}, {"trans_x": False, "trans_y": False}, name=name)
    if bias is not None:
        y = out("elementwise_add", {"X": y, "Y": bias}, {"axis": -1}, name=name)
    return y


def dropout(x, p: float, training: bool, mode: str = "upscale_in_train"):
    return out("dropout", {"X": x}, {"dropout_prob": float(p), "is_test": not training,
                                     "fix_seed": False, "seed": 0,
                                     "dropout_implementation": mode})


def embedding(x, weight, padding_idx: int = -1):
    return out("lookup_table_v2", {"Ids": x, "W": weight}, {"padding_idx": padding_idx})


# --- F.conv*, F.pool* -------------------------------------------------------------------------
def conv_nd(x, weight, bias, strides, paddings, dilations, groups, data_format, algorithm,
            transpose: bool = False, output_padding=(), output_size=()):
    """conv2d / depthwise_conv2d / conv2d_transpose on 4-D input, bias added on the channel
    axis as Paddle's legacy static mode does."""
    channels = x.shape[1 if data_format == "NCHW" else -1]
    attrs = {"strides": strides, "paddings": paddings, "dilations": dilations,
             "groups": groups, "data_format": data_format, "padding_algorithm": algorithm}
    if transpose:
        attrs.update(output_padding=list(output_padding), output_size=list(output_size))
        y = out("conv2d_transpose", {"Input": x, "Filter": weight}, attrs, slot="Output")
    else:
        depthwise = channels == groups and channels != 1 and weight.shape[0] % channels == 0
        y = out("depthwise_conv2d" if depthwise else "conv2d", {"Input": x, "Filter": weight},
                attrs, slot="Output")
    return add_channel_bias(y, bias, 1 if data_format == "NCHW" else 3)


def add_channel_bias(y, bias, channel_axis: int):
    """y + bias on the channel axis: Paddle 3's legacy mode reshapes the bias to
    [1, C, 1, ...] (`reshape2`) and adds with axis -1."""
    if bias is None:
        return y
    shape = [1] * len(y.shape)
    shape[channel_axis] = bias.shape[0]
    return out("elementwise_add", {"X": y, "Y": manip.reshape(bias, shape)}, {"axis": -1})


def pool2d(x, pooling_type, ksize, strides, paddings, ceil_mode=False, exclusive=True,
           adaptive=False, data_format="NCHW", algorithm="EXPLICIT", global_pooling=False):
    return out("pool2d", {"X": x}, {"pooling_type": pooling_type, "ksize": list(ksize),
                                    "global_pooling": global_pooling, "strides": list(strides),
                                    "paddings": list(paddings), "exclusive": exclusive,
                                    "adaptive": adaptive, "ceil_mode": ceil_mode,
                                    "data_format": data_format, "padding_algorithm": algorithm})


def unsqueeze(x, axis):
    return manip.unsqueeze(x, axis)


def squeeze(x, axis):
    return manip.squeeze(x, axis)


# --- F.batch_norm etc. ------------------------------------------------------------------------
def batch_norm(x, mean, variance, weight, bias, training, momentum, epsilon, data_format,
               use_global_stats):
    """batch_norm writing the running statistics back into `mean`/`variance` (static: the op's
    MeanOut/VarianceOut are those variables; eager: their values are updated)."""
    layout = "NHWC" if data_format in ("NHWC", "NLC", "NDHWC") else "NCHW"
    global_stats = (not training) if use_global_stats is None else bool(use_global_stats)
    attrs = {"momentum": float(momentum), "epsilon": float(epsilon), "data_layout": layout,
             "is_test": not training, "use_global_stats": global_stats,
             "trainable_statistics": False}
    inputs = {"X": x, "Scale": weight, "Bias": bias, "Mean": mean, "Variance": variance}
    static = not hasattr(mean, "_value")
    outputs = {"MeanOut": mean, "VarianceOut": variance} if static else None
    result = apply_op("batch_norm", inputs, attrs, outputs=outputs)
    if not static and training and not global_stats:
        mean._value = result["MeanOut"].numpy().astype(mean.dtype)
        variance._value = result["VarianceOut"].numpy().astype(variance.dtype)
    return result["Y"]


def layer_norm(x, weight, bias, epsilon, begin_norm_axis):
    return apply_op("layer_norm", {"X": x, "Scale": weight, "Bias": bias},
                    {"epsilon": float(epsilon), "begin_norm_axis": begin_norm_axis})["Y"]


def group_norm(x, weight, bias, epsilon, groups, data_format):
    return apply_op("group_norm", {"X": x, "Scale": weight, "Bias": bias},
                    {"epsilon": float(epsilon), "groups": groups,
                     "data_layout": data_format})["Y"]


def instance_norm(x, weight, bias, epsilon):
    return apply_op("instance_norm", {"X": x, "Scale": weight, "Bias": bias},
                    {"epsilon": float(epsilon)})["Y"]


# --- F.pad, F.interpolate -----------------------------------------------------------------------
def pad3d(x, paddings, mode, value, data_format):
    return out("pad3d", {"X": x}, {"paddings": list(paddings), "mode": mode,
                                   "value": float(value), "data_format": data_format})


def interpolate(x, size, scale_factor, mode, align_corners, align_mode, data_format):
    op_type = {"nearest": "nearest_interp_v2", "bilinear": "bilinear_interp_v2"}.get(mode)
    if op_type is None:
        raise BuildError(f"Upsample: mode {mode!r} is not supported; use 'nearest' or "
                         f"'bilinear'")
    if (size is None) == (scale_factor is None):
        raise BuildError("Upsample: give exactly one of size and scale_factor")
    attrs = {"data_layout": data_format, "interp_method": mode,
             "align_corners": bool(align_corners), "align_mode": int(align_mode),
             "out_d": -1, "out_h": -1, "out_w": -1, "scale": []}
    if size is not None:
        size = [int(size)] * 2 if isinstance(size, int) else [int(s) for s in size]
        attrs["out_h"], attrs["out_w"] = size
    else:
        scale = [float(scale_factor)] * 2 if isinstance(scale_factor, (int, float)) else \
            [float(s) for s in scale_factor]
        if any(s <= 0 for s in scale):
            raise BuildError(f"Upsample: scale_factor must be positive, got {scale_factor}")
        attrs["scale"] = scale
    return out(op_type, {"X": x}, attrs)


def softplus(x, beta=1.0, threshold=20.0):
    return out("softplus", {"X": x}, {"beta": float(beta), "threshold": float(threshold)})


def sigmoid(x):
    return unary("sigmoid", x)


def log(x):
    return tmath.log(x)


def exp(x):
    return tmath.exp(x)


def abs(x):  # noqa: A001
    return tmath.abs(x)


def to_dtype(x, like):
    """x cast to like's dtype when they differ (labels as float)."""
    if dtypes.to_numpy(x.dtype) == dtypes.to_numpy(like.dtype):
        return x
    return manip.cast(x, like.dtype)
