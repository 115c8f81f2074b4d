"""`pyir.base`: Paddle 3's name for the legacy `fluid` namespace (Program, Executor, places,
`core`, ...), which Paddle's own tests and older py_func code import."""

from __future__ import annotations

from ..fluid import *  # noqa: F401,F403
from ..fluid import __all__  # noqa: F401
