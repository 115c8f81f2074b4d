"""Pooling of `paddle.nn.functional` (avg / max / lp / adaptive pooling in 1-3 D, max_unpool),
emitted as Paddle's legacy static mode emits it: 1-D pooling is 2-D pooling over an
unsqueezed input; return_mask and adaptive max use max_pool{2,3}d_with_index."""

from __future__ import annotations

import numbers

from ...dispatch import apply_op
from ...dispatch import out as _out
from ...tensor import squeeze, unsqueeze
from ._base import fail, sizes
from .conv import conv_padding

__all__ = [
    "avg_pool1d", "avg_pool2d", "avg_pool3d", "max_pool1d", "max_pool2d", "max_pool3d",
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
    "adaptive_max_pool2d", "adaptive_max_pool3d", "lp_pool1d", "lp_pool2d", "max_unpool1d",
    "max_unpool2d", "max_unpool3d", "fractional_max_pool2d", "fractional_max_pool3d",
]

# Paddle names of this family pyir leaves out, with the reason (pyir/unsupported.py).
UNSUPPORTED: dict[str, str] = {}

_FORMATS = {1: ("NCL", "NLC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def _check_rank(fn, x, rank):
    if len(x.shape) != rank:
        fail(fn, f"x must be {rank}-D, got shape {list(x.shape)}")


def _channel_last(fn, data_format, n):
    if data_format not in _FORMATS[n]:
        fail(fn, f"data_format must be {' or '.join(_FORMATS[n])}, got {data_format!r}")
    return data_format[-1] == "C"


def _window(fn, n, kernel_size, stride):
    ksize = sizes(kernel_size, n, "kernel_size", fn)
    strides = ksize if stride is None else sizes(stride, n, "stride", fn)
    if any(v <= 0 for v in ksize + strides):
        fail(fn, f"kernel_size and stride must be positive, got {ksize} and {strides}")
    return ksize, strides


def _padding(fn, padding, n, channel_last, ceil_mode):
    if isinstance(padding, str) and padding.upper() == "VALID" and ceil_mode:
        fail(fn, "ceil_mode must be False with padding 'VALID'")
    return conv_padding(padding, channel_last, n, fn)


def _low_nd(padding):
    """A 1-D padding lifted to 2-D (a zero height padding first), as Paddle does."""
    return [0, 0, *padding] if len(padding) == 2 else [0, *padding]


def _pool_op(op_type, x, kind, ksize, strides, paddings, algorithm, ceil_mode, exclusive,
             data_format, name, mask=False):
    """pool2d / pool3d with Paddle's attributes, or max_pool{2,3}d_with_index (which keeps
    only the window attributes)."""
    attrs = {"ksize": ksize, "global_pooling": False, "strides": strides,
             "paddings": paddings, "ceil_mode": bool(ceil_mode)}
    if not mask:
        attrs.update(pooling_type=kind, padding_algorithm=algorithm, use_cudnn=True,
                     exclusive=bool(exclusive), data_format=data_format)
    outs = apply_op(op_type, {"X": x}, attrs, name=name)
    return (outs["Out"], outs["Mask"]) if mask else outs["Out"]


def _pool_1d(fn, kind, x, kernel_size, stride, padding, ceil_mode, exclusive, return_mask,
             name):
    _check_rank(fn, x, 3)
    ksize, strides = _window(fn, 1, kernel_size, stride)
    paddings, algorithm = _padding(fn, padding, 1, False, ceil_mode)
    x = unsqueeze(x, [2])
    op_type = "max_pool2d_with_index" if return_mask else "pool2d"
    result = _pool_op(op_type, x, kind, [1, *ksize], [1, *strides], _low_nd(paddings), algorithm,
                      ceil_mode, exclusive, "NCHW", None, mask=return_mask)
    if return_mask:
        return squeeze(result[0], [2], name=name), squeeze(result[1], [2])
    return squeeze(result, [2], name=name)


def _pool_nd(fn, n, kind, x, kernel_size, stride, padding, ceil_mode, exclusive, return_mask,
             data_format, name):
    channel_last = _channel_last(fn, data_format, n)
    _check_rank(fn, x, n + 2)
    ksize, strides = _window(fn, n, kernel_size, stride)
    paddings, algorithm = _padding(fn, padding, n, channel_last, ceil_mode)
    if return_mask and channel_last:
        fail(fn, f"return_mask needs data_format {_FORMATS[n][0]}")
    op_type = f"max_pool{n}d_with_index" if return_mask else f"pool{n}d"
    return _pool_op(op_type, x, kind, ksize, strides, paddings, algorithm, ceil_mode, exclusive,
                    data_format, name, mask=return_mask)


def avg_pool1d(x, kernel_size, stride=None, padding=0, exclusive: bool = True,
               ceil_mode: bool = False, name: str | None = None):
    """Mean over 1-D windows of x [N, C, L] (pool2d over x unsqueezed at axis 2).

    Example:
        >>> y = F.avg_pool1d(x, kernel_size=2, stride=2)
    """
    return _pool_1d("avg_pool1d", "avg", x, kernel_size, stride, padding, ceil_mode, exclusive,
                    False, name)


def max_pool1d(x, kernel_size, stride=None, padding=0, return_mask: bool = False,
               ceil_mode: bool = False, name: str | None = None):
    """Max over 1-D windows (pool2d; max_pool2d_with_index with the mask when return_mask).

    Example:
        >>> y, idx = F.max_pool1d(x, 2, return_mask=True)
    """
    return _pool_1d("max_pool1d", "max", x, kernel_size, stride, padding, ceil_mode, True,
                    return_mask, name)


def _divided(out, ksize, divisor_override):
    if divisor_override is None:
        return out
    if not isinstance(divisor_override, numbers.Real) or divisor_override == 0:
        fail("avg_pool", f"divisor_override must be a nonzero number, got {divisor_override!r}")
    volume = 1
    for k in ksize:
        volume *= k
    return out * float(volume) / float(divisor_override)


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               exclusive: bool = True, divisor_override=None, data_format: str = "NCHW",
               name: str | None = None):
    """Mean over 2-D windows (op `pool2d`); divisor_override rescales the window sums.

    Example:
        >>> y = F.avg_pool2d(x, 3, stride=2, padding=1)
    """
    out = _pool_nd("avg_pool2d", 2, "avg", x, kernel_size, stride, padding, ceil_mode,
                   exclusive, False, data_format, name)
    return _divided(out, sizes(kernel_size, 2, "kernel_size", "avg_pool2d"), divisor_override)


def avg_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               exclusive: bool = True, divisor_override=None, data_format: str = "NCDHW",
               name: str | None = None):
    """Mean over 3-D windows (op `pool3d`).

    Example:
        >>> y = F.avg_pool3d(x, 2)
    """
    out = _pool_nd("avg_pool3d", 3, "avg", x, kernel_size, stride, padding, ceil_mode,
                   exclusive, False, data_format, name)
    return _divided(out, sizes(kernel_size, 3, "kernel_size", "avg_pool3d"), divisor_override)


