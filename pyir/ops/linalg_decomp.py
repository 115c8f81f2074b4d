"""Matrix decomposition ops: `svd`, `svdvals`, `qr`, `eigh`, `eigvalsh`, `eig`, `eigvals`,
`lstsq`, `matrix_rank`.

`svd` (reduced), `svdvals` and `qr` have gradient rules; eigen decompositions, `lstsq` and
`matrix_rank` are forward-only in pyir; `eig` and `eigvals` give complex results. LU is in
linalg_lu.py.
"""

from __future__ import annotations

import numpy as np

from ..errors import PyirError
from ..registry import Attr, Example, Slot, VarSpec, register_op
from ..registry import AttrType as T
from ._helpers import default_grad, rand

_I32, _I64 = np.dtype(np.int32), np.dtype(np.int64)


def _mT(a):
    return np.swapaxes(a, -1, -2)


def _complex_of(dtype) -> np.dtype:
    return np.dtype(np.complex128 if np.dtype(dtype) == np.float64 else np.complex64)


def min_dim(shape) -> int:
    """min(M, N) of a matrix shape, -1 when either is unknown."""
    m, n = shape[-2:]
    return -1 if -1 in (m, n) else min(m, n)


# --- singular values ------------------------------------------------------------------------------
def _infer_svd(ctx):
    x = ctx.input("X")
    *batch, m, n = x.shape
    k = min_dim(x.shape)
    full = ctx.attr("full_matrices")
    batch = tuple(batch)
    return {"U": VarSpec(batch + (m, m if full else k), x.dtype),
            "S": VarSpec(batch + (k,), x.dtype),
            "VH": VarSpec(batch + (n if full else k, n), x.dtype)}


def _svd_expect(X, full_matrices=False):
    """Checks U diag(S) VH rebuilds X and S matches numpy (U, VH are unique up to signs)."""
    u, s, vh = np.linalg.svd(X.astype(np.float64), full_matrices=full_matrices)
    return {"S": s.astype(X.dtype)}


@register_op(
    "svd", inputs=["X"], outputs=["U", "S", "VH"], attrs=[Attr("full_matrices", T.BOOLEAN, False)],
    infer=_infer_svd, grad=default_grad("svd_grad", uses=["X", "U", "VH", "S"]),
    doc="X = U diag(S) VH over the last two dims, S descending (full U, VH when full_matrices)",
    examples=[Example({"X": rand(4, 3)}, {"full_matrices": False}, _svd_expect),
              Example({"X": rand(2, 3, 5)}, {"full_matrices": False}, _svd_expect),
              Example({"X": rand(2, 2, 3)}, {"full_matrices": True}, _svd_expect, grad=False)],
)
def svd(X, full_matrices):
    u, s, vh = np.linalg.svd(X, full_matrices=full_matrices)
    return {"U": u, "S": s, "VH": vh}


@register_op("svd_grad", inputs=["X", "U", "VH", "S", "U@GRAD", "VH@GRAD", "S@GRAD"],
             outputs=["X@GRAD"], attrs=[Attr("full_matrices", T.BOOLEAN, False)],
             grad_of="svd",
             doc="dX = U [sym terms of U^T dU, V^T dV / (s_j^2 - s_i^2), diag(dS)] VH plus the "
                 "parts of dU, dV outside the spans of U, V (reduced svd, distinct values)")
