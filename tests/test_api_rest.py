"""Paddle's top-level odds and ends: default dtype, flags, grad mode, autocast, generators,
DLPack, dtype facts, windows, conj/ger, legacy tensor types, create_parameter/create_tensor,
the nn.functional re-exports and the torch-style softmax."""

import numpy as np
import pytest

import pyir
import pyir.nn.functional as F
from pyir.errors import PyirError
from pyir.unsupported import UnsupportedError


@pytest.fixture
def eager():
    pyir.disable_static()
    yield
    pyir.enable_static()


def _run(fetch, feed=None):
    exe = pyir.static.Executor()
    exe.run(pyir.static.default_startup_program())
    return exe.run(feed=feed or {}, fetch_list=fetch if isinstance(fetch, list) else [fetch])


def _ops():
    return [op.type for op in pyir.static.default_main_program().global_block().ops]


# --- default dtype --------------------------------------------------------------------------
@pytest.fixture
def float64_default():
    pyir.set_default_dtype("float64")
    yield
    pyir.set_default_dtype("float32")


def test_default_dtype_starts_float32():
    assert pyir.get_default_dtype() == "float32"


@pytest.mark.parametrize("make", [
    lambda: pyir.ones([2]), lambda: pyir.zeros([2]), lambda: pyir.full([2], 1),
    lambda: pyir.rand([2]), lambda: pyir.randn([2]), lambda: pyir.arange(0, 1, 0.5),
    lambda: pyir.linspace(0, 1, 3), lambda: pyir.empty([2])])
def test_creation_honours_default_dtype(eager, float64_default, make):
    # Paddle 3.3.1: each of these is float64 after set_default_dtype('float64')
    assert make().dtype == np.float64
    assert pyir.get_default_dtype() == "float64"


def test_default_dtype_in_static_mode(float64_default):
    x = pyir.ones([2, 3])
    assert x.dtype == np.float64
    op = pyir.static.default_main_program().global_block().ops[-1]
    assert op.type == "fill_constant" and op.attr("dtype") == 6  # VarType FP64


def test_explicit_dtype_and_ints_ignore_default(eager, float64_default):
    assert pyir.ones([2], dtype="float32").dtype == np.float32
    assert pyir.arange(0, 4).dtype == np.int64


@pytest.mark.parametrize("bad", ["int32", "bool", pyir.int64])
def test_set_default_dtype_refuses_non_floats(bad):
    with pytest.raises(PyirError, match="default dtype must be one of"):
        pyir.set_default_dtype(bad)
    assert pyir.get_default_dtype() == "float32"


def test_set_default_dtype_refuses_bfloat16():
    with pytest.raises(PyirError, match="bfloat16 tensors are not supported"):
        pyir.set_default_dtype("paddle.bfloat16")
    assert pyir.get_default_dtype() == "float32"


def test_set_default_dtype_accepts_numpy_dtype(eager):
    pyir.set_default_dtype(pyir.float16)
    try:
        assert pyir.get_default_dtype() == "float16"
        assert pyir.zeros([1]).dtype == np.float16
    finally:
        pyir.set_default_dtype("float32")


# --- flags, devices, compat, no-op switches -----------------------------------------------------
def test_flags_round_trip_and_refusals():
    assert pyir.get_flags("FLAGS_check_nan_inf") == {"FLAGS_check_nan_inf": False}
    pyir.set_flags({"FLAGS_check_nan_inf": True, "FLAGS_my_flag": 3})
    try:
        assert pyir.get_flags(["FLAGS_check_nan_inf", "FLAGS_my_flag"]) == {
            "FLAGS_check_nan_inf": True, "FLAGS_my_flag": 3}
    finally:
        pyir.set_flags({"FLAGS_check_nan_inf": False})
    with pytest.raises(PyirError, match="unknown flag"):
        pyir.get_flags("FLAGS_nonexistent")
    with pytest.raises(PyirError, match="start with 'FLAGS_'"):
        pyir.set_flags({"check_nan_inf": True})
    with pytest.raises(PyirError, match="expects a dict"):
        pyir.set_flags(["FLAGS_check_nan_inf"])


def test_device_queries():
    assert pyir.get_default_device() == "cpu"
    pyir.set_default_device("cpu")
    assert pyir.get_default_device() == "cpu"
    assert pyir.get_cudnn_version() is None
    assert pyir.get_device_module() is pyir.device
    assert pyir.disable_signal_handler() is None
    assert pyir.clear_async_save_task_queue() is None


