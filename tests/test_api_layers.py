"""pyir.nn.Layer and the common layers: the layer tree (parameters, buffers, sublayers,
state_dict keys), modes, hooks, numpy references for Linear / Conv2D / LSTM in both modes,
their eager gradients against finite differences, the ops a static layer emits, and refusals.
Literals marked "Paddle 3.3.1" were produced by Paddle 3.3.1 on the same calls."""

import numpy as np
import pytest

import pyir
from pyir.errors import BuildError
from pyir.executor import Executor
from pyir.nn import initializer as I

nn = pyir.nn


@pytest.fixture
def eager():
    pyir.disable_static()


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 3)
        self.bn = nn.BatchNorm1D(3)
        self.blocks = nn.LayerList([nn.Linear(3, 3), nn.Sequential(nn.Linear(3, 3), nn.ReLU())])
        self.register_buffer("step", pyir.to_tensor(np.zeros([1], "float32")))
        self.register_buffer("tmp", pyir.to_tensor(np.zeros([1], "float32")),
                             persistable=False)
        self.w = self.create_parameter([3])
        self.shared = self.fc


def test_layer_tree_names_match_paddle(eager):
    net = Net()
    assert net.full_name() == "net_0"
    # Paddle 3.3.1:
    assert list(net.state_dict()) == [
        "w", "step", "fc.weight", "fc.bias", "bn.weight", "bn.bias", "bn._mean", "bn._variance",
        "blocks.0.weight", "blocks.0.bias", "blocks.1.0.weight", "blocks.1.0.bias",
        "shared.weight", "shared.bias"]
    assert [n for n, _ in net.named_parameters()] == [
        "w", "fc.weight", "fc.bias", "bn.weight", "bn.bias", "bn._mean", "bn._variance",
        "blocks.0.weight", "blocks.0.bias", "blocks.1.0.weight", "blocks.1.0.bias"]
    assert [p.name for p in net.parameters()] == [
        "net_0.w_0", "linear_0.w_0", "linear_0.b_0", "batch_norm1d_0.w_0", "batch_norm1d_0.b_0",
        "batch_norm1d_0.w_1", "batch_norm1d_0.w_2", "linear_1.w_0", "linear_1.b_0",
        "linear_2.w_0", "linear_2.b_0"]
    assert [n for n, _ in net.named_sublayers()] == [
        "fc", "bn", "blocks", "blocks.0", "blocks.1", "blocks.1.0", "blocks.1.1"]
    assert [n for n, _ in net.named_sublayers(include_self=True)][0] == ""
    assert [n for n, _ in net.named_children()] == ["fc", "bn", "blocks"]
    assert [n for n, _ in net.named_buffers()] == ["step", "tmp"]
    assert len(net.sublayers()) == 7 and len(list(net.children())) == 3
    assert len(net.buffers()) == 2
    assert net.w.trainable and not net.w.stop_gradient
    assert not net.bn._mean.trainable and net.bn._mean.stop_gradient


def test_repr_matches_paddle(eager):
    # Paddle 3.3.1:
    assert repr(Net()) == """Net(
  (fc): Linear(in_features=2, out_features=3, dtype=float32)
  (bn): BatchNorm1D(num_features=3, momentum=0.9, epsilon=1e-05, data_format=NCL)
  (blocks): LayerList(
    (0): Linear(in_features=3, out_features=3, dtype=float32)
    (1): Sequential(
      (0): Linear(in_features=3, out_features=3, dtype=float32)
      (1): ReLU()
    )
  )
  (shared): Linear(in_features=2, out_features=3, dtype=float32)
)"""
    assert repr(nn.Conv2D(2, 4, 3, stride=2, padding=1, groups=2)) == \
        "Conv2D(2, 4, kernel_size=[3, 3], stride=[2, 2], padding=1, groups=2, data_format=NCHW)"
    assert [repr(x) for x in (nn.LeakyReLU(0.1), nn.Softmax(), nn.GELU(), nn.Dropout(0.2),
                              nn.Embedding(4, 2), nn.LayerNorm(4))] == [
        "LeakyReLU(negative_slope=0.1)", "Softmax(axis=-1)", "GELU(approximate=False)",
        "Dropout(p=0.2, axis=None, mode=upscale_in_train, inplace=False)",
        "Embedding(4, 2, sparse=False, scale_grad_by_freq=False)",
        "LayerNorm(normalized_shape=[4], epsilon=1e-05)"]


def test_create_variable_names(eager):
    net = Net()
    v = net.create_variable(name="foo")
    assert v.name == "net_0.foo" and v.persistable is False and v.shape == []  # Paddle 3.3.1
    assert net.create_tensor().name == "net_0._generated_var_0"


