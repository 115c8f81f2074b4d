"""Shapes and layout: `pyir.reshape`, `pyir.concat`, `pyir.gather`, ... (Paddle's
`paddle.tensor.manipulation`)."""

from __future__ import annotations

import numbers
from typing import Sequence

from .. import dtypes
from ..dispatch import apply_op, dtype_of, ints, ndim, out, tensor_list
from ..errors import BuildError, Where
from ..framework import Variable

__all__ = [
    "reshape", "transpose", "concat", "split", "stack", "unsqueeze", "squeeze", "cast",
    "assign", "gather", "slice",
]

# Paddle names of this family pyir leaves out, with the reason (pyir/unsupported.py).
UNSUPPORTED: dict[str, str] = {}


def reshape(x, shape, name: str | None = None):
    """x with a new shape (op `reshape2`); 0 copies a dim of x, -1 is inferred.

    Example:
        >>> y = pyir.reshape(x, [-1, 12])
    """
    return out("reshape2", {"X": x}, {"shape": ints(shape, "shape", "reshape2")}, name=name)


def transpose(x, perm, name: str | None = None):
    """x with dims permuted (op `transpose2`).

    Example:
        >>> y = pyir.transpose(x, [1, 0])
    """
    perm = ints(perm, "perm", "transpose2")
    if sorted(perm) != list(range(ndim(x))):
        raise BuildError(f"perm {perm} is not a permutation of the {ndim(x)} dims of x",
                         Where(op_type="transpose2"))
    return out("transpose2", {"X": x}, {"axis": perm}, name=name, stem="transpose")


def concat(x: Sequence, axis: int = 0, name: str | None = None):
    """Join tensors along an existing axis (op `concat`).

    Example:
        >>> z = pyir.concat([x, y], axis=1)
    """
    return out("concat", {"X": tensor_list(x, "concat")}, {"axis": int(axis)}, name=name)


def split(x, num_or_sections, axis: int = 0, name: str | None = None) -> list:
    """Cut x along `axis` into equal parts or parts of given sizes (op `split`).

    Example:
        >>> a, b = pyir.split(x, 2, axis=1)
    """
    if isinstance(num_or_sections, numbers.Integral):
        dim = x.shape[axis]
        if dim > 0 and dim % int(num_or_sections):
            raise BuildError(f"cannot split axis {axis} of size {dim} into {num_or_sections} "
                             f"equal parts", Where(op_type="split"))
        attrs = {"axis": int(axis), "num": int(num_or_sections), "sections": []}
    else:
        attrs = {"axis": int(axis), "num": 0,
                 "sections": ints(num_or_sections, "num_or_sections", "split")}
    return out("split", {"X": x}, attrs, name=name)


def stack(x: Sequence, axis: int = 0, name: str | None = None):
    """Stack same-shaped tensors along a new axis (op `stack`).

    Example:
        >>> z = pyir.stack([x, y])
    """
    return out("stack", {"X": tensor_list(x, "stack")}, {"axis": int(axis)}, name=name,
               slot="Y")


def unsqueeze(x, axis, name: str | None = None):
    """x with size-1 dims inserted at `axis` (op `unsqueeze2`).

    Example:
        >>> y = pyir.unsqueeze(x, [0])
    """
    return out("unsqueeze2", {"X": x}, {"axes": ints(axis, "axis", "unsqueeze2")}, name=name)


def squeeze(x, axis=None, name: str | None = None):
    """x without size-1 dims at `axis` (all of them when None), op `squeeze2`."""
    axes = [] if axis is None else ints(axis, "axis", "squeeze2")
    return out("squeeze2", {"X": x}, {"axes": axes}, name=name, stem="squeeze")


def gather(x, index, axis: int | None = None, name: str | None = None):
    """Rows (or entries along `axis`) of x picked by `index` (op `gather`).

    Example:
        >>> rows = pyir.gather(x, idx)
    """
    return out("gather", {"X": x, "Index": index}, {"axis": int(axis or 0)}, name=name)


def slice(input, axes, starts, ends):  # noqa: A001,A002 - Paddle's names
    """input[starts:ends] on the given axes (op `slice`).

    Example:
        >>> y = pyir.slice(x, axes=[1], starts=[0], ends=[2])
    """
    axes = ints(axes, "axes", "slice")
    starts, ends = ints(starts, "starts", "slice"), ints(ends, "ends", "slice")
    if not len(axes) == len(starts) == len(ends):
        raise BuildError(f"axes, starts and ends need the same length, got {len(axes)}, "
                         f"{len(starts)}, {len(ends)}", Where(op_type="slice"))
    return out("slice", {"Input": input}, {"axes": axes, "starts": starts, "ends": ends,
                                           "infer_flags": [1] * len(axes),
                                           "decrease_axis": []})


def cast(x, dtype):
    """x converted to `dtype` (op `cast`; float -> int truncates toward zero).

    Example:
        >>> y = pyir.cast(x, "float64")
    """
    return out("cast", {"X": x}, {"in_dtype": dtypes.to_code(dtype_of(x)),
                                  "out_dtype": dtypes.to_code(dtypes.to_numpy(dtype))})


def assign(x, output=None):
    """A copy of x (op `assign`), written into `output` when given.

    Example:
        >>> y = pyir.assign(x)
    """
    if isinstance(output, Variable):
        return apply_op("assign", {"X": x}, outputs={"Out": output})["Out"]
    return out("assign", {"X": x})
