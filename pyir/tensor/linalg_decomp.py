"""Decompositions and what is built on them: `pyir.linalg.svd`, `qr`, `eig`, `eigh`,
`lstsq`, `matrix_rank`, `pinv`, `cond`, `svd_lowrank`, `pca_lowrank` (Paddle's
`paddle.tensor.linalg`; exported through pyir/tensor/linalg.py). The decomposition ops have
no gradient rules in pyir, so these are forward-only."""

from __future__ import annotations

import numbers

import numpy as np

from .. import dispatch
from ..dispatch import apply_op, dtype_of, ndim
from ..eager import Tensor
from ..framework import Variable
from ._linalg_common import (binary, full_tensor, matrix_t, matmul2, refuse, refuse_out,
                             require_matrices, require_square)
from .linalg_norms import matrix_norm
from .manipulation import slice as slice_axes, unsqueeze
from .math import max as reduce_max, min as reduce_min
from .search import where

__all__ = [
    "svd", "svdvals", "qr", "eig", "eigvals", "eigh", "eigvalsh", "lstsq", "matrix_rank",
    "pinv", "cond", "svd_lowrank", "pca_lowrank",
]


# --- decompositions -------------------------------------------------------------------------------
def svd(x, full_matrices: bool = False, name: str | None = None, *, out=None):
    """U, S, VH with x = U diag(S) VH, S descending (op `svd`; forward only).

    Example:
        >>> u, s, vh = pyir.linalg.svd(a)
    """
    refuse_out(out, "svd")
    require_matrices(x, "svd")
    result = apply_op("svd", {"X": x}, {"full_matrices": bool(full_matrices)}, name=name)
    return result["U"], result["S"], result["VH"]


def svdvals(x, name: str | None = None):
    """The singular values of x, descending (op `svdvals`; forward only).

    Example:
        >>> s = pyir.linalg.svdvals(a)
    """
    require_matrices(x, "svdvals")
    return dispatch.out("svdvals", {"x": x}, name=name, slot="s")


def qr(x, mode: str = "reduced", name: str | None = None):
    """Q, R with x = Q R (op `qr`); mode 'reduced', 'complete', or 'r' (R only).

    Example:
        >>> q, r = pyir.linalg.qr(a)
    """
    if mode not in ("reduced", "complete", "r"):
        refuse("qr", f"mode must be 'reduced', 'complete' or 'r', got {mode!r}")
    require_matrices(x, "qr")
    result = apply_op("qr", {"X": x}, {"mode": mode}, name=name)
    return result["R"] if mode == "r" else (result["Q"], result["R"])


def eig(x, name: str | None = None):
    """Complex eigenvalues and eigenvectors of general square matrices (op `eig`).

    Example:
        >>> w, v = pyir.linalg.eig(a)
    """
    require_square(x, "eig")
    result = apply_op("eig", {"X": x}, name=name)
    return result["Eigenvalues"], result["Eigenvectors"]


def eigvals(x, name: str | None = None):
    """Complex eigenvalues of general square matrices (op `eigvals`).

    Example:
        >>> w = pyir.linalg.eigvals(a)
    """
    require_square(x, "eigvals")
    return dispatch.out("eigvals", {"X": x}, name=name)


def _uplo(UPLO, function):
    if UPLO not in ("L", "U"):
        refuse(function, f"UPLO must be 'L' or 'U', got {UPLO!r}")
    return UPLO


def eigh(x, UPLO: str = "L", name: str | None = None):
    """Ascending eigenvalues and eigenvectors of the symmetric matrices read from x's UPLO
    triangle (op `eigh`; forward only).

    Example:
        >>> w, v = pyir.linalg.eigh(a)
    """
    require_square(x, "eigh")
    result = apply_op("eigh", {"X": x}, {"UPLO": _uplo(UPLO, "eigh")}, name=name)
    return result["Eigenvalues"], result["Eigenvectors"]


