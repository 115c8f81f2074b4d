"""Edges of the manipulation family: int lists holding tensors (Paddle's ShapeTensor /
AxesTensor inputs), in-place variants (static and eager), methods, empty tensors, dtypes, and
every refusal path."""

import numpy as np
import pytest
from helpers_api_manip import eager_run, static_run

import pyir
from pyir.errors import PyirError
from pyir.executor import Executor

X = np.arange(24.0).reshape(2, 3, 4)


def _ops():
    return pyir.static.default_main_program().global_block().ops


def test_reshape_with_tensors_in_the_shape():
    build = lambda x: pyir.reshape(x, [4, pyir.full([1], 6, "int32")])  # noqa: E731
    _, values, ops = static_run(build, {"x": X})
    assert ops == ["fill_constant", "fill_constant", "reshape2"]
    op = _ops()[-1]
    assert op.attrs["shape"] == [4, -1] and len(op.input("ShapeTensor")) == 2
    assert _ops()[1].attrs["force_cpu"] is True and _ops()[1].attrs["dtype"] == 2
    np.testing.assert_array_equal(values[0], X.reshape(4, 6))
    (out,), _ = eager_run(build, {"x": X})
    np.testing.assert_array_equal(out.numpy(), X.reshape(4, 6))
    whole = lambda x: pyir.reshape(x, pyir.assign(np.array([6, 4], "int32")))  # noqa: E731
    _, values, ops = static_run(whole, {"x": X})
    assert ops == ["assign_value", "reshape2"] and _ops()[-1].attrs["shape"] == []
    assert _ops()[-1].input("Shape") == [_ops()[0].output("Out")[0]]
    np.testing.assert_array_equal(values[0], X.reshape(6, 4))


@pytest.mark.parametrize("build, slot, reference", [
    (lambda x: pyir.unsqueeze(x, pyir.full([1], 1, "int32")), "AxesTensor",
     lambda x: x[:, None]),
    (lambda x: pyir.unsqueeze(x, [pyir.full([1], 0, "int32"), 3]), "AxesTensorList",
     lambda x: x[None, :, :, None]),
    (lambda x: pyir.expand(x[:1], [pyir.full([1], 3, "int32"), 3, 4]), "expand_shapes_tensor",
     lambda x: np.broadcast_to(x[:1], (3, 3, 4))),
    (lambda x: pyir.tile(x, pyir.assign(np.array([1, 2, 1], "int32"))), "RepeatTimes",
     lambda x: np.tile(x, (1, 2, 1))),
    (lambda x: pyir.concat([x, x], axis=pyir.full([1], 2, "int32")), "AxisTensor",
     lambda x: np.concatenate([x, x], 2)),
    (lambda x: pyir.slice(x, [2], pyir.assign(np.array([1], "int32")), [3]), "StartsTensor",
     lambda x: x[..., 1:3]),
    (lambda x: pyir.slice(x, [1, 2], [pyir.full([1], 1, "int64"), 0], [3, 2]),
     "StartsTensorList", lambda x: x[:, 1:3, 0:2]),
    (lambda x: pyir.crop(x, [1, 2, 2], pyir.assign(np.array([1, 1, 2], "int32"))), "Offsets",
     lambda x: x[1:, 1:, 2:]),
    (lambda x: pyir.roll(x, pyir.assign(np.array([1], "int64")), 1), "ShiftsTensor",
     lambda x: np.roll(x, 1, 1)),
    (lambda x: pyir.gather(x, pyir.assign(np.array([1, 0])), pyir.full([1], 2, "int32")),
     "Axis", lambda x: x[..., [1, 0]]),
    (lambda x: pyir.full([2, pyir.full([1], 2, "int64")], 3.0) + x[0, :2, :2], "ShapeTensorList",
     lambda x: 3 + x[0, :2, :2]),
])
def test_tensor_arguments_become_paddles_tensor_inputs(build, slot, reference):
    _, values, _ = static_run(build, {"x": X})
    assert any(op.input(slot) for op in _ops() if slot in op.inputs)
    np.testing.assert_array_equal(values[0], reference(X))
    (out,), _ = eager_run(build, {"x": X})
    np.testing.assert_array_equal(out.numpy(), reference(X))


def test_slice_with_tensor_bounds_writes_paddles_infer_flags():
    whole = lambda x: pyir.slice(x, [2], pyir.assign(np.array([1], "int32")), [3])  # noqa
    outs, _, _ = static_run(whole, {"x": X})
    op = _ops()[-1]
    assert op.attrs["infer_flags"] == [-1] and op.attrs.get("starts", []) == []
    assert op.attrs["ends"] == [3] and outs[0].shape == (2, 3, -1)
    mixed = lambda x: pyir.slice(x, [1, 2], [pyir.full([1], 1, "int64"), 0], [3, 2])  # noqa
    outs, _, _ = static_run(mixed, {"x": X})
    op = _ops()[-1]
    assert op.attrs["infer_flags"] == [-1, 1] and op.attrs["starts"] == [-1, 0]
    assert outs[0].shape == (2, -1, 2)


