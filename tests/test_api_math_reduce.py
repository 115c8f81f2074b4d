"""Reductions, running totals and statistics (pyir/tensor/math_reduce.py, stat.py): axis
forms (None, int, negative, list, tuple), keepdim, dtype, the ops and attributes Paddle
emits, values against numpy in static and eager mode, tape gradients, NaN and tie handling,
refusals."""

from __future__ import annotations

import numpy as np
import pytest

import pyir
from pyir import framework
from pyir.errors import BuildError

from test_api_math_common import eager_grad, eager_run, numeric_grad, static_run, uniform

X = uniform((2, 3, 4), seed=11)
AXES = [None, 1, -1, [0, 2], (0, -2), [0, 1, 2]]

# (function, op type, numpy reference(x, axis, keepdims))
REDUCTIONS = [
    ("sum", "reduce_sum", np.sum), ("prod", "reduce_prod", np.prod),
    ("mean", "reduce_mean", np.mean), ("max", "reduce_max", np.max),
    ("min", "reduce_min", np.min), ("amax", "reduce_amax", np.max),
    ("amin", "reduce_amin", np.min),
    ("logsumexp", "logsumexp",
     lambda x, axis, keepdims: np.log(np.exp(x).sum(axis=axis, keepdims=keepdims))),
]


def _np_axis(axis):
    return tuple(axis) if isinstance(axis, (list, tuple)) else axis


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize("name, op_type, reference", REDUCTIONS,
                         ids=[r[0] for r in REDUCTIONS])
def test_reduction_static_op_attrs_and_values(name, op_type, reference, axis, keepdim):
    x = X.astype(np.float32)
    (value,), ops, op_list = static_run(getattr(pyir, name), x, axis=axis, keepdim=keepdim)
    assert ops == [op_type]
    attrs = op_list[-1].attrs
    dims = [] if axis is None else [axis] if isinstance(axis, int) else list(axis)
    if op_type == "logsumexp":
        assert attrs["axis"] == dims and attrs["keepdim"] == keepdim
    else:
        assert attrs["dim"] == dims and attrs["keep_dim"] == keepdim
    assert attrs["reduce_all"] == (axis is None or len(dims) == 3)
    expect = reference(x.astype(np.float64), axis=_np_axis(axis), keepdims=keepdim)
    assert value.shape == np.shape(expect)
    np.testing.assert_allclose(value, expect, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name, op_type, reference", REDUCTIONS,
                         ids=[r[0] for r in REDUCTIONS])
def test_reduction_eager_values_and_gradients(name, op_type, reference):
    fn = getattr(pyir, name)
    got = eager_run(fn, X, axis=[0, -1], keepdim=True)
    np.testing.assert_allclose(got, reference(X, axis=(0, 2), keepdims=True), rtol=1e-12)
    w = uniform((3,), seed=5)
    grad = eager_grad(fn, X, w, axis=(0, 2))
    expect = numeric_grad(lambda v: reference(v, axis=(0, 2), keepdims=False), X, w)
    np.testing.assert_allclose(grad, expect, rtol=1e-5, atol=1e-7)


def test_tied_extremes_share_the_gradient_evenly():
    # Paddle 3.3.1 gives [[0, .5, .5], [.5, 0, .5]] for max as for amax
    x = np.array([[1.0, 3.0, 3.0], [2.0, 0.0, 2.0]])
    np.testing.assert_array_equal(eager_grad(pyir.max, x, axis=1),
                                  [[0, 0.5, 0.5], [0.5, 0, 0.5]])
    np.testing.assert_array_equal(eager_grad(pyir.min, x), [[0, 0, 0], [0, 1, 0]])
    np.testing.assert_array_equal(eager_grad(pyir.amax, x, axis=1),
                                  [[0, 0.5, 0.5], [0.5, 0, 0.5]])
    np.testing.assert_array_equal(eager_grad(pyir.amin, x), [[0, 0, 0], [0, 1, 0]])


def test_sum_dtypes_bool_and_int32_become_int64():
    for dtype in ("bool", "int32"):
        x = np.array([[1, 0, 1], [1, 1, 0]]).astype(dtype)
        (value,), _, op_list = static_run(pyir.sum, x, axis=1)
        assert value.dtype == np.int64 and op_list[-1].attrs["out_dtype"] == 3
        np.testing.assert_array_equal(value, [2, 2])
    (value,), _, op_list = static_run(pyir.sum, X.astype(np.float32), dtype="float64")
    assert value.dtype == np.float64 and op_list[-1].attrs["in_dtype"] == 5
    np.testing.assert_allclose(value, X.sum(), rtol=1e-6)


