"""Tensors made from a shape, a range or another tensor's shape: `pyir.full`, `pyir.arange`,
`pyir.eye`, `pyir.diag`, `pyir.meshgrid`, `pyir.tril`, ... (Paddle's `paddle.tensor.creation`;
the random ones are in `random.py`). Created static variables are constants (stop_gradient),
as in Paddle."""

from __future__ import annotations

import numbers

import numpy as np

from .. import dtypes, framework
from ..dispatch import apply_op, constant, dtype_of, inplace_of, ndim, out
from ..dispatch import out as _out  # `out` is also fill_constant's parameter name
from ..eager import Tensor, to_tensor
from ..errors import BuildError, Where
from ..framework import unique_name
from ..unsupported import COMPLEX
from .manip_shape import TENSORS, assign, flatten, signed_like, tensor_ints, unsqueeze
from .manip_join import concat
from .manip_layout import expand, flip

__all__ = ["full", "ones", "zeros", "full_like", "ones_like", "zeros_like", "empty",
           "empty_like", "arange", "range", "linspace", "logspace", "eye", "diag", "diagflat",
           "diag_embed", "meshgrid", "tril", "triu", "tril_", "triu_", "tril_indices",
           "triu_indices", "vander", "as_tensor", "asarray", "from_numpy"]
# `tensor` is defined below but not exported: `pyir.tensor` must stay this package (Paddle
# makes paddle.tensor a callable module; pyir/tensor/__init__.py would have to do the same).

# Paddle names of this family pyir leaves out, with the reason (pyir/unsupported.py).
UNSUPPORTED: dict[str, str] = {"complex": COMPLEX, "polar": COMPLEX}


def _where(fn: str) -> Where:
    return Where(op_type=fn)


def _dtype(dtype, default=None) -> np.dtype:
    """dtype, else `default`, else the default float dtype (pyir.set_default_dtype)."""
    if dtype is None:
        dtype = dtypes.default_float() if default is None else default
    return dtypes.to_numpy(dtype)


def _text(value, dt: np.dtype) -> str:
    """fill_constant's `str_value`, spelled as Paddle spells it."""
    if isinstance(value, str):
        return value
    if dt == np.bool_:
        return str(bool(value)).lower()
    return str(int(value)) if np.issubdtype(dt, np.integer) else str(float(value))


def fill_attrs(shape, value, dtype, op_type="fill_constant") -> dict:
    """`fill_constant`'s attributes for an all-int shape."""
    dt = _dtype(dtype)
    number = float(value) if not isinstance(value, str) else float(value)
    return {"shape": list(shape), "value": number, "str_value": _text(value, dt),
            "dtype": dtypes.to_code(dt)}


def full(shape, fill_value, dtype=None, name: str | None = None):
    """A tensor of `shape` filled with `fill_value` (op `fill_constant`, float32 by default;
    a shape holding tensors becomes its ShapeTensor inputs; 'inf'/'nan' strings work).

    Example:
        >>> ones = pyir.full([2, 3], 1.0)
    """
    if name is None and framework.static_mode[0]:
        unique_name.generate("fill_constant")  # Paddle's full() draws this name twice
    if isinstance(fill_value, TENSORS):
        raise BuildError("full: a tensor fill_value is not supported; pass a number",
                         _where("fill_constant"))
    attr, tensor, tensors = tensor_ints(shape, None, "fill_constant")
    attrs = fill_attrs(attr, fill_value, dtype)
    return constant(out("fill_constant", {"ShapeTensor": tensor, "ShapeTensorList": tensors},
                        attrs, name=name))


def fill_constant(shape, dtype, value, force_cpu: bool = False, out=None,
                  name: str | None = None):
    """`paddle.tensor.fill_constant`: full(shape, value, dtype) with Paddle's older argument
    order; with `out` the values are written into that variable (or tensor), returned.
    `force_cpu` is accepted (pyir runs on the CPU). Not a top-level name, as in Paddle.

    Example:
        >>> one = pyir.tensor.fill_constant([1], "int32", 1)
    """
    if isinstance(value, TENSORS):
        raise BuildError("fill_constant: a tensor value is not supported; pass a number",
                         _where("fill_constant"))
    attr, tensor, tensors = tensor_ints(shape, None, "fill_constant")
    result = constant(_out("fill_constant", {"ShapeTensor": tensor, "ShapeTensorList": tensors},
                           fill_attrs(attr, value, dtype), name=name))
    return result if out is None else assign(result, out)


def ones(shape, dtype=None, name: str | None = None):
    """full(shape, 1.0, dtype).

    Example:
        >>> o = pyir.ones([2, 3])
    """
    return full(shape, 1.0, dtype, name)