def max_pool2d(x, kernel_size, stride=None, padding=0, return_mask: bool = False,
               ceil_mode: bool = False, data_format: str = "NCHW", name: str | None = None):
    """Max over 2-D windows (op `pool2d`, or `max_pool2d_with_index` when return_mask).

    Example:
        >>> y = F.max_pool2d(x, 2)
    """
    return _pool_nd("max_pool2d", 2, "max", x, kernel_size, stride, padding, ceil_mode, True,
                    return_mask, data_format, name)


def max_pool3d(x, kernel_size, stride=None, padding=0, return_mask: bool = False,
               ceil_mode: bool = False, data_format: str = "NCDHW", name: str | None = None):
    """Max over 3-D windows (op `pool3d`, or `max_pool3d_with_index` when return_mask).

    Example:
        >>> y = F.max_pool3d(x, 2)
    """
    return _pool_nd("max_pool3d", 3, "max", x, kernel_size, stride, padding, ceil_mode, False,
                    return_mask, data_format, name)


def _output_size(fn, output_size, n, spatial):
    """output_size as n ints; None entries keep the input's size."""
    if isinstance(output_size, numbers.Integral):
        return [int(output_size)] * n
    values = list(output_size)
    if len(values) != n:
        fail(fn, f"output_size must be an int or {n} values, got {output_size!r}")
    return [int(spatial[i]) if v is None else int(v) for i, v in enumerate(values)]