def test_static_in_place_variants():
    _, values, ops = static_run(lambda x: pyir.reshape_(x, [6, 4]), {"x": X})
    assert ops == ["reshape2"]  # Paddle's static reshape_ is reshape: a Variable keeps its shape
    np.testing.assert_array_equal(values[0], X.reshape(6, 4))
    _, values, ops = static_run(lambda x: pyir.cast_(x, "int32"), {"x": X})
    assert ops == ["cast"]
    build = lambda x: (lambda y: (pyir.scatter_(y, pyir.assign(np.array([1])),  # noqa: E731
                                                pyir.zeros([1, 3, 4], "float64")), y)[1])(x * 1.0)
    _, values, ops = static_run(build, {"x": X})
    assert ops == ["scale", "assign_value", "fill_constant", "scatter", "assign"]
    assert _ops()[-1].output("Out") == _ops()[0].output("Out")
    want = X.copy()
    want[1] = 0
    np.testing.assert_array_equal(values[0], want)


@pytest.mark.parametrize("method, args, reference", [
    ("reshape_", ([4, 6],), lambda x: x.reshape(4, 6)),
    ("flatten_", (), lambda x: x.ravel()),
    ("squeeze_", (), lambda x: x),
    ("unsqueeze_", (0,), lambda x: x[None]),
    ("transpose_", ([2, 1, 0],), lambda x: x.transpose(2, 1, 0)),
    ("cast_", ("int64",), lambda x: x.astype(np.int64)),
    ("index_fill_", (pyir.to_tensor(np.array([0, 2])), 2, -1.0),
     lambda x: np.where(np.isin(np.arange(4), [0, 2]), -1.0, x)),
    ("masked_fill_", (pyir.to_tensor(X > 10), 0.0), lambda x: np.where(x > 10, 0, x)),
    ("index_put_", ((pyir.to_tensor(np.array([1])),), pyir.to_tensor(np.float64(5))),
     lambda x: np.concatenate([x[:1], np.full((1, 3, 4), 5.0)])),
    ("index_add_", (pyir.to_tensor(np.array([0])), 0, pyir.to_tensor(np.ones((1, 3, 4)))),
     lambda x: x + np.array([1.0, 0.0])[:, None, None]),
])
def test_eager_in_place_variants(method, args, reference):
    pyir.disable_static()
    t = pyir.to_tensor(X.copy())
    assert getattr(t, method)(*args) is t
    np.testing.assert_array_equal(t.numpy(), reference(X))
    leaf = pyir.to_tensor(X.copy(), stop_gradient=False)
    with pytest.raises(PyirError, match="needs a gradient"):
        getattr(leaf, method)(*args)


def test_empty_tensors_and_dtypes():
    empty = np.zeros((0, 3))
    for build, reference in [
            (lambda e: pyir.reshape(e, [0, 1, 3]), lambda e: e.reshape(0, 1, 3)),
            (lambda e: pyir.concat([e, e]), lambda e: np.concatenate([e, e])),
            (lambda e: pyir.flip(e, 0), lambda e: e[::-1]),
            (lambda e: pyir.tile(e, [2, 1]), lambda e: np.tile(e, (2, 1))),
            (lambda e: pyir.transpose(e, [1, 0]), lambda e: e.T)]:
        _, values, _ = static_run(build, {"e": empty})
        assert values[0].shape == reference(empty).shape
        (out,), _ = eager_run(build, {"e": empty})
        assert out.shape == list(reference(empty).shape)
    ints = np.arange(6, dtype=np.int32).reshape(2, 3)
    (out,), _ = eager_run(lambda i: pyir.flip(pyir.transpose(i, [1, 0]), 0), {"i": ints})
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out.numpy(), ints.T[::-1])
    flags = np.array([[True, False]])
    (out,), _ = eager_run(lambda b: pyir.tile(b, [2, 1]), {"b": flags})
    assert out.dtype == np.bool_


