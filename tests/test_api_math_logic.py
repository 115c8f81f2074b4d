"""Comparison, logical and bitwise functions, closeness tests and type predicates
(pyir/tensor/logic.py): static ops and attributes, eager values against numpy, scalars,
broadcasting, in-place variants and refusals."""

from __future__ import annotations

import numpy as np
import pytest

import pyir
from pyir import framework
from pyir.errors import BuildError

from test_api_math_common import eager_run, static_run

A = np.array([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]], np.float32)
B = np.array([2.0, 2.0, 2.0], np.float32)

COMPARISONS = [
    ("equal", "equal", np.equal), ("not_equal", "not_equal", np.not_equal),
    ("greater_than", "greater_than", np.greater),
    ("greater_equal", "greater_equal", np.greater_equal),
    ("less_than", "less_than", np.less), ("less_equal", "less_equal", np.less_equal),
    ("eq", "equal", np.equal), ("ne", "not_equal", np.not_equal),
    ("gt", "greater_than", np.greater), ("ge", "greater_equal", np.greater_equal),
    ("lt", "less_than", np.less), ("le", "less_equal", np.less_equal),
    ("less", "less_than", np.less), ("greater", "greater_than", np.greater),
]


@pytest.mark.parametrize("name, op_type, reference", COMPARISONS,
                         ids=[c[0] for c in COMPARISONS])
def test_comparisons_static_and_eager(name, op_type, reference):
    fn = getattr(pyir, name)
    (value,), ops, _ = static_run(fn, A, B)
    assert ops == [op_type] and value.dtype == np.bool_
    np.testing.assert_array_equal(value, reference(A, B))
    np.testing.assert_array_equal(eager_run(fn, A, B), reference(A, B))
    scalar = eager_run(lambda x: fn(x, 2), A)
    np.testing.assert_array_equal(scalar, reference(A, 2.0))


def test_comparison_with_a_number_makes_a_zero_d_constant():
    (value,), ops, op_list = static_run(lambda x: pyir.greater_equal(x, 2), A)
    assert ops == ["fill_constant", "greater_equal"]
    assert op_list[0].attrs["shape"] == [] and op_list[0].attrs["value"] == 2.0
    np.testing.assert_array_equal(value, A >= 2)


LOGICAL = [("logical_and", np.logical_and), ("logical_or", np.logical_or),
           ("logical_xor", np.logical_xor)]


@pytest.mark.parametrize("name, reference", LOGICAL, ids=[c[0] for c in LOGICAL])
def test_logical_ops_treat_nonzero_as_true(name, reference):
    p = np.array([[True, False], [True, False]])
    q = np.array([True, False])
    (value,), ops, _ = static_run(getattr(pyir, name), p, q)
    assert ops == [name]
    np.testing.assert_array_equal(value, reference(p, q))
    f = np.array([0.0, 2.5, -1.0])
    np.testing.assert_array_equal(eager_run(getattr(pyir, name), f, np.array([1.0, 0.0, 3.0])),
                                  reference(f != 0, [True, False, True]))


def test_logical_not():
    (value,), ops, _ = static_run(pyir.logical_not, np.array([0, 3, -2], np.int32))
    assert ops == ["logical_not"]
    np.testing.assert_array_equal(value, [True, False, False])