def adaptive_avg_pool1d(x, output_size: int, name: str | None = None):
    """Mean over output_size adaptive windows of x [N, C, L] (pool2d adaptive).

    Example:
        >>> y = F.adaptive_avg_pool1d(x, 4)
    """
    _check_rank("adaptive_avg_pool1d", x, 3)
    size = _output_size("adaptive_avg_pool1d", output_size, 1, x.shape[2:])
    out = _out("pool2d", {"X": unsqueeze(x, [2])}, {"pooling_type": "avg", "ksize": [1, *size],
                                                    "adaptive": True})
    return squeeze(out, [2], name=name)


def adaptive_avg_pool2d(x, output_size, data_format: str = "NCHW", name: str | None = None):
    """Mean over adaptive windows giving output_size (op `pool2d`, adaptive).

    Example:
        >>> y = F.adaptive_avg_pool2d(x, [3, None])
    """
    last = _channel_last("adaptive_avg_pool2d", data_format, 2)
    spatial = x.shape[1:3] if last else x.shape[2:4]
    size = _output_size("adaptive_avg_pool2d", output_size, 2, spatial)
    return _out("pool2d", {"X": x}, {"pooling_type": "avg", "ksize": size, "adaptive": True,
                                     "data_format": data_format}, name=name)


def adaptive_avg_pool3d(x, output_size, data_format: str = "NCDHW", name: str | None = None):
    """Mean over adaptive 3-D windows (op `pool3d`, adaptive).

    Example:
        >>> y = F.adaptive_avg_pool3d(x, 1)
    """
    last = _channel_last("adaptive_avg_pool3d", data_format, 3)
    spatial = x.shape[1:4] if last else x.shape[2:5]
    size = _output_size("adaptive_avg_pool3d", output_size, 3, spatial)
    return _out("pool3d", {"X": x}, {"pooling_type": "avg", "ksize": size, "adaptive": True,
                                     "data_format": data_format}, name=name)


def _adaptive_max(fn, n, x, output_size, return_mask, name):
    _check_rank(fn, x, n + 2)
    size = _output_size(fn, output_size, n, x.shape[2:])
    outs = apply_op(f"max_pool{n}d_with_index", {"X": x}, {"ksize": size, "adaptive": True,
                                                          "ceil_mode": False}, name=name)
    return (outs["Out"], outs["Mask"]) if return_mask else outs["Out"]


def adaptive_max_pool1d(x, output_size, return_mask: bool = False, name: str | None = None):
    """Max over adaptive windows of x [N, C, L] (max_pool2d_with_index, adaptive).

    Example:
        >>> y = F.adaptive_max_pool1d(x, 4)
    """
    _check_rank("adaptive_max_pool1d", x, 3)
    size = _output_size("adaptive_max_pool1d", output_size, 1, x.shape[2:])
    outs = apply_op("max_pool2d_with_index", {"X": unsqueeze(x, [2])},
                    {"ksize": [1, *size], "adaptive": True, "ceil_mode": False})
    out = squeeze(outs["Out"], [2], name=name)
    return (out, squeeze(outs["Mask"], [2])) if return_mask else out


def adaptive_max_pool2d(x, output_size, return_mask: bool = False, name: str | None = None):
    """Max over adaptive windows (max_pool2d_with_index, adaptive); the mask holds flat
    indices into H * W.

    Example:
        >>> y, idx = F.adaptive_max_pool2d(x, 2, return_mask=True)
    """
    return _adaptive_max("adaptive_max_pool2d", 2, x, output_size, return_mask, name)