def test_state_dict_roundtrip_and_refusals(eager):
    a, b = Net(), Net()
    missing, unexpected = b.set_state_dict(a.state_dict())
    assert missing == [] and unexpected == []
    for (k, va), vb in zip(a.state_dict().items(), b.state_dict().values()):
        np.testing.assert_array_equal(va.numpy(), vb.numpy(), err_msg=k)
    missing, unexpected = b.set_dict({"fc.weight": np.ones((2, 3), "float32"), "zzz": 1})
    assert unexpected == ["zzz"] and "fc.bias" in missing and "fc.weight" not in missing
    np.testing.assert_array_equal(b.fc.weight.numpy(), np.ones((2, 3)))
    with pytest.raises(BuildError, match=r"fc.weight receives a value of shape \[3, 2\], but "
                                         r"the expected shape is \[2, 3\]"):
        b.load_dict({"fc.weight": np.zeros((3, 2), "float32")})
    # by parameter name instead of structured name
    assert a.fc.bias.name == "linear_0.b_0"
    a.set_state_dict({"linear_0.b_0": np.full(3, 7, "float32")}, use_structured_name=False)
    np.testing.assert_array_equal(a.fc.bias.numpy(), np.full(3, 7))


def test_static_state_dict_goes_through_the_scope():
    main, startup = pyir.static.Program(), pyir.static.Program()
    with pyir.static.program_guard(main, startup):
        fc = nn.Linear(2, 3)
        y = fc(pyir.static.data("x", [-1, 2]))
    assert isinstance(fc.weight, pyir.framework.Parameter)
    assert fc.weight.name in startup.global_block().vars
    exe = Executor()
    exe.run(startup)
    w = np.arange(6, dtype="float32").reshape(2, 3)
    fc.set_state_dict({"weight": w, "bias": np.ones(3, "float32")})
    x = np.array([[1.0, -1.0]], "float32")
    (out,) = exe.run(main, feed={"x": x}, fetch_list=[y])
    np.testing.assert_allclose(out, x @ w + 1)
    other = nn.Linear(2, 3)
    other.set_state_dict(fc.state_dict())  # reads the scope values
    np.testing.assert_array_equal(pyir.static.global_scope()[other.weight.name], w)


def test_attribute_registration_rules(eager):
    net = Net()
    with pytest.raises(BuildError, match="fc is a sublayer; assign a Layer or None"):
        net.fc = 3
    with pytest.raises(BuildError, match="w is a parameter"):
        net.w = np.zeros(3)
    with pytest.raises(BuildError, match="step is a buffer"):
        net.step = "x"
    net.w = None
    assert "w" not in dict(net.named_parameters())
    del net.fc
    assert "fc.weight" not in net.state_dict() and "shared.weight" in net.state_dict()
    with pytest.raises(BuildError, match="must be a parameter"):
        net.add_parameter("p", np.zeros(2))
    with pytest.raises(BuildError, match="without '.'"):
        net.register_buffer("a.b", None)
    with pytest.raises(BuildError, match="must be a Layer"):
        net.add_sublayer("s", 3)

    class Early(nn.Layer):
        def __init__(self):
            self.fc = nn.Linear(1, 1)

    with pytest.raises(BuildError, match=r"call super\(\).__init__\(\)"):
        Early()


def test_modes_hooks_apply_and_casts(eager):
    net = nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.9))
    assert net.training and net[1].training
    net.eval()
    assert not net.training and not net[1].training
    x = pyir.to_tensor(np.ones((4, 2), "float32"))
    np.testing.assert_allclose(net(x).numpy(), net[0](x).numpy())  # no dropout in eval
    net.train()
    assert net[1].training

    calls = []
    pre = net.register_forward_pre_hook(lambda layer, inputs: (inputs[0] * 2,))
    post = net.register_forward_post_hook(lambda layer, inputs, out: calls.append(out) or out + 1)
    net.eval()
    y = net(x)
    np.testing.assert_allclose(y.numpy(), net[0](x * 2).numpy() + 1, rtol=1e-6)
    assert len(calls) == 1
    pre.remove()
    post.remove()
    np.testing.assert_allclose(net(x).numpy(), net[0](x).numpy())

    seen = []
    assert net.apply(lambda layer: seen.append(type(layer).__name__)) is net
    assert seen == ["Linear", "Dropout", "Sequential"]
    net.to(device="cpu", dtype="float64")
    assert net[0].weight.dtype == np.float64 and net[0]._dtype == "float64"
    with pytest.raises(BuildError, match="floating type"):
        net.astype("int32")


