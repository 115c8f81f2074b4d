"""Common layers of `paddle.nn.functional` (linear, bilinear, dropouts, pad, interpolate,
cosine_similarity, unfold / fold, label_smooth), emitted as Paddle's legacy static mode
emits them."""

from __future__ import annotations

import numbers

from ...dispatch import apply_op
from ...dispatch import out as _out
from ...tensor import cast, full, multiply, scale, squeeze, sqrt, sum, uniform, unsqueeze
from ._base import fail, sizes
from .pooling import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d

__all__ = ["linear", "bilinear", "dropout", "dropout1d", "dropout2d", "dropout3d",
           "alpha_dropout", "feature_alpha_dropout", "pad", "zeropad2d", "interpolate",
           "upsample", "cosine_similarity", "unfold", "fold", "label_smooth",
           "class_center_sample"]

# Paddle names of this family pyir leaves out, with the reason (pyir/unsupported.py).
UNSUPPORTED: dict[str, str] = {}


def linear(x, weight, bias=None, name: str | None = None):
    """x @ weight + bias (matmul_v2, elementwise_add); weight is [in, out].

    Example:
        >>> y = F.linear(x, w, b)
    """
    out = _out("matmul_v2", {"X": x, "Y": weight}, {"trans_x": False, "trans_y": False},
               name=name if bias is None else None)
    if bias is None:
        return out
    return _out("elementwise_add", {"X": out, "Y": bias}, {"axis": -1}, name=name)


def bilinear(x1, x2, weight, bias=None, name: str | None = None):
    """out[b, k] = x1[b] @ weight[k] @ x2[b] + bias[k] (op `bilinear_tensor_product`).

    Example:
        >>> y = F.bilinear(a, b, w)   # w [out, in1, in2]
    """
    return _out("bilinear_tensor_product", {"X": x1, "Y": x2, "Weight": weight, "Bias": bias},
                name=name)


# --- dropout -------------------------------------------------------------------------------------
_MODES = ("upscale_in_train", "downscale_in_infer")


def _check_p(fn, p):
    if not isinstance(p, numbers.Real):
        fail(fn, f"p must be a number, got {type(p).__name__}")
    if p < 0 or p > 1:
        fail(fn, f"p must be in [0, 1], got {p}")


def dropout(x, p: float = 0.5, axis=None, training: bool = True, inplace: bool = False,
            mode: str = "upscale_in_train", name: str | None = None):
    """Zero each element with probability p in training (op `dropout`; upscale_in_train
    divides the kept ones by 1 - p, downscale_in_infer multiplies by 1 - p at inference).
    With `axis`, one draw per index of those axes (uniform_random mask).

    Example:
        >>> y = F.dropout(x, 0.1, training=True)
    """
    _check_p("dropout", p)
    if mode not in _MODES:
        fail("dropout", f"mode must be 'upscale_in_train' or 'downscale_in_infer', got {mode!r}")
    if p == 0:
        return x
    if axis is None:
        implementation = "downgrade_in_infer" if mode == "downscale_in_infer" else mode
        return _out("dropout", {"X": x}, {"dropout_prob": float(p), "is_test": not training,
                                          "fix_seed": False, "seed": 0,
                                          "dropout_implementation": implementation}, name=name)
    axes = [axis] if isinstance(axis, numbers.Integral) else list(axis)
    if min(axes) < 0 or max(axes) > len(x.shape) - 1:
        fail("dropout", f"axis must be in [0, {len(x.shape) - 1}], got {axis}")
    if not training:
        return scale(x, 1.0 - p) if mode == "downscale_in_infer" else x
    if p == 1:
        return scale(x, 0.0)
    scaled = scale(x, 1.0 / (1.0 - p)) if mode == "upscale_in_train" else x
    mask_shape = [x.shape[i] if i in axes else 1 for i in range(len(x.shape))]
    return multiply(scaled, _keep_mask(x, mask_shape, p), name=name)