def adaptive_max_pool3d(x, output_size, return_mask: bool = False, name: str | None = None):
    """Max over adaptive 3-D windows (max_pool3d_with_index, adaptive).

    Example:
        >>> y = F.adaptive_max_pool3d(x, [2, 2, 2])
    """
    return _adaptive_max("adaptive_max_pool3d", 3, x, output_size, return_mask, name)


def _lp_attrs(fn, n, norm_type, kernel_size, stride, padding, ceil_mode, channel_last):
    if norm_type == 0:
        fail(fn, "norm_type cannot be 0")
    ksize, strides = _window(fn, n, kernel_size, stride)
    paddings, algorithm = _padding(fn, padding, n, channel_last, ceil_mode)
    if n == 1:
        ksize, strides, paddings = [1, *ksize], [1, *strides], _low_nd(paddings)
    return {"pooling_type": "lp", "kernel_size": ksize, "global_pooling": False,
            "strides": strides, "paddings": paddings, "padding_algorithm": algorithm,
            "ceil_mode": bool(ceil_mode), "exclusive": True, "norm_type": float(norm_type)}


def lp_pool2d(x, norm_type: float, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
              data_format: str = "NCHW", name: str | None = None):
    """(sum of x^p over each window)^(1/p) (op `lp_pool2d`).

    Example:
        >>> y = F.lp_pool2d(x, 2, 3, stride=2)
    """
    last = _channel_last("lp_pool2d", data_format, 2)
    _check_rank("lp_pool2d", x, 4)
    attrs = _lp_attrs("lp_pool2d", 2, norm_type, kernel_size, stride, padding, ceil_mode, last)
    return _out("lp_pool2d", {"x": x}, {**attrs, "data_format": data_format}, name=name,
                slot="out")


def lp_pool1d(x, norm_type: float, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
              data_format: str = "NCL", name: str | None = None):
    """(sum of x^p over each 1-D window)^(1/p) (lp_pool2d over an unsqueezed input).

    Example:
        >>> y = F.lp_pool1d(x, 3, 2)
    """
    last = _channel_last("lp_pool1d", data_format, 1)
    _check_rank("lp_pool1d", x, 3)
    attrs = _lp_attrs("lp_pool1d", 1, norm_type, kernel_size, stride, padding, ceil_mode, last)
    axis = 1 if last else 2
    out = _out("lp_pool2d", {"x": unsqueeze(x, [axis])},
               {**attrs, "data_format": "NHWC" if last else "NCHW"}, slot="out")
    return squeeze(out, [axis], name=name)


def _unpool_size(fn, x_shape, ksize, strides, paddings, output_size, n):
    default = [(x_shape[-n + d] - 1) * strides[d] + ksize[d] - 2 * paddings[d] for d in range(n)]
    if output_size is None:
        return default
    output_size = list(output_size)
    if len(output_size) == n + 2:
        output_size = output_size[2:]
    if len(output_size) != n:
        fail(fn, f"output_size must have {n} or {n + 2} values, got {len(output_size)}")
    for d in range(n):
        low, high = default[d] - strides[d], default[d] + strides[d]
        if not low < output_size[d] < high:
            fail(fn, f"output_size {output_size}: dim {d} must be between {low} and {high}")
    return [int(v) for v in output_size]


def _max_unpool(fn, n, x, indices, kernel_size, stride, padding, data_format, output_size, name):
    if data_format != _FORMATS[n][0]:
        fail(fn, f"data_format must be {_FORMATS[n][0]}, got {data_format!r}")
    _check_rank(fn, x, n + 2)
    if len(indices.shape) != n + 2:
        fail(fn, f"indices must be {n + 2}-D, got shape {list(indices.shape)}")
    ksize, strides = _window(fn, n, kernel_size, stride)
    paddings = sizes(padding, n, "padding", fn)
    size = _unpool_size(fn, x.shape, ksize, strides, paddings, output_size, n)
    op_type = "unpool3d" if n == 3 else "unpool"
    attrs = {"unpooling_type": "max", "ksize": ksize, "strides": strides, "paddings": paddings,
             "output_size": size}
    if n == 3:
        attrs["data_format"] = data_format
    return _out(op_type, {"X": x, "Indices": indices}, attrs, name=name)


