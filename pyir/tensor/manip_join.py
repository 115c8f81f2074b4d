"""Joining, splitting and slicing: `pyir.concat`, `pyir.stack`, `pyir.split`, `pyir.chunk`,
`pyir.unbind`, `pyir.slice`, `pyir.strided_slice`, `pyir.narrow`, `pyir.unfold`, ... (part of
Paddle's `paddle.tensor.manipulation`; exported through `pyir/tensor/manipulation.py`)."""

from __future__ import annotations

import numbers
from typing import Sequence

import numpy as np

from ..dispatch import ints, ndim, out, tensor_list
from ..eager import Tensor
from ..errors import BuildError, Where
from ..framework import Variable
from .manip_shape import assign, atleast_1d, atleast_2d, atleast_3d, reshape, tensor_ints, transpose

__all__ = [
    "concat", "cat", "concatenate", "stack", "hstack", "vstack", "dstack", "column_stack",
    "row_stack", "split", "chunk", "tensor_split", "hsplit", "vsplit", "dsplit", "unbind",
    "unstack", "slice", "strided_slice", "narrow", "unfold",
]

_TENSORS = (Variable, Tensor)


def _axis(x, axis, fn: str) -> int:
    """A Python int axis of x, checked and made non-negative."""
    n = ndim(x)
    if not isinstance(axis, numbers.Integral) or not -n <= axis < max(n, 1):
        raise BuildError(f"{fn}: axis {axis!r} is out of range for a {n}-D tensor",
                         Where(op_type=fn))
    return int(axis) % max(n, 1)


# --- joining --------------------------------------------------------------------------------
def concat(x: Sequence, axis=0, name: str | None = None):
    """Join tensors along an existing axis (op `concat`; a tensor axis is its AxisTensor).

    Example:
        >>> z = pyir.concat([x, y], axis=1)
    """
    items = tensor_list(x, "concat")
    if isinstance(axis, _TENSORS):
        return out("concat", {"X": items, "AxisTensor": axis}, {"axis": 0}, name=name)
    ranks = {ndim(t) for t in items}
    if len(ranks) != 1:
        raise BuildError(f"concat: the tensors need the same number of dims, got {sorted(ranks)}",
                         Where(op_type="concat"))
    return out("concat", {"X": items}, {"axis": int(axis)}, name=name)


cat = concatenate = concat


def stack(x: Sequence, axis: int = 0, name: str | None = None):
    """Stack same-shaped tensors along a new axis (op `stack`).

    Example:
        >>> z = pyir.stack([x, y])
    """
    return out("stack", {"X": tensor_list(x, "stack")}, {"axis": int(axis)}, name=name,
               slot="Y")


def _stacked(x, axis: int, rank: int, fn: str):
    lift = {1: atleast_1d, 2: atleast_2d, 3: atleast_3d}[rank]
    items = [lift(t) for t in tensor_list(x, fn)]
    return concat(items, axis=axis)


def hstack(x: Sequence, name: str | None = None):
    """Join along dim 1 (dim 0 for 1-D tensors), op `concat`.

    Example:
        >>> z = pyir.hstack([x, y])
    """
    items = tensor_list(x, "hstack")
    return _stacked(items, 0 if all(ndim(t) <= 1 for t in items) else 1, 1, "hstack")


def vstack(x: Sequence, name: str | None = None):
    """Join along dim 0, 1-D tensors taken as rows (op `concat`).

    Example:
        >>> z = pyir.vstack([x, y])
    """
    return _stacked(x, 0, 2, "vstack")


row_stack = vstack


def dstack(x: Sequence, name: str | None = None):
    """Join along dim 2, tensors lifted to 3-D first (op `concat`).

    Example:
        >>> z = pyir.dstack([x, y])
    """
    return _stacked(x, 2, 3, "dstack")


def column_stack(x: Sequence, name: str | None = None):
    """Join as columns: 1-D tensors become [n, 1], then concat along dim 1.

    Example:
        >>> z = pyir.column_stack([a, b])
    """
    items = [reshape(t, [-1, 1]) if ndim(t) < 2 else t for t in tensor_list(x, "column_stack")]
    return concat(items, axis=1)