def test_prod_and_mean_dtype_cast_first():
    x = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    (value,), ops, _ = static_run(pyir.prod, x, axis=-1, dtype="float64")
    assert ops == ["cast", "reduce_prod"] and value.dtype == np.float64
    np.testing.assert_array_equal(value, [6.0, 120.0])
    (value,), ops, _ = static_run(pyir.mean, x, dtype="float32")
    assert ops == ["cast", "reduce_mean"] and value == pytest.approx(3.5)
    assert eager_run(pyir.prod, np.array([2, 3], np.int64)).dtype == np.int64


def test_mean_of_empty_axis_list_reduces_everything():
    (value,), _, op_list = static_run(pyir.mean, X.astype(np.float32), axis=[])
    assert op_list[-1].attrs["reduce_all"] and value.shape == ()


@pytest.mark.parametrize("name, reference", [("all", np.all), ("any", np.any)])
def test_all_and_any(name, reference):
    x = np.array([[True, False, True], [True, True, True]])
    (value,), ops, op_list = static_run(getattr(pyir, name), x, axis=1)
    assert ops == [f"reduce_{name}"] and op_list[-1].attrs["dim"] == [1]
    np.testing.assert_array_equal(value, reference(x, axis=1))
    f = np.array([[0.0, 2.0], [0.0, 0.0]])
    np.testing.assert_array_equal(eager_run(getattr(pyir, name), f, axis=0, keepdim=True),
                                  reference(f != 0, axis=0, keepdims=True))
    assert eager_run(getattr(pyir, name), f).shape == ()


@pytest.mark.parametrize("axis", [3, -4, [0, 5], 1.5])
def test_reductions_refuse_bad_axes(axis):
    x = pyir.static.data("x", [2, 3, 4], "float32")
    with pytest.raises(BuildError, match="axis"):
        pyir.sum(x, axis=axis)


def test_nansum_and_nanmean_skip_nan():
    x = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, 2.0]])
    (s, m), ops, _ = static_run(lambda v: (pyir.nansum(v, axis=1), pyir.nanmean(v, axis=1)), x)
    np.testing.assert_array_equal(s, [4.0, 2.0])
    np.testing.assert_array_equal(m, [2.0, 2.0])
    assert "isnan_v2" in ops and "where" in ops and "reduce_sum" in ops
    assert np.isnan(eager_run(pyir.nanmean, np.array([np.nan, np.nan])))
    grad = eager_grad(pyir.nanmean, x, axis=1)
    np.testing.assert_array_equal(grad, [[0.5, 0, 0.5], [0, 0, 1]])
    np.testing.assert_array_equal(eager_run(pyir.nansum, x, keepdim=True), [[6.0]])


def test_count_nonzero_is_int64():
    x = np.array([[0.0, 1.5, -2.0], [0.0, 0.0, 3.0]], np.float32)
    (value,), ops, _ = static_run(pyir.count_nonzero, x, axis=1)
    assert ops == ["cast", "cast", "reduce_sum"] and value.dtype == np.int64
    np.testing.assert_array_equal(value, [2, 1])
    assert eager_run(pyir.count_nonzero, x) == 3


@pytest.mark.parametrize("name, np_fn, attr", [("cumsum", np.cumsum, "axis"),
                                               ("cumprod", np.cumprod, "dim")])
def test_cumsum_and_cumprod(name, np_fn, attr):
    x = uniform((3, 4), 0.5, 1.5, dtype="float32")
    fn = getattr(pyir, name)
    (value,), ops, op_list = static_run(fn, x, **{attr: -1})
    assert ops == [name] and op_list[-1].attrs[attr] == -1
    np.testing.assert_allclose(value, np_fn(x, axis=-1), rtol=1e-6)
    (flat,), ops, _ = static_run(fn, x)
    np.testing.assert_allclose(flat, np_fn(x.ravel()), rtol=1e-5)
    got = eager_run(fn, x, **{attr: 0}, dtype="float64")
    assert got.dtype == np.float64
    x64 = x.astype(np.float64)
    w = uniform((3, 4), seed=3)
    np.testing.assert_allclose(eager_grad(fn, x64, w, **{attr: 1}),
                               numeric_grad(lambda v: np_fn(v, axis=1), x64, w), rtol=1e-6)