def test_set_default_device_gpu_warns_and_stays_cpu(monkeypatch):
    monkeypatch.setattr(pyir.device, "_warned", [False])
    with pytest.warns(UserWarning, match="CPU only"):
        pyir.set_default_device("gpu:0")
    assert pyir.get_default_device() == "cpu"


def test_autocast_is_reported_but_computes_in_input_dtype(eager):
    x = pyir.to_tensor(np.ones((2, 2), np.float32))
    assert not pyir.is_autocast_enabled()
    with pyir.autocast("cpu", dtype="bfloat16"):
        assert pyir.is_autocast_enabled()
        assert pyir.get_autocast_dtype() == "bfloat16"
        y = pyir.matmul(x, x)
    assert y.dtype == np.float32
    assert not pyir.is_autocast_enabled()
    assert pyir.get_autocast_cpu_dtype() == pyir.get_autocast_gpu_dtype() == "float16"
    with pyir.autocast("cpu", enabled=False):
        assert not pyir.is_autocast_enabled()


def test_compat_guards_and_ir_guards():
    with pyir.use_compat_guard(enable=True):
        pass
    pyir.enable_compat()
    pyir.disable_compat()
    with pyir.LazyGuard() as guard:
        assert isinstance(guard, pyir.LazyGuard)
    with pyir.IrGuard():
        x = pyir.static.data("x", [2], "float32")
    assert x.name == "x"


def test_enable_grad_records_inside_no_grad(eager):
    x = pyir.to_tensor([1.0, 2.0], stop_gradient=False)
    with pyir.no_grad():
        frozen = x * 2
        with pyir.enable_grad():
            y = (x * x).sum()
    assert frozen.stop_gradient
    (dx,) = pyir.grad([y], [x])
    np.testing.assert_allclose(dx.numpy(), [2.0, 4.0])
    assert pyir.is_grad_enabled()

    @pyir.enable_grad()
    def doubled(t):
        return t * 2

    with pyir.no_grad():
        assert not doubled(x).stop_gradient


def test_async_save_saves_at_once(eager, tmp_path):
    path = tmp_path / "w.pdparams"
    pyir.async_save({"w": pyir.to_tensor(np.arange(3.0, dtype=np.float32))}, str(path))
    np.testing.assert_array_equal(pyir.load(str(path))["w"].numpy(), [0.0, 1.0, 2.0])


def test_xpu_pinned_place_is_the_cpu(monkeypatch):
    monkeypatch.setattr(pyir.device, "_warned", [False])
    with pytest.warns(UserWarning, match="XPUPinnedPlace"):
        place = pyir.XPUPinnedPlace()
    assert place == pyir.CPUPlace() and place.is_cpu_place()


def test_streams_and_events_are_synchronous():
    stream = pyir.Stream()
    start = pyir.Event(enable_timing=True)
    start.record()
    end = stream.record_event(pyir.Event(enable_timing=True))
    assert start.query() and stream.query()
    stream.wait_event(end)
    stream.synchronize()
    assert 0.0 <= start.elapsed_time(end) < 10_000
    with pytest.raises(PyirError, match="enable_timing"):
        pyir.Event().elapsed_time(end)
    with pytest.raises(PyirError, match="record"):
        pyir.Event(enable_timing=True).elapsed_time(end)


# --- random generators ------------------------------------------------------------------------
def test_manual_seed_makes_random_ops_reproducible(eager):
    pyir.manual_seed(7)
    a = pyir.rand([4]).numpy()
    generator = pyir.manual_seed(7)
    b = pyir.rand([4]).numpy()
    np.testing.assert_array_equal(a, b)
    assert generator.initial_seed() == 7
    with pytest.raises(PyirError, match="int seed"):
        pyir.manual_seed(1.5)


def test_generator_state_round_trip():
    g = pyir.Generator().manual_seed(3)
    state = g.get_state()
    first = [g.random() for _ in range(3)]
    g.set_state(state)
    assert [g.random() for _ in range(3)] == first
    assert g.initial_seed() == 3
    h = pyir.Generator().manual_seed(3)
    assert [h.random() for _ in range(3)] == first
    with pytest.raises(PyirError, match="set_state"):
        g.set_state([1, 2])


