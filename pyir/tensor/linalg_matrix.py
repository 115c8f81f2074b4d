"""Matrix functions, solvers and decompositions: `pyir.inverse`, `pyir.linalg.det`,
`pyir.linalg.solve`, `pyir.linalg.svd`, `pyir.linalg.eigh`, `pyir.linalg.pinv`, ...
(Paddle's `paddle.tensor.linalg`; exported through pyir/tensor/linalg.py)."""

from __future__ import annotations

import numbers

import numpy as np

from .. import dispatch, dtypes
from ..dispatch import apply_op, constant, dtype_of, ndim
from ..eager import Tensor
from ..errors import BuildError, Where
from ..framework import Variable
from .creation import fill_attrs
from .linalg_norms import matrix_norm
from .manipulation import slice as slice_axes, transpose, unsqueeze
from .math import max as reduce_max, min as reduce_min

__all__ = [
    "cholesky", "inverse", "inv", "det", "slogdet", "matrix_power", "cholesky_solve",
    "cholesky_inverse", "solve", "triangular_solve", "lu", "lu_unpack", "lu_solve", "svd",
    "svdvals", "qr", "eig", "eigvals", "eigh", "eigvalsh", "lstsq", "matrix_rank", "pinv",
    "cond", "matrix_exp", "householder_product", "ormqr", "svd_lowrank", "pca_lowrank",
]

# Paddle names of this family pyir leaves out, with the reason (pyir/unsupported.py).
UNSUPPORTED: dict[str, str] = {}


def _refuse(function: str, message: str):
    raise BuildError(f"{function}: {message}", Where(op_type=function))


def _square(x, function: str, what: str = "x"):
    """Refuses anything but a (batch of) square matrices."""
    if ndim(x) < 2:
        _refuse(function, f"{what} must be a (batch of) square matrices, got {ndim(x)}-D")
    m, n = x.shape[-2:]
    if m >= 0 and n >= 0 and m != n:
        _refuse(function, f"{what} must be a (batch of) square matrices, got shape "
                          f"{list(x.shape)}")


def _float(x, function: str):
    if not dtypes.is_float(dtype_of(x)):
        _refuse(function, f"x must be float32 or float64, got {dtypes.name_of(dtype_of(x))}")


def _mT(x):
    perm = list(range(ndim(x)))
    perm[-2], perm[-1] = perm[-1], perm[-2]
    return transpose(x, perm)


def _matmul(x, y, trans_x=False, trans_y=False, name=None, stem=None):
    return dispatch.out("matmul_v2", {"X": x, "Y": y},
                        {"trans_x": trans_x, "trans_y": trans_y}, name=name, stem=stem)


def _binary(kind: str, x, y):
    return dispatch.out(f"elementwise_{kind}", {"X": x, "Y": y}, {"axis": -1})


def _constant(value: np.ndarray, like):
    """A constant tensor (op `assign_value`) in the mode of `like`."""
    value = np.asarray(value)
    return constant(dispatch.out("assign_value", {}, {
        "shape": list(value.shape), "dtype": dtypes.to_code(value.dtype),
        "values": value.ravel().tolist()}, like=like))


def _scalar(value, dtype, like):
    return constant(dispatch.out("fill_constant", {}, fill_attrs([], value, dtype), like=like))


# --- inverses and determinants --------------------------------------------------------------------
def cholesky(x, upper: bool = False, name: str | None = None):
    """The Cholesky factor of symmetric positive-definite x: L (x = L L^T), or L^T when
    upper (op `cholesky`).

    Example:
        >>> factor = pyir.linalg.cholesky(a)
    """
    _square(x, "cholesky")
    return dispatch.out("cholesky", {"X": x}, {"upper": bool(upper)}, name=name)


def inverse(x, name: str | None = None):
    """The inverse of each square matrix of x (op `inverse`).

    Example:
        >>> ainv = pyir.inverse(a)
    """
    _square(x, "inverse")
    return dispatch.out("inverse", {"Input": x}, name=name, slot="Output")