def test_cumsum_axis_none_flattens_with_attrs():
    (_,), _, op_list = static_run(pyir.cumsum, X.astype(np.float32))
    assert op_list[-1].attrs["flatten"] is True and op_list[-1].attrs["axis"] == -1
    (_,), ops, _ = static_run(pyir.cumprod, X.astype(np.float32))
    assert ops[-2:] == ["flatten_contiguous_range", "cumprod"]


@pytest.mark.parametrize("name, better", [("cummax", np.greater_equal),
                                          ("cummin", np.less_equal)])
def test_cummax_cummin_values_indices_ties_nan_and_gradient(name, better):
    x = np.array([[1.0, 3.0, 3.0, 2.0, 0.0, 5.0]])
    fn = getattr(pyir, name)
    (values, indices), ops, op_list = static_run(fn, x, axis=1)
    assert ops == [name] and op_list[-1].attrs["dtype"] == 3
    expect_v, expect_i = [], []
    for i, v in enumerate(x[0]):  # the last position holding the running extreme
        if not expect_v or better(v, expect_v[-1]):
            expect_v.append(v)
            expect_i.append(i)
        else:
            expect_v.append(expect_v[-1])
            expect_i.append(expect_i[-1])
    np.testing.assert_array_equal(values[0], expect_v)
    np.testing.assert_array_equal(indices[0], expect_i)
    nan = eager_run(fn, np.array([1.0, np.nan, 0.5, 7.0]))
    assert np.isnan(nan[0][1:]).all() and list(nan[1]) == [0, 1, 1, 1]
    framework.static_mode[0] = False
    t = pyir.to_tensor(x, stop_gradient=False)
    fn(t, axis=-1)[0].backward()
    counts = np.bincount(np.array(expect_i), minlength=6).astype(float)
    np.testing.assert_array_equal(t.gradient()[0], counts)
    v, i = fn(pyir.to_tensor(np.array([[2, 1], [0, 3]], np.int32)), dtype="int32")
    assert v.shape == [4] and i.dtype == np.int32
    with pytest.raises(BuildError, match="dtype must be int32 or int64"):
        fn(t, dtype="float32")


def test_logcumsumexp_values_and_gradient():
    x = uniform((3, 4), seed=8)
    (value,), ops, op_list = static_run(pyir.logcumsumexp, x, axis=0)
    assert ops == ["logcumsumexp"] and op_list[-1].attrs["flatten"] is False
    np.testing.assert_allclose(value, np.log(np.cumsum(np.exp(x), axis=0)), rtol=1e-12)
    np.testing.assert_allclose(eager_run(pyir.logcumsumexp, x),
                               np.log(np.cumsum(np.exp(x.ravel()))), rtol=1e-12)
    w = uniform((3, 4), seed=9)
    np.testing.assert_allclose(
        eager_grad(pyir.logcumsumexp, x, w, axis=1),
        numeric_grad(lambda v: np.log(np.cumsum(np.exp(v), axis=1)), x, w), rtol=1e-6)


@pytest.mark.parametrize("n, axis", [(1, -1), (2, 0), (1, 1), (3, -1)])
def test_diff_matches_numpy(n, axis):
    x = uniform((3, 5), seed=2, dtype="float32")
    (value,), ops, _ = static_run(pyir.diff, x, n=n, axis=axis)
    assert ops.count("elementwise_sub") == n and ops.count("slice") == 2 * n
    np.testing.assert_allclose(value, np.diff(x, n=n, axis=axis), rtol=1e-5, atol=1e-6)


def test_diff_prepend_append_bool_and_gradient():
    x, p, a = np.array([1.0, 4.0, 9.0]), np.array([0.0]), np.array([16.0, 25.0])
    np.testing.assert_array_equal(
        eager_run(lambda v, q, r: pyir.diff(v, prepend=q, append=r), x, p, a),
        np.diff(x, prepend=p, append=a))
    b = np.array([True, True, False, True])
    np.testing.assert_array_equal(eager_run(pyir.diff, b), np.diff(b))
    np.testing.assert_array_equal(eager_grad(pyir.diff, x), [-1.0, 0.0, 1.0])
    with pytest.raises(BuildError, match="n must be a non-negative int"):
        pyir.diff(pyir.static.data("d", [3], "float32"), n=-1)