def svd_grad(X, U, VH, S, U_grad, VH_grad, S_grad, full_matrices):
    if full_matrices and X.shape[-1] != X.shape[-2]:
        raise PyirError("svd: no gradient for full_matrices=True of a non-square matrix; use "
                        "full_matrices=False")
    v = _mT(VH)
    du = np.zeros_like(U) if U_grad is None else U_grad
    dv = np.zeros_like(v) if VH_grad is None else _mT(VH_grad)
    ds = np.zeros_like(S) if S_grad is None else S_grad
    s2 = S[..., None, :] ** 2 - S[..., :, None] ** 2  # s_j^2 - s_i^2
    k = S.shape[-1]
    off = ~np.eye(k, dtype=bool)
    f = np.where(off, 1.0 / np.where(off, s2, 1.0), 0.0)
    utdu, vtdv = _mT(U) @ du, _mT(v) @ dv
    j = f * (utdu - _mT(utdu))
    kk = f * (vtdv - _mT(vtdv))
    s_mat = S[..., None, :] * np.eye(k)
    inner = j @ s_mat + s_mat @ kk + ds[..., None, :] * np.eye(k)
    grad = U @ inner @ VH
    inv_s = 1.0 / S
    m, n = X.shape[-2:]
    grad = grad + (np.eye(m) - U @ _mT(U)) @ du * inv_s[..., None, :] @ VH
    grad = grad + (U * inv_s[..., None, :]) @ _mT(dv) @ (np.eye(n) - v @ VH)
    return {"X@GRAD": grad.astype(X.dtype)}


@register_op(
    "svdvals", inputs=["x"], outputs=["s"],
    infer=lambda ctx: {"s": VarSpec(tuple(ctx.input("x").shape[:-2]) + (
        min_dim(ctx.input("x").shape),), ctx.input("x").dtype)},
    grad=default_grad("svdvals_grad", uses=["x"]),
    doc="s = the singular values of x, descending",
    examples=[Example({"x": rand(2, 4, 3)}, expect=lambda x: {
        "s": np.sqrt(np.linalg.eigvalsh(_mT(x.astype(np.float64)) @ x)[..., ::-1]).astype(
            x.dtype)})],
)
def svdvals(x):
    return {"s": np.linalg.svd(x, compute_uv=False)}


@register_op("svdvals_grad", inputs=["x", "s@GRAD"], outputs=["x@GRAD"], grad_of="svdvals",
             doc="dx = U diag(ds) VH (reduced svd of x)")
def svdvals_grad(x, s_grad):
    u, _, vh = np.linalg.svd(x, full_matrices=False)
    return {"x@GRAD": ((u * s_grad[..., None, :]) @ vh).astype(x.dtype)}


# --- qr -----------------------------------------------------------------------------------------
def _infer_qr(ctx):
    x = ctx.input("X")
    *batch, m, n = x.shape
    k = min_dim(x.shape)
    mode = ctx.attr("mode")
    q_cols = m if mode == "complete" else k
    return {"Q": VarSpec(tuple(batch) + ((m, q_cols) if mode != "r" else (0,)), x.dtype),
            "R": VarSpec(tuple(batch) + (q_cols if mode == "complete" else k, n), x.dtype)}


def _qr_expect(X, mode):
    q, r = np.linalg.qr(X.astype(np.float64), mode="complete" if mode == "complete" else
                        "reduced")
    return {"R": r.astype(X.dtype)} if mode == "r" else {"Q": q.astype(X.dtype),
                                                          "R": r.astype(X.dtype)}


@register_op(
    "qr", inputs=["X"], outputs=["Q", "R"], attrs=[Attr("mode", T.STRING, "reduced")],
    infer=_infer_qr, grad=default_grad("qr_grad", uses=["X", "Q", "R"]),
    doc="X = Q R (Q orthonormal columns, R upper triangular); mode reduced / complete / r "
        "(R only)",
    examples=[Example({"X": rand(4, 3)}, {"mode": "reduced"}, _qr_expect),
              Example({"X": rand(2, 3, 4)}, {"mode": "reduced"}, _qr_expect),
              Example({"X": rand(2, 3, 4)}, {"mode": "complete"}, _qr_expect, grad=False),
              Example({"X": rand(3, 3)}, {"mode": "r"}, _qr_expect)],
)
def qr(X, mode):
    if mode not in ("reduced", "complete", "r"):
        raise PyirError(f"qr: mode must be 'reduced', 'complete' or 'r', got {mode!r}")
    if mode == "r":
        r = np.linalg.qr(X, mode="r")
        return {"Q": np.zeros(X.shape[:-2] + (0,), X.dtype), "R": r.astype(X.dtype, copy=False)}
    q, r = np.linalg.qr(X, mode=mode)
    return {"Q": q.astype(X.dtype, copy=False), "R": r.astype(X.dtype, copy=False)}


