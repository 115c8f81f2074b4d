"""Norms and distances: `pyir.norm`, `pyir.linalg.vector_norm`, `pyir.linalg.matrix_norm`,
`pyir.dist`, `pyir.cdist`, `pyir.pdist` (ops p_norm, frobenius_norm, svd + reductions)."""

from __future__ import annotations

import numbers

import numpy as np

from .. import dispatch
from ..dispatch import constant, ndim
from ._linalg_common import constant_tensor, refuse
from .manipulation import cast, gather, squeeze, transpose, unsqueeze
from .math import max as reduce_max, min as reduce_min, sum as reduce_sum

__all__ = ["norm", "vector_norm", "matrix_norm", "dist", "cdist", "pdist"]

_INF = float("inf")
_MATRIX_ORDERS = ("fro", "nuc", 1, -1, 2, -2, _INF, -_INF)


def _axes(axis, x, function: str) -> list[int] | None:
    if axis is None:
        return None
    axes = [axis] if isinstance(axis, numbers.Integral) else \
        list(axis) if isinstance(axis, (list, tuple)) else [axis]
    if not all(isinstance(a, numbers.Integral) for a in axes):
        refuse(function, f"axis must be an int or a list of ints, got {axis!r}")
    n = max(ndim(x), 1)
    for a in axes:
        if not -n <= a < n:
            refuse(function, f"axis {a} is out of range for a {ndim(x)}-D tensor")
    if len({a % n for a in axes}) != len(axes):
        refuse(function, f"axis {axes} repeats an axis")
    return [int(a) for a in axes]


def _p_norm(x, p: float, axis: int | None, keepdim: bool, name=None):
    attrs = {"porder": float(p), "axis": -1 if axis is None else int(axis), "epsilon": 1e-12,
             "keepdim": bool(keepdim), "asvector": axis is None}
    return dispatch.out("p_norm", {"X": x}, attrs, name=name)


def _order(p, function: str):
    if isinstance(p, str) or p is None:
        return p
    if not isinstance(p, numbers.Number):
        refuse(function, f"p must be a number, 'fro' or 'nuc', got {p!r}")
    return float(p)


def vector_norm(x, p: float = 2.0, axis=None, keepdim: bool = False, name: str | None = None,
                *, dtype=None, out=None):
    """The vector p-norm of x over `axis` (all elements when None): op `p_norm` for one axis
    or all, else abs / pow / reduce_sum / pow (reduce_max / min for +-inf).

    Example:
        >>> n = pyir.linalg.vector_norm(x, p=1, axis=[0, 1])
    """
    if out is not None:
        refuse("vector_norm", "out= is not supported by pyir; use the returned tensor")
    p = _order(p, "vector_norm")
    if isinstance(p, str):
        refuse("vector_norm", f"p must be a number, got {p!r}")
    if dtype is not None:
        x = cast(x, dtype)
    axes = _axes(axis, x, "vector_norm")
    if axes is None or len(axes) == 1:
        return _p_norm(x, p, None if axes is None else axes[0], keepdim, name)
    magnitude = dispatch.out("abs", {"X": x})
    if p == _INF:
        return reduce_max(magnitude, axes, keepdim, name=name)
    if p == -_INF:
        return reduce_min(magnitude, axes, keepdim, name=name)
    if p == 0:
        nonzero = dispatch.out("not_equal", {"X": magnitude, "Y": _zero_like(x)}, {"axis": -1})
        return reduce_sum(cast(nonzero, magnitude.dtype), axes, keepdim=keepdim, name=name)
    powered = dispatch.out("pow", {"X": magnitude}, {"factor": p})
    total = reduce_sum(powered, axes, keepdim=keepdim)
    return dispatch.out("pow", {"X": total}, {"factor": 1.0 / p}, name=name)


def _zero_like(x):
    return constant(dispatch.out("fill_any_like", {"X": x}, {"value": 0.0, "dtype": -1}))


def _svd_values(x, axes):
    """The singular values of x's (axes[0], axes[1]) planes, via op `svd`."""
    n = ndim(x)
    a0, a1 = axes[0] % n, axes[1] % n
    perm = [i for i in range(n) if i not in (a0, a1)] + [a0, a1]
    moved = transpose(x, perm) if perm != list(range(n)) else x
    return dispatch.apply_op("svd", {"X": moved}, {"full_matrices": False})["S"]


def _matrix_norm(x, p, axes, keepdim: bool, name, function: str):
    n = ndim(x)
    if len(axes) != 2 or n < 2:
        refuse(function, f"a matrix norm needs 2 axes of an at least 2-D x, got axis {axes} "
                          f"of a {n}-D x")
    if p not in _MATRIX_ORDERS:
        refuse(function, f"p must be one of 'fro', 'nuc', 1, -1, 2, -2, inf, -inf for a "
                          f"matrix norm, got {p!r}")
    a0, a1 = axes[0] % n, axes[1] % n
    if p == "fro":
        return dispatch.out("frobenius_norm", {"X": x},
                            {"dim": axes, "keep_dim": bool(keepdim),
                             "reduce_all": False, "in_dtype": -1, "out_dtype": -1},
                            name=name)
    if p in ("nuc", 2, -2):
        values = _svd_values(x, axes)
        reduce = {"nuc": reduce_sum, 2: reduce_max, -2: reduce_min}[p]
        result = reduce(values, -1)
        return unsqueeze(result, sorted([a0, a1]), name=name) if keepdim else result
    # 1 / -1: max / min over columns of column sums; inf / -inf: the same over rows.
    summed, other = (a0, a1) if abs(p) == 1 else (a1, a0)
    sums = _p_norm(x, 1.0, summed, True)
    picked = (reduce_max if p > 0 else reduce_min)(sums, other, keepdim=True)
    return picked if keepdim else squeeze(picked, sorted([a0, a1]), name=name)