def test_cuda_rng_state_is_the_cpu_stream(eager):
    state = pyir.get_cuda_rng_state()
    a = pyir.rand([3]).numpy()
    pyir.set_cuda_rng_state(state)
    np.testing.assert_array_equal(pyir.rand([3]).numpy(), a)
    with pytest.raises(PyirError, match="get_cuda_rng_state"):
        pyir.set_cuda_rng_state([])


# --- DLPack -----------------------------------------------------------------------------------
def test_dlpack_round_trip(eager):
    t = pyir.to_tensor(np.arange(6, dtype=np.int32).reshape(2, 3))
    back = pyir.from_dlpack(pyir.to_dlpack(t))
    assert back.dtype == np.int32
    np.testing.assert_array_equal(back.numpy(), t.numpy())
    from_numpy = pyir.from_dlpack(np.linspace(0, 1, 4))
    np.testing.assert_array_equal(from_numpy.numpy(), np.linspace(0, 1, 4))
    with pytest.raises(PyirError, match="eager Tensor"):
        pyir.to_dlpack(np.ones(2))


# --- dtype facts ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["float16", "float32", "float64"])
def test_finfo_matches_numpy(name):
    info, ref = pyir.finfo(getattr(pyir, name)), np.finfo(name)
    assert (info.bits, info.eps, info.max, info.min) == (ref.bits, ref.eps, ref.max, -ref.max)
    assert info.tiny == info.smallest_normal == ref.smallest_normal
    assert info.resolution == ref.resolution and info.dtype == name


def test_finfo_bfloat16_and_refusal():
    # Paddle 3.3.1: paddle.finfo(paddle.bfloat16)
    info = pyir.finfo("bfloat16")
    assert (info.bits, info.eps, info.resolution) == (16, 0.0078125, 0.01)
    assert info.max == 3.3895313892515355e+38 and info.min == -info.max
    assert info.tiny == 1.1754943508222875e-38
    with pytest.raises(PyirError, match="float dtype"):
        pyir.finfo(pyir.int32)


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64"])
def test_iinfo_matches_numpy(name):
    info, ref = pyir.iinfo(name), np.iinfo(name)
    assert (info.min, info.max, info.bits, info.dtype) == (ref.min, ref.max, ref.bits, name)


@pytest.mark.parametrize("bad", ["float32", "bool"])
def test_iinfo_refuses_non_integers(bad):  # Paddle refuses bool too
    with pytest.raises(PyirError, match="integer dtype"):
        pyir.iinfo(bad)


def test_dtype_class_and_size():
    assert isinstance(pyir.float32, pyir.dtype)
    size = pyir.Size([2, 3])
    assert size == [2, 3] and isinstance(size, list)
    assert size.numel() == 6 and pyir.Size().numel() == 1
    assert repr(size) == "paddle.Size([2, 3])"


@pytest.mark.parametrize("name,dtype", [
    ("FloatTensor", "float32"), ("DoubleTensor", "float64"), ("HalfTensor", "float16"),
    ("ByteTensor", "uint8"), ("CharTensor", "int8"), ("ShortTensor", "int16"),
    ("IntTensor", "int32"), ("LongTensor", "int64"), ("BoolTensor", "bool")])
def test_legacy_tensor_types(eager, name, dtype):
    factory = getattr(pyir, name)
    made = factory([1, 0, 2])
    assert made.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(made.numpy(), np.array([1, 0, 2]).astype(dtype))
    shaped = factory(2, 3)
    assert shaped.shape == [2, 3] and shaped.dtype == np.dtype(dtype)
    assert not shaped.numpy().any()
    assert isinstance(made, factory)
    with pytest.raises(PyirError, match="data or a shape"):
        factory([1], 2)


def test_bfloat16_tensor_type_refuses():
    with pytest.raises(PyirError, match="BFloat16Tensor: bfloat16 tensors are not supported"):
        pyir.BFloat16Tensor([1.0])


def test_legacy_tensor_types_static():
    made = pyir.LongTensor([[1, 2]])
    zeros = pyir.DoubleTensor(2, 1)
    x = pyir.static.data("x", [2], "float32")
    as_int = pyir.IntTensor(x)
    assert [op.type for op in pyir.static.default_main_program().global_block().ops] == [
        "assign_value", "fill_constant", "cast"]
    got_made, got_zeros, got_int = _run([made, zeros, as_int],
                                        {"x": np.array([1.7, -2.2], np.float32)})
    assert got_made.dtype == np.int64 and got_made.tolist() == [[1, 2]]
    assert got_zeros.dtype == np.float64 and got_zeros.tolist() == [[0.0], [0.0]]
    assert got_int.dtype == np.int32 and got_int.tolist() == [1, -2]


