"""unique, unique_consecutive, block_diag, tensordot and the in-place fills
(pyir/tensor/manip_more.py), static and eager, against numpy."""

import numpy as np
import pytest
from helpers_api_manip import check_eager_grad, eager_run, static_run

import pyir
from pyir.errors import PyirError

A = np.array([[3.0, 1.0, 3.0], [1.0, 2.0, 3.0]])
RUNS = np.array([1, 1, 2, 2, 2, 1, 3, 3])


def test_unique_static_emits_one_op_with_paddles_attrs():
    outs, values, ops = static_run(lambda a: pyir.unique(a, True, True, True), {"a": A})
    assert ops == ["unique"]
    op = pyir.static.default_main_program().global_block().ops[0]
    assert {k: op.attrs[k] for k in ("dtype", "return_index", "return_inverse",
                                     "return_counts", "axis", "is_sorted")} == \
        {"dtype": 3, "return_index": True, "return_inverse": True, "return_counts": True,
         "axis": [], "is_sorted": True}
    want = np.unique(A, return_index=True, return_inverse=True, return_counts=True)
    for got, w in zip(values, want):
        np.testing.assert_array_equal(got, np.asarray(w).reshape(got.shape))
    assert outs[2].shape == (6,)


@pytest.mark.parametrize("kwargs", [{}, {"return_counts": True}, {"axis": 1},
                                    {"axis": 0, "return_inverse": True, "dtype": "int32"}])
def test_unique_eager_matches_numpy(kwargs):
    (got, *rest), _ = eager_run(lambda a: pyir.unique(a, **kwargs), {"a": A})
    args = {k: v for k, v in kwargs.items() if k != "dtype"}
    want = np.unique(A, **args)
    want = want if isinstance(want, tuple) else (want,)
    np.testing.assert_array_equal(got.numpy(), want[0])
    for g, w in zip(rest, want[1:]):
        np.testing.assert_array_equal(g.numpy(), np.asarray(w).reshape(-1))
        assert g.dtype == np.dtype(kwargs.get("dtype", "int64"))


def test_unique_consecutive_static_and_eager():
    outs, values, ops = static_run(
        lambda r: pyir.unique_consecutive(r, return_inverse=True, return_counts=True),
        {"r": RUNS})
    assert ops == ["unique_consecutive"]
    np.testing.assert_array_equal(values[0], [1, 2, 1, 3])
    np.testing.assert_array_equal(values[1], [0, 0, 1, 1, 1, 2, 3, 3])
    np.testing.assert_array_equal(values[2], [2, 3, 1, 2])
    (rows,), _ = eager_run(lambda m: pyir.unique_consecutive(m, axis=0),
                           {"m": np.array([[1, 2], [1, 2], [0, 0], [1, 2]])})
    np.testing.assert_array_equal(rows.numpy(), [[1, 2], [0, 0], [1, 2]])


def _block_diag(*mats):
    rows = sum(m.shape[0] for m in mats)
    cols = sum(m.shape[1] for m in mats)
    out, r, c = np.zeros((rows, cols)), 0, 0
    for m in mats:
        out[r:r + m.shape[0], c:c + m.shape[1]] = m
        r, c = r + m.shape[0], c + m.shape[1]
    return out


def test_block_diag():
    arrays = {"a": A, "b": np.ones((1, 2)) * 5}
    _, values, ops = static_run(lambda a, b: pyir.block_diag([a, b]), arrays)
    assert ops == ["fill_constant", "concat", "fill_constant", "concat", "concat"]
    np.testing.assert_array_equal(values[0], _block_diag(A, arrays["b"]))
    check_eager_grad(lambda a, b: pyir.block_diag([a, b]), lambda a, b: _block_diag(a, b),
                     arrays)


@pytest.mark.parametrize("axes", [2, 0, [[1], [0]], [[0, 2], [1, 0]]])
def test_tensordot(axes):
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(2, 3, 4)), rng.normal(size=(3, 4, 2) if axes == 2 else
                                                  (3, 2, 5) if axes == [[1], [0]] else
                                                  (4, 2, 5) if axes != 0 else (2,))
    arrays = {"x": x, "y": y}
    build = lambda x, y: pyir.tensordot(x, y, axes)  # noqa: E731
    reference = lambda x, y: np.tensordot(x, y, axes)  # noqa: E731
    _, values, ops = static_run(build, arrays)
    assert "matmul_v2" in ops
    np.testing.assert_allclose(values[0], reference(x, y), rtol=1e-10)
    check_eager_grad(build, reference, arrays)