def _qr_grad_tall(q, r, dq, dr):
    """dA for A = Q R with A [m, n], m >= n: (dQ + Q copyltu(M)) R^-T, M = R dR^T - dQ^T Q."""
    m = r @ _mT(dr) - _mT(dq) @ q
    lower = np.tril(m, -1)
    sym = lower + _mT(lower) + np.tril(np.triu(m))
    return _mT(np.linalg.solve(r, _mT(dq + q @ sym)))


@register_op("qr_grad", inputs=["X", "Q", "R", "Q@GRAD", "R@GRAD"], outputs=["X@GRAD"],
             attrs=[Attr("mode", T.STRING, "reduced")], grad_of="qr",
             doc="dX from dQ, dR (m >= n: (dQ + Q copyltu(R dR^T - dQ^T Q)) R^-T; m < n: "
                 "through the leading square block)")
def qr_grad(X, Q, R, Q_grad, R_grad, mode):
    m, n = X.shape[-2:]
    if mode == "complete" and m > n:
        raise PyirError("qr: no gradient for mode='complete' with more rows than columns")
    if mode == "r":
        Q, R = np.linalg.qr(X)
        Q_grad = None
    dq = np.zeros_like(Q) if Q_grad is None else Q_grad
    dr = np.zeros_like(R) if R_grad is None else R_grad
    if m >= n:
        return {"X@GRAD": _qr_grad_tall(Q, R, dq, dr).astype(X.dtype)}
    # A = [A1 A2], R = [R1 R2] with A1 = Q R1 square: A2 = Q R2 feeds back into dQ.
    a2 = X[..., m:]
    dq = dq + a2 @ _mT(dr[..., m:])
    d1 = _qr_grad_tall(Q, R[..., :m], dq, dr[..., :m])
    return {"X@GRAD": np.concatenate([d1, Q @ dr[..., m:]], axis=-1).astype(X.dtype)}


# --- eigen decompositions ------------------------------------------------------------------------
def _check_uplo(UPLO):
    if UPLO not in ("L", "U"):
        raise PyirError(f"eigh: UPLO must be 'L' or 'U', got {UPLO!r}")


def _infer_eigh(ctx):
    x = ctx.input("X")
    return {"Eigenvalues": VarSpec(tuple(x.shape[:-1]), x.dtype),
            "Eigenvectors": VarSpec(tuple(x.shape), x.dtype)}


def _sym_from(X, UPLO):
    """The symmetric matrix LAPACK sees when it reads only X's UPLO triangle."""
    tri = np.tril(X) if UPLO == "L" else np.triu(X)
    return tri + _mT(tri) - tri * np.eye(X.shape[-1], dtype=X.dtype)


def _eigh_expect(X, UPLO):
    return {"Eigenvalues": np.linalg.eigvalsh(_sym_from(X.astype(np.float64), UPLO)).astype(
        X.dtype)}


@register_op(
    "eigh", inputs=["X"], outputs=["Eigenvalues", "Eigenvectors"],
    attrs=[Attr("UPLO", T.STRING, "L")], infer=_infer_eigh, differentiable=False,
    doc="Eigenvalues (ascending) and eigenvectors of the symmetric matrix read from X's UPLO "
        "triangle",
    examples=[Example({"X": rand(3, 3)}, {"UPLO": "L"}, lambda X, UPLO: _eigh_expect(X, "L"),
                      grad=False),
              Example({"X": rand(2, 3, 3)}, {"UPLO": "U"}, lambda X, UPLO: _eigh_expect(X, "U"),
                      grad=False)],
)
def eigh(X, UPLO):
    _check_uplo(UPLO)
    w, v = np.linalg.eigh(X, UPLO=UPLO)
    return {"Eigenvalues": w, "Eigenvectors": v}


