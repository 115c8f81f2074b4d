"""Input encodings of `paddle.nn.functional`: one_hot, embedding, embedding_renorm_ (static
and eager alike)."""

from __future__ import annotations

import numbers

from ... import dtypes
from ...dispatch import apply_op
from ...dispatch import out as _out
from ...framework import Variable
from ...tensor import cast, reshape, scale
from ._base import fail, where

__all__ = ["one_hot", "embedding", "embedding_renorm_"]

# Paddle names of this family pyir leaves out, with the reason (pyir/unsupported.py).
UNSUPPORTED: dict[str, str] = {}


def one_hot(x, num_classes: int = -1, name: str | None = None):
    """float32 one-hot vectors of the class indices x (op `one_hot_v2`); num_classes -1 takes
    max(x) + 1 (computed by ops, as a depth tensor).

    Example:
        >>> y = F.one_hot(label, num_classes=10)   # [N] -> [N, 10]
    """
    attrs = {"depth": int(num_classes), "allow_out_of_range": False,
             "dtype": dtypes.to_code(dtypes.to_numpy("float32"))}
    if num_classes == -1:
        top = _out("reduce_max", {"X": x}, {"dim": [], "keep_dim": False, "reduce_all": True})
        depth = cast(scale(top, 1.0, 1.0), "int32")
        return _out("one_hot_v2", {"X": x, "depth_tensor": depth}, attrs, name=name)
    if not isinstance(num_classes, numbers.Integral) or num_classes < 1:
        fail("one_hot", f"num_classes must be a positive int or -1, got {num_classes!r}")
    return _out("one_hot_v2", {"X": x}, attrs, name=name)


def embedding(x, weight, padding_idx=None, max_norm=None, norm_type: float = 2.0,
              sparse: bool = False, scale_grad_by_freq: bool = False, name: str | None = None):
    """The rows of weight [num, dim] at the ids x (op `lookup_table_v2`); rows at padding_idx
    read as zeros (a negative padding_idx counts from the end); with max_norm the looked-up
    rows of weight are first renormalized in place.

    Example:
        >>> vectors = F.embedding(ids, table, padding_idx=0)
    """
    rows = weight.shape[0]
    if padding_idx is None:
        padding_idx = -1
    else:
        if not -rows <= padding_idx < rows:
            fail("embedding", f"padding_idx must be in [{-rows}, {rows}), got {padding_idx}",
                 "lookup_table_v2")
        padding_idx = padding_idx if padding_idx >= 0 else rows + padding_idx
    if scale_grad_by_freq:
        fail("embedding", "scale_grad_by_freq is not supported by pyir", "lookup_table_v2")
    if max_norm is not None:
        embedding_renorm_(x, weight, max_norm, norm_type)
    return _out("lookup_table_v2", {"Ids": x, "W": weight}, {"padding_idx": int(padding_idx)},
                name=name)


def embedding_renorm_(x, weight, max_norm: float, norm_type: float = 2.0):
    """Scale the rows of weight that x looks up to p-norm at most max_norm (by max_norm /
    (norm + 1e-7)), in place; returns weight.

    Example:
        >>> F.embedding_renorm_(ids, table, max_norm=1.0)
    """
    ids = reshape(x, [-1])
    picked = _out("gather", {"X": weight, "Index": ids}, {"axis": 0})
    norms = _out("p_norm", {"X": picked}, {"axis": 1, "porder": float(norm_type),
                                           "keepdim": True, "epsilon": 0.0,
                                           "asvector": False})
    factor = where(norms > float(max_norm), float(max_norm) / (norms + 1e-7), norms * 0.0 + 1.0)
    updated = _out("scatter", {"X": weight, "Ids": ids, "Updates": picked * factor},
                   {"overwrite": True})
    if isinstance(weight, Variable):
        return apply_op("assign", {"X": updated}, outputs={"Out": weight})["Out"]
    weight._value = updated.numpy()
    return weight
