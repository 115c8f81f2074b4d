"""Statistics: `pyir.mean`, ... (Paddle's `paddle.tensor.stat`)."""

from __future__ import annotations

from ..dispatch import out
from .math import reduce_attrs

__all__ = ["mean"]

# Paddle names of this family pyir leaves out, with the reason (pyir/unsupported.py).
UNSUPPORTED: dict[str, str] = {}


def mean(x, axis=None, keepdim: bool = False, name: str | None = None):
    """Mean over `axis` (all axes when None), op `reduce_mean`.

    Example:
        >>> loss = pyir.mean(per_example_loss)   # mean_0.tmp_0, a 0-D variable
    """
    return out("reduce_mean", {"X": x}, reduce_attrs(x, axis, keepdim, "reduce_mean"),
               name=name, stem="mean")