def inv(x, name: str | None = None):
    """paddle.linalg.inv: the inverse of each square matrix of x (op `inverse`).

    Example:
        >>> ainv = pyir.linalg.inv(a)
    """
    _square(x, "inv")
    return dispatch.out("inverse", {"Input": x}, name=name, slot="Output")


def det(x, name: str | None = None):
    """The determinant of each square matrix of x (op `determinant`).

    Example:
        >>> d = pyir.linalg.det(a)
    """
    _square(x, "det")
    return dispatch.out("determinant", {"Input": x}, name=name)


def slogdet(x, name: str | None = None):
    """[sign, log|det|] of each square matrix, stacked on a new first axis (op
    `slogdeterminant`).

    Example:
        >>> sign, logdet = pyir.linalg.slogdet(a)
    """
    _square(x, "slogdet")
    return dispatch.out("slogdeterminant", {"Input": x}, name=name)


def matrix_power(x, n: int, name: str | None = None):
    """x^n for square matrices (n < 0: of the inverse; n = 0: identity), op `matrix_power`.

    Example:
        >>> a3 = pyir.linalg.matrix_power(a, 3)
    """
    _square(x, "matrix_power")
    if not isinstance(n, numbers.Integral):
        _refuse("matrix_power", f"n must be an int, got {n!r}")
    return dispatch.out("matrix_power", {"X": x}, {"n": int(n)}, name=name)


# --- solvers --------------------------------------------------------------------------------------
def cholesky_solve(x, y, upper: bool = False, name: str | None = None):
    """Solves A out = x for A = y y^T (y lower triangular) or y^T y (upper), op
    `cholesky_solve`.

    Example:
        >>> z = pyir.linalg.cholesky_solve(b, factor)
    """
    _square(y, "cholesky_solve", "y")
    return dispatch.out("cholesky_solve", {"X": x, "Y": y}, {"upper": bool(upper)}, name=name)


def cholesky_inverse(x, upper: bool = False, name: str | None = None):
    """The inverse of A = x x^T (x lower) or x^T x (upper) from its Cholesky factor x
    (transpose2, matmul_v2, inverse).

    Example:
        >>> ainv = pyir.linalg.cholesky_inverse(factor)
    """
    _square(x, "cholesky_inverse")
    product = _matmul(_mT(x), x) if upper else _matmul(x, _mT(x))
    return dispatch.out("inverse", {"Input": product}, name=name, slot="Output")


def solve(x, y, left: bool = True, name: str | None = None, *, out=None):
    """Solves x out = y (left) or out x = y (op `solve`; y may be a vector for left).

    Example:
        >>> z = pyir.linalg.solve(a, b)
    """
    if out is not None:
        _refuse("solve", "out= is not supported by pyir; use the returned tensor")
    _square(x, "solve")
    if left:
        return dispatch.out("solve", {"X": x, "Y": y}, name=name)
    if ndim(y) < 2:
        _refuse("solve", f"left=False needs a (batch of) matrices y, got {ndim(y)}-D")
    return _mT(dispatch.out("solve", {"X": _mT(x), "Y": _mT(y)}, name=name))


def triangular_solve(x, y, upper: bool = True, transpose: bool = False,  # noqa: A002
                     unitriangular: bool = False, name: str | None = None):
    """Solves op(T) out = y for T the upper (lower) triangle of x, op(T) = T^T when
    transpose, a unit diagonal when unitriangular (op `triangular_solve`).

    Example:
        >>> z = pyir.linalg.triangular_solve(r, b, upper=True)
    """
    _square(x, "triangular_solve")
    if ndim(y) < 2:
        _refuse("triangular_solve", f"y must be a (batch of) matrices, got {ndim(y)}-D")
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
        _refuse("lu", "pivot=False (LU without pivoting) is GPU-only in Paddle; use pivot=True")
    if ndim(x) < 2:
        _refuse("lu", f"x must be a (batch of) matrices, got {ndim(x)}-D")
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
        _refuse("lu_solve", f"trans must be 'N', 'T' or 'C', got {trans!r}")
    return dispatch.out("lu_solve", {"b": b, "lu": lu, "pivots": pivots}, {"trans": trans},
                        name=name, slot="out")


