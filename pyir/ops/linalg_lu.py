"""LU ops: `lu` (LAPACK getrf semantics, with the gradient of square factorizations),
`lu_unpack`, `lu_solve` (forward only)."""

from __future__ import annotations

import numpy as np

from ..errors import PyirError
from ..registry import Attr, Example, Slot, VarSpec, register_op
from ..registry import AttrType as T
from ._helpers import default_grad, rand
from .linalg_decomp import min_dim

_I32 = np.dtype(np.int32)


def _mT(a):
    return np.swapaxes(a, -1, -2)


# --- factor, unpack, solve ----------------------------------------------------------------------
def lu_factor(a: np.ndarray):
    """LAPACK getrf: packed L\\U, 1-based row pivots (int32) and infos, over a batch."""
    m, n = a.shape[-2:]
    k = min(m, n)
    work = a.reshape(-1, m, n).copy()
    pivots = np.zeros((work.shape[0], k), np.int32)
    infos = np.zeros(work.shape[0], np.int32)
    for b, mat in enumerate(work):
        for j in range(k):
            p = j + int(np.argmax(np.abs(mat[j:, j])))
            pivots[b, j] = p + 1
            if p != j:
                mat[[j, p]] = mat[[p, j]]
            if mat[j, j] == 0:
                infos[b] = infos[b] or j + 1
                continue
            mat[j + 1:, j] /= mat[j, j]
            mat[j + 1:, j + 1:] -= np.outer(mat[j + 1:, j], mat[j, j + 1:])
    batch = a.shape[:-2]
    return work.reshape(a.shape), pivots.reshape(batch + (k,)), infos.reshape(batch)


def permutation_matrix(pivots: np.ndarray, m: int, dtype) -> np.ndarray:
    """P with A = P L U from getrf's 1-based pivots (P[perm[i], i] = 1)."""
    flat = pivots.reshape(-1, pivots.shape[-1])
    out = np.zeros((flat.shape[0], m, m), dtype)
    for b, piv in enumerate(flat):
        perm = np.arange(m)
        for j, p in enumerate(piv):
            perm[[j, p - 1]] = perm[[p - 1, j]]
        out[b, perm, np.arange(m)] = 1
    return out.reshape(pivots.shape[:-1] + (m, m))


def unpack_lu(packed: np.ndarray):
    m, n = packed.shape[-2:]
    k = min(m, n)
    lower = np.tril(packed, -1)[..., :, :k] + np.eye(m, k, dtype=packed.dtype)
    return lower, np.triu(packed)[..., :k, :]


def _lu_expect(X, pivots=True):
    """P L U rebuilds X (checked by the LU unpacked from the kernel's own result)."""
    packed, piv, _ = lu_factor(X.astype(np.float64))
    lower, upper = unpack_lu(packed)
    rebuilt = permutation_matrix(piv, X.shape[-2], np.float64) @ lower @ upper
    assert np.allclose(rebuilt, X, atol=1e-5)
    return {}


def _infer_lu(ctx):
    x = ctx.input("X")
    batch = tuple(x.shape[:-2])
    return {"Out": VarSpec(tuple(x.shape), x.dtype),
            "Pivots": VarSpec(batch + (min_dim(x.shape),), _I32),
            "Infos": VarSpec(batch, _I32)}


@register_op(
    "lu", inputs=["X"], outputs=["Out", "Pivots", "Infos"], attrs=[Attr("pivots", T.BOOLEAN, True)],
    infer=_infer_lu, grad=default_grad("lu_grad", uses=["X", "Out", "Pivots"],
                                       out_grads=["Out"]),
    doc="LU with partial pivoting (LAPACK getrf): Out = L\\U packed, Pivots 1-based row swaps, "
        "Infos = first zero pivot (1-based) or 0",
    examples=[Example({"X": np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)}, {},
                      lambda X, **a: {"Out": np.array([[3.0, 4.0], [1 / 3, 2 / 3]], np.float32),
                                      "Pivots": np.array([2, 2], np.int32),
                                      "Infos": np.array(0, np.int32)}, grad=False),
              Example({"X": rand(2, 4, 3)}, {}, _lu_expect, grad=False),
              Example({"X": rand(2, 3, 3) + 2 * np.eye(3, dtype=np.float32)}, {}, _lu_expect)],
)
def lu(X, pivots):
    if not pivots:
        raise PyirError("lu: pivot=False (LU without pivoting) is GPU-only in Paddle; pyir "
                        "factors with partial pivoting (pivot=True)")
    packed, piv, infos = lu_factor(X)
    return {"Out": packed, "Pivots": piv, "Infos": infos}


