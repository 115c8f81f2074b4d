"""Normalizations of `paddle.nn.functional` (batch_norm, layer_norm, group_norm,
instance_norm, rms_norm, local_response_norm, normalize), emitted as Paddle's legacy static
mode emits them."""

from __future__ import annotations

import numbers

from ...dispatch import apply_op
from ...dispatch import out as _out
from ...eager import Tensor
from ...tensor import full, reshape, scale, squeeze, unsqueeze
from ._base import fail, maximum, written
from .common import pad
from .pooling import avg_pool2d, avg_pool3d

__all__ = ["batch_norm", "layer_norm", "group_norm", "instance_norm", "rms_norm",
           "local_response_norm", "normalize"]

# Paddle names of this family pyir leaves out, with the reason (pyir/unsupported.py).
UNSUPPORTED: dict[str, str] = {}

_LAYOUTS = ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC")


def _store(target, value):
    """Eager: copy an op's output into the caller's tensor (running statistics), as
    Paddle's in-place outputs do; static programs already wrote the variable."""
    if isinstance(target, Tensor) and value is not target:
        target._value = value.numpy().astype(target.numpy().dtype, copy=False)


def batch_norm(x, running_mean, running_var, weight=None, bias=None, training: bool = False,
               momentum: float = 0.9, epsilon: float = 1e-5, data_format: str = "NCHW",
               use_global_stats=None, name: str | None = None):
    """(x - mean) / sqrt(var + eps) * weight + bias per channel (op `batch_norm`): batch
    statistics in training (the running ones updated by momentum), else the running ones.

    Example:
        >>> y = F.batch_norm(x, mean, var, w, b, training=True)
    """
    if len(x.shape) < 2:
        fail("batch_norm", f"x must have 2 or more dimensions, got shape {list(x.shape)}")
    if data_format not in _LAYOUTS:
        fail("batch_norm", f"data_format must be one of {', '.join(_LAYOUTS)}, got "
                           f"{data_format!r}")
    layout = "NCHW" if data_format[1] == "C" else "NHWC"
    if use_global_stats is None:
        use_global_stats, trainable = not training, False
    else:
        trainable = not use_global_stats
    attrs = {"momentum": float(momentum), "epsilon": float(epsilon), "is_test": not training,
             "data_layout": layout, "use_global_stats": bool(use_global_stats),
             "trainable_statistics": bool(trainable)}
    outputs = {"MeanOut": running_mean, "VarianceOut": running_var}
    outs = apply_op("batch_norm", {"X": x, "Scale": weight, "Bias": bias, "Mean": running_mean,
                                   "Variance": running_var}, attrs, name=name, outputs=outputs)
    _store(running_mean, outs["MeanOut"])
    _store(running_var, outs["VarianceOut"])
    return outs["Y"]


def layer_norm(x, normalized_shape, weight=None, bias=None, epsilon: float = 1e-5,
               name: str | None = None):
    """(x - mean) / sqrt(var + eps) * weight + bias over the trailing normalized_shape dims
    (op `layer_norm`).

    Example:
        >>> y = F.layer_norm(x, x.shape[1:])
    """
    if isinstance(normalized_shape, numbers.Integral):
        normalized_shape = [int(normalized_shape)]
    elif isinstance(normalized_shape, (list, tuple)):
        normalized_shape = [int(v) for v in normalized_shape]
    else:
        fail("layer_norm", f"normalized_shape must be an int or a list of ints, got "
                           f"{normalized_shape!r}")
    begin = len(x.shape) - len(normalized_shape)
    if begin < 0 or list(x.shape[begin:]) != normalized_shape:
        fail("layer_norm", f"normalized_shape {normalized_shape} must be the trailing dims of "
                           f"x's shape {list(x.shape)}")
    # Paddle's layer_norm op takes 1-D Scale / Bias: flatten multi-dim ones.
    weight, bias = (reshape(v, [-1]) if v is not None and len(v.shape) > 1 else v
                    for v in (weight, bias))
    return _out("layer_norm", {"X": x, "Scale": weight, "Bias": bias},
                {"epsilon": float(epsilon), "begin_norm_axis": begin}, name=name, slot="Y")


def group_norm(x, num_groups: int, epsilon: float = 1e-5, weight=None, bias=None,
               data_format: str = "NCHW", name: str | None = None):
    """(x - mean) / sqrt(var + eps) per (sample, group of channels), then weight and bias
    per channel (op `group_norm`).

    Example:
        >>> y = F.group_norm(x, num_groups=2)
    """
    if data_format not in _LAYOUTS[1:]:
        fail("group_norm", f"data_format must be one of {', '.join(_LAYOUTS[1:])}, got "
                           f"{data_format!r}")
    layout = "NCHW" if data_format[1] == "C" else "NHWC"
    channels = x.shape[1 if layout == "NCHW" else -1]
    if num_groups <= 0 or (channels > 0 and channels % num_groups):
        fail("group_norm", f"the {channels} channels must divide into num_groups={num_groups}")
    return _out("group_norm", {"X": x, "Scale": weight, "Bias": bias},
                {"epsilon": float(epsilon), "groups": int(num_groups), "data_layout": layout},
                name=name, slot="Y")