def test_legacy_tensor_type_isinstance_checks_dtype(eager):
    assert not isinstance(pyir.to_tensor([1.0]), pyir.LongTensor)
    assert not isinstance(np.ones(2, np.float32), pyir.FloatTensor)


# --- windows: Paddle 3.3.1 values ------------------------------------------------------------
@pytest.mark.parametrize("fn,kwargs,expected", [
    (pyir.hann_window, {"periodic": True},
     [0.0, 0.3454914689064026, 0.9045084714889526, 0.9045084714889526, 0.3454914689064026]),
    (pyir.hann_window, {"periodic": False}, [0.0, 0.5, 1.0, 0.5, 0.0]),
    (pyir.hamming_window, {"periodic": True},
     [0.08, 0.39785218238830566, 0.9121478199958801, 0.9121478199958801, 0.39785218238830566]),
    (pyir.hamming_window, {"periodic": False}, [0.08, 0.54, 1.0, 0.54, 0.08]),
    (pyir.blackman_window, {"periodic": True},
     [0.0, 0.20077010989189148, 0.8492298126220703, 0.8492298126220703, 0.20077010989189148]),
    (pyir.blackman_window, {"periodic": False}, [0.0, 0.34, 1.0, 0.34, 0.0]),
    (pyir.bartlett_window, {"periodic": True}, [0.0, 0.4, 0.8, 0.8, 0.4]),
    (pyir.bartlett_window, {"periodic": False}, [0.0, 0.5, 1.0, 0.5, 0.0]),
    (pyir.kaiser_window, {"periodic": True},
     [5.2773437346331775e-05, 0.10171971470117569, 0.7929394245147705, 0.7929394245147705,
      0.10171971470117569]),
    (pyir.kaiser_window, {"periodic": False},
     [5.2773437346331775e-05, 0.21567265689373016, 1.0, 0.21567265689373016,
      5.2773437346331775e-05]),
])
def test_windows_match_paddle(eager, fn, kwargs, expected):
    w = fn(5, **kwargs)
    assert w.dtype == np.float32
    np.testing.assert_allclose(w.numpy(), expected, atol=1e-6)


@pytest.mark.parametrize("n,expected", [(0, []), (1, [1.0]), (2, [0.0, 1.0])])
def test_window_short_lengths(eager, n, expected):  # Paddle 3.3.1 (periodic hann)
    np.testing.assert_allclose(pyir.hann_window(n).numpy(), expected, atol=1e-7)


def test_window_static_is_a_constant_and_options():
    w = pyir.hamming_window(6, alpha=0.5, beta=0.5, dtype="float64")
    assert _ops() == ["assign_value"] and w.dtype == np.float64
    (value,) = _run(w)
    n = np.arange(7)
    np.testing.assert_allclose(value, (0.5 - 0.5 * np.cos(2 * np.pi * n / 6))[:6], atol=1e-12)


@pytest.mark.parametrize("call,match", [
    (lambda: pyir.hann_window(-1), "non-negative int"),
    (lambda: pyir.kaiser_window(2.5), "non-negative int"),
    (lambda: pyir.blackman_window(4, dtype="int32"), "float type")])
def test_window_refusals(call, match):
    with pytest.raises(PyirError, match=match):
        call()


# --- conj and ger -----------------------------------------------------------------------------
def test_conj_static_emits_conj_op():
    x = pyir.static.data("x", [2, 3], "float32")
    y = pyir.conj(x)
    assert _ops() == ["conj"]
    data = np.random.default_rng(0).normal(size=(2, 3)).astype(np.float32)
    (value,) = _run(y, {"x": data})
    np.testing.assert_array_equal(value, data)


def test_conj_eager_copy_grad_and_method(eager):
    x = pyir.to_tensor([1.0, -2.0, 3.0], stop_gradient=False)
    y = x.conj()
    np.testing.assert_array_equal(y.numpy(), [1.0, -2.0, 3.0])
    assert y is not x
    (y * pyir.to_tensor([1.0, 2.0, 3.0])).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 2.0, 3.0])


