"""Tensor-array ops in Paddle's legacy layout (docs/tensor-array.md): `write_to_array`
(X, I -> Out), `read_from_array` (X, I, X_W -> Out), `lod_array_length` (X -> Out) and
`tensor_array_to_tensor` (X -> Out, OutIndex; attrs axis, use_stack) with its `_grad`.
Paddle's OpProtos of the four mark no attribute extra (saved models keep op_callstack).

A DENSE_TENSOR_ARRAY value is a `TensorArray`: an immutable tuple of ndarrays, None where an
index was skipped. It travels through a plan boxed in a 0-d object array (`box`), as step
scopes do, so the plan's "a value is an ndarray" guard holds; the plan declares array
variables without a dtype, so the guard does not check one.

Paddle's `write_to_array` has no input for the array it writes: it updates the array
variable in place. pyir's kernel is a pure function of the array's prior value instead,
which the plan hands it through the runtime parameter `prior_out` (plan.PRIOR_PARAM: the
value `Out` holds when the step runs, None before anything gave it one, which reads as an
empty array). Writes never change an array another step still holds, so the values a
`while` loop keeps per iteration stay as they were.

Gradients, as Paddle lays them out: `write_to_array`'s is a `read_from_array` of the
array's gradient (with `X_W` = the written tensor, whose zeros stand in for an entry the
gradient array lacks); `read_from_array`'s is a `write_to_array` into the array's gradient;
gradient arrays from several readers are summed by Paddle's `sum`, entry by entry
(`TensorArray.__add__`).
"""

from __future__ import annotations

import numpy as np

from ..errors import KernelError, Where
from ..registry import Attr, GradOp, Slot, VarSpec, register_op
from ..registry import AttrType as T
from ._helpers import grad_name


class TensorArray:
    """An immutable sequence of tensors (Paddle's LoDTensorArray); None marks a hole."""

    __slots__ = ("items",)

    def __init__(self, items=()):
        self.items = tuple(items)

    def __len__(self) -> int:
        return len(self.items)

    def written(self, index: int, value) -> "TensorArray":
        """This array with `value` at `index`; writing past the end grows it (with holes)."""
        items = list(self.items)
        if index >= len(items):
            items += [None] * (index + 1 - len(items))
        items[index] = value
        return TensorArray(items)

    def __add__(self, other: "TensorArray") -> "TensorArray":
        """Entry-wise sum (Paddle's `sum` of gradient arrays): a hole takes the other side."""
        if not isinstance(other, TensorArray):
            return NotImplemented
        n = max(len(self), len(other))
        a = self.items + (None,) * (n - len(self))
        b = other.items + (None,) * (n - len(other))
        return TensorArray(x if y is None else y if x is None else x + y for x, y in zip(a, b))

    def __eq__(self, other) -> bool:
        return isinstance(other, TensorArray) and len(self) == len(other) and all(
            (x is None) == (y is None) and (x is None or np.array_equal(x, y))
            for x, y in zip(self.items, other.items))

    __hash__ = None

    def __repr__(self) -> str:
        parts = ["hole" if x is None else f"{np.asarray(x).dtype}{list(np.shape(x))}"
                 for x in self.items]
        return f"TensorArray([{', '.join(parts)}])"

    def to_list(self) -> list:
        """The entries as a list of ndarrays (what Paddle's executor returns for a fetched
        array); a hole is refused."""
        for i, x in enumerate(self.items):
            if x is None:
                raise KernelError(f"entry {i} of the tensor array was never written")
        return [np.asarray(x) for x in self.items]


def box(array: TensorArray) -> np.ndarray:
    holder = np.empty((), dtype=object)
    holder[()] = array
    return holder


EMPTY = TensorArray()


def unbox(value, what: str = "the array") -> TensorArray:
    """The TensorArray a plan value holds (None, before any write, is the empty array); a
    Python list or tuple of tensors is taken as one too (a fed array)."""
    if value is None:
        return EMPTY
    if value.__class__ is np.ndarray and value.dtype == object and value.ndim == 0:
        item = value[()]
        if isinstance(item, TensorArray):
            return item
    if isinstance(value, TensorArray):
        return value
    if isinstance(value, (list, tuple)):
        return TensorArray(np.asarray(v) for v in value)
    raise KernelError(f"{what} must be a tensor array (DENSE_TENSOR_ARRAY), got "
                      f"{type(value).__name__} {getattr(value, 'shape', '')}".rstrip())


def _index(I, op_type: str) -> int:
    flat = np.asarray(I).reshape(-1)
    if flat.size != 1:
        raise KernelError(f"{op_type}: the index I must hold one value, got shape "
                          f"{list(np.shape(I))}", Where(op_type=op_type))
    index = int(flat[0])
    if index < 0:
        raise KernelError(f"{op_type}: the index I is {index}; an array index must be >= 0",
                          Where(op_type=op_type))
    return index


# --- write_to_array / read_from_array --------------------------------------------------------
@register_op(
    "write_to_array", no_extra_attrs=True,
    inputs=["X", Slot("I", no_grad=True)],
    outputs=["Out"],
    runtime=("prior_out",),
    grad=lambda op, opdef: [GradOp("read_from_array",
                                   {"X": [grad_name(op.output("Out")[0])], "I": op.input("I"),
                                    "X_W": op.input("X")},
                                   {"Out": [grad_name(op.input("X")[0])]})],
    doc="Out = Out with Out[I] = X (the array grows to I + 1 entries when shorter)",
)
def write_to_array(X, I, prior_out):
    array = unbox(prior_out, "the array write_to_array writes")
    if X is None:  # Paddle: an absent X leaves the array as it was
        return {"Out": box(array)}
    return {"Out": box(array.written(_index(I, "write_to_array"), X))}