def instance_norm(x, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats: bool = True, momentum: float = 0.9, eps: float = 1e-5,
                  data_format: str = "NCHW", name: str | None = None):
    """(x - mean) / sqrt(var + eps) per (sample, channel), then weight and bias (op
    `instance_norm`; the running statistics are not used, as in Paddle).

    Example:
        >>> y = F.instance_norm(x, weight=w, bias=b)
    """
    if data_format not in ("NC", "NCL", "NCHW", "NCDHW"):
        fail("instance_norm", f"data_format must be NC, NCL, NCHW or NCDHW, got {data_format!r}")
    inputs = {"X": x}
    if weight is not None and bias is not None:
        inputs.update(Scale=weight, Bias=bias)
    return _out("instance_norm", inputs, {"epsilon": float(eps)}, name=name, slot="Y")


def rms_norm(input, normalized_shape, weight=None, eps: float = 1e-5, name: str | None = None):
    """input / sqrt(mean(input^2) + eps) * weight over the trailing normalized_shape dims
    (op `rms_norm`); returns (out, invvar).

    Example:
        >>> y, inv = F.rms_norm(x, [64], w)
    """
    shape = [int(normalized_shape)] if isinstance(normalized_shape, numbers.Integral) else \
        [int(v) for v in normalized_shape]
    if list(input.shape[len(input.shape) - len(shape):]) != shape:
        fail("rms_norm", f"normalized_shape {shape} must be the trailing dims of input's shape "
                         f"{list(input.shape)}")
    outs = apply_op("rms_norm", {"x": input, "scale": weight},
                    {"normalized_shape": shape, "epsilon": float(eps)}, name=name)
    return outs["y"], outs["invvar"]


def local_response_norm(x, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0,
                        data_format: str = "NCHW", name: str | None = None):
    """x / (k + alpha * mean of x^2 over `size` neighbouring channels)^beta (pad3d, pool,
    scale, pow, divide, as Paddle composes it).

    Example:
        >>> y = F.local_response_norm(x, size=5)
    """
    if data_format not in ("NCL", "NLC", "NCHW", "NHWC", "NCDHW", "NDHWC"):
        fail("local_response_norm", f"data_format must be one of NCL, NLC, NCHW, NHWC, NCDHW, "
                                    f"NDHWC, got {data_format!r}")
    dims = list(x.shape)
    if len(dims) < 3:
        fail("local_response_norm", f"x must have 3 or more dimensions, got {len(dims)}")
    if any(d <= 0 for d in dims[1:]):
        fail("local_response_norm", f"every dim after the first must be positive, got {dims}")
    last = data_format[-1] == "C"
    rest = 1
    for d in dims[1:]:
        rest *= d
    div = unsqueeze(x * x, axis=1)
    before, after = size // 2, (size - 1) // 2
    if len(dims) == 3:
        div = pad(div, [before, after, 0, 0] if last else [0, 0, before, after])
        div = squeeze(avg_pool2d(div, (1, size) if last else (size, 1), stride=1), axis=1)
    else:
        if last:
            shape = [dims[0], 1, dims[1], rest // (dims[1] * dims[-1]), dims[-1]]
            pads, window = [before, after, 0, 0, 0, 0], (1, 1, size)
        else:
            shape = [dims[0], 1, dims[1], dims[2], rest // (dims[1] * dims[2])]
            pads, window = [0, 0, 0, 0, before, after], (size, 1, 1)
        div = pad(reshape(div, shape), pads, data_format="NCDHW")
        div = reshape(squeeze(avg_pool3d(div, window, stride=1), axis=1), dims)
    div = scale(div, scale=float(alpha), bias=float(k))
    div = _out("pow", {"X": div}, {"factor": float(beta)})
    return _out("elementwise_div", {"X": x, "Y": div}, {"axis": -1}, name=name)


def normalize(x, p: float = 2, axis: int = 1, epsilon: float = 1e-12, out=None,
              name: str | None = None):
    """x / max(||x||_p along axis, epsilon) (p_norm, elementwise_max, elementwise_div).

    Example:
        >>> unit = F.normalize(x, axis=-1)
    """
    if len(x.shape) == 1 and axis not in (0, -1):
        fail("normalize", f"axis must be 0 or -1 for a 1-D x, got {axis}")
    norm = _out("p_norm", {"X": x}, {"axis": int(axis), "porder": float(p), "keepdim": True,
                                     "epsilon": float(epsilon), "asvector": False})
    eps = full([1], float(epsilon), x.dtype)
    result = _out("elementwise_div", {"X": x, "Y": maximum(norm, eps)}, {"axis": -1}, name=name)
    return written(result, out)
