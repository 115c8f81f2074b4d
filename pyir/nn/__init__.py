"""pyir.nn: Paddle's `paddle.nn` — `Layer` and the layers (common, convolution/pooling,
normalization, activation, containers, recurrent, transformer), losses, gradient clipping
(`ClipGradBy*`), `initializer` and `functional`."""

from .. import unsupported as _unsupported
from . import clip, functional, initializer, loss, utils  # noqa: F401
from .clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue
from .decode import *  # noqa: F401,F403
from .layer_base import Layer
from .layers_activation import *  # noqa: F401,F403
from .layers_common import *  # noqa: F401,F403
from .layers_container import *  # noqa: F401,F403
from .layers_conv import *  # noqa: F401,F403
from .layers_norm import *  # noqa: F401,F403
from .layers_extra import *  # noqa: F401,F403
from .layers_pool import *  # noqa: F401,F403
from .layers_rnn import *  # noqa: F401,F403
from .layers_transformer import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .loss_ext import *  # noqa: F401,F403
from . import (decode, layers_activation, layers_common, layers_container,  # noqa: E402
               layers_conv, layers_extra, layers_norm, layers_pool, layers_rnn,
               layers_transformer, loss_ext)

_FAMILIES = (decode, layers_activation, layers_common, layers_container, layers_conv,
             layers_extra, layers_norm, layers_pool, layers_rnn, layers_transformer, loss,
             loss_ext)
_ALIASES = {  # Paddle's lower-case `d` spellings and torch-style names
    "Conv1d": "Conv1D", "Conv2d": "Conv2D", "Conv3d": "Conv3D",
    "AdaptiveAvgPool1d": "AdaptiveAvgPool1D", "AdaptiveAvgPool2d": "AdaptiveAvgPool2D",
    "AdaptiveAvgPool3d": "AdaptiveAvgPool3D", "AdaptiveMaxPool1d": "AdaptiveMaxPool1D",
    "AdaptiveMaxPool2d": "AdaptiveMaxPool2D", "AdaptiveMaxPool3d": "AdaptiveMaxPool3D",
    "LPPool1d": "LPPool1D", "LPPool2d": "LPPool2D", "UpsamplingNearest2d": "UpsamplingNearest2D",
    "UpsamplingBilinear2d": "UpsamplingBilinear2D", "Module": "Layer",
    "ModuleList": "LayerList", "ModuleDict": "LayerDict", "MaxUnpool1d": "MaxUnPool1D",
    "MaxUnpool2d": "MaxUnPool2D", "MaxUnpool3d": "MaxUnPool3D",
    **{f"{kind}Pad{n}d": f"{kind}Pad{n}D" for kind in ("Constant", "Zero", "Reflection",
                                                       "Replication", "Circular")
       for n in (1, 2, 3)},
}
for _alias, _target in _ALIASES.items():
    globals()[_alias] = globals()[_target]

__all__ = (["Layer", "ClipGradByGlobalNorm", "ClipGradByNorm", "ClipGradByValue", "clip",
            "functional", "initializer", "loss"]
           + [name for family in _FAMILIES for name in family.__all__] + list(_ALIASES))
UNSUPPORTED: dict = {}
__getattr__ = _unsupported.module_getattr(__name__, UNSUPPORTED)
