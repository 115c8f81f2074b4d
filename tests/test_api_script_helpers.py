"""The helpers the ordinary-scripts suite (tests/test_scripts.py) needed: paddle.nn.utils,
paddle.amp on a CPU, paddle.utils.unique_name, paddle.vision.models.LeNet and the array
transforms. Their numbers are checked against Paddle there; here against numpy, with every
refusal."""

import warnings

import numpy as np
import pytest

import pyir
from pyir.errors import PyirError


@pytest.fixture
def eager():
    pyir.disable_static()
    yield
    pyir.enable_static()


def _linear_with_grads():
    lin = pyir.nn.Linear(3, 2)
    lin.weight.set_value(np.arange(6, dtype="float32").reshape(3, 2) / 4)
    lin.bias.set_value(np.array([0.5, -0.5], "float32"))
    (lin(pyir.ones([4, 3])) ** 2).sum().backward()
    return lin, [lin.weight.grad.numpy().copy(), lin.bias.grad.numpy().copy()]


@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf")])
def test_clip_grad_norm_scales_in_place(eager, norm_type):
    lin, grads = _linear_with_grads()
    flat = np.concatenate([g.ravel() for g in grads])
    want = {2.0: np.sqrt((flat ** 2).sum()), 1.0: np.abs(flat).sum(),
            float("inf"): np.abs(flat).max()}[norm_type]
    total = pyir.nn.utils.clip_grad_norm_(lin.parameters(), max_norm=1.0, norm_type=norm_type)
    np.testing.assert_allclose(float(total), want, rtol=1e-6)
    scale = 1.0 / (want + 1e-6)
    np.testing.assert_allclose(lin.weight.grad.numpy(), grads[0] * scale, rtol=1e-6)
    # under the limit: unchanged
    before = lin.bias.grad.numpy().copy()
    pyir.nn.utils.clip_grad_norm_(lin.bias, max_norm=1e6)
    np.testing.assert_array_equal(lin.bias.grad.numpy(), before)


def test_clip_grad_norm_edges_and_refusals(eager):
    lin = pyir.nn.Linear(2, 2)
    assert float(pyir.nn.utils.clip_grad_norm_(lin.parameters(), 1.0)) == 0.0  # no grads
    with pytest.raises(PyirError, match="norm_type"):
        pyir.nn.utils.clip_grad_norm_(lin.parameters(), 1.0, norm_type=3)
    lin.weight.grad = pyir.to_tensor(np.array([[np.inf, 1.0], [0.0, 0.0]], "float32"))
    with pytest.raises(PyirError, match="not finite"):
        pyir.nn.utils.clip_grad_norm_(lin.parameters(), 1.0, error_if_nonfinite=True)


def test_clip_grad_value_and_vector_round_trip(eager):
    lin, grads = _linear_with_grads()
    pyir.nn.utils.clip_grad_value_(lin.parameters(), 0.5)
    np.testing.assert_array_equal(lin.weight.grad.numpy(), np.clip(grads[0], -0.5, 0.5))
    vec = pyir.nn.utils.parameters_to_vector(lin.parameters())
    assert vec.shape == [8] and not vec.stop_gradient
    np.testing.assert_array_equal(vec.numpy()[:6], lin.weight.numpy().ravel())
    pyir.nn.utils.vector_to_parameters(vec * 2, lin.parameters())
    np.testing.assert_array_equal(lin.bias.numpy(), [1.0, -1.0])
    with pytest.raises(PyirError, match="need 8"):
        pyir.nn.utils.vector_to_parameters(vec[:5], lin.parameters())
    with pytest.raises(PyirError, match="1-D"):
        pyir.nn.utils.vector_to_parameters(pyir.ones([2, 4]), lin.parameters())


@pytest.mark.parametrize("dim", [0, 1, None, -1])
def test_weight_norm_reparameterizes_and_removes(eager, dim):
    conv = pyir.nn.Conv2D(2, 3, 2)
    w = np.random.default_rng(0).standard_normal((3, 2, 2, 2)).astype("float32")
    conv.weight.set_value(w)
    x = pyir.to_tensor(np.random.default_rng(1).standard_normal((1, 2, 3, 3)).astype("float32"))
    before = conv(x).numpy()
    pyir.nn.utils.weight_norm(conv, dim=dim)
    axis = None if dim in (None, -1) else dim  # -1, like None, normalizes over everything
    keep = tuple(a for a in range(4) if a != axis)
    g = np.sqrt((w ** 2).sum(axis=keep) + 1e-12) if axis is not None else \
        np.sqrt((w ** 2).sum() + 1e-12)
    np.testing.assert_allclose(conv.weight_g.numpy(), g, rtol=1e-6)
    assert sorted(conv.state_dict()) == ["bias", "weight_g", "weight_v"]
    np.testing.assert_allclose(conv(x).numpy(), before, rtol=1e-5, atol=1e-6)
    conv.weight_g.set_value(conv.weight_g.numpy() * 2)
    np.testing.assert_allclose(conv(x).numpy() - conv.bias.numpy().reshape(1, 3, 1, 1),
                               2 * (before - conv.bias.numpy().reshape(1, 3, 1, 1)),
                               rtol=1e-5, atol=1e-5)
    pyir.square(conv(x)).sum().backward()
    assert conv.weight_v.grad is not None and conv.weight_g.grad is not None
    pyir.nn.utils.remove_weight_norm(conv)
    assert sorted(conv.state_dict()) == ["bias", "weight"]
    np.testing.assert_allclose(conv.weight.numpy(), 2 * w, rtol=1e-5, atol=1e-6)


