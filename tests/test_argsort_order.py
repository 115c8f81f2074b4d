"""argsort orders ties and NaNs as Paddle 3.3.1's CPU kernel does (tests/golden_ordering,
written by tools/gen_golden_argsort.py): NaN last ascending and first descending, ties in index
order when stable=True, and where libstdc++'s std::sort leaves them when stable=False."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import pyir
from pyir.ops import ordering

GOLDEN = np.load(pathlib.Path(__file__).resolve().parent / "golden_ordering" / "argsort.npz")
CASES = sorted(int(k[1:]) for k in GOLDEN.files if k.startswith("x"))


@pytest.mark.parametrize("case", CASES)
def test_argsort_matches_paddle_on_ties_and_nans(case):
    x, want = GOLDEN[f"x{case}"], GOLDEN[f"indices{case}"]
    axis, descending, stable = (int(v) for v in GOLDEN[f"args{case}"])
    pyir.disable_static()
    got = pyir.argsort(pyir.to_tensor(x), axis=axis, descending=bool(descending),
                       stable=bool(stable))
    np.testing.assert_array_equal(got.numpy(), want)


def test_the_goldens_pin_an_order_a_stable_sort_does_not_give():
    """Long tied rows: Paddle's unstable order differs from the index order."""
    unstable = [c for c in CASES if not GOLDEN[f"args{c}"][2]]
    differs = 0
    for c in unstable:
        x = GOLDEN[f"x{c}"]
        axis, descending, _ = (int(v) for v in GOLDEN[f"args{c}"])
        stable = ordering.argsort(x, axis, bool(descending), True)["Indices"]
        differs += not np.array_equal(stable, GOLDEN[f"indices{c}"])
    assert differs >= 5


def test_short_rows_and_rows_without_ties_keep_index_order():
    x = np.array([[2.0, 1.0, 2.0, 1.0], [4.0, 3.0, 2.0, 1.0]], np.float32)
    got = ordering.argsort(x, -1, False, False)["Indices"]
    np.testing.assert_array_equal(got, [[1, 3, 0, 2], [3, 2, 1, 0]])


def test_nan_placement_follows_paddle():
    x = np.array([np.nan, 1.0, np.nan, 5.0, 2.0], np.float32)
    np.testing.assert_array_equal(ordering.argsort(x, 0, True, True)["Indices"], [0, 2, 3, 4, 1])
    np.testing.assert_array_equal(ordering.argsort(x, 0, False, True)["Indices"], [1, 4, 3, 0, 2])


def test_past_the_replay_limit_ties_keep_the_stable_order(monkeypatch):
    monkeypatch.setattr(ordering, "REPLAY_LIMIT", 10)
    x = np.tile(np.arange(3, dtype=np.float32), 20)[None]  # 60 elements, many ties
    got = ordering.argsort(x, -1, False, False)["Indices"]
    np.testing.assert_array_equal(got, np.argsort(x, axis=-1, kind="stable"))


def test_empty_and_zero_d():
    assert ordering.argsort(np.zeros((2, 0), np.float32), -1, False, False)["Indices"].shape \
        == (2, 0)
    assert ordering.argsort(np.float32(3.0), -1, False, False)["Indices"].shape == ()
