"""x[index] and x[index] = value (pyir/tensor/indexing.py) on static Variables and eager
Tensors against numpy: the ops Paddle 3.3.1's legacy static mode emits, values, shapes (0-D when
every axis is indexed), clamped out-of-range slices, negative steps, advanced indices, masks,
gradients, and the refusals."""

import numpy as np
import pytest
from helpers_api_manip import check_eager_grad, eager_run, static_run

import pyir
from pyir.errors import PyirError

X = np.arange(60, dtype=np.float64).reshape(3, 4, 5) / 7.0
MASK = (np.arange(12).reshape(3, 4) % 3) == 0
IDX = np.array([2, 0, 2])

READS = [
    # (id, index, ops Paddle emits, attrs of the first op)
    ("int", 1, ["slice"], {"axes": [0], "starts": [1], "ends": [2], "decrease_axis": [0]}),
    ("minus_one", -1, ["slice"], {"starts": [-1], "ends": [2**31 - 1], "decrease_axis": [0]}),
    ("all_ints_0d", (0, 1, 2), ["slice"], {"decrease_axis": [0, 1, 2]}),
    ("neg_ints_0d", (-1, -4, -5), ["slice"], {"starts": [-1, -4, -5]}),
    ("slice", (slice(1, 3), slice(None, 2)), ["slice"], {"axes": [0, 1], "ends": [3, 2]}),
    ("clamped", (slice(-100, 100), slice(2, 99)), ["slice"], {"starts": [-100, 2]}),
    ("empty_slice", (slice(3, 1),), ["slice"], {"starts": [3], "ends": [1]}),
    ("reverse", (slice(None, None, -1), -1), ["strided_slice"],
     {"starts": [2**31 - 1, -1], "ends": [-2**31, 2**31 - 1], "strides": [-1, 1],
      "decrease_axis": [1]}),
    ("step", (slice(None), slice(3, 0, -2), slice(None, None, 2)), ["strided_slice"],
     {"axes": [1, 2], "strides": [-2, 2]}),
    ("neg_step_clamped", (slice(100, -100, -2),), ["strided_slice"], {"strides": [-2]}),
    ("ellipsis", (Ellipsis, 1), ["slice"], {"axes": [2], "decrease_axis": [2]}),
    ("ellipsis_mid", (0, ..., slice(1, None)), ["slice"], {"axes": [0, 2]}),
    ("full", (slice(None), ...), [], {}),
    ("none", (None, 1), ["slice", "unsqueeze2"], {"decrease_axis": [0]}),
    ("none_end", (Ellipsis, None), ["unsqueeze2"], {"axes": [3]}),
    ("list", [0, 2], ["assign_value", "unsqueeze2", "gather_nd"], {"shape": [2]}),
    ("list_neg", [-1, 0, -1], ["assign_value", "unsqueeze2", "gather_nd"], {}),
    ("lists", ([0, 2], [1, 3]),
     ["assign_value", "assign_value", "broadcast_tensors", "stack", "gather_nd"], {}),
    ("list_axis1", (slice(None), [3, 1]),
     ["transpose2", "assign_value", "unsqueeze2", "gather_nd", "transpose2"],
     {"axis": [1, 0, 2]}),
    ("int_and_list", (0, [1, 3]), ["slice", "assign_value", "unsqueeze2", "gather_nd"], {}),
    ("split_lists", ([0, 2], slice(None), [1, 4]),
     ["transpose2", "assign_value", "assign_value", "broadcast_tensors", "stack", "gather_nd"],
     {"axis": [0, 2, 1]}),
    ("array_2d", np.array([[0, 1], [2, 2]]), ["assign_value", "unsqueeze2", "gather_nd"], {}),
    ("bool_list", [True, False, True], ["assign_value", "where_index", "gather_nd"], {}),
    ("mask_2d", MASK, ["assign_value", "where_index", "gather_nd"], {}),
    ("mask_after_slice", (slice(None), np.array([True, False, True, True])),
     ["transpose2", "assign_value", "where_index", "gather_nd", "transpose2"], {}),
]


@pytest.mark.parametrize("index, op_types, attrs", [r[1:] for r in READS],
                         ids=[r[0] for r in READS])
def test_static_read_emits_paddles_ops_and_matches_numpy(index, op_types, attrs):
    outs, values, ops = static_run(lambda x: x[index], {"x": X})
    assert ops == op_types
    if attrs:
        first = pyir.static.default_main_program().global_block().ops[0]
        assert {k: first.attrs[k] for k in attrs} == attrs
    want = X[index]
    assert values[0].shape == want.shape
    np.testing.assert_array_equal(values[0], want)
    assert len(outs[0].shape) == want.ndim


@pytest.mark.parametrize("index", [r[1] for r in READS], ids=[r[0] for r in READS])
def test_eager_read_matches_numpy_and_differentiates(index):
    (y,), _ = eager_run(lambda x: x[index], {"x": X})
    want = X[index]
    assert y.shape == list(want.shape)
    np.testing.assert_array_equal(y.numpy(), want)
    if want.size and not (isinstance(index, np.ndarray) and index.ndim == 2 and
                          index.dtype != bool):  # refused: see test_index_refusals
        check_eager_grad(lambda x: x[index], lambda x: x[index], {"x": X})


