"""`paddle.static.nn` layers that create their parameters: convolutions, normalizations,
embedding and prelu. Each emits the ops, attributes and parameter names of Paddle's legacy
static mode (`conv2d_0.w_0`, `batch_norm_0.w_1`, ...), with Paddle's default initializers.

Shared steps: `_stem` (the layer's name, `<type>_N`), `add_bias` (a `[C]` bias and an
`elementwise_add` on axis `dim_start`) and `append_activation` (the `act` op).
"""

from __future__ import annotations

import math

import numpy as np

from .. import registry
from ..builder import emit
from ..errors import BuildError, Where
from ..framework import Variable, default_main_program, unique_name
from ..layer_helper import Constant, Normal, to_param_attr
# These layers are static-only (as in Paddle): their parameters are static in either mode.
from ..layer_helper import create_static_parameter as create_parameter
from ..ops import row_conv as _row_conv_ops  # noqa: F401  (registers row_conv)
from ..unsupported import UnsupportedError

ACTIVATIONS = {"relu", "tanh", "sigmoid", "softmax", "exp", "gelu", "leaky_relu", "relu6",
               "swish", "silu", "hard_swish", "hard_sigmoid", "elu", "softplus", "softsign",
               "abs", "sqrt", "square", "log", "mish", "selu"}


def _stem(layer_type: str, name: str | None) -> str:
    return name or unique_name.generate(layer_type)


def _tmp(stem: str, dtype, shape, stop_gradient: bool = False) -> Variable:
    """A new `<stem>.tmp_N` variable of the current block (Paddle's
    create_variable_for_type_inference)."""
    block = default_main_program().current_block()
    return block.create_var(unique_name.generate_with_ignorable_key(f"{stem}.tmp"), dtype,
                            shape, stop_gradient=stop_gradient)


def _input(x, what: str, op_type: str) -> Variable:
    if not isinstance(x, Variable):
        raise BuildError(f"{what} must be a static Variable (build inside a program), got "
                         f"{type(x).__name__}", Where(op_type=op_type))
    return x


def append_activation(out, act: str | None, stem: str):
    """`act(out)` as its own op (Paddle's `helper.append_activation`)."""
    if not act:
        return out
    if act not in ACTIVATIONS:
        raise BuildError(f"unknown activation {act!r} (known: {', '.join(sorted(ACTIVATIONS))})")
    return emit(act, {"X": out}, helper=stem)["Out"]


def add_bias(out, bias_attr, stem: str, dim_start: int, dim_end: int):
    """`out + b` with a parameter `<stem>.b_0` of shape out.shape[dim_start:dim_end] (zeros by
    default); nothing when `bias_attr` is False."""
    battr = to_param_attr(bias_attr)
    if battr is None:
        return out
    b = create_parameter(list(out.shape[dim_start:dim_end]), out.dtype, battr, name_stem=stem,
                         suffix="b", default_initializer=Constant(0.0))
    return emit("elementwise_add", {"X": out, "Y": b}, {"axis": dim_start}, helper=stem)["Out"]


def _pair(value, n: int, what: str, op_type: str) -> list[int]:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return [int(value)] * n
    if isinstance(value, (list, tuple)) and len(value) == n and all(
            isinstance(v, (int, np.integer)) for v in value):
        return [int(v) for v in value]
    raise BuildError(f"{what} must be an int or {n} ints, got {value!r}", Where(op_type=op_type))


def _conv_padding(padding, n: int, channel_last: bool, transpose: bool, op_type: str):
    """(paddings attribute, padding_algorithm) as Paddle's legacy conv layers compute them."""
    if isinstance(padding, str):
        algorithm = padding.upper()
        if algorithm not in ("SAME", "VALID"):
            raise BuildError(f"padding must be 'SAME', 'VALID', an int or a list, got "
                             f"{padding!r}", Where(op_type=op_type))
        return [0] * (2 * n if transpose else n), algorithm
    if isinstance(padding, (list, tuple)) and len(padding) == n + 2 and \
            isinstance(padding[0], (list, tuple)):
        batch, chan = (0, n + 1) if channel_last else (0, 1)
        if list(padding[batch]) != [0, 0] or list(padding[chan]) != [0, 0]:
            raise BuildError(f"non-zero padding {padding} in the batch or channel dimensions "
                             f"is not supported", Where(op_type=op_type))
        spatial = [p for i, p in enumerate(padding) if i not in (batch, chan)]
        padding = [int(v) for pair in spatial for v in pair]
    if isinstance(padding, (list, tuple)) and len(padding) == 2 * n:
        pads = _pair(list(padding), 2 * n, "padding", op_type)
        if all(pads[2 * i] == pads[2 * i + 1] for i in range(n)):
            return pads[::2], "EXPLICIT"
        return pads, "EXPLICIT"
    pads = _pair(padding, n, "padding", op_type)
    return (pads if not transpose else [p for p in pads for _ in (0, 1)]), "EXPLICIT"