def test_facts_and_methods():
    pyir.disable_static()
    t = pyir.to_tensor(X)
    assert pyir.tolist(t) == X.tolist() and t.tolist() == X.tolist()
    assert t.numel().numpy() == 24 and t.numel().dtype == np.int64
    assert pyir.rank(t).numpy() == 3 and t.reshape([4, 6]).shape == [4, 6]
    assert pyir.broadcast_shape([2, 1, 3], [4, 1]) == [2, 4, 3]
    assert pyir.broadcast_shapes([2, 1], [1, 3], [3]) == [2, 3]
    assert [p.shape for p in t.split([1, 2], axis=1)] == [[2, 1, 4], [2, 2, 4]]
    assert pyir.atleast_1d(pyir.to_tensor(np.float64(2))).shape == [1]
    assert pyir.atleast_3d(pyir.to_tensor(np.float64(2))).shape == [1, 1, 1]
    assert [a.shape for a in pyir.atleast_2d([pyir.ones([3]), pyir.ones([2, 2])])] == \
        [[1, 3], [2, 2]]
    assert pyir.atleast_1d(5).shape == [1]
    r = pyir.repeat_interleave(pyir.to_tensor(np.array([1, 2])), 0)
    assert r.shape == [0]
    pyir.enable_static()
    var = pyir.static.data("x", [2, 3], "float32")
    with pytest.raises(PyirError, match="eager Tensor"):
        pyir.tolist(var)


@pytest.mark.parametrize("call, message", [
    (lambda x: pyir.transpose(x, [0, 1]), "not a permutation"),
    (lambda x: pyir.transpose(x, [0, 1, 1]), "not a permutation"),
    (lambda x: pyir.transpose(x, [0, 1, 3]), "not a permutation"),
    (lambda x: pyir.t(x), "at most 2-D"),
    (lambda x: pyir.matrix_transpose(x[0, 0]), "at least 2-D"),
    (lambda x: pyir.moveaxis(x, [0, 1], [2]), "same number of distinct axes"),
    (lambda x: pyir.moveaxis(x, [0, 0], [1, 2]), "distinct axes"),
    (lambda x: pyir.flatten(x, 2, 1), "start_axis <= stop_axis"),
    (lambda x: pyir.flatten(x, 0, 3), "start_axis <= stop_axis"),
    (lambda x: pyir.unflatten(x, 1, [2, 2]), "does not multiply"),
    (lambda x: pyir.unflatten(x, 3, [1]), "out of range"),
    (lambda x: pyir.view(x, "int32"), "reinterpreting the bytes"),
    (lambda x: pyir.flip(x, 3), "out of range"),
    (lambda x: pyir.roll(x, [1, 2], [0]), "2 shifts for 1 axes"),
    (lambda x: pyir.rot90(x, 1, [0, 0]), "two different dims"),
    (lambda x: pyir.rot90(x, 1, [0, 3]), "two different dims"),
    (lambda x: pyir.repeat_interleave(x, -1), "non-negative int"),
    (lambda x: pyir.broadcast_tensors([]), "non-empty list"),
    (lambda x: pyir.broadcast_shape([2, 3], [4]), "broadcast_shape"),
    (lambda x: pyir.split(x, 2, axis=1), "into 2 equal parts"),
    (lambda x: pyir.split(x, [1, 1], axis=1), "do not add up"),
    (lambda x: pyir.split(x, [-1, -1, 5], axis=1), "at most one -1"),
    (lambda x: pyir.split(x, 2, axis=3), "out of range"),
    (lambda x: pyir.concat([x, x[0]]), "same number of dims"),
    (lambda x: pyir.concat([]), "non-empty list"),
    (lambda x: pyir.tensor_split(x, 0, 1), "positive number of parts"),
    (lambda x: pyir.vsplit(x[0, 0], 2), "at least 2 dims"),
    (lambda x: pyir.dsplit(x[0], 2), "at least 3 dims"),
    (lambda x: pyir.unbind(x, 5), "out of range"),
    (lambda x: pyir.slice(x, [0, 1], [0], [1]), "same length"),
    (lambda x: pyir.slice(x, [4], [0], [1]), "out of range"),
    (lambda x: pyir.strided_slice(x, [0], [0], [1], [0]), "cannot be 0"),
    (lambda x: pyir.strided_slice(x, [0], [0, 1], [1], [1]), "2 entries for 1 axes"),
    (lambda x: pyir.narrow(x, 1, 2, 2), "leave dim 1"),
    (lambda x: pyir.unfold(x, 1, 4, 1), "size <= dim"),
    (lambda x: pyir.unfold(x, 1, 2, 0), "step > 0"),
    (lambda x: pyir.diagonal(x, 0, 1, -2), "same dim"),
    (lambda x: pyir.gather_nd(x, pyir.to_tensor(np.zeros((1, 4), np.int64))), "exceeds"),
    (lambda x: pyir.gather(x, pyir.to_tensor(np.array([0.5]))), "integers"),
    (lambda x: pyir.take(x, pyir.to_tensor(np.array([1])), mode="bad"), "mode must be"),
    (lambda x: pyir.take_along_axis(x, pyir.to_tensor(np.zeros((1, 1), np.int64)), 0),
     "same number of dims"),
    (lambda x: pyir.put_along_axis(x, pyir.to_tensor(np.zeros((1, 1), np.int64)), 0.0, 0),
     "same number of dims"),
    (lambda x: pyir.scatter_reduce(x, 0, pyir.to_tensor(np.zeros((1, 1, 1), np.int64)), x,
                                   "median"), "reduce must be one of"),
    (lambda x: pyir.index_put(x, [], x), "non-empty tuple"),
    (lambda x: pyir.index_put(x, (pyir.to_tensor(np.array([0.5])),), x), "integer or bool"),
    (lambda x: pyir.masked_fill(x, x, 0.0), "mask must be bool"),
    (lambda x: pyir.masked_scatter(x, x, x), "mask must be bool"),
    (lambda x: pyir.select_scatter(x, x[:, 0], 1, 3), "out of range"),
    (lambda x: pyir.slice_scatter(x, x, [0, 1], [0], [1], [1]), "same length"),
    (lambda x: pyir.diagonal_scatter(x[0, 0], x[0, 0]), "at least 2-D"),
    (lambda x: pyir.shard_index(pyir.cast(x, "int64"), 20, 2, 2), r"in \[0, 2\)"),
    (lambda x: pyir.cast(x, "no_such_dtype"), "no_such_dtype"),
])
def test_manipulation_refusals(call, message):
    pyir.disable_static()
    with pytest.raises(PyirError, match=message):
        call(pyir.to_tensor(X))


