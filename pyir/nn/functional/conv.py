"""Convolutions of `paddle.nn.functional` (conv1d/2d/3d and their transposes), emitted as
Paddle's legacy static mode emits them: conv1d is conv2d over an unsqueezed input,
depthwise_conv2d when every channel is its own group, the bias an elementwise_add."""

from __future__ import annotations

import numbers

from ...dispatch import out as _out
from ...tensor import reshape, squeeze, unsqueeze
from ._base import fail, sizes

__all__ = ["conv1d", "conv2d", "conv3d", "conv1d_transpose", "conv2d_transpose",
           "conv3d_transpose"]

# Paddle names of this family pyir leaves out, with the reason (pyir/unsupported.py).
UNSUPPORTED: dict[str, str] = {}

_FORMATS = {1: ("NCL", "NLC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def conv_padding(padding, channel_last: bool, n: int, fn: str):
    """Paddle's `_update_padding_nd`: (paddings attribute, padding_algorithm).

    'SAME' / 'VALID'; an int; n ints (symmetric); 2n ints (lo, hi per dim); or n + 2 pairs
    including zero pairs for the batch and channel dims.
    """
    if isinstance(padding, str):
        algorithm = padding.upper()
        if algorithm not in ("SAME", "VALID"):
            fail(fn, f"padding must be 'SAME', 'VALID', ints or pairs, got {padding!r}")
        return [0] * n, algorithm
    if isinstance(padding, numbers.Integral):
        values = [int(padding)] * n
    elif isinstance(padding, (list, tuple)) and len(padding) == n + 2 and all(
            isinstance(p, (list, tuple)) for p in padding):
        outer = [padding[0], padding[-1]] if channel_last else [padding[0], padding[1]]
        if any(tuple(p) != (0, 0) for p in outer):
            fail(fn, f"padding of the batch and channel dimensions must be 0, got {padding}")
        inner = padding[1:-1] if channel_last else padding[2:]
        values = [int(v) for pair in inner for v in pair]
        if all(values[2 * i] == values[2 * i + 1] for i in range(n)):
            values = values[0::2]
    elif isinstance(padding, (list, tuple)) and len(padding) == 2 * n and all(
            isinstance(p, numbers.Integral) for p in padding):
        values = [int(v) for v in padding]
        if all(values[2 * i] == values[2 * i + 1] for i in range(n)):
            values = values[0::2]
    elif isinstance(padding, (list, tuple)) and len(padding) == n and all(
            isinstance(p, numbers.Integral) for p in padding):
        values = [int(v) for v in padding]
    else:
        fail(fn, f"padding must be 'SAME', 'VALID', an int, {n} or {2 * n} ints or "
                 f"{n + 2} pairs, got {padding!r}")
    if any(v < 0 for v in values):
        fail(fn, f"padding must be >= 0, got {values}")
    return values, "EXPLICIT"


def _check(fn, x, weight, groups, data_format, n, transpose=False):
    if data_format not in _FORMATS[n]:
        fail(fn, f"data_format must be {' or '.join(_FORMATS[n])}, got {data_format!r}")
    if len(x.shape) != n + 2:
        fail(fn, f"x must be {n + 2}-D, got shape {list(x.shape)}")
    if len(weight.shape) != n + 2:
        fail(fn, f"weight must be {n + 2}-D, got shape {list(weight.shape)}")
    channel_last = data_format[-1] == "C"
    channels = x.shape[-1 if channel_last else 1]
    if groups <= 0:
        fail(fn, f"groups must be positive, got {groups}")
    if channels > 0 and channels % groups:
        fail(fn, f"the {channels} input channels are not divisible by groups={groups}")
    if not transpose and weight.shape[0] % groups:
        fail(fn, f"the {weight.shape[0]} filters are not divisible by groups={groups}")
    return channel_last, channels


def _add_bias(out, bias, channel_dim: int, reshaped: bool):
    """out + bias on the channel axis: conv2d / conv3d reshape a channels-first bias to
    [1, C, 1, ...]; the others use elementwise_add's axis."""
    if bias is None:
        return out
    if not reshaped:
        return _out("elementwise_add", {"X": out, "Y": bias}, {"axis": channel_dim})
    if channel_dim != -1 and len(bias.shape) != len(out.shape):
        rest = len(out.shape) - len(bias.shape) - channel_dim
        bias = reshape(bias, [1] * channel_dim + list(bias.shape) + [1] * rest)
    return _out("elementwise_add", {"X": out, "Y": bias}, {"axis": -1})


def _conv_nd(fn, n, x, weight, bias, stride, padding, dilation, groups, data_format, name):
    channel_last, channels = _check(fn, x, weight, groups, data_format, n)
    paddings, algorithm = conv_padding(padding, channel_last, n, fn)
    attrs = {"strides": sizes(stride, n, "stride", fn), "paddings": paddings,
             "dilations": sizes(dilation, n, "dilation", fn), "groups": int(groups),
             "padding_algorithm": algorithm, "data_format": data_format}
    op_type = "conv3d" if n == 3 else "conv2d"
    if n == 2 and channels == groups and channels != 1 and weight.shape[0] % channels == 0:
        op_type = "depthwise_conv2d"
    out = _out(op_type, {"Input": x, "Filter": weight}, attrs, name=name, slot="Output")
    return _add_bias(out, bias, -1 if channel_last else 1, reshaped=True)


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups: int = 1,
           data_format: str = "NCHW", name: str | None = None):
    """2-D convolution (op `conv2d`, or `depthwise_conv2d` when groups == channels) with
    Paddle's padding forms ('SAME', 'VALID', ints, pairs) and an optional bias.

    Example:
        >>> y = F.conv2d(x, w, b, stride=2, padding="SAME")   # w [O, C/groups, kh, kw]
    """
    return _conv_nd("conv2d", 2, x, weight, bias, stride, padding, dilation, groups,
                    data_format, name)


def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups: int = 1,
           data_format: str = "NCDHW", name: str | None = None):
    """3-D convolution (op `conv3d`).

    Example:
        >>> y = F.conv3d(x, w, padding=1)   # w [O, C/groups, kd, kh, kw]
    """
    return _conv_nd("conv3d", 3, x, weight, bias, stride, padding, dilation, groups,
                    data_format, name)