def test_weight_norm_refusals(eager):
    lin = pyir.nn.utils.weight_norm(pyir.nn.Linear(2, 2))
    with pytest.raises(PyirError, match="already has a weight_norm"):
        pyir.nn.utils.weight_norm(lin)
    with pytest.raises(PyirError, match="no parameter 'kernel'"):
        pyir.nn.utils.weight_norm(pyir.nn.Linear(2, 2), name="kernel")
    with pytest.raises(PyirError, match="dim must be in"):
        pyir.nn.utils.weight_norm(pyir.nn.Linear(2, 2), dim=2)
    with pytest.raises(PyirError, match="no weight_norm hook"):
        pyir.nn.utils.remove_weight_norm(pyir.nn.Linear(2, 2))
    assert pyir.nn.utils.spectral_norm is pyir.nn.spectral_norm


def test_amp_is_off_on_the_cpu(eager):
    lin = pyir.nn.Linear(2, 1)
    opt = pyir.optimizer.SGD(0.5, parameters=lin.parameters())
    with pytest.warns(UserWarning, match="no effect"):
        scaler = pyir.amp.GradScaler(init_loss_scaling=1024)
    with pytest.warns(UserWarning, match="no effect"):
        with pyir.amp.auto_cast():
            loss = lin(pyir.ones([3, 2])).mean()
    assert loss.dtype == pyir.float32 and not pyir.amp.is_autocast_enabled()
    assert scaler.scale(loss) is loss
    w = lin.weight.numpy().copy()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    np.testing.assert_allclose(lin.weight.numpy(), w - 0.5 * np.ones_like(w), rtol=1e-6)
    assert (scaler.is_enable(), scaler.get_init_loss_scaling(), scaler.state_dict()) == \
        (False, 1.0, {})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert pyir.amp.decorate(lin, opt, level="O1") == (lin, opt)
        assert pyir.amp.decorate(lin) is lin
        with pyir.amp.auto_cast(enable=False):
            pass
    assert (pyir.amp.is_float16_supported(), pyir.amp.get_autocast_dtype()) == \
        (False, "float16")
    with pytest.raises(PyirError, match="level"):
        pyir.amp.decorate(lin, level="O3")
    with pytest.raises(PyirError, match="level"):
        with pyir.amp.auto_cast(level="O5"):
            pass
    with pytest.raises(PyirError, match="incr_ratio"):
        scaler.set_incr_ratio(0.5)


def test_unique_name_guard_restarts_names(eager):
    with pyir.utils.unique_name.guard():
        first = pyir.nn.Linear(2, 2).weight.name
    with pyir.utils.unique_name.guard():
        again = pyir.nn.Linear(2, 2).weight.name
    assert first == again == "linear_0.w_0"
    import pyir.utils.unique_name as un
    assert un is pyir.utils.unique_name
    with pytest.raises(AttributeError, match="paddle.utils"):
        pyir.utils.download


