"""Inverses, determinants, solvers, LU, matrix_exp and Householder products:
`pyir.inverse`, `pyir.linalg.det`, `pyir.linalg.solve`, `pyir.linalg.lu`, ... (Paddle's
`paddle.tensor.linalg`; exported through pyir/tensor/linalg.py)."""

from __future__ import annotations

import numbers

import numpy as np

from .. import dispatch
from ..dispatch import apply_op, dtype_of, ndim
from ._linalg_common import (binary, constant_tensor, matmul2, matrix_t, refuse, refuse_out,
                             require_float, require_matrices, require_square)
from .manipulation import slice as slice_axes, unsqueeze

__all__ = [
    "cholesky", "inverse", "inv", "det", "slogdet", "matrix_power", "cholesky_solve",
    "cholesky_inverse", "solve", "triangular_solve", "lu", "lu_unpack", "lu_solve",
    "matrix_exp", "householder_product", "ormqr",
]

# Paddle names of this family pyir leaves out, with the reason (pyir/unsupported.py).
UNSUPPORTED: dict[str, str] = {}


# --- inverses and determinants --------------------------------------------------------------------
def cholesky(x, upper: bool = False, name: str | None = None):
    """The Cholesky factor of symmetric positive-definite x: L (x = L L^T), or L^T when
    upper (op `cholesky`).

    Example:
        >>> factor = pyir.linalg.cholesky(a)
    """
    require_square(x, "cholesky")
    return dispatch.out("cholesky", {"X": x}, {"upper": bool(upper)}, name=name)


def inverse(x, name: str | None = None):
    """The inverse of each square matrix of x (op `inverse`).

    Example:
        >>> ainv = pyir.inverse(a)
    """
    require_square(x, "inverse")
    return dispatch.out("inverse", {"Input": x}, name=name, slot="Output")


def inv(x, name: str | None = None):
    """paddle.linalg.inv: the inverse of each square matrix of x (op `inverse`).

    Example:
        >>> ainv = pyir.linalg.inv(a)
    """
    require_square(x, "inv")
    return dispatch.out("inverse", {"Input": x}, name=name, slot="Output")


def det(x, name: str | None = None):
    """The determinant of each square matrix of x (op `determinant`).

    Example:
        >>> d = pyir.linalg.det(a)
    """
    require_square(x, "det")
    return dispatch.out("determinant", {"Input": x}, name=name)


def slogdet(x, name: str | None = None):
    """[sign, log|det|] of each square matrix, stacked on a new first axis (op
    `slogdeterminant`).

    Example:
        >>> sign, logdet = pyir.linalg.slogdet(a)
    """
    require_square(x, "slogdet")
    return dispatch.out("slogdeterminant", {"Input": x}, name=name)


def matrix_power(x, n: int, name: str | None = None):
    """x^n for square matrices (n < 0: of the inverse; n = 0: identity), op `matrix_power`.

    Example:
        >>> a3 = pyir.linalg.matrix_power(a, 3)
    """
    require_square(x, "matrix_power")
    if not isinstance(n, numbers.Integral):
        refuse("matrix_power", f"n must be an int, got {n!r}")
    return dispatch.out("matrix_power", {"X": x}, {"n": int(n)}, name=name)


# --- solvers --------------------------------------------------------------------------------------
def cholesky_solve(x, y, upper: bool = False, name: str | None = None):
    """Solves A out = x for A = y y^T (y lower triangular) or y^T y (upper), op
    `cholesky_solve`.

    Example:
        >>> z = pyir.linalg.cholesky_solve(b, factor)
    """
    require_square(y, "cholesky_solve", "y")
    return dispatch.out("cholesky_solve", {"X": x, "Y": y}, {"upper": bool(upper)}, name=name)


def cholesky_inverse(x, upper: bool = False, name: str | None = None):
    """The inverse of A = x x^T (x lower) or x^T x (upper) from its Cholesky factor x
    (transpose2, matmul_v2, inverse).

    Example:
        >>> ainv = pyir.linalg.cholesky_inverse(factor)
    """
    require_square(x, "cholesky_inverse")
    product = matmul2(matrix_t(x), x) if upper else matmul2(x, matrix_t(x))
    return dispatch.out("inverse", {"Input": product}, name=name, slot="Output")


def solve(x, y, left: bool = True, name: str | None = None, *, out=None):
    """Solves x out = y (left) or out x = y (op `solve`; y may be a vector for left).

    Example:
        >>> z = pyir.linalg.solve(a, b)
    """
    refuse_out(out, "solve")
    require_square(x, "solve")
    if left:
        return dispatch.out("solve", {"X": x, "Y": y}, name=name)
    if ndim(y) < 2:
        refuse("solve", f"left=False needs a (batch of) matrices y, got {ndim(y)}-D")
    return matrix_t(dispatch.out("solve", {"X": matrix_t(x), "Y": matrix_t(y)}, name=name))


def triangular_solve(x, y, upper: bool = True, transpose: bool = False,  # noqa: A002
                     unitriangular: bool = False, name: str | None = None):
    """Solves op(T) out = y for T the upper (lower) triangle of x, op(T) = T^T when
    transpose, a unit diagonal when unitriangular (op `triangular_solve`).

    Example:
        >>> z = pyir.linalg.triangular_solve(r, b, upper=True)
    """
    require_square(x, "triangular_solve")
    if ndim(y) < 2:
        refuse("triangular_solve", f"y must be a (batch of) matrices, got {ndim(y)}-D")
    return dispatch.out("triangular_solve", {"X": x, "Y": y},
                        {"upper": bool(upper), "transpose": bool(transpose),
                         "unitriangular": bool(unitriangular)}, name=name)