def test_tensor_indices_static_and_eager():
    build = lambda x, i, j: x[i, :, j]  # noqa: E731
    arrays = {"x": X, "i": IDX, "j": np.array([4, 0, 1])}
    _, values, ops = static_run(build, arrays)
    assert ops == ["transpose2", "broadcast_tensors", "stack", "gather_nd"]
    np.testing.assert_array_equal(values[0], X[IDX, :, [4, 0, 1]])
    check_eager_grad(build, lambda x, i, j: x[i, :, j], arrays)
    _, values, ops = static_run(lambda x, i: x[i], {"x": X, "i": IDX})
    assert ops == ["unsqueeze2", "gather_nd"]
    np.testing.assert_array_equal(values[0], X[IDX])
    _, values, _ = static_run(lambda x, m: x[m], {"x": X, "m": MASK})
    np.testing.assert_array_equal(values[0], X[MASK])


def test_index_refusals():
    pyir.disable_static()
    x = pyir.to_tensor(X)
    for index, message in [((0, 0, 0, 0), "too many indices"), ((..., 0, ...), "single ellipsis"),
                           ("a", "cannot index with 'a'"), ((slice(None, None, 0),), "zero"),
                           (3, "out of range for axis 0"), ((0, -6), "out of range for axis 1"),
                           ([0.5], "integers or bools"),
                           ((MASK, [0]), "one bool mask alone"),
                           (np.ones((3, 5), bool), "does not match")]:
        with pytest.raises(PyirError, match=message):
            x[index]
    with pytest.raises(PyirError, match="2-D index is not differentiable"):
        pyir.to_tensor(X, stop_gradient=False)[np.array([[0], [1]])]


# --- writing -----------------------------------------------------------------------------------
WRITES = [
    # (id, index, value, attrs of set_value / the op Paddle emits)
    ("scalar", (0, slice(1, 3)), 2.5,
     {"axes": [0, 1], "starts": [0, 1], "ends": [1, 3], "steps": [1, 1], "decrease_axes": [0],
      "values": [2.5], "shape": [1]}),
    ("array", (slice(None), 0), np.arange(5.0),
     {"axes": [1], "decrease_axes": [1], "values": [0.0, 1.0, 2.0, 3.0, 4.0], "shape": [5]}),
    ("reverse", (slice(None, None, -1),), 3.0,
     {"starts": [2**31 - 1], "ends": [-2**31], "steps": [-1]}),
    ("step", (slice(None), slice(3, None, -2), -1), -1.0, {"steps": [-2, 1]}),
    ("ellipsis", (Ellipsis, 1), 0.0, {"axes": [2], "decrease_axes": [2]}),
    ("none", (None, 0), 1.0, {"axes": [0], "decrease_axes": [0], "none_axes": [0]}),
    ("clamped", (slice(-100, 100), slice(3, 50)), 7.0, {"starts": [-100, 3]}),
    ("all_ints", (2, 3, 4), -9.0, {"decrease_axes": [0, 1, 2]}),
]


def _numpy_write(index, value):
    want = X.copy()
    want[tuple(i for i in (index if isinstance(index, tuple) else (index,)) if i is not None)] \
        = value
    return want


@pytest.mark.parametrize("index, value, attrs", [w[1:] for w in WRITES],
                         ids=[w[0] for w in WRITES])
def test_static_write_emits_set_value_in_place(index, value, attrs):
    def build(x):
        y = x * 1.0
        y[index] = value
        return y

    outs, values, ops = static_run(build, {"x": X})
    assert ops == ["scale", "set_value"]
    op = pyir.static.default_main_program().global_block().ops[-1]
    assert op.output("Out") == [outs[0].name] and op.input("Input") == [outs[0].name]
    assert {k: op.attrs[k] for k in attrs} == attrs
    assert op.attrs["dtype"] == 6
    np.testing.assert_array_equal(values[0], _numpy_write(index, value))


@pytest.mark.parametrize("index, value", [w[1:3] for w in WRITES], ids=[w[0] for w in WRITES])
def test_eager_write_matches_numpy(index, value):
    pyir.disable_static()
    t = pyir.to_tensor(X.copy())
    t[index] = value
    np.testing.assert_array_equal(t.numpy(), _numpy_write(index, value))


def test_static_write_of_a_variable_value_and_int_tensor():
    def build(x, v):
        y = x * 1.0
        y[1] = v
        return y

    _, values, ops = static_run(build, {"x": X, "v": X[0] * 2})
    assert ops == ["scale", "set_value"]
    op = pyir.static.default_main_program().global_block().ops[-1]
    assert op.input("ValueTensor") == ["v"] and op.attrs["values"] == []
    np.testing.assert_array_equal(values[0], _numpy_write(1, X[0] * 2))

    def build_int(k):
        y = k + 0
        y[0] = 5
        return y

    _, values, _ = static_run(build_int, {"k": np.array([1, 2, 3], np.int64)})
    op = pyir.static.default_main_program().global_block().ops[-1]
    assert op.attrs["dtype"] == 3 and op.attrs["values"] == [5]
    np.testing.assert_array_equal(values[0], [5, 2, 3])


