"""The builder API: functions on variables, Variable operators, nn layers and fluid layers.

Each test checks what gets built (op types, attributes, names, inferred shapes) against what
Paddle 3.3.1 emits for the same call, and runs the program to check the values with numpy.
"""

import numpy as np
import pytest

import pyir
import pyir.fluid as fluid
from pyir import framework
from pyir.errors import BuildError
from pyir.executor import Executor

X = np.random.default_rng(1).uniform(0.5, 2.0, (2, 3, 4)).astype(np.float32)
Y = np.random.default_rng(2).uniform(0.5, 2.0, (2, 3, 4)).astype(np.float32)
W = np.random.default_rng(3).uniform(-1.0, 1.0, (4, 5)).astype(np.float32)


def _inputs():
    x = pyir.static.data("x", [None, 3, 4], "float32")
    y = pyir.static.data("y", [2, 3, 4], "float32")
    w = pyir.static.data("w", [4, 5], "float32")
    return x, y, w


def _run(*fetch, feed=None):
    feed = {"x": X, "y": Y, "w": W} if feed is None else feed
    main = pyir.static.default_main_program()
    feed = {k: v for k, v in feed.items() if k in main.global_block().vars}
    return Executor().run(main, feed=feed, fetch_list=list(fetch))


def _ops():
    return [op.type for op in pyir.static.default_main_program().global_block().ops]


def _last_op():
    return pyir.static.default_main_program().global_block().ops[-1]


