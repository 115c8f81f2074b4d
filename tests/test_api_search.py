"""Search / sort / select API: static (ops and attributes Paddle emits, run by the Executor) and
eager against numpy; Paddle's tie rules; gradients; refusals."""

from __future__ import annotations

import numpy as np
import pytest

import pyir
from pyir.errors import BuildError

from linalg_harness import check_both, check_grads, run_eager, run_static, static_ops

R = np.random.default_rng(11)
X = R.uniform(-1, 1, (3, 4)).astype(np.float32)
X3 = R.uniform(-1, 1, (2, 3, 4)).astype(np.float32)
TIES = np.array([[1.0, 3.0, 3.0, 2.0], [2.0, 2.0, 0.0, 2.0]], np.float32)
INTS = np.array([3, 1, 2, 3, 1, 1], np.int64)


def _stable(x, axis=-1, descending=False):
    """A stable sort order in plain Python: descending keeps equal values in index order."""
    rows = np.moveaxis(x, axis, -1)
    flat = rows.reshape(-1, rows.shape[-1])
    idx = [sorted(range(len(r)), key=lambda j, r=r: (-r[j] if descending else r[j], j))
           for r in flat]
    return np.moveaxis(np.array(idx, np.int64).reshape(rows.shape), -1, axis)


def _take(x, idx, axis):
    return np.take_along_axis(x, idx, axis)


