"""Histograms, bincount, combinatorics and block_diag: static (the ops built, run by the
Executor) and eager against numpy; refusals."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import pyir
from pyir.errors import BuildError, PyirError
from pyir.unsupported import UnsupportedError

from linalg_harness import check_both, check_grads, run_eager, static_ops

R = np.random.default_rng(3)
X = R.uniform(-1, 1, (3, 4)).astype(np.float32)
V = np.array([1.0, 2.0, 1.0, 4.0], np.float32)
POINTS = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 3.0], [1.0, 0.5]], np.float32)


def _np_hist(x, bins, lo, hi, weights=None, density=False):
    if lo == hi == 0:
        lo, hi = float(x.min()), float(x.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    counts, _ = np.histogram(x, bins, (lo, hi), weights=weights, density=density)
    return counts


CASES = [
    ("histogram-data-range", lambda x: pyir.histogram(x, bins=4), [V],
     lambda x: _np_hist(x, 4, 0, 0).astype(np.int64), ["histogram"]),
    ("histogram-range-drops-outside", lambda x: pyir.histogram(x, 5, min=-0.5, max=0.5), [X],
     lambda x: _np_hist(x.ravel(), 5, -0.5, 0.5), ["histogram"]),
    ("histogram-constant", lambda x: pyir.histogram(x, bins=4),
     [np.ones(3, np.float32)], lambda x: np.array([0, 0, 3, 0]), ["histogram"]),
    ("histogram-weight", lambda x, w: pyir.histogram(x, 3, weight=w), [X, X * X],
     lambda x, w: _np_hist(x.ravel(), 3, 0, 0, (w * 1).ravel()).astype(np.float32),
     ["histogram"]),
    ("histogram-density", lambda x: pyir.histogram(x, 4, min=0, max=3, density=True), [V],
     lambda x: _np_hist(x, 4, 0, 3, density=True).astype(np.float32), ["histogram"]),
    ("histogram-int", lambda x: pyir.histogram(x, bins=4), [np.array([1, 2, 1, 4])],
     lambda x: np.array([2, 1, 0, 1]), ["histogram"]),
    ("histogram_bin_edges", lambda x: pyir.histogram_bin_edges(x, bins=4), [V],
     lambda x: np.linspace(1.0, 4.0, 5).astype(np.float32), None),
    ("histogram_bin_edges-range", lambda x: pyir.histogram_bin_edges(x, 5, min=0, max=1), [V],
     lambda x: np.linspace(0.0, 1.0, 6).astype(np.float32),
     ["fill_constant", "fill_constant", "fill_constant", "linspace"]),
    ("histogram_bin_edges-constant", lambda x: pyir.histogram_bin_edges(x, bins=2),
     [np.ones(3, np.float32)], lambda x: np.array([0.5, 1.0, 1.5], np.float32), None),
    ("histogram_bin_edges-equal-bounds", lambda x: pyir.histogram_bin_edges(x, 2, 1, 1), [V],
     lambda x: np.array([0.5, 1.0, 1.5], np.float32), None),
    ("bincount", lambda x: pyir.bincount(x, minlength=7), [np.array([1, 2, 1, 4])],
     lambda x: np.bincount(x, minlength=7), ["bincount"]),
    ("bincount-weights", lambda x, w: pyir.bincount(x, w),
     [np.array([0, 3, 3], np.int32), np.array([0.5, 1.0, 2.0], np.float32)],
     lambda x, w: np.bincount(x, w).astype(np.float32), ["bincount"]),
    ("bincount-empty", lambda x: pyir.bincount(x, minlength=2), [np.zeros(0, np.int64)],
     lambda x: np.zeros(2, np.int64), ["bincount"]),
    ("cartesian_prod", lambda a, b: pyir.cartesian_prod([a, b]),
     [np.array([1, 2, 3]), np.array([4, 5])],
     lambda a, b: np.array(list(itertools.product(a, b))), ["meshgrid", "stack", "reshape2"]),
    ("cartesian_prod-one", lambda a: pyir.cartesian_prod([a]), [V], lambda a: a, []),
    ("combinations", pyir.combinations, [V],
     lambda x: np.array(list(itertools.combinations(x, 2)), np.float32), None),
    ("combinations-replacement", lambda x: pyir.combinations(x, 3, with_replacement=True),
     [np.array([1, 2, 3])],
     lambda x: np.array(list(itertools.combinations_with_replacement(x, 3))), None),
    ("combinations-r-too-large", lambda x: pyir.combinations(x, 3), [np.array([1.0, 2.0])],
     lambda x: np.zeros((0, 3)), None),
    ("block_diag", lambda a, b, c: pyir.block_diag([a, b, c]),
     [np.array(1.0), np.array([2.0, 3.0]), np.array([[4.0], [5.0]])],
     lambda a, b, c: np.array([[1, 0, 0, 0], [0, 2, 3, 0], [0, 0, 0, 4], [0, 0, 0, 5.0]]),
     None),
    ("block_diag-one", lambda a: pyir.block_diag([a]), [X], lambda a: a, []),
    ("histogramdd", lambda x: pyir.histogramdd(x, bins=[2, 3], ranges=[0.0, 2.0, 0.0, 3.0])[0],
     [POINTS], lambda x: np.histogramdd(x, [2, 3], [(0, 2), (0, 3)])[0].astype(np.float32),
     None),
    ("histogramdd-density", lambda x: pyir.histogramdd(x, 2, density=True)[0], [POINTS],
     lambda x: np.histogramdd(x, 2, density=True)[0].astype(np.float32), None),
    ("histogramdd-weights-outside", lambda x, w: pyir.histogramdd(
        x, [2, 2], ranges=[0.5, 2.0, 0.0, 1.0], weights=w)[0],
     [POINTS, np.array([1.0, 2.0, 3.0, 4.0], np.float32)],
     lambda x, w: np.histogramdd(x, [2, 2], [(0.5, 2), (0, 1)], weights=w)[0].astype(
         np.float32), None),
    ("histogramdd-edges", lambda x, e0, e1: pyir.histogramdd(x, bins=[e0, e1])[0],
     [POINTS, np.array([0.0, 1.0, 2.0], np.float32), np.array([0.0, 2.0, 4.0], np.float32)],
     lambda x, e0, e1: np.histogramdd(x, [e0, e1])[0].astype(np.float32), None),
]


@pytest.mark.parametrize("fn, inputs, reference, op_types",
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_static_and_eager_match_numpy(fn, inputs, reference, op_types):
    ops = check_both(fn, inputs, reference)
    if op_types is not None:
        assert ops == op_types


def test_histogramdd_returns_the_edges():
    pyir.disable_static()
    hist, edges = pyir.histogramdd(pyir.to_tensor(POINTS), bins=[2, 3])
    expected_hist, expected_edges = np.histogramdd(POINTS, [2, 3])
    np.testing.assert_allclose(hist.numpy(), expected_hist)
    for e, want in zip(edges, expected_edges):
        np.testing.assert_allclose(e.numpy(), want, rtol=1e-6)


def test_histogram_static_attributes():
    op = next(op for op in static_ops(lambda x: pyir.histogram(x, 5, -1.0, 2.0), [X])
              if op.type == "histogram")
    assert {k: op.attrs[k] for k in ("bins", "min", "max", "density")} == \
        {"bins": 5, "min": -1.0, "max": 2.0, "density": False}
    op = next(op for op in static_ops(lambda x: pyir.bincount(x, minlength=3),
                                      [np.array([1, 2])]) if op.type == "bincount")
    assert op.attrs["minlength"] == 3


@pytest.mark.parametrize("fn, inputs, wrt", [
    (lambda a, b: pyir.cartesian_prod([a, b]), [np.array([1.0, 2.0]), np.array([3.0, 4, 5])],
     (0, 1)),
    (lambda x: pyir.combinations(x, 2), [np.array([1.0, 2.0, 4.0])], (0,)),
    (lambda a, b: pyir.block_diag([a, b]), [X[:2, :2].astype(np.float64), np.array([1.0, 2.0])],
     (0, 1)),
])
def test_gradients_match_finite_differences(fn, inputs, wrt):
    check_grads(fn, inputs, wrt)


@pytest.mark.parametrize("fn, inputs, match", [
    (lambda x: pyir.histogram(x, bins=0), [V], "bins must be a positive int"),
    (lambda x: pyir.histogram(x, min=2.0, max=1.0), [V], "must not be less than min"),
    (lambda x, w: pyir.histogram(x, weight=w), [V, X], "weight"),
    (lambda x: pyir.histogram_bin_edges(x, bins=-1), [V], "bins must be"),
    (lambda x: pyir.histogramdd(x, bins=[2]), [POINTS], "one entry per dim"),
    (lambda x: pyir.histogramdd(x, bins=[2, 0]), [POINTS], "positive ints or edge tensors"),
    (lambda x: pyir.histogramdd(x, ranges=[0.0, 1.0]), [POINTS], "2 values per dim"),
    (pyir.bincount, [np.array([1.0])], "1-D integer tensor"),
    (pyir.bincount, [np.array([[1]])], "1-D integer tensor"),
    (lambda x: pyir.bincount(x, minlength=-1), [np.array([1])], "minlength"),
    (lambda x, w: pyir.bincount(x, w), [np.array([1, 2]), np.ones(3)], "weights"),
    (lambda a, b: pyir.cartesian_prod([a, b]), [V, X], "every tensor must be 1-D"),
    (lambda x: pyir.combinations(x), [X], "x must be 1-D"),
    (lambda x: pyir.combinations(x, -1), [V], "r must be a non-negative int"),
    (lambda x: pyir.block_diag([x]), [np.zeros((2, 2, 2))], "at most 2-D"),
    (lambda x: pyir.cartesian_prod(x), [V], "non-empty list"),
])
def test_refusals(fn, inputs, match):
    with pytest.raises(BuildError, match=match):
        run_eager(fn, inputs)


def test_bincount_refuses_negative_values():
    with pytest.raises(PyirError, match="must be non-negative"):
        run_eager(pyir.bincount, [np.array([-1, 2])])


# --- the pyir.linalg module ---------------------------------------------------------------------
PADDLE_LINALG = [
    "cholesky", "cholesky_inverse", "cholesky_solve", "cond", "corrcoef", "cov", "cross", "det",
    "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "fp8_fp8_half_gemm_fused",
    "householder_product", "inv", "lstsq", "lu", "lu_solve", "lu_unpack", "matmul",
    "matrix_exp", "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose",
    "multi_dot", "norm", "ormqr", "pca_lowrank", "pinv", "qr", "slogdet", "solve", "svd",
    "svd_lowrank", "svdvals", "triangular_solve", "vecdot", "vector_norm",
]


def test_paddle_linalg_names_are_served():
    for name in PADDLE_LINALG:
        if name in pyir.linalg.FROM_OTHER_FAMILIES:
            # diagonal comes with the manipulation family; served from pyir.tensor
            assert getattr(pyir.linalg, name, None) is getattr(pyir.tensor, name, None)
            continue
        assert name in pyir.linalg.__all__ or name in pyir.linalg.UNSUPPORTED, name
        assert callable(getattr(pyir.linalg, name))


def test_left_out_linalg_name_refuses_in_one_line():
    with pytest.raises(UnsupportedError, match="paddle.linalg.fp8_fp8_half_gemm_fused: GPU-only"):
        pyir.linalg.fp8_fp8_half_gemm_fused(None, None)
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        pyir.linalg.no_such_name  # noqa: B018


def test_linalg_functions_are_tensor_methods():
    pyir.disable_static()
    a = pyir.to_tensor(np.array([[4.0, 2.0], [2.0, 3.0]]))
    np.testing.assert_allclose(a.cholesky().numpy(), np.linalg.cholesky(a.numpy()))
    np.testing.assert_allclose(a.pinv().numpy(), np.linalg.pinv(a.numpy()))
    np.testing.assert_allclose(a.matrix_power(2).numpy(), a.numpy() @ a.numpy())
