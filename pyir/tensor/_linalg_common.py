"""Helpers the linear algebra families share: refusals naming the function, shape checks,
and the few ops their compositions build (matmul_v2, elementwise ops, constants)."""

from __future__ import annotations

import numpy as np

from .. import dispatch, dtypes
from ..dispatch import constant, dtype_of, ndim
from ..errors import BuildError, Where
from .creation import fill_attrs
from .manipulation import transpose


def refuse(function: str, message: str):
    """Raise a BuildError naming the function (`op <function>: <message>`)."""
    raise BuildError(message, Where(op_type=function))


def require_square(x, function: str, what: str = "x"):
    """Refuses anything but a (batch of) square matrices."""
    if ndim(x) < 2:
        refuse(function, f"{what} must be a (batch of) square matrices, got {ndim(x)}-D")
    m, n = x.shape[-2:]
    if m >= 0 and n >= 0 and m != n:
        refuse(function, f"{what} must be a (batch of) square matrices, got shape "
                         f"{list(x.shape)}")


def require_matrices(x, function: str, what: str = "x"):
    if ndim(x) < 2:
        refuse(function, f"{what} must be a (batch of) matrices, got {ndim(x)}-D")


def require_float(x, function: str):
    if not dtypes.is_float(dtype_of(x)):
        refuse(function, f"x must be float32 or float64, got {dtypes.name_of(dtype_of(x))}")


def refuse_out(out, function: str):
    if out is not None:
        refuse(function, "out= is not supported by pyir; use the returned tensor")


def matrix_t(x):
    """x with its last two dims swapped (op `transpose2`)."""
    perm = list(range(ndim(x)))
    perm[-2], perm[-1] = perm[-1], perm[-2]
    return transpose(x, perm)


def matmul2(x, y, trans_x=False, trans_y=False, name=None, stem=None):
    """Op `matmul_v2`."""
    return dispatch.out("matmul_v2", {"X": x, "Y": y},
                        {"trans_x": trans_x, "trans_y": trans_y}, name=name, stem=stem)


def binary(kind: str, x, y):
    """Op `elementwise_<kind>` with numpy broadcasting."""
    return dispatch.out(f"elementwise_{kind}", {"X": x, "Y": y}, {"axis": -1})


def constant_tensor(value, like):
    """A constant tensor (op `assign_value`) in the mode of `like`."""
    value = np.asarray(value)
    return constant(dispatch.out("assign_value", {}, {
        "shape": list(value.shape), "dtype": dtypes.to_code(value.dtype),
        "values": value.ravel().tolist()}, like=like))


def full_tensor(shape, value, dtype, like):
    """A constant filled tensor (op `fill_constant`) in the mode of `like`."""
    return constant(dispatch.out("fill_constant", {}, fill_attrs(shape, value, dtype),
                                 like=like))
