"""Binary math functions (pyir/tensor/math_binary.py): static ops and attributes, eager values
against numpy (with broadcasting), gradients of both operands through the tape, scalars,
rounding modes, in-place variants and refusals."""

from __future__ import annotations

import math

import numpy as np
import pytest

import pyir
from pyir import framework
from pyir.errors import BuildError

from test_api_math_common import eager_run, numeric_grad, static_run, uniform

POS = (0.5, 2.0)
# (function, emitted op types (constants left out), numpy reference, x range, y range, grads)
BINARY = [
    ("add", ["elementwise_add"], np.add, None, None, True),
    ("subtract", ["elementwise_sub"], np.subtract, None, None, True),
    ("sub", ["elementwise_sub"], np.subtract, None, None, True),
    ("multiply", ["elementwise_mul"], np.multiply, None, None, True),
    ("mul", ["elementwise_mul"], np.multiply, None, None, True),
    ("divide", ["elementwise_div"], np.divide, None, POS, True),
    ("div", ["elementwise_div"], np.divide, None, POS, True),
    ("floor_divide", ["elementwise_floordiv"], np.floor_divide, (-5, 5), POS, False),
    ("remainder", ["elementwise_mod"], np.mod, (-5, 5), POS, True),
    ("mod", ["elementwise_mod"], np.mod, (-5, 5), POS, False),
    ("floor_mod", ["elementwise_mod"], np.mod, (-5, 5), POS, False),
    ("pow", ["elementwise_pow"], np.power, POS, None, True),
    ("maximum", ["elementwise_max"], np.maximum, None, None, True),
    ("minimum", ["elementwise_min"], np.minimum, None, None, True),
    ("fmax", ["elementwise_fmax"], np.fmax, None, None, True),
    ("fmin", ["elementwise_fmin"], np.fmin, None, None, True),
    ("heaviside", ["elementwise_heaviside"], lambda x, y: np.where(x == 0, y, x > 0), None,
     None, False),
    ("atan2", ["atan2"], np.arctan2, None, None, True),
    ("hypot", ["pow", "pow", "elementwise_add", "sqrt"], np.hypot, None, None, True),
    ("logaddexp", ["elementwise_sub", "abs", "scale", "exp", "log1p", "elementwise_max",
                   "elementwise_add"], np.logaddexp, None, None, True),
    ("copysign", ["copysign"], np.copysign, (0.2, 2.0), None, False),
    ("nextafter", ["nextafter"], np.nextafter, None, None, False),
]


def _pair(x_range, y_range, dtype, seed, y_shape=(4,)):
    x = uniform((3, 4), *(x_range or (-1.0, 1.0)), dtype=dtype, seed=seed)
    y = uniform(y_shape, *(y_range or (-1.0, 1.0)), dtype=dtype, seed=seed + 1)
    return x, y


def _ops(ops):
    return [t for t in ops if t not in ("fill_constant", "fill_any_like")]


@pytest.mark.parametrize("name, op_types, reference, xr, yr, _", BINARY,
                         ids=[c[0] for c in BINARY])