def _keep_mask(x, mask_shape, p):
    """A 0/1 mask of mask_shape in x's dtype, 1 with probability 1 - p: uniform_random
    compared with p, as Paddle draws it; with a dimension unknown until run time (-1), the
    dropout op applied to ones of that shape (uniform_random needs a fixed shape)."""
    if all(d >= 0 for d in mask_shape):
        keep = _out("greater_equal", {"X": uniform(mask_shape, "float32", 0.0, 1.0),
                                      "Y": full([1], float(p), "float32")})
        return cast(keep, x.dtype)
    reduced = [i for i, d in enumerate(mask_shape) if d == 1 and x.shape[i] != 1]
    ones = _out("fill_any_like", {"X": x}, {"value": 1.0, "dtype": -1})
    if reduced:
        ones = _out("reduce_max", {"X": ones}, {"dim": reduced, "keep_dim": True,
                                                "reduce_all": False})
    return _out("dropout", {"X": ones}, {"dropout_prob": float(p), "is_test": False,
                                         "dropout_implementation": "downgrade_in_infer"})


def dropout1d(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zero whole channels of a [N, C, L] (or [C, L]) input (dropout with axis 1).

    Example:
        >>> y = F.dropout1d(x, 0.2)
    """
    _check_p("dropout1d", p)
    if len(input.shape) not in (2, 3):
        fail("dropout1d", f"input must be 2-D or 3-D, got shape {list(input.shape)}")
    batched = len(input.shape) == 3
    x = input if batched else unsqueeze(input, [0])
    out = dropout(x, p=p, axis=1, training=training)
    return out if batched else squeeze(out, [0])


def dropout2d(x, p: float = 0.5, training: bool = True, data_format: str = "NCHW",
              name: str | None = None):
    """Zero whole channels of a 4-D input (dropout with axis [0, 1], or [0, 3] for NHWC).

    Example:
        >>> y = F.dropout2d(x, 0.2)
    """
    if len(x.shape) != 4:
        fail("dropout2d", f"x must be 4-D, got shape {list(x.shape)}")
    if data_format not in ("NCHW", "NHWC"):
        fail("dropout2d", f"data_format must be NCHW or NHWC, got {data_format!r}")
    return dropout(x, p, [0, 1] if data_format == "NCHW" else [0, 3], training, name=name)


def dropout3d(x, p: float = 0.5, training: bool = True, data_format: str = "NCDHW",
              name: str | None = None):
    """Zero whole channels of a 5-D input (dropout with axis [0, 1], or [0, 4] for NDHWC).

    Example:
        >>> y = F.dropout3d(x, 0.2)
    """
    if len(x.shape) != 5:
        fail("dropout3d", f"x must be 5-D, got shape {list(x.shape)}")
    if data_format not in ("NCDHW", "NDHWC"):
        fail("dropout3d", f"data_format must be NCDHW or NDHWC, got {data_format!r}")
    return dropout(x, p, [0, 1] if data_format == "NCDHW" else [0, 4], training, name=name)


_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772, 1.0507009873554805


def _alpha_dropout(fn, x, p, training, feature, name):
    if not isinstance(p, numbers.Real):
        fail(fn, f"p must be a number, got {type(p).__name__}")
    if p < 0 or p > 1:
        fail(fn, f"p must be in [0, 1], got {p}")
    if not training:
        return x
    if p == 1:
        return scale(x, 0.0)
    alpha_p = -_SELU_ALPHA * _SELU_SCALE
    a = ((1 - p) * (1 + p * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * p
    if feature and len(x.shape) < 2:
        fail(fn, "x must have at least 2 dimensions")
    shape = list(x.shape[:2]) + [1] * (len(x.shape) - 2) if feature else list(x.shape)
    keep = _keep_mask(x, shape, p)
    drop = scale(keep, -1.0, 1.0)  # 1 - keep
    y = multiply(x, keep) + scale(drop, alpha_p)
    return scale(y, a, b, name=name)


def alpha_dropout(x, p: float = 0.5, training: bool = True, name: str | None = None):
    """Dropout that keeps SELU's mean and variance: dropped elements become -alpha*scale,
    then an affine correction a * y + b (training only).

    Example:
        >>> y = F.alpha_dropout(x, 0.2)
    """
    return _alpha_dropout("alpha_dropout", x, p, training, False, name)


def feature_alpha_dropout(x, p: float = 0.5, training: bool = True, name: str | None = None):
    """alpha_dropout with one draw per (sample, channel).

    Example:
        >>> y = F.feature_alpha_dropout(x, 0.2)
    """
    return _alpha_dropout("feature_alpha_dropout", x, p, training, True, name)


# --- pad ------------------------------------------------------------------------------------------
_PAD_MODES = ("constant", "reflect", "replicate", "circular")
_PAD_FORMATS = {3: ("NCL", "NLC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}


def pad(x, pad, mode: str = "constant", value: float = 0.0, data_format=None,
        pad_from_left_axis: bool = True, name: str | None = None):
    """Pad x. Constant padding of every axis (2 * rank values, from the first axis unless
    pad_from_left_axis is False) is op `pad`; padding of the spatial axes (2, 4 or 6 values,
    last axis first) is op `pad3d` with mode constant / reflect / replicate / circular.

    Example:
        >>> y = F.pad(x, [1, 1, 2, 0], mode="reflect")   # NCHW: left, right, top, bottom
    """
    if mode not in _PAD_MODES:
        fail("pad", f"mode must be one of {', '.join(_PAD_MODES)}, got {mode!r}")
    rank = len(x.shape)
    if not isinstance(pad, (list, tuple)):
        fail("pad", f"pad must be a list of ints, got {type(pad).__name__}")
    values = [int(v) for v in pad]
    if mode == "constant" and len(values) != (rank - 2) * 2:
        if len(values) > 2 * rank or len(values) % 2:
            fail("pad", f"pad must hold an even number of values, at most {2 * rank}, got "
                        f"{len(values)}")
        paddings = values + [0] * (2 * rank - len(values))
        if not (len(values) == 2 * rank and pad_from_left_axis):
            paddings = [paddings[i - 1] if i % 2 == 1 else paddings[i + 1]
                        for i in range(2 * rank - 1, -1, -1)]
        return _out("pad", {"X": x}, {"paddings": paddings, "pad_value": float(value)}, name=name)
    if rank not in (3, 4, 5):
        fail("pad", f"x must be 3-D, 4-D or 5-D for mode {mode!r} (or give 2 * rank values for "
                    f"constant padding), got rank {rank}")
    if data_format is None:
        data_format = _PAD_FORMATS[rank][0]
    if data_format not in _PAD_FORMATS[rank]:
        fail("pad", f"data_format must be {' or '.join(_PAD_FORMATS[rank])} for a {rank}-D x, "
                    f"got {data_format!r}")
    if len(values) != 2 * (rank - 2):
        fail("pad", f"pad must hold {2 * (rank - 2)} values for mode {mode!r}, got "
                    f"{len(values)}")
    last = data_format[-1] == "C"
    axes = {3: [2, 3] if last else [3, 4], 4: [1] if last else [2], 5: []}[rank]
    if rank == 3:
        values = [0, 0, 0, 0, *values]
    elif rank == 4:
        values = [*values, 0, 0]
    if axes:
        x = unsqueeze(x, axes)
    out = _out("pad3d", {"X": x}, {"paddings": values, "mode": mode, "value": float(value),
                                   "data_format": "NDHWC" if last else "NCDHW"},
               name=name if not axes else None)
    return squeeze(out, axes, name=name) if axes else out


def zeropad2d(x, padding, data_format: str = "NCHW", name: str | None = None):
    """Zero padding of a 4-D x by [left, right, top, bottom] (pad3d).

    Example:
        >>> y = F.zeropad2d(x, [1, 1, 1, 1])
    """
    if isinstance(padding, numbers.Integral):
        padding = [int(padding)] * 4
    return pad(x, padding, "constant", 0.0, data_format, name=name)


# --- interpolate -------------------------------------------------------------------------------
_RESAMPLE = ("linear", "bilinear", "trilinear", "nearest", "bicubic", "area")
_NEEDS_RANK = {"linear": (3,), "bilinear": (4,), "bicubic": (4,), "trilinear": (5,),
               "nearest": (4,)}
_INTERP_FORMATS = {3: ("NCW", "NWC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}


def interpolate(x, size=None, scale_factor=None, mode: str = "nearest",
                align_corners: bool = False, align_mode: int = 0, data_format=None,
                recompute_scale_factor=None, antialias: bool = False, name: str | None = None):
    """Resize x's spatial dims to `size` or by `scale_factor` (op `<mode>_interp_v2`; 'area'
    is adaptive average pooling).

    Example:
        >>> y = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True)
    """
    fn, rank = "interpolate", len(x.shape)
    if rank not in (3, 4, 5):
        fail(fn, f"x must be 3-D, 4-D or 5-D, got rank {rank}")
    resample = mode.lower()
    if resample not in _RESAMPLE:
        fail(fn, f"mode must be one of {', '.join(_RESAMPLE)}, got {mode!r}")
    if resample in _NEEDS_RANK and rank not in _NEEDS_RANK[resample]:
        extra = " (5-D nearest is not supported by pyir yet)" if resample == "nearest" else ""
        fail(fn, f"mode {resample!r} needs a {_NEEDS_RANK[resample][0]}-D x, got {rank}-D"
                 f"{extra}")
    if size is None and scale_factor is None:
        fail(fn, "one of size and scale_factor must be given")
    if size is not None and scale_factor is not None:
        fail(fn, "only one of size and scale_factor may be given")
    if align_mode not in (0, 1):
        fail(fn, f"align_mode must be 0 or 1, got {align_mode}")
    if align_corners and resample == "nearest":
        fail(fn, "align_corners is only for linear, bilinear, bicubic and trilinear modes")
    if antialias:
        fail(fn, "antialias is not supported by pyir")
    n = rank - 2
    if resample == "area":
        if size is None:
            fail(fn, "mode 'area' needs size")
        pool = {1: adaptive_avg_pool1d, 2: adaptive_avg_pool2d, 3: adaptive_avg_pool3d}[n]
        return pool(x, size[0] if n == 1 and isinstance(size, (list, tuple)) else size)
    data_format = (data_format or _INTERP_FORMATS[rank][0]).upper()
    if data_format not in _INTERP_FORMATS[rank]:
        fail(fn, f"data_format must be {' or '.join(_INTERP_FORMATS[rank])} for a {rank}-D x, "
                 f"got {data_format!r}")
    attrs = {"out_d": -1, "out_h": -1, "out_w": -1, "interp_method": resample,
             "align_corners": bool(align_corners), "align_mode": int(align_mode),
             "data_layout": "NHWC" if data_format[-1] == "C" else "NCHW"}
    spatial = list(x.shape[1:1 + n]) if data_format[-1] == "C" else list(x.shape[2:])
    if size is not None:
        out_size = sizes(list(size) if isinstance(size, tuple) else size, n, "size", fn)
        if any(v <= 0 for v in out_size):
            fail(fn, f"size must be positive, got {out_size}")
    else:
        factors = [float(scale_factor)] * n if isinstance(scale_factor, numbers.Real) else \
            [float(v) for v in scale_factor]
        if len(factors) != n:
            fail(fn, f"scale_factor must have {n} values for a {rank}-D x, got {len(factors)}")
        if any(v <= 0 for v in factors):
            fail(fn, f"scale_factor must be positive, got {scale_factor}")
        if recompute_scale_factor:
            out_size = [int(s * f) for s, f in zip(spatial, factors)]
        else:
            out_size = None
            attrs["scale"] = factors
    if out_size is not None:
        for key, value in zip(("out_d", "out_h", "out_w")[3 - n:], out_size):
            attrs[key] = value
    return _out(f"{resample}_interp_v2", {"X": x}, attrs, name=name)


def upsample(x, size=None, scale_factor=None, mode: str = "nearest", align_corners: bool = False,
             align_mode: int = 0, data_format=None, name: str | None = None):
    """`interpolate` under its older name.

    Example:
        >>> y = F.upsample(x, scale_factor=2)
    """
    return interpolate(x, size, scale_factor, mode, align_corners, align_mode, data_format,
                       name=name)


# --- similarity, unfold / fold, label_smooth ----------------------------------------------------
def cosine_similarity(x1, x2, axis: int = 1, eps: float = 1e-8):
    """sum(x1 * x2) / sqrt(max(sum(x1^2) * sum(x2^2), eps^2)) along `axis`.

    Example:
        >>> s = F.cosine_similarity(a, b, axis=-1)
    """
    w12 = sum(multiply(x1, x2), axis=axis)
    w1 = sum(multiply(x1, x1), axis=axis)
    w2 = sum(multiply(x2, x2), axis=axis)
    n1, n2 = x1.shape[axis], x2.shape[axis]
    if n1 != n2 and 1 in (n1, n2):  # a broadcast axis counts its single value n times
        if n1 == 1:
            w1 = w1 * float(n2)
        else:
            w2 = w2 * float(n1)
    norm = sqrt(_out("clip", {"X": w1 * w2}, {"min": float(eps) ** 2,
                                              "max": 3.4028234663852886e38}))
    return w12 / norm


def _pair(value, fn, what):
    return sizes(list(value) if isinstance(value, tuple) else value, 2, what, fn)


def _four(paddings, fn):
    if isinstance(paddings, numbers.Integral):
        return [int(paddings)] * 4
    values = [int(v) for v in paddings]
    if len(values) == 2:
        return values * 2
    if len(values) == 4:
        return values
    fail(fn, f"paddings must be an int or 2 or 4 ints, got {paddings!r}")


def unfold(x, kernel_sizes, strides=1, paddings=0, dilations=1, name: str | None = None):
    """The sliding blocks of x [N, C, H, W] as columns [N, C*kh*kw, L] (op `unfold`).

    Example:
        >>> cols = F.unfold(x, [3, 3], paddings=1)
    """
    if len(x.shape) != 4:
        fail("unfold", f"x must be 4-D [N, C, H, W], got shape {list(x.shape)}")
    return _out("unfold", {"X": x}, {"kernel_sizes": _pair(kernel_sizes, "unfold",
                                                           "kernel_sizes"),
                                     "strides": _pair(strides, "unfold", "strides"),
                                     "paddings": _four(paddings, "unfold"),
                                     "dilations": _pair(dilations, "unfold", "dilations")},
                name=name, slot="Y")


def fold(x, output_sizes, kernel_sizes, strides=1, paddings=0, dilations=1,
         name: str | None = None):
    """The inverse of unfold: columns [N, C*kh*kw, L] summed back into [N, C, H, W] (op
    `fold`).

    Example:
        >>> img = F.fold(cols, [8, 8], [3, 3], paddings=1)
    """
    if len(x.shape) != 3:
        fail("fold", f"x must be 3-D [N, C, L], got shape {list(x.shape)}")
    return _out("fold", {"X": x}, {"output_sizes": _pair(output_sizes, "fold", "output_sizes"),
                                   "kernel_sizes": _pair(kernel_sizes, "fold", "kernel_sizes"),
                                   "strides": _pair(strides, "fold", "strides"),
                                   "paddings": _four(paddings, "fold"),
                                   "dilations": _pair(dilations, "fold", "dilations")},
                name=name, slot="Y")


def label_smooth(label, prior_dist=None, epsilon: float = 0.1, name: str | None = None):
    """(1 - epsilon) * label + epsilon * prior (uniform 1 / C by default) (op
    `label_smooth`).

    Example:
        >>> soft = F.label_smooth(onehot, epsilon=0.1)
    """
    if not 0.0 <= epsilon <= 1.0:
        fail("label_smooth", f"epsilon must be in [0, 1], got {epsilon}")
    return _out("label_smooth", {"X": label, "PriorDist": prior_dist},
                {"epsilon": float(epsilon)}, name=name)


def class_center_sample(label, num_classes: int, num_samples: int, group=None):
    """Sample class centers for a batch: every class in label, then random other classes up
    to num_samples (op `class_center_sample`, one process); returns (remapped label, sampled
    centers).

    Example:
        >>> remapped, centers = F.class_center_sample(label, 1000, 64)
    """
    if group not in (None, False):
        fail("class_center_sample", "a communication group needs distributed training, which "
                                    "pyir leaves out; pass group=None")
    if num_samples > num_classes:
        fail("class_center_sample", f"num_samples ({num_samples}) must not exceed num_classes "
                                    f"({num_classes})")
    if len(label.shape) != 1:
        fail("class_center_sample", f"label must be 1-D, got shape {list(label.shape)}")
    outs = apply_op("class_center_sample", {"Label": label},
                    {"num_classes": int(num_classes), "num_samples": int(num_samples),
                     "ring_id": 0, "rank": 0, "nranks": 1, "fix_seed": False, "seed": 0})
    return outs["RemappedLabel"], outs["SampledLocalClassCenter"]
