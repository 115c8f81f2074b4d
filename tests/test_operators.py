"""The one operator table: Variable and Tensor give the same values, Paddle's ops."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import pyir
from pyir import framework
from pyir.errors import PyirError

A = np.array([[1.0, -2.0, 3.0], [0.5, 2.0, -1.0]], "float32")
B = np.array([[1.0, 2.0, -3.0], [0.5, 1.0, 4.0]], "float32")
I = np.array([[6, 3], [5, 12]], "int64")
J = np.array([[3, 5], [1, 10]], "int64")


@pytest.fixture(autouse=True)
def _eager():
    framework.static_mode[0] = False
    yield
    framework.static_mode[0] = False


def _static(fn, a, b, scalar_b=False):
    main, startup = pyir.static.Program(), pyir.static.Program()
    with pyir.static.program_guard(main, startup):
        x = pyir.static.data("a", list(a.shape), str(a.dtype))
        y = b if scalar_b else pyir.static.data("b", list(b.shape), str(b.dtype))
        out = fn(x, y)
    feed = {"a": a} if scalar_b else {"a": a, "b": b}
    (value,) = pyir.static.Executor().run(main, feed=feed, fetch_list=[out])
    return value, [op.type for op in main.global_block().ops], out


CASES = [(operator.eq, "equal"), (operator.ne, "not_equal"), (operator.lt, "less_than"),
         (operator.le, "less_equal"), (operator.gt, "greater_than"),
         (operator.ge, "greater_equal")]


@pytest.mark.parametrize("fn,op_type", CASES)
def test_comparisons_match_numpy_in_both_modes(fn, op_type):
    value, ops, out = _static(fn, A, B)
    np.testing.assert_array_equal(value, fn(A, B))
    assert ops == [op_type] and out.name.startswith("tmp_")
    eager = fn(pyir.to_tensor(A), pyir.to_tensor(B))
    np.testing.assert_array_equal(eager.numpy(), fn(A, B))
    value, ops, _ = _static(fn, A, 0.5, scalar_b=True)
    np.testing.assert_array_equal(value, fn(A, np.float32(0.5)))
    assert ops == ["fill_constant", op_type]


@pytest.mark.parametrize("fn,kind", [(operator.and_, "and"), (operator.or_, "or"),
                                     (operator.xor, "xor")])
def test_bitwise_operators_use_logical_ops_on_bools_and_bitwise_ops_on_ints(fn, kind):
    value, ops, _ = _static(fn, I, J)
    np.testing.assert_array_equal(value, fn(I, J))
    assert ops == [f"bitwise_{kind}"]
    p, q = A > 0, B > 0
    value, ops, _ = _static(fn, p, q)
    np.testing.assert_array_equal(value, fn(p, q))
    assert ops == [f"logical_{kind}"]
    np.testing.assert_array_equal(fn(pyir.to_tensor(I), pyir.to_tensor(J)).numpy(), fn(I, J))


def test_invert_negate_abs_and_transpose():
    t = pyir.to_tensor(A)
    np.testing.assert_array_equal((~pyir.to_tensor(A > 0)).numpy(), ~(A > 0))
    np.testing.assert_array_equal((~pyir.to_tensor(I)).numpy(), ~I)
    np.testing.assert_array_equal((-t).numpy(), -A)
    np.testing.assert_array_equal(abs(t).numpy(), np.abs(A))
    np.testing.assert_array_equal(t.T.numpy(), A.T)
    value, ops, _ = _static(lambda x, y: x.T, A, 0, scalar_b=True)
    np.testing.assert_array_equal(value, A.T)
    assert ops == ["transpose2"]


@pytest.mark.parametrize("fn", [operator.add, operator.sub, operator.mul, operator.truediv,
                                operator.pow])
def test_scalar_on_either_side(fn):
    left, ops_left, _ = _static(lambda x, s: fn(s, x), np.abs(A) + 1, 2.0, scalar_b=True)
    right, ops_right, _ = _static(lambda x, s: fn(x, s), np.abs(A) + 1, 2.0, scalar_b=True)
    np.testing.assert_allclose(left, fn(np.float32(2.0), np.abs(A) + 1), rtol=1e-6)
    np.testing.assert_allclose(right, fn(np.abs(A) + 1, np.float32(2.0)), rtol=1e-6)
    eager_left = fn(2.0, pyir.to_tensor(np.abs(A) + 1))
    np.testing.assert_allclose(eager_left.numpy(), left, rtol=1e-6)
    folded = fn in (operator.add, operator.sub, operator.mul)
    assert (ops_left == ["scale"]) == folded
    assert (ops_right == ["scale"]) == (folded or fn is operator.truediv)


def test_integer_division_and_float_scalars_compute_in_float32():
    value, ops, _ = _static(lambda x, y: x / y, I, J)
    np.testing.assert_allclose(value, I / J, rtol=1e-6)
    assert ops == ["cast", "cast", "elementwise_div"] and value.dtype == np.float32
    value, ops, _ = _static(lambda x, s: x + s, I, 0.5, scalar_b=True)
    assert value.dtype == np.float32 and ops == ["cast", "scale"]
    np.testing.assert_allclose(value, I + 0.5)


def test_eager_and_static_do_not_mix_and_foreign_operands_defer():
    framework.static_mode[0] = True
    main = pyir.static.Program()
    with pyir.static.program_guard(main, pyir.static.Program()):
        v = pyir.static.data("v", [2], "float32")
    framework.static_mode[0] = False
    t = pyir.to_tensor([1.0, 2.0])
    with pytest.raises(PyirError, match="cannot combine eager Tensor"):
        t + v
    with pytest.raises(PyirError, match="cannot combine eager Tensor"):
        v * t
    with pytest.raises(TypeError):
        v + "text"
    np.testing.assert_array_equal((t + np.array([1.0, 1.0])).numpy(), [2.0, 3.0])


def test_variables_stay_hashable_and_identity_membership_works():
    main = pyir.static.Program()
    with pyir.static.program_guard(main, pyir.static.Program()):
        a = pyir.static.data("a", [2], "float32")
        b = pyir.static.data("b", [2], "float32")
    assert len({a, b}) == 2 and {a: 1}[a] == 1 and a in [a]