def test_lenet_and_transforms(eager):
    net = pyir.vision.models.LeNet()
    assert [k for k in net.state_dict()][::2] == ["features.0.weight", "features.3.weight",
                                                  "fc.0.weight", "fc.1.weight", "fc.2.weight"]
    assert net(pyir.zeros([2, 1, 28, 28])).shape == [2, 10]
    assert pyir.vision.models.LeNet(num_classes=0)(pyir.zeros([1, 1, 28, 28])).shape == \
        [1, 16, 5, 5]
    T = pyir.vision.transforms
    img = np.arange(2 * 3 * 3, dtype="uint8").reshape(2, 3, 3) * 10  # HWC
    t = T.Compose([T.ToTensor(), T.Normalize(mean=[0.5, 0.5, 0.5], std=[0.25, 0.5, 1.0])])(img)
    want = (img.transpose(2, 0, 1) / 255.0 - 0.5) / np.array([0.25, 0.5, 1.0]).reshape(3, 1, 1)
    np.testing.assert_allclose(t.numpy(), want, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(T.Transpose()(img[:, :, 0]), img[:, :, :1].transpose(2, 0, 1))
    hwc = T.Normalize(mean=127.5, std=127.5, data_format="HWC")(img.astype("float32"))
    np.testing.assert_allclose(hwc, (img - 127.5) / 127.5, rtol=1e-6)
    assert T.ToTensor()(np.ones((2, 2), "float32")).shape == [1, 2, 2]
    with pytest.raises(PyirError, match="data_format"):
        T.ToTensor(data_format="NCHW")
    with pytest.raises(PyirError, match="HWC or HW"):
        T.to_tensor(np.zeros((1, 2, 2, 3)))
    with pytest.raises(PyirError, match="augmentations"):
        T.RandomCrop(4)
    with pytest.raises(PyirError, match="ImageNet"):
        pyir.vision.models.resnet18()


def test_summary_counts_what_paddle_counts(eager, capsys):
    """Paddle's summary adds the rows of the layers forward calls, each with its own
    parameters: an uncalled ParameterList or head is not counted; rows are keyed by the
    layer's name number (linear_5 -> Linear-6), so a layer called twice is one row."""

    class Net(pyir.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = pyir.nn.Linear(3, 3)
            self.unused = pyir.nn.Linear(3, 100)
            self.extra = pyir.nn.ParameterList([self.create_parameter([7])])
            self.scale = self.create_parameter([3])

        def forward(self, x):
            return self.fc(self.fc(x)) * self.scale

    net = Net()
    assert pyir.summary(net, (1, 3)) == {"total_params": 12, "trainable_params": 12}
    rows = [line.split()[0] for line in capsys.readouterr().out.splitlines()
            if line.strip().startswith("Linear")]
    assert rows == [f"Linear-{int(net.fc.full_name().split('_')[-1]) + 1}"]
    lone = pyir.nn.Linear(2, 2)  # a network without sublayers is its own row
    assert pyir.summary(lone, (1, 2))["total_params"] == 6


def test_layer_parameters_follow_the_default_dtype(eager):
    """Paddle's layer helper gives a parameter without a dtype the global default dtype."""
    pyir.set_default_dtype("float64")
    try:
        lin = pyir.nn.Linear(2, 2)
        own = pyir.nn.Layer().create_parameter([3])
        bn = pyir.nn.BatchNorm1D(2)
        assert lin.weight.dtype == lin.bias.dtype == own.dtype == pyir.float64
        assert bn._mean.dtype == pyir.float64
        assert lin(pyir.to_tensor([[1.0, 2.0]])).dtype == pyir.float64
    finally:
        pyir.set_default_dtype("float32")
    assert pyir.nn.Linear(2, 2).weight.dtype == pyir.float32
    assert pyir.nn.Layer().create_parameter([1], dtype="float64").dtype == pyir.float64


def test_model_fit_steps_the_schedule_every_batch(eager):
    """Paddle's fit steps an optimizer's LRScheduler after each training batch (its default
    LRScheduler callback); evaluate reports the last batch's loss."""
    net = pyir.nn.Linear(2, 2)
    model = pyir.Model(net)
    sched = pyir.optimizer.lr.StepDecay(learning_rate=0.1, step_size=1, gamma=0.5)
    model.prepare(pyir.optimizer.SGD(sched, parameters=net.parameters()),
                  pyir.nn.CrossEntropyLoss())
    data = pyir.io.TensorDataset([pyir.ones([6, 2]), pyir.zeros([6, 1], "int64")])
    model.fit(data, batch_size=2, epochs=2, shuffle=False, verbose=0)
    assert sched.last_epoch == 6 and sched.get_lr() == pytest.approx(0.1 * 0.5 ** 6)
    last = model.eval_batch([np.ones((2, 2), "float32")], [np.zeros((2, 1), "int64")])
    result = model.evaluate(data, batch_size=4, verbose=0)  # batches of 4 and 2 rows
    assert result["loss"] == [pytest.approx(float(np.mean(last[0])), rel=1e-6)]


def test_parameter_groups_learning_rate_regularizer_and_clip(eager):
    """As Paddle's _add_param_group: a group's learning_rate (default 1) replaces the
    parameter's ParamAttr multiplier, its weight_decay (default: the optimizer's) replaces the
    parameter's own regularizer, and a global-norm clip sees one group at a time."""
    a = pyir.nn.Linear(2, 1, weight_attr=pyir.ParamAttr(
        learning_rate=0.5, regularizer=pyir.regularizer.L1Decay(1.0)), bias_attr=False)
    b = pyir.nn.Linear(2, 1, weight_attr=pyir.ParamAttr(learning_rate=0.5), bias_attr=False)
    wa, wb = np.array([[3.0], [4.0]], "float32"), np.array([[1.0], [0.0]], "float32")
    a.weight.set_value(wa)
    b.weight.set_value(wb)
    opt = pyir.optimizer.SGD(
        0.1, parameters=[{"params": a.parameters(), "learning_rate": 0.2},
                         {"params": b.parameters(), "weight_decay": 0.5}],
        grad_clip=pyir.nn.ClipGradByGlobalNorm(1.0))
    x = pyir.to_tensor(np.array([[1.0, 2.0]], "float32"))
    (a(x) + b(x)).sum().backward()   # both gradients are [1, 2], norm sqrt(5) per group
    opt.step()
    g = np.array([[1.0], [2.0]], "float32") / np.sqrt(5.0)
    np.testing.assert_allclose(a.weight.numpy(), wa - 0.1 * 0.2 * g, rtol=1e-6)  # no L1
    np.testing.assert_allclose(b.weight.numpy(), wb - 0.1 * (g + 0.5 * wb), rtol=1e-6)