def test_containers(eager):
    seq = nn.Sequential(("a", nn.Linear(2, 3)), ("b", nn.ReLU()))
    assert list(seq.state_dict()) == ["a.weight", "a.bias"]
    assert isinstance(seq[-1], nn.ReLU) and isinstance(seq["a"], nn.Linear)
    assert len(seq[:1]) == 1 and len(seq) == 2
    with pytest.raises(IndexError):
        seq[5]
    layers = nn.LayerList([nn.Linear(2, 2)])
    layers.append(nn.Linear(2, 3)).extend([nn.ReLU()])
    layers.insert(0, nn.Tanh())
    assert [type(x).__name__ for x in layers] == ["Tanh", "Linear", "Linear", "ReLU"]
    assert list(layers.state_dict()) == ["1.weight", "1.bias", "2.weight", "2.bias"]
    del layers[0]
    assert list(layers.state_dict())[0] == "0.weight"
    d = nn.LayerDict({"x": nn.Linear(1, 1)})
    d["y"] = nn.ReLU()
    assert list(d.keys()) == ["x", "y"] and "x" in d and len(d) == 2
    d.pop("x")
    assert list(d) == ["y"]
    plist = nn.ParameterList([nn.Linear(1, 2).weight, nn.Linear(2, 1).bias])
    assert list(plist.state_dict()) == ["0", "1"] and len(plist) == 2
    pdict = nn.ParameterDict({"w": nn.Linear(1, 2).weight})
    assert list(pdict.state_dict()) == ["w"]
    with pytest.raises(BuildError, match="must be a parameter"):
        nn.ParameterDict({"w": np.zeros(2)})