@register_op(
    "eigvalsh", inputs=["X"], outputs=["Eigenvalues", "Eigenvectors"],
    attrs=[Attr("UPLO", T.STRING, "L"), Attr("is_test", T.BOOLEAN, False)], infer=_infer_eigh,
    differentiable=False, doc="as eigh; the API returns only Eigenvalues",
    examples=[Example({"X": rand(3, 3)}, {"UPLO": "U", "is_test": True},
                      lambda X, **a: _eigh_expect(X, "U"), grad=False)],
)
def eigvalsh(X, UPLO, is_test):
    return eigh(X, UPLO)


@register_op(
    "eig", inputs=["X"], outputs=["Eigenvalues", "Eigenvectors"],
    infer=lambda ctx: {"Eigenvalues": VarSpec(tuple(ctx.input("X").shape[:-1]),
                                              _complex_of(ctx.input("X").dtype)),
                       "Eigenvectors": VarSpec(tuple(ctx.input("X").shape),
                                               _complex_of(ctx.input("X").dtype))},
    differentiable=False,
    doc="Complex eigenvalues and eigenvectors (unit columns) of a general square X",
    examples=[Example({"X": np.array([[0.0, -2.0], [2.0, 0.0]], np.float32)},
                      expect=lambda X: {"Eigenvalues": np.array([2j, -2j], np.complex64)},
                      grad=False)],
)
def eig(X):
    w, v = np.linalg.eig(X)
    dtype = _complex_of(X.dtype)
    return {"Eigenvalues": w.astype(dtype), "Eigenvectors": v.astype(dtype)}


@register_op(
    "eigvals", inputs=["X"], outputs=["Out"],
    infer=lambda ctx: {"Out": VarSpec(tuple(ctx.input("X").shape[:-1]),
                                      _complex_of(ctx.input("X").dtype))},
    differentiable=False, doc="Out = the complex eigenvalues of a general square X",
    examples=[Example({"X": np.array([[2.0, 1.0], [0.0, 3.0]])},
                      expect=lambda X: {"Out": np.array([2.0, 3.0], np.complex128)},
                      grad=False)],
)
def eigvals(X):
    return {"Out": np.linalg.eigvals(X).astype(_complex_of(X.dtype))}


# --- least squares and rank -------------------------------------------------------------------
_LSTSQ_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def _infer_lstsq(ctx):
    x, y = ctx.input("X"), ctx.input("Y")
    batch = tuple(x.shape[:-2])
    driver = ctx.attr("driver")
    full = driver in ("gelsd", "gelss")
    return {"Solution": VarSpec(batch + (x.shape[-1], y.shape[-1]), x.dtype),
            "Residuals": VarSpec((-1,), x.dtype),
            "Rank": VarSpec(batch if driver != "gels" else (0,), _I32),
            "SingularValues": VarSpec(batch + (min_dim(x.shape),) if full else (0,), x.dtype)}


def _lstsq_expect(X, Y, rcond, driver):
    sol = np.linalg.pinv(X.astype(np.float64)) @ Y
    return {"Solution": sol.astype(X.dtype)}