# --- operators ----------------------------------------------------------------------------------
OPERATOR_CASES = [
    # (expression, op types Paddle emits, attributes of the last op, numpy reference)
    (lambda x, y: x * 2.0, ["scale"], {"scale": 2.0, "bias": 0.0}, lambda x, y: x * 2),
    (lambda x, y: 2 * x, ["scale"], {"scale": 2.0, "bias": 0.0}, lambda x, y: 2 * x),
    (lambda x, y: x + 1, ["scale"], {"scale": 1.0, "bias": 1.0}, lambda x, y: x + 1),
    (lambda x, y: 3 + x, ["scale"], {"scale": 1.0, "bias": 3.0}, lambda x, y: 3 + x),
    (lambda x, y: x - 1, ["scale"], {"scale": 1.0, "bias": -1.0}, lambda x, y: x - 1),
    (lambda x, y: 1 - x, ["scale"], {"scale": -1.0, "bias": 1.0}, lambda x, y: 1 - x),
    (lambda x, y: x / 2, ["scale"], {"scale": 0.5}, lambda x, y: x / 2),
    (lambda x, y: -x, ["scale"], {"scale": -1.0, "bias": 0.0}, lambda x, y: -x),
    (lambda x, y: x ** 2, ["fill_constant", "elementwise_pow"], {"axis": -1},
     lambda x, y: x ** 2),
    (lambda x, y: 2 / x, ["fill_constant_batch_size_like", "elementwise_div"], {"axis": -1},
     lambda x, y: 2 / x),
    (lambda x, y: 2 ** x, ["fill_constant_batch_size_like", "elementwise_pow"], {},
     lambda x, y: 2 ** x),
    (lambda x, y: 2 / y, ["fill_constant", "elementwise_div"], {}, lambda x, y: 2 / y),
    (lambda x, y: x // 0.5, ["fill_constant", "elementwise_floordiv"], {},
     lambda x, y: x // 0.5),
    (lambda x, y: x % 0.5, ["fill_constant", "elementwise_mod"], {}, lambda x, y: x % 0.5),
    (lambda x, y: x + y, ["elementwise_add"], {"axis": -1}, lambda x, y: x + y),
    (lambda x, y: x - y, ["elementwise_sub"], {}, lambda x, y: x - y),
    (lambda x, y: x * y, ["elementwise_mul"], {}, lambda x, y: x * y),
    (lambda x, y: x / y, ["elementwise_div"], {}, lambda x, y: x / y),
    (lambda x, y: x ** y, ["elementwise_pow"], {}, lambda x, y: x ** y),
]


@pytest.mark.parametrize("expr, op_types, attrs, reference", OPERATOR_CASES,
                         ids=[f"op{i}" for i in range(len(OPERATOR_CASES))])
def test_operator_builds_paddles_ops_and_computes(expr, op_types, attrs, reference):
    x, y, _ = _inputs()
    out = expr(x, y)
    assert _ops() == op_types
    assert {k: _last_op().attrs[k] for k in attrs} == attrs
    assert out.name.startswith("tmp_") and out.shape in {(-1, 3, 4), (2, 3, 4)}
    (value,) = _run(out)
    assert value.dtype == np.float32
    np.testing.assert_allclose(value, reference(X, Y), rtol=1e-5)


def test_matmul_operator_and_names():
    x, _, w = _inputs()
    out = x @ w
    assert _ops() == ["matmul_v2"] and out.name == "tmp_0" and out.shape == (-1, 3, 5)
    (value,) = _run(out)
    np.testing.assert_allclose(value, X @ W, rtol=1e-5)


@pytest.mark.parametrize("expr, op_types, dtype, reference", [
    (lambda i: i / 2, ["cast", "scale"], np.float32, [0.5, 1.0, 2.5]),
    (lambda i: i * 2.5, ["cast", "scale"], np.float32, [2.5, 5.0, 12.5]),
    (lambda i: i + 1.5, ["cast", "scale"], np.float32, [2.5, 3.5, 6.5]),
    (lambda i: i * 2, ["scale"], np.int64, [2, 4, 10]),
])
def test_integer_operands_follow_paddles_promotion(expr, op_types, dtype, reference):
    i = pyir.static.data("i", [3], "int64")
    out = expr(i)
    assert out.dtype == dtype and _ops() == op_types
    (value,) = _run(out, feed={"i": np.array([1, 2, 5])})
    assert value.dtype == dtype
    np.testing.assert_allclose(value, reference)


def test_operator_with_unsupported_operand_is_a_type_error():
    x, _, _ = _inputs()
    with pytest.raises(TypeError):
        x + "a"


# --- functions ----------------------------------------------------------------------------------
def test_function_names_follow_paddle():
    x, y, w = _inputs()
    assert pyir.tanh(x).name == "tanh_0.tmp_0"
    assert pyir.tanh(x).name == "tanh_1.tmp_0"
    assert pyir.mean(x).name == "mean_0.tmp_0"
    assert pyir.exp(x, name="foo").name == "foo.tmp_0"
    assert pyir.full_like(x, 1.0).name == "full_like_0.tmp_0"
    assert pyir.transpose(x, [0, 2, 1]).name == "transpose_0.tmp_0"
    assert pyir.squeeze(x).name == "squeeze_0.tmp_0"
    assert pyir.full([2], 1.0).name == "fill_constant_1.tmp_0"  # Paddle skips _0
    assert pyir.nn.functional.softmax(x, dtype="float64").name == "softmax_0.tmp_1"


FUNCTION_CASES = [
    # (build(x, y, w), op type, numpy reference(x, y, w))
    (lambda x, y, w: pyir.matmul(x, w), "matmul_v2", lambda x, y, w: x @ w),
    (lambda x, y, w: pyir.matmul(x, y, transpose_y=True), "matmul_v2",
     lambda x, y, w: x @ np.swapaxes(y, -1, -2)),
    (lambda x, y, w: pyir.add(x, y), "elementwise_add", lambda x, y, w: x + y),
    (lambda x, y, w: pyir.subtract(x, y), "elementwise_sub", lambda x, y, w: x - y),
    (lambda x, y, w: pyir.multiply(x, y), "elementwise_mul", lambda x, y, w: x * y),
    (lambda x, y, w: pyir.divide(x, y), "elementwise_div", lambda x, y, w: x / y),
    (lambda x, y, w: pyir.pow(x, 3.0), "pow", lambda x, y, w: x ** 3),
    (lambda x, y, w: pyir.pow(x, y), "elementwise_pow", lambda x, y, w: x ** y),
    (lambda x, y, w: pyir.scale(x, 2.0, 1.0), "scale", lambda x, y, w: 2 * x + 1),
    (lambda x, y, w: pyir.sqrt(x), "sqrt", lambda x, y, w: np.sqrt(x)),
    (lambda x, y, w: pyir.log(x), "log", lambda x, y, w: np.log(x)),
    (lambda x, y, w: pyir.square(x), "square", lambda x, y, w: x * x),
    (lambda x, y, w: pyir.abs(x), "abs", lambda x, y, w: np.abs(x)),
    (lambda x, y, w: pyir.sigmoid(x), "sigmoid", lambda x, y, w: 1 / (1 + np.exp(-x))),
    (lambda x, y, w: pyir.mean(x, axis=1), "reduce_mean", lambda x, y, w: x.mean(1)),
    (lambda x, y, w: pyir.sum(x, axis=[0, 2], keepdim=True), "reduce_sum",
     lambda x, y, w: x.sum((0, 2), keepdims=True)),
    (lambda x, y, w: pyir.sum(x), "reduce_sum", lambda x, y, w: np.asarray(x.sum(), x.dtype)),
    (lambda x, y, w: pyir.max(x, axis=-1), "reduce_max", lambda x, y, w: x.max(-1)),
    (lambda x, y, w: pyir.min(x), "reduce_min", lambda x, y, w: np.asarray(x.min())),
    (lambda x, y, w: pyir.reshape(x, [0, 12]), "reshape2", lambda x, y, w: x.reshape(2, 12)),
    (lambda x, y, w: pyir.transpose(x, [2, 0, 1]), "transpose2",
     lambda x, y, w: x.transpose(2, 0, 1)),
    (lambda x, y, w: pyir.concat([x, y], axis=1), "concat",
     lambda x, y, w: np.concatenate([x, y], 1)),
    (lambda x, y, w: pyir.split(x, [1, 3], axis=2)[1], "split", lambda x, y, w: x[..., 1:]),
    (lambda x, y, w: pyir.stack([x, y], axis=1), "stack", lambda x, y, w: np.stack([x, y], 1)),
    (lambda x, y, w: pyir.unsqueeze(x, 1), "unsqueeze2", lambda x, y, w: x[:, None]),
    (lambda x, y, w: pyir.squeeze(pyir.unsqueeze(x, 0), 0), "squeeze2", lambda x, y, w: x),
    (lambda x, y, w: pyir.cast(x, "float64"), "cast", lambda x, y, w: x.astype(np.float64)),
    (lambda x, y, w: pyir.assign(x), "assign", lambda x, y, w: x),
    (lambda x, y, w: pyir.clip(x, 0.8, 1.5), "clip", lambda x, y, w: np.clip(x, 0.8, 1.5)),
    (lambda x, y, w: pyir.clip(x, max=1.0), "clip", lambda x, y, w: np.minimum(x, 1.0)),
    (lambda x, y, w: pyir.slice(x, [1, 2], [1, 0], [3, -1]), "slice",
     lambda x, y, w: x[:, 1:3, 0:-1]),
    (lambda x, y, w: pyir.full_like(x, 2.5), "fill_any_like", lambda x, y, w: np.full_like(x, 2.5)),
    (lambda x, y, w: pyir.ones_like(x, "int64"), "fill_any_like",
     lambda x, y, w: np.ones(x.shape, np.int64)),
    (lambda x, y, w: pyir.zeros_like(x), "fill_any_like", lambda x, y, w: np.zeros_like(x)),
    (lambda x, y, w: pyir.full([2, 3], 1.5), "fill_constant",
     lambda x, y, w: np.full((2, 3), 1.5, np.float32)),
    (lambda x, y, w: pyir.ones([3], "int64"), "fill_constant",
     lambda x, y, w: np.ones(3, np.int64)),
    (lambda x, y, w: pyir.zeros([2]), "fill_constant", lambda x, y, w: np.zeros(2, np.float32)),
    (lambda x, y, w: pyir.add_n([x, y, x]), "sum", lambda x, y, w: x + y + x),
    (lambda x, y, w: pyir.nn.functional.relu(x - 1), "relu",
     lambda x, y, w: np.maximum(x - 1, 0)),
    (lambda x, y, w: pyir.nn.functional.softmax(x, axis=1), "softmax",
     lambda x, y, w: np.exp(x) / np.exp(x).sum(1, keepdims=True)),
    (lambda x, y, w: pyir.nn.functional.log_softmax(x), "log_softmax",
     lambda x, y, w: x - np.log(np.exp(x).sum(-1, keepdims=True))),
]


@pytest.mark.parametrize("build, op_type, reference", FUNCTION_CASES,
                         ids=[f"{c[1]}-{i}" for i, c in enumerate(FUNCTION_CASES)])
def test_function_builds_op_infers_shape_and_computes(build, op_type, reference):
    x, y, w = _inputs()
    out = build(x, y, w)
    assert _last_op().type == op_type
    (value,) = _run(out)
    expected = reference(X, Y, W)
    assert value.dtype == expected.dtype
    assert len(out.shape) == value.ndim
    assert all(d in (-1, a) for d, a in zip(out.shape, value.shape)), (out.shape, value.shape)
    np.testing.assert_allclose(value, expected, rtol=1e-5, atol=1e-6)


def test_gather_with_index_variable():
    x, _, _ = _inputs()
    idx = pyir.static.data("idx", [2], "int64")
    out = pyir.gather(x, idx, axis=1)
    assert out.shape == (-1, 2, 4)
    (value,) = _run(out, feed={"x": X, "idx": np.array([2, 0])})
    np.testing.assert_array_equal(value, X[:, [2, 0]])


def test_random_creation_is_seeded_and_shaped():
    u = pyir.uniform([50, 4], min=-2.0, max=3.0, seed=5)
    n = pyir.randn([3, 2])
    assert _ops() == ["uniform_random", "gaussian_random"]
    a, b = _run(u, n, feed={})
    assert a.shape == (50, 4) and a.min() >= -2.0 and a.max() < 3.0 and b.shape == (3, 2)
    (again,) = _run(u, feed={})
    np.testing.assert_array_equal(a, again)


def test_assign_into_output():
    x, _, _ = _inputs()
    target = pyir.static.default_main_program().current_block().create_var(
        "target", "float32", [-1, 3, 4])
    assert pyir.assign(x, output=target) is target
    (value,) = _run(target)
    np.testing.assert_array_equal(value, X)


def test_sum_of_int32_is_int64():
    i = pyir.static.data("i", [3], "int32")
    out = pyir.sum(i)
    assert out.dtype == np.int64
    (value,) = _run(out, feed={"i": np.array([1, 2, 3], np.int32)})
    assert value.dtype == np.int64 and value == 6


# --- errors -------------------------------------------------------------------------------------
ERROR_CASES = [
    (lambda x, w: pyir.matmul(x, x), "matmul_v2"),
    (lambda x, w: pyir.reshape(x, "12"), "reshape2"),
    (lambda x, w: pyir.reshape(x, [5, 7]), "reshape2"),
    (lambda x, w: pyir.transpose(x, [0, 0, 1]), "transpose2"),
    (lambda x, w: pyir.split(w, 3, axis=1), "split"),
    (lambda x, w: pyir.concat(x), "concat"),
    (lambda x, w: pyir.slice(x, [1], [0, 1], [2]), "slice"),
    (lambda x, w: pyir.add(x, np.ones(4, np.float32)), "elementwise_add"),
    (lambda x, w: pyir.tanh(np.ones(3)), "tanh"),
    (lambda x, w: pyir.nn.functional.cross_entropy(x, w, reduction="avg"),
     "softmax_with_cross_entropy"),
]


@pytest.mark.parametrize("build, op_type", ERROR_CASES,
                         ids=[f"{c[1]}-{i}" for i, c in enumerate(ERROR_CASES)])
def test_bad_arguments_raise_build_error_naming_the_op(build, op_type):
    x, _, w = _inputs()
    with pytest.raises(BuildError) as info:
        build(x, w)
    assert op_type in str(info.value)


# --- dispatch -----------------------------------------------------------------------------------
def test_no_variable_inputs_outside_static_mode_run_eagerly(monkeypatch):
    calls = []

    def fake_run_op(op_type, inputs, attrs):
        calls.append((op_type, inputs, attrs))
        return {"Out": "eager-result"}

    import pyir.eager

    monkeypatch.setattr(pyir.eager, "run_op", fake_run_op, raising=False)
    framework.static_mode[0] = False
    t = object()
    assert pyir.tanh(t) == "eager-result"
    assert pyir.full([2], 3.0) == "eager-result"
    assert [c[0] for c in calls] == ["tanh", "fill_constant"]
    assert calls[0][1] == {"X": t} and calls[1][2]["shape"] == [2]
    assert pyir.static.default_main_program().global_block().ops == []


def test_variable_inputs_build_even_outside_static_mode():
    x, _, _ = _inputs()
    framework.static_mode[0] = False
    assert pyir.tanh(x).name == "tanh_0.tmp_0" and _ops() == ["tanh"]


# --- nn layers ------------------------------------------------------------------------------------
def test_linear_builds_matmul_v2_and_add_with_named_parameters():
    x = pyir.static.data("x", [None, 4], "float32")
    fc = pyir.nn.Linear(4, 3)
    out = fc(x)
    assert _ops() == ["matmul_v2", "elementwise_add"]
    assert _last_op().attrs["axis"] == -1
    assert (fc.weight.name, fc.bias.name) == ("linear_0.w_0", "linear_0.b_0")
    assert out.name == "linear_0.tmp_1" and out.shape == (-1, 3)
    startup = pyir.static.default_startup_program().global_block().ops
    assert [op.type for op in startup] == ["uniform_random", "fill_constant"]
    assert pyir.nn.Linear(3, 2).weight.name == "linear_1.w_0"
    exe = Executor()
    exe.run(pyir.static.default_startup_program())
    scope = pyir.static.global_scope()
    xv = np.ones((2, 4), np.float32)
    (value,) = exe.run(feed={"x": xv}, fetch_list=[out])
    np.testing.assert_allclose(value, xv @ scope["linear_0.w_0"] + scope["linear_0.b_0"],
                               rtol=1e-6)


def _ce_setup(label_shape):
    logits = pyir.static.data("logits", [None, 5], "float32")
    label = pyir.static.data("label", label_shape, "int64")
    lv = np.array([1, 4, 0], np.int64).reshape([3] + [1] * (len(label_shape) - 1))
    lg = np.random.default_rng(4).normal(size=(3, 5)).astype(np.float32)
    logp = lg - lg.max(1, keepdims=True)
    logp = logp - np.log(np.exp(logp).sum(1, keepdims=True))
    per_row = -logp[np.arange(3), lv.reshape(-1)]
    return logits, label, {"logits": lg, "label": lv}, per_row


def test_cross_entropy_loss_emits_paddles_sequence():
    logits, label, feed, per_row = _ce_setup([None])
    loss = pyir.nn.CrossEntropyLoss()(logits, label)
    assert _ops() == ["unsqueeze2", "softmax_with_cross_entropy", "reduce_mean"]
    assert loss.name == "mean_0.tmp_0" and loss.shape == ()
    swce = pyir.static.default_main_program().global_block().ops[1]
    assert swce.attrs["use_softmax"] is True and swce.attrs["ignore_index"] == -100
    (value,) = _run(loss, feed=feed)
    np.testing.assert_allclose(value, per_row.mean(), rtol=1e-5)


@pytest.mark.parametrize("reduction, tail, reference", [
    ("sum", ["reduce_sum"], lambda r: r.sum()),
    ("none", [], lambda r: r.reshape(3, 1)),
])
def test_cross_entropy_reductions(reduction, tail, reference):
    logits, label, feed, per_row = _ce_setup([None, 1])
    loss = pyir.nn.functional.cross_entropy(logits, label, reduction=reduction)
    assert _ops() == ["softmax_with_cross_entropy"] + tail
    (value,) = _run(loss, feed=feed)
    np.testing.assert_allclose(value, reference(per_row), rtol=1e-5)


def test_cross_entropy_mean_leaves_out_ignored_labels():
    logits, label, feed, per_row = _ce_setup([None, 1])
    loss = pyir.nn.loss.CrossEntropyLoss(ignore_index=4)(logits, label)
    (value,) = _run(loss, feed=feed)
    np.testing.assert_allclose(value, per_row[[0, 2]].mean(), rtol=1e-5)


# --- fluid ----------------------------------------------------------------------------------------
def test_fluid_data_prepends_batch_dim():
    assert fluid.layers.data("a", [4]).shape == (-1, 4)
    assert fluid.layers.data("b", [-1, 4]).shape == (-1, 4)
    assert fluid.layers.data("c", [4], append_batch_size=False).shape == (4,)
    assert fluid.layers.data("d", [1], dtype="int64").dtype == np.int64


def test_fluid_layers_build_seed_000s_ops():
    img = fluid.layers.data("img", [4])
    label = fluid.layers.data("label", [1], dtype="int64")
    prediction = fluid.layers.fc(img, size=10, act="softmax")
    loss = fluid.layers.cross_entropy(input=prediction, label=label)
    avg = fluid.layers.mean(loss)
    assert _ops() == ["mul", "elementwise_add", "softmax", "cross_entropy2", "mean"]
    assert loss.shape == (-1, 1) and avg.shape == () and avg.name == "mean_0.tmp_0"
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    iv = np.random.default_rng(5).random((2, 4)).astype(np.float32)
    lv = np.array([[3], [7]], np.int64)
    p, value = exe.run(fluid.default_main_program(), feed={"img": iv, "label": lv},
                       fetch_list=[prediction, avg])
    np.testing.assert_allclose(value, -np.log(p[[0, 1], [3, 7]]).mean(), rtol=1e-5)


def test_fluid_programs_and_guard():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        fluid.layers.fc(fluid.layers.data("z", [3]), size=2)
        assert fluid.default_main_program() is main
    assert [p.name for p in main.all_parameters()] == ["fc_0.w_0", "fc_0.b_0"]
    assert len(startup.global_block().ops) == 2


def test_fluid_cross_entropy_rejects_soft_label():
    p = fluid.layers.data("p", [3])
    with pytest.raises(BuildError, match="cross_entropy2"):
        fluid.layers.cross_entropy(p, p, soft_label=True)


def test_numpy_scalars_and_methods_on_variables():
    x, _, _ = _inputs()
    a = np.float32(2.0) * x
    b = x.mean(axis=1)
    c = x.astype("float64")
    d = x.reshape([-1, 12]).tanh()
    assert _ops() == ["scale", "reduce_mean", "cast", "reshape2", "tanh"]
    assert c.dtype == np.float64 and d.shape == (-1, 12)
    va, vb, vd = _run(a, b, d)
    np.testing.assert_allclose(va, 2 * X, rtol=1e-6)
    np.testing.assert_allclose(vb, X.mean(1), rtol=1e-6)
    np.testing.assert_allclose(vd, np.tanh(X.reshape(2, 12)), rtol=1e-6)


def _logp(lg):
    z = lg - lg.max(1, keepdims=True)
    return z - np.log(np.exp(z).sum(1, keepdims=True))


@pytest.mark.parametrize("kwargs, reference", [
    ({"reduction": "none"}, lambda loss, w, keep: loss * w),
    ({}, lambda loss, w, keep: (loss * w).sum() / w.sum()),
    ({"ignore_index": 4}, lambda loss, w, keep: (loss * w * keep).sum() / (w * keep).sum()),
], ids=["none", "mean", "mean-ignore"])
def test_cross_entropy_class_weights(kwargs, reference):
    logits, label, feed, per_row = _ce_setup([None])
    weight = pyir.static.data("weight", [5], "float32")
    loss = pyir.nn.CrossEntropyLoss(weight=weight, **kwargs)(logits, label)
    assert "gather_nd" in _ops()
    wv = np.array([0.5, 2.0, 1.0, 1.5, 3.0], np.float32)
    (value,) = _run(loss, feed={**feed, "weight": wv})
    keep = feed["label"] != kwargs.get("ignore_index", -100)
    np.testing.assert_allclose(value, reference(per_row, wv[feed["label"]], keep), rtol=1e-5)


def test_cross_entropy_label_smoothing():
    logits, label, feed, _ = _ce_setup([None])
    loss = pyir.nn.functional.cross_entropy(logits, label, label_smoothing=0.2)
    assert _ops() == ["unsqueeze2", "squeeze2", "one_hot_v2", "label_smooth",
                      "softmax_with_cross_entropy", "reduce_mean"]
    (value,) = _run(loss, feed=feed)
    smooth = 0.8 * np.eye(5, dtype=np.float32)[feed["label"]] + 0.2 / 5
    np.testing.assert_allclose(value, -(smooth * _logp(feed["logits"])).sum(1).mean(), rtol=1e-5)