def test_ger_is_outer(eager):
    u, v = np.array([1.0, 2.0], np.float32), np.array([3.0, -1.0, 0.5], np.float32)
    np.testing.assert_allclose(pyir.ger(pyir.to_tensor(u), pyir.to_tensor(v)).numpy(),
                               np.outer(u, v))


# --- top-level functional re-exports and the torch-style softmax ------------------------------
@pytest.mark.parametrize("name", ["conv1d", "conv2d", "conv3d", "layer_norm", "group_norm",
                                  "adaptive_avg_pool1d"])
def test_reexports_are_the_functional_ones(name):
    assert getattr(pyir, name) is getattr(F, name)


def _np_softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("shape,axis", [((4,), 0), ((2, 3), 1), ((2, 3, 4), 0),
                                        ((2, 3, 2, 2), 1)])
def test_softmax_default_dim_is_torchs(eager, shape, axis):
    x = np.random.default_rng(1).normal(size=shape).astype(np.float32)
    np.testing.assert_allclose(pyir.softmax(pyir.to_tensor(x)).numpy(), _np_softmax(x, axis),
                               rtol=1e-5)


def test_softmax_dim_dtype_static_and_method():
    x = pyir.static.data("x", [2, 3], "float32")
    y = pyir.softmax(x, dim=-1, dtype="float64")
    z = x.softmax(0)
    ops = pyir.static.default_main_program().global_block().ops
    softmaxes = [op for op in ops if op.type == "softmax"]
    assert [op.attr("axis") for op in softmaxes] == [-1, 0]
    assert y.dtype == np.float64
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    got_y, got_z = _run([y, z], {"x": data})
    np.testing.assert_allclose(got_y, _np_softmax(data.astype(np.float64), -1), rtol=1e-12)
    np.testing.assert_allclose(got_z, _np_softmax(data, 0), rtol=1e-6)


# --- create_parameter / create_tensor / check_shape -------------------------------------------
def test_create_parameter_static():
    w = pyir.create_parameter([3, 4], "float32")
    b = pyir.create_parameter([4], "float32", is_bias=True)
    assert w.name.startswith("create_parameter_") and w.name.endswith(".w_0")
    assert b.name.endswith(".b_0") and w.persistable
    exe = pyir.static.Executor()
    exe.run(pyir.static.default_startup_program())
    assert pyir.static.global_scope()[b.name].tolist() == [0.0] * 4
    assert pyir.static.global_scope()[w.name].shape == (3, 4)


def test_create_parameter_eager_initializer_and_name(eager):
    p = pyir.create_parameter([2, 2], "float64", name="my_w",
                              default_initializer=pyir.nn.initializer.Constant(1.5))
    assert p.name == "my_w" and p.dtype == np.float64 and not p.stop_gradient
    np.testing.assert_array_equal(p.numpy(), np.full((2, 2), 1.5))


def test_create_tensor_static_and_eager():
    t = pyir.create_tensor("int64", name="holder", persistable=True)
    assert t.name == "holder" and t.dtype == np.int64 and t.persistable
    pyir.assign(np.array([3, 4], np.int64), output=t)
    (value,) = _run(t)
    np.testing.assert_array_equal(value, [3, 4])
    pyir.disable_static()
    try:
        e = pyir.create_tensor("float32")
        assert e.dtype == np.float32 and e.shape == [0]
    finally:
        pyir.enable_static()


def test_check_shape():
    n = pyir.static.data("n", [1], "int32")
    pyir.check_shape([2, n], "reshape")
    pyir.check_shape(n, "reshape")
    with pytest.raises(PyirError, match="reshape: shape must be one of"):
        pyir.check_shape("2x3", "reshape")
    with pytest.raises(PyirError, match="element of shape"):
        pyir.check_shape([2, 1.5], "reshape")
    f = pyir.static.data("f", [1], "float32")
    with pytest.raises(PyirError, match="int32 or int64"):
        pyir.check_shape([2, f], "reshape")
    pyir.disable_static()
    try:
        assert pyir.check_shape("anything", "reshape") is None  # Paddle skips it in eager
    finally:
        pyir.enable_static()


# --- left out on purpose ----------------------------------------------------------------------
@pytest.mark.parametrize("name,match", [
    ("DataParallel", "distributed"),
    ("MmapStorage", "mmap"),
    ("monkey_patch_variable", "Paddle internal")])
def test_left_out_names_say_why(name, match):
    with pytest.raises(UnsupportedError, match=match):
        getattr(pyir, name)()