@pytest.mark.parametrize("index, op_type", [
    (MASK, "masked_fill"), (([0, 2], [1, 3]), "index_put"), ((IDX,), "index_put")])
def test_advanced_writes(index, op_type):
    def build(x):
        y = x * 1.0
        y[index] = -1.0
        return y

    want = X.copy()
    want[index] = -1.0
    _, values, ops = static_run(build, {"x": X})
    assert ops[-1] == op_type
    np.testing.assert_array_equal(values[0], want)
    pyir.disable_static()
    t = pyir.to_tensor(X.copy())
    t[index] = -1.0
    np.testing.assert_array_equal(t.numpy(), want)


MIXED = [((0, [1, 2]), 7.0), ((slice(None), [3, 0], 1), np.ones((3, 2)) * [[1], [2], [3]]),
         ((slice(None), np.array([True, False, True, True])), -1.0),
         (([2, 0], slice(1, 3)), np.arange(2.0 * 2 * 5).reshape(2, 2, 5))]


@pytest.mark.parametrize("index, value", MIXED, ids=["int_list", "slice_list_int",
                                                     "slice_mask", "list_slice"])
def test_writes_mixing_tensors_with_ints_and_slices(index, value):
    want = X.copy()
    want[index] = value

    def build(x):
        y = x * 1.0
        y[index] = value
        return y

    _, values, ops = static_run(build, {"x": X})
    assert ops[-2:] == ["index_put", "reshape2"]
    assert pyir.static.default_main_program().global_block().ops[-1].output("Out") == \
        pyir.static.default_main_program().global_block().ops[0].output("Out")
    np.testing.assert_array_equal(values[0], want)
    pyir.disable_static()
    t = pyir.to_tensor(X.copy())
    t[index] = value
    np.testing.assert_array_equal(t.numpy(), want)


def test_mixed_write_differentiates():
    pyir.disable_static()
    x = pyir.to_tensor(X, stop_gradient=False)
    v = pyir.to_tensor(np.array([1.0, 2.0]), stop_gradient=False)
    y = x * 2.0
    y[0, [1, 2], 3] = v * 3.0
    (y * y).sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), 18 * np.array([1.0, 2.0]))
    dx = 8 * X
    dx[0, [1, 2], 3] = 0
    np.testing.assert_allclose(x.grad.numpy(), dx)


def test_eager_write_keeps_the_tape():
    pyir.disable_static()
    x = pyir.to_tensor(X, stop_gradient=False)
    v = pyir.to_tensor(X[0, :2], stop_gradient=False)
    y = x * 2.0
    y[1, 1:3] = v * 3.0
    (y * y).sum().backward()
    want_y = X * 2
    want_y[1, 1:3] = X[0, :2] * 3
    np.testing.assert_allclose(y.numpy(), want_y)
    dx = 2 * want_y * 2
    dx[1, 1:3] = 0
    np.testing.assert_allclose(x.grad.numpy(), dx)
    np.testing.assert_allclose(v.grad.numpy(), 2 * want_y[1, 1:3] * 3)


def test_eager_write_after_an_op_that_differentiates_through_its_output():
    pyir.disable_static()
    x = pyir.to_tensor(X[0, 0], stop_gradient=False)
    y = pyir.nn.functional.softmax(x)  # softmax's gradient reads its whole output
    y[0] = 0.0
    w = np.arange(1.0, 6.0)
    (y * pyir.to_tensor(w)).sum().backward()
    s = np.exp(X[0, 0]) / np.exp(X[0, 0]).sum()
    dy = w.copy()
    dy[0] = 0
    np.testing.assert_allclose(x.grad.numpy(), s * (dy - (s * dy).sum()), rtol=1e-10)


def test_write_refusals():
    pyir.disable_static()
    leaf = pyir.to_tensor(X, stop_gradient=False)
    with pytest.raises(PyirError, match="leaf tensor that needs a gradient"):
        leaf[0] = 1.0
    t = pyir.to_tensor(X.copy())
    with pytest.raises(PyirError, match="out of range"):
        t[5] = 0.0
    pyir.enable_static()
    var = pyir.static.data("x", [3, 4, 5], "float64")
    with pytest.raises(PyirError, match="same mode"):
        (var * 1.0)[0] = pyir.to_tensor(X[0])
    with pytest.raises(PyirError, match="a fed input variable, would be lost"):
        var[0] = 1.0
    batch = pyir.static.data("b", [None, 4], "float64") * 1.0
    with pytest.raises(PyirError, match="needs x's shape to be known"):
        batch[0, [1, 2]] = 0.0
