"""`paddle.static.nn` normalizations, embedding and prelu, with Paddle's legacy parameter
names, initializers, output names and op attributes (see nn_common.py for the shared steps).

Paddle quirks kept on purpose (a saved program must match): `group_norm` creates its scale
and bias only for a truthy `param_attr` / `bias_attr` (the default None gives none) and
names its outputs `_generated_var_N`; `instance_norm` creates both only when both attrs are
truthy.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..builder import emit
from ..errors import BuildError, Where
from ..framework import default_main_program
from ..layer_helper import Constant, Normal, ParamAttr, to_param_attr
# These layers are static-only (as in Paddle): their parameters are static in either mode.
from ..layer_helper import create_static_parameter as create_parameter
from ..ops import cvm as _cvm_op  # noqa: F401  (registers the op)
from ..ops import spectral_norm as _spectral_norm_op  # noqa: F401  (registers the op)
from ..unsupported import UnsupportedError
from .nn_common import _input, _stem, _tmp, append_activation


def _stat_dtype(x):
    return np.dtype("float32") if x.dtype == np.float16 else x.dtype


def batch_norm(input, act=None, is_test=False, momentum=0.9, epsilon=1e-05, param_attr=None,
               bias_attr=None, data_layout="NCHW", in_place=False, name=None,
               moving_mean_name=None, moving_variance_name=None,
               do_model_average_for_mean_and_var=True, use_global_stats=False):
    """Batch normalization (op `batch_norm`): scale `batch_norm_N.w_0` (ones), bias `.b_0`
    (zeros), moving mean `.w_1` (zeros) and variance `.w_2` (ones), the last two not
    trainable and updated in place by training runs.

    Example:
        >>> y = pyir.static.nn.batch_norm(x, act="relu")
    """
    input = _input(input, "input", "batch_norm")
    if bias_attr is False:
        raise BuildError("batch_norm: bias_attr cannot be False", Where(op_type="batch_norm"))
    if not 2 <= len(input.shape) <= 5:
        raise BuildError(f"batch_norm expects a 2-D to 5-D input, got shape "
                         f"{list(input.shape)}", Where(op_type="batch_norm"))
    if data_layout not in ("NCHW", "NHWC"):
        raise BuildError(f"batch_norm: unsupported data layout {data_layout!r} (NCHW or NHWC)",
                         Where(op_type="batch_norm"))
    if not isinstance(momentum, (int, float)):
        raise BuildError("batch_norm: momentum must be a number (a momentum Variable is not "
                         "supported)", Where(op_type="batch_norm"))
    stem = _stem("batch_norm", name)
    dtype = _stat_dtype(input)
    shape = [input.shape[1] if data_layout == "NCHW" else input.shape[-1]]
    scale = create_parameter(shape, dtype, to_param_attr(param_attr), name_stem=stem,
                             suffix="w", default_initializer=Constant(1.0))
    bias = create_parameter(shape, dtype, to_param_attr(bias_attr), name_stem=stem, suffix="b",
                            default_initializer=Constant(0.0))
    mean = create_parameter(shape, dtype, ParamAttr(name=moving_mean_name,
                                                    initializer=Constant(0.0), trainable=False),
                            name_stem=stem, suffix="w")
    variance = create_parameter(shape, dtype,
                                ParamAttr(name=moving_variance_name, initializer=Constant(1.0),
                                          trainable=False), name_stem=stem, suffix="w")
    saved_mean = _tmp(stem, dtype, shape, stop_gradient=True)
    saved_var = _tmp(stem, dtype, shape, stop_gradient=True)
    outputs = {"MeanOut": mean, "VarianceOut": variance, "SavedMean": saved_mean,
               "SavedVariance": saved_var}
    if not is_test:
        outputs["ReserveSpace"] = _tmp(stem, input.dtype, [-1], stop_gradient=True)
    outputs["Y"] = input if in_place else _tmp(stem, dtype, input.shape)
    emit("batch_norm", {"X": input, "Scale": scale, "Bias": bias, "Mean": mean,
                        "Variance": variance},
         {"epsilon": float(epsilon), "is_test": bool(is_test), "data_layout": data_layout,
          "use_global_stats": bool(use_global_stats), "momentum": float(momentum)},
         outputs=outputs)
    return append_activation(outputs["Y"], act, stem)


def layer_norm(input, scale=True, shift=True, begin_norm_axis=1, epsilon=1e-05,
               param_attr=None, bias_attr=None, act=None, name=None):
    """Layer normalization over dims `begin_norm_axis:` (op `layer_norm`); scale
    `layer_norm_N.w_0` (ones) and bias `.b_0` (zeros) of the flattened normalized size.

    Example:
        >>> y = pyir.static.nn.layer_norm(x, begin_norm_axis=1)
    """
    input = _input(input, "input", "layer_norm")
    if not isinstance(begin_norm_axis, int) or not 0 < begin_norm_axis < len(input.shape):
        raise BuildError(f"layer_norm: begin_norm_axis must be in [1, {len(input.shape) - 1}],"
                         f" got {begin_norm_axis}", Where(op_type="layer_norm"))
    stem = _stem("layer_norm", name)
    size = [int(np.prod(input.shape[begin_norm_axis:]))]
    if size[0] < 0:
        raise BuildError(f"layer_norm: the normalized dims {list(input.shape[begin_norm_axis:])}"
                         f" must be known", Where(op_type="layer_norm"))
    inputs = {"X": input}
    if scale:
        if param_attr is False:
            raise BuildError("layer_norm: param_attr cannot be False with scale=True",
                             Where(op_type="layer_norm"))
        inputs["Scale"] = create_parameter(size, input.dtype, to_param_attr(param_attr),
                                           name_stem=stem, suffix="w",
                                           default_initializer=Constant(1.0))
    if shift:
        if bias_attr is False:
            raise BuildError("layer_norm: bias_attr cannot be False with shift=True",
                             Where(op_type="layer_norm"))
        inputs["Bias"] = create_parameter(size, input.dtype, to_param_attr(bias_attr),
                                          name_stem=stem, suffix="b",
                                          default_initializer=Constant(0.0))
    rows = [int(np.prod(input.shape[:begin_norm_axis]))
            if all(d >= 0 for d in input.shape[:begin_norm_axis]) else -1]
    outputs = {"Mean": _tmp(stem, input.dtype, rows, True),
               "Variance": _tmp(stem, input.dtype, rows, True),
               "Y": _tmp(stem, input.dtype, input.shape)}
    emit("layer_norm", inputs, {"epsilon": float(epsilon), "begin_norm_axis": begin_norm_axis},
         outputs=outputs)
    return append_activation(outputs["Y"], act, stem)


def group_norm(input, groups, epsilon=1e-05, param_attr=None, bias_attr=None, act=None,
               data_layout="NCHW", name=None):
    """Group normalization (op `group_norm`). As in Paddle, scale (`group_norm_N.w_0`, ones)
    and bias (`.b_0`, zeros) exist only for a truthy param_attr / bias_attr.

    Example:
        >>> y = pyir.static.nn.group_norm(x, groups=4, param_attr=pyir.ParamAttr())
    """
    input = _input(input, "input", "group_norm")
    if len(input.shape) < 2:
        raise BuildError(f"group_norm needs an input of rank >= 2, got {list(input.shape)}",
                         Where(op_type="group_norm"))
    if data_layout not in ("NCHW", "NHWC"):
        raise BuildError(f"group_norm: data_layout must be NCHW or NHWC, got {data_layout!r}",
                         Where(op_type="group_norm"))
    channels = input.shape[1] if data_layout == "NCHW" else input.shape[-1]
    if not isinstance(groups, int) or groups <= 0 or (channels > 0 and channels % groups):
        raise BuildError(f"group_norm: groups must be a positive divisor of the {channels} "
                         f"channels, got {groups!r}", Where(op_type="group_norm"))
    stem = _stem("group_norm", name)
    inputs = {"X": input}
    if param_attr:
        inputs["Scale"] = create_parameter([channels], input.dtype, to_param_attr(param_attr),
                                           name_stem=stem, suffix="w",
                                           default_initializer=Constant(1.0))
    if bias_attr:
        inputs["Bias"] = create_parameter([channels], input.dtype, to_param_attr(bias_attr),
                                          name_stem=stem, suffix="b",
                                          default_initializer=Constant(0.0))
    block = default_main_program().current_block()
    stats = [input.shape[0], groups]
    outputs = {"Mean": block.create_var(None, input.dtype, stats, stop_gradient=True),
               "Variance": block.create_var(None, input.dtype, stats, stop_gradient=True),
               "Y": block.create_var(None, input.dtype, input.shape)}
    emit("group_norm", inputs, {"epsilon": float(epsilon), "groups": groups,
                                "data_layout": data_layout}, outputs=outputs)
    return append_activation(outputs["Y"], act, stem)


def instance_norm(input, epsilon=1e-05, param_attr=None, bias_attr=None, name=None):
    """Instance normalization (op `instance_norm`). As in Paddle, scale and bias
    (`instance_norm_N.w_0` ones, `.b_0` zeros) exist only when both attrs are truthy.

    Example:
        >>> y = pyir.static.nn.instance_norm(x, param_attr=pyir.ParamAttr(),
        ...                                  bias_attr=pyir.ParamAttr())
    """
    input = _input(input, "input", "instance_norm")
    if param_attr is False and bias_attr is not False:
        raise BuildError("instance_norm: param_attr and bias_attr must be False together",
                         Where(op_type="instance_norm"))
    if not 2 <= len(input.shape) <= 5:
        raise BuildError(f"instance_norm expects a 2-D to 5-D input, got shape "
                         f"{list(input.shape)}", Where(op_type="instance_norm"))
    stem = _stem("instance_norm", name)
    dtype = _stat_dtype(input)
    inputs = {"X": input}
    if param_attr and bias_attr:
        shape = [input.shape[1]]
        inputs["Scale"] = create_parameter(shape, dtype, to_param_attr(param_attr),
                                           name_stem=stem, suffix="w",
                                           default_initializer=Constant(1.0))
        inputs["Bias"] = create_parameter(shape, dtype, to_param_attr(bias_attr),
                                          name_stem=stem, suffix="b",
                                          default_initializer=Constant(0.0))
    n, c = input.shape[0], input.shape[1]
    stats = [n * c if n >= 0 and c >= 0 else -1]
    outputs = {"SavedMean": _tmp(stem, dtype, stats, True),
               "SavedVariance": _tmp(stem, dtype, stats, True),
               "Y": _tmp(stem, dtype, input.shape)}
    emit("instance_norm", inputs, {"epsilon": float(epsilon)}, outputs=outputs)
    return outputs["Y"]


def embedding(input, size, is_sparse=False, is_distributed=False, padding_idx=None,
              param_attr=None, dtype="float32"):
    """Lookup rows of a `[vocab, dim]` table `embedding_N.w_0` (Xavier-uniform) by the ids
    in `input` (op `lookup_table_v2`); rows at `padding_idx` read as zeros.

    Example:
        >>> emb = pyir.static.nn.embedding(ids, size=[10000, 64])
    """
    input = _input(input, "input", "lookup_table_v2")
    if is_distributed:
        raise UnsupportedError("pyir does not support paddle.static.nn.embedding(is_distributed="
                               "True): distributed training is out of scope")
    if not isinstance(size, (list, tuple)) or len(size) != 2:
        raise BuildError(f"embedding: size must be [vocab_size, embedding_dim], got {size!r}",
                         Where(op_type="lookup_table_v2"))
    vocab = int(size[0])
    if padding_idx is None:
        padding_idx = -1
    elif not -vocab <= padding_idx < vocab:
        raise BuildError(f"embedding: padding_idx must be in [{-vocab}, {vocab}), got "
                         f"{padding_idx}", Where(op_type="lookup_table_v2"))
    elif padding_idx < 0:
        padding_idx += vocab
    stem = _stem("embedding", None)
    w = create_parameter([int(s) for s in size], dtypes.to_numpy(dtype),
                         to_param_attr(param_attr), name_stem=stem, suffix="w")
    out = _tmp(stem, w.dtype, list(input.shape) + [int(size[1])])
    emit("lookup_table_v2", {"Ids": input, "W": w}, {"padding_idx": int(padding_idx)},
         outputs={"Out": out})
    return out


def prelu(x, mode, param_attr=None, data_format="NCHW", name=None):
    """max(0, x) + alpha * min(0, x) (op `prelu`) with a learned alpha `prelu_N.w_0` (0.25):
    one value (mode "all"), one per channel ("channel") or one per element ("element").

    Example:
        >>> y = pyir.static.nn.prelu(x, mode="channel")
    """
    x = _input(x, "x", "prelu")
    if mode not in ("all", "channel", "element"):
        raise BuildError(f"prelu: mode must be 'all', 'channel' or 'element', got {mode!r}",
                         Where(op_type="prelu"))
    shape = [1]
    if mode == "channel":
        formats = ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC")
        if data_format not in formats:
            raise BuildError(f"prelu: data_format must be one of {formats}, got "
                             f"{data_format!r}", Where(op_type="prelu"))
        if len(x.shape) < 2:
            raise BuildError("prelu: mode 'channel' needs an input of rank >= 2",
                             Where(op_type="prelu"))
        data_format = "NCHW" if data_format[1] == "C" else "NHWC"
        shape = [1, x.shape[1], 1, 1] if data_format == "NCHW" else [1, 1, 1, x.shape[-1]]
    elif mode == "element":
        shape = [1, *x.shape[1:]]
    stem = _stem("prelu", name)
    alpha = create_parameter(shape, x.dtype, to_param_attr(param_attr), name_stem=stem,
                             suffix="w", default_initializer=Constant(0.25))
    return emit("prelu", {"X": x, "Alpha": alpha}, {"mode": mode, "data_format": data_format},
                helper=stem)["Out"]


def spectral_norm(weight, dim=0, power_iters=1, eps=1e-12, name=None):
    """`weight` divided by its largest singular value (op `spectral_norm`), estimated by power
    iteration from `spectral_norm_N.w_0` (u, [weight.shape[dim]]) and `.w_1` (v, the other
    dims' size), both Normal(0, 1) and not updated by the op.

    Example:
        >>> w_sn = pyir.static.nn.spectral_norm(w, dim=1, power_iters=2)
    """
    weight = _input(weight, "weight", "spectral_norm")
    if dim not in (0, 1):
        raise BuildError(f"spectral_norm: dim must be 0 (fc weights) or 1 (conv weights), "
                         f"got {dim!r}", Where(op_type="spectral_norm"))
    if any(d == 0 for d in weight.shape) or any(d < 0 for d in weight.shape):
        raise BuildError(f"spectral_norm needs a weight of known, non-zero dims, got "
                         f"{list(weight.shape)}", Where(op_type="spectral_norm"))
    stem = _stem("spectral_norm", name)
    rows = weight.shape[dim]
    u = create_parameter([rows], weight.dtype, ParamAttr(), name_stem=stem, suffix="w",
                         default_initializer=Normal(0.0, 1.0))
    u.stop_gradient = True
    v = create_parameter([int(np.prod(weight.shape)) // rows], weight.dtype, ParamAttr(),
                         name_stem=stem, suffix="w", default_initializer=Normal(0.0, 1.0))
    v.stop_gradient = True
    out = default_main_program().current_block().create_var(None, weight.dtype, weight.shape)
    emit("spectral_norm", {"Weight": weight, "U": u, "V": v},
         {"dim": dim, "power_iters": int(power_iters), "eps": float(eps)}, outputs={"Out": out})
    return out


def continuous_value_model(input, cvm, use_cvm=True):
    """CTR show/click features (op `cvm`): with use_cvm the first two columns of `input`
    become log(show + 1) and log(click + 1) - log(show + 1); without, they are dropped. `cvm`
    [N, 2] holds the batch's show/click values, which the backward pass passes as the first
    two columns' gradient (Paddle's convention).

    Example:
        >>> y = pyir.static.nn.continuous_value_model(embedding, show_click, use_cvm=True)
    """
    input = _input(input, "input", "cvm")
    cvm = _input(cvm, "cvm", "cvm")
    if len(input.shape) != 2 or (0 <= input.shape[1] < 2):
        raise BuildError(f"continuous_value_model needs an [N, D >= 2] input, got "
                         f"{list(input.shape)}", Where(op_type="cvm"))
    cols = input.shape[1] if use_cvm or input.shape[1] < 0 else input.shape[1] - 2
    out = default_main_program().current_block().create_var(None, input.dtype,
                                                            [input.shape[0], cols])
    emit("cvm", {"X": input, "CVM": cvm}, {"use_cvm": bool(use_cvm)}, outputs={"Y": out})
    return out