# --- decompositions -------------------------------------------------------------------------------
def svd(x, full_matrices: bool = False, name: str | None = None, *, out=None):
    """U, S, VH with x = U diag(S) VH, S descending (op `svd`; forward only).

    Example:
        >>> u, s, vh = pyir.linalg.svd(a)
    """
    if out is not None:
        _refuse("svd", "out= is not supported by pyir; use the returned tensors")
    if ndim(x) < 2:
        _refuse("svd", f"x must be a (batch of) matrices, got {ndim(x)}-D")
    result = apply_op("svd", {"X": x}, {"full_matrices": bool(full_matrices)}, name=name)
    return result["U"], result["S"], result["VH"]


def svdvals(x, name: str | None = None):
    """The singular values of x, descending (op `svdvals`; forward only).

    Example:
        >>> s = pyir.linalg.svdvals(a)
    """
    if ndim(x) < 2:
        _refuse("svdvals", f"x must be a (batch of) matrices, got {ndim(x)}-D")
    return dispatch.out("svdvals", {"x": x}, name=name, slot="s")


def qr(x, mode: str = "reduced", name: str | None = None):
    """Q, R with x = Q R (op `qr`); mode 'reduced', 'complete', or 'r' (R only).

    Example:
        >>> q, r = pyir.linalg.qr(a)
    """
    if mode not in ("reduced", "complete", "r"):
        _refuse("qr", f"mode must be 'reduced', 'complete' or 'r', got {mode!r}")
    if ndim(x) < 2:
        _refuse("qr", f"x must be a (batch of) matrices, got {ndim(x)}-D")
    result = apply_op("qr", {"X": x}, {"mode": mode}, name=name)
    return result["R"] if mode == "r" else (result["Q"], result["R"])


def eig(x, name: str | None = None):
    """Complex eigenvalues and eigenvectors of general square matrices (op `eig`).

    Example:
        >>> w, v = pyir.linalg.eig(a)
    """
    _square(x, "eig")
    result = apply_op("eig", {"X": x}, name=name)
    return result["Eigenvalues"], result["Eigenvectors"]


def eigvals(x, name: str | None = None):
    """Complex eigenvalues of general square matrices (op `eigvals`).

    Example:
        >>> w = pyir.linalg.eigvals(a)
    """
    _square(x, "eigvals")
    return dispatch.out("eigvals", {"X": x}, name=name)


def _uplo(UPLO, function):
    if UPLO not in ("L", "U"):
        _refuse(function, f"UPLO must be 'L' or 'U', got {UPLO!r}")
    return UPLO


def eigh(x, UPLO: str = "L", name: str | None = None):
    """Ascending eigenvalues and eigenvectors of the symmetric matrices read from x's UPLO
    triangle (op `eigh`; forward only).

    Example:
        >>> w, v = pyir.linalg.eigh(a)
    """
    _square(x, "eigh")
    result = apply_op("eigh", {"X": x}, {"UPLO": _uplo(UPLO, "eigh")}, name=name)
    return result["Eigenvalues"], result["Eigenvectors"]


def eigvalsh(x, UPLO: str = "L", name: str | None = None):
    """Ascending eigenvalues of the symmetric matrices read from x's UPLO triangle (op
    `eigvalsh`).

    Example:
        >>> w = pyir.linalg.eigvalsh(a)
    """
    _square(x, "eigvalsh")
    return apply_op("eigvalsh", {"X": x}, {"UPLO": _uplo(UPLO, "eigvalsh"),
                                           "is_test": bool(x.stop_gradient)},
                    name=name)["Eigenvalues"]