def conv1d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups: int = 1,
           data_format: str = "NCL", name: str | None = None):
    """1-D convolution: conv2d over x with a height-1 axis inserted (unsqueeze2, conv2d,
    squeeze2), as Paddle does.

    Example:
        >>> y = F.conv1d(x, w, padding=1)   # x [N, C, L], w [O, C/groups, k]
    """
    channel_last, _ = _check("conv1d", x, weight, groups, data_format, 1)
    paddings, algorithm = conv_padding(padding, channel_last, 1, "conv1d")
    paddings = [0, 0, *paddings] if len(paddings) == 2 else [0, *paddings]
    attrs = {"strides": [1, *sizes(stride, 1, "stride", "conv1d")], "paddings": paddings,
             "dilations": [1, *sizes(dilation, 1, "dilation", "conv1d")],
             "groups": int(groups), "padding_algorithm": algorithm,
             "data_format": "NHWC" if channel_last else "NCHW"}
    weight = unsqueeze(_out("assign", {"X": weight}), [-2])
    axis = -3 if channel_last else -2
    out = _out("conv2d", {"Input": unsqueeze(x, [axis]), "Filter": weight}, attrs,
               slot="Output")
    out = _add_bias(out, bias, -1 if channel_last else 1, reshaped=False)
    return squeeze(out, [axis], name=name)


def _transpose_sizes(fn, n, output_size, output_padding, stride):
    if output_size is None:
        size_attr = []
    else:
        if output_padding != 0:
            fail(fn, "output_padding and output_size cannot both be given")
        size_attr = sizes(output_size, n, "output_size", fn)
    pad_attr = [] if output_padding == 0 else sizes(output_padding, n, "output_padding", fn)
    if any(p > s for p, s in zip(pad_attr, stride)):
        fail(fn, f"output_padding {pad_attr} must not be greater than stride {stride}")
    return size_attr, pad_attr


