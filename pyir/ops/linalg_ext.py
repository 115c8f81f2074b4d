"""More linalg ops: `einsum`, `multi_dot`, `histogram`, `bincount`; importing this module also
registers the linalg families split out of linalg.py (norms, matrix functions, decompositions,
LU)."""

from __future__ import annotations

import numpy as np

from ..errors import PyirError
from ..registry import Attr, Example, Slot, VarSpec, register_op
from ..registry import AttrType as T
from . import linalg_decomp, linalg_lu, linalg_matrix, linalg_norms  # noqa: F401  (their ops)
from ._helpers import default_grad, rand

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


# --- einsum -------------------------------------------------------------------------------------
def einsum_labels(equation: str, ndims: list[int]) -> tuple[list[str], str]:
    """Each operand's labels and the output's, with `...` spelled out as fresh letters
    (implicit output: the labels used once, sorted, after the broadcast dims)."""
    equation = equation.replace(" ", "")
    lhs, arrow, rhs = equation.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ndims):
        raise PyirError(f"einsum: the equation {equation!r} names {len(terms)} operands, "
                        f"got {len(ndims)}")
    used = set(equation) - set(".,->")
    free = [c for c in _LETTERS if c not in used]
    ellipsis_dims = max([n - len(t.replace("...", "")) for t, n in zip(terms, ndims)
                         if "..." in t] or [0])
    broadcast = "".join(free[:ellipsis_dims])
    labels = []
    for term, n in zip(terms, ndims):
        if "..." in term:
            k = n - len(term.replace("...", ""))
            term = term.replace("...", broadcast[ellipsis_dims - k:])
        if len(term) != n:
            raise PyirError(f"einsum: subscripts {term!r} do not match an operand with {n} "
                            f"dims")
        labels.append(term)
    if arrow:
        out = rhs.replace("...", broadcast)
    else:
        counts = {c: "".join(labels).count(c) for c in set("".join(labels))}
        out = broadcast + "".join(sorted(c for c, k in counts.items()
                                         if k == 1 and c not in broadcast))
    return labels, out


def _einsum_expect(Operands, equation):
    return {"Out": np.asarray(np.einsum(equation, *[o.astype(np.float64) for o in Operands]),
                              Operands[0].dtype)}


def _infer_einsum(ctx):
    ops = ctx.input_list("Operands")
    labels, out = einsum_labels(ctx.attr("equation"), [len(o.shape) for o in ops])
    sizes = {}
    for term, op in zip(labels, ops):
        for c, d in zip(term, op.shape):
            if d != 1 or c not in sizes:
                sizes[c] = d
    return {"Out": VarSpec(tuple(sizes[c] for c in out), ops[0].dtype)}


@register_op(
    "einsum", inputs=[Slot("Operands", duplicable=True)],
    outputs=["Out", Slot("InnerCache", duplicable=True, dispensable=True, extra=True),
             Slot("XShape", duplicable=True, dispensable=True, extra=True)],
    attrs=[Attr("equation", T.STRING, "")], infer=_infer_einsum,
    grad=default_grad("einsum_grad", uses=["Operands"], out_grads=["Out"],
                      in_grads=["Operands"]),
    doc="Out = the Einstein summation `equation` of Operands (numpy's rules, `...` broadcast)",
    examples=[Example({"Operands": [rand(2, 3), rand(3, 4)]}, {"equation": "ij,jk->ik"},
                      _einsum_expect),
              Example({"Operands": [rand(2, 3, 4)]}, {"equation": "bij->jb"}, _einsum_expect),
              Example({"Operands": [rand(2, 3), rand(2, 3)]}, {"equation": "ij,ij"},
                      _einsum_expect),
              Example({"Operands": [rand(2, 1, 3), rand(1, 3, 5)]},
                      {"equation": "...ij,...jk->...ik"}, _einsum_expect),
              Example({"Operands": [rand(3), rand(4)]}, {"equation": "i,j->ij"},
                      _einsum_expect)],
)
def einsum(Operands, equation):
    dtype = Operands[0].dtype
    return {"Out": np.asarray(np.einsum(equation, *Operands), dtype)}