_LSTSQ_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def lstsq(x, y, rcond=None, driver=None, name: str | None = None):
    """Least squares: solution, residuals, rank, singular values (op `lstsq`), as LAPACK's
    `driver` (gelsy by default; gels, gelsd, gelss) reports them.

    Example:
        >>> solution, residuals, rank, sv = pyir.linalg.lstsq(a, b)
    """
    if driver is None:
        driver = "gelsy"
    if driver not in _LSTSQ_DRIVERS:
        _refuse("lstsq", f"driver must be one of {', '.join(_LSTSQ_DRIVERS)} on the CPU, got "
                         f"{driver!r}")
    if ndim(x) < 2 or ndim(y) < 2:
        _refuse("lstsq", f"x and y must be (batches of) matrices, got {ndim(x)}-D and "
                         f"{ndim(y)}-D")
    if rcond is None:
        eps = 1e-15 if dtype_of(x) == np.float64 else 1e-7
        rcond = eps * max(x.shape[-2:])
    result = apply_op("lstsq", {"X": x, "Y": y}, {"rcond": float(rcond), "driver": driver},
                      name=name)
    return result["Solution"], result["Residuals"], result["Rank"], result["SingularValues"]


def matrix_rank(x, tol=None, hermitian: bool = False, atol=None, rtol=None,
                name: str | None = None):
    """The number of singular values (|eigenvalues| when hermitian) above the tolerance
    (op `matrix_rank`): tol (a float or tensor), or max(atol, rtol * largest); default
    max(M, N) * eps * largest.

    Example:
        >>> r = pyir.linalg.matrix_rank(a)
    """
    if ndim(x) < 2:
        _refuse("matrix_rank", f"x must be a (batch of) matrices, got {ndim(x)}-D")
    if tol is not None and (atol is not None or rtol is not None):
        _refuse("matrix_rank", "give tol, or atol / rtol, not both")
    if atol is not None or rtol is not None:
        return _rank_by_atol_rtol(x, hermitian, atol, rtol, name)
    inputs = {"X": x}
    attrs = {"hermitian": bool(hermitian), "use_default_tol": tol is None, "tol": 0.0}
    if isinstance(tol, (Variable, Tensor)):
        inputs["TolTensor"] = tol
        attrs["use_default_tol"] = False
    elif tol is not None:
        attrs["tol"] = float(tol)
    return dispatch.out("matrix_rank", inputs, attrs, name=name)


def _singular_values(x, hermitian: bool):
    if hermitian:
        values = apply_op("eigvalsh", {"X": x}, {"UPLO": "L", "is_test": True})["Eigenvalues"]
        return dispatch.out("abs", {"X": values})
    return svdvals(x)


def _rank_by_atol_rtol(x, hermitian, atol, rtol, name):
    """max(atol, rtol * largest) as the tolerance (rtol defaults to 0 with atol, else to
    max(M, N) * eps)."""
    values = _singular_values(x, hermitian)
    largest = reduce_max(values, -1, keepdim=True)
    dtype = dtype_of(x)
    if rtol is None:
        rtol = 0.0 if atol is not None else max(x.shape[-2:]) * float(np.finfo(dtype).eps)
    relative = dispatch.out("scale", {"X": largest}, {"scale": float(rtol), "bias": 0.0}) \
        if not isinstance(rtol, (Variable, Tensor)) else _binary("mul", largest, rtol)
    absolute = atol if isinstance(atol, (Variable, Tensor)) else \
        _scalar(0.0 if atol is None else atol, dtype, x)
    threshold = _binary("max", relative, absolute)
    above = dispatch.out("greater_than", {"X": values, "Y": threshold}, {"axis": -1})
    counted = dispatch.out("cast", {"X": above}, {"in_dtype": 0, "out_dtype": 3})
    return dispatch.out("reduce_sum", {"X": counted}, {
        "dim": [-1], "keep_dim": False, "reduce_all": ndim(counted) == 1}, name=name,
        stem="matrix_rank")


