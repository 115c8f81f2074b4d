"""`pyir.nn.functional`: Paddle's `paddle.nn.functional`, one module per family as in Paddle.
Every function serves static and eager mode alike (pyir/dispatch.py)."""

from __future__ import annotations

from ... import unsupported as _unsupported
from . import activation, common, conv, distance, extension, input, loss, norm, pooling, vision
from .activation import *  # noqa: F401,F403
from .common import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .distance import *  # noqa: F401,F403
from .extension import *  # noqa: F401,F403
from .input import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .norm import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .vision import *  # noqa: F401,F403

_FAMILIES = (activation, common, conv, distance, extension, input, loss, norm, pooling, vision)
__all__ = [name for family in _FAMILIES for name in family.__all__]
UNSUPPORTED = {name: why for family in _FAMILIES for name, why in family.UNSUPPORTED.items()}
__getattr__ = _unsupported.module_getattr(__name__, UNSUPPORTED)