# --- numpy references ----------------------------------------------------------------------
def _conv2d_ref(x, w, b, stride, pad):
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, _, h, wd = x.shape
    o, _, kh, kw = w.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((n, o, oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = x[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
            out[:, :, i, j] = np.einsum("nchw,ochw->no", patch, w)
    return out + b[None, :, None, None]


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def _lstm_ref(x, wih, whh, bih, bhh):
    batch, steps, _ = x.shape
    hidden = whh.shape[1]
    h, c, outs = np.zeros((batch, hidden)), np.zeros((batch, hidden)), []
    for t in range(steps):
        gates = x[:, t] @ wih.T + bih + h @ whh.T + bhh
        i, f, g, o = np.split(gates, 4, axis=1)
        c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
        h = _sigmoid(o) * np.tanh(c)
        outs.append(h)
    return np.stack(outs, 1), h, c


RNG = np.random.default_rng(7)
W_LIN = RNG.standard_normal((3, 4)).astype("float32")
B_LIN = RNG.standard_normal(4).astype("float32")
X_LIN = RNG.standard_normal((5, 3)).astype("float32")
W_CONV = RNG.standard_normal((4, 2, 3, 3)).astype("float32")
B_CONV = RNG.standard_normal(4).astype("float32")
X_CONV = RNG.standard_normal((2, 2, 6, 5)).astype("float32")
X_SEQ = RNG.standard_normal((2, 4, 3)).astype("float32")


def _linear():
    return nn.Linear(3, 4, weight_attr=pyir.ParamAttr(initializer=I.Assign(W_LIN)),
                     bias_attr=pyir.ParamAttr(initializer=I.Assign(B_LIN)))


def _conv():
    return nn.Conv2D(2, 4, 3, stride=2, padding=1, weight_attr=I.Assign(W_CONV),
                     bias_attr=I.Assign(B_CONV))


def test_linear_eager_and_static_match_numpy(eager):
    fc = _linear()
    np.testing.assert_allclose(fc(pyir.to_tensor(X_LIN)).numpy(), X_LIN @ W_LIN + B_LIN,
                               rtol=1e-5)
    pyir.enable_static()
    main, startup = pyir.static.Program(), pyir.static.Program()
    with pyir.static.program_guard(main, startup):
        fc = _linear()
        y = fc(pyir.static.data("x", [-1, 3]))
    assert [op.type for op in main.global_block().ops] == ["matmul_v2", "elementwise_add"]
    assert [op.type for op in startup.global_block().ops] == ["assign_value", "assign_value"]
    assert y.name == f"{fc.full_name()}.tmp_1"  # as Paddle 3.3.1 names it: linear_N.tmp_1
    exe = Executor()
    exe.run(startup)
    (out,) = exe.run(main, feed={"x": X_LIN}, fetch_list=[y])
    np.testing.assert_allclose(out, X_LIN @ W_LIN + B_LIN, rtol=1e-5)


def test_conv2d_eager_and_static_match_numpy(eager):
    expected = _conv2d_ref(X_CONV, W_CONV, B_CONV, 2, 1)
    np.testing.assert_allclose(_conv()(pyir.to_tensor(X_CONV)).numpy(), expected, rtol=1e-4,
                               atol=1e-5)
    pyir.enable_static()
    main, startup = pyir.static.Program(), pyir.static.Program()
    with pyir.static.program_guard(main, startup):
        y = _conv()(pyir.static.data("x", [-1, 2, 6, 5]))
    ops = main.global_block().ops
    # Paddle 3.3.1: conv2d, then the bias reshaped to [1, C, 1, 1] and added with axis -1
    assert [op.type for op in ops] == ["conv2d", "reshape2", "elementwise_add"]
    assert ops[0].attr("strides") == [2, 2] and ops[0].attr("paddings") == [1, 1]
    assert ops[1].attr("shape") == [1, 4, 1, 1] and ops[2].attr("axis") == -1
    exe = Executor()
    exe.run(startup)
    (out,) = exe.run(main, feed={"x": X_CONV}, fetch_list=[y])
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)


def test_lstm_eager_and_static_match_numpy(eager):
    lstm = nn.LSTM(3, 5)
    params = {k: v.numpy().astype("float64") for k, v in lstm.state_dict().items()}
    ref_out, ref_h, ref_c = _lstm_ref(X_SEQ, params["weight_ih_l0"], params["weight_hh_l0"],
                                      params["bias_ih_l0"], params["bias_hh_l0"])
    out, (h, c) = lstm(pyir.to_tensor(X_SEQ))
    np.testing.assert_allclose(out.numpy(), ref_out, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h.numpy()[0], ref_h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c.numpy()[0], ref_c, rtol=1e-5, atol=1e-6)
    state = {k: v.numpy() for k, v in lstm.state_dict().items()}
    pyir.enable_static()
    main, startup = pyir.static.Program(), pyir.static.Program()
    with pyir.static.program_guard(main, startup):
        lstm = nn.LSTM(3, 5)
        y, _ = lstm(pyir.static.data("x", [-1, 4, 3]))
    exe = Executor()
    exe.run(startup)
    lstm.set_state_dict(state)
    (res,) = exe.run(main, feed={"x": X_SEQ}, fetch_list=[y])
    np.testing.assert_allclose(res, ref_out, rtol=1e-5, atol=1e-6)


def _finite_difference(loss_of, param, count=6, eps=1e-6):
    """d loss / d param at a few elements, by central differences in float64."""
    rng = np.random.default_rng(0)
    picks = rng.choice(param.size, size=min(count, param.size), replace=False)
    grads = []
    for flat in picks:
        idx = np.unravel_index(flat, param.shape)
        old = param._value[idx]
        param._value[idx] = old + eps
        up = loss_of()
        param._value[idx] = old - eps
        down = loss_of()
        param._value[idx] = old
        grads.append((up - down) / (2 * eps))
    return picks, np.array(grads)


@pytest.mark.parametrize("make,inputs", [
    (_linear, [X_LIN]), (_conv, [X_CONV]),
    (lambda: nn.LSTM(3, 4, direction="bidirect"), [X_SEQ]),
], ids=["Linear", "Conv2D", "LSTM"])
def test_eager_gradients_match_finite_differences(eager, make, inputs):
    layer = make().to(dtype="float64")
    xs = [pyir.to_tensor(a.astype("float64"), stop_gradient=False) for a in inputs]
    weights = np.random.default_rng(1).standard_normal(
        np.asarray(_first(layer(*xs)).numpy()).shape)

    def loss_of():
        with pyir.no_grad():
            return float((_first(layer(*xs)).numpy() * weights).sum())

    loss = (_first(layer(*xs)) * pyir.to_tensor(weights)).sum()
    loss.backward()
    for name, param in layer.named_parameters():
        picks, numeric = _finite_difference(loss_of, param)
        np.testing.assert_allclose(param.grad.numpy().ravel()[picks], numeric, rtol=1e-5,
                                   atol=1e-6, err_msg=name)
    x = xs[0]
    picks, numeric = _finite_difference(loss_of, x)
    np.testing.assert_allclose(x.grad.numpy().ravel()[picks], numeric, rtol=1e-5, atol=1e-6)


def _first(out):
    return out[0] if isinstance(out, tuple) else out


# --- what static layers emit ---------------------------------------------------------------
def _startup_ops(make):
    main, startup = pyir.static.Program(), pyir.static.Program()
    with pyir.static.program_guard(main, startup):
        make()
    return [(op.type, op.output("Out")[0], {k: op.attr(k) for k in ("shape", "min", "max",
                                                                      "mean", "std", "value")
                                             if k in op.attrs})
            for op in startup.global_block().ops]


def test_default_initializers_match_paddle():
    # Paddle 3.3.1 (startup program of each layer, rounded to 6 places)
    expected = [
        ("gaussian_random", "conv2d_0.w_0", {"shape": [6, 4, 3, 3], "mean": 0.0,
                                             "std": 0.235702}),
        ("fill_constant", "conv2d_0.b_0", {"shape": [6], "value": 0.0}),
        ("uniform_random", "conv2d_transpose_0.w_0", {"shape": [4, 6, 3, 3], "min": -0.258199,
                                                      "max": 0.258199}),
        ("fill_constant", "conv2d_transpose_0.b_0", {"shape": [6], "value": 0.0}),
        ("gaussian_random", "conv1d_0.w_0", {"shape": [3, 2, 5], "mean": 0.0,
                                             "std": 0.447214}),
        ("fill_constant", "conv1d_0.b_0", {"shape": [3], "value": 0.0}),
        ("uniform_random", "lstm_cell_0.w_0", {"shape": [16, 3], "min": -0.5, "max": 0.5}),
        ("uniform_random", "lstm_cell_0.w_1", {"shape": [16, 4], "min": -0.5, "max": 0.5}),
        ("uniform_random", "lstm_cell_0.b_0", {"shape": [16], "min": -0.5, "max": 0.5}),
        ("uniform_random", "lstm_cell_0.b_1", {"shape": [16], "min": -0.5, "max": 0.5}),
        ("fill_constant", "p_re_lu_0.w_0", {"shape": [2], "value": 0.1}),
        ("fill_constant", "layer_norm_0.w_0", {"shape": [5], "value": 1.0}),
        ("fill_constant", "layer_norm_0.b_0", {"shape": [5], "value": 0.0}),
        ("fill_constant", "group_norm_0.w_0", {"shape": [4], "value": 1.0}),
        ("fill_constant", "group_norm_0.b_0", {"shape": [4], "value": 0.0}),
        ("fill_constant", "instance_norm2d_0.w_0", {"shape": [3], "value": 1.0}),
        ("fill_constant", "instance_norm2d_0.b_0", {"shape": [3], "value": 0.0}),
        ("uniform_random", "bilinear_0.w_0", {"shape": [4, 2, 3], "min": -0.57735,
                                              "max": 0.57735}),
        ("fill_constant", "bilinear_0.b_0", {"shape": [1, 4], "value": 0.0}),
        ("uniform_random", "embedding_0.w_0", {"shape": [10, 3], "min": -0.679366,
                                               "max": 0.679366}),
        ("fill_constant", "batch_norm2d_0.w_0", {"shape": [6], "value": 1.0}),
        ("fill_constant", "batch_norm2d_0.b_0", {"shape": [6], "value": 0.0}),
        ("fill_constant", "batch_norm2d_0.w_1", {"shape": [6], "value": 0.0}),
        ("fill_constant", "batch_norm2d_0.w_2", {"shape": [6], "value": 1.0}),
    ]
    got = _startup_ops(lambda: [nn.Conv2D(4, 6, 3), nn.Conv2DTranspose(4, 6, 3),
                                nn.Conv1D(2, 3, 5), nn.LSTMCell(3, 4), nn.PReLU(2, 0.1),
                                nn.LayerNorm(5), nn.GroupNorm(2, 4), nn.InstanceNorm2D(3),
                                nn.Bilinear(2, 3, 4), nn.Embedding(10, 3), nn.BatchNorm2D(6)])
    assert [(t, n) for t, n, _ in got] == [(t, n) for t, n, _ in expected]
    for (_, name, attrs), (_, _, want) in zip(got, expected):
        assert list(attrs["shape"]) == want.pop("shape"), name
        for key, value in want.items():
            assert attrs[key] == pytest.approx(value, abs=1e-5), (name, key)


def test_default_initializer_statistics(eager):
    pyir.seed(3)
    w = nn.Conv2D(16, 32, 3).weight.numpy()
    assert abs(w.std() - (2 / (9 * 16)) ** 0.5) < 0.01 and abs(w.mean()) < 0.01
    w = nn.Linear(100, 200).weight.numpy()
    limit = (6 / 300) ** 0.5
    assert w.max() <= limit and w.min() >= -limit and w.max() > 0.95 * limit
    assert np.all(nn.Linear(3, 4).bias.numpy() == 0)
    bn = nn.BatchNorm2D(3)
    assert np.all(bn.weight.numpy() == 1) and np.all(bn._variance.numpy() == 1)
    assert np.all(bn._mean.numpy() == 0)
    assert np.all(nn.PReLU()._weight.numpy() == 0.25)


def test_static_ops_of_norm_embedding_dropout():
    main, startup = pyir.static.Program(), pyir.static.Program()
    with pyir.static.program_guard(main, startup):
        x = pyir.static.data("x", [-1, 4, 8, 8])
        bn = nn.BatchNorm2D(4)
        bn(x)
        nn.Embedding(10, 3, padding_idx=-1)(pyir.static.data("ids", [-1, 2], "int64"))
        nn.Dropout(0.3)(x)
        nn.Conv2D(4, 4, 3, groups=4)(x)
    ops = {op.type: op for op in main.global_block().ops}
    norm = ops["batch_norm"]
    # Paddle 3.3.1: the running statistics are written in place
    assert norm.output("MeanOut") == [bn._mean.name] == ["batch_norm2d_0.w_1"]
    assert norm.output("VarianceOut") == [bn._variance.name]
    assert norm.attr("is_test") is False and norm.attr("momentum") == pytest.approx(0.9)
    assert ops["lookup_table_v2"].attr("padding_idx") == 9
    assert ops["dropout"].attr("dropout_implementation") == "upscale_in_train"
    assert ops["dropout"].attr("dropout_prob") == pytest.approx(0.3)
    assert ops["depthwise_conv2d"].attr("groups") == 4


def test_eager_batch_norm_updates_running_stats(eager):
    x = RNG.standard_normal((8, 3, 4, 4)).astype("float32")
    bn = nn.BatchNorm2D(3, momentum=0.8)
    y = bn(pyir.to_tensor(x)).numpy()
    mean, var = x.mean((0, 2, 3)), x.var((0, 2, 3))
    np.testing.assert_allclose(y, (x - mean[None, :, None, None]) /
                               np.sqrt(var[None, :, None, None] + 1e-5), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bn._mean.numpy(), 0.2 * mean, rtol=1e-5, atol=1e-6)
    bn.eval()
    y = bn(pyir.to_tensor(x)).numpy()
    np.testing.assert_allclose(y, (x - bn._mean.numpy()[None, :, None, None]) /
                               np.sqrt(bn._variance.numpy()[None, :, None, None] + 1e-5),
                               rtol=1e-4, atol=1e-5)


def test_dropout_channels_and_training(eager):
    pyir.seed(0)
    x = pyir.to_tensor(np.ones((4, 6, 3, 3), "float32"))
    y = nn.Dropout2D(0.5)(x).numpy()
    per_channel = y.reshape(4, 6, 9)
    assert np.all(per_channel.min(-1) == per_channel.max(-1))  # whole channels
    assert set(np.unique(y)) <= {0.0, 2.0} and 0 < (y == 0).mean() < 1
    layer = nn.Dropout(0.5, mode="downgrade_in_infer").eval()
    np.testing.assert_allclose(layer(x).numpy(), 0.5 * np.ones((4, 6, 3, 3)))


@pytest.mark.parametrize("make,match", [
    (lambda: nn.Linear(0, 3), "in_features must be a positive int"),
    (lambda: nn.Conv2D(3, 4, 3, groups=2), r"in_channels \(3\) must be divisible by groups"),
    (lambda: nn.Conv2D(4, 4, 3, padding="full"), "padding must be"),
    (lambda: nn.Conv2D(4, 4, [3, 3, 3]), "kernel_size must be an int or 2 ints"),
    (lambda: nn.Conv2D(4, 4, 3, padding_mode="wrap"), "padding_mode"),
    (lambda: nn.Embedding(5, 2, padding_idx=5), r"padding_idx must be in \[-5, 5\)"),
    (lambda: nn.MultiHeadAttention(10, 3), r"embed_dim \(10\) must be divisible"),
    (lambda: nn.LSTM(3, 4, direction="both"), "direction must be"),
    (lambda: nn.GRU(3, 4, num_layers=0), "num_layers must be a positive int"),
    (lambda: nn.Dropout(1.5), r"p must be a number in \[0, 1\]"),
    (lambda: nn.MSELoss(reduction="avg"), "reduction must be one of"),
    (lambda: nn.GroupNorm(3, 4), r"num_channels \(4\) must be divisible by num_groups"),
    (lambda: nn.BatchNorm2D(0), "num_features must be a positive int"),
    (lambda: nn.MaxPool3D(2, return_mask=True), "return_mask"),
    (lambda: nn.Upsample(scale_factor=2, align_corners=True), "align_corners"),
    (lambda: nn.SimpleRNNCell(3, 4, activation="gelu"), "activation must be"),
    (lambda: nn.Pad2D([1, 2]), "padding must be an int or 4 ints"),
    (lambda: nn.Hardtanh(1.0, -1.0), "min 1.0 is larger than max -1.0"),
])
def test_constructor_refusals(eager, make, match):
    with pytest.raises(BuildError, match=match):
        make()


@pytest.mark.parametrize("make,shape,match", [
    (lambda: nn.BatchNorm2D(3), (2, 3, 4), "needs a 4-D input"),
    (lambda: nn.Conv2D(3, 4, 3), (1, 2, 5, 5), "the input has 2 channels, expected 3"),
    (lambda: nn.LayerNorm([4, 5]), (2, 4, 4), "do not match normalized_shape"),
    (lambda: nn.PixelShuffle(2), (1, 6, 2, 2), "not divisible by upscale_factor"),
    (lambda: nn.Upsample(), (1, 2, 3, 3), "exactly one of size and scale_factor"),
    (lambda: nn.Maxout(4), (1, 6, 2, 2), "not divisible by groups"),
    (lambda: nn.Flatten(2, 1), (1, 2, 3), "start_axis 2 is after stop_axis 1"),
])
def test_forward_refusals(eager, make, shape, match):
    with pytest.raises(BuildError, match=match):
        make()(pyir.to_tensor(np.zeros(shape, "float32")))


def test_static_rnn_needs_a_known_length():
    main, startup = pyir.static.Program(), pyir.static.Program()
    with pyir.static.program_guard(main, startup):
        with pytest.raises(BuildError, match="sequence length .* must be known"):
            nn.GRU(3, 4)(pyir.static.data("x", [2, -1, 3]))


def test_sync_batch_norm_is_batch_norm_and_parameter(eager):
    x = RNG.standard_normal((4, 3, 2, 2)).astype("float32")
    sync, plain = nn.SyncBatchNorm(3), nn.BatchNorm2D(3)
    np.testing.assert_allclose(sync(pyir.to_tensor(x)).numpy(),
                               plain(pyir.to_tensor(x)).numpy(), rtol=1e-6)
    assert nn.SyncBatchNorm.convert_sync_batchnorm(plain) is plain
    assert list(sync.state_dict()) == ["weight", "bias", "_mean", "_variance"]
    p = nn.Parameter(pyir.to_tensor(np.ones((2, 3), "float32")))
    assert not p.stop_gradient and p.trainable and p.persistable
    assert p.name.startswith("_eager_param_base_")  # Paddle 3.3.1's stem
    assert nn.Parameter(np.zeros(2), requires_grad=False).stop_gradient
    layer = nn.Layer()
    layer.p = p
    assert list(layer.state_dict()) == ["p"]


def test_max_pool_mask_and_unpool_match_paddle(eager):
    x = np.arange(12, dtype="float32").reshape(1, 3, 4) * np.array([1, -1, 1, -1], "float32")
    y, mask = nn.MaxPool2D(2, 1, padding=1, return_mask=True)(pyir.to_tensor(x.reshape(1, 1, 3,
                                                                                          4)))
    # Paddle 3.3.1:
    assert y.numpy().tolist() == [[[[0, 0, 2, 2, -3], [4, 4, 6, 6, -3], [8, 8, 10, 10, -7],
                                     [8, 8, 10, 10, -11]]]]
    assert mask.numpy().tolist() == [[[[0, 0, 2, 2, 3], [4, 4, 6, 6, 3], [8, 8, 10, 10, 7],
                                        [8, 8, 10, 10, 11]]]]
    back = nn.MaxUnPool2D(2, 1, padding=1)(y, mask)
    assert back.numpy().tolist() == [[[[0, 0, 2, -3], [4, 0, 6, -7], [8, 0, 10, -11]]]]
    y1, m1 = nn.MaxPool1D(2, 2, return_mask=True)(pyir.to_tensor(x))
    assert y1.numpy().tolist() == [[[0, 2], [4, 6], [8, 10]]]
    assert m1.numpy().tolist() == [[[0, 2], [0, 2], [0, 2]]]
    np.testing.assert_array_equal(nn.MaxUnPool1D(2)(y1, m1).numpy(),
                                  np.where(np.arange(4) % 2 == 0, x, 0))
    with pytest.raises(BuildError, match="same 4-D shape"):
        nn.MaxUnPool2D(2)(y, m1)
    with pytest.raises(BuildError, match="return_mask=True is supported"):
        nn.MaxPool2D(2, return_mask=True, data_format="NHWC")


def test_max_pool_mask_static_and_gradient():
    x = np.random.default_rng(2).standard_normal((2, 3, 5, 4)).astype("float32")
    main, startup = pyir.static.Program(), pyir.static.Program()
    with pyir.static.program_guard(main, startup):
        y, mask = nn.MaxPool2D(3, 2, padding=1, ceil_mode=True, return_mask=True)(
            pyir.static.data("x", [-1, 3, 5, 4]))
        plain = nn.MaxPool2D(3, 2, padding=1, ceil_mode=True)(pyir.static.data("x2",
                                                                                [-1, 3, 5, 4]))
    vals, idx, ref = Executor().run(main, feed={"x": x, "x2": x}, fetch_list=[y, mask, plain])
    np.testing.assert_allclose(vals, ref)
    flat = x.reshape(2, 3, -1)
    np.testing.assert_allclose(np.take_along_axis(flat, idx.reshape(2, 3, -1).astype("int64"),
                                                  2).reshape(vals.shape), vals)


def test_torch_style_aliases_and_set_value(eager):
    net = Net()
    assert [n for n, _ in net.named_modules()][:2] == ["", "fc"]
    assert len(net.modules()) == 8
    assert net.get_sublayer("blocks.1.0") is net.blocks[1][0]
    assert net.get_parameter("blocks.0.bias") is net.blocks[0].bias
    assert net.get_buffer("step") is net.step
    with pytest.raises(BuildError, match="has no sublayer 'nope'"):
        net.get_sublayer("blocks.nope")
    net.set_sublayer("blocks.1", nn.Identity())
    assert isinstance(net.blocks[1], nn.Identity)
    assert net.requires_grad_(False) is net and all(p.stop_gradient for p in net.parameters())
    net.fc.weight.set_value(np.full((2, 3), 2.0))
    assert net.fc.weight.dtype == np.float32 and np.all(net.fc.weight.numpy() == 2)
    with pytest.raises(BuildError, match=r"has shape \[2, 3\], got a value of shape \[3\]"):
        net.fc.weight.set_value(np.zeros(3))
    assert net.load_state_dict is not None and net.half().fc.weight.dtype == np.float16


def test_functional_backed_losses_own_paddles_parameters():
    main, startup = pyir.static.Program(), pyir.static.Program()
    with pyir.static.program_guard(main, startup):
        nn.HSigmoidLoss(3, 5)
        nn.HSigmoidLoss(3, 5, is_custom=True)
        ada = nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 7], div_value=2.0, head_bias=True)
    # Paddle 3.3.1 (startup program: name, shape, Xavier limit or constant)
    expected = [("h_sigmoid_loss_0.w_0", [4, 3], 0.92582), ("h_sigmoid_loss_0.b_0", [4, 1], 0),
                ("h_sigmoid_loss_1.w_0", [5, 3], 0.86603), ("h_sigmoid_loss_1.b_0", [5, 1], 0),
                ("adaptive_log_softmax_with_loss_0.w_0", [8, 6], 0.65465),
                ("adaptive_log_softmax_with_loss_0.b_0", [6], 0),
                ("adaptive_log_softmax_with_loss_0.w_1", [8, 4], 0.70711),
                ("adaptive_log_softmax_with_loss_0.w_2", [4, 3], 0.92582),
                ("adaptive_log_softmax_with_loss_0.w_3", [8, 2], 0.77460),
                ("adaptive_log_softmax_with_loss_0.w_4", [2, 3], 1.09545)]
    ops = startup.global_block().ops
    assert [(op.output("Out")[0], list(op.attr("shape"))) for op in ops] == \
        [(n, s) for n, s, _ in expected]
    for op, (_, _, limit) in zip(ops, expected):
        got = op.attr("max") if op.type == "uniform_random" else op.attr("value")
        assert got == pytest.approx(limit, abs=1e-5)
    assert list(ada.state_dict()) == ["head_weight", "head_bias"]  # Paddle 3.3.1
    assert (ada.shortlist_size, ada.n_clusters, ada.head_size) == (4, 2, 6)
    with pytest.raises(BuildError, match="cutoffs must be unique, positive, increasing"):
        nn.AdaptiveLogSoftmaxWithLoss(8, 10, [7, 4])
    with pytest.raises(BuildError, match="num_classes must be an int >= 2"):
        nn.HSigmoidLoss(3, 1)
    with pytest.raises(BuildError, match="reduction must be one of"):
        nn.CTCLoss(reduction="avg")