def eigvalsh(x, UPLO: str = "L", name: str | None = None):
    """Ascending eigenvalues of the symmetric matrices read from x's UPLO triangle (op
    `eigvalsh`).

    Example:
        >>> w = pyir.linalg.eigvalsh(a)
    """
    require_square(x, "eigvalsh")
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
        refuse("lstsq", f"driver must be one of {', '.join(_LSTSQ_DRIVERS)} on the CPU, got "
                         f"{driver!r}")
    if ndim(x) < 2 or ndim(y) < 2:
        refuse("lstsq", f"x and y must be (batches of) matrices, got {ndim(x)}-D and "
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
    require_matrices(x, "matrix_rank")
    if tol is not None and (atol is not None or rtol is not None):
        refuse("matrix_rank", "give tol, or atol / rtol, not both")
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
        if not isinstance(rtol, (Variable, Tensor)) else binary("mul", largest, rtol)
    absolute = atol if isinstance(atol, (Variable, Tensor)) else \
        full_tensor([], 0.0 if atol is None else atol, dtype, x)
    threshold = binary("max", relative, absolute)
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
    require_matrices(x, "pinv")
    dtype = dtype_of(x)
    if hermitian:
        require_square(x, "pinv")
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
        binary("mul", reduce_max(magnitude, -1, keepdim=True), rcond)
    kept = dispatch.out("greater_than", {"X": magnitude, "Y": cutoff}, {"axis": -1})
    reciprocal = dispatch.out("reciprocal", {"X": values})
    inverted = where(kept, reciprocal, full_tensor([], 0.0, dtype, x))
    scaled_rows = binary("mul", matrix_t(result["VH"]) if not hermitian else left,
                          unsqueeze(inverted, [-2]))
    return matmul2(scaled_rows, left, trans_y=True, name=name, stem="pinv")


_COND_ORDERS = (None, "fro", "nuc", 1, -1, 2, -2, float("inf"), float("-inf"))


def cond(x, p=None, name: str | None = None):
    """The condition number of x in the p-norm: largest / smallest singular value for
    p = None / 2 (-2: the reverse), else norm(x) * norm(inverse(x)) for square x.

    Example:
        >>> k = pyir.linalg.cond(a)
    """
    if p not in _COND_ORDERS:
        refuse("cond", f"p must be one of None, 'fro', 'nuc', 1, -1, 2, -2, inf, -inf, got "
                        f"{p!r}")
    require_matrices(x, "cond")
    if p in (None, 2, -2):
        values = svdvals(x)
        big, small = reduce_max(values, -1), reduce_min(values, -1)
        return binary("div", small, big) if p == -2 else binary("div", big, small)
    require_square(x, "cond")
    inverse_x = dispatch.out("inverse", {"Input": x}, slot="Output")
    return binary("mul", matrix_norm(x, p), matrix_norm(inverse_x, p))


# --- low-rank approximations ----------------------------------------------------------------------
def _low_rank_q(x, q, function):
    m, n = x.shape[-2:]
    if q is None:
        q = min(6, m, n)
    if not isinstance(q, numbers.Integral) or not 0 <= q <= min(m, n):
        refuse(function, f"q must be an int in [0, {min(m, n)}], got {q!r}")
    return int(q)


def _truncated_svd(x, q):
    u, s, vh = svd(x)
    last = ndim(x) - 1
    return (slice_axes(u, [last], [0], [q]), slice_axes(s, [last - 1], [0], [q]),
            slice_axes(matrix_t(vh), [last], [0], [q]))


def svd_lowrank(x, q=None, niter: int = 2, M=None, name: str | None = None):
    """U [*, m, q], S [*, q], V [*, n, q] of the rank-q approximation of x - M (pyir takes
    the exact truncated svd where Paddle iterates a randomized one; niter is accepted).

    Example:
        >>> u, s, v = pyir.linalg.svd_lowrank(a, q=3)
    """
    require_matrices(x, "svd_lowrank")
    q = _low_rank_q(x, q, "svd_lowrank")
    if M is not None:
        x = binary("sub", x, M)
    return _truncated_svd(x, q)


def pca_lowrank(x, q=None, center: bool = True, niter: int = 2, name: str | None = None):
    """svd_lowrank of x with its column means removed (center): U, S, V of the principal
    components (exact truncated svd, as svd_lowrank).

    Example:
        >>> u, s, v = pyir.linalg.pca_lowrank(data, q=2)
    """
    require_matrices(x, "pca_lowrank")
    q = _low_rank_q(x, q, "pca_lowrank")
    if center:
        mean = dispatch.out("reduce_mean", {"X": x},
                            {"dim": [-2], "keep_dim": True, "reduce_all": False})
        x = binary("sub", x, mean)
    return _truncated_svd(x, q)
