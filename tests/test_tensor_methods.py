"""Tensor/Variable methods that are not tensor functions, hooks, in-place variants, devices,
`pyir.batch` and `InputSpec`."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import pyir
from pyir import device, framework
from pyir.dispatch import inplace_of
from pyir.errors import BuildError, GradError, PyirError
from pyir.input_spec import InputSpec


@pytest.fixture(autouse=True)
def _eager():
    framework.static_mode[0] = False
    yield
    framework.static_mode[0] = False


def _static_run(build, feed):
    main, startup = pyir.static.Program(), pyir.static.Program()
    with pyir.static.program_guard(main, startup):
        fetches = build()
    exe = pyir.static.Executor(pyir.CPUPlace())
    return exe.run(main, feed=feed, fetch_list=fetches), main


@pytest.mark.parametrize("method,dtype", [("float", "float32"), ("double", "float64"),
                                          ("long", "int64"), ("int", "int32"),
                                          ("half", "float16"), ("bool", "bool"),
                                          ("byte", "uint8"), ("short", "int16")])
def test_dtype_shorthands_cast_in_both_modes(method, dtype):
    value = np.array([[1.5, -2.0], [0.0, 3.25]], "float32")
    got = getattr(pyir.to_tensor(value), method)()
    np.testing.assert_array_equal(got.numpy(), value.astype(dtype))
    assert got.dtype == np.dtype(dtype)
    pyir.enable_static()
    (out,), main = _static_run(
        lambda: [getattr(pyir.static.data("x", [2, 2], "float32"), method)()], {"x": value})
    np.testing.assert_array_equal(out, value.astype(dtype))
    ops = [op.type for op in main.global_block().ops]
    assert ops == (["cast"] if dtype != "float32" else [])


def test_shape_queries_and_constructors():
    t = pyir.to_tensor(np.zeros((2, 3, 4), "float64"))
    assert (t.dim(), t.ndimension(), t.element_size()) == (3, 3, 8)
    assert t.stride() == [12, 4, 1] and t.get_strides() == [12, 4, 1]
    assert t.is_same_shape(pyir.to_tensor(np.ones((2, 3, 4)))) and \
        not t.is_same_shape(pyir.to_tensor(np.ones((3, 2, 4))))
    full = t.new_full([2], 7)
    assert full.dtype == np.float64 and full.numpy().tolist() == [7.0, 7.0]
    assert t.new_ones([1, 2]).numpy().tolist() == [[1.0, 1.0]]
    assert t.new_zeros([3]).numpy().tolist() == [0.0, 0.0, 0.0]
    assert t.type_as(pyir.to_tensor(np.ones(1, "int32"))).dtype == np.int32
    assert t.cpu() is t and t.contiguous() is t and t.is_contiguous() and not t.is_sparse()
    parts = pyir.to_tensor(np.arange(6.0)).split_with_sizes([2, 4])
    assert [p.numpy().tolist() for p in parts] == [[0.0, 1.0], [2.0, 3.0, 4.0, 5.0]]


def test_register_hook_changes_the_gradient_and_can_be_removed():
    x = pyir.to_tensor([1.0, 2.0], stop_gradient=False)
    y = x * 3.0
    y.retain_grads()
    handle = y.register_hook(lambda g: g * 2)
    (y * y).sum().backward()
    # d(y*y)/dy = 2y = [6, 12], doubled by the hook; dx = 3 * that
    np.testing.assert_allclose(y.grad.numpy(), [12.0, 24.0])
    np.testing.assert_allclose(x.grad.numpy(), [36.0, 72.0])
    handle.remove()
    x.clear_grad()
    z = x * 3.0
    (z * z).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [18.0, 36.0])
    assert z.grad is None  # no retain_grads on z


def test_a_leaf_hook_sees_its_whole_gradient_once():
    seen = []
    x = pyir.to_tensor([1.0, -1.0], stop_gradient=False)
    x.register_hook(lambda g: seen.append(g.numpy().copy()))
    (x * 2.0 + x * 3.0).sum().backward()
    assert len(seen) == 1
    np.testing.assert_allclose(seen[0], [5.0, 5.0])


def test_hooks_and_in_place_changes_refuse_where_they_would_mislead():
    with pytest.raises(GradError, match="stop_gradient=True"):
        pyir.to_tensor([1.0]).register_hook(lambda g: g)
    x = pyir.to_tensor([1.0, 2.0], stop_gradient=False)
    y = x * 2.0
    with pytest.raises(GradError, match="tape recorded"):
        y.fill_(0.0)
    y.detach_()
    assert y.stop_gradient and y.is_leaf
    y.fill_(5.0)
    assert y.numpy().tolist() == [5.0, 5.0]


def test_eager_in_place_value_changes():
    t = pyir.to_tensor(np.zeros((2, 2), "float32"))
    t.set_value(np.ones((2, 2)))
    assert t.dtype == np.float32 and t.numpy().sum() == 4
    with pytest.raises(PyirError, match=r"has shape \[2, 2\], got \[3\]"):
        t.set_value(np.ones(3))
    t.zero_()
    assert t.numpy().sum() == 0
    t.copy_(np.full((2, 2), 3.0))
    assert t.numpy().tolist() == [[3.0, 3.0], [3.0, 3.0]]
    assert t.apply(lambda v: v * 2).numpy()[0, 0] == 6.0 and t.numpy()[0, 0] == 3.0
    t.apply_(lambda v: v + 1)
    assert t.numpy()[0, 0] == 4.0
    assert t.value() is t and t.get_tensor() is t and isinstance(t.data_ptr(), int)


def test_static_variable_value_through_the_scope():
    pyir.enable_static()
    main, startup = pyir.static.Program(), pyir.static.Program()
    with pyir.static.program_guard(main, startup):
        x = pyir.static.data("x", [-1, 2], "float32")
        w = pyir.static.create_parameter([2], "float32") if hasattr(
            pyir.static, "create_parameter") else None
    scope = pyir.static.Scope()
    with pytest.raises(PyirError, match="has no value in the scope"):
        x.get_value(scope)
    x.set_value(np.ones((3, 2)), scope)
    assert scope["x"].dtype == np.float32 and scope["x"].shape == (3, 2)
    np.testing.assert_array_equal(x.get_value(scope), np.ones((3, 2)))
    with pytest.raises(PyirError, match=r"declared \[-1, 2\], got \[3, 3\]"):
        x.set_value(np.ones((3, 3)), scope)
    del w


def test_inplace_variants_write_back_in_both_modes():
    t = pyir.to_tensor([0.0, 1.0])
    out = inplace_of(pyir.exp, "exp_")(t)
    assert out is t
    np.testing.assert_allclose(t.numpy(), np.exp([0.0, 1.0]), rtol=1e-6)
    with pytest.raises(BuildError, match="needs a gradient"):
        inplace_of(pyir.exp, "exp_")(pyir.to_tensor([1.0], stop_gradient=False))
    with pytest.raises(BuildError, match="needs a Variable or Tensor"):
        inplace_of(pyir.exp, "exp_")(np.ones(2))
    pyir.enable_static()
    value = np.array([0.5, 2.0], "float32")

    def build():
        y = pyir.static.data("x", [2], "float32") * 2.0
        return [inplace_of(pyir.sqrt, "sqrt_")(y)]

    (got,), main = _static_run(build, {"x": value})
    np.testing.assert_allclose(got, np.sqrt(2 * value), rtol=1e-6)
    ops = main.global_block().ops
    assert [op.type for op in ops] == ["scale", "sqrt", "assign"]
    assert ops[-1].output("Out") == ops[0].output("Out")


def test_accelerator_places_run_on_the_cpu_with_one_warning(monkeypatch):
    monkeypatch.setattr(device, "_warned", [False])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        place = pyir.CUDAPlace(0)
        pyir.set_device("gpu:0")
        with pyir.static.device_guard("gpu"):
            pass
    assert len(caught) == 1 and "CPU only" in str(caught[0].message)
    assert place == pyir.CPUPlace() and place.device_id == 0 and repr(place) == "Place(cpu)"
    assert not pyir.is_compiled_with_cuda() and pyir.get_device() == "cpu"
    assert pyir.set_device("cpu") == pyir.CPUPlace()


def test_batch_groups_samples_and_keeps_or_drops_the_rest():
    reader = lambda: iter(range(7))  # noqa: E731
    assert list(pyir.batch(reader, 3)()) == [[0, 1, 2], [3, 4, 5], [6]]
    assert list(pyir.batch(reader, 3, drop_last=True)()) == [[0, 1, 2], [3, 4, 5]]
    assert list(pyir.batch(lambda: iter([]), 2)()) == []
    for bad in (0, -1, 2.5, True):
        with pytest.raises(PyirError, match="positive int"):
            pyir.batch(reader, bad)


def test_input_spec_shapes_and_conversions():
    spec = InputSpec([None, 4], "float32", "x")
    assert spec.shape == (-1, 4) and spec.dtype == np.float32 and spec.name == "x"
    assert spec.batch(8).shape == (8, -1, 4) and spec.unbatch().shape == (4,)
    assert InputSpec.from_numpy(np.zeros((2, 3), "int64")).shape == (2, 3)
    assert InputSpec.from_tensor(pyir.to_tensor(np.zeros((5,), "float32"))).dtype == np.float32
    assert spec == InputSpec([-1, 4], "float32", "x") and spec != InputSpec([-1, 4], "int64", "x")
    with pytest.raises(PyirError, match="at least one dim"):
        InputSpec([], "float32").unbatch()
    with pytest.raises(PyirError, match="list or tuple"):
        InputSpec("x")


def test_to_tensor_follows_the_default_float_dtype():
    try:
        pyir.set_default_dtype("float64")
        assert pyir.to_tensor(1.0).dtype == np.float64
        assert pyir.to_tensor([1.5, 2.0]).dtype == np.float64
        assert pyir.to_tensor(np.float32(1.0)).dtype == np.float32  # numpy keeps its dtype
    finally:
        pyir.set_default_dtype("float32")
    assert pyir.to_tensor(1.0).dtype == np.float32 and pyir.to_tensor(3).dtype == np.int64


def test_abs_of_a_complex_tensor_keeps_a_complex_gradient():
    value = np.array([3 + 4j, -1j, 2.0], np.complex64)
    x = pyir.to_tensor(value, stop_gradient=False)
    pyir.abs(x).sum().backward()
    assert x.grad.dtype == np.complex64
    np.testing.assert_allclose(x.grad.numpy(), value / np.abs(value), rtol=1e-6)