def test_fractional_max_pool_windows_and_refusals(eager):
    from pyir.nn.layers_pool import fractional_bounds
    # Paddle 3.3.1's windows (read off its outputs on increasing / decreasing inputs)
    assert fractional_bounds(7, 5, 0.3, None) == [(0, 1), (1, 3), (3, 4), (4, 6), (6, 7)]
    assert fractional_bounds(10, 4, 0.7, None) == [(0, 2), (2, 5), (5, 7), (7, 10)]
    assert fractional_bounds(9, 4, 0.5, 2) == [(0, 2), (2, 4), (4, 6), (7, 9)]
    assert fractional_bounds(11, 5, 0.9, None) == [(0, 2), (2, 4), (4, 6), (6, 8), (8, 11)]
    pyir.seed(1)
    x = RNG.standard_normal((1, 2, 9, 7)).astype("float32")
    y = nn.FractionalMaxPool2D([4, 3])(pyir.to_tensor(x)).numpy()
    assert y.shape == (1, 2, 4, 3) and np.all(np.isin(y, x))
    with pytest.raises(BuildError, match=r"random_u must be in \(0, 1\)"):
        nn.FractionalMaxPool2D(2, random_u=1.5)
    with pytest.raises(BuildError, match="larger than the input"):
        nn.FractionalMaxPool2D([12, 2], random_u=0.5)(pyir.to_tensor(x))
