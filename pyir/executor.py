"""Run a Plan: its generated function reads feeds and the scope, runs the steps, fetches.

    Executor.run(program, feed, fetch_list, scope)
      +-- compile_plan (cached)       plan.py: steps, then one generated function
      +-- run_plan                    calls it; a failure comes back naming its step
"""

from __future__ import annotations

import contextlib

import numpy as np

from .device import CPUPlace
from .errors import PyirError
from .framework import Program, Variable, default_main_program
from .ops import tensor_array
from .plan import Plan, compile_plan


class Scope:
    """Persistable values (parameters, optimizer state) that live across runs.

    Paddle's scope API works on it: `scope.var(name).get_tensor().set(array, place)`,
    `np.array(scope.find_var(name).get_tensor())`, `new_scope()` for a child scope whose
    `find_var` falls back to its parent.
    """

    def __init__(self, parent: "Scope | None" = None):
        self.vars: dict[str, np.ndarray] = {}
        self.parent = parent
        self.kids: list[Scope] = []
        self._declared: set[str] = set()  # names made by var() and not yet set

    def find_var(self, name: str) -> "ScopeVar | None":
        """The handle of `name` here or in an ancestor scope; None when nobody has it."""
        scope = self
        while scope is not None:
            if name in scope.vars or name in scope._declared:
                return ScopeVar(scope, name)
            scope = scope.parent
        return None

    def find_local_var(self, name: str) -> "ScopeVar | None":
        return ScopeVar(self, name) if name in self.vars or name in self._declared else None

    def var(self, name: str) -> "ScopeVar":
        """The handle of `name` in this scope, declaring it (uninitialized) if new."""
        if name not in self.vars:
            self._declared.add(name)
        return ScopeVar(self, name)

    def new_scope(self) -> "Scope":
        kid = Scope(self)
        self.kids.append(kid)
        return kid

    def drop_kids(self) -> None:
        self.kids.clear()

    def erase(self, names) -> None:
        for name in names:
            self.vars.pop(name, None)
            self._declared.discard(name)

    def __contains__(self, name: str) -> bool:
        return name in self.vars

    def __getitem__(self, name: str) -> np.ndarray:
        return self.vars[name]

    def __setitem__(self, name: str, value) -> None:
        self.vars[name] = np.asarray(value)
        self._declared.discard(name)

    def local_var_names(self) -> list[str]:
        return list(self.vars) + sorted(self._declared - set(self.vars))


class ScopeVar:
    """Paddle-style handle of a scope variable: `.get_tensor()`, `.set(value, place)`."""

    def __init__(self, scope: Scope, name: str):
        self.scope, self.name = scope, name

    def get_tensor(self) -> "DenseTensor":
        return DenseTensor(self.scope, self.name)

    def is_initialized(self) -> bool:
        return self.name in self.scope.vars

    def set(self, value, place=None) -> None:
        self.scope[self.name] = value

    def set_int(self, value: int) -> None:
        """Hold a plain int (Paddle's `Variable.set_int`), kept as a 0-D int64 array."""
        self.scope[self.name] = np.array(int(value), dtype=np.int64)

    def set_float(self, value: float) -> None:
        """Hold a plain float (Paddle's `Variable.set_float`), kept as a 0-D float32 array."""
        self.scope[self.name] = np.array(float(value), dtype=np.float32)

    def get_int(self) -> int:
        return int(self.get_tensor()._value())

    def get_float(self) -> float:
        return float(self.get_tensor()._value())


class DenseTensor:
    """A live view of one scope variable, as Paddle's `core.DenseTensor` (alias LoDTensor):
    `np.array(t)` reads it, `t.set(array, place)` writes it, `t.shape()` is its shape.

    Example:
        >>> scope.var("w").get_tensor().set(np.ones([2, 2], "float32"), pyir.CPUPlace())
    """

    def __init__(self, scope: Scope | None = None, name: str | None = None):
        if scope is None:  # a free-standing tensor: `core.DenseTensor()`, then `.set(...)`
            scope, name = Scope(), "tensor"
        self._scope, self._name = scope, name

    def _value(self) -> np.ndarray:
        if self._name not in self._scope.vars:
            raise PyirError(f"tensor {self._name!r} is not initialized: run the startup program "
                            f"or call .set(array, place) first")
        return self._scope.vars[self._name]

    def __array__(self, dtype=None, copy=None):
        value = self._value()
        return value if dtype is None else value.astype(dtype)

    def numpy(self) -> np.ndarray:
        return np.array(self._value())

    def set(self, value, place=None) -> None:
        self._scope[self._name] = np.array(value)

    def shape(self) -> list[int]:
        return list(self._value().shape)

    def _dtype(self) -> np.dtype:
        return self._value().dtype

    def _is_initialized(self) -> bool:
        return self._name in self._scope.vars

    def _place(self):
        return CPUPlace()

    def lod(self) -> list:
        return []

    def recursive_sequence_lengths(self) -> list:
        return []

    def set_lod(self, lod) -> None:
        if lod and any(len(level) for level in lod):
            raise PyirError(f"tensor {self._name!r}: LoD is not supported by pyir (legacy "
                            f"Paddle sequences); pad to dense tensors instead")

    set_recursive_sequence_lengths = set_lod

    def __len__(self) -> int:
        return len(self._value())

    def __repr__(self) -> str:
        if not self._is_initialized():
            return f"DenseTensor({self._name}: not initialized)"
        return f"DenseTensor({self._name}: {self._value().dtype}{list(self._value().shape)})"


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
        # the per-run path is kept short: W1's whole run is ~17 us, this framing ~1 us
        program = default_main_program() if program is None else program
        if program.__class__ is not Program and not isinstance(program, Program):
            raise PyirError(f"Executor.run expects a Program, got {type(program).__name__}")
        if not feed:
            feed = {}
        fetch_names = tuple([f if f.__class__ is str else _name_of(f) for f in fetch_list]) \
            if fetch_list else ()
        plan = program.plan_cache.get((tuple(feed), fetch_names, 0))  # compile_plan's key
        if plan is None:
            plan = compile_plan(program, tuple(feed), fetch_names)
        results = plan.execute(feed, (scope or _global_scope).vars)
        if plan.fetched_arrays:  # a tensor array comes back as a list, as in Paddle
            for i in plan.fetched_arrays:
                results[i] = tensor_array.unbox(results[i]).to_list()
        return results if return_numpy else [r if isinstance(r, list) else _LoDTensorLike(r)
                                              for r in results]

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
