"""Broadcasting, repetition, reordering and facts about a tensor: `pyir.expand`,
`pyir.tile`, `pyir.flip`, `pyir.roll`, `pyir.rot90`, `pyir.numel`, `pyir.shape`, `pyir.crop`,
... (part of Paddle's `paddle.tensor.manipulation`; exported through
`pyir/tensor/manipulation.py`)."""

from __future__ import annotations

import numbers

import numpy as np

from .. import dtypes
from ..dispatch import apply_op, ints, ndim, out
from ..eager import Tensor
from ..errors import BuildError, Where
from ..framework import Variable
from .manip_shape import TENSORS as _TENSORS
from .manip_shape import flatten, tensor_ints, transpose

__all__ = [
    "expand", "expand_as", "broadcast_to", "broadcast_tensors", "broadcast_shape",
    "broadcast_shapes", "tile", "flip", "reverse", "roll", "rot90", "repeat_interleave",
    "numel", "rank", "shape", "tolist", "crop", "shard_index",
]


def _where(fn: str) -> Where:
    return Where(op_type=fn)


# --- broadcasting and repetition ------------------------------------------------------------
def expand(x, shape, name: str | None = None):
    """x broadcast to `shape` (op `expand_v2`; -1 keeps a dim); tensors in shape become its
    Shape / expand_shapes_tensor inputs.

    Example:
        >>> y = pyir.expand(x, [4, 3])
    """
    attr, tensor, tensors = tensor_ints(shape, x, "expand_v2")
    return out("expand_v2", {"X": x, "Shape": tensor, "expand_shapes_tensor": tensors},
               {"shape": attr}, name=name, stem="expand")


def broadcast_to(x, shape, name: str | None = None):
    """expand(x, shape).

    Example:
        >>> y = pyir.broadcast_to(x, [4, 3])
    """
    return expand(x, shape, name=name)


def expand_as(x, y, name: str | None = None):
    """x broadcast to y's shape (op `expand_as_v2`).

    Example:
        >>> z = pyir.expand_as(x, y)
    """
    return out("expand_as_v2", {"X": x, "Y": y}, {"target_shape": list(y.shape)}, name=name,
               stem="expand_as")


def broadcast_tensors(input, name: str | None = None):  # noqa: A002
    """The tensors broadcast to their common shape (op `broadcast_tensors`).

    Example:
        >>> a2, b2 = pyir.broadcast_tensors([a, b])
    """
    if not isinstance(input, (list, tuple)) or not input:
        raise BuildError("broadcast_tensors: expects a non-empty list of tensors",
                         _where("broadcast_tensors"))
    return out("broadcast_tensors", {"X": list(input)}, name=name)


def broadcast_shape(x_shape, y_shape) -> list[int]:
    """The shape two shapes broadcast to (numpy's rule).

    Example:
        >>> pyir.broadcast_shape([2, 1, 3], [4, 1])   # [2, 4, 3]
    """
    return broadcast_shapes(x_shape, y_shape)


def broadcast_shapes(*shapes) -> list[int]:
    """The shape all given shapes broadcast to.

    Example:
        >>> pyir.broadcast_shapes([2, 1], [1, 3], [3])   # [2, 3]
    """
    try:
        return list(np.broadcast_shapes(*[tuple(ints(list(s), "shape", "broadcast_shape"))
                                          for s in shapes]))
    except ValueError as e:
        raise BuildError(f"broadcast_shape: {e}", _where("broadcast_shape")) from None


def tile(x, repeat_times, name: str | None = None):
    """x repeated `repeat_times` along each dim (op `tile`).

    Example:
        >>> y = pyir.tile(x, [2, 1])
    """
    attr, tensor, tensors = tensor_ints(repeat_times, x, "tile")
    return out("tile", {"X": x, "RepeatTimes": tensor, "repeat_times_tensor": tensors},
               {"repeat_times": attr}, name=name)


def repeat_interleave(x, repeats, axis: int | None = None, name: str | None = None, *,
                      output_size: int | None = None):
    """Each element (slice along `axis`) repeated `repeats` times (op `repeat_interleave`);
    with axis None x is flattened first.

    Example:
        >>> y = pyir.repeat_interleave(x, 2, axis=1)
    """
    if axis is None:
        x, axis = flatten(x), 0
    attrs = {"dim": int(axis), "output_size": -1 if output_size is None else int(output_size)}
    if isinstance(repeats, _TENSORS):
        return out("repeat_interleave", {"X": x, "RepeatsTensor": repeats}, attrs, name=name)
    if not isinstance(repeats, numbers.Integral) or repeats < 0:
        raise BuildError(f"repeat_interleave: repeats must be a non-negative int or a tensor, "
                         f"got {repeats!r}", _where("repeat_interleave"))
    return out("repeat_interleave", {"X": x}, {**attrs, "Repeats": int(repeats)}, name=name)