def _conv_transpose_nd(fn, n, x, weight, bias, stride, padding, output_padding, dilation,
                       groups, output_size, data_format, name):
    channel_last, channels = _check(fn, x, weight, groups, data_format, n, transpose=True)
    paddings, algorithm = conv_padding(padding, channel_last, n, fn)
    stride = sizes(stride, n, "stride", fn)
    size_attr, pad_attr = _transpose_sizes(fn, n, output_size, output_padding, stride)
    op_type = "conv3d_transpose" if n == 3 else "conv2d_transpose"
    if n == 2 and channels == groups and channels != 1 and weight.shape[1] == 1:
        op_type = "depthwise_conv2d_transpose"
    fmt = data_format if n == 2 else ("NHWC" if channel_last else "NCHW")
    attrs = {"output_padding": pad_attr, "output_size": size_attr, "strides": stride,
             "paddings": paddings, "padding_algorithm": algorithm,
             "dilations": sizes(dilation, n, "dilation", fn), "groups": int(groups),
             "data_format": fmt}
    out = _out(op_type, {"Input": x, "Filter": weight}, attrs, name=name, slot="Output")
    return _add_bias(out, bias, -1 if channel_last else 1, reshaped=n == 2)


def conv2d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, dilation=1,
                     groups: int = 1, output_size=None, data_format: str = "NCHW",
                     name: str | None = None):
    """2-D transposed convolution (op `conv2d_transpose`, or `depthwise_conv2d_transpose`);
    weight [C, O/groups, kh, kw].

    Example:
        >>> y = F.conv2d_transpose(x, w, stride=2, output_padding=1)
    """
    return _conv_transpose_nd("conv2d_transpose", 2, x, weight, bias, stride, padding,
                              output_padding, dilation, groups, output_size, data_format, name)


def conv3d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups: int = 1,
                     dilation=1, output_size=None, data_format: str = "NCDHW",
                     name: str | None = None):
    """3-D transposed convolution (op `conv3d_transpose`); weight [C, O/groups, kd, kh, kw].

    Example:
        >>> y = F.conv3d_transpose(x, w, stride=2)
    """
    return _conv_transpose_nd("conv3d_transpose", 3, x, weight, bias, stride, padding,
                              output_padding, dilation, groups, output_size, data_format, name)


def conv1d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups: int = 1, dilation=1, output_size=None, data_format: str = "NCL",
                     name: str | None = None):
    """1-D transposed convolution: conv2d_transpose over x with a width-1 axis appended.

    Example:
        >>> y = F.conv1d_transpose(x, w, stride=2)   # w [C, O/groups, k]
    """
    fn = "conv1d_transpose"
    channel_last, _ = _check(fn, x, weight, groups, data_format, 1, transpose=True)
    paddings, algorithm = conv_padding(padding, channel_last, 1, fn)
    paddings = [*paddings, 0, 0] if len(paddings) == 2 else [*paddings, 0]
    stride = [*sizes(stride, 1, "stride", fn), 1]
    size_attr, pad_attr = _transpose_sizes(fn, 1, output_size, output_padding, stride[:1])
    attrs = {"output_padding": pad_attr + [0] if pad_attr else [],
             "output_size": size_attr + [1] if size_attr else [], "strides": stride,
             "paddings": paddings, "padding_algorithm": algorithm,
             "dilations": [*sizes(dilation, 1, "dilation", fn), 1], "groups": int(groups),
             "data_format": "NHWC" if channel_last else "NCHW"}
    axis = -2 if channel_last else -1
    op_type = "conv2d_transpose"
    if x.shape[-1 if channel_last else 1] == groups and groups != 1 and weight.shape[1] == 1:
        op_type = "depthwise_conv2d_transpose"
    out = _out(op_type, {"Input": unsqueeze(x, [axis]), "Filter": unsqueeze(weight, [-1])},
               attrs, slot="Output")
    out = _add_bias(out, bias, -1 if channel_last else 1, reshaped=False)
    return squeeze(out, [axis], name=name)
