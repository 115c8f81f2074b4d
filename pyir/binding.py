"""Binding an op to its kernel: the one path from (op type, slots, attributes) to a call.

Every place that turns an op into something, builds it (`builder.emit`), plans it
(`plan._make_step`), runs it eagerly (`eager.run_op`, the tape's grad ops), appends it as a
gradient (`backward`) or checks it (`checker`), asks this module, so the rules below are
written once (docs/architecture.md, "The op contract"):

- input slots: each declared slot gets a list; unknown slots are refused, non-dispensable
  slots must be given, a non-duplicable slot takes one value; `@EMPTY@` means "absent";
- kernel arguments: a duplicable slot is a list (tuple), any other its one value or None;
- attributes: declared ones in declaration order with their defaults; a REQUIRED one must be
  given; Paddle's common attributes (`op_role`, ...) never reach a kernel;
- written ops: declared defaults, then the given values, then the common attributes Paddle
  puts on every op, sorted by name, each with its wire type.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, Mapping

from . import registry
from .errors import PyirError, Where
from .registry import EMPTY_VAR, InferContext, OpDef


def slot_problems(opdef: OpDef, inputs: Mapping[str, list],
                  outputs: Mapping[str, list] | None = None) -> Iterator[str]:
    """What is wrong with the op's slots (names or values per slot): unknown slots, a second
    value in a non-duplicable slot, a missing non-dispensable input."""
    for kind, given, declared in (("input", inputs, opdef.inputs),
                                  ("output", outputs or {}, opdef.outputs)):
        known = opdef.input_index if kind == "input" else opdef.output_index
        for slot, items in given.items():
            spec = known.get(slot)
            if spec is None:
                yield (f"op {opdef.type} has no {kind} slot {slot!r} (its {kind}s: "
                       f"{', '.join(known) or 'none'})")
            elif len(items) > 1 and not spec.duplicable and len(_present(items)) > 1:
                yield (f"{kind} slot {slot!r} of op {opdef.type} takes one variable, got "
                       f"{len(_present(items))}")
    for s in opdef.inputs:
        if not s.dispensable:
            items = inputs.get(s.name)
            if not items or not _present(items):
                yield f"op {opdef.type} needs input slot {s.name!r}"


def _present(items) -> list:
    return [v for v in items if v.__class__ is not str or v != EMPTY_VAR]


def slot_values(opdef: OpDef, given: Mapping[str, Any] | None, where: Where | None,
                error: type[PyirError] = PyirError) -> dict[str, list]:
    """slot -> list of values for every declared input slot (a value, a list or tuple of
    them, or None); refuses what `slot_problems` finds."""
    given = given or {}
    values = {}
    suspect = False
    for s in opdef.inputs:
        items = _as_list(given.get(s.name))
        values[s.name] = items
        if (not items and not s.dispensable) or (len(items) > 1 and not s.duplicable):
            suspect = True
    if suspect or len(given) > len(values) or not given.keys() <= values.keys():  # find the problem and say it (rare: the fast path above checks cheaply)
        lists = {k: _as_list(v) for k, v in given.items()}
        for problem in slot_problems(opdef, lists):
            raise error(problem, where)
    return values


def _as_list(value) -> list:
    if value is None:
        return []
    return list(value) if value.__class__ in (list, tuple) else [value]


def kernel_args(opdef: OpDef, values: Mapping[str, list], pack=list) -> list:
    """One kernel argument per input slot: `pack(items)` for a duplicable slot, else the one
    item or None. Items equal to `@EMPTY@` are absent."""
    args = []
    for slot in opdef.inputs:
        items = values.get(slot.name, ())
        if items and items[0].__class__ is str:  # variable names: "@EMPTY@" is no variable
            items = _present(items)
        args.append(pack(items) if slot.duplicable else (items[0] if items else None))
    return args


def check_attr_names(opdef: OpDef, attrs: Mapping[str, Any], where: Where | None,
                     error: type[PyirError] = PyirError) -> None:
    """Refuse an attribute the op does not declare (Paddle's common ones are always allowed)."""
    for name in attrs:
        if opdef.attr_spec(name) is None and name not in registry.COMMON_ATTRS:
            known = ", ".join(a.name for a in opdef.attrs) or "none"
            raise error(f"op {opdef.type} has no attribute {name!r} (its attributes: {known})",
                        where)


def kernel_attrs(opdef: OpDef, attrs: Mapping[str, Any], where: Where | None,
                 error: type[PyirError] = PyirError) -> dict[str, Any]:
    """The declared attributes in kernel order, defaults filled; a missing REQUIRED one is
    refused. Attributes the op does not declare are ignored (files and grad makers carry
    more than kernels read)."""
    for problem in required_attr_problems(opdef, attrs):
        raise error(problem, where)
    return {spec.name: attrs.get(spec.name, spec.default) for spec in opdef.attrs}


def required_attr_problems(opdef: OpDef, attrs: Mapping[str, Any]) -> Iterator[str]:
    """A message for each REQUIRED attribute `attrs` lacks."""
    for spec in opdef.attrs:
        if spec.default is registry.REQUIRED and attrs.get(spec.name,
                                                           registry.REQUIRED) is registry.REQUIRED:
            yield f"op {opdef.type} needs attribute {spec.name!r}"


def infer_outputs(opdef: OpDef, in_specs: Mapping[str, Any], attrs: Mapping[str, Any],
                  where: Where | None, error: type[PyirError] = PyirError) -> dict:
    """The op's inference on input VarSpecs (a list for duplicable slots); a failure names
    the op and the input shapes."""
    if opdef.infer is None:
        raise error(f"op {opdef.type} cannot infer its outputs; pass them explicitly", where)
    try:
        return opdef.infer(InferContext(opdef, dict(in_specs), dict(attrs)))
    except PyirError:
        raise
    except Exception as e:
        shapes = ", ".join(
            f"{k}={[list(s.shape) for s in v] if isinstance(v, list) else list(v.shape)}"
            for k, v in in_specs.items() if v is not None and v != [])
        raise error(f"op {opdef.type} cannot be built on these inputs ({shapes}): {e}",
                    where) from e


def written_attrs(opdef: OpDef, attrs: Mapping[str, Any], *, role: int, namescope: str = "/",
                  device: str = "", wire_type: Callable | None = None
                  ) -> tuple[dict[str, Any], dict[str, int]]:
    """The attributes of an op as a program holds it, and their wire types: declared defaults
    (REQUIRED ones left out), the given values over them, and the common attributes every
    Paddle op carries (`op_role`, `op_role_var`, `op_namescope`, `op_device`), sorted by name.

    `wire_type(name, value)` may pick a type for an attribute the op does not declare (the
    backward pass keeps the forward op's); by default the registry's rule decides.
    """
    values = {k: v for k, v in registry.resolved_attrs(opdef, attrs).items()
              if v is not registry.REQUIRED}
    values.update((k, v) for k, v in attrs.items() if v is not registry.REQUIRED)
    values.setdefault("op_role", role)
    values.setdefault("op_role_var", [])
    values.setdefault("op_namescope", namescope)
    values.setdefault("op_device", device)
    values = dict(sorted(values.items()))
    types = {}
    for name, value in values.items():
        chosen = wire_type(name, value) if wire_type is not None else None
        types[name] = chosen if chosen is not None else \
            registry.attr_type_for(opdef.type, name, value)
    return values, types
