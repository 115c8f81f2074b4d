"""The global random stream behind random ops whose `seed` attribute is 0."""

from __future__ import annotations

import numpy as np

_generator = np.random.default_rng()


def seed(value: int) -> None:
    """Make every unseeded random op reproducible from here on (like `paddle.seed`)."""
    global _generator
    _generator = np.random.default_rng(value)


def generator() -> np.random.Generator:
    return _generator
