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
_CODE_OF = {dt: code for code, name, dt in _TABLE}  # uint16 is bfloat16's bits
_NAME_OF = {dt: name for _, name, dt in _TABLE}
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


# --- bfloat16, carried as its raw uint16 bits -----------------------------------------------
BF16_BITS = np.dtype(np.uint16)


def float_to_bf16_bits(values) -> np.ndarray:
    """bfloat16 bit patterns (uint16) of `values`, rounded to nearest even from float32 as
    Paddle's `bfloat16(float)` does (so float64 is rounded to float32 first); NaN stays a
    quiet NaN of the same sign.

    Example:
        >>> float_to_bf16_bits(np.array([1.0, -2.5e-3, 65504.0], np.float32))
        array([16256, 47908, 18304], dtype=uint16)
    """
    bits = np.ascontiguousarray(np.asarray(values, dtype=np.float32)).view(np.uint32)
    rounded = (bits + (np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))))
    out = (rounded >> np.uint32(16)).astype(np.uint16)
    nan = np.isnan(np.asarray(values, dtype=np.float32))
    if nan.any():
        out[nan] = ((bits[nan] >> np.uint32(16)).astype(np.uint16) | np.uint16(0x0040))
    return out


def bf16_bits_to_float(bits) -> np.ndarray:
    """float32 values of bfloat16 bit patterns (exact: bfloat16 is float32's upper half).

    Example:
        >>> bf16_bits_to_float(np.array([16256, 16457], np.uint16))
        array([1.      , 3.140625], dtype=float32)
    """
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << np.uint32(16)).view(
        np.float32)


def cast(values: np.ndarray, dtype) -> np.ndarray:
    """`values` converted to `dtype` (a name, numpy dtype or VarType code) the way Paddle's
    cast does, bfloat16 included: uint16 arrays are bfloat16 bits on both sides.

    Example:
        >>> cast(np.array([3.14159], np.float32), 22)    # float32 -> bfloat16 bits
        array([16457], dtype=uint16)
    """
    target = to_numpy(dtype)
    if values.dtype == BF16_BITS:
        if target == BF16_BITS:
            return values.copy()
        values = bf16_bits_to_float(values)
    if target == BF16_BITS:
        return float_to_bf16_bits(values)
    return values.astype(target)


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