def _infer_read(ctx):
    x = ctx.input("X")
    if x is None:
        return {}
    return {"Out": VarSpec(x.shape if x.shape is not None else (), x.dtype)}


@register_op(
    "read_from_array", no_extra_attrs=True,
    inputs=["X", Slot("I", no_grad=True), Slot("X_W", dispensable=True, no_grad=True)],
    outputs=["Out"],
    infer=_infer_read,
    grad=lambda op, opdef: [GradOp("write_to_array",
                                   {"X": [grad_name(op.output("Out")[0])], "I": op.input("I")},
                                   {"Out": [grad_name(op.input("X")[0])]})],
    doc="Out = X[I] (zeros like X_W where a gradient array has no entry I)",
)
def read_from_array(X, I, X_W):
    array = unbox(X, "the X of read_from_array")
    index = _index(I, "read_from_array")
    value = array.items[index] if index < len(array) else None
    if value is not None:
        return {"Out": value}
    if X_W is not None:  # a gradient array that no reader of this entry wrote into
        return {"Out": np.zeros_like(X_W)}
    state = "a hole (never written)" if index < len(array) else \
        f"past its end (length {len(array)})"
    raise KernelError(f"read_from_array reads entry {index} of a tensor array, which is {state}",
                      Where(op_type="read_from_array"))


# --- lod_array_length ------------------------------------------------------------------------
@register_op(
    "lod_array_length", no_extra_attrs=True,
    inputs=["X"],
    outputs=["Out"],
    infer=lambda ctx: {"Out": VarSpec((1,), np.dtype(np.int64))},
    doc="Out = [len(X)] (int64)",
)
def lod_array_length(X):
    return {"Out": np.array([len(unbox(X, "the X of lod_array_length"))], dtype=np.int64)}


# --- tensor_array_to_tensor ------------------------------------------------------------------
def _entries(X, op_type: str) -> list:
    array = unbox(X, f"the X of {op_type}")
    if not len(array):
        raise KernelError(f"{op_type}: the tensor array is empty", Where(op_type=op_type))
    holes = [i for i, x in enumerate(array.items) if x is None]
    if holes:
        raise KernelError(f"{op_type}: entry {holes[0]} of the tensor array was never written",
                          Where(op_type=op_type))
    return [np.asarray(x) for x in array.items]


def _infer_to_tensor(ctx):
    x = ctx.input("X")
    index = VarSpec((-1,), np.dtype(np.int32))
    if x is None or x.shape is None:
        return {"Out": VarSpec((-1,), None if x is None else x.dtype), "OutIndex": index}
    shape = list(x.shape)
    axis = ctx.attrs["axis"]
    if ctx.attrs["use_stack"]:
        axis = axis + len(shape) + 1 if axis < 0 else axis
        shape.insert(min(axis, len(shape)), -1)
    elif shape:
        shape[axis % len(shape)] = -1
    return {"Out": VarSpec(tuple(shape), x.dtype), "OutIndex": index}


def _to_tensor_grad_maker(op, opdef) -> list:
    return [GradOp("tensor_array_to_tensor_grad",
                   {"X": op.input("X"), "Out@GRAD": [grad_name(op.output("Out")[0])]},
                   {"X@GRAD": [grad_name(op.input("X")[0])]},
                   {"axis": op.attr("axis"), "use_stack": op.attr("use_stack")})]


@register_op(
    "tensor_array_to_tensor", no_extra_attrs=True,
    inputs=["X"],
    outputs=["Out", Slot("OutIndex")],
    attrs=[Attr("axis", T.INT, 0), Attr("use_stack", T.BOOLEAN, False)],
    infer=_infer_to_tensor,
    grad=_to_tensor_grad_maker,
    doc="Out = stack(X, axis) if use_stack else concat(X, axis); OutIndex = sizes along axis",
)
def tensor_array_to_tensor(X, axis, use_stack):
    items = _entries(X, "tensor_array_to_tensor")
    try:
        out = np.stack(items, axis=axis) if use_stack else np.concatenate(items, axis=axis)
    except ValueError as e:  # numpy's AxisError is one too
        shapes = ", ".join(str(list(x.shape)) for x in items)
        raise KernelError(f"tensor_array_to_tensor cannot {'stack' if use_stack else 'concat'} "
                          f"entries of shapes {shapes} along axis {axis}: {e}",
                          Where(op_type="tensor_array_to_tensor")) from None
    sizes = [x.shape[axis] if -x.ndim <= axis < x.ndim else 1 for x in items]
    return {"Out": out, "OutIndex": np.array(sizes, dtype=np.int32)}


@register_op(
    "tensor_array_to_tensor_grad",
    inputs=["X", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=[Attr("axis", T.INT, 0), Attr("use_stack", T.BOOLEAN, False)],
    grad_of="tensor_array_to_tensor",
    doc="X@GRAD[i] = the slice of Out@GRAD that X[i] became",
)
def tensor_array_to_tensor_grad(X, Out_grad, axis, use_stack):
    items = _entries(X, "tensor_array_to_tensor_grad")
    g = np.asarray(Out_grad)
    if use_stack:
        parts = [np.take(g, i, axis=axis) for i in range(len(items))]
    else:
        bounds = np.cumsum([x.shape[axis] for x in items])[:-1]
        parts = np.split(g, bounds, axis=axis)
    return {"X@GRAD": box(TensorArray(np.ascontiguousarray(p) for p in parts))}