# --- LU -------------------------------------------------------------------------------------------
def lu(x, pivot: bool = True, get_infos: bool = False, name: str | None = None):
    """The LU factorization with partial pivoting (op `lu`): the packed L\\U, the 1-based
    int32 pivots and, with get_infos, the int32 infos (nonzero: a zero pivot).

    Example:
        >>> packed, pivots = pyir.linalg.lu(a)
    """
    if not pivot:
        refuse("lu", "pivot=False (LU without pivoting) is GPU-only in Paddle; use pivot=True")
    require_matrices(x, "lu")
    result = apply_op("lu", {"X": x}, {"pivots": True}, name=name)
    if get_infos:
        return result["Out"], result["Pivots"], result["Infos"]
    return result["Out"], result["Pivots"]


def lu_unpack(x, y, unpack_ludata: bool = True, unpack_pivots: bool = True,
              name: str | None = None):
    """P, L, U (A = P L U) from lu's packed result x and pivots y (op `lu_unpack`).

    Example:
        >>> p, l, u = pyir.linalg.lu_unpack(packed, pivots)
    """
    result = apply_op("lu_unpack", {"X": x, "Pivots": y},
                      {"unpack_ludata": bool(unpack_ludata),
                       "unpack_pivots": bool(unpack_pivots)}, name=name)
    return result["Pmat"], result["L"], result["U"]


def lu_solve(b, lu, pivots, trans: str = "N", name: str | None = None):
    """Solves A out = b (trans 'N') or A^T out = b ('T', 'C') for A given by lu's packed
    result and pivots (op `lu_solve`).

    Example:
        >>> z = pyir.linalg.lu_solve(b, packed, pivots)
    """
    if trans not in ("N", "T", "C"):
        refuse("lu_solve", f"trans must be 'N', 'T' or 'C', got {trans!r}")
    return dispatch.out("lu_solve", {"b": b, "lu": lu, "pivots": pivots}, {"trans": trans},
                        name=name, slot="out")


def matrix_exp(x, name: str | None = None):
    """The matrix exponential of square matrices (op `matrix_exp`, a pyir op: Paddle
    composes it; scaling and squaring with a Pade approximant).

    Example:
        >>> e = pyir.linalg.matrix_exp(a)
    """
    require_square(x, "matrix_exp")
    require_float(x, "matrix_exp")
    return dispatch.out("matrix_exp", {"X": x}, name=name)


# --- Householder products -------------------------------------------------------------------------
def _householder_full(x, tau, function: str):
    """Q = H_1 ... H_k as full [*, m, m] matrices, H_i = I - tau_i v_i v_i^T, v_i the i-th
    column of x below the diagonal with a 1 on it (slice, matmul_v2, elementwise ops)."""
    if ndim(x) < 2 or ndim(tau) != ndim(x) - 1:
        refuse(function, f"x must be a (batch of) matrices and tau one dim less, got "
                          f"{ndim(x)}-D and {ndim(tau)}-D")
    m, n = x.shape[-2:]
    k = tau.shape[-1]
    if m < 0 or n < 0 or k < 0:
        refuse(function, "x and tau need known matrix dims")
    if not k <= n <= m:
        refuse(function, f"needs tau's length ({k}) <= columns ({n}) <= rows ({m}) of x")
    dtype = dtype_of(x)
    q = constant_tensor(np.eye(m, dtype=dtype), x)
    for i in range(k):
        column = slice_axes(x, [ndim(x) - 1], [i], [i + 1])
        below = np.arange(m)[:, None] > i
        v = binary("add", binary("mul", column, constant_tensor(below.astype(dtype), x)),
                    constant_tensor((np.arange(m)[:, None] == i).astype(dtype), x))
        tau_i = unsqueeze(slice_axes(tau, [ndim(tau) - 1], [i], [i + 1]), [-1])
        update = matmul2(matmul2(q, v), v, trans_y=True)
        q = binary("sub", q, binary("mul", update, tau_i))
    return q


def householder_product(x, tau, name: str | None = None):
    """The first n columns of H_1 ... H_k (a QR's Q from Householder reflectors in x's
    columns below the diagonal and their scales tau), [*, m, n].

    Example:
        >>> q = pyir.linalg.householder_product(reflectors, tau)
    """
    q = _householder_full(x, tau, "householder_product")
    return slice_axes(q, [ndim(q) - 1], [0], [x.shape[-1]])


def ormqr(x, tau, y, left: bool = True, transpose: bool = False,  # noqa: A002
          name: str | None = None):
    """Q y, Q^T y, y Q or y Q^T for Q = householder_product(x, tau) ([m, n], as Paddle: the
    full orthogonal factor when x is square).

    Example:
        >>> z = pyir.linalg.ormqr(reflectors, tau, y)
    """
    q = householder_product(x, tau)
    m, n = x.shape[-2:]
    need = (m if transpose else n) if left else (n if transpose else m)
    have = y.shape[-2] if left else y.shape[-1]
    if have >= 0 and have != need:
        refuse("ormqr", f"y {list(y.shape)} must have {need} {'rows' if left else 'columns'} "
                        f"for {'Q^T' if transpose else 'Q'} of shape [{m}, {n}]")
    if left:
        return matmul2(q, y, trans_x=bool(transpose), name=name)
    return matmul2(y, q, trans_y=bool(transpose), name=name)
