"""`pyir.linalg`: Paddle's `paddle.linalg` (static and eager; pyir/dispatch.py)."""

from __future__ import annotations

from . import unsupported as _unsupported
from .tensor.linalg import matmul  # noqa: F401

__all__ = ["matmul"]

# Paddle names of `paddle.linalg` pyir leaves out, with the reason (pyir/unsupported.py).
UNSUPPORTED: dict[str, str] = {}
__getattr__ = _unsupported.module_getattr(__name__, UNSUPPORTED)
