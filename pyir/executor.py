"""Run a Plan: its generated function reads feeds and the scope, runs the steps, fetches.

    Executor.run(program, feed, fetch_list, scope)
      +-- compile_plan (cached)       plan.py: steps, then one generated function
      +-- run_plan                    calls it; a failure comes back naming its step
"""

from __future__ import annotations

import contextlib

import numpy as np

from .errors import PyirError
from .framework import Program, Variable, default_main_program
from .plan import Plan, compile_plan


class Scope:
    """Persistable values (parameters, optimizer state) that live across runs."""

    def __init__(self):
        self.vars: dict[str, np.ndarray] = {}

    def find_var(self, name: str) -> "ScopeVar | None":
        return ScopeVar(self, name) if name in self.vars else None

    def var(self, name: str) -> "ScopeVar":
        return ScopeVar(self, name)

    def __contains__(self, name: str) -> bool:
        return name in self.vars

    def __getitem__(self, name: str) -> np.ndarray:
        return self.vars[name]

    def __setitem__(self, name: str, value) -> None:
        self.vars[name] = np.asarray(value)

    def local_var_names(self) -> list[str]:
        return list(self.vars)


class ScopeVar:
    """Paddle-style handle: `scope.find_var(name).get_tensor()`, `.set(value, place)`."""

    def __init__(self, scope: Scope, name: str):
        self.scope, self.name = scope, name

    def get_tensor(self) -> np.ndarray:
        return self.scope.vars[self.name]

    def set(self, value, place=None) -> None:
        self.scope.vars[self.name] = np.asarray(value)


_global_scope = Scope()


def global_scope() -> Scope:
    return _global_scope


@contextlib.contextmanager
def scope_guard(scope: Scope):
    global _global_scope
    old, _global_scope = _global_scope, scope
    try:
        yield
    finally:
        _global_scope = old


def run_plan(plan: Plan, env: dict, scope: Scope) -> list:
    """Run `plan` on the values in `env` (its feeds) and `scope`; returns its fetches."""
    return plan.execute(env, scope.vars)


class Executor:
    """Paddle's static-graph executor: `exe.run(program, feed={...}, fetch_list=[...])`."""

    def __init__(self, place=None):
        self.place = place

    def run(self, program: Program | None = None, feed: dict | None = None, fetch_list=None,
            feed_var_name: str = "feed", fetch_var_name: str = "fetch", scope: Scope | None = None,
            return_numpy: bool = True, use_program_cache: bool = True, **_ignored):
        """Run `program` (default: the main program) and return the fetched values.

        Args:
            feed: input name -> array (lists and scalars are converted to the input's dtype).
            fetch_list: Variables or names to return, in order.
            scope: where persistable values live (default: `global_scope()`).
        """
        program = default_main_program() if program is None else program
        if not isinstance(program, Program):
            raise PyirError(f"Executor.run expects a Program, got {type(program).__name__}")
        feed = feed or {}
        fetch_names = tuple([f if type(f) is str else _name_of(f) for f in fetch_list or ()])
        results = run_plan(compile_plan(program, tuple(feed), fetch_names), feed,
                           scope or _global_scope)
        return results if return_numpy else [_LoDTensorLike(r) for r in results]

    def close(self) -> None:
        pass


def _name_of(item) -> str:
    if isinstance(item, Variable):
        return item.name
    if isinstance(item, str):
        return item
    raise PyirError(f"fetch_list entries must be Variables or names, got {type(item).__name__}")


class _LoDTensorLike(np.ndarray):
    """What `return_numpy=False` gives: an array view that also answers `.numpy()`."""

    def __new__(cls, array):
        return np.asarray(array).view(cls)

    def numpy(self) -> np.ndarray:
        return np.asarray(self)