def pinv(x, rcond=1e-15, hermitian: bool = False, name: str | None = None):
    """The Moore-Penrose pseudo-inverse: singular values at most rcond * largest are dropped
    (svd or eigh, then where / matmul_v2; forward only).

    Example:
        >>> ainv = pyir.linalg.pinv(a)
    """
    if ndim(x) < 2:
        _refuse("pinv", f"x must be a (batch of) matrices, got {ndim(x)}-D")
    dtype = dtype_of(x)
    if hermitian:
        _square(x, "pinv")
        result = apply_op("eigh", {"X": x}, {"UPLO": "L"})
        values, left = result["Eigenvalues"], result["Eigenvectors"]
        magnitude = dispatch.out("abs", {"X": values})
    else:
        result = apply_op("svd", {"X": x}, {"full_matrices": False})
        values, left = result["S"], result["U"]
        magnitude = values
    cutoff = dispatch.out("scale", {"X": reduce_max(magnitude, -1, keepdim=True)},
                          {"scale": float(rcond), "bias": 0.0}) \
        if not isinstance(rcond, (Variable, Tensor)) else \
        _binary("mul", reduce_max(magnitude, -1, keepdim=True), rcond)
    kept = dispatch.out("greater_than", {"X": magnitude, "Y": cutoff}, {"axis": -1})
    reciprocal = dispatch.out("reciprocal", {"X": values})
    inverted = dispatch.out("where", {"Condition": kept, "X": reciprocal,
                                      "Y": _scalar(0.0, dtype, x)})
    scaled_rows = _binary("mul", _mT(result["VH"]) if not hermitian else left,
                          unsqueeze(inverted, [-2]))
    return _matmul(scaled_rows, left, trans_y=True, name=name, stem="pinv")


_COND_ORDERS = (None, "fro", "nuc", 1, -1, 2, -2, float("inf"), float("-inf"))


def cond(x, p=None, name: str | None = None):
    """The condition number of x in the p-norm: largest / smallest singular value for
    p = None / 2 (-2: the reverse), else norm(x) * norm(inverse(x)) for square x.

    Example:
        >>> k = pyir.linalg.cond(a)
    """
    if p not in _COND_ORDERS:
        _refuse("cond", f"p must be one of None, 'fro', 'nuc', 1, -1, 2, -2, inf, -inf, got "
                        f"{p!r}")
    if ndim(x) < 2:
        _refuse("cond", f"x must be a (batch of) matrices, got {ndim(x)}-D")
    if p in (None, 2, -2):
        values = svdvals(x)
        big, small = reduce_max(values, -1), reduce_min(values, -1)
        return _binary("div", small, big) if p == -2 else _binary("div", big, small)
    _square(x, "cond")
    inverse_x = dispatch.out("inverse", {"Input": x}, slot="Output")
    return _binary("mul", matrix_norm(x, p), matrix_norm(inverse_x, p))


def matrix_exp(x, name: str | None = None):
    """The matrix exponential of square matrices (op `matrix_exp`, a pyir op: Paddle
    composes it; scaling and squaring with a Pade approximant).

    Example:
        >>> e = pyir.linalg.matrix_exp(a)
    """
    _square(x, "matrix_exp")
    _float(x, "matrix_exp")
    return dispatch.out("matrix_exp", {"X": x}, name=name)


# --- Householder products -------------------------------------------------------------------------
def _householder_full(x, tau, function: str):
    """Q = H_1 ... H_k as full [*, m, m] matrices, H_i = I - tau_i v_i v_i^T, v_i the i-th
    column of x below the diagonal with a 1 on it (slice, matmul_v2, elementwise ops)."""
    if ndim(x) < 2 or ndim(tau) != ndim(x) - 1:
        _refuse(function, f"x must be a (batch of) matrices and tau one dim less, got "
                          f"{ndim(x)}-D and {ndim(tau)}-D")
    m, n = x.shape[-2:]
    k = tau.shape[-1]
    if m < 0 or n < 0 or k < 0:
        _refuse(function, "x and tau need known matrix dims")
    if not k <= n <= m:
        _refuse(function, f"needs tau's length ({k}) <= columns ({n}) <= rows ({m}) of x")
    dtype = dtype_of(x)
    q = _constant(np.eye(m, dtype=dtype), x)
    for i in range(k):
        column = slice_axes(x, [ndim(x) - 1], [i], [i + 1])
        below = np.arange(m)[:, None] > i
        v = _binary("add", _binary("mul", column, _constant(below.astype(dtype), x)),
                    _constant((np.arange(m)[:, None] == i).astype(dtype), x))
        tau_i = unsqueeze(slice_axes(tau, [ndim(tau) - 1], [i], [i + 1]), [-1])
        update = _matmul(_matmul(q, v), v, trans_y=True)
        q = _binary("sub", q, _binary("mul", update, tau_i))
    return q


