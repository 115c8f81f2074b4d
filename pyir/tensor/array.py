"""Tensor arrays (Paddle's `paddle.tensor.array`): `create_array`, `array_write`,
`array_read`, `array_length`, and `tensor_array_to_tensor` (Paddle's
`paddle.tensor.manipulation.tensor_array_to_tensor`).

Static mode: an array is a Variable of type DENSE_TENSOR_ARRAY (Paddle's LOD_TENSOR_ARRAY)
written and read by the ops of pyir/ops/tensor_array.py; inside a `while_loop` body a write
to an array of the enclosing block makes the array a loop variable of the `while` op, as in
Paddle. Eager mode: an array is a Python list of Tensors, as in Paddle's dygraph, so
gradients flow through the tensors themselves.

Example:
    >>> arr = pyir.tensor.create_array("float32")
    >>> i = pyir.zeros([1], "int64")
    >>> arr = pyir.tensor.array_write(x, i, array=arr)
    >>> y = pyir.tensor.array_read(arr, i)
"""

from __future__ import annotations

import numpy as np

from .. import dtypes, framework
from ..dispatch import apply_op
from ..dispatch import out as _out
from ..eager import Tensor, to_tensor
from ..errors import BuildError, Where
from ..framework import DENSE_TENSOR_ARRAY, Variable, default_main_program, unique_name
from .manipulation import concat, stack

__all__ = ["create_array", "array_write", "array_read", "array_length",
           "tensor_array_to_tensor"]
UNSUPPORTED: dict[str, str] = {}


def _is_array(value) -> bool:
    return isinstance(value, Variable) and value.type == DENSE_TENSOR_ARRAY


def _need_array(array, fn: str) -> None:
    if not _is_array(array):
        raise BuildError(f"{fn}: array must be a tensor array (a DENSE_TENSOR_ARRAY Variable "
                         f"from create_array) in a static program, got "
                         f"{_describe(array)}", Where(op_type=fn))


def _describe(value) -> str:
    if isinstance(value, Variable):
        return f"Variable {value.name!r} of type {value.type}"
    return type(value).__name__


def _need_index(i, fn: str) -> None:
    if not isinstance(i, Variable) or i.dtype != np.int64:
        raise BuildError(f"{fn}: the index i must be an int64 Variable in a static program, "
                         f"got {_describe(i)}"
                         + (f" of dtype {dtypes.name_of(i.dtype)}" if isinstance(i, Variable)
                            else ""), Where(op_type=fn))


def _eager_index(i, fn: str) -> int:
    """Paddle's dygraph takes the index as a Tensor of shape [1] (an int is taken too)."""
    if isinstance(i, Tensor):
        if i.size != 1:
            raise BuildError(f"{fn}: the index i must hold one value, got shape "
                             f"{list(i.shape)}", Where(op_type=fn))
        value = i.numpy().reshape(-1)[0]
    else:
        value = i
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
        raise BuildError(f"{fn}: the index i must be an integer Tensor, got "
                         f"{type(value).__name__}", Where(op_type=fn))
    if value < 0:
        raise BuildError(f"{fn}: the index i is {int(value)}; it must be >= 0",
                         Where(op_type=fn))
    return int(value)


def _new_array_var(stem: str, dtype):
    block = default_main_program().current_block()
    name = f"{unique_name.generate(stem)}.out"
    return block.create_var(name, dtype, None, type=DENSE_TENSOR_ARRAY)


