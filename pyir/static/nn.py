"""`pyir.static.nn`: layers that create their parameters (fc, conv2d, batch_norm, ...),
py_func and static_pylayer; names pyir leaves out are in UNSUPPORTED."""

from __future__ import annotations

import sys as _sys

import numpy as np

from .. import control_flow
from ..builder import emit
from ..control_flow import case, cond, switch_case, while_loop  # noqa: F401
from ..errors import BuildError
from ..framework import unique_name
from .. import unsupported
from ..layer_helper import Constant, to_param_attr
from ..layer_helper import create_static_parameter as _new_parameter
from ..pyfunc import py_func  # noqa: F401
from ..pylayer import static_pylayer  # noqa: F401
from .building import create_parameter  # noqa: F401
from .nn_common import (append_activation, bilinear_tensor_product, conv2d,  # noqa: F401
                        conv2d_transpose, conv3d, conv3d_transpose, row_conv)
from .nn_norm import (batch_norm, continuous_value_model, embedding,  # noqa: F401
                      group_norm, instance_norm, layer_norm, prelu, spectral_norm)

# Paddle's `paddle.static.nn.control_flow` submodule (its tests call
# `paddle.static.nn.control_flow.case(...)`): pyir's control-flow module under that name.
_sys.modules[f"{__name__}.control_flow"] = control_flow

_NO_OP = "needs an op pyir does not have yet ({})"
UNSUPPORTED = {
    "sparse_embedding": unsupported.DISTRIBUTED,
    "deform_conv2d": _NO_OP.format("deformable_conv"),
    "nce": _NO_OP.format("nce"),
    "sequence_conv": unsupported.LOD, "sequence_expand": unsupported.LOD,
    "sequence_first_step": unsupported.LOD, "sequence_last_step": unsupported.LOD,
    "sequence_pool": unsupported.LOD, "sequence_softmax": unsupported.LOD,
}


def fc(x, size: int, num_flatten_dims: int = 1, weight_attr=None, bias_attr=None,
       activation: str | None = None, name: str | None = None, act: str | None = None):
    """Fully connected layer: `mul` + `elementwise_add` (+ the activation op), as Paddle emits.

    Args:
        x: input Variable (or a list of them, whose products are summed).
        size: number of output units.
        num_flatten_dims: leading dims of `x` kept; the rest are flattened into the product.
        activation: name of an activation op applied last (`act` is the fluid-era spelling).

    Example:
        >>> h = pyir.static.nn.fc(x, size=200, activation="tanh")   # fc_0.w_0, fc_0.b_0
    """
    activation = activation or act
    stem = name or unique_name.generate("fc")
    inputs = x if isinstance(x, (list, tuple)) else [x]
    products = []
    for inp in inputs:
        if inp.shape is None or len(inp.shape) <= num_flatten_dims:
            raise BuildError(f"fc needs an input of rank > num_flatten_dims={num_flatten_dims}, "
                             f"got {inp.name} with shape {inp.shape}")
        fan_in = int(np.prod(inp.shape[num_flatten_dims:]))
        if fan_in < 0:
            raise BuildError(f"fc cannot size its weight: {inp.name} has unknown dims "
                             f"{list(inp.shape[num_flatten_dims:])} after num_flatten_dims")
        w = _new_parameter([fan_in, size], inp.dtype, to_param_attr(weight_attr),
                           name_stem=stem, suffix="w")
        products.append(emit("mul", {"X": inp, "Y": w},
                             {"x_num_col_dims": num_flatten_dims, "y_num_col_dims": 1},
                             helper=stem)["Out"])
    out = products[0] if len(products) == 1 else \
        emit("sum", {"X": products}, helper=stem)["Out"]
    battr = to_param_attr(bias_attr)
    if battr is not None:
        b = _new_parameter([size], out.dtype, battr, name_stem=stem, suffix="b",
                           default_initializer=Constant(0.0))
        out = emit("elementwise_add", {"X": out, "Y": b}, {"axis": num_flatten_dims},
                   helper=stem)["Out"]
    return append_activation(out, activation, stem)


__all__ = ["fc", "conv2d", "conv2d_transpose", "conv3d", "conv3d_transpose", "batch_norm",
           "layer_norm", "group_norm", "instance_norm", "embedding", "prelu", "row_conv",
           "bilinear_tensor_product", "spectral_norm", "continuous_value_model",
           "py_func", "static_pylayer", "create_parameter", "cond", "case", "switch_case",
           "while_loop"]

__getattr__ = unsupported.module_getattr(__name__, UNSUPPORTED)