BITWISE = [("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or),
           ("bitwise_xor", np.bitwise_xor)]


@pytest.mark.parametrize("name, reference", BITWISE, ids=[c[0] for c in BITWISE])
def test_bitwise_ops_on_integers_and_bools(name, reference):
    x, y = np.array([12, -3, 7], np.int32), np.array([10, 5, -1], np.int32)
    (value,), ops, _ = static_run(getattr(pyir, name), x, y)
    assert ops == [name] and value.dtype == np.int32
    np.testing.assert_array_equal(value, reference(x, y))
    p, q = np.array([True, False, True]), np.array([True, True, False])
    np.testing.assert_array_equal(eager_run(getattr(pyir, name), p, q), reference(p, q))
    with pytest.raises(BuildError, match="expects an integer or bool tensor"):
        getattr(pyir, name)(pyir.to_tensor(np.ones(2)), pyir.to_tensor(np.ones(2)))


@pytest.mark.parametrize("name", ["bitwise_not", "bitwise_invert"])
def test_bitwise_not_and_invert(name):
    x = np.array([0, 5, -6], np.int64)
    (value,), ops, _ = static_run(getattr(pyir, name), x)
    assert ops == ["bitwise_not"]
    np.testing.assert_array_equal(value, ~x)


@pytest.mark.parametrize("arithmetic", [True, False])
def test_bit_shifts(arithmetic):
    x = np.array([5, -8, 127, -1], np.int32)
    y = np.array([1, 2, 3, 4], np.int32)
    (left, right), ops, op_list = static_run(
        lambda a, b: (pyir.bitwise_left_shift(a, b, arithmetic),
                      pyir.bitwise_right_shift(a, b, is_arithmetic=arithmetic)), x, y)
    assert ops == ["bitwise_left_shift", "bitwise_right_shift"]
    assert op_list[1].attrs["is_arithmetic"] is arithmetic
    np.testing.assert_array_equal(left, np.left_shift(x, y))
    expect = np.right_shift(x, y) if arithmetic else \
        (x.astype(np.uint32) >> y.astype(np.uint32)).astype(np.int32)
    np.testing.assert_array_equal(right, expect)


def test_isclose_and_allclose_attrs_and_values():
    x = np.array([1.0, 2.0, np.nan, np.inf, 5.0])
    y = np.array([1.0 + 1e-9, 2.1, np.nan, np.inf, 5.0 + 1e-4])
    (close, every), ops, op_list = static_run(
        lambda a, b: (pyir.isclose(a, b, rtol=1e-3, equal_nan=True), pyir.allclose(a, b)),
        x, y)
    assert ops == ["isclose", "allclose"]
    assert op_list[0].attrs["rtol"] == "0.001" and op_list[0].attrs["atol"] == "1e-08"
    assert op_list[0].attrs["equal_nan"] is True
    np.testing.assert_array_equal(close, np.isclose(x, y, rtol=1e-3, equal_nan=True))
    assert every.shape == () and not every
    assert eager_run(pyir.allclose, x[:2], x[:2]) and eager_run(pyir.allclose, x[:3], x[:3],
                                                                equal_nan=True)
    with pytest.raises(BuildError, match="rtol must be a float"):
        pyir.isclose(pyir.to_tensor(x), pyir.to_tensor(y), rtol="big")
    with pytest.raises(BuildError, match="equal_nan must be a bool"):
        pyir.allclose(pyir.to_tensor(x), pyir.to_tensor(y), equal_nan=1)


def test_equal_all_and_is_empty():
    (same, other), ops, _ = static_run(
        lambda a, b: (pyir.equal_all(a, a), pyir.equal_all(a, b)), A, A + 1)
    assert ops == ["equal_all", "equal_all"] and same and not other and same.shape == ()
    assert not eager_run(pyir.equal_all, np.array([1, 2]), np.array([[1, 2]]))
    (empty,), ops, _ = static_run(pyir.is_empty, np.zeros((0, 3), np.float32))
    assert ops == ["is_empty"] and empty
    assert not eager_run(pyir.is_empty, A)


def test_type_predicates():
    framework.static_mode[0] = False
    f, i, b = (pyir.to_tensor(np.ones(2)), pyir.to_tensor(np.ones(2, np.int32)),
               pyir.to_tensor(np.ones(2, bool)))
    assert pyir.is_tensor(f) and not pyir.is_tensor(np.ones(2))
    assert pyir.is_tensor(pyir.static.data("v", [2], "float32"))
    assert pyir.is_floating_point(f) and not pyir.is_floating_point(i)
    assert pyir.is_integer(i) and not pyir.is_integer(b) and not pyir.is_integer(f)
    assert not pyir.is_complex(f)
    with pytest.raises(BuildError, match="is_integer expects a Tensor or Variable, got list"):
        pyir.is_integer([1, 2])


@pytest.mark.parametrize("invert", [False, True])
def test_isin(invert):
    x = np.array([[1, 2, 3], [4, 5, 6]], np.int64)
    test = np.array([[2, 6], [9, 1]], np.int64)
    (value,), ops, _ = static_run(pyir.isin, x, test, invert=invert)
    assert "reduce_any" in ops and ("logical_not" in ops) == invert
    np.testing.assert_array_equal(value, np.isin(x, test, invert=invert))
    np.testing.assert_array_equal(eager_run(pyir.isin, np.array(3), test), np.isin(3, test))
    with pytest.raises(BuildError, match="test_x must be a tensor"):
        pyir.isin(pyir.to_tensor(x), [1, 2])


INPLACE = [("equal_", np.equal), ("not_equal_", np.not_equal), ("less_than_", np.less),
           ("less_", np.less), ("less_equal_", np.less_equal),
           ("greater_than_", np.greater), ("greater_equal_", np.greater_equal),
           ("logical_and_", np.logical_and), ("logical_or_", np.logical_or),
           ("logical_xor_", np.logical_xor), ("bitwise_and_", np.bitwise_and),
           ("bitwise_or_", np.bitwise_or), ("bitwise_xor_", np.bitwise_xor),
           ("bitwise_left_shift_", np.left_shift), ("bitwise_right_shift_", np.right_shift)]


@pytest.mark.parametrize("name, reference", INPLACE, ids=[c[0] for c in INPLACE])
def test_inplace_logic_updates_x(name, reference):
    framework.static_mode[0] = False
    a, b = np.array([1, 6, 3], np.int64), np.array([1, 2, 5], np.int64)
    x = pyir.to_tensor(a.copy())
    assert getattr(pyir, name)(x, pyir.to_tensor(b)) is x
    np.testing.assert_array_equal(x.numpy(), reference(a, b))


def test_inplace_unary_logic():
    framework.static_mode[0] = False
    x = pyir.to_tensor(np.array([0, 5], np.int64))
    pyir.bitwise_not_(x)
    np.testing.assert_array_equal(x.numpy(), [-1, -6])
    pyir.bitwise_invert_(x)
    np.testing.assert_array_equal(x.numpy(), [0, 5])
    pyir.logical_not_(x)
    np.testing.assert_array_equal(x.numpy(), [True, False])


def test_logic_functions_are_methods_and_keep_out_argument():
    framework.static_mode[0] = False
    t = pyir.to_tensor(np.array([1.0, 2.0]))
    np.testing.assert_array_equal(t.isclose(pyir.to_tensor(np.array([1.0, 2.5]))).numpy(),
                                  [True, False])
    target = pyir.to_tensor(np.zeros(2, bool))
    assert pyir.less_than(t, 1.5, out=target) is target
    np.testing.assert_array_equal(target.numpy(), [True, False])