def householder_product(x, tau, name: str | None = None):
    """The first n columns of H_1 ... H_k (a QR's Q from Householder reflectors in x's
    columns below the diagonal and their scales tau).

    Example:
        >>> q = pyir.linalg.householder_product(reflectors, tau)
    """
    q = _householder_full(x, tau, "householder_product")
    return slice_axes(q, [ndim(q) - 1], [0], [x.shape[-1]])


def ormqr(x, tau, y, left: bool = True, transpose: bool = False,  # noqa: A002
          name: str | None = None):
    """Q y, Q^T y, y Q or y Q^T for Q = H_1 ... H_k from Householder reflectors (x, tau).

    Example:
        >>> z = pyir.linalg.ormqr(reflectors, tau, y)
    """
    q = _householder_full(x, tau, "ormqr")
    m = x.shape[-2]
    rows = y.shape[-2] if left else y.shape[-1]
    if rows >= 0 and rows != m:
        _refuse("ormqr", f"y {list(y.shape)} must have {m} {'rows' if left else 'columns'}")
    if left:
        return _matmul(q, y, trans_x=bool(transpose), name=name)
    return _matmul(y, q, trans_y=bool(transpose), name=name)


# --- low-rank approximations ----------------------------------------------------------------------
def _low_rank_q(x, q, function):
    m, n = x.shape[-2:]
    if q is None:
        q = min(6, m, n)
    if not isinstance(q, numbers.Integral) or not 0 <= q <= min(m, n):
        _refuse(function, f"q must be an int in [0, {min(m, n)}], got {q!r}")
    return int(q)


def _truncated_svd(x, q):
    u, s, vh = svd(x)
    last = ndim(x) - 1
    return (slice_axes(u, [last], [0], [q]), slice_axes(s, [last - 1], [0], [q]),
            slice_axes(_mT(vh), [last], [0], [q]))


def svd_lowrank(x, q=None, niter: int = 2, M=None, name: str | None = None):
    """U [*, m, q], S [*, q], V [*, n, q] of the rank-q approximation of x - M (pyir takes
    the exact truncated svd where Paddle iterates a randomized one; niter is accepted).

    Example:
        >>> u, s, v = pyir.linalg.svd_lowrank(a, q=3)
    """
    if ndim(x) < 2:
        _refuse("svd_lowrank", f"x must be a (batch of) matrices, got {ndim(x)}-D")
    q = _low_rank_q(x, q, "svd_lowrank")
    if M is not None:
        x = _binary("sub", x, M)
    return _truncated_svd(x, q)


def pca_lowrank(x, q=None, center: bool = True, niter: int = 2, name: str | None = None):
    """svd_lowrank of x with its column means removed (center): U, S, V of the principal
    components (exact truncated svd, as svd_lowrank).

    Example:
        >>> u, s, v = pyir.linalg.pca_lowrank(data, q=2)
    """
    if ndim(x) < 2:
        _refuse("pca_lowrank", f"x must be a (batch of) matrices, got {ndim(x)}-D")
    q = _low_rank_q(x, q, "pca_lowrank")
    if center:
        mean = dispatch.out("reduce_mean", {"X": x},
                            {"dim": [-2], "keep_dim": True, "reduce_all": False})
        x = _binary("sub", x, mean)
    return _truncated_svd(x, q)