def zeros(shape, dtype=None, name: str | None = None):
    """full(shape, 0.0, dtype).

    Example:
        >>> z = pyir.zeros([2, 3], "int64")
    """
    return full(shape, 0.0, dtype, name)


def full_like(x, fill_value, dtype=None, name: str | None = None):
    """A tensor shaped like x filled with `fill_value` (op `fill_any_like`).

    Example:
        >>> z = pyir.full_like(x, 2.0)
    """
    code = dtypes.to_code(dtypes.to_numpy(dtype) if dtype is not None else dtype_of(x))
    return constant(out("fill_any_like", {"X": x}, {"value": float(fill_value), "dtype": code},
                        name=name, stem="full_like"))


def ones_like(x, dtype=None, name: str | None = None):
    """full_like(x, 1.0, dtype).

    Example:
        >>> o = pyir.ones_like(x)
    """
    return full_like(x, 1.0, dtype, name)


def zeros_like(x, dtype=None, name: str | None = None):
    """full_like(x, 0.0, dtype).

    Example:
        >>> z = pyir.zeros_like(x)
    """
    return full_like(x, 0.0, dtype, name)


def empty(shape, dtype=None, name: str | None = None):
    """An uninitialised tensor of `shape` (op `empty`; pyir's values are zeros).

    Example:
        >>> buf = pyir.empty([2, 3])
    """
    attr, tensor, tensors = tensor_ints(shape, None, "empty")
    return constant(out("empty", {"ShapeTensor": tensor, "ShapeTensorList": tensors},
                        {"shape": attr, "dtype": dtypes.to_code(_dtype(dtype))}, name=name))


def empty_like(x, dtype=None, name: str | None = None):
    """empty(shape of x) (ops `shape` and `empty`), x's dtype unless given.

    Example:
        >>> buf = pyir.empty_like(x)
    """
    dt = dtype_of(x) if dtype is None else dtypes.to_numpy(dtype)
    shape_t = out("shape", {"Input": x})
    return constant(out("empty", {"ShapeTensor": shape_t},
                        {"shape": [], "dtype": dtypes.to_code(dt)}, name=name,
                        stem="empty_like"))


# --- ranges ---------------------------------------------------------------------------------
def _scalar_tensor(value, dt: np.dtype, like, force_cpu: bool = True):
    """A number as a 1-element tensor of dtype dt (op fill_constant), or the given tensor
    cast to dt."""
    if isinstance(value, TENSORS):
        if dtype_of(value) != dt:
            return out("cast", {"X": value}, {"in_dtype": dtypes.to_code(dtype_of(value)),
                                              "out_dtype": dtypes.to_code(dt)})
        return value
    attrs = {"shape": [1], "value": float(value), "str_value": _text(value, dt),
             "dtype": dtypes.to_code(dt), "force_cpu": force_cpu}
    return apply_op("fill_constant", {}, attrs, like=like)["Out"]


def _first_tensor(*values):
    return next((v for v in values if isinstance(v, TENSORS)), None)


def arange(start=0, end=None, step=1, dtype=None, *, name: str | None = None, **_ignored):
    """[start, start + step, ...) up to end (op `range`); int64 when every bound is an int,
    else float32; `arange(n)` counts from 0.

    Example:
        >>> r = pyir.arange(0, 10, 2)
    """
    if end is None:
        start, end = 0, start
    if isinstance(step, numbers.Number) and step == 0:
        raise BuildError("arange: step must not be 0", _where("range"))
    if dtype is None:
        numbers_only = [v for v in (start, end, step) if not isinstance(v, TENSORS)]
        tensors_ = [v for v in (start, end, step) if isinstance(v, TENSORS)]
        integral = all(isinstance(v, numbers.Integral) for v in numbers_only) and all(
            np.dtype(dtype_of(t)).kind in "iu" for t in tensors_)
        dt = np.dtype(np.int64) if integral else _dtype(None)
    else:
        dt = dtypes.to_numpy(dtype)
    like = _first_tensor(start, end, step)
    bounds = [_scalar_tensor(v, dt, like) for v in (start, end, step)]
    return constant(out("range", {"Start": bounds[0], "End": bounds[1], "Step": bounds[2]},
                        name=name))


def linspace(start, stop, num, dtype=None, name: str | None = None, **_ignored):
    """`num` evenly spaced values from start to stop, both included (op `linspace`).

    Example:
        >>> v = pyir.linspace(0, 1, 5)
    """
    dt = _dtype(dtype)
    like = _first_tensor(start, stop, num)
    if isinstance(num, numbers.Integral) and num <= 0:
        raise BuildError(f"linspace: num must be positive, got {num}", _where("linspace"))
    ends = [_scalar_tensor(v, dt if dt.kind == "f" else np.dtype(np.float32), like)
            for v in (start, stop)]
    count = _scalar_tensor(num, np.dtype(np.int32), like)
    return constant(out("linspace", {"Start": ends[0], "Stop": ends[1], "Num": count},
                        {"dtype": dtypes.to_code(dt)}, name=name))