@register_op("einsum_grad", inputs=[Slot("Operands", duplicable=True), "Out@GRAD"],
             outputs=[Slot("Operands@GRAD", duplicable=True)],
             attrs=[Attr("equation", T.STRING, "")],
             grad_of="einsum",
             doc="dOperand_i = einsum of dOut with the other operands onto operand i's "
                 "labels (summed back over broadcast dims)")
def einsum_grad(Operands, Out_grad, equation):
    labels, out = einsum_labels(equation, [o.ndim for o in Operands])
    sizes = {}
    for term, op in zip(labels, Operands):
        for c, d in zip(term, op.shape):
            sizes[c] = max(sizes.get(c, 1), d)
    grads = []
    for i, (term, op) in enumerate(zip(labels, Operands)):
        if len(set(term)) != len(term):
            raise PyirError(f"einsum: no gradient for the repeated subscripts {term!r}")
        others = [(t, o) for j, (t, o) in enumerate(zip(labels, Operands)) if j != i]
        # Broadcast every operand to the full label sizes: the product rule is then plain.
        full = [np.broadcast_to(o, tuple(sizes[c] for c in t)) for t, o in others]
        g = np.broadcast_to(Out_grad, tuple(sizes[c] for c in out))
        ones = np.ones(tuple(sizes[c] for c in term), op.dtype)
        spec = ",".join([t for t, _ in others] + [out, term]) + "->" + term
        grad = np.einsum(spec, *full, g, ones)
        keep = tuple(k for k, d in enumerate(op.shape) if d == 1 and grad.shape[k] != 1)
        grads.append(grad.sum(axis=keep, keepdims=True).astype(op.dtype) if keep
                     else grad.astype(op.dtype, copy=False))
    return {"Operands@GRAD": grads}


# --- multi_dot ----------------------------------------------------------------------------------
def _as_chain(X):
    """The matrices of a multi_dot chain: a 1-D first operand is a row, a 1-D last a column."""
    mats = list(X)
    if mats[0].ndim == 1:
        mats[0] = mats[0][None, :]
    if mats[-1].ndim == 1:
        mats[-1] = mats[-1][:, None]
    return mats


def _infer_multi_dot(ctx):
    xs = ctx.input_list("X")
    shape = ((xs[0].shape[0],) if len(xs[0].shape) == 2 else ()) + \
        ((xs[-1].shape[-1],) if len(xs[-1].shape) == 2 else ())
    return {"Out": VarSpec(shape, xs[0].dtype)}


@register_op(
    "multi_dot", inputs=[Slot("X", duplicable=True)], outputs=["Out"], infer=_infer_multi_dot,
    grad=default_grad("multi_dot_grad"),
    doc="Out = X[0] @ X[1] @ ... (first / last may be vectors), in the cheapest order",
    examples=[Example({"X": [rand(2, 3), rand(3, 4), rand(4, 2)]},
                      expect=lambda X: {"Out": X[0] @ X[1] @ X[2]}),
              Example({"X": [rand(3), rand(3, 4), rand(4)]},
                      expect=lambda X: {"Out": np.array(X[0] @ X[1] @ X[2], np.float32)})],
)
def multi_dot(X):
    return {"Out": np.asarray(np.linalg.multi_dot(list(X)), X[0].dtype)}


@register_op("multi_dot_grad", inputs=[Slot("X", duplicable=True), "Out@GRAD"],
             outputs=[Slot("X@GRAD", duplicable=True)], grad_of="multi_dot",
             doc="dX[i] = (X[0]..X[i-1])^T dOut (X[i+1]..X[n-1])^T")
def multi_dot_grad(X, Out_grad):
    mats = _as_chain(X)
    g = Out_grad.reshape(mats[0].shape[0], mats[-1].shape[1])
    grads = []
    for i in range(len(mats)):
        left = np.linalg.multi_dot(mats[:i]) if i > 1 else (mats[0] if i == 1 else None)
        right = np.linalg.multi_dot(mats[i + 1:]) if len(mats) - i > 2 else \
            (mats[-1] if i == len(mats) - 2 else None)
        d = g if right is None else g @ right.T
        d = d if left is None else left.T @ d
        grads.append(d.reshape(X[i].shape).astype(X[i].dtype, copy=False))
    return {"X@GRAD": grads}


