"""softmax_with_cross_entropy (+ grad) take an indexing path when every hard label names a
class and none can be ignore_index: it must give the one-hot path's values bit for bit."""

import numpy as np
import pytest

from pyir import registry

FORWARD = registry.get("softmax_with_cross_entropy").kernel
GRAD = registry.get("softmax_with_cross_entropy_grad").kernel


@pytest.mark.parametrize("shape, axis", [((32, 10), -1), ((4, 7), 1), ((3, 5, 6), 1),
                                         ((2, 3, 4), -1)])
def test_the_indexing_path_equals_the_one_hot_path(shape, axis):
    rng = np.random.default_rng(0)
    logits = (rng.standard_normal(shape) * 3).astype(np.float32)
    classes = shape[axis]
    label_shape = tuple(1 if i == axis % len(shape) else d for i, d in enumerate(shape))
    # every class but the last, so that ignore_index=classes-1 never matches yet forces the
    # one-hot path (it lies between the smallest and the largest label)
    labels = rng.integers(0, classes - 1, label_shape).astype(np.int64)
    labels.reshape(-1)[:2] = [0, classes - 2]
    fast = FORWARD(logits, labels, False, True, True, -100, axis)
    slow = FORWARD(logits, labels, False, True, True, classes - 1, axis)
    for slot in ("Softmax", "Loss"):
        assert fast[slot].dtype == slow[slot].dtype == np.float32
        assert np.array_equal(fast[slot], slow[slot]), slot
    dloss = rng.random(fast["Loss"].shape).astype(np.float32)
    fast_grad = GRAD(labels, fast["Softmax"], dloss, False, True, True, -100, axis)
    slow_grad = GRAD(labels, slow["Softmax"], dloss, False, True, True, classes - 1, axis)
    assert np.array_equal(fast_grad["Logits@GRAD"], slow_grad["Logits@GRAD"])
