"""`pyir.static.nn`: layers that create parameters (fc) and static_pylayer."""

from __future__ import annotations

import numpy as np

from ..builder import emit
from ..errors import BuildError
from ..framework import unique_name
from ..layer_helper import Constant, create_parameter, to_param_attr
from ..pylayer import static_pylayer  # noqa: F401

_ACTIVATIONS = {"relu", "tanh", "sigmoid", "softmax", "exp", "gelu", "leaky_relu", "relu6",
                "swish", "silu", "hard_swish", "hard_sigmoid", "elu", "softplus", "softsign"}


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
        w = create_parameter([fan_in, size], inp.dtype, to_param_attr(weight_attr),
                             name_stem=stem, suffix="w")
        products.append(emit("mul", {"X": inp, "Y": w},
                             {"x_num_col_dims": num_flatten_dims, "y_num_col_dims": 1},
                             helper=stem)["Out"])
    out = products[0] if len(products) == 1 else \
        emit("sum", {"X": products}, helper=stem)["Out"]
    battr = to_param_attr(bias_attr)
    if battr is not None:
        b = create_parameter([size], out.dtype, battr, name_stem=stem, suffix="b",
                             default_initializer=Constant(0.0))
        out = emit("elementwise_add", {"X": out, "Y": b}, {"axis": num_flatten_dims},
                   helper=stem)["Out"]
    if activation:
        if activation not in _ACTIVATIONS:
            raise BuildError(f"unknown activation {activation!r} (known: "
                             f"{', '.join(sorted(_ACTIVATIONS))})")
        out = emit(activation, {"X": out}, helper=stem)["Out"]
    return out
