"""`pyir.base`: Paddle 3's name for the legacy `fluid` namespace (Program, Executor, places,
`core`, ...), which Paddle's own tests and older py_func code import.

It is the same namespace as `pyir.fluid`: `pyir.base.core is pyir.fluid.core`, and
`from pyir.base.backward import append_backward` works because the submodules are
registered under both names.
"""

from __future__ import annotations

import sys as _sys

from .. import fluid as _fluid
from .. import unsupported as _unsupported
from ..fluid import *  # noqa: F401,F403
from ..fluid import UNSUPPORTED, __all__  # noqa: F401
from ..fluid import (backward, compiler, core, data_feeder, dygraph, executor,  # noqa: F401
                     framework, initializer, layers, unique_name)

for _name in ("backward", "compiler", "core", "data_feeder", "dygraph", "executor",
              "framework", "initializer", "layers", "unique_name"):
    _sys.modules[f"{__name__}.{_name}"] = getattr(_fluid, _name)

__getattr__ = _unsupported.module_getattr(__name__, UNSUPPORTED)