# --- statistics --------------------------------------------------------------------------------
@pytest.mark.parametrize("axis", [None, 1, [0, 2], -1])
@pytest.mark.parametrize("unbiased", [True, False])
def test_var_and_std_match_numpy(axis, unbiased):
    ddof = 1 if unbiased else 0
    a = _np_axis(axis)
    x = X.astype(np.float32)
    (v, s), _, _ = static_run(lambda t: (pyir.var(t, axis, unbiased), pyir.std(t, axis,
                                                                                 unbiased)), x)
    np.testing.assert_allclose(v, np.var(X, axis=a, ddof=ddof), rtol=1e-5)
    np.testing.assert_allclose(s, np.std(X, axis=a, ddof=ddof), rtol=1e-5)
    got = eager_run(pyir.var, X, axis=axis, unbiased=unbiased, keepdim=True)
    np.testing.assert_allclose(got, np.var(X, axis=a, ddof=ddof, keepdims=True), rtol=1e-12)


def test_var_correction_gradient_and_degenerate_counts():
    np.testing.assert_allclose(eager_run(pyir.var, X, correction=2),
                               np.var(X, ddof=2), rtol=1e-12)
    assert eager_run(pyir.var, np.array([[3.0, 1.0]]), axis=1, correction=3)[0] == np.inf
    assert np.isnan(eager_run(pyir.std, np.array([[3.0]]), axis=1)[0])
    w = uniform((2, 4), seed=4)
    np.testing.assert_allclose(eager_grad(pyir.std, X, w, axis=1),
                               numeric_grad(lambda v: np.std(v, axis=1, ddof=1), X, w),
                               rtol=1e-6)


def test_var_with_an_unknown_batch_dim_counts_at_run_time():
    x = pyir.static.data("x", [None, 3], "float32")
    v = pyir.var(x)
    from pyir.executor import Executor
    data = uniform((5, 3), dtype="float32")
    (value,) = Executor().run(pyir.static.default_main_program(), feed={"x": data},
                              fetch_list=[v])
    np.testing.assert_allclose(value, np.var(data, ddof=1), rtol=1e-5)


@pytest.mark.parametrize("shape, axis", [((2, 5), 1), ((4, 3), 0), ((2, 4), -1), ((3, 3),
                                                                                    None)])
def test_median_avg_matches_numpy(shape, axis):
    x = uniform(shape, seed=6, dtype="float32")
    (value,), ops, _ = static_run(pyir.median, x, axis=axis)
    assert "top_k_v2" in ops
    np.testing.assert_allclose(value, np.median(x, axis=axis), rtol=1e-6)
    kept = eager_run(pyir.median, x.astype(np.float64), axis=axis, keepdim=True)
    if axis is not None:
        np.testing.assert_allclose(kept, np.median(x.astype(np.float64), axis=axis,
                                                   keepdims=True), rtol=1e-12)


def test_median_min_mode_nan_ints_and_gradient():
    x = np.array([[3.0, 1.0, 2.0, 2.0], [5.0, 4.0, 6.0, 7.0]])
    values, indices = eager_run(pyir.median, x, axis=1, mode="min")
    np.testing.assert_array_equal(values, [2.0, 5.0])
    assert x[0, indices[0]] == 2.0 and indices[1] == 0
    assert eager_run(pyir.median, x, mode="min") == 3.0  # axis None: the value only
    nan = eager_run(pyir.median, np.array([[1.0, np.nan, 2.0], [1.0, 2.0, 3.0]]), axis=1)
    assert np.isnan(nan[0]) and nan[1] == 2.0
    ints = eager_run(pyir.median, np.array([1, 2, 4, 5], np.int64))
    assert ints.dtype == np.float32 and ints == 3.0
    assert eager_run(pyir.median, np.array([1, 2, 4, 5], np.int64), axis=0,
                     mode="min")[0].dtype == np.int64
    grad = eager_grad(pyir.median, np.array([[4.0, 1.0, 3.0, 2.0]]), axis=1)
    np.testing.assert_array_equal(grad, [[0, 0, 0.5, 0.5]])
    with pytest.raises(BuildError, match="mode must be 'avg' or 'min'"):
        pyir.median(pyir.static.data("m", [3], "float32"), mode="max")