# --- splitting ------------------------------------------------------------------------------
def split(x, num_or_sections, axis=0, name: str | None = None) -> list:
    """Cut x along `axis` into equal parts or parts of given sizes (op `split`; one section
    may be -1: the rest).

    Example:
        >>> a, b = pyir.split(x, [1, -1], axis=1)
    """
    if isinstance(axis, _TENSORS):
        raise BuildError("split: a tensor axis is not supported; pass an int",
                         Where(op_type="split"))
    axis = _axis(x, axis, "split")
    dim = x.shape[axis]
    if isinstance(num_or_sections, numbers.Integral):
        num = int(num_or_sections)
        if num <= 0 or (dim > 0 and dim % num):
            raise BuildError(f"cannot split axis {axis} of size {dim} into {num} equal parts",
                             Where(op_type="split"))
        return out("split", {"X": x}, {"axis": axis, "num": num, "sections": []}, name=name)
    sections = ints(list(num_or_sections), "num_or_sections", "split")
    if sections.count(-1) > 1 or any(s < -1 for s in sections):
        raise BuildError(f"split: sections {sections} may hold at most one -1 and no other "
                         f"negative size", Where(op_type="split"))
    if dim >= 0 and -1 not in sections and sum(sections) != dim:
        raise BuildError(f"split: sections {sections} do not add up to axis {axis}'s size "
                         f"{dim}", Where(op_type="split"))
    return out("split", {"X": x}, {"axis": axis, "num": 0, "sections": sections}, name=name)


def chunk(x, chunks: int, axis=0, name: str | None = None) -> list:
    """split(x, chunks, axis): `chunks` equal parts.

    Example:
        >>> a, b = pyir.chunk(x, 2, axis=1)
    """
    return split(x, int(chunks), axis, name=name)


