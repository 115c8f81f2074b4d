"""Paddle's torch-style top-level `softmax(input, dim, dtype)`, on `nn.functional.softmax`."""

from __future__ import annotations

from . import functional as F


def softmax(input, dim: int | None = None, dtype=None, *, out=None):  # noqa: A002
    """Softmax along `dim` (op `softmax`); without `dim`, along dim 0 for 0-, 1- and 3-D input
    and dim 1 otherwise, as torch picks it.

    Example:
        >>> p = pyir.softmax(logits, dim=-1)
    """
    if dim is None:
        dim = 0 if len(input.shape) in (0, 1, 3) else 1
    return F.softmax(input, axis=dim, dtype=dtype, out=out)


__all__ = ["softmax"]
