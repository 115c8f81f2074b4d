"""`emit`: the one way ops are built. It reads the op's registry entry to fill default
attributes, infer output variables, and append the op in Paddle's layout (slots and
attributes sorted by name, Paddle's common attributes added).
"""

from __future__ import annotations

import contextlib
from typing import Any

from . import registry
from .errors import BuildError, PyirError, Where
from .framework import Block, Variable, default_main_program, unique_name
from .registry import AttrType, InferContext, VarSpec

# Paddle's op roles: forward 0, backward 1, optimize 2, loss 256 (bit flags).
ROLE_FORWARD, ROLE_BACKWARD, ROLE_OPTIMIZE, ROLE_LOSS = 0, 1, 2, 256
_role = [ROLE_FORWARD]


@contextlib.contextmanager
def op_role(role: int):
    """Ops emitted inside get `op_role = role` (the backward pass and optimizers use this)."""
    _role.append(role)
    try:
        yield
    finally:
        _role.pop()


def as_list(value) -> list:
    """None -> [], a list/tuple -> a list, anything else -> [it]."""
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _spec(var: Variable) -> VarSpec | None:
    return None if var.dtype is None else VarSpec(var.shape, var.dtype)


def _check_attr(opdef, name: str, value, where: Where):
    spec = opdef.attr_spec(name)
    if spec is None and name not in registry.COMMON_ATTRS:
        known = ", ".join(a.name for a in opdef.attrs) or "none"
        raise BuildError(f"op {opdef.type} has no attribute {name!r} (its attributes: {known})",
                         where)
    if spec is not None and spec.default is registry.REQUIRED and value is registry.REQUIRED:
        raise BuildError(f"op {opdef.type} needs attribute {name!r}", where)


def emit(op_type: str, inputs: dict[str, Any] | None = None, attrs: dict[str, Any] | None = None,
         outputs: dict[str, Any] | None = None, *, block: Block | None = None,
         helper: str | None = None, out_dtype=None) -> dict[str, Any]:
    """Append op `op_type` to `block` (default: the current block of the main program).

    Args:
        inputs: slot -> Variable, list of Variables, or None.
        attrs: attribute values; missing declared attributes take their defaults.
        outputs: slot -> Variable(s) to write; slots left out get new variables named
            `<helper>.tmp_N`, with shape and dtype from the op's inference.
        helper: name stem of the new variables (default: `<op_type>_<N>`).
        out_dtype: overrides the inferred dtype of new output variables.

    Returns:
        slot -> Variable (or list of Variables for duplicable slots).
    """
    opdef = registry.get(op_type)
    block = block or default_main_program().current_block()
    where = Where(block=block.idx, op_type=op_type)
    in_vars = {s.name: as_list((inputs or {}).get(s.name)) for s in opdef.inputs}
    unknown = set(inputs or {}) - set(in_vars)
    if unknown:
        raise BuildError(f"op {op_type} has no input slot {sorted(unknown)[0]!r}", where)
    for s in opdef.inputs:
        if not in_vars[s.name] and not s.dispensable:
            raise BuildError(f"op {op_type} needs input {s.name!r}", where)
    attrs = dict(attrs or {})
    for name, value in attrs.items():
        _check_attr(opdef, name, value, where)
    full_attrs = registry.resolved_attrs(opdef, attrs)
    for name, value in full_attrs.items():
        _check_attr(opdef, name, value, where)

    out_vars = {s.name: as_list((outputs or {}).get(s.name)) for s in opdef.outputs}
    missing = [s for s in opdef.outputs if not out_vars[s.name] and not s.dispensable]
    if missing:
        if opdef.infer is None:
            raise BuildError(f"op {op_type} cannot infer its outputs; pass them explicitly", where)
        specs = {k: [_spec(v) for v in vs] if opdef.input_slot(k).duplicable
                 else (_spec(vs[0]) if vs else None) for k, vs in in_vars.items()}
        try:
            inferred = opdef.infer(InferContext(opdef, specs, full_attrs))
        except PyirError:
            raise
        except Exception as e:
            shapes = ", ".join(f"{k}={[list(v.shape) for v in vs]}" for k, vs in in_vars.items()
                               if vs and vs[0].shape is not None)
            raise BuildError(f"op {op_type} cannot be built on these inputs ({shapes}): {e}",
                             where) from e
        stem = helper or unique_name.generate(op_type)
        for s in missing:
            specs_out = inferred[s.name]
            for spec in specs_out if isinstance(specs_out, list) else [specs_out]:
                name = unique_name.generate_with_ignorable_key(f"{stem}.tmp")
                dtype = out_dtype if out_dtype is not None else spec.dtype
                out_vars[s.name].append(block.create_var(name, dtype, spec.shape))

    attr_values = {**full_attrs, **attrs}
    attr_values.setdefault("op_role", _role[-1])
    attr_values.setdefault("op_role_var", [])
    attr_values.setdefault("op_namescope", "/")
    attr_values.setdefault("op_device", "")
    attr_values = {k: v for k, v in attr_values.items() if v is not registry.REQUIRED}
    attr_types = {k: registry.attr_type_for(op_type, k, v) for k, v in attr_values.items()}
    block.append_op(
        op_type,
        inputs={k: [v.name for v in vs] for k, vs in sorted(in_vars.items()) if vs or
                not opdef.input_slot(k).dispensable},
        outputs={k: [v.name for v in vs] for k, vs in sorted(out_vars.items())},
        attrs=dict(sorted(attr_values.items())),
        attr_types=dict(sorted(attr_types.items())))
    return {s.name: out_vars[s.name] if s.duplicable else
            (out_vars[s.name][0] if out_vars[s.name] else None) for s in opdef.outputs}


__all__ = ["emit", "op_role", "AttrType"]
