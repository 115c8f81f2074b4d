"""pyir.autograd additions (jacobian, Function, saved_tensors_hooks, the hessian refusal), the
Tensor/Variable methods added here (stubs with reasons, Variable.detach/size/item/...),
set_printoptions and summary."""

import numpy as np
import pytest

import pyir
from pyir import tensor_format
from pyir.errors import GradError, PyirError
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


# --- jacobian -----------------------------------------------------------------------------
def test_jacobian_of_elementwise_square(eager):
    x = pyir.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    J = pyir.autograd.jacobian(x * x, x)
    assert J.shape == [3, 3]
    # Paddle 3.3.1 gives diag(2x)
    np.testing.assert_allclose(J[:].numpy(), np.diag([2.0, 4.0, 6.0]))
    np.testing.assert_allclose(J[1, :].numpy(), [0.0, 4.0, 0.0])


def test_jacobian_of_matmul_and_tuples(eager):
    rng = np.random.default_rng(0)
    a = rng.normal(size=(2, 3)).astype(np.float64)
    w = rng.normal(size=(3, 2)).astype(np.float64)
    x = pyir.to_tensor(a, stop_gradient=False)
    y = pyir.to_tensor(w, stop_gradient=False)
    out = pyir.matmul(x, y)                       # out[i, k] = sum_j a[i, j] w[j, k]
    jx, jy = pyir.autograd.jacobian(out, (x, y))
    # d out[i, l] / d a[k, j] = delta_ik w[j, l]
    ref_x = np.zeros((2, 2, 2, 3))
    for i in range(2):
        for l_ in range(2):
            ref_x[i, l_, i, :] = w[:, l_]
    np.testing.assert_allclose(jx[:].numpy(), ref_x.reshape(4, 6))
    ref_y = np.zeros((2, 2, 3, 2))
    for i in range(2):
        for l_ in range(2):
            ref_y[i, l_, :, l_] = a[i, :]
    np.testing.assert_allclose(jy[:].numpy(), ref_y.reshape(4, 6))
    nested = pyir.autograd.jacobian((out, out.sum()), x)
    assert len(nested) == 2 and nested[1].shape == [6]
    np.testing.assert_allclose(nested[1][:].numpy(), np.tile(w.sum(axis=1), 2))


def test_jacobian_batched_and_unused_input(eager):
    x = pyir.to_tensor([[1.0, 2.0], [3.0, 4.0]], stop_gradient=False)
    unused = pyir.to_tensor([1.0], stop_gradient=False)
    y = x * x * x
    J = pyir.autograd.jacobian(y, x, batch_axis=0)
    assert J.shape == [2, 2, 2]
    np.testing.assert_allclose(J[:].numpy(), np.stack([np.diag(3 * r ** 2) for r in
                                                       [np.array([1.0, 2.0]),
                                                        np.array([3.0, 4.0])]]))
    zero = pyir.autograd.jacobian(y, unused)
    np.testing.assert_array_equal(zero[:].numpy(), np.zeros((4, 1)))


def test_jacobian_refusals(eager):
    x = pyir.to_tensor([1.0, 2.0], stop_gradient=False)
    with pytest.raises(GradError, match="batch_axis must be None or 0"):
        pyir.autograd.jacobian(x * 2, x, batch_axis=1)
    with pytest.raises(GradError, match="share their first dim"):
        pyir.autograd.jacobian(pyir.to_tensor([[1.0], [2.0], [3.0]]) * x.sum(), x,
                               batch_axis=0)


def test_hessian_refuses_what_is_not_a_tensor():
    """hessian itself is supported (tests/test_double_grad.py)."""
    with pytest.raises(GradError, match="one eager Tensor"):
        pyir.autograd.hessian(None, None)


def test_function_is_pylayer_and_grad_mode_names(eager):
    assert pyir.autograd.Function is pyir.autograd.PyLayer

    class Double(pyir.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, dy):
            return dy * 3   # a deliberately custom gradient

    x = pyir.to_tensor([1.0], stop_gradient=False)
    Double.apply(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0])
    assert pyir.autograd.enable_grad is pyir.enable_grad
    with pyir.autograd.set_grad_enabled(False):
        assert (x * 2).stop_gradient