def logspace(start, stop, num, base=10.0, dtype=None, name: str | None = None):
    """base ** linspace(start, stop, num) (op `logspace`).

    Example:
        >>> v = pyir.logspace(0, 2, 3)   # [1, 10, 100]
    """
    dt = _dtype(dtype)
    like = _first_tensor(start, stop, num, base)
    if isinstance(num, numbers.Integral) and num <= 0:
        raise BuildError(f"logspace: num must be positive, got {num}", _where("logspace"))
    fdt = dt if dt.kind == "f" else np.dtype(np.float32)
    inputs = {"Start": _scalar_tensor(start, fdt, like, False),
              "Stop": _scalar_tensor(stop, fdt, like, False),
              "Num": _scalar_tensor(num, np.dtype(np.int32), like, False),
              "Base": _scalar_tensor(base, fdt, like, False)}
    return constant(out("logspace", inputs, {"dtype": dtypes.to_code(dt)}, name=name))


def eye(num_rows, num_columns=None, dtype=None, name: str | None = None, **_ignored):
    """The identity matrix of num_rows x num_columns (op `eye`).

    Example:
        >>> i = pyir.eye(3)
    """
    cols = num_rows if num_columns is None else num_columns
    if not all(isinstance(v, numbers.Integral) and v >= 0 for v in (num_rows, cols)):
        raise BuildError(f"eye: num_rows and num_columns must be non-negative ints, got "
                         f"{num_rows!r}, {num_columns!r}", _where("eye"))
    return constant(out("eye", {}, {"num_rows": int(num_rows), "num_columns": int(cols),
                                     "dtype": dtypes.to_code(_dtype(dtype))}, name=name))


# --- diagonals and triangles ----------------------------------------------------------------
def diag(x, offset: int = 0, padding_value=0, name: str | None = None):
    """A 1-D x laid on a diagonal of a square matrix (padding_value elsewhere), or a matrix's
    diagonal at offset (op `diag_v2`).

    Example:
        >>> m = pyir.diag(v, offset=1)
    """
    if ndim(x) not in (1, 2):
        raise BuildError(f"diag: x must be 1-D or 2-D, got {ndim(x)}-D", _where("diag_v2"))
    return out("diag_v2", {"X": x}, {"offset": int(offset),
                                     "padding_value": float(padding_value)}, name=name)


def diagflat(x, offset: int = 0, name: str | None = None):
    """x flattened and laid on a diagonal (ops flatten_contiguous_range and diag_v2).

    Example:
        >>> m = pyir.diagflat(x)
    """
    flat = x if ndim(x) == 1 else flatten(x)
    return out("diag_v2", {"X": flat}, {"offset": int(offset), "padding_value": 0.0},
               name=name, stem="diagflat")


def diag_embed(input, offset: int = 0, dim1: int = -2, dim2: int = -1):  # noqa: A002
    """input's last dim laid on the (dim1, dim2) diagonals of a zero tensor (op
    `diag_embed`).

    Example:
        >>> m = pyir.diag_embed(v)
    """
    if not isinstance(input, TENSORS):
        input = to_tensor(np.asarray(input))  # noqa: A001
    n = ndim(input) + 1
    if not (-n <= dim1 < n and -n <= dim2 < n):
        raise BuildError(f"dim1 and dim2 must be in [{-n}, {n}) for the {n}-D result, got "
                         f"{dim1} and {dim2}", _where("diag_embed"))
    if dim1 % n == dim2 % n:
        raise BuildError(f"dim1 and dim2 must differ, got {dim1} and {dim2}",
                         _where("diag_embed"))
    return out("diag_embed", {"Input": input},
               {"offset": int(offset), "dim1": int(dim1), "dim2": int(dim2)})


def meshgrid(*args, **kwargs) -> list:
    """Coordinate grids from 1-D tensors ('ij' indexing), op `meshgrid`.

    Example:
        >>> gx, gy = pyir.meshgrid(x, y)
    """
    items = list(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) \
        else list(args)
    if not items or any(ndim(t) > 1 for t in items):
        raise BuildError("meshgrid: expects one or more 1-D tensors", _where("meshgrid"))
    return out("meshgrid", {"X": items}, name=kwargs.get("name"))


def _triangle(x, diagonal: int, lower: bool, name):
    if ndim(x) < 2:
        raise BuildError(f"{'tril' if lower else 'triu'}: x must be at least 2-D, got "
                         f"{ndim(x)}-D", _where("tril_triu"))
    return out("tril_triu", {"X": x}, {"diagonal": int(diagonal), "lower": lower}, name=name)