@register_op(
    # Residuals is dispensable in Paddle's proto, but its InferShape writes it: always made.
    "lstsq", inputs=["X", "Y"], outputs=["Solution", "Residuals", "Rank", "SingularValues"],
    attrs=[Attr("rcond", T.FLOAT, 0.0), Attr("driver", T.STRING, "gelsy")],
    infer=_infer_lstsq, differentiable=False,
    doc="Solution = argmin |X s - Y|; Residuals (gels/gelsd/gelss, M > N, full rank), Rank "
        "(not gels) and SingularValues (gelsd/gelss) as LAPACK's drivers report them",
    examples=[Example({"X": rand(4, 3), "Y": rand(4, 2)}, {"rcond": 1e-7, "driver": "gelsy"},
                      _lstsq_expect, grad=False),
              Example({"X": rand(2, 3, 4), "Y": rand(2, 3, 1)},
                      {"rcond": 1e-7, "driver": "gelsd"}, _lstsq_expect, grad=False)],
)
def lstsq(X, Y, rcond, driver):
    if driver not in _LSTSQ_DRIVERS:
        raise PyirError(f"lstsq: driver must be one of {', '.join(_LSTSQ_DRIVERS)}, got "
                        f"{driver!r}")
    m, n = X.shape[-2:]
    batch = np.broadcast_shapes(X.shape[:-2], Y.shape[:-2])
    xs = np.broadcast_to(X, batch + X.shape[-2:]).reshape((-1, m, n))
    ys = np.broadcast_to(Y, batch + Y.shape[-2:]).reshape((-1, m, Y.shape[-1]))
    solutions, ranks, singular = [], [], []
    for a, b in zip(xs, ys):
        sol, _, rank, sv = np.linalg.lstsq(a, b, rcond=rcond or None)
        solutions.append(sol)
        ranks.append(rank)
        singular.append(sv)
    solution = np.stack(solutions).reshape(batch + (n, Y.shape[-1])).astype(X.dtype)
    ranks = np.array(ranks, np.int32).reshape(batch)
    empty = np.zeros((0,), X.dtype)
    residuals = empty
    if driver != "gelsy" and m > n and bool(np.all(ranks == n)):
        residuals = ((X @ solution - Y) ** 2).sum(-2).astype(X.dtype)
    return {"Solution": solution, "Residuals": residuals,
            "Rank": ranks if driver != "gels" else np.zeros((0,), np.int32),
            "SingularValues": np.stack(singular).reshape(batch + (min(m, n),)).astype(X.dtype)
            if driver in ("gelsd", "gelss") else empty}


_RANK_ATTRS = [Attr("tol", T.FLOAT, 0.0), Attr("hermitian", T.BOOLEAN, False),
               Attr("use_default_tol", T.BOOLEAN, True)]


def _rank_expect(X, TolTensor=None, tol=0.0, hermitian=False, use_default_tol=True):
    return {"Out": np.asarray(np.linalg.matrix_rank(
        X.astype(np.float64), None if use_default_tol else tol, hermitian=hermitian), np.int64)}


@register_op(
    "matrix_rank", inputs=["X", Slot("TolTensor", dispensable=True, no_grad=True)],
    outputs=["Out"], attrs=_RANK_ATTRS,
    infer=lambda ctx: {"Out": VarSpec(tuple(ctx.input("X").shape[:-2]), _I64)},
    differentiable=False,
    doc="Out = number of singular values above tol (default: max(M, N) * eps * largest; "
        "TolTensor overrides tol; eigenvalue magnitudes when hermitian)",
    examples=[Example({"X": rand(3, 4)}, {}, _rank_expect, grad=False),
              Example({"X": np.array([[1.0, 2.0], [2.0, 4.0]])}, {"hermitian": True},
                      _rank_expect, grad=False),
              Example({"X": np.diag([3.0, 0.5, 0.1]).astype(np.float32)},
                      {"tol": 0.2, "use_default_tol": False}, _rank_expect, grad=False)],
)
def matrix_rank(X, TolTensor, tol, hermitian, use_default_tol):
    if hermitian:
        values = np.abs(np.linalg.eigvalsh(X))
    else:
        values = np.linalg.svd(X, compute_uv=False)
    largest = values.max(-1, initial=0.0)
    if TolTensor is not None:
        threshold = np.asarray(TolTensor, values.dtype)
    elif use_default_tol:
        threshold = largest * max(X.shape[-2:]) * np.finfo(X.dtype).eps
    else:
        threshold = np.asarray(tol, values.dtype)
    return {"Out": (values > threshold[..., None] if np.ndim(threshold) else
                    values > threshold).sum(-1).astype(np.int64)}