def test_saved_tensors_hooks_accepted(eager):
    calls = []
    x = pyir.to_tensor([2.0], stop_gradient=False)
    with pyir.autograd.saved_tensors_hooks(lambda t: calls.append(t) or t, lambda t: t):
        y = x * x
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [4.0])
    with pytest.raises(GradError, match="two callables"):
        pyir.autograd.saved_tensors_hooks(None, lambda t: t)


# --- Tensor methods ----------------------------------------------------------------------------
def test_tensor_function_methods(eager):
    a = pyir.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    b = pyir.to_tensor([[10.0, 20.0], [30.0, 40.0]])
    assert a.get_device() == -1
    np.testing.assert_array_equal(pyir.Tensor.add_n([a, b]).numpy(), [[11, 22], [33, 44]])
    np.testing.assert_allclose(a.trapezoid().numpy(), [1.5, 3.5])
    np.testing.assert_allclose(a.cumulative_trapezoid().numpy(), [[1.5], [3.5]])
    index = pyir.to_tensor(np.array([[1], [0]], np.int32))
    np.testing.assert_array_equal(pyir.Tensor.multiplex([a, b], index).numpy(),
                                  [[10, 20], [3, 4]])
    idx = pyir.to_tensor(np.array([[1], [0]], np.int64))
    np.testing.assert_array_equal(a.take_along_dim(idx, 1).numpy(), [[2], [3]])
    assert pyir.Tensor.broadcast_shape([2, 1], [3]) == [2, 3]
    assert pyir.Tensor.broadcast_shapes([2, 1], [1, 4], [4]) == [2, 4]
    np.testing.assert_allclose(a.softmax(1).numpy().sum(axis=1), [1.0, 1.0], rtol=1e-6)


@pytest.mark.parametrize("name,match", [
    ("real", "complex"), ("imag", "complex"), ("as_complex", "complex"),
    ("to_sparse_coo", "sparse"), ("nnz", "sparse"), ("values", "sparse"),
    ("rows", "SelectedRows"), ("set_vocab", "vocabulary"), ("set_", "storage"),
    ("as_strided", "storage"), ("stft", "Fourier"), ("top_p_sampling", "fused"),
    ("bfloat16", "bfloat16")])
def test_tensor_stubs_say_why(eager, name, match):
    t = pyir.to_tensor([1.0, 2.0])
    with pytest.raises(UnsupportedError, match=match):
        getattr(t, name)()
    assert f"paddle.Tensor.{name}" in str(pytest.raises(UnsupportedError,
                                                        getattr(t, name)).value)


def test_existing_methods_are_not_replaced_by_stubs(eager):
    t = pyir.to_tensor([1.0, -2.0])
    np.testing.assert_array_equal(t.numpy(), [1.0, -2.0])
    assert not getattr(pyir.Tensor.is_sparse, "pyir_unsupported", None)


# --- static Variable methods ---------------------------------------------------------------
def test_variable_detach_emits_share_data():
    x = pyir.static.data("x", [2, 3], "float32")
    x.stop_gradient = False
    d = x.detach()
    ops = pyir.static.default_main_program().global_block().ops
    assert [op.type for op in ops] == ["share_data"]
    assert d.name == "detach_x_0" and d.stop_gradient and d.shape == x.shape
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    (value,) = _run(d, {"x": data})
    np.testing.assert_array_equal(value, data)


def test_variable_size_item_attr_requires_grad():
    x = pyir.static.data("x", [2, 3], "float32")
    n = x.size()
    op = pyir.static.default_main_program().global_block().ops[-1]
    assert op.type == "size" and n.dtype == np.int64
    (value,) = _run(n, {"x": np.zeros((2, 3), np.float32)})
    assert int(value) == 6
    v = pyir.static.data("v", [3], "float32")
    assert v.item() is v
    with pytest.raises(PyirError, match="at most 1-D"):
        x.item()
    assert x.attr("name") == "x" and tuple(x.attr("shape")) == (2, 3)
    with pytest.raises(PyirError, match="no attribute 'color'"):
        x.attr("color")
    assert x.requires_grad_() is x and not x.stop_gradient
    x.requires_grad_(False)
    assert x.stop_gradient
    with pytest.raises(PyirError, match="expects a bool"):
        x.requires_grad_(1)
    with pytest.warns(UserWarning, match="no place"):
        assert x.place() is None


