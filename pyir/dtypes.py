"""One table: Paddle's VarType.Type data types <-> numpy dtypes <-> names. Nothing else."""

from __future__ import annotations

import numpy as np

from .errors import PyirError

# (VarType.Type value, name, numpy dtype). BF16 is carried as its raw uint16 bits, as Paddle does.
_TABLE = [
    (0, "bool", np.dtype(np.bool_)),
    (1, "int16", np.dtype(np.int16)),
    (2, "int32", np.dtype(np.int32)),
    (3, "int64", np.dtype(np.int64)),
    (4, "float16", np.dtype(np.float16)),
    (5, "float32", np.dtype(np.float32)),
    (6, "float64", np.dtype(np.float64)),
    (20, "uint8", np.dtype(np.uint8)),
    (21, "int8", np.dtype(np.int8)),
    (22, "bfloat16", np.dtype(np.uint16)),
    (23, "complex64", np.dtype(np.complex64)),
    (24, "complex128", np.dtype(np.complex128)),
    (37, "uint32", np.dtype(np.uint32)),
    (38, "uint64", np.dtype(np.uint64)),
]

_BY_CODE = {code: dt for code, _, dt in _TABLE}
_BY_NAME = {name: dt for _, name, dt in _TABLE}
_CODE_OF = {dt: code for code, name, dt in _TABLE if name != "bfloat16"}
_NAME_OF = {dt: name for _, name, dt in _TABLE if name != "bfloat16"}
_ALIASES = {"float": "float32", "double": "float64", "int": "int64", "half": "float16"}
_PREFIXES = ("paddle.", "pyir.", "VarType.", "np.", "numpy.")


def to_numpy(dtype) -> np.dtype:
    """A numpy dtype from a name ('float32', 'paddle.float32'), numpy dtype or VarType code."""
    if isinstance(dtype, np.dtype):
        return dtype
    if isinstance(dtype, (int, np.integer)) and not isinstance(dtype, bool):
        try:
            return _BY_CODE[int(dtype)]
        except KeyError:
            raise PyirError(f"unsupported VarType data type code {int(dtype)}") from None
    if isinstance(dtype, str):
        name = dtype
        for prefix in _PREFIXES:
            if name.startswith(prefix):
                name = name[len(prefix):]
        name = _ALIASES.get(name.lower(), name.lower())
        if name in _BY_NAME:
            return _BY_NAME[name]
        raise PyirError(f"unknown dtype {dtype!r}; expected one of {', '.join(sorted(_BY_NAME))}")
    try:
        return np.dtype(dtype)
    except TypeError:
        raise PyirError(f"unknown dtype {dtype!r}") from None


def to_code(dtype) -> int:
    """The VarType.Type value of a dtype."""
    dt = to_numpy(dtype)
    try:
        return _CODE_OF[dt]
    except KeyError:
        raise PyirError(f"dtype {dt} has no Paddle VarType") from None


def name_of(dtype) -> str:
    """The Paddle name of a dtype ('float32')."""
    dt = to_numpy(dtype)
    return _NAME_OF.get(dt, str(dt))


def is_float(dtype) -> bool:
    return to_numpy(dtype).kind in "fc"


# The dtype of float tensors made without an explicit dtype (pyir.set_default_dtype).
_default_float = ["float32"]


def default_float() -> str:
    """The name of the default float dtype ('float32' unless set_default_dtype changed it)."""
    return _default_float[0]


def set_default_float(name: str) -> None:
    _default_float[0] = name


# How kernels meet floating-point errors: IEEE results (log(0) = -inf, 0/0 = NaN) without
# numpy warnings, as Paddle's kernels give them. Plans and eager ops run kernels under
# `np.errstate(**IEEE_QUIETLY)`.
IEEE_QUIETLY = {"divide": "ignore", "invalid": "ignore", "over": "ignore"}