def test_nanmedian_op_values_index_and_gradient():
    x = np.array([[3.0, np.nan, 1.0, 2.0], [5.0, 4.0, 6.0, 7.0], [np.nan] * 4], np.float32)
    (value,), ops, op_list = static_run(pyir.nanmedian, x, axis=1)
    assert ops == ["nanmedian"] and op_list[-1].attrs["axis"] == [1]
    np.testing.assert_array_equal(value[:2], [2.0, 5.5])
    assert np.isnan(value[2])
    values, index = eager_run(pyir.nanmedian, x, axis=1, mode="min")
    np.testing.assert_array_equal(values[:2], [2.0, 5.0])
    np.testing.assert_array_equal(index, [3, 0, -1])
    grad = eager_grad(pyir.nanmedian, x[:2].astype(np.float64))
    expect = np.zeros((2, 4))
    expect[1, 1] = 1.0  # the median of the 7 valid values, 4.0
    np.testing.assert_array_equal(grad, expect)
    kept = eager_run(pyir.nanmedian, x[:2], axis=[0, 1], keepdim=True)
    assert kept.shape == (1, 1) and kept[0, 0] == 4.0


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "nearest",
                                           "midpoint"])
@pytest.mark.parametrize("q, axis", [(0.3, 1), ([0.1, 0.5, 0.9], 0), (0.75, None),
                                     ([0.25, 1.0], [0, 1])])
def test_quantile_matches_numpy(q, axis, interpolation):
    x = uniform((4, 5), seed=12, dtype="float32")
    (value,), ops, _ = static_run(pyir.quantile, x, q=q, axis=axis,
                                  interpolation=interpolation)
    assert "argsort" in ops
    expect = np.quantile(x.astype(np.float64), q, axis=_np_axis(axis), method=interpolation)
    np.testing.assert_allclose(value, expect, rtol=1e-6)


def test_quantile_keepdim_nan_single_list_and_gradient():
    x = np.array([[3.0, 1.0, 2.0, 2.0], [5.0, 4.0, 6.0, 7.0]])
    assert eager_run(pyir.quantile, x, q=[0.1, 0.9], axis=[0, 1], keepdim=True).shape == \
        (2, 1, 1)
    assert eager_run(pyir.quantile, x, q=[0.5], axis=1).shape == (2,)
    assert eager_run(pyir.quantile, x, q=0.5, axis=1, keepdim=True).shape == (2, 1)
    nan = np.array([[3.0, np.nan, 1.0, 2.0], [5.0, 4.0, 6.0, 7.0]])
    got = eager_run(pyir.quantile, nan, q=0.3, axis=1)
    assert np.isnan(got[0]) and got[1] == pytest.approx(4.9)
    got = eager_run(pyir.nanquantile, nan, q=[0.3, 0.5], axis=1)
    np.testing.assert_allclose(got, np.nanquantile(nan, [0.3, 0.5], axis=1))
    assert np.isnan(eager_run(pyir.nanquantile, np.array([[np.nan, np.nan]]), q=0.5, axis=1)[0])
    w = uniform((2,), seed=1)
    distinct = x + np.arange(8).reshape(2, 4) * 1e-3
    np.testing.assert_allclose(eager_grad(pyir.quantile, distinct, w, q=0.3, axis=1),
                               _quantile_grad(distinct, 0.3, w), atol=1e-12)
    for bad in (1.5, [], "half"):
        with pytest.raises(BuildError, match="q must be a number"):
            pyir.quantile(pyir.static.data(f"q{len(str(bad))}", [4], "float32"), bad)
    with pytest.raises(BuildError, match="interpolation must be one of"):
        pyir.quantile(pyir.static.data("qi", [4], "float32"), 0.5, interpolation="cubic")


def _quantile_grad(x, q, w):
    """d quantile / dx for distinct values: the two neighbours of the position get 1 - f, f."""
    grad = np.zeros_like(x)
    for r, row in enumerate(x):
        order = np.argsort(row, kind="stable")
        pos = q * (len(row) - 1)
        lo, frac = int(np.floor(pos)), pos - np.floor(pos)
        grad[r, order[lo]] += (1 - frac) * w[r]
        grad[r, order[int(np.ceil(pos))]] += frac * w[r]
    return grad


def test_reductions_are_methods():
    framework.static_mode[0] = False
    t = pyir.to_tensor(X)
    np.testing.assert_allclose(t.amax(axis=0).numpy(), X.max(0))
    np.testing.assert_allclose(t.var().numpy(), X.var(ddof=1))
    np.testing.assert_allclose(t.logcumsumexp(axis=0).numpy(),
                               np.log(np.cumsum(np.exp(X), axis=0)))
    np.testing.assert_allclose(pyir.cumsum_(pyir.to_tensor(X.copy()), axis=1).numpy(),
                               np.cumsum(X, axis=1))
    np.testing.assert_allclose(pyir.cumprod_(pyir.to_tensor(X.copy()), 2).numpy(),
                               np.cumprod(X, axis=2))


