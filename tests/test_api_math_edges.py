"""Edge cases of the math, statistics and logic functions: 0-D and empty tensors, extreme
values (IEEE results without numpy warnings), integer dtypes, and the refusal paths not
covered by the per-family files."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import pyir
from pyir import framework
from pyir.errors import BuildError

from test_api_math_common import eager_run, static_run


@pytest.mark.parametrize("name, axis", [("sum", None), ("sum", 0), ("sum", -1),
                                        ("mean", None), ("max", 0), ("prod", -1),
                                        ("logsumexp", None), ("amin", 0)])
def test_zero_d_tensors_reduce_over_axis_zero_or_none(name, axis):
    value = eager_run(getattr(pyir, name), np.array(2.5), axis=axis)
    assert value.shape == () and value == 2.5


def test_zero_d_axis_out_of_range_is_refused():
    with pytest.raises(BuildError, match="axis 1 is out of range for a tensor of 0 dims"):
        pyir.sum(pyir.static.data("s", [], "float32"), axis=1)


def test_empty_tensors():
    empty = np.zeros((0, 3), np.float32)
    np.testing.assert_array_equal(eager_run(pyir.sum, empty, axis=0), np.zeros(3))
    np.testing.assert_array_equal(eager_run(pyir.prod, empty, axis=0), np.ones(3))
    assert eager_run(pyir.sum, empty, axis=1).shape == (0,)
    assert eager_run(pyir.cumsum, empty, axis=0).shape == (0, 3)
    assert eager_run(pyir.sin, empty).shape == (0, 3)
    assert eager_run(pyir.add, empty, np.ones(3, np.float32)).shape == (0, 3)
    assert eager_run(pyir.count_nonzero, empty) == 0
    assert not eager_run(pyir.any, empty) and eager_run(pyir.all, empty)
    assert eager_run(pyir.is_empty, empty)


@pytest.mark.parametrize("name, x, expect", [
    ("log2", [0.0], [-np.inf]), ("log10", [0.0], [-np.inf]), ("log1p", [-1.0], [-np.inf]),
    ("rsqrt", [0.0], [np.inf]), ("reciprocal", [0.0], [np.inf]),
    ("asin", [2.0], [np.nan]), ("acosh", [0.5], [np.nan]), ("atanh", [1.0], [np.inf]),
    ("tanh", [1e4, -1e4], [1.0, -1.0]), ("expm1", [1000.0], [np.inf]),
    ("lgamma", [-2.0, 1e300], [np.inf, 1e300 * (np.log(1e300) - 1)]),
    ("logit", [0.0, 1.0], [-np.inf, np.inf]),
    # the poles as Paddle 3.3.1 gives them
    ("digamma", [0.0, -1.0], [-np.inf, np.nan]),
])
def test_extreme_values_give_ieee_results_silently(name, x, expect):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = eager_run(getattr(pyir, name), np.array(x))
    np.testing.assert_allclose(got, expect, rtol=1e-12)


@pytest.mark.parametrize("n, expect", [(1, [np.inf, np.inf]), (2, [-np.inf, -np.inf]),
                                       (3, [np.inf, np.inf])])
def test_polygamma_poles_have_paddles_signs(n, expect):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = eager_run(pyir.polygamma, np.array([0.0, -2.0]), n=n)
    np.testing.assert_array_equal(got, expect)


@pytest.mark.parametrize("name, x, expect", [
    ("exp", [1000.0, -1000.0], [np.inf, 0.0]), ("log", [0.0, -1.0], [-np.inf, np.nan]),
    ("sqrt", [-1.0], [np.nan]), ("sigmoid", [-1000.0, 1000.0], [0.0, 1.0]),
])
def test_extreme_values_of_activation_ops(name, x, expect):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pyir/ops/activation.py lets numpy warn here
        got = eager_run(getattr(pyir, name), np.array(x))
    np.testing.assert_allclose(got, expect, rtol=1e-12)


def test_binary_extremes_silently():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = eager_run(pyir.divide, np.array([1.0, 0.0, -1.0]), np.array([0.0, 0.0, 0.0]))
        np.testing.assert_array_equal(got, [np.inf, np.nan, -np.inf])
        big = np.array([1e308])
        assert eager_run(pyir.multiply, big, big)[0] == np.inf
        assert eager_run(pyir.pow, np.array([1e200]), y=2.0)[0] == np.inf
    np.testing.assert_allclose(eager_run(pyir.logaddexp, np.array([1000.0]),
                                         np.array([1000.0])), [1000 + np.log(2)])


@pytest.mark.parametrize("name, x, expect", [
    ("abs", [-3, 4], [3, 4]), ("sign", [-3, 0, 4], [-1, 0, 1]), ("square", [-3, 4], [9, 16]),
    ("neg", [-3, 4], [3, -4]),
])
def test_integer_inputs_keep_their_dtype(name, x, expect):
    got = eager_run(getattr(pyir, name), np.array(x, np.int64))
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, expect)


def test_static_batch_dim_is_unknown_in_shapes_but_runs():
    from pyir.executor import Executor
    x = pyir.static.data("x", [None, 3], "float32")
    outs = [pyir.amax(x, axis=-1), pyir.logsumexp(x, axis=1, keepdim=True), pyir.atan2(x, x),
            pyir.median(x, axis=1), pyir.quantile(x, 0.5, axis=1), pyir.std(x, axis=0)]
    assert tuple(outs[0].shape) == (-1,) and tuple(outs[1].shape) == (-1, 1)
    data = np.arange(12, dtype=np.float32).reshape(4, 3)
    got = Executor().run(pyir.static.default_main_program(), feed={"x": data},
                         fetch_list=outs)
    np.testing.assert_allclose(got[0], data.max(-1))
    np.testing.assert_allclose(got[3], np.median(data, axis=1))
    np.testing.assert_allclose(got[4], np.quantile(data, 0.5, axis=1))
    np.testing.assert_allclose(got[5], data.std(axis=0, ddof=1), rtol=1e-6)


REFUSALS = [
    (lambda x: pyir.cumsum(x, axis=[0]), "axis must be an int"),
    (lambda x: pyir.cumsum(x, axis=2), "axis 2 is out of range"),
    (lambda x: pyir.median(x, axis=[0]), "axis must be an int or None"),
    (lambda x: pyir.nanmedian(x, mode="mean"), "mode must be 'avg' or 'min'"),
    (lambda x: pyir.quantile(x, 0.5, axis=[]), "axis must not be empty"),
    (lambda x: pyir.cummax(x, dtype="float64"), "dtype must be int32 or int64"),
    (lambda x: pyir.logsumexp(x, axis=(0, 4)), "axis 4 is out of range"),
    (lambda x: pyir.amax(x, axis="0"), "axis must be an int or a list of ints"),
    (lambda x: pyir.exp(x, out=np.zeros(3)), "out= must be a Variable or Tensor"),
    (lambda x: pyir.atan2(x, "y"), "expects a tensor or a number for y"),
    (lambda x: pyir.lerp(x, x, "w"), "expects a tensor or a number for y"),
    (lambda x: pyir.equal(np.ones(3), x), "expects a Variable or Tensor"),
    (lambda x: pyir.sum([1.0, 2.0]), "expects a Variable or Tensor"),
    (lambda x: pyir.var(np.ones(3)), "expects a Variable or Tensor"),
    (lambda x: pyir.bitwise_left_shift(x, x), "expects an integer or bool tensor"),
]


@pytest.mark.parametrize("build, message", REFUSALS, ids=[m for _, m in REFUSALS])
def test_refusals_name_the_function_and_the_fix(build, message):
    x = pyir.static.data("x", [2, 3], "float32")
    with pytest.raises(BuildError, match=message):
        build(x)


def test_unknown_lengths_are_refused_where_the_composition_needs_them():
    x = pyir.static.data("x", [None, 3], "float32")
    with pytest.raises(BuildError, match="median needs a known, non-empty length"):
        pyir.median(x, axis=0)
    with pytest.raises(BuildError, match="quantile needs a known, non-empty length"):
        pyir.quantile(x, 0.5, axis=0)
    with pytest.raises(BuildError, match="diff needs a known length"):
        pyir.diff(x, axis=0)


def test_mixing_static_and_eager_is_refused():
    x = pyir.static.data("x", [3], "float32")
    framework.static_mode[0] = False
    with pytest.raises(BuildError, match="expects Variables as inputs"):
        pyir.maximum(x, pyir.to_tensor(np.ones(3, np.float32)))


def test_static_programs_of_composites_save_only_paddle_ops():
    """Every op a composite emits is a registered legacy op (so the file loads in Paddle)."""
    (value,), ops, _ = static_run(
        lambda v: pyir.add_n([pyir.sinc(v), pyir.nan_to_num(v), pyir.logaddexp(v, v),
                              pyir.frac(v), pyir.signbit(v).astype("float32")]),
        np.array([0.0, -1.5, 2.0], np.float32))
    from pyir import registry
    assert all(registry.lookup(t) is not None for t in ops)
    assert value.shape == (3,)


STATIC_GRAD_CASES = [
    ("erfinv", lambda v: pyir.erfinv(v), (0.1, 0.8)),
    ("i1e", lambda v: pyir.i1e(v), (-2.0, 2.0)),
    ("sinc", lambda v: pyir.sinc(v), (-1.0, 1.0)),
    ("hypot", lambda v: pyir.hypot(v, v * 2.0), (0.5, 1.5)),
    ("logaddexp", lambda v: pyir.logaddexp(v, pyir.sin(v)), (-1.0, 1.0)),
    ("var", lambda v: pyir.var(v, axis=1), (-1.0, 1.0)),
    ("std", lambda v: pyir.std(v), (-1.0, 1.0)),
    ("median", lambda v: pyir.median(v, axis=1), (-1.0, 1.0)),
    ("quantile", lambda v: pyir.quantile(v, [0.3, 0.8], axis=1), (-1.0, 1.0)),
    ("amax", lambda v: pyir.amax(v, axis=0), (-1.0, 1.0)),
    ("logcumsumexp", lambda v: pyir.logcumsumexp(v, axis=1), (-1.0, 1.0)),
    ("cummax", lambda v: pyir.cummax(v, axis=1)[0], (-1.0, 1.0)),
    ("nanmedian", lambda v: pyir.nanmedian(v, axis=1), (-1.0, 1.0)),
    ("renorm", lambda v: pyir.renorm(v, 2.0, 0, 0.5), (-1.0, 1.0)),
    ("multigammaln", lambda v: pyir.multigammaln(v, 2), (2.0, 3.0)),
    ("lerp", lambda v: pyir.lerp(v, pyir.cos(v), 0.3), (-1.0, 1.0)),
    ("diff", lambda v: pyir.diff(v, n=2), (-1.0, 1.0)),
    ("trapezoid", lambda v: pyir.cumulative_trapezoid(v, dx=0.5), (-1.0, 1.0)),
]


@pytest.mark.parametrize("build, domain", [(c[1], c[2]) for c in STATIC_GRAD_CASES],
                         ids=[c[0] for c in STATIC_GRAD_CASES])
def test_static_backward_matches_the_eager_tape(build, domain):
    """The program's backward (grad ops from each op's rule) equals the eager gradient."""
    from pyir.backward import gradients
    from pyir.executor import Executor
    from test_api_math_common import eager_grad, uniform
    data = uniform((3, 5), *domain, seed=21)
    x = pyir.static.data("x", [3, 5], "float64")
    x.stop_gradient = False
    loss = pyir.sum(build(x))
    (dx,) = gradients([loss], [x])
    (static,) = Executor().run(pyir.static.default_main_program(), feed={"x": data},
                               fetch_list=[dx])
    eager = eager_grad(lambda t: pyir.sum(build(t)), data)
    np.testing.assert_allclose(static, eager, rtol=1e-10, atol=1e-12)


def test_saved_inference_model_with_the_new_ops_loads_and_runs(tmp_path):
    """String, scalar-list and int attributes of the new ops survive the protobuf file."""
    from pyir.executor import Executor
    x = pyir.static.data("x", [2, 3], "float32")
    y = pyir.static.data("y", [2, 3], "float32")
    outs = [pyir.isclose(x, y, rtol=0.5), pyir.multigammaln(pyir.abs(x) + 2.0, 2),
            pyir.cummax(x, axis=1)[1], pyir.nanmedian(x, axis=1), pyir.polygamma(
                pyir.abs(x) + 1.0, 2), pyir.bitwise_right_shift(
                pyir.cast(x, "int32"), pyir.cast(y, "int32"), False), pyir.logit(x, 0.1),
            pyir.quantile(x, 0.4, axis=0, interpolation="nearest")]
    exe = Executor()
    data = {"x": np.array([[0.2, -1.5, 3.0], [0.5, 0.5, -2.0]], np.float32),
            "y": np.array([[0.25, 1.0, 1.0], [0.0, 2.0, 1.0]], np.float32)}
    expect = exe.run(pyir.static.default_main_program(), feed=data, fetch_list=outs)
    pyir.static.save_inference_model(str(tmp_path / "m"), [x, y], outs, exe)
    program, feeds, fetches = pyir.static.load_inference_model(str(tmp_path / "m"), exe)
    got = exe.run(program, feed=data, fetch_list=fetches)
    assert feeds == ["x", "y"]
    for a, b in zip(got, expect):
        np.testing.assert_array_equal(a, b)


COMPOSITES = {
    "sinc": lambda x, i: pyir.sinc(x), "nan_to_num": lambda x, i: pyir.nan_to_num(x),
    "frexp": lambda x, i: pyir.frexp(x)[0], "nansum": lambda x, i: pyir.nansum(x, 1),
    "nanmean": lambda x, i: pyir.nanmean(x, 0), "median": lambda x, i: pyir.median(x, 1),
    "median_all": lambda x, i: pyir.median(x), "quantile": lambda x, i: pyir.quantile(
        x, [0.2, 0.7], axis=0), "nanquantile": lambda x, i: pyir.nanquantile(x, 0.5, axis=1),
    "quantile_keep": lambda x, i: pyir.quantile(x, 0.5, axis=[0, 1], keepdim=True),
    "gcd": lambda x, i: pyir.gcd(i, i[0]), "lcm": lambda x, i: pyir.lcm(i, i[:, 0:1]),
    "isneginf": lambda x, i: pyir.isneginf(x), "signbit": lambda x, i: pyir.signbit(x),
}


@pytest.mark.parametrize("name", list(COMPOSITES))
def test_composites_give_where_equal_shapes(name):
    """Paddle's legacy `where` op refuses inputs of different shapes (no broadcasting)."""
    x = pyir.static.data("x", [3, 4], "float32")
    i = pyir.static.data("i", [3, 4], "int64")
    COMPOSITES[name](x, i)
    block = pyir.static.default_main_program().global_block()
    for op in block.ops:
        if op.type == "where":
            shapes = {tuple(block.var(op.input(s)[0]).shape) for s in ("Condition", "X", "Y")}
            assert len(shapes) == 1, f"{name}: where over shapes {shapes}"