def test_binary_static_emits_paddles_ops_with_broadcasting(name, op_types, reference, xr, yr,
                                                           _):
    x, y = _pair(xr, yr, "float32", 0)
    (value,), ops, op_list = static_run(getattr(pyir, name), x, y)
    assert _ops(ops) == op_types
    if op_types[-1].startswith("elementwise_"):
        assert op_list[-1].attrs["axis"] == -1
    assert value.shape == (3, 4) and value.dtype == np.float32
    np.testing.assert_allclose(value, reference(x, y), rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("name, op_types, reference, xr, yr, _", BINARY,
                         ids=[c[0] for c in BINARY])
def test_binary_eager_matches_numpy(name, op_types, reference, xr, yr, _):
    x, y = _pair(xr, yr, "float64", 4, y_shape=(3, 1))
    value = eager_run(getattr(pyir, name), x, y)
    np.testing.assert_allclose(value, reference(x, y), rtol=1e-12, atol=1e-12)


def _grads(fn, x, y, w):
    framework.static_mode[0] = False
    tx, ty = pyir.to_tensor(x, stop_gradient=False), pyir.to_tensor(y, stop_gradient=False)
    fn(tx, ty).backward(pyir.to_tensor(w))
    return tx.gradient(), ty.gradient()


@pytest.mark.parametrize("name, reference, xr, yr",
                         [(c[0], c[2], c[3], c[4]) for c in BINARY if c[5]],
                         ids=[c[0] for c in BINARY if c[5]])
def test_binary_gradients_of_both_operands(name, reference, xr, yr):
    x, y = _pair(xr, yr, "float64", 7, y_shape=(3, 1))  # y broadcasts: its grad sums
    w = uniform((3, 4), seed=9)
    gx, gy = _grads(getattr(pyir, name), x, y, w)
    np.testing.assert_allclose(gx, numeric_grad(lambda v: reference(v, y), x, w), rtol=1e-5,
                               atol=1e-7)
    np.testing.assert_allclose(gy, numeric_grad(lambda v: reference(x, v), y, w), rtol=1e-5,
                               atol=1e-7)


def test_maximum_and_fmax_differ_on_nan():
    x = np.array([1.0, np.nan, 3.0])
    y = np.array([np.nan, 2.0, 1.0])
    np.testing.assert_array_equal(eager_run(pyir.maximum, x, y), [np.nan, np.nan, 3.0])
    np.testing.assert_array_equal(eager_run(pyir.fmax, x, y), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(eager_run(pyir.fmin, x, y), [1.0, 2.0, 1.0])


def test_heaviside_uses_y_at_zero_and_its_gradient_flows_only_there():
    x, y = np.array([-1.0, 0.0, 2.0]), np.array([0.3, 0.7, 0.9])
    np.testing.assert_array_equal(eager_run(pyir.heaviside, x, y), [0.0, 0.7, 1.0])
    # Paddle 3.3.1 gives 0 for a NaN x (numpy would give NaN)
    assert eager_run(pyir.heaviside, np.array([np.nan]), np.array([0.5]))[0] == 0.0
    gx, gy = _grads(pyir.heaviside, x, y, np.ones(3))
    np.testing.assert_array_equal(gx, [0, 0, 0])
    np.testing.assert_array_equal(gy, [0, 1, 0])


def test_add_and_subtract_alpha_scale_y_first():
    x, y = np.array([1.0, 2.0], np.float32), np.array([10.0, 20.0], np.float32)
    (value,), ops, op_list = static_run(pyir.add, x, y, alpha=2)
    assert ops[-2:] == ["scale", "elementwise_add"] and op_list[-2].attrs["scale"] == 2.0
    np.testing.assert_array_equal(value, [21.0, 42.0])
    np.testing.assert_array_equal(eager_run(pyir.subtract, x, y, alpha=0.5), [-4.0, -8.0])


@pytest.mark.parametrize("mode, ops, expect", [
    (None, ["elementwise_div"], [-2.5, 3.5, 2.5]),
    ("trunc", ["elementwise_div", "trunc"], [-2.0, 3.0, 2.0]),
    ("floor", ["elementwise_floordiv"], [-3.0, 3.0, 2.0]),
])
def test_divide_rounding_modes(mode, ops, expect):
    x, y = np.array([-5.0, 7.0, 5.0], np.float32), np.array([2.0, 2.0, 2.0], np.float32)
    (value,), got, _ = static_run(pyir.divide, x, y, rounding_mode=mode)
    assert got[-len(ops):] == ops
    np.testing.assert_array_equal(value, expect)
    np.testing.assert_array_equal(eager_run(pyir.true_divide, x, y) if mode is None else
                                  eager_run(pyir.div, x, y, rounding_mode=mode), expect)


def test_divide_refuses_an_unknown_rounding_mode():
    x = pyir.static.data("x", [2], "float32")
    with pytest.raises(BuildError, match="rounding_mode must be None, 'trunc' or 'floor'"):
        pyir.divide(x, x, rounding_mode="round")


def test_integer_floor_divide_and_remainder_follow_python():
    x, y = np.array([7, -7, 7, -7], np.int64), np.array([2, 2, -2, -2], np.int64)
    np.testing.assert_array_equal(eager_run(pyir.floor_divide, x, y), x // y)
    np.testing.assert_array_equal(eager_run(pyir.remainder, x, y), x % y)


def test_scalar_y_becomes_a_zero_d_constant_of_x_dtype():
    x = np.array([1.0, 4.0], np.float32)
    (value,), ops, op_list = static_run(lambda a: pyir.remainder(a, 3.0), x)
    const = [op for op in op_list if op.type == "fill_constant"][0]
    assert ops[-1] == "elementwise_mod" and const.attrs["shape"] == [] and \
        const.attrs["dtype"] == 5
    np.testing.assert_array_equal(value, [1.0, 1.0])
    np.testing.assert_array_equal(eager_run(lambda a: pyir.maximum(a, 2.0), x), [2.0, 4.0])


def test_pow_scalar_is_op_pow_with_factor():
    x = np.array([2.0, 3.0], np.float32)
    (value,), ops, op_list = static_run(lambda a: pyir.pow(a, 3), x)
    assert ops[-1] == "pow" and op_list[-1].attrs["factor"] == 3.0
    np.testing.assert_array_equal(value, [8.0, 27.0])


def test_atan2_of_integers_is_float64():
    x, y = np.array([1, -1, 0], np.int32), np.array([0, 0, -1], np.int32)
    (value,), _, _ = static_run(pyir.atan2, x, y)
    assert value.dtype == np.float64
    np.testing.assert_allclose(value, [math.pi / 2, -math.pi / 2, math.pi])


def test_copysign_keeps_negative_zero_and_takes_scalars():
    x = np.array([1.5, 2.0, 3.0])
    np.testing.assert_array_equal(eager_run(pyir.copysign, x, np.array([-0.0, 0.0, -1.0])),
                                  [-1.5, 2.0, -3.0])
    np.testing.assert_array_equal(eager_run(lambda a: pyir.copysign(a, -1.0), x), -x)


def test_nextafter_steps_one_ulp():
    x = np.array([1.0, 1.0], np.float32)
    y = np.array([2.0, 0.0], np.float32)
    np.testing.assert_array_equal(eager_run(pyir.nextafter, x, y), np.nextafter(x, y))


def test_ldexp_multiplies_by_powers_of_two():
    x, e = np.array([1.5, -2.0, 3.0], np.float32), np.array([2, -1, 0], np.int32)
    (value,), ops, _ = static_run(pyir.ldexp, x, e)
    assert _ops(ops)[-3:] == ["cast", "elementwise_pow", "elementwise_mul"]
    np.testing.assert_array_equal(value, np.ldexp(x, e))
    ints = eager_run(pyir.ldexp, np.array([3], np.int64), np.array([4], np.int64))
    assert ints.dtype == np.float32 and ints[0] == 48.0
    with pytest.raises(BuildError, match="y must be an integer tensor"):
        pyir.ldexp(pyir.static.data("a", [1], "float32"), pyir.static.data("b", [1], "float32"))


@pytest.mark.parametrize("dtype", ["int32", "int64", "int16"])
def test_gcd_and_lcm_match_numpy(dtype):
    x = np.array([12, -18, 0, 7, 0, 1071, 832040], dtype=np.int64)
    y = np.array([8, 12, 5, 0, 0, 462, 514229], dtype=np.int64)
    if dtype == "int16":
        x, y = x[:6], y[:6]
    x, y = x.astype(dtype), y.astype(dtype)
    (g, ), ops, _ = static_run(pyir.gcd, x, y)
    np.testing.assert_array_equal(g, np.gcd(x, y))
    assert g.dtype == np.dtype(dtype) and set(ops) >= {"elementwise_mod", "where"}
    np.testing.assert_array_equal(eager_run(pyir.lcm, x[:5], y[:5]), np.lcm(x[:5], y[:5]))


def test_gcd_broadcasts_and_refuses_floats():
    x, y = np.array([[4], [6]], np.int64), np.array([6, 9, 0], np.int64)
    np.testing.assert_array_equal(eager_run(pyir.gcd, x, y), np.gcd(x, y))
    with pytest.raises(BuildError, match="expects integer tensors"):
        pyir.gcd(pyir.static.data("f", [2], "float32"), pyir.static.data("g", [2], "float32"))


def test_lerp_with_scalar_and_tensor_weights_and_gradients():
    x, y = uniform((2, 3), seed=1), uniform((2, 3), seed=2)
    (value,), ops, _ = static_run(lambda a, b: pyir.lerp(a, b, 0.25), x, y)
    assert ops[-2:] == ["fill_constant", "lerp"]
    np.testing.assert_allclose(value, x + 0.25 * (y - x))
    w = uniform((3,), 0, 1, seed=3)
    np.testing.assert_allclose(eager_run(pyir.lerp, x, y, w), x + w * (y - x))
    gx, gy = _grads(lambda a, b: pyir.lerp(a, b, 0.25), x, y, np.ones((2, 3)))
    np.testing.assert_allclose(gx, np.full((2, 3), 0.75))
    np.testing.assert_allclose(gy, np.full((2, 3), 0.25))


def test_scale_with_tensor_scale_and_activation():
    x = np.array([1.0, -2.0], np.float32)
    s = np.array([3.0], np.float32)
    (value,), _, op_list = static_run(lambda a, b: pyir.scale(a, b, bias=1.0), x, s)
    assert op_list[-1].input("ScaleTensor") == ["in1"] and op_list[-1].attrs["bias"] == 1.0
    np.testing.assert_array_equal(value, [4.0, -5.0])
    got = eager_run(lambda a: pyir.scale(a, 2.0, 1.0, bias_after_scale=False, act="relu"), x)
    np.testing.assert_array_equal(got, [4.0, 0.0])


def test_add_n_sums_a_list_and_refuses_an_empty_one():
    a, b = uniform((2, 2), seed=1), uniform((2, 2), seed=2)
    np.testing.assert_allclose(eager_run(lambda p, q: pyir.add_n([p, q, p]), a, b), 2 * a + b)
    with pytest.raises(BuildError, match="at least one tensor"):
        pyir.add_n([])


def test_clip_bounds_numbers_tensors_and_missing():
    x = np.array([-3.0, 0.5, 4.0], np.float32)
    (value,), _, op_list = static_run(lambda a: pyir.clip(a, min=-1.0), x)
    assert op_list[-1].attrs["max"] == pytest.approx(float(np.finfo(np.float32).max))
    np.testing.assert_array_equal(value, [-1.0, 0.5, 4.0])
    lo = np.array([0.0], np.float32)
    np.testing.assert_array_equal(eager_run(lambda a, b: pyir.clamp(a, b, 2.0), x, lo),
                                  [0.0, 0.5, 2.0])
    framework.static_mode[0] = False
    t = pyir.to_tensor(np.array([-3.0, 0.5, 4.0, 1.0, -1.0]), stop_gradient=False)
    pyir.clip(t, -1.0, 1.0).backward()
    # the bounds themselves pass the gradient, as in Paddle 3.3.1
    np.testing.assert_array_equal(t.gradient(), [0.0, 1.0, 0.0, 1.0, 1.0])
    with pytest.raises(BuildError, match="min/max must be a number or a tensor"):
        pyir.clip(t, "low")


def test_multiplex_picks_rows_and_routes_gradients():
    a, b = uniform((3, 2), seed=1), uniform((3, 2), seed=2)
    index = np.array([[1], [0], [1]], np.int32)
    (value,), ops, _ = static_run(lambda p, q, i: pyir.multiplex([p, q], i), a, b, index)
    assert ops[-1] == "multiplex"
    np.testing.assert_array_equal(value, np.stack([b[0], a[1], b[2]]))
    framework.static_mode[0] = False
    ta, tb = pyir.to_tensor(a, stop_gradient=False), pyir.to_tensor(b, stop_gradient=False)
    pyir.multiplex([ta, tb], pyir.to_tensor(index)).backward()
    np.testing.assert_array_equal(ta.gradient(), [[0, 0], [1, 1], [0, 0]])
    np.testing.assert_array_equal(tb.gradient(), [[1, 1], [0, 0], [1, 1]])
    with pytest.raises(BuildError, match="at least 2 tensors"):
        pyir.multiplex([ta], pyir.to_tensor(index))


def test_increment_writes_into_x_in_both_modes():
    x = pyir.static.data("x", [1], "float32")
    assert pyir.increment(x, 2.0) is x
    op = pyir.static.default_main_program().global_block().ops[-1]
    assert op.type == "increment" and op.output("Out") == ["x"] and op.attrs["step"] == 2.0
    framework.static_mode[0] = False
    t = pyir.to_tensor(np.array([3], np.int64))
    assert pyir.increment(t) is t and t.numpy()[0] == 4
    with pytest.raises(BuildError, match="one element"):
        pyir.increment(pyir.to_tensor(np.ones(2)))


INPLACE = [("add_", np.add), ("subtract_", np.subtract), ("sub_", np.subtract),
           ("multiply_", np.multiply), ("mul_", np.multiply), ("divide_", np.divide),
           ("div_", np.divide), ("floor_divide_", np.floor_divide), ("mod_", np.mod),
           ("remainder_", np.mod), ("floor_mod_", np.mod), ("pow_", np.power),
           ("copysign_", np.copysign), ("hypot_", np.hypot),
           ("lerp_", lambda a, b: a + 0.5 * (b - a))]


@pytest.mark.parametrize("name, reference", INPLACE, ids=[c[0] for c in INPLACE])
def test_inplace_binary_updates_x(name, reference):
    framework.static_mode[0] = False
    a, b = np.array([1.5, 2.0, 3.0]), np.array([2.0, 0.5, 1.5])
    x = pyir.to_tensor(a.copy())
    args = (pyir.to_tensor(b), 0.5) if name == "lerp_" else (pyir.to_tensor(b),)
    assert getattr(pyir, name)(x, *args) is x
    np.testing.assert_allclose(x.numpy(), reference(a, b))


def test_inplace_integer_and_clip_variants():
    framework.static_mode[0] = False
    x = pyir.to_tensor(np.array([12, 18], np.int64))
    pyir.gcd_(x, pyir.to_tensor(np.array([8, 12], np.int64)))
    np.testing.assert_array_equal(x.numpy(), [4, 6])
    pyir.lcm_(x, pyir.to_tensor(np.array([6, 4], np.int64)))
    np.testing.assert_array_equal(x.numpy(), [12, 12])
    f = pyir.to_tensor(np.array([-2.0, 2.0]))
    f.clip_(-1.0, 1.0)
    np.testing.assert_array_equal(f.numpy(), [-1.0, 1.0])
    pyir.scale_(f, 3.0)
    np.testing.assert_array_equal(f.numpy(), [-3.0, 3.0])
    pyir.ldexp_(f, pyir.to_tensor(np.array([1, 2], np.int64)))
    np.testing.assert_array_equal(f.numpy(), [-6.0, 12.0])
    pyir.clamp_(f, 0.0)
    np.testing.assert_array_equal(f.numpy(), [0.0, 12.0])


def test_binary_refuses_non_tensor_x_and_bad_y():
    with pytest.raises(BuildError, match="expects a Variable or Tensor"):
        pyir.add(np.ones(2), 1.0)
    x = pyir.static.data("x", [2], "float32")
    with pytest.raises(BuildError, match="expects a tensor or a number for y"):
        pyir.multiply(x, "two")
    with pytest.raises(BuildError, match="elementwise_add"):
        pyir.add(x, np.ones(2, np.float32))
