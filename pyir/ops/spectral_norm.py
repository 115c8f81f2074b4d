"""`spectral_norm` (+ `spectral_norm_grad`): Weight divided by its largest singular value,
estimated by `power_iters` steps of power iteration from the vectors U and V (which the op
reads but does not update, as in Paddle). The weight is seen as a matrix with dim `dim` as
rows and all other dims flattened as columns.

Gradient (Paddle's rule, exact when U and V have converged to the singular vectors):
dW = dOut / sigma - (sum(dOut * W) / sigma^2) * u v^T.
"""

from __future__ import annotations

import numpy as np

from ..registry import Attr, Example, Slot, VarSpec, register_op
from ..registry import AttrType as T
from ._helpers import default_grad

_ATTRS = [Attr("dim", T.INT, 0), Attr("power_iters", T.INT, 1), Attr("eps", T.FLOAT, 1e-12)]


def _as_matrix(weight: np.ndarray, dim: int):
    perm = [dim] + [i for i in range(weight.ndim) if i != dim]
    return weight.transpose(perm).reshape(weight.shape[dim], -1), perm


def _from_matrix(matrix: np.ndarray, perm: list, shape) -> np.ndarray:
    return matrix.reshape([shape[i] for i in perm]).transpose(np.argsort(perm))


def _sigma(mat, U, V, power_iters, eps):
    u, v = np.asarray(U, mat.dtype).reshape(-1), np.asarray(V, mat.dtype).reshape(-1)
    for _ in range(power_iters):
        v = mat.T @ u
        v = v / (np.linalg.norm(v) + eps)
        u = mat @ v
        u = u / (np.linalg.norm(u) + eps)
    return u, v, u @ mat @ v


def _check(Weight, U, V, dim):
    if dim not in (0, 1):
        raise ValueError(f"spectral_norm: dim must be 0 or 1, got {dim}")
    rows = Weight.shape[dim]
    if U.size != rows or V.size != Weight.size // rows:
        raise ValueError(f"spectral_norm: U must have {rows} and V {Weight.size // rows} "
                         f"elements for a weight of shape {list(Weight.shape)}, got "
                         f"{U.size} and {V.size}")


def spectral_norm(Weight, U, V, dim, power_iters, eps):
    _check(Weight, U, V, dim)
    mat, perm = _as_matrix(Weight, dim)
    _, _, sigma = _sigma(mat, U, V, power_iters, eps)
    return {"Out": (Weight / sigma).astype(Weight.dtype)}


def spectral_norm_grad(Weight, U, V, Out_grad, dim, power_iters, eps):
    mat, perm = _as_matrix(Weight, dim)
    u, v, sigma = _sigma(mat, U, V, power_iters, eps)
    dout, _ = _as_matrix(Out_grad, dim)
    dmat = dout / sigma - np.outer(u, v) * (dout * mat).sum() / sigma ** 2
    return {"Weight@GRAD": _from_matrix(dmat, perm, Weight.shape).astype(Weight.dtype)}


def _expect(Weight, U, V, dim, power_iters, **_):
    perm = [dim] + [i for i in range(Weight.ndim) if i != dim]
    mat = Weight.transpose(perm).reshape(Weight.shape[dim], -1)
    return {"Out": Weight / np.linalg.svd(mat, compute_uv=False)[0]}


# A weight with a clear spectral gap, so that power iteration converges (and Paddle's
# gradient rule, which holds U and V fixed, is exact).
_W = np.array([[[3.0, 0.2], [0.1, 0.3]], [[0.2, 0.1], [1.0, 0.2]], [[0.1, 0.4], [0.2, 0.1]]])

register_op(
    "spectral_norm", inputs=["Weight", Slot("U", no_grad=True), Slot("V", no_grad=True)],
    outputs=["Out"], attrs=_ATTRS,
    infer=lambda ctx: {"Out": VarSpec(ctx.input("Weight").shape, ctx.input("Weight").dtype)},
    grad=default_grad("spectral_norm_grad", uses=["Weight", "U", "V"], in_grads=["Weight"]),
    doc="Out = Weight / sigma_max(Weight as a [dim, rest] matrix), by power iteration",
    examples=[
        Example({"Weight": _W, "U": np.ones(3), "V": np.ones(4)},
                {"dim": 0, "power_iters": 60, "eps": 1e-12}, _expect),
        Example({"Weight": _W, "U": np.ones(2), "V": np.ones(6)},
                {"dim": 1, "power_iters": 60, "eps": 1e-12}, _expect),
    ],
)(spectral_norm)
register_op(
    "spectral_norm_grad", inputs=["Weight", "U", "V", "Out@GRAD"],
    outputs=[Slot("Weight@GRAD", dispensable=True)], attrs=_ATTRS, grad_of="spectral_norm",
    doc="dW = dOut / sigma - sum(dOut * W) / sigma^2 * u v^T",
)(spectral_norm_grad)
