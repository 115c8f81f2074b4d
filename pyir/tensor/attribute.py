"""Paddle's `paddle.tensor.attribute` functions (static and eager; see pyir/dispatch.py)."""

from __future__ import annotations

__all__: list[str] = []

# Paddle names of this family pyir leaves out, with the reason (pyir/unsupported.py).
UNSUPPORTED: dict[str, str] = {}