@pytest.mark.parametrize("call,match", [
    (lambda x: float(x), "only eager Tensors"), (lambda x: int(x), "only eager Tensors"),
    (lambda x: x.numpy(), "only eager"), (lambda x: x.backward(), "only eager"),
    (lambda x: x.gradient(), "only eager"), (lambda x: x.register_hook(print), "only eager"),
    (lambda x: x.append(x), "tensor arrays"), (lambda x: x.pop(), "tensor arrays"),
    (lambda x: x.real(), "complex"), (lambda x: x.to_dense(), "sparse")])
def test_variable_stubs_say_why(call, match):
    x = pyir.static.data("x", [2], "float32")
    with pytest.raises(UnsupportedError, match=match):
        call(x)


def test_variable_function_methods():
    a = pyir.static.data("a", [2, 2], "float32")
    t = a.trapezoid()
    c = a.conj()
    assert [op.type for op in pyir.static.default_main_program().global_block().ops][-1] == \
        "conj"
    data = np.array([[1.0, 2.0], [3.0, 5.0]], np.float32)
    got_t, got_c = _run([t, c], {"a": data})
    np.testing.assert_allclose(got_t, np.trapezoid(data, axis=-1) if hasattr(
        np, "trapezoid") else np.trapz(data, axis=-1))
    np.testing.assert_array_equal(got_c, data)


# --- printing ------------------------------------------------------------------------------
@pytest.fixture
def print_defaults():
    saved = dict(tensor_format._OPTIONS)
    yield
    tensor_format._OPTIONS.update(saved)


def test_set_printoptions_precision_and_sci(eager, print_defaults):
    t = pyir.to_tensor([0.123456789, 1.0])
    assert "0.12345679" in repr(t)
    pyir.set_printoptions(precision=3)
    assert "0.123," in repr(t) and "0.12345679" not in repr(t)
    pyir.set_printoptions(sci_mode=True)
    assert "1.235e-01" in repr(t)


def test_set_printoptions_threshold_edgeitems(eager, print_defaults):
    t = pyir.to_tensor(np.arange(10))
    assert "..." not in repr(t)
    pyir.set_printoptions(threshold=5, edgeitems=2)
    body = repr(t).split("\n")[-1]
    assert body.strip() == "[0, 1, ..., 8, 9])"


@pytest.mark.parametrize("kwargs", [{"precision": -1}, {"threshold": 1.5},
                                    {"edgeitems": True}])
def test_set_printoptions_refusals(print_defaults, kwargs):
    with pytest.raises(PyirError, match="non-negative int"):
        pyir.set_printoptions(**kwargs)


# --- summary ---------------------------------------------------------------------------------
def test_summary_counts_and_table(eager, capsys):
    net = pyir.nn.Sequential(pyir.nn.Linear(4, 3), pyir.nn.ReLU(), pyir.nn.Linear(3, 2))
    result = pyir.summary(net, (1, 4))
    assert result == {"total_params": 4 * 3 + 3 + 3 * 2 + 2, "trainable_params": 23}
    table = capsys.readouterr().out
    # Paddle 3.3.1 lists Linear-1, ReLU-1, Linear-2 with these shapes and counts
    assert [line.split()[0] for line in table.splitlines()
            if line.strip().startswith(("Linear", "ReLU"))] == ["Linear-1", "ReLU-1",
                                                                "Linear-2"]
    assert "[1, 2]" in table and "Total params: 23" in table
    assert "Non-trainable params: 0" in table


def test_summary_frozen_params_and_refusals(eager):
    net = pyir.nn.Linear(2, 2)
    net.bias.stop_gradient = True
    assert pyir.summary(net, [(-1, 2)]) == {"total_params": 6, "trainable_params": 4}
    with pytest.raises(PyirError, match="input_size"):
        pyir.summary(net)
    with pytest.raises(PyirError, match="input_size must be"):
        pyir.summary(net, "2x2")
    pyir.enable_static()
    with pytest.raises(PyirError, match="disable_static"):
        pyir.summary(net, (1, 2))