# --- histogram, bincount ------------------------------------------------------------------------
_HISTOGRAM_ATTRS = [Attr("bins", T.LONG, 100), Attr("min", T.FLOAT, 0.0),
                    Attr("max", T.FLOAT, 0.0), Attr("density", T.BOOLEAN, False)]


def histogram_range(X, lo: float, hi: float) -> tuple[float, float]:
    """Paddle's range: [min, max] of X when both bounds are 0, widened by 1 when empty."""
    if lo == 0 and hi == 0 and X.size:
        lo, hi = float(X.min()), float(X.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    return lo, hi


def _histogram_dtype(Weight, density):
    if Weight is None and not density:
        return np.dtype(np.int64)
    if Weight is not None and Weight.dtype == np.float64:
        return Weight.dtype
    return np.dtype(np.float32)


def _histogram_expect(X, Weight=None, bins=100, min=0.0, max=0.0, density=False):  # noqa: A002
    lo, hi = histogram_range(X, min, max)
    counts, _ = np.histogram(X.astype(np.float64), bins, (lo, hi), weights=Weight,
                             density=density)
    return {"Out": counts.astype(_histogram_dtype(Weight, density))}


@register_op(
    "histogram", inputs=["X", Slot("Weight", dispensable=True, no_grad=True)], outputs=["Out"],
    attrs=_HISTOGRAM_ATTRS, differentiable=False,
    infer=lambda ctx: {"Out": VarSpec((ctx.attr("bins"),), np.dtype(np.int64)
                                      if ctx.input("Weight") is None and not ctx.attr("density")
                                      else np.dtype(np.float32))},
    doc="Out = counts (weight sums) of X in `bins` equal bins over [min, max] (X's range when "
        "both are 0); values outside are dropped; density normalizes to a unit integral",
    examples=[Example({"X": rand(20)}, {"bins": 5}, _histogram_expect, grad=False),
              Example({"X": rand(3, 4), "Weight": rand(3, 4)},
                      {"bins": 3, "min": -0.5, "max": 0.5}, _histogram_expect, grad=False),
              Example({"X": np.array([1, 2, 1, 4], np.int64)}, {"bins": 4, "density": True},
                      _histogram_expect, grad=False)],
)
def histogram(X, Weight, bins, min, max, density):  # noqa: A002 - Paddle's attribute names
    if bins < 1:
        raise PyirError(f"histogram: bins must be at least 1, got {bins}")
    lo, hi = histogram_range(X, min, max)
    if hi < lo:
        raise PyirError(f"histogram: max ({max}) must not be less than min ({min})")
    weights = None if Weight is None else Weight.astype(np.float64).reshape(-1)
    counts, _ = np.histogram(X.astype(np.float64).reshape(-1), int(bins), (lo, hi),
                             weights=weights, density=density)
    return {"Out": counts.astype(_histogram_dtype(Weight, density))}


@register_op(
    "bincount", inputs=[Slot("X", no_grad=True), Slot("Weights", dispensable=True, no_grad=True)],
    outputs=["Out"], attrs=[Attr("minlength", T.INT, 0)], differentiable=False,
    infer=lambda ctx: {"Out": VarSpec((-1,), np.dtype(np.int64) if ctx.input("Weights") is None
                                      else ctx.input("Weights").dtype)},
    doc="Out[i] = how often i occurs in the 1-D non-negative X (or the sum of its Weights), "
        "at least minlength entries",
    examples=[Example({"X": np.array([1, 2, 1, 4], np.int64)}, {"minlength": 7},
                      lambda X, minlength: {"Out": np.array([0, 2, 1, 0, 1, 0, 0])},
                      grad=False),
              Example({"X": np.array([0, 3, 3], np.int32),
                       "Weights": np.array([0.5, 1.0, 2.0], np.float32)}, {},
                      lambda X, Weights, **a: {"Out": np.array([0.5, 0, 0, 3.0], np.float32)},
                      grad=False)],
)
def bincount(X, Weights, minlength):
    if X.ndim != 1 or X.dtype.kind not in "iu":
        raise PyirError(f"bincount: x must be a 1-D integer tensor, got {X.dtype} of shape "
                        f"{list(X.shape)}")
    if X.size and X.min() < 0:
        raise PyirError("bincount: x must be non-negative")
    out = np.bincount(X, weights=Weights, minlength=int(minlength))
    return {"Out": out.astype(np.int64 if Weights is None else Weights.dtype)}


# --- matrix_exp -----------------------------------------------------------------------------------
_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
           129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
           40840800.0, 960960.0, 16380.0, 182.0, 1.0)


