"""`fluid.backward` / `base.backward`: gradient construction for static programs."""

from __future__ import annotations

from ..backward import append_backward, gradients  # noqa: F401

__all__ = ["append_backward", "gradients"]
