"""`conj` (the complex conjugate; the identity on real tensors) and `share_data` (what a
static Variable's `detach()` emits: the same value, with no gradient), as Paddle's ops.
"""

from __future__ import annotations

import numpy as np

from ..registry import Example, register_op
from ._helpers import rand, register_unary, same_as

register_unary("conj", np.conj, lambda x, g: np.conj(g), "Out = conj(X)",
               [rand(3, 4), rand(2, 3, dtype="float64")], module=__name__, keep_dtype=True)


@register_op(
    "share_data", inputs=["X"], outputs=["Out"], infer=same_as("X"),
    doc="Out = X, cut from the gradient (Variable.detach)",
    examples=[Example({"X": rand(3, 2)}, expect=lambda X: {"Out": X})],
)
def share_data(X):
    return {"Out": np.array(X, copy=True)}
