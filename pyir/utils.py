"""`paddle.utils`: of Paddle's grab-bag of helpers, the one training scripts reach for,
`unique_name` (`with paddle.utils.unique_name.guard(): ...` restarts the parameter and
accumulator names, as a new process would). It is the same module as `pyir.fluid.unique_name`;
`import pyir.utils.unique_name` works too."""

from __future__ import annotations

import sys as _sys

from . import unsupported as _unsupported
from .fluid import unique_name

__all__ = ["unique_name"]

_sys.modules[f"{__name__}.unique_name"] = unique_name

__getattr__ = _unsupported.module_getattr(__name__, {})