CASES = [
    ("argmax-all", pyir.argmax, [TIES], lambda x: np.int64(1), ["arg_max"]),
    ("argmax-axis-keepdim", lambda x: pyir.argmax(x, axis=1, keepdim=True), [TIES],
     lambda x: np.array([[1], [0]]), ["arg_max"]),
    ("argmax-int32", lambda x: pyir.argmax(x, axis=-2, dtype="int32"), [X3],
     lambda x: np.argmax(x, -2).astype(np.int32), ["arg_max"]),
    ("argmin-axis0", lambda x: pyir.argmin(x, axis=0), [TIES], lambda x: np.array([0, 1, 1, 0]),
     ["arg_min"]),
    ("argmin-all-keepdim", lambda x: pyir.argmin(x, keepdim=True), [X3],
     lambda x: np.argmin(x).reshape(1, 1, 1), ["arg_min"]),
    ("argsort-ties", pyir.argsort, [TIES], lambda x: _stable(x), ["argsort"]),
    ("argsort-descending-ties", lambda x: pyir.argsort(x, descending=True), [TIES],
     lambda x: np.array([[1, 2, 3, 0], [0, 1, 3, 2]]), ["argsort"]),
    ("argsort-axis0", lambda x: pyir.argsort(x, axis=0, stable=True), [X3],
     lambda x: _stable(x, 0), ["argsort"]),
    ("sort", lambda x: pyir.sort(x, axis=-2, descending=True), [X3],
     lambda x: -np.sort(-x, axis=-2), ["argsort"]),
    ("msort", pyir.msort, [X], lambda x: np.sort(x, axis=0), ["argsort"]),
    ("topk", lambda x: pyir.topk(x, 2), [TIES],
     lambda x: [np.array([[3.0, 3.0], [2.0, 2.0]]), np.array([[1, 2], [0, 1]])], ["top_k_v2"]),
    ("topk-smallest-axis0", lambda x: pyir.topk(x, 2, axis=0, largest=False), [X],
     lambda x: [_take(x, _stable(x, 0)[:2], 0), _stable(x, 0)[:2]], ["top_k_v2"]),
    ("topk-k0", lambda x: pyir.topk(x, 0), [X],
     lambda x: [np.zeros((3, 0), np.float32), np.zeros((3, 0), np.int64)], ["top_k_v2"]),
    ("kthvalue", lambda x: pyir.kthvalue(x, 2), [X],
     lambda x: [np.sort(x, -1)[:, 1], np.argsort(x, -1)[:, 1]], ["kthvalue"]),
    ("kthvalue-axis-keepdim", lambda x: pyir.kthvalue(x, 3, axis=1, keepdim=True), [X3],
     lambda x: [np.sort(x, 1)[:, 2:3], np.argsort(x, 1)[:, 2:3]], ["kthvalue"]),
    ("mode", pyir.mode, [np.array([[1, 2, 2, 3, 3], [5, 5, 4, 4, 1]], np.int64)],
     # Paddle 3.3.1: the smallest of the most frequent values, its last index
     lambda x: [np.array([2, 4]), np.array([2, 3])], ["mode"]),
    ("mode-axis0-keepdim", lambda x: pyir.mode(x, axis=0, keepdim=True),
     [np.array([[1.0, 2.0], [2.0, 2.0], [1.0, 3.0]], np.float32)],
     lambda x: [np.array([[1.0, 2.0]]), np.array([[2, 1]])], ["mode"]),
    ("where", lambda c, x, y: pyir.where(c, x, y), [X > 0, X, -X],
     lambda c, x, y: np.where(c, x, y), ["where"]),
    ("where-broadcast-cond", lambda c, x, y: pyir.where(c, x, y), [X[:1] > 0, X, -X],
     lambda c, x, y: np.where(c, x, y), ["elementwise_add", "cast", "where"]),
    ("where-broadcast", lambda c, x, y: pyir.where(c, x, y), [X[0] > 0, X, X[:1] * 2],
     lambda c, x, y: np.where(c, x, y), ["where"]),
    ("where-scalars", lambda c, x: pyir.where(c, x, 0.5), [X > 0, X],
     # the broadcast Paddle 3.3.1 emits around its same-shape `where` op
     lambda c, x: np.where(c, x, np.float32(0.5)),
     ["fill_constant", "fill_any_like", "fill_any_like", "fill_any_like", "cast", "cast",
      "elementwise_add", "elementwise_add", "elementwise_add", "elementwise_add",
      "elementwise_add", "cast", "where"]),
    ("where-nonzero-form", lambda c: pyir.where(c), [X > 0],
     lambda c: list(np.nonzero(c)), ["where_index", "slice", "slice"]),
    ("nonzero", pyir.nonzero, [X3 > 0.5], lambda c: np.argwhere(c), ["where_index"]),
    ("nonzero-tuple", lambda x: pyir.nonzero(x, as_tuple=True), [X3],
     lambda x: list(np.nonzero(x)), ["where_index", "slice", "slice", "slice"]),
    ("nonzero-empty", pyir.nonzero, [np.zeros((2, 2), np.float32)],
     lambda x: np.zeros((0, 2), np.int64), ["where_index"]),
    ("argwhere", pyir.argwhere, [X > 0], lambda c: np.argwhere(c), ["where_index"]),
    ("masked_select", pyir.masked_select, [X, X > 0], lambda x, m: x[m], ["masked_select"]),
    ("masked_select-broadcast-mask", pyir.masked_select, [X3, X3[0] > 0],
     lambda x, m: x[np.broadcast_to(m, x.shape)], ["masked_select"]),
    ("index_select", lambda x, i: pyir.index_select(x, i, axis=-1), [X, np.array([3, 0, 3])],
     lambda x, i: x[:, i], ["index_select"]),
    ("index_sample", pyir.index_sample, [X, np.array([[0, 3], [1, 1], [2, 0]])],
     lambda x, i: np.take_along_axis(x, i, 1), ["index_sample"]),
    ("searchsorted-1d", pyir.searchsorted,
     [np.array([1.0, 3.0, 3.0, 5.0], np.float32), np.array([[3.0, 0.0], [6.0, 4.0]], np.float32)],
     lambda s, v: np.searchsorted(s, v), ["searchsorted"]),
    ("searchsorted-right", lambda s, v: pyir.searchsorted(s, v, right=True),
     [np.array([1.0, 3.0, 3.0, 5.0], np.float32), np.array([3.0, 5.0], np.float32)],
     lambda s, v: np.searchsorted(s, v, "right"), ["searchsorted"]),
    ("searchsorted-side-int32", lambda s, v: pyir.searchsorted(s, v, out_int32=True, side="right"),
     [np.array([[1, 3, 5], [2, 4, 6]]), np.array([[3, 6], [0, 4]])],
     lambda s, v: np.array([[2, 3], [0, 2]], np.int32), ["searchsorted"]),
    ("searchsorted-sorter", lambda s, v, o: pyir.searchsorted(s, v, sorter=o),
     [np.array([5.0, 1.0, 3.0], np.float32), np.array([2.0, 6.0], np.float32), np.array([1, 2, 0])],
     lambda s, v, o: np.searchsorted(s, v, sorter=o), ["take_along_axis", "searchsorted"]),
    ("bucketize", pyir.bucketize, [X, np.array([-0.5, 0.0, 0.5], np.float32)],
     lambda x, s: np.searchsorted(s, x), ["searchsorted"]),
    ("unique", pyir.unique, [INTS], lambda x: np.unique(x), ["unique"]),
    ("unique-all", lambda x: pyir.unique(x, True, True, True), [INTS],
     lambda x: list(np.unique(x, True, True, True)), ["unique"]),
    ("unique-axis", lambda x: pyir.unique(x, return_inverse=True, axis=0, dtype="int32"),
     [np.array([[3, 1], [2, 3], [3, 1]])],
     lambda x: [np.array([[2, 3], [3, 1]]), np.array([1, 0, 1], np.int32)], ["unique"]),
    ("unique-float-2d", lambda x: pyir.unique(x, return_counts=True),
     [np.array([[2.5, 1.0], [2.5, -1.0]], np.float32)],
     lambda x: list(np.unique(x, return_counts=True)), ["unique"]),
    # Paddle 3.3.1 sorts with sorted=False too
    ("unique-unsorted", lambda x: pyir.unique(x, return_index=True, sorted=False), [INTS],
     lambda x: [np.array([1, 2, 3]), np.array([1, 2, 0])], ["unique"]),
    ("unique_consecutive", lambda x: pyir.unique_consecutive(x, True, True),
     [np.array([3, 3, 1, 1, 3, 2])],
     lambda x: [np.array([3, 1, 3, 2]), np.array([0, 0, 1, 1, 2, 3]), np.array([2, 2, 1, 1])],
     ["unique_consecutive"]),
    ("unique_consecutive-axis", lambda x: pyir.unique_consecutive(x, return_counts=True, axis=1),
     [np.array([[1, 1, 2, 1], [0, 0, 3, 0]])],
     lambda x: [np.array([[1, 2, 1], [0, 3, 0]]), np.array([2, 1, 1])], ["unique_consecutive"]),
]