def _trapezoid(y, x=None, dx=1.0, axis=-1):
    y = np.moveaxis(y, axis, -1)
    if x is None:
        widths = np.full(y.shape[-1] - 1, dx)
    else:
        widths = np.diff(np.moveaxis(x, axis, -1) if x.ndim > 1 else x, axis=-1)
    return np.moveaxis((y[..., 1:] + y[..., :-1]) / 2 * widths, -1, axis)


@pytest.mark.parametrize("kwargs", [{}, {"dx": 0.5}, {"axis": 0}])
def test_trapezoid_and_cumulative_trapezoid_evenly_spaced(kwargs):
    y = uniform((3, 4), seed=3)
    (total, running), ops, _ = static_run(
        lambda v: (pyir.trapezoid(v, **kwargs), pyir.cumulative_trapezoid(v, **kwargs)), y)
    assert "reduce_sum" in ops and "cumsum" in ops
    areas = _trapezoid(y, **kwargs)
    axis = kwargs.get("axis", -1)
    np.testing.assert_allclose(total, areas.sum(axis=axis), rtol=1e-12)
    np.testing.assert_allclose(running, np.cumsum(areas, axis=axis), rtol=1e-12)


def test_trapezoid_with_sample_points_and_gradient():
    y = uniform((2, 4), seed=5)
    x1 = np.array([0.0, 0.5, 1.5, 3.0])
    got = eager_run(lambda v, p: pyir.trapezoid(v, p), y, x1)
    np.testing.assert_allclose(got, _trapezoid(y, x1).sum(-1), rtol=1e-12)
    x2 = np.cumsum(uniform((2, 4), 0.1, 1.0, seed=6), axis=1)
    got = eager_run(lambda v, p: pyir.cumulative_trapezoid(v, p), y, x2)
    np.testing.assert_allclose(got, np.cumsum(_trapezoid(y, x2), -1), rtol=1e-12)
    np.testing.assert_allclose(eager_grad(pyir.trapezoid, y[0]), [0.5, 1, 1, 0.5])
    with pytest.raises(BuildError, match="give x or dx, not both"):
        pyir.trapezoid(pyir.to_tensor(y), pyir.to_tensor(x1), dx=1.0)


@pytest.mark.parametrize("p, axis, max_norm", [(2.0, 0, 2.5), (1.0, 1, 5.0), (3.0, -1, 0.5)])
def test_renorm_caps_slice_norms(p, axis, max_norm):
    x = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    (value,), ops, op_list = static_run(pyir.renorm, x, p=p, axis=axis, max_norm=max_norm)
    assert ops == ["renorm"] and op_list[0].attrs["max_norm"] == max_norm
    moved = np.moveaxis(x.astype(np.float64), axis, 0)
    norms = (np.abs(moved) ** p).sum(axis=1) ** (1 / p)
    factor = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
    np.testing.assert_allclose(value, np.moveaxis(moved * factor[:, None], 0, axis), rtol=1e-6)
    xx = uniform((3, 2), seed=4)

    def reference(v):
        n = (np.abs(v) ** p).sum(axis=1, keepdims=True) ** (1 / p)
        return v * np.where(n > 0.5, 0.5 / (n + 1e-7), 1.0)

    np.testing.assert_allclose(eager_grad(pyir.renorm, xx, p=p, axis=0, max_norm=0.5),
                               numeric_grad(reference, xx), rtol=1e-6, atol=1e-9)
    with pytest.raises(BuildError, match="needs p > 0"):
        pyir.renorm(pyir.to_tensor(xx), 0.0, 0, 1.0)


def test_reduce_as_sums_broadcast_axes():
    x = uniform((2, 3, 4), seed=1)
    target = np.zeros((3, 1))
    (value,), ops, _ = static_run(pyir.reduce_as, x, target)
    assert ops == ["reduce_as"]
    np.testing.assert_allclose(value, x.sum(axis=(0, 2)).reshape(3, 1))
    framework.static_mode[0] = False
    t = pyir.to_tensor(x, stop_gradient=False)
    pyir.reduce_as(t, pyir.to_tensor(target)).backward()
    np.testing.assert_array_equal(t.gradient(), np.ones_like(x))
