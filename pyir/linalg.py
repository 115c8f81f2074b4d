"""`pyir.linalg`: Paddle's `paddle.linalg` (static and eager; pyir/dispatch.py). The functions
live in pyir/tensor/linalg*.py; this module re-exports the names Paddle has here."""

from __future__ import annotations

from . import tensor as _tensor
from . import unsupported as _unsupported
from .tensor.linalg import (  # noqa: F401
    cholesky, cholesky_inverse, cholesky_solve, cond, corrcoef, cov, cross, det, eig, eigh,
    eigvals, eigvalsh, householder_product, inv, lstsq, lu, lu_solve, lu_unpack, matmul,
    matrix_exp, matrix_norm, matrix_power, matrix_rank, multi_dot, norm, ormqr,
    pca_lowrank, pinv, qr, slogdet, solve, svd, svd_lowrank, svdvals, triangular_solve, vecdot,
    vector_norm,
)
from .tensor.manip_shape import matrix_transpose  # noqa: F401

__all__ = [
    "cholesky", "cholesky_inverse", "cholesky_solve", "cond", "corrcoef", "cov", "cross", "det",
    "eig", "eigh", "eigvals", "eigvalsh", "householder_product", "inv", "lstsq", "lu",
    "lu_solve", "lu_unpack", "matmul", "matrix_exp", "matrix_norm", "matrix_power",
    "matrix_rank", "matrix_transpose", "multi_dot", "norm", "ormqr", "pca_lowrank", "pinv", "qr",
    "slogdet", "solve", "svd", "svd_lowrank", "svdvals", "triangular_solve", "vecdot",
    "vector_norm",
]

# Paddle names of `paddle.linalg` pyir leaves out, with the reason (pyir/unsupported.py).
UNSUPPORTED: dict[str, str] = {
    "fp8_fp8_half_gemm_fused": _unsupported.GPU_ONLY,
}
# Names of paddle.linalg that other families define (served from pyir.tensor when present).
FROM_OTHER_FAMILIES = ("diagonal",)
_left_out = _unsupported.module_getattr(__name__, UNSUPPORTED)


def __getattr__(name: str):
    if name in FROM_OTHER_FAMILIES and hasattr(_tensor, name):
        return getattr(_tensor, name)
    return _left_out(name)
