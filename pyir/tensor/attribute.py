"""Facts about a tensor's dtype: `pyir.is_complex`, `pyir.is_floating_point`,
`pyir.is_integer` (Paddle's `paddle.tensor.attribute`; its `shape` and `rank` are exported from
the manipulation family, `real` / `imag` need complex tensors, which pyir leaves out)."""

from __future__ import annotations

import numpy as np

from ..dispatch import dtype_of
from ..errors import BuildError, Where
from ..unsupported import COMPLEX
from .manip_shape import TENSORS

__all__ = ["is_complex", "is_floating_point", "is_integer"]

# Paddle names of this family pyir leaves out, with the reason (pyir/unsupported.py).
UNSUPPORTED: dict[str, str] = {"real": COMPLEX, "imag": COMPLEX}


def _kind(x, fn: str) -> str:
    if not isinstance(x, TENSORS):
        raise BuildError(f"{fn} expects a Tensor or Variable, got {type(x).__name__}",
                         Where(op_type=fn))
    return np.dtype(dtype_of(x)).kind


def is_complex(x) -> bool:
    """Whether x's dtype is complex (never, in pyir).

    Example:
        >>> pyir.is_complex(x)   # False
    """
    return _kind(x, "is_complex") == "c"


def is_floating_point(x) -> bool:
    """Whether x's dtype is a float type.

    Example:
        >>> pyir.is_floating_point(pyir.ones([2]))   # True
    """
    return _kind(x, "is_floating_point") == "f"


def is_integer(x) -> bool:
    """Whether x's dtype is an integer type (bool is not).

    Example:
        >>> pyir.is_integer(pyir.arange(3))   # True
    """
    return _kind(x, "is_integer") in "iu"
