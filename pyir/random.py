"""The global random stream behind random ops whose `seed` attribute is 0."""

from __future__ import annotations

import numpy as np

_generator = None  # made on first use: importing numpy.random costs ~13 ms of `import pyir`


def seed(seed: int) -> None:
    """Make every unseeded random op reproducible from here on (like `paddle.seed`)."""
    global _generator
    _generator = np.random.default_rng(seed)


def generator() -> np.random.Generator:
    global _generator
    if _generator is None:
        _generator = np.random.default_rng()
    return _generator