def flip(x, axis, name: str | None = None):
    """x reversed along `axis` (op `flip`).

    Example:
        >>> y = pyir.flip(x, [0, 1])
    """
    axes = ints(axis, "axis", "flip")
    n = ndim(x)
    if any(not -n <= a < max(n, 1) for a in axes):
        raise BuildError(f"flip: axis {axes} is out of range for a {n}-D x", _where("flip"))
    return out("flip", {"X": x}, {"axis": axes}, name=name)


reverse = flip


def roll(x, shifts, axis=None, name: str | None = None):
    """x shifted circularly by `shifts` along `axis` (flattened when None), op `roll`.

    Example:
        >>> y = pyir.roll(x, 1, axis=0)
    """
    axes = [] if axis is None else ints(axis, "axis", "roll")
    if isinstance(shifts, _TENSORS):
        return out("roll", {"X": x, "ShiftsTensor": shifts}, {"axis": axes}, name=name)
    shifts = ints(shifts, "shifts", "roll")
    if axes and len(axes) != len(shifts):
        raise BuildError(f"roll: {len(shifts)} shifts for {len(axes)} axes", _where("roll"))
    return out("roll", {"X": x}, {"shifts": shifts, "axis": axes}, name=name)


def rot90(x, k: int = 1, axes=(0, 1), name: str | None = None):
    """x rotated by 90 degrees k times in the plane `axes` (ops flip and transpose2).

    Example:
        >>> y = pyir.rot90(x, 1, [0, 1])
    """
    axes = ints(list(axes), "axes", "rot90")
    n = ndim(x)
    if len(axes) != 2 or n < 2 or axes[0] % n == axes[1] % n or \
            any(not -n <= a < n for a in axes):
        raise BuildError(f"rot90: axes must name two different dims of a {n}-D x, got {axes}",
                         _where("rot90"))
    k = int(k) % 4
    if k == 0:
        return x
    if k == 2:
        return flip(flip(x, axes[0]), axes[1])
    perm = list(range(n))
    perm[axes[0] % n], perm[axes[1] % n] = perm[axes[1] % n], perm[axes[0] % n]
    if k == 1:
        return transpose(flip(x, axes[1]), perm)
    return flip(transpose(x, perm), axes[1])


def numel(x, name: str | None = None):
    """The number of elements of x, as a 0-D int64 tensor (op `size`).

    Example:
        >>> n = pyir.numel(x)
    """
    return out("size", {"Input": x}, name=name, stem="numel")


def rank(input):  # noqa: A002
    """The number of dims of input, as a 0-D int32 tensor (op `assign_value`).

    Example:
        >>> r = pyir.rank(x)
    """
    attrs = {"shape": [], "dtype": dtypes.to_code(np.int32), "values": [ndim(input)]}
    return apply_op("assign_value", {}, attrs, like=input, stem="assign")["Out"]


def shape(input):  # noqa: A002
    """The shape of input as a 1-D int32 tensor (op `shape`).

    Example:
        >>> s = pyir.shape(x)
    """
    return out("shape", {"Input": input})


def tolist(x):
    """x's values as nested Python lists (eager tensors only).

    Example:
        >>> pyir.to_tensor([[1, 2]]).tolist()   # [[1, 2]]
    """
    if isinstance(x, Variable):
        raise BuildError("tolist needs an eager Tensor; a static Variable has no values until "
                         "the program runs", _where("tolist"))
    return np.asarray(x.numpy() if isinstance(x, Tensor) else x).tolist()


def crop(x, shape=None, offsets=None, name: str | None = None):
    """The block of x at `offsets` of size `shape` (op `crop_tensor`; -1 keeps the rest).

    Example:
        >>> y = pyir.crop(x, [2, 2], [1, 0])
    """
    shape = list(x.shape) if shape is None else shape
    inputs, attrs = {"X": x}, {}
    attr, tensor, tensors = tensor_ints(shape, x, "crop_tensor")
    inputs.update(Shape=tensor, ShapeTensor=tensors)
    attrs["shape"] = attr
    if offsets is None:
        attrs["offsets"] = [0] * ndim(x)
    else:
        attr, tensor, tensors = tensor_ints(offsets, x, "crop_tensor")
        inputs.update(Offsets=tensor, OffsetsTensor=tensors)
        attrs["offsets"] = attr
    return out("crop_tensor", inputs, attrs, name=name)


def shard_index(input, index_num: int, nshards: int, shard_id: int,  # noqa: A002
                ignore_value: int = -1):
    """Label ids re-based to shard `shard_id` of `nshards` (op `shard_index`); ids outside
    the shard become `ignore_value`.

    Example:
        >>> local = pyir.shard_index(label, 20, 2, 0)
    """
    if not 0 <= int(shard_id) < int(nshards):
        raise BuildError(f"shard_index: shard_id {shard_id} must be in [0, {nshards})",
                         _where("shard_index"))
    return out("shard_index", {"X": input}, {"index_num": int(index_num),
                                             "nshards": int(nshards),
                                             "shard_id": int(shard_id),
                                             "ignore_value": int(ignore_value)})