def tril(x, diagonal: int = 0, name: str | None = None):
    """x with the entries above `diagonal` zeroed (op `tril_triu`, lower=True).

    Example:
        >>> lo = pyir.tril(x)
    """
    return _triangle(x, diagonal, True, name)


def triu(x, diagonal: int = 0, name: str | None = None):
    """x with the entries below `diagonal` zeroed (op `tril_triu`, lower=False).

    Example:
        >>> up = pyir.triu(x, 1)
    """
    return _triangle(x, diagonal, False, name)


tril_ = signed_like(inplace_of(tril, "tril_"), tril)
triu_ = signed_like(inplace_of(triu, "triu_"), triu)


def tril_indices(row: int, col: int, offset: int = 0, dtype="int64"):
    """[rows; cols] of the lower triangle's entries (op `tril_indices`).

    Example:
        >>> idx = pyir.tril_indices(4, 3)
    """
    return _triangle_indices("tril_indices", ("rows", "cols"), row, col, offset, dtype)


def triu_indices(row: int, col: int | None = None, offset: int = 0, dtype="int64"):
    """[rows; cols] of the upper triangle's entries (op `triu_indices`).

    Example:
        >>> idx = pyir.triu_indices(4, 3, 1)
    """
    return _triangle_indices("triu_indices", ("row", "col"), row,
                             row if col is None else col, offset, dtype)


def _triangle_indices(op_type, names, row, col, offset, dtype):
    if not all(isinstance(v, numbers.Integral) and v >= 0 for v in (row, col)):
        raise BuildError(f"{op_type}: row and col must be non-negative ints", _where(op_type))
    dt = dtypes.to_numpy(dtype)
    if dt not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise BuildError(f"{op_type}: dtype must be int32 or int64, got {dt}", _where(op_type))
    attrs = {names[0]: int(row), names[1]: int(col), "offset": int(offset),
             "dtype": dtypes.to_code(dt)}
    return constant(out(op_type, {}, attrs, slot="out"))


def vander(x, n: int | None = None, increasing: bool = False, name: str | None = None):
    """The Vandermonde matrix of a 1-D x: columns x**(n-1) .. x**0 (increasing: x**0 ..
    x**(n-1)), built from ones and a cumulative product (ops fill_any_like, expand_v2,
    cumprod, concat, flip).

    Example:
        >>> v = pyir.vander(x, 3)
    """
    if ndim(x) != 1:
        raise BuildError(f"vander: x must be 1-D, got {ndim(x)}-D", _where("vander"))
    n = x.shape[0] if n is None else int(n)
    if n < 0:
        raise BuildError(f"vander: n must not be negative, got {n}", _where("vander"))
    column = unsqueeze(x, [1])
    first = full_like(column, 1.0)
    if n == 0:
        result = out("slice", {"Input": first}, {"axes": [1], "starts": [0], "ends": [0],
                                                 "infer_flags": [1], "decrease_axis": []})
    elif n == 1:
        result = first
    else:
        powers = out("cumprod", {"X": expand(column, [-1, n - 1])}, {"dim": 1})
        result = concat([first, powers], axis=1)
    return result if increasing else flip(result, [1])


# --- tensors from data ------------------------------------------------------------------------
def as_tensor(data, dtype=None, device=None, requires_grad: bool = False,
              pin_memory: bool = False):
    """An eager tensor of `data` (to_tensor; requires_grad sets stop_gradient=False).

    Example:
        >>> t = pyir.as_tensor([1.0, 2.0])
    """
    if isinstance(data, Tensor) and dtype is None:
        return data
    return to_tensor(data, dtype=dtype, stop_gradient=not requires_grad)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad: bool = False):
    """as_tensor(obj, dtype) (numpy's name).

    Example:
        >>> t = pyir.asarray(np.ones(3))
    """
    return as_tensor(obj, dtype=dtype, requires_grad=requires_grad)


def tensor(data, dtype=None, device=None, requires_grad: bool = False, pin_memory=False):
    """A new eager tensor holding a copy of data (torch's spelling of to_tensor).

    Example:
        >>> t = pyir.tensor([[1, 2], [3, 4]])
    """
    value = data.numpy() if isinstance(data, (Tensor,)) else data
    return to_tensor(np.array(value, copy=True), dtype=dtype, stop_gradient=not requires_grad)


def from_numpy(ndarray):
    """An eager tensor of a numpy array.

    Example:
        >>> t = pyir.from_numpy(np.arange(3))
    """
    if not isinstance(ndarray, np.ndarray):
        raise BuildError(f"from_numpy expects a numpy array, got {type(ndarray).__name__}",
                         _where("from_numpy"))
    return to_tensor(ndarray)


# Paddle's `range` is arange; defined last so this module's code keeps the builtin.
range = arange  # noqa: A001