@register_op("lu_grad", inputs=["X", "Out", "Pivots", "Out@GRAD"], outputs=["X@GRAD"],
             attrs=[Attr("pivots", T.BOOLEAN, True)], grad_of="lu",
             doc="square X = P L U: dX = P L^-T (tril(L^T dL, -1) + triu(dU U^T)) U^-T, dL / dU "
                 "the strict lower / upper parts of dOut")
def lu_grad(X, Out, Pivots, Out_grad, pivots):
    m, n = X.shape[-2:]
    if m != n:
        raise PyirError(f"lu: pyir has the gradient of square factorizations only, got "
                        f"{m} x {n}")
    lower, upper = unpack_lu(Out)
    d_lower, d_upper = np.tril(Out_grad, -1), np.triu(Out_grad)
    middle = np.tril(_mT(lower) @ d_lower, -1) + np.triu(d_upper @ _mT(upper))
    inner = _mT(np.linalg.solve(upper, _mT(np.linalg.solve(_mT(lower), middle))))
    return {"X@GRAD": (permutation_matrix(Pivots, m, X.dtype) @ inner).astype(X.dtype)}


def _infer_lu_unpack(ctx):
    x = ctx.input("X")
    *batch, m, n = x.shape
    k = min_dim(x.shape)
    batch = tuple(batch)
    return {"Pmat": VarSpec(batch + (m, m), x.dtype), "L": VarSpec(batch + (m, k), x.dtype),
            "U": VarSpec(batch + (k, n), x.dtype)}


_LU_UNPACK_ATTRS = [Attr("unpack_ludata", T.BOOLEAN, True),
                    Attr("unpack_pivots", T.BOOLEAN, True)]


@register_op(
    "lu_unpack", inputs=["X", Slot("Pivots", no_grad=True)], outputs=["Pmat", "L", "U"],
    attrs=_LU_UNPACK_ATTRS, infer=_infer_lu_unpack, differentiable=False,
    doc="Pmat, L (unit lower), U from lu's packed result and pivots: A = Pmat L U",
    examples=[Example({"X": np.array([[3.0, 4.0], [1 / 3, 2 / 3]], np.float32),
                       "Pivots": np.array([2, 2], np.int32)}, {},
                      lambda X, Pivots, **a: {
                          "Pmat": np.array([[0.0, 1.0], [1.0, 0.0]], np.float32),
                          "L": np.array([[1.0, 0.0], [1 / 3, 1.0]], np.float32),
                          "U": np.array([[3.0, 4.0], [0.0, 2 / 3]], np.float32)}, grad=False)],
)
def lu_unpack(X, Pivots, unpack_ludata, unpack_pivots):
    lower, upper = unpack_lu(X)
    pmat = permutation_matrix(Pivots, X.shape[-2], X.dtype)
    return {"Pmat": pmat, "L": lower, "U": upper}


@register_op(
    "lu_solve", inputs=["b", "lu", Slot("pivots", no_grad=True)], outputs=["out"],
    attrs=[Attr("trans", T.STRING, "N")],
    infer=lambda ctx: {"out": VarSpec(tuple(ctx.input("b").shape), ctx.input("b").dtype)},
    differentiable=False,
    doc="out = A^-1 b (trans 'N') or A^-T b ('T', 'C') for A = P L U given by lu",
    examples=[Example({"b": rand(2, 3), "lu": np.array([[3.0, 4.0], [1 / 3, 2 / 3]],
                                                         np.float32),
                       "pivots": np.array([2, 2], np.int32)}, {"trans": "N"},
                      lambda b, lu, pivots, trans: {"out": np.linalg.solve(
                          np.array([[1.0, 2.0], [3.0, 4.0]]), b).astype(b.dtype)}, grad=False),
              Example({"b": rand(2, 1), "lu": np.array([[3.0, 4.0], [1 / 3, 2 / 3]],
                                                         np.float32),
                       "pivots": np.array([2, 2], np.int32)}, {"trans": "T"},
                      lambda b, lu, pivots, trans: {"out": np.linalg.solve(
                          np.array([[1.0, 3.0], [2.0, 4.0]]), b).astype(b.dtype)}, grad=False)],
)
def lu_solve(b, lu, pivots, trans):
    if trans not in ("N", "T", "C"):
        raise PyirError(f"lu_solve: trans must be 'N', 'T' or 'C', got {trans!r}")
    lower, upper = unpack_lu(lu)
    a = permutation_matrix(pivots, lu.shape[-2], lu.dtype) @ lower @ upper
    a = a if trans == "N" else _mT(a)
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    out = np.linalg.solve(np.broadcast_to(a, batch + a.shape[-2:]),
                          np.broadcast_to(b, batch + b.shape[-2:]))
    return {"out": out.astype(b.dtype, copy=False)}
