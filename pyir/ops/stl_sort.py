"""The orders of libstdc++'s unstable sorts, for kernels whose tie-breaking is theirs.

Paddle's CPU kernels sort with `std::sort` (introsort: argsort with stable=False, detection
boxes), `std::nth_element` (introselect) and `std::partial_sort` (heap select + heap sort).
None is stable: equal values come out in an order fixed by the algorithm, and Paddle's outputs
(argsort's indices of a tie, which box of a tie is kept, in which row) follow it. These
functions replay GCC's libstdc++ algorithms step by step (bits/stl_algo.h, bits/stl_heap.h:
the same partitions, pivots, heap moves and insertion-sort threshold of 16) on a Python list,
in place, with `less(a, b)` as the comparator. Which kernel uses which sort:
docs/detection-ops.md.
"""

from __future__ import annotations

_THRESHOLD = 16


def _lg(n: int) -> int:
    return n.bit_length() - 1


# --- heaps ------------------------------------------------------------------------------------
def _push_heap(a, first, hole, top, value, less):
    parent = (hole - 1) // 2
    while hole > top and less(a[first + parent], value):
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = value


def _adjust_heap(a, first, hole, length, value, less):
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if less(a[first + child], a[first + child - 1]):
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    _push_heap(a, first, hole, top, value, less)


def _make_heap(a, first, last, less):
    length = last - first
    if length < 2:
        return
    parent = (length - 2) // 2
    while True:
        _adjust_heap(a, first, parent, length, a[first + parent], less)
        if parent == 0:
            return
        parent -= 1


def _pop_heap(a, first, last, result, less):
    value = a[result]
    a[result] = a[first]
    _adjust_heap(a, first, 0, last - first, value, less)


def _heap_select(a, first, middle, last, less):
    _make_heap(a, first, middle, less)
    for i in range(middle, last):
        if less(a[i], a[first]):
            _pop_heap(a, first, middle, i, less)


def _sort_heap(a, first, last, less):
    while last - first > 1:
        last -= 1
        _pop_heap(a, first, last, last, less)


def partial_sort(a, first, middle, last, less) -> None:
    """std::partial_sort(a + first, a + middle, a + last, less)."""
    _heap_select(a, first, middle, last, less)
    _sort_heap(a, first, middle, less)


# --- quicksort pieces -------------------------------------------------------------------------
def _move_median_to_first(a, result, x, y, z, less):
    if less(a[x], a[y]):
        if less(a[y], a[z]):
            pick = y
        elif less(a[x], a[z]):
            pick = z
        else:
            pick = x
    elif less(a[x], a[z]):
        pick = x
    elif less(a[y], a[z]):
        pick = z
    else:
        pick = y
    a[result], a[pick] = a[pick], a[result]


def _unguarded_partition(a, first, last, pivot, less):
    while True:
        while less(a[first], a[pivot]):
            first += 1
        last -= 1
        while less(a[pivot], a[last]):
            last -= 1
        if not first < last:
            return first
        a[first], a[last] = a[last], a[first]
        first += 1


def _partition_pivot(a, first, last, less):
    mid = first + (last - first) // 2
    _move_median_to_first(a, first, first + 1, mid, last - 1, less)
    return _unguarded_partition(a, first + 1, last, first, less)


def _unguarded_linear_insert(a, last, less):
    value = a[last]
    prev = last - 1
    while less(value, a[prev]):
        a[last] = a[prev]
        last = prev
        prev -= 1
    a[last] = value


def _insertion_sort(a, first, last, less):
    if first == last:
        return
    for i in range(first + 1, last):
        if less(a[i], a[first]):
            value = a[i]
            a[first + 1:i + 1] = a[first:i]
            a[first] = value
        else:
            _unguarded_linear_insert(a, i, less)


def _introsort_loop(a, first, last, depth, less):
    while last - first > _THRESHOLD:
        if depth == 0:
            partial_sort(a, first, last, last, less)
            return
        depth -= 1
        cut = _partition_pivot(a, first, last, less)
        _introsort_loop(a, cut, last, depth, less)
        last = cut


def sort(a, first, last, less) -> None:
    """std::sort(a + first, a + last, less)."""
    if first == last:
        return
    _introsort_loop(a, first, last, 2 * _lg(last - first), less)
    if last - first > _THRESHOLD:
        _insertion_sort(a, first, first + _THRESHOLD, less)
        for i in range(first + _THRESHOLD, last):
            _unguarded_linear_insert(a, i, less)
    else:
        _insertion_sort(a, first, last, less)


def nth_element(a, first, nth, last, less) -> None:
    """std::nth_element(a + first, a + nth, a + last, less)."""
    if first == last or nth == last:
        return
    depth = 2 * _lg(last - first)
    while last - first > 3:
        if depth == 0:
            _heap_select(a, first, nth + 1, last, less)
            a[first], a[nth] = a[nth], a[first]
            return
        depth -= 1
        cut = _partition_pivot(a, first, last, less)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(a, first, last, less)