def expm(a: np.ndarray) -> np.ndarray:
    """exp of square matrices (batched): scaling and squaring with the degree-13 Pade
    approximant (Higham 2005), computed in float64."""
    x = np.asarray(a, np.float64)
    n = x.shape[-1]
    norms = np.abs(x).sum(-2).max(-1, initial=0.0)  # 1-norms
    squarings = np.maximum(0, np.ceil(np.log2(np.maximum(norms, 1e-300) / 5.371920351148152))
                           ).astype(int)
    out = np.empty_like(x)
    flat_x, flat_out = x.reshape(-1, n, n), out.reshape(-1, n, n)
    for i, (m, s) in enumerate(zip(flat_x, np.ravel(squarings))):
        m = m / 2.0 ** s
        eye = np.eye(n)
        m2 = m @ m
        m4 = m2 @ m2
        m6 = m4 @ m2
        b = _PADE13
        u = m @ (m6 @ (b[13] * m6 + b[11] * m4 + b[9] * m2) + b[7] * m6 + b[5] * m4
                 + b[3] * m2 + b[1] * eye)
        v = m6 @ (b[12] * m6 + b[10] * m4 + b[8] * m2) + b[6] * m6 + b[4] * m4 + b[2] * m2 \
            + b[0] * eye
        r = np.linalg.solve(v - u, v + u)
        for _ in range(int(s)):
            r = r @ r
        flat_out[i] = r
    return out


def _expm_by_eig(X):
    w, v = np.linalg.eig(X.astype(np.float64))
    return np.real(v @ (np.exp(w)[..., None] * np.linalg.inv(v))).astype(X.dtype)


@register_op(
    "matrix_exp", inputs=["X"], outputs=["Out"],
    infer=lambda ctx: {"Out": ctx.input("X")}, grad=default_grad("matrix_exp_grad", uses=["X"]),
    doc="Out = exp(X) = sum X^k / k! for square matrices (a pyir op; Paddle composes it)",
    examples=[Example({"X": rand(3, 3)}, expect=lambda X: {"Out": _expm_by_eig(X)}),
              Example({"X": 3 * rand(2, 2, 2)}, expect=lambda X: {"Out": _expm_by_eig(X)}),
              Example({"X": np.array([[0.0, 1.0], [0.0, 0.0]], np.float32)},
                      expect={"Out": np.array([[1.0, 1.0], [0.0, 1.0]], np.float32)})],
)
def matrix_exp(X):
    return {"Out": expm(X).astype(X.dtype)}


@register_op("matrix_exp_grad", inputs=["X", "Out@GRAD"], outputs=["X@GRAD"],
             grad_of="matrix_exp",
             doc="dX = the upper-right block of exp([[X^T, dOut], [0, X^T]])")
def matrix_exp_grad(X, Out_grad):
    n = X.shape[-1]
    xt = np.swapaxes(X, -1, -2).astype(np.float64)
    block = np.zeros(X.shape[:-2] + (2 * n, 2 * n))
    block[..., :n, :n] = xt
    block[..., n:, n:] = xt
    block[..., :n, n:] = Out_grad
    return {"X@GRAD": expm(block)[..., :n, n:].astype(X.dtype)}
