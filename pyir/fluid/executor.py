"""`fluid.executor` / `base.executor`: the executor and scopes."""

from __future__ import annotations

from ..executor import Executor, Scope, global_scope, scope_guard  # noqa: F401

__all__ = ["Executor", "Scope", "global_scope", "scope_guard"]