def _need_op(op_type: str, layer: str) -> None:
    if op_type not in registry.OPS:
        raise UnsupportedError(f"pyir does not support paddle.static.nn.{layer}: it needs the "
                               f"{op_type!r} op, which pyir does not have yet")


def _conv(input, num_filters, filter_size, stride, padding, dilation, groups, param_attr,
          bias_attr, use_cudnn, act, name, data_format, n: int, layer: str):
    formats = ("NCHW", "NHWC") if n == 2 else ("NCDHW", "NDHWC")
    input = _input(input, "input", layer)
    if len(input.shape) != n + 2:
        raise BuildError(f"{layer} needs a {n + 2}-D input, got shape {list(input.shape)}",
                         Where(op_type=layer))
    if data_format not in formats:
        raise BuildError(f"data_format must be one of {formats}, got {data_format!r}",
                         Where(op_type=layer))
    if param_attr is False:
        raise BuildError(f"{layer}: param_attr cannot be False (a conv needs its filter)",
                         Where(op_type=layer))
    if not isinstance(use_cudnn, bool):
        raise BuildError(f"{layer}: use_cudnn must be True or False, got {use_cudnn!r}",
                         Where(op_type=layer))
    channel_last = data_format[-1] == "C"
    channels = input.shape[-1] if channel_last else input.shape[1]
    if channels < 0:
        raise BuildError(f"{layer}: the channel dimension of the input {list(input.shape)} "
                         f"must be known", Where(op_type=layer))
    if groups is not None and (groups <= 0 or channels % groups):
        raise BuildError(f"{layer}: groups must be positive and divide the {channels} input "
                         f"channels, got {groups}", Where(op_type=layer))
    op_type = layer
    if n == 2 and channels == groups and num_filters % channels == 0 and not use_cudnn:
        op_type = "depthwise_conv2d"
    _need_op(op_type, layer)
    stem = _stem(op_type, name)
    fsize = _pair(filter_size, n, "filter_size", layer)
    paddings, algorithm = _conv_padding(padding, n, channel_last, False, layer)
    fan_in = int(np.prod(fsize)) * channels
    w = create_parameter([num_filters, channels // (groups or 1), *fsize], input.dtype,
                         to_param_attr(param_attr), name_stem=stem, suffix="w",
                         default_initializer=Normal(0.0, math.sqrt(2.0 / fan_in)))
    out = emit(op_type, {"Input": input, "Filter": w},
               {"strides": _pair(stride, n, "stride", layer), "paddings": paddings,
                "dilations": _pair(dilation, n, "dilation", layer), "groups": groups or 1,
                "padding_algorithm": algorithm, "data_format": data_format},
               helper=stem)["Output"]
    dim = n + 1 if channel_last else 1
    return append_activation(add_bias(out, bias_attr, stem, dim, dim + 1), act, stem)


def conv2d(input, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=None,
           param_attr=None, bias_attr=None, use_cudnn=True, act=None, name=None,
           data_format="NCHW"):
    """2-D convolution (op `conv2d`, or `depthwise_conv2d` when use_cudnn=False and groups
    equals the channels) + bias + act; filter `conv2d_N.w_0` ~ Normal(0, sqrt(2/fan_in)).

    Example:
        >>> y = pyir.static.nn.conv2d(x, num_filters=8, filter_size=3, padding=1, act="relu")
    """
    return _conv(input, num_filters, filter_size, stride, padding, dilation, groups,
                 param_attr, bias_attr, use_cudnn, act, name, data_format, 2, "conv2d")


def conv3d(input, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=None,
           param_attr=None, bias_attr=None, use_cudnn=True, act=None, name=None,
           data_format="NCDHW"):
    """3-D convolution (op `conv3d`) + bias + act, as `conv2d`.

    Example:
        >>> y = pyir.static.nn.conv3d(x, num_filters=4, filter_size=3)
    """
    return _conv(input, num_filters, filter_size, stride, padding, dilation, groups,
                 param_attr, bias_attr, use_cudnn, act, name, data_format, 3, "conv3d")


def _conv_transpose(input, num_filters, output_size, filter_size, padding, stride, dilation,
                    groups, param_attr, bias_attr, use_cudnn, act, name, data_format,
                    n: int, layer: str):
    formats = ("NCHW", "NHWC") if n == 2 else ("NCDHW", "NDHWC")
    input = _input(input, "input", layer)
    if len(input.shape) != n + 2:
        raise BuildError(f"{layer} needs a {n + 2}-D input, got shape {list(input.shape)}",
                         Where(op_type=layer))
    if data_format not in formats:
        raise BuildError(f"data_format must be one of {formats}, got {data_format!r}",
                         Where(op_type=layer))
    if param_attr is False:
        raise BuildError(f"{layer}: param_attr cannot be False", Where(op_type=layer))
    if not num_filters:
        raise BuildError(f"{layer}: num_filters must be positive", Where(op_type=layer))
    channel_last = data_format[-1] == "C"
    channels = input.shape[-1] if channel_last else input.shape[1]
    op_type = layer
    if n == 2 and channels == groups and num_filters == channels and not use_cudnn:
        op_type = "depthwise_conv2d_transpose"
    _need_op(op_type, layer)
    stem = _stem(op_type, name)
    strides = _pair(stride, n, "stride", layer)
    dilations = _pair(dilation, n, "dilation", layer)
    pads, algorithm = _conv_padding(padding, n, channel_last, True, layer)
    full = pads if len(pads) == 2 * n else [p for p in pads for _ in (0, 1)]
    sizes = [] if output_size is None else _pair(output_size, n, "output_size", layer)
    if filter_size is None:
        if not sizes:
            raise BuildError(f"{layer}: give filter_size, or output_size to derive it from",
                             Where(op_type=layer))
        spatial = input.shape[1:-1] if channel_last else input.shape[2:]
        fsize = [(sizes[i] - (spatial[i] - 1) * strides[i] + full[2 * i] + full[2 * i + 1] - 1)
                 // dilations[i] + 1 for i in range(n)]
    else:
        fsize = _pair(filter_size, n, "filter_size", layer)
    if all(full[2 * i] == full[2 * i + 1] for i in range(n)):
        pads = full[::2]  # symmetric: one value per spatial dim, as Paddle writes it
    groups = 1 if groups is None else groups
    if groups <= 0 or (n == 3 and num_filters % groups):
        raise BuildError(f"{layer}: groups must be positive (and divide num_filters for 3-D), "
                         f"got {groups}", Where(op_type=layer))
    w = create_parameter([channels, num_filters // groups, *fsize], input.dtype,
                         to_param_attr(param_attr), name_stem=stem, suffix="w")
    if n == 3:  # Paddle writes the 2-D spelling of the layout on conv3d_transpose
        data_format = "NHWC" if channel_last else "NCHW"
    out = emit(op_type, {"Input": input, "Filter": w},
               {"output_size": sizes, "strides": strides, "paddings": pads,
                "padding_algorithm": algorithm, "dilations": dilations, "groups": groups,
                "data_format": data_format}, helper=stem)["Output"]
    dim = n + 1 if channel_last else 1
    return append_activation(add_bias(out, bias_attr, stem, dim, dim + 1), act, stem)


def conv2d_transpose(input, num_filters, output_size=None, filter_size=None, padding=0,
                     stride=1, dilation=1, groups=None, param_attr=None, bias_attr=None,
                     use_cudnn=True, act=None, name=None, data_format="NCHW"):
    """2-D transposed convolution (op `conv2d_transpose`) + bias + act; filter
    `conv2d_transpose_N.w_0` [C_in, num_filters/groups, kh, kw], Xavier-uniform.

    Example:
        >>> y = pyir.static.nn.conv2d_transpose(x, num_filters=4, filter_size=3, stride=2)
    """
    return _conv_transpose(input, num_filters, output_size, filter_size, padding, stride,
                           dilation, groups, param_attr, bias_attr, use_cudnn, act, name,
                           data_format, 2, "conv2d_transpose")


def conv3d_transpose(input, num_filters, output_size=None, filter_size=None, padding=0,
                     stride=1, dilation=1, groups=None, param_attr=None, bias_attr=None,
                     use_cudnn=True, act=None, name=None, data_format="NCDHW"):
    """3-D transposed convolution (op `conv3d_transpose`) + bias + act.

    Example:
        >>> y = pyir.static.nn.conv3d_transpose(x, num_filters=4, filter_size=3)
    """
    return _conv_transpose(input, num_filters, output_size, filter_size, padding, stride,
                           dilation, groups, param_attr, bias_attr, use_cudnn, act, name,
                           data_format, 3, "conv3d_transpose")


def row_conv(input, future_context_size, param_attr=None, act=None):
    """Lookahead convolution over time (op `row_conv`) on a dense [batch, time, dim] input:
    out[:, t] = sum_k input[:, t + k] * w[k] for k <= future_context_size; weight
    `row_conv_N.w_0` [future_context_size + 1, dim], Xavier-uniform.

    Example:
        >>> y = pyir.static.nn.row_conv(x, future_context_size=2, act="relu")
    """
    input = _input(input, "input", "row_conv")
    if input.lod_level:
        raise UnsupportedError("pyir does not support row_conv on LoD sequences: LoD sequence "
                               "ops are legacy Paddle; pad to a [batch, time, dim] tensor")
    if len(input.shape) != 3:
        raise BuildError(f"row_conv needs a [batch, time, dim] input, got shape "
                         f"{list(input.shape)}", Where(op_type="row_conv"))
    if not isinstance(future_context_size, int) or future_context_size < 0:
        raise BuildError(f"row_conv: future_context_size must be an int >= 0, got "
                         f"{future_context_size!r}", Where(op_type="row_conv"))
    stem = _stem("row_conv", None)
    w = create_parameter([future_context_size + 1, input.shape[-1]], input.dtype,
                         to_param_attr(param_attr), name_stem=stem, suffix="w")
    out = emit("row_conv", {"X": input, "Filter": w}, helper=stem)["Out"]
    return append_activation(out, act, stem)


def bilinear_tensor_product(x, y, size, act=None, name=None, param_attr=None, bias_attr=None):
    """out[n, i] = x[n] @ W[i] @ y[n] + b[i] (op `bilinear_tensor_product`) for 2-D x and y;
    weight `bilinear_tensor_product_N.w_0` [size, x_dim, y_dim] (Xavier), bias `.b_0`
    [1, size] (zeros).

    Example:
        >>> out = pyir.static.nn.bilinear_tensor_product(x, y, size=8)
    """
    x = _input(x, "x", "bilinear_tensor_product")
    y = _input(y, "y", "bilinear_tensor_product")
    if len(x.shape) != 2 or len(y.shape) != 2:
        raise BuildError(f"bilinear_tensor_product needs 2-D x and y, got shapes "
                         f"{list(x.shape)} and {list(y.shape)}",
                         Where(op_type="bilinear_tensor_product"))
    _need_op("bilinear_tensor_product", "bilinear_tensor_product")
    stem = _stem("bilinear_tensor_product", name)
    inputs = {"X": x, "Y": y,
              "Weight": create_parameter([size, x.shape[1], y.shape[1]], x.dtype,
                                         to_param_attr(param_attr), name_stem=stem, suffix="w")}
    battr = to_param_attr(bias_attr)
    if battr is not None:
        inputs["Bias"] = create_parameter([1, size], x.dtype, battr, name_stem=stem, suffix="b",
                                          default_initializer=Constant(0.0))
    out = emit("bilinear_tensor_product", inputs, helper=stem)["Out"]
    return append_activation(out, act, stem)