def create_array(dtype, initialized_list=None):
    """An empty tensor array of `dtype` (or one holding `initialized_list`, in order).

    Static: a DENSE_TENSOR_ARRAY Variable `array_N.out`; eager: a Python list.
    """
    items = [] if initialized_list is None else initialized_list
    if not isinstance(items, (list, tuple)):
        raise BuildError(f"create_array: initialized_list must be a list or tuple, got "
                         f"{type(items).__name__}", Where(op_type="create_array"))
    items = list(items)
    for value in items:
        if not isinstance(value, (Variable, Tensor)):
            raise BuildError(f"create_array: every value in initialized_list must be a "
                             f"Tensor, got {type(value).__name__}", Where(op_type="create_array"))
    static = any(isinstance(v, Variable) for v in items) if items else \
        framework.static_mode[0]
    if not static:
        if any(isinstance(v, Variable) for v in items):
            raise BuildError("create_array: eager mode takes Tensors, not Variables",
                             Where(op_type="create_array"))
        return items
    array = _new_array_var("array", dtypes.to_numpy(dtype))
    for value in items:
        array_write(value, array_length(array), array)
    return array


def array_write(x, i, array=None):
    """Write `x` at index `i` of `array` (a new array when None) and return the array.

    Eager: `i` may be at most len(array) (writing at len appends).
    """
    if isinstance(x, Variable):
        _need_index(i, "array_write")
        if array is None:
            array = _new_array_var("array_write", x.dtype)
        _need_array(array, "array_write")
        apply_op("write_to_array", {"X": x, "I": i}, outputs={"Out": array})
        if array.dtype is None:
            array.dtype = x.dtype
        array.shape = x.shape  # Paddle's infer-shape gives the array its last write's dims
        return array
    if not isinstance(x, Tensor):
        raise BuildError(f"array_write: x must be a Tensor, got {type(x).__name__}",
                         Where(op_type="array_write"))
    index = _eager_index(i, "array_write")
    array = [] if array is None else array
    if not isinstance(array, list):
        raise BuildError(f"array_write: array must be a list in eager mode, got "
                         f"{type(array).__name__}", Where(op_type="array_write"))
    if index > len(array):
        raise BuildError(f"array_write: index {index} is past the end of an array of length "
                         f"{len(array)} (eager arrays grow one entry at a time)",
                         Where(op_type="array_write"))
    if index < len(array):
        array[index] = x
    else:
        array.append(x)
    return array


def array_read(array, i):
    """The entry of `array` at index `i`."""
    if isinstance(array, list):
        index = _eager_index(i, "array_read")
        if index >= len(array):
            raise BuildError(f"array_read: index {index} is past the end of an array of "
                             f"length {len(array)}", Where(op_type="array_read"))
        return array[index]
    _need_array(array, "array_read")
    _need_index(i, "array_read")
    return _out("read_from_array", {"X": array, "I": i}, stem="array_read")


def array_length(array):
    """The number of entries of `array`: an int64 Variable of shape [1] (static), a Python int
    (eager), as in Paddle."""
    if isinstance(array, list):
        return len(array)
    _need_array(array, "array_length")
    length = _out("lod_array_length", {"X": array}, stem="array_length")
    length.stop_gradient = True
    return length


def tensor_array_to_tensor(input, axis: int = 1, use_stack: bool = False,  # noqa: A002
                           name: str | None = None):
    """(the array's tensors stacked or concatenated along `axis`, their sizes along `axis`
    as an int32 tensor).

    Eager (a list of Tensors): `stack` / `concat`, so gradients flow to each entry; the
    sizes come as an int64 Tensor, as Paddle's dygraph returns them.
    """
    if isinstance(input, list):
        if not input or not all(isinstance(t, Tensor) for t in input):
            raise BuildError("tensor_array_to_tensor: input must be a non-empty list of "
                             "Tensors in eager mode", Where(op_type="tensor_array_to_tensor"))
        result = (stack if use_stack else concat)(input, axis=axis)
        sizes = to_tensor(np.array([int(t.shape[axis]) if -t.ndim <= axis < t.ndim else 1
                                    for t in input], dtype=np.int64))
        return result, sizes
    _need_array(input, "tensor_array_to_tensor")
    made = apply_op("tensor_array_to_tensor", {"X": input},
                    {"axis": int(axis), "use_stack": bool(use_stack)}, name=name)
    return made["Out"], made["OutIndex"]