# --- flops -----------------------------------------------------------------------------------
class _LeNet(pyir.nn.Layer):
    """The network of Paddle's `paddle.flops` docstring."""

    def __init__(self):
        super().__init__()
        nn = pyir.nn
        self.features = nn.Sequential(
            nn.Conv2D(1, 6, 3, stride=1, padding=1), nn.ReLU(), nn.MaxPool2D(2, 2),
            nn.Conv2D(6, 16, 5, stride=1, padding=0), nn.ReLU(), nn.MaxPool2D(2, 2))
        self.fc = nn.Sequential(nn.Linear(400, 120), nn.Linear(120, 84), nn.Linear(84, 10))

    def forward(self, x):
        return self.fc(pyir.flatten(self.features(x), 1))


def test_flops_lenet_matches_paddle_docs(eager, capsys):
    net = _LeNet()
    # Paddle 3.3.1's docstring: Total Flops: 347560     Total Params: 61610
    assert pyir.flops(net, [1, 1, 28, 28], print_detail=True) == 347560
    out = capsys.readouterr().out
    assert "Total Flops: 347560     Total Params: 61610" in out
    assert "conv2d_1" in out and "241600" in out
    assert net.training   # restored after the eval-mode pass


def test_flops_norm_pool_rules_and_custom_ops(eager):
    nn = pyir.nn
    net = nn.Sequential(nn.BatchNorm2D(3), nn.LeakyReLU(), nn.AdaptiveAvgPool2D(2),
                        nn.AvgPool2D(1))
    # BN 2 * 384, LeakyReLU 384, adaptive pool (4 * 4 + 1) * 24, avg pool 24
    assert pyir.flops(net, [2, 3, 8, 8]) == 768 + 384 + 17 * 24 + 24
    custom = {nn.LeakyReLU: lambda layer, inputs, output: 7}
    assert pyir.flops(net, [2, 3, 8, 8], custom_ops=custom) == 768 + 7 + 17 * 24 + 24
    # as in Paddle, only sublayers count: a bare Linear has none
    assert pyir.flops(nn.Linear(4, 3), [1, 4]) == 0
    with pytest.raises(PyirError, match="must be a pyir.nn.Layer"):
        pyir.flops(pyir.static.Program(), [1, 4])
    pyir.enable_static()
    with pytest.raises(PyirError, match="disable_static"):
        pyir.flops(net, [2, 3, 8, 8])


def test_set_grad_enabled_as_call_block_and_decorator(eager):
    x = pyir.to_tensor([1.0], stop_gradient=False)
    assert pyir.set_grad_enabled is pyir.autograd.set_grad_enabled
    pyir.set_grad_enabled(False)          # Paddle: the call itself switches the mode
    try:
        assert not pyir.is_grad_enabled() and (x * 2).stop_gradient
    finally:
        pyir.set_grad_enabled(True)
    with pyir.set_grad_enabled(False):
        assert (x * 2).stop_gradient
    assert pyir.is_grad_enabled() and not (x * 2).stop_gradient
    with pyir.no_grad():
        with pyir.set_grad_enabled(True):
            assert not (x * 2).stop_gradient
        assert not pyir.is_grad_enabled()


def test_tensor_resize_(eager):
    # Paddle 3.3.1: [[1, 2, 3], [4, 5, 6]].resize_([2, 2]) -> [[1, 2], [3, 4]], same object
    x = pyir.to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert x.resize_([2, 2]) is x
    np.testing.assert_array_equal(x.numpy(), [[1.0, 2.0], [3.0, 4.0]])
    y = pyir.to_tensor([1.0, 2.0, 3.0])
    y.resize_([2, 3], fill_zero=True)
    np.testing.assert_array_equal(y.numpy(), [[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    leaf = pyir.to_tensor([1.0, 2.0], stop_gradient=False)
    with pytest.raises(GradError, match="needs a gradient"):
        leaf.resize_([1])
    with pytest.raises(GradError, match="recorded"):
        (leaf * 2).resize_([1])
    with pytest.raises(PyirError, match="non-negative ints"):
        y.resize_([-1])


def test_variable_resize_is_left_out():
    x = pyir.static.data("x", [2], "float32")
    with pytest.raises(UnsupportedError, match="storage"):
        x.resize_([1])
