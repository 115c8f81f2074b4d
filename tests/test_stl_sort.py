"""pyir.ops.stl_sort replays libstdc++'s std::sort, std::nth_element and std::partial_sort, so
Paddle's detection kernels break score ties as they do. The expected permutations below were
printed by a C++ program compiled with g++ (libstdc++) sorting indices by descending key with
the same calls; the keys have many ties, and the lengths pass the insertion-sort threshold (16).
"""

from __future__ import annotations

import pytest

from pyir.ops import stl_sort as stl

# (algorithm, k (nth / middle), keys, the index order libstdc++ leaves)
CASES = [
    ('sort', 0, [2, 1, 2, 2, 1, 2, 2, 0, 0, 0, 0, 2],
     [0, 2, 3, 5, 6, 11, 1, 4, 7, 8, 9, 10]),
    ('sort', 0, [3, 0, 1, 3, 0, 3, 0, 1, 3, 1, 1, 1, 2, 1, 3, 1, 1, 2, 2, 2, 2, 3, 3, 3, 2, 2, 1, 3, 1, 0, 3, 0, 3, 2, 0, 0, 1, 0, 0, 2],
     [3, 32, 5, 30, 27, 8, 0, 14, 23, 22, 21, 25, 18, 19, 24, 20, 33, 39, 17, 12, 16, 2, 36, 28, 7, 26, 9, 10, 11, 13, 15, 38, 37, 1, 35, 34, 4, 31, 6, 29]),
    ('sort', 0, [1, 0, 1, 1, 1, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 0, 1, 0, 0, 0, 1, 1, 1, 0, 1, 0, 1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1, 1, 0, 1, 0, 1],
     [45, 26, 28, 30, 31, 33, 34, 0, 36, 37, 39, 43, 44, 35, 46, 47, 48, 50, 51, 54, 56, 61, 64, 65, 67, 69, 24, 2, 7, 3, 4, 20, 25, 18, 17, 12, 16, 5, 57, 52, 6, 55, 53, 10, 58, 59, 60, 62, 63, 66, 68, 1, 40, 27, 29, 23, 22, 32, 21, 19, 38, 8, 41, 42, 15, 14, 13, 11, 49, 9]),
    ('nth', 9, [1, 1, 1, 2, 2, 0, 1, 1, 1, 0, 0, 1, 2, 0, 1, 2, 2, 0, 0, 2, 0, 0, 1, 2, 0, 1, 1, 0, 2, 2],
     [15, 29, 28, 23, 19, 16, 12, 4, 3, 22, 25, 8, 26, 2, 1, 0, 5, 17, 18, 14, 20, 21, 13, 6, 24, 11, 10, 27, 9, 7]),
    ('nth', 25, [2, 4, 3, 4, 4, 2, 1, 0, 2, 0, 3, 4, 1, 2, 0, 0, 1, 4, 4, 3, 2, 2, 0, 1, 4, 2, 1, 1, 3, 0, 4, 4, 2, 2, 3, 2, 2, 1, 2, 3, 0, 0, 3, 1, 4, 0, 4, 0, 2, 4],
     [1, 49, 46, 44, 31, 30, 24, 18, 17, 11, 36, 28, 10, 2, 3, 42, 39, 4, 32, 19, 33, 34, 38, 0, 48, 35, 5, 27, 26, 29, 25, 6, 23, 22, 21, 20, 7, 37, 8, 16, 40, 41, 15, 43, 14, 45, 13, 47, 12, 9]),
    ('partial', 7, [0, 1, 2, 1, 0, 1, 1, 2, 2, 1, 0, 1, 0, 2, 2, 1, 2, 1, 1, 2, 2, 2, 2, 0, 1],
     [14, 7, 16, 19, 8, 13, 2, 4, 0, 9, 10, 11, 12, 6, 5, 15, 1, 17, 18, 3, 20, 21, 22, 23, 24]),
    ('partial', 45, [3, 1, 0, 2, 3, 2, 3, 2, 0, 3, 1, 3, 3, 3, 0, 3, 2, 1, 3, 3, 2, 0, 2, 0, 0, 0, 0, 3, 1, 0, 0, 1, 1, 1, 3, 3, 2, 3, 1, 0, 1, 0, 3, 0, 1],
     [27, 18, 35, 42, 12, 34, 37, 19, 11, 15, 0, 13, 9, 4, 6, 16, 3, 36, 20, 7, 22, 5, 32, 33, 17, 38, 10, 44, 31, 40, 1, 28, 8, 39, 41, 21, 43, 23, 24, 25, 26, 2, 29, 14, 30]),
    ('partial', 0, [0, 1, 0, 1, 1, 1, 1, 1, 1],
     [1, 0, 2, 3, 4, 5, 6, 7, 8]),
]


@pytest.mark.parametrize("algo, k, keys, want", CASES)
def test_matches_libstdcxx(algo, k, keys, want):
    order = list(range(len(keys)))
    higher = lambda i, j: keys[i] > keys[j]  # noqa: E731
    if algo == "sort":
        stl.sort(order, 0, len(order), higher)
    elif algo == "nth":
        stl.nth_element(order, 0, k, len(order), higher)
    else:
        stl.partial_sort(order, 0, k, len(order), higher)
    assert order == want


def test_orders_are_sorted_where_the_algorithm_promises():
    keys = [3, 1, 3, 2, 2, 3, 0, 1, 3, 2] * 5
    higher = lambda i, j: keys[i] > keys[j]  # noqa: E731
    order = list(range(len(keys)))
    stl.sort(order, 0, len(order), higher)
    assert [keys[i] for i in order] == sorted(keys, reverse=True)
    order = list(range(len(keys)))
    stl.nth_element(order, 0, 20, len(order), higher)
    assert all(keys[i] >= keys[order[20]] for i in order[:20])
    assert all(keys[i] <= keys[order[20]] for i in order[21:])
    order = list(range(len(keys)))
    stl.partial_sort(order, 0, 12, len(order), higher)
    assert [keys[i] for i in order[:12]] == sorted(keys, reverse=True)[:12]
    assert sorted(order) == list(range(len(keys)))
