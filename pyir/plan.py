"""Compile (program, feeds, fetches) into a Plan once; `executor.py` runs it.

    compile_plan(program, feed_names, fetch_names, block_idx)
      +-- check_program            verify against the registry (once per program version)
      +-- _select_ops              prune to ops that reach a fetch, write a persistable
      |                            variable or have side effects; feed/fetch ops bind names
      +-- _make_step (per op)      resolve kernel + attributes (+ `prepare` for runtime
      |                            values such as py_func callables or sub-block plans)
      +-- _release_lists           free each intermediate after its last use

A Step holds everything its op needs at run time: the bound kernel, the input names per
kernel parameter, the output names with their declared dtypes, and what to release after.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import registry
from .checker import check_program
from .errors import CheckError, KernelError, Where
from .framework import Program
from .registry import EMPTY_VAR


@dataclass(eq=False)
class Step:
    """One op, ready to run: `run(env)` reads its inputs from env and writes its outputs."""

    run: object                     # closure built by _bind_step; the hot path
    where: Where
    release: tuple = ()


def _bind_step(kernel, attrs: tuple, args: tuple, outs: tuple, where: Where):
    """Specialize the gather/call/store of one step into a closure (no per-run branching).

    attrs: the kernel's attribute (and runtime) values, passed positionally after the inputs.
    args: per kernel input slot, a name, a tuple of names (duplicable) or None (absent).
    outs: per output slot, (slot, name, dtype) or (slot, tuple of names, tuple of dtypes).
    """
    if all(isinstance(a, str) for a in args) and len(outs) == 1 and isinstance(outs[0][1], str):
        return _bind_simple(kernel, attrs, args, outs[0], where)
    if len(args) == 1 and isinstance(args[0], tuple) and len(outs) == 1 \
            and isinstance(outs[0][1], tuple):
        return _bind_list_to_list(kernel, attrs, args[0], outs[0], where)

    def run_general(env):
        ins = [None if a is None else [env.get(n) for n in a] if isinstance(a, tuple)
               else env[a] for a in args]
        results = kernel(*ins, *attrs)
        for slot, names, dtypes_ in outs:
            try:
                value = results[slot]
            except (KeyError, TypeError):
                raise KernelError(f"kernel did not return output slot {slot!r}", where) from None
            if isinstance(names, tuple):
                if len(value) != len(names):
                    raise KernelError(f"kernel returned {len(value)} values for output slot "
                                      f"{slot!r}, which has {len(names)} variables", where)
                for n, v, dt in zip(names, value, dtypes_):
                    env[n] = _checked(v, dt, n, where)
            else:
                env[names] = _checked(value, dtypes_, names, where)

    return run_general


def _bind_simple(kernel, attrs, args, out, where):
    """The common case: single-name inputs, one single-name output; arity 1 and 2 unrolled.

    The output check is inlined: an ndarray of the declared dtype (the usual result) costs
    two identity tests; anything else goes through `_checked`.
    """
    slot, name, dtype = out
    ndarray = np.ndarray

    if len(args) == 1:
        (a,) = args

        def run_unary(env):
            value = kernel(env[a], *attrs)[slot]
            if type(value) is not ndarray or value.dtype is not dtype:
                value = _checked(value, dtype, name, where)
            env[name] = value

        return run_unary
    if len(args) == 2:
        a, b = args

        def run_binary(env):
            value = kernel(env[a], env[b], *attrs)[slot]
            if type(value) is not ndarray or value.dtype is not dtype:
                value = _checked(value, dtype, name, where)
            env[name] = value

        return run_binary

    def run_simple(env):
        value = kernel(*[env[n] for n in args], *attrs)[slot]
        if type(value) is not ndarray or value.dtype is not dtype:
            value = _checked(value, dtype, name, where)
        env[name] = value

    return run_simple


def _bind_list_to_list(kernel, attrs, names_in, out, where):
    """One list slot in, one list slot out (py_func's layout): no per-slot dispatch."""
    slot, names_out, dtypes_ = out
    ndarray = np.ndarray

    def run_list(env):
        values = kernel([env.get(n) for n in names_in], *attrs)[slot]
        if len(values) != len(names_out):
            raise KernelError(f"kernel returned {len(values)} values for output slot {slot!r}, "
                              f"which has {len(names_out)} variables", where)
        for name, value, dtype in zip(names_out, values, dtypes_):
            if type(value) is not ndarray or value.dtype is not dtype:
                value = _checked(value, dtype, name, where)
            env[name] = value

    return run_list


def _checked(value, dtype, name, where):
    if type(value) is not np.ndarray:
        value = np.asarray(value)
    if dtype is not None and value.dtype is not dtype and value.dtype != dtype:
        raise KernelError(f"produced {value.dtype} for variable {name!r}, which is declared "
                          f"{dtype}", where.with_(var=name))
    return value


@dataclass(eq=False)
class Plan:
    steps: tuple
    feeds: tuple                     # names the caller must supply
    scope_reads: tuple               # persistable names read from the scope
    scope_writes: tuple              # persistable names the plan writes back
    fetches: tuple
    feed_targets: tuple = ()         # a saved program's inputs by `col` (feed ops)
    fetch_targets: tuple = ()        # a saved program's outputs by `col` (fetch ops)
    feed_specs: dict = field(default_factory=dict)  # name -> (dtype, shape) to check feeds


class PlanContext:
    """What an op's `prepare` hook may use: the program, and compiling of its sub-blocks."""

    def __init__(self, program: Program, where: Where):
        self.program = program
        self.where = where

    def compile_block(self, block_idx: int, feeds, fetches) -> Plan:
        return compile_plan(self.program, feeds, fetches, block_idx)


def compile_plan(program: Program, feed_names=(), fetch_names=(), block_idx: int = 0) -> Plan:
    """The cached plan computing `fetch_names` from `feed_names` in block `block_idx`."""
    key = (program.mutations, frozenset(feed_names), tuple(fetch_names), block_idx)
    plan = program.plan_cache.get(key)
    if plan is None:
        if program.plan_cache.get("checked") != program.mutations:
            check_program(program)
            program.plan_cache.clear()
            program.plan_cache["checked"] = program.mutations
        plan = _compile(program, tuple(feed_names), tuple(fetch_names), block_idx)
        program.plan_cache[key] = plan
    return plan


def io_targets(program: Program, kind: str) -> list[str]:
    """The names a saved program's feed (kind="feed") or fetch ops bind, in `col` order."""
    found = []
    for op in program.global_block().ops:
        opdef = registry.lookup(op.type)
        if opdef is not None and opdef.io == kind:
            name = op.output("Out")[0] if kind == "feed" else op.input("X")[0]
            found.append((op.attrs.get("col", 0), name))
    return [name for _, name in sorted(found)]


def _compile(program: Program, feeds: tuple, fetches: tuple, block_idx: int) -> Plan:
    block = program.blocks[block_idx]
    where0 = Where(file=program.source, block=block_idx)
    for name in fetches:
        if block.find_var(name) is None:
            raise CheckError(f"cannot fetch {name!r}: no such variable (variables: "
                             f"{_some(block.vars)})", where0.with_(var=name))
    ops = _select_ops(block, set(feeds), fetches)
    steps = []
    produced = set(feeds)
    reads_from_scope: dict[str, None] = {}
    writes: dict[str, None] = {}
    for index, op in ops:
        opdef = registry.lookup(op.type)
        for name in op.input_arg_names:
            var = block.find_var(name)
            if name not in produced and var is not None and var.persistable:
                reads_from_scope[name] = None
        for name in op.output_arg_names:
            var = block.find_var(name)
            if var is not None and var.persistable:
                writes[name] = None
        produced.update(op.output_arg_names)
        steps.append(_make_step(program, op, opdef, where0.with_(op_index=index,
                                                                 op_type=op.type)))
    for name in fetches:
        if name in produced:
            continue
        if block.find_var(name).persistable:
            reads_from_scope[name] = None  # fetching a parameter reads the scope
        else:
            raise CheckError(f"cannot fetch {name!r}: no op computes it and it is not fed "
                             f"(inputs: {', '.join(feeds) or 'none'})", where0.with_(var=name))
    keep = set(fetches) | set(writes) | set(reads_from_scope)
    _release_lists(steps, [op for _, op in ops], keep)
    feed_specs = {}
    for name in feeds:
        var = block.find_var(name)
        if var is not None and var.need_check_feed and var.dtype is not None:
            feed_specs[name] = (var.dtype, var.shape)
    needed_feeds = tuple(n for n in feeds)
    return Plan(tuple(steps), needed_feeds, tuple(reads_from_scope), tuple(writes), fetches,
                tuple(io_targets(program, "feed")), tuple(io_targets(program, "fetch")),
                feed_specs)


def _some(names, limit=12) -> str:
    names = list(names)
    shown = ", ".join(names[:limit])
    return shown + (f", ... ({len(names)} in all)" if len(names) > limit else "")


def _select_ops(block, fed: set, fetches: tuple) -> list:
    """(index, op) for each op the fetches need, plus updates and side effects, in order."""
    needed = set(fetches)
    kept = []
    for index in range(len(block.ops) - 1, -1, -1):
        op = block.ops[index]
        opdef = registry.lookup(op.type)
        if opdef.io is not None:
            continue
        outs = [n for n in op.output_arg_names if n != EMPTY_VAR]
        writes_state = any((v := block.find_var(n)) is not None and v.persistable for n in outs)
        side_effects = opdef.side_effects
        if callable(side_effects):
            side_effects = side_effects(op)
        if side_effects or writes_state or any(n in needed and n not in fed for n in outs):
            kept.append((index, op))
            needed.update(op.input_arg_names)
    kept.reverse()
    return kept


def _make_step(program: Program, op, opdef, where: Where) -> Step:
    attrs = {}
    for spec in opdef.attrs:
        value = op.attrs.get(spec.name, spec.default)
        if value is registry.REQUIRED:
            raise CheckError(f"op {op.type} needs attribute {spec.name!r}", where)
        attrs[spec.name] = value
    if opdef.prepare is not None:
        attrs.update(opdef.prepare(op, PlanContext(program, where)))
    args = []
    for slot in opdef.inputs:
        names = op.inputs.get(slot.name, [])
        if slot.duplicable:
            args.append(tuple(names))
        else:
            args.append(names[0] if names else None)
    outs = []
    block = op.block
    for slot in opdef.outputs:
        names = [n for n in op.outputs.get(slot.name, [])]
        if not names or all(n == EMPTY_VAR for n in names):
            continue
        dts = tuple(_declared_dtype(block, n) for n in names)
        if slot.duplicable:
            outs.append((slot.name, tuple(names), dts))
        else:
            outs.append((slot.name, names[0], dts[0]))
    missing = [name for name in opdef.runtime if name not in attrs]
    if missing:
        raise CheckError(f"op {op.type}: prepare() gave no value for runtime parameter "
                         f"{missing[0]!r}", where)
    values = tuple(attrs[a.name] for a in opdef.attrs) + tuple(attrs[n] for n in opdef.runtime)
    return Step(_bind_step(opdef.kernel, values, tuple(args), tuple(outs), where), where)


def _declared_dtype(block, name):
    var = block.find_var(name)
    return None if var is None else var.dtype


def _release_lists(steps: list, ops: list, keep: set) -> None:
    """Give each step the intermediates whose last use it is (JAX `last_used`, fx GC)."""
    last_use = {}
    for i, op in enumerate(ops):
        for name in op.input_arg_names + op.output_arg_names:
            last_use[name] = i
    per_step = [[] for _ in steps]
    for name, i in last_use.items():
        if name not in keep and name != EMPTY_VAR:
            per_step[i].append(name)
    for step, names in zip(steps, per_step):
        step.release = tuple(names)