def max_unpool2d(x, indices, kernel_size, stride=None, padding=0, data_format: str = "NCHW",
                 output_size=None, name: str | None = None):
    """The inverse of max_pool2d with return_mask: x written at the mask's positions of a zero
    [N, C, H, W] (op `unpool`).

    Example:
        >>> y = F.max_unpool2d(pooled, mask, 2)
    """
    return _max_unpool("max_unpool2d", 2, x, indices, kernel_size, stride, padding, data_format,
                       output_size, name)


def max_unpool3d(x, indices, kernel_size, stride=None, padding=0, data_format: str = "NCDHW",
                 output_size=None, name: str | None = None):
    """The inverse of max_pool3d with return_mask (op `unpool3d`).

    Example:
        >>> y = F.max_unpool3d(pooled, mask, 2)
    """
    return _max_unpool("max_unpool3d", 3, x, indices, kernel_size, stride, padding, data_format,
                       output_size, name)


def max_unpool1d(x, indices, kernel_size, stride=None, padding=0, data_format: str = "NCL",
                 output_size=None, name: str | None = None):
    """The inverse of max_pool1d with return_mask (unpool over unsqueezed inputs).

    Example:
        >>> y = F.max_unpool1d(pooled, mask, 2)
    """
    fn = "max_unpool1d"
    if data_format != "NCL":
        fail(fn, f"data_format must be NCL, got {data_format!r}")
    _check_rank(fn, x, 3)
    ksize, strides = _window(fn, 1, kernel_size, stride)
    paddings = sizes(padding, 1, "padding", fn)
    if output_size is not None:
        output_size = list(output_size)
        output_size = output_size[-1:]
    size = _unpool_size(fn, x.shape, ksize, strides, paddings, output_size, 1)
    out = _out("unpool", {"X": unsqueeze(x, [2]), "Indices": unsqueeze(indices, [2])},
               {"unpooling_type": "max", "ksize": [1, *ksize], "strides": [1, *strides],
                "paddings": [0, *paddings], "output_size": [1, *size]})
    return squeeze(out, [2], name=name)



def _fractional(fn, n, x, output_size, kernel_size, random_u, return_mask, name):
    _check_rank(fn, x, n + 2)
    if random_u is None:
        random_u = 0.0
    elif not 0 < random_u < 1:
        fail(fn, f"random_u must be in (0, 1), got {random_u}")
    ksize = [0] * n if kernel_size is None else sizes(kernel_size, n, "kernel_size", fn)
    size = _output_size(fn, output_size, n, x.shape[2:])
    outs = apply_op(f"fractional_max_pool{n}d", {"x": x},
                    {"output_size": size, "kernel_size": ksize, "random_u": float(random_u),
                     "return_mask": bool(return_mask)}, name=name)
    return (outs["out"], outs["mask"]) if return_mask else outs["out"]


def fractional_max_pool2d(x, output_size, kernel_size=None, random_u=None,
                          return_mask: bool = False, name: str | None = None):
    """Max over pseudo-random windows giving output_size (op `fractional_max_pool2d`); the
    offset random_u in (0, 1) fixes the windows, else it is drawn from pyir's stream.

    Example:
        >>> y = F.fractional_max_pool2d(x, [5, 5], random_u=0.3)
    """
    return _fractional("fractional_max_pool2d", 2, x, output_size, kernel_size, random_u,
                       return_mask, name)


def fractional_max_pool3d(x, output_size, kernel_size=None, random_u=None,
                          return_mask: bool = False, name: str | None = None):
    """Max over pseudo-random 3-D windows (op `fractional_max_pool3d`).

    Example:
        >>> y = F.fractional_max_pool3d(x, [2, 3, 3], random_u=0.5)
    """
    return _fractional("fractional_max_pool3d", 3, x, output_size, kernel_size, random_u,
                       return_mask, name)