def test_static_refusals_name_the_op():
    pyir.enable_static()
    x = pyir.static.data("x", [2, 3, 4], "float64")
    with pytest.raises(PyirError, match="split: a tensor axis"):
        pyir.split(x, 2, axis=pyir.full([1], 1, "int32"))
    index = pyir.static.data("i", [2, 1, 4], "int64")
    out = pyir.scatter_reduce(x, 1, index, x[:, :1], "mean")
    assert pyir.static.default_main_program().global_block().ops[-1].attrs["Reduce"] == "mean"
    with pytest.raises(PyirError, match="put_along_axis: Reduce='mean' is not supported"):
        Executor().run(pyir.static.default_main_program(),
                       feed={"x": X, "i": np.zeros((2, 1, 4), np.int64)}, fetch_list=[out])


@pytest.mark.parametrize("value, dtype_code, shape, values", [
    # Paddle 3.3.1 writes these assign_value attributes for the same calls.
    (np.ones((2, 3), "float32"), 5, [2, 3], [1.0] * 6),
    ([[1, 2], [3, 4]], 3, [2, 2], [1, 2, 3, 4]),
    (3.5, 6, [1], [3.5]),
    (np.array([True, False]), 0, [2], [True, False]),
])
def test_assign_of_python_and_numpy_values(value, dtype_code, shape, values):
    _, got, ops = static_run(lambda: pyir.assign(value), {})
    op = _ops()[0]
    assert ops == ["assign_value"]
    assert (op.attrs["dtype"], op.attrs["shape"], op.attrs["values"]) == \
        (dtype_code, shape, values)
    np.testing.assert_array_equal(got[0], np.asarray(value).reshape(shape))
    pyir.disable_static()
    np.testing.assert_array_equal(pyir.assign(value).numpy(), np.asarray(value).reshape(shape))
    target = pyir.zeros(shape)
    assert pyir.assign(pyir.to_tensor(np.ones(shape)), target) is target
    assert target.numpy().sum() == np.prod(shape)
    with pytest.raises(PyirError, match="cannot make a tensor of str"):
        pyir.assign("text")


def test_programs_with_the_new_ops_survive_the_wire_format():
    from pyir.serialize import parse_program, serialize_program

    def build(x):
        y = x * 1.0
        y[0, 1:3] = 2.5
        parts = pyir.unbind(pyir.crop(y, [2, 2, 3], [0, 1, 1]), 0)
        z = pyir.masked_fill(parts[0], parts[0] > 5.0, -1.0)
        d = pyir.diagonal(pyir.diag_embed(z), 0, -2, -1)
        u = pyir.unique(pyir.cast(d, "int64"))
        k = pyir.index_put(d, (pyir.assign(np.array([0])),), pyir.full([], 9.0, "float64"))
        return [d, u, k, pyir.numel(x), x[[1, 0], :, -1]]

    outs, values, _ = static_run(build, {"x": X})
    program = parse_program(serialize_program(pyir.static.default_main_program()))
    again = Executor().run(program, feed={"x": X}, fetch_list=[v.name for v in outs])
    for a, b in zip(values, again):
        np.testing.assert_array_equal(a, b)
    want = X.copy()
    want[0, 1:3] = 2.5
    block = want[0, 1:3, 1:4]
    np.testing.assert_array_equal(values[0], np.where(block > 5, -1.0, block))
    np.testing.assert_array_equal(values[4], X[[1, 0], :, -1])