def tensor_split(x, num_or_indices, axis=0, name: str | None = None) -> list:
    """numpy's array_split: `n` nearly equal parts (op `split`), or parts cut at the given
    indices (ops `slice`).

    Example:
        >>> parts = pyir.tensor_split(x, 3, axis=1)
    """
    axis = _axis(x, axis, "tensor_split")
    dim = x.shape[axis]
    if isinstance(num_or_indices, numbers.Integral):
        n = int(num_or_indices)
        if n <= 0 or dim < 0:
            raise BuildError(f"tensor_split: need a positive number of parts and a known dim, "
                             f"got {n} parts of a dim of size {dim}",
                             Where(op_type="tensor_split"))
        sizes = [dim // n + 1] * (dim % n) + [dim // n] * (n - dim % n)
        return out("split", {"X": x}, {"axis": axis, "num": 0, "sections": sizes}, name=name)
    cuts = ints(list(num_or_indices), "num_or_indices", "tensor_split")
    bounds = [0] + cuts + [dim]
    return [slice(x, [axis], [start], [max(start, end) if end >= 0 else end])
            for start, end in zip(bounds, bounds[1:])]


def hsplit(x, num_or_indices, name: str | None = None) -> list:
    """tensor_split along dim 1 (dim 0 for a 1-D x).

    Example:
        >>> a, b = pyir.hsplit(x, 2)
    """
    return tensor_split(x, num_or_indices, 0 if ndim(x) == 1 else 1, name=name)


def vsplit(x, num_or_indices, name: str | None = None) -> list:
    """tensor_split along dim 0 (x at least 2-D).

    Example:
        >>> a, b = pyir.vsplit(x, 2)
    """
    if ndim(x) < 2:
        raise BuildError("vsplit needs a tensor of at least 2 dims", Where(op_type="vsplit"))
    return tensor_split(x, num_or_indices, 0, name=name)


def dsplit(x, num_or_indices, name: str | None = None) -> list:
    """tensor_split along dim 2 (x at least 3-D).

    Example:
        >>> a, b = pyir.dsplit(x, 2)
    """
    if ndim(x) < 3:
        raise BuildError("dsplit needs a tensor of at least 3 dims", Where(op_type="dsplit"))
    return tensor_split(x, num_or_indices, 2, name=name)


def unbind(input, axis: int = 0) -> list:  # noqa: A002
    """The slices of input along `axis`, that dim removed (op `unbind`).

    Example:
        >>> rows = pyir.unbind(x, 0)
    """
    return out("unbind", {"X": input}, {"axis": _axis(input, axis, "unbind")})


def unstack(x, axis: int = 0, num: int | None = None) -> list:
    """The slices of x along `axis`, that dim removed (op `unstack`).

    Example:
        >>> rows = pyir.unstack(x)
    """
    axis_ = _axis(x, axis, "unstack")
    count = x.shape[axis_] if num is None else int(num)
    return out("unstack", {"X": x}, {"axis": int(axis), "num": count}, slot="Y")


# --- slicing --------------------------------------------------------------------------------
def _bound_inputs(values, like, fn: str, prefix: str):
    """(attribute, {Tensor slot: value}) for starts / ends / strides that may be tensors."""
    attr, tensor, tensors = tensor_ints(values, like, fn)
    return attr, {f"{prefix}Tensor": tensor, f"{prefix}TensorList": tensors}


def slice(input, axes, starts, ends):  # noqa: A001,A002 - Paddle's names
    """input[starts:ends] on the given axes (op `slice`); starts/ends may be tensors.

    Example:
        >>> y = pyir.slice(x, axes=[1], starts=[0], ends=[2])
    """
    axes = ints(axes, "axes", "slice")
    s_attr, s_inputs = _bound_inputs(starts, input, "slice", "Starts")
    e_attr, e_inputs = _bound_inputs(ends, input, "slice", "Ends")
    for attr, given in ((s_attr, starts), (e_attr, ends)):
        if not isinstance(given, _TENSORS) and len(attr) != len(axes):
            raise BuildError(f"axes, starts and ends need the same length, got {len(axes)}, "
                             f"{len(s_attr)}, {len(e_attr)}", Where(op_type="slice"))
    n = ndim(input)
    if any(not -n <= a < n for a in axes):
        raise BuildError(f"slice: axes {axes} out of range for a {n}-D input",
                         Where(op_type="slice"))
    flags = [1] * len(axes)
    for given in (starts, ends):
        if isinstance(given, _TENSORS):
            flags = [-1] * len(axes)
        else:
            flags = [-1 if isinstance(v, _TENSORS) else f for v, f in zip(given, flags)]
    attrs = {"axes": axes, "infer_flags": flags, "decrease_axis": []}
    if s_attr:
        attrs["starts"] = s_attr
    if e_attr:
        attrs["ends"] = e_attr
    return out("slice", {"Input": input, **s_inputs, **e_inputs}, attrs)


def strided_slice(x, axes, starts, ends, strides, name: str | None = None):
    """x[starts:ends:strides] on the given axes (op `strided_slice`).

    Example:
        >>> y = pyir.strided_slice(x, [0, 1], [0, 3], [2, 0], [1, -1])
    """
    axes = ints(axes, "axes", "strided_slice")
    attrs, inputs = {"axes": axes}, {"Input": x}
    for key, values in (("starts", starts), ("ends", ends), ("strides", strides)):
        attr, slots = _bound_inputs(values, x, "strided_slice", key.capitalize())
        if not isinstance(values, _TENSORS) and len(attr) != len(axes):
            raise BuildError(f"strided_slice: {key} has {len(attr)} entries for {len(axes)} "
                             f"axes", Where(op_type="strided_slice"))
        if key == "strides" and 0 in attr:
            raise BuildError("strided_slice: a stride cannot be 0",
                             Where(op_type="strided_slice"))
        attrs[key] = attr or [1] * len(axes)
        inputs.update(slots)
    attrs.update(infer_flags=[1] * len(axes), decrease_axis=[])
    return out("strided_slice", inputs, attrs, name=name)


def narrow(input, dim: int, start, length: int):  # noqa: A002
    """`length` entries of input along `dim` from `start` (op `slice`).

    Example:
        >>> y = pyir.narrow(x, 1, 1, 2)
    """
    dim = _axis(input, dim, "narrow")
    size = input.shape[dim]
    if isinstance(start, numbers.Integral):
        begin = int(start) + size if start < 0 else int(start)
        if length < 0 or begin < 0 or (size >= 0 and begin + length > size):
            raise BuildError(f"narrow: start {start} and length {length} leave dim {dim} of "
                             f"size {size}", Where(op_type="narrow"))
        return slice(input, [dim], [begin], [begin + int(length)])
    return slice(input, [dim], [start], [start + int(length)])


def unfold(x, axis: int, size: int, step: int, name: str | None = None):
    """The windows of `size` entries along `axis`, every `step`, as a new last dim (ops
    `gather` and `transpose2`; Paddle itself has unfold in dynamic mode only).

    Example:
        >>> windows = pyir.unfold(x, 0, 2, 1)
    """
    axis = _axis(x, axis, "unfold") if ndim(x) else 0
    dim = x.shape[axis] if ndim(x) else 1
    if size <= 0 or step <= 0 or dim < 0 or size > dim:
        raise BuildError(f"unfold: need 0 < size <= dim ({dim}) and step > 0, got size {size}, "
                         f"step {step}", Where(op_type="unfold"))
    count = (dim - size) // step + 1
    index = (np.arange(count)[:, None] * step + np.arange(size)[None, :]).astype(np.int64)
    picked = out("gather", {"X": x, "Index": assign(index.reshape(-1))}, {"axis": axis},
                 name=name)
    shape = [d if d >= 0 else 0 for d in x.shape]
    shape[axis:axis + 1] = [count, size]
    windows = reshape(picked, shape)
    n = len(shape)
    perm = [a for a in range(n) if a != axis + 1] + [axis + 1]
    return transpose(windows, perm)