def test_fills():
    pyir.disable_static()
    m = pyir.zeros([3, 4], "float64")
    assert m.fill_diagonal_(2.0, offset=1) is m
    np.testing.assert_array_equal(m.numpy(), 2 * np.eye(3, 4, 1))
    tall = pyir.zeros([5, 2])
    tall.fill_diagonal_(1.0, wrap=True)
    want = np.zeros((5, 2))
    np.fill_diagonal(want, 1, wrap=True)
    np.testing.assert_array_equal(tall.numpy(), want)
    cube = pyir.zeros([2, 2, 2])
    cube.fill_diagonal_(4.0)
    assert cube.numpy()[1, 1, 1] == 4 and cube.numpy().sum() == 8
    d = pyir.to_tensor(np.arange(3.0))
    np.testing.assert_array_equal(pyir.zeros([3, 4]).fill_diagonal_tensor(d).numpy(),
                                  np.hstack([np.diag(np.arange(3.0)), np.zeros((3, 1))]))
    t = pyir.zeros([3, 3], "float64")
    assert t.fill_diagonal_tensor_(d) is t and t.numpy()[2, 2] == 2
    _, values, ops = static_run(lambda x: (x * 1.0).fill_diagonal_(5.0), {"x": A[:, :2]})
    assert ops == ["scale", "assign_value", "fill_constant", "expand_v2", "where", "assign"]
    np.testing.assert_array_equal(values[0], np.where(np.eye(2), 5.0, A[:, :2]))


@pytest.mark.parametrize("call, message", [
    (lambda a: pyir.unique(a, dtype="float32"), "int32 or int64"),
    (lambda a: pyir.unique(a, axis=2), "out of range"),
    (lambda a: pyir.unique_consecutive(a, axis=-3), "out of range"),
    (lambda a: pyir.block_diag([]), "non-empty list"),
    (lambda a: pyir.block_diag([pyir.ones([2, 2, 2])]), "at most 2-D, got 3-D"),
    (lambda a: pyir.tensordot(a, a, 3), "must be in"),
    (lambda a: pyir.tensordot(a, a, [[0], [1]]), r"axis 0 of x \(size 2\) and axis 1 of y"),
    (lambda a: pyir.tensordot(a, a, "x"), "an int, a list of ints or two lists"),
    (lambda a: a.fill_diagonal_tensor(a, 0, 0, 0), "two different dims"),
    (lambda a: pyir.ones([2, 3, 4]).fill_diagonal_(1.0), "all dims equal"),
    (lambda a: pyir.to_tensor(A, stop_gradient=False).fill_diagonal_(1.0), "needs a gradient"),
])
def test_refusals(call, message):
    pyir.disable_static()
    with pytest.raises(PyirError, match=message):
        call(pyir.to_tensor(A))


def test_methods_paddle_tensors_have():
    pyir.disable_static()
    x = pyir.to_tensor(A)
    np.testing.assert_array_equal(x.t().numpy(), A.T)
    np.testing.assert_array_equal(x.permute([1, 0]).numpy(), A.T)
    np.testing.assert_array_equal(x.ravel().numpy(), A.ravel())
    np.testing.assert_array_equal(x.narrow(1, 1, 2).numpy(), A[:, 1:3])
    np.testing.assert_array_equal(x.unbind(1)[2].numpy(), A[:, 2])
    assert x.rank().numpy() == 2 and x.atleast_3d().shape == [2, 3, 1]
    idx = pyir.to_tensor(np.array([[0], [2]]))
    np.testing.assert_array_equal(x.take_along_axis(idx, 1).numpy(), A[[0, 1], [0, 2]][:, None])
    y = pyir.to_tensor(A.copy())
    assert y.put_along_axis_(idx, 0.0, 1) is y and y.numpy()[1, 2] == 0
    pyir.enable_static()
    var = pyir.static.data("a", [2, 3], "float64")
    assert var.t().shape == (3, 2) and var.unbind(0)[0].shape == (3,)


@pytest.mark.parametrize("dtype, args, low, high", [
    ("float32", (3, 7), 3, 6), ("float32", (5,), 0, 4), ("int32", (), 0, 2**31 - 2),
    ("float64", (), 0, 2**53 - 1)])
def test_random_fill_method(dtype, args, low, high):
    pyir.disable_static()
    x = pyir.zeros([2000], dtype)
    pyir.seed(1)
    assert x.random_(*args) is x
    v = x.numpy()
    assert v.dtype == np.dtype(dtype) and v.min() >= low and v.max() <= high
    assert len(np.unique(v)) > 1 and (v == np.round(v)).all()
    with pytest.raises(PyirError, match="from_ < to"):
        x.random_(5, 5)
