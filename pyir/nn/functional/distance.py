"""Distances of `paddle.nn.functional`: pairwise_distance (p_norm of the difference) and pdist
(the upper triangle of the pairwise distance matrix), static and eager alike."""

from __future__ import annotations

import numpy as np

from ... import dtypes

from ...dispatch import out as _out
from ...tensor import full, unsqueeze
from ._base import fail

__all__ = ["pairwise_distance", "pdist"]

# Paddle names of this family pyir leaves out, with the reason (pyir/unsupported.py).
UNSUPPORTED: dict[str, str] = {}


def pairwise_distance(x, y, p: float = 2.0, epsilon: float = 1e-6, keepdim: bool = False,
                      name: str | None = None):
    """||x - y + epsilon||_p along the last axis (elementwise_sub, elementwise_add, p_norm).

    Example:
        >>> d = F.pairwise_distance(a, b)   # [N, D], [N, D] -> [N]
    """
    sub = x - y
    if epsilon != 0.0:
        sub = sub + full([1], float(epsilon), sub.dtype)
    return _out("p_norm", {"X": sub}, {"axis": -1, "porder": float(p), "keepdim": bool(keepdim),
                                       "epsilon": 0.0, "asvector": False}, name=name)


def pdist(x, p: float = 2.0, name: str | None = None):
    """The p-norm distances between the rows of x [N, D], pairs i < j in row order (p_norm of
    the broadcast differences, masked_select of the upper triangle).

    Example:
        >>> d = F.pdist(points)   # [N, D] -> [N (N - 1) / 2]
    """
    if len(x.shape) != 2:
        fail("pdist", f"x must be 2-D, got shape {list(x.shape)}")
    diff = unsqueeze(x, -2) - unsqueeze(x, -3)
    d = _out("p_norm", {"X": diff}, {"axis": -1, "porder": float(p), "keepdim": False,
                                     "epsilon": 1e-12, "asvector": False})
    ones = _out("fill_any_like", {"X": d}, {"value": 1.0, "dtype": dtypes.to_code(
        np.dtype(bool))})
    mask = _out("logical_not", {"X": _out("tril_triu", {"X": ones}, {"diagonal": 0,
                                                                     "lower": True})})
    return _out("masked_select", {"X": d, "Mask": mask}, slot="Y", name=name)
