"""Run a Plan: bind feeds and persistable values, loop over steps, store state, fetch.

    Executor.run(program, feed, fetch_list, scope)
      +-- compile_plan (cached)       plan.py
      +-- _bind_feeds                 dtype/shape checks against `data` variables
      +-- run_plan                    the loop below: gather, kernel, store, release
      +-- scope writes + fetch
"""

from __future__ import annotations

import contextlib

import numpy as np

from . import dtypes
from .errors import FeedError, KernelError, PyirError, Where
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
_scope_stack: list[Scope] = []


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


def current_scope() -> Scope:
    """The scope of the run in progress (for ops that run sub-blocks)."""
    return _scope_stack[-1] if _scope_stack else _global_scope


def run_plan(plan: Plan, env: dict, scope: Scope) -> dict:
    """Run `plan` over `env` (feeds already bound); returns env with fetches and state."""
    if plan.scope_reads:
        env = _with_scope_values(plan, env, scope)
    for name in plan.feeds:
        if name not in env:
            raise FeedError(f"input {name!r} was not fed", Where(var=name))
    _scope_stack.append(scope)
    step = None
    try:
        for step in plan.steps:
            step.run(env)
            for name in step.release:
                env.pop(name, None)
    except PyirError as e:
        raise e.at(**_where_fields(step.where)) from e.__cause__
    except KeyError as e:
        name = e.args[0] if e.args else "?"
        raise KernelError(f"input variable {name!r} has no value: it is neither fed nor "
                          f"computed by an earlier op", step.where.with_(var=name)) from None
    except Exception as e:
        raise KernelError(f"kernel failed: {type(e).__name__}: {e}", step.where) from e
    finally:
        _scope_stack.pop()
    for name in plan.scope_writes:
        scope.vars[name] = env[name]
    return env


def _with_scope_values(plan: Plan, env: dict, scope: Scope) -> dict:
    """env plus the persistable values the plan reads (a fed value wins over the scope's)."""
    values = scope.vars
    try:
        merged = {name: values[name] for name in plan.scope_reads}
    except KeyError as e:
        raise PyirError(f"persistable variable {e.args[0]!r} has no value: run the startup "
                        f"program or load parameters first", Where(var=e.args[0])) from None
    merged.update(env)
    return merged


def _where_fields(where: Where) -> dict:
    return {k: v for k, v in vars(where).items() if v is not None}


def _bind_feeds(program: Program, plan: Plan, feed: dict) -> dict:
    """The fed values by name, checked against the `data` variables they feed."""
    env = dict(feed)
    for name, value in feed.items():
        spec = plan.feed_specs.get(name)
        if spec is None:
            env[name] = _unchecked_feed(program, plan, name, value)
            continue
        dtype, shape = spec
        if type(value) is not np.ndarray:
            value = env[name] = np.asarray(value, dtype=dtype)
        if value.dtype is not dtype and value.dtype != dtype:
            raise FeedError(f"fed {value.dtype} data to input {name!r}, which is declared "
                            f"{dtypes.name_of(dtype)}; convert it with .astype('"
                            f"{dtypes.name_of(dtype)}')", Where(file=program.source, var=name))
        if len(shape) != value.ndim or any(d != -1 and d != v for d, v in zip(shape, value.shape)):
            raise FeedError(f"fed shape {list(value.shape)} to input {name!r}, which is declared "
                            f"{list(shape)} (-1 = any size)", Where(file=program.source, var=name))
    return env


def _unchecked_feed(program: Program, plan: Plan, name: str, value):
    """A value fed to a variable that is not a `data` input: converted, not checked."""
    var = program.global_block().vars.get(name)
    if var is None:
        inputs = ", ".join(plan.feed_targets or _data_names(program)) or "none"
        raise FeedError(f"fed {name!r}, which is not a variable of the program (its inputs: "
                        f"{inputs})", Where(file=program.source, var=name))
    return value if isinstance(value, np.ndarray) else np.asarray(value, dtype=var.dtype)


def _data_names(program: Program) -> list[str]:
    return [v.name for v in program.global_block().vars.values() if v.need_check_feed]


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
        plan = compile_plan(program, tuple(feed), fetch_names)
        env = _bind_feeds(program, plan, feed)
        env = run_plan(plan, env, scope or _global_scope)
        results = [env[name] for name in fetch_names]
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
