"""`fluid.compiler` / `base.compiler`: CompiledProgram and its strategies (accepted; the
program runs as written)."""

from __future__ import annotations

from ..static.building import BuildStrategy, CompiledProgram, ExecutionStrategy  # noqa: F401

__all__ = ["CompiledProgram", "BuildStrategy", "ExecutionStrategy"]