def matrix_norm(x, p="fro", axis=(-2, -1), keepdim: bool = False, name: str | None = None):
    """The matrix norm of x's (axis[0], axis[1]) planes: 'fro' (op `frobenius_norm`), 'nuc' /
    2 / -2 (op `svd` + a reduction), 1 / -1 / inf / -inf (op `p_norm` + a reduction).

    Example:
        >>> n = pyir.linalg.matrix_norm(x, p="nuc")
    """
    return _matrix_norm(x, _order(p, "matrix_norm"), _axes(list(axis), x, "matrix_norm"),
                        keepdim, name, "matrix_norm")


def norm(x, p=None, axis=None, keepdim: bool = False, out=None, dtype=None,
         name: str | None = None):
    """A vector norm (p a number; one axis or all elements) or a matrix norm (two axes, or
    'fro' / 'nuc'), as Paddle picks them: p=None is the 2-norm ('fro' for two axes).

    Example:
        >>> n = pyir.norm(x, p=1, axis=-1)
    """
    if out is not None:
        refuse("norm", "out= is not supported by pyir; use the returned tensor")
    p = _order(p, "norm")
    if dtype is not None:
        x = cast(x, dtype)
    axes = _axes(axis, x, "norm")
    if isinstance(p, str) and p not in ("fro", "nuc"):
        refuse("norm", f"p must be a number, 'fro' or 'nuc', got {p!r}")
    if axes is None:
        if p == "nuc":
            if ndim(x) != 2:
                refuse("norm", f"p='nuc' without axis needs a 2-D x, got {ndim(x)}-D")
            return _matrix_norm(x, p, [0, 1], keepdim, name, "norm")
        return _p_norm(x, 2.0 if p in (None, "fro") else p, None, keepdim, name)
    if len(axes) == 1:
        if p == "nuc":
            refuse("norm", "p='nuc' needs two axes")
        return _p_norm(x, 2.0 if p in (None, "fro") else p, axes[0], keepdim, name)
    if len(axes) == 2:
        return _matrix_norm(x, "fro" if p is None else p, axes, keepdim, name, "norm")
    refuse("norm", f"axis must be an int or a list of 1 or 2 ints, got {axes}")


def dist(x, y, p: float = 2, name: str | None = None):
    """The p-norm of x - y (broadcast) over all elements (op `dist`).

    Example:
        >>> d = pyir.dist(x, y, p=1)
    """
    return dispatch.out("dist", {"X": x, "Y": y}, {"p": float(p)}, name=name)


_CDIST_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                "donot_use_mm_for_euclid_dist")


def cdist(x, y, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary",
          name: str | None = None):
    """Pairwise p-norm distances of the rows of x [*, P, M] and y [*, R, M]: [*, P, R]
    (unsqueeze2, elementwise_sub, p_norm).

    Example:
        >>> d = pyir.cdist(a, b)
    """
    if compute_mode not in _CDIST_MODES:
        refuse("cdist", f"compute_mode must be one of {', '.join(_CDIST_MODES)}, got "
                         f"{compute_mode!r}")
    if ndim(x) < 2 or ndim(y) < 2:
        refuse("cdist", f"x and y must be at least 2-D, got {ndim(x)}-D and {ndim(y)}-D")
    if x.shape[-1] >= 0 and y.shape[-1] >= 0 and x.shape[-1] != y.shape[-1]:
        refuse("cdist", f"x {list(x.shape)} and y {list(y.shape)} need the same last dim")
    if p < 0:
        refuse("cdist", f"p must be non-negative, got {p}")
    rows = unsqueeze(x, [ndim(x) - 1])
    cols = unsqueeze(y, [ndim(y) - 2])
    diff = dispatch.out("elementwise_sub", {"X": rows, "Y": cols}, {"axis": -1},
                        anonymous=True)
    return _p_norm(diff, p, -1, False, name)


def pdist(x, p: float = 2.0, name: str | None = None):
    """The p-norm distances between the rows i < j of x [N, M], in row-major pair order:
    [N (N - 1) / 2] (gather, elementwise_sub, p_norm).

    Example:
        >>> d = pyir.pdist(points)
    """
    if ndim(x) != 2 or x.shape[0] < 0:
        refuse("pdist", f"x must be 2-D with a known number of rows, got shape "
                         f"{list(x.shape)}")
    first, second = np.triu_indices(x.shape[0], k=1)
    rows_i = gather(x, _index_constant(first, x))
    rows_j = gather(x, _index_constant(second, x))
    diff = dispatch.out("elementwise_sub", {"X": rows_i, "Y": rows_j}, {"axis": -1})
    return _p_norm(diff, p, -1, False, name)


def _index_constant(values, like):
    values = np.asarray(values, np.int64)
    return constant_tensor(values, like)