@pytest.mark.parametrize("fn, inputs, reference, op_types",
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_static_and_eager_match_numpy(fn, inputs, reference, op_types):
    ops = check_both(fn, inputs, reference)
    assert ops[-len(op_types):] == op_types
    if len(op_types) == 1 and fn is not CASES[0][1]:
        assert ops.count(op_types[0]) == 1


def test_results_keep_paddles_dtypes():
    idx = run_eager(lambda x: pyir.argmax(x, axis=0, dtype="int32"), [X])[0]
    assert idx.dtype == np.int32
    values, indices = run_eager(lambda x: pyir.topk(x, 1), [X])
    assert values.dtype == np.float32 and indices.dtype == np.int64
    assert run_eager(lambda x: pyir.unique(x, return_counts=True, dtype="int32"),
                     [INTS])[1].dtype == np.int32


def _op(fn, inputs, op_type):
    return next(op for op in static_ops(fn, inputs) if op.type == op_type)


@pytest.mark.parametrize("fn, inputs, op_type, attrs", [
    (lambda x: pyir.argmax(x), [X], "arg_max",
     {"axis": 0, "flatten": True, "keepdims": False, "dtype": 3}),
    (lambda x: pyir.argmin(x, axis=-1, keepdim=True, dtype="int32"), [X], "arg_min",
     {"axis": -1, "flatten": False, "keepdims": True, "dtype": 2}),
    (lambda x: pyir.argsort(x, descending=True), [X], "argsort",
     {"axis": -1, "descending": True, "stable": False}),
    (lambda x: pyir.sort(x, axis=0), [X], "argsort", {"axis": 0, "descending": False}),
    (lambda x: pyir.topk(x, 2, largest=False), [X], "top_k_v2",
     {"k": 2, "axis": -1, "largest": False, "sorted": True}),
    (lambda x: pyir.kthvalue(x, 2), [X], "kthvalue", {"k": 2, "axis": -1, "keepdim": False}),
    (lambda x: pyir.mode(x, 0, True), [X], "mode", {"axis": 0, "keepdim": True}),
    (lambda x, i: pyir.index_select(x, i, axis=1), [X, np.array([0])], "index_select",
     {"dim": 1}),
    (lambda s, v: pyir.searchsorted(s, v, right=True), [X, X], "searchsorted",
     {"right": True, "out_int32": False}),
    (lambda s, o: pyir.searchsorted(s, s, sorter=o), [X, np.zeros((3, 4), np.int64)],
     "take_along_axis", {"Axis": 1}),
    (lambda x: pyir.unique(x, return_counts=True, axis=0), [INTS], "unique",
     {"return_index": False, "return_inverse": False, "return_counts": True, "axis": [0],
      "dtype": 3, "is_sorted": True}),
    (lambda x: pyir.unique_consecutive(x, return_inverse=True), [INTS], "unique_consecutive",
     {"return_inverse": True, "return_counts": False, "axis": [], "dtype": 3}),
    (lambda x: pyir.nonzero(x, as_tuple=True), [X], "slice",
     {"axes": [1], "starts": [0], "ends": [1], "decrease_axis": [1]}),
])
def test_static_attributes_are_paddles(fn, inputs, op_type, attrs):
    op = _op(fn, inputs, op_type)
    assert {k: op.attrs[k] for k in attrs} == attrs


def test_unique_emits_all_outputs_as_paddle_does():
    op = _op(lambda x: pyir.unique(x), [INTS], "unique")
    assert sorted(op.outputs) == ["Counts", "Index", "Indices", "Out"]


def test_topk_with_a_tensor_k():
    k = np.array([2], np.int32)
    ops = check_both(lambda x, k: pyir.topk(x, k), [X, k],
                     lambda x, k: [-np.sort(-x, -1)[:, :2], _stable(x, -1, True)[:, :2]])
    assert ops == ["top_k_v2"]
    op = _op(lambda x, k: pyir.topk(x, k), [X, k], "top_k_v2")
    assert op.inputs["K"] and op.attrs["k"] == 1


def test_tensor_methods():
    pyir.disable_static()
    t = pyir.to_tensor(TIES)
    assert t.argmax().item() == 1
    np.testing.assert_array_equal(t.argsort(axis=0).numpy(), _stable(TIES, 0))
    np.testing.assert_array_equal(t.topk(1)[1].numpy(), [[1], [0]])
    np.testing.assert_array_equal(t.unique().numpy(), [0.0, 1.0, 2.0, 3.0])


@pytest.mark.parametrize("fn, inputs, wrt", [
    (lambda x: pyir.sort(x, axis=0), [X.astype(np.float64)], (0,)),
    (lambda x: pyir.topk(x, 2)[0], [X.astype(np.float64)], (0,)),
    (lambda x: pyir.kthvalue(x, 3, axis=0)[0], [X.astype(np.float64)], (0,)),
    (lambda x: pyir.kthvalue(x, 2, keepdim=True)[0], [X.astype(np.float64)], (0,)),
    (lambda x: pyir.mode(x, axis=1)[0], [X.astype(np.float64)], (0,)),
    (lambda x, y: pyir.where(pyir.to_tensor(X > 0), x, y),
     [X.astype(np.float64), X[:1].astype(np.float64)], (0, 1)),
    (lambda x: pyir.masked_select(x, pyir.to_tensor(X > 0)), [X.astype(np.float64)], (0,)),
    (lambda x: pyir.index_select(x, pyir.to_tensor(np.array([2, 2, 0])), 1),
     [X.astype(np.float64)], (0,)),
    (lambda x: pyir.index_sample(x, pyir.to_tensor(np.array([[0, 0], [3, 1], [2, 2]]))),
     [X.astype(np.float64)], (0,)),
])
def test_gradients_match_finite_differences(fn, inputs, wrt):
    check_grads(fn, inputs, wrt)


@pytest.mark.parametrize("fn, inputs, match", [
    (lambda x: pyir.argmax(x, dtype="float32"), [X], "dtype must be int32 or int64"),
    (lambda x: pyir.argmax(x, axis=2), [X], "out of range"),
    (lambda x: pyir.argmin(x, axis=1.0), [X], "axis must be an int"),
    (lambda x: pyir.argsort(x, axis=-3), [X], "out of range"),
    (lambda x: pyir.msort(x, out=x), [X], "out= is not supported"),
    (lambda x: pyir.topk(x, 5), [X], r"k must be in \[0, 4\]"),
    (lambda x: pyir.topk(x, -1), [X], "k must be in"),
    (lambda x: pyir.topk(x, 1.5), [X], "k must be an int or an int tensor"),
    (lambda x: pyir.kthvalue(x, 0), [X], r"k must be an int in \[1, 4\]"),
    (lambda x: pyir.kthvalue(x, 5), [X], "k must be an int in"),
    (lambda x: pyir.mode(x, axis=5), [X], "out of range"),
    (lambda c, x: pyir.where(c, x), [X > 0, X], "give both x and y"),
    (lambda c, y: pyir.where(c, None, y), [X > 0, X], "give both x and y"),
    (lambda x: pyir.nonzero(x, out=x), [X], "out= is not supported"),
    (lambda x, i: pyir.index_sample(x, i), [X3, np.zeros((2, 1), np.int64)], "must be 2-D"),
    (lambda x, i: pyir.index_select(x, i, axis=2), [X, np.zeros(1, np.int64)], "out of range"),
    (lambda s, v: pyir.searchsorted(s, v, side="middle"), [X, X], "side must be"),
    (lambda s, v: pyir.searchsorted(s, v, right=True, side="left"), [X, X], "contradicts"),
    (lambda x, s: pyir.bucketize(x, s), [X, X], "sorted_sequence must be 1-D"),
    (lambda x: pyir.unique(x, dtype="float32"), [INTS], "dtype must be int32 or int64"),
    (lambda x: pyir.unique_consecutive(x, axis=1), [INTS], "out of range"),
])
def test_refusals(fn, inputs, match):
    with pytest.raises(BuildError, match=match):
        run_eager(fn, inputs)


def test_searchsorted_kernel_refuses_mismatched_batches():
    with pytest.raises(Exception, match="must agree in all but the last dim"):
        run_eager(pyir.searchsorted, [np.zeros((2, 3)), np.zeros((3, 1))])


EMPTY = np.zeros((0, 3), np.float32)


@pytest.mark.parametrize("fn, shapes", [
    (lambda x: pyir.argsort(x, axis=0), [(0, 3)]),
    (lambda x: pyir.sort(x, axis=0), [(0, 3)]),
    (lambda x: pyir.topk(x, 0, axis=0), [(0, 3), (0, 3)]),
    (lambda x: pyir.argmax(x, axis=1), [(0,)]),
    (pyir.unique, [(0,)]),
    (pyir.unique_consecutive, [(0,)]),
    (pyir.nonzero, [(0, 2)]),
    (lambda x: pyir.masked_select(x, x > 0), [(0,)]),
    (lambda x: pyir.bucketize(x, pyir.full([2], 1.0) if isinstance(x, pyir.Variable)
                              else pyir.to_tensor(np.ones(2, np.float32))), [(0, 3)]),
])
def test_empty_inputs(fn, shapes):
    static_values, _ = run_static(fn, [EMPTY])
    for values in (static_values, run_eager(fn, [EMPTY])):
        assert [v.shape for v in values] == shapes


def test_where_in_place_writes_into_x():
    pyir.disable_static()
    x = pyir.to_tensor(X.copy())
    result = pyir.where_(pyir.to_tensor(X > 0), x, 0.0)
    assert result is x
    np.testing.assert_allclose(x.numpy(), np.where(X > 0, X, 0.0))
    with pytest.raises(BuildError, match="where_: x must be a tensor"):
        pyir.where_(pyir.to_tensor(X > 0), 1.0, x)


def test_where_in_place_static_assigns_into_x():
    def build(c, x):
        copy = pyir.scale(x, 1.0)
        result = pyir.where_(c, copy, -x)
        assert result is copy
        return copy

    (value,), ops = run_static(build, [X > 0, X])
    assert ops[-2:] == ["where", "assign"]
    np.testing.assert_allclose(value, np.where(X > 0, X, -X))


def test_static_where_gets_operands_of_one_shape():
    """Paddle's legacy `where` op refuses operands of different shapes."""
    ops = static_ops(lambda c, x: pyir.where(c, x, 1.0), [X[0] > 0, X])
    op = ops[-1]
    block = pyir.static.default_main_program().global_block()
    shapes = {tuple(block.var(op.input(slot)[0]).shape) for slot in ("Condition", "X", "Y")}
    assert op.type == "where" and shapes == {(3, 4)}


def test_stable_sort_keeps_index_order_of_ties_as_paddle():
    """Paddle 3.3.1 with stable=True orders ties by index, ascending and descending (its
    stable=False order of ties is unspecified; pyir is always stable)."""
    ties = np.random.default_rng(5).integers(0, 4, (3, 40)).astype(np.float32)
    for descending in (False, True):
        fn = lambda x, d=descending: pyir.argsort(x, descending=d, stable=True)  # noqa: E731
        check_both(fn, [ties], lambda x, d=descending: _stable(x, -1, d))
