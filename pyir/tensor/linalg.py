"""Linear algebra: `pyir.matmul`, ... (Paddle's `paddle.tensor.linalg`; `pyir.linalg`
re-exports the names Paddle has there)."""

from __future__ import annotations

from ..dispatch import out

__all__ = ["matmul"]

# Paddle names of this family pyir leaves out, with the reason (pyir/unsupported.py).
UNSUPPORTED: dict[str, str] = {}


def matmul(x, y, transpose_x: bool = False, transpose_y: bool = False, name: str | None = None):
    """Matrix product with numpy batching and broadcasting (op `matmul_v2`).

    Args:
        transpose_x / transpose_y: transpose the last two dims of x / y first.

    Example:
        >>> out = pyir.matmul(x, w, transpose_y=True)
    """
    return out("matmul_v2", {"X": x, "Y": y},
               {"trans_x": bool(transpose_x), "trans_y": bool(transpose_y)}, name=name)
