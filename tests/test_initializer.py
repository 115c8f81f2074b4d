"""pyir.nn.initializer and ParamAttr: the startup ops each initializer emits in static mode
(types and attributes as Paddle 3.3.1 emits them), the values it gives eagerly and when the
startup program runs, ParamAttr's options, the global initializer, and refusals. Literals
marked "Paddle 3.3.1" were produced by Paddle 3.3.1 on the same calls."""

import math

import numpy as np
import pytest

import pyir
from pyir.errors import BuildError
from pyir.executor import Executor
from pyir.layer_helper import create_parameter
from pyir.nn import initializer as I

SHAPE = [2, 3, 2, 2]


@pytest.fixture
def eager():
    pyir.disable_static()


def _static_param(init, shape=SHAPE, dtype="float32"):
    main, startup = pyir.static.Program(), pyir.static.Program()
    with pyir.static.program_guard(main, startup):
        param = create_parameter(shape, dtype, pyir.ParamAttr(initializer=init),
                                 name_stem="create_parameter_0")
    return param, startup


def _eager_value(init, shape=SHAPE, dtype="float32"):
    pyir.disable_static()
    return create_parameter(shape, dtype, pyir.ParamAttr(initializer=init)).numpy()


# Paddle 3.3.1, the startup op of a [2, 3, 2, 2] float32 parameter:
ONE_OP_CASES = [
    (I.Constant(0.5), "fill_constant", {"value": 0.5, "str_value": "0.5", "dtype": 5}),
    (I.Normal(1.0, 2.0), "gaussian_random", {"mean": 1.0, "std": 2.0, "seed": 0}),
    (I.TruncatedNormal(0.0, 2.0, -3.0, 3.0), "truncated_gaussian_random",
     {"mean": 0.0, "std": 2.0, "a": -3.0, "b": 3.0, "seed": 0}),
    (I.Uniform(-2, 3), "uniform_random", {"min": -2.0, "max": 3.0, "seed": 0, "diag_num": 0}),
    (I.XavierNormal(), "gaussian_random", {"mean": 0.0, "std": 0.3162277638912201}),
    (I.XavierUniform(), "uniform_random", {"min": -0.547722578048706, "max": 0.547722578048706}),
    (I.KaimingNormal(), "gaussian_random", {"mean": 0.0, "std": 0.40824830532073975}),
    (I.KaimingUniform(), "uniform_random", {"min": -0.7071067690849304,
                                            "max": 0.7071067690849304}),
]


@pytest.mark.parametrize("init,op_type,attrs", ONE_OP_CASES,
                         ids=[type(c[0]).__name__ for c in ONE_OP_CASES])
def test_static_startup_op_matches_paddle(init, op_type, attrs):
    param, startup = _static_param(init)
    (op,) = startup.global_block().ops
    assert op.type == op_type and op.output("Out") == [param.name]
    assert list(op.attr("shape")) == SHAPE
    for key, value in attrs.items():
        want = value if isinstance(value, str) else pytest.approx(value, rel=1e-6)
        assert op.attr(key) == want, key


@pytest.mark.parametrize("init,op_type,attrs", [
    # Paddle 3.3.1, a [4, 6] parameter
    (I.KaimingNormal(mode="fan_out", nonlinearity="leaky_relu", negative_slope=0.2),
     "gaussian_random", {"std": 0.566138505935669}),
    (I.XavierUniform(gain=2.0), "uniform_random", {"max": 1.5491933822631836}),
    (I.KaimingUniform(fan_in=10), "uniform_random", {"max": 0.7745966911315918}),
], ids=["kaiming_fan_out", "xavier_gain", "kaiming_fan_in"])
def test_static_fans_and_gains_match_paddle(init, op_type, attrs):
    _, startup = _static_param(init, [4, 6])
    (op,) = startup.global_block().ops
    assert op.type == op_type
    for key, value in attrs.items():
        assert op.attr(key) == pytest.approx(value, rel=1e-6)


def test_static_value_initializers_emit_assign_value():
    values = np.arange(24, dtype="float32").reshape(SHAPE)
    param, startup = _static_param(I.Assign(values))
    (op,) = startup.global_block().ops
    assert op.type == "assign_value" and op.attr("values") == list(range(24))  # Paddle 3.3.1
    _, startup = _static_param(I.Dirac(), [3, 1, 2, 2])
    # Paddle 3.3.1: zeros, flatten, scatter ones at the centre taps, reshape back
    assert [op.type for op in startup.global_block().ops] == [
        "fill_constant", "reshape2", "assign_value", "assign_value", "scatter", "reshape2"]
    assert startup.global_block().ops[2].attr("values") == [3]
    assert startup.global_block().ops[4].attr("overwrite") is True


@pytest.mark.parametrize("init,shape,expected", [
    (I.Constant(-1.5), [2, 2], np.full((2, 2), -1.5)),
    (I.Assign(np.arange(6).reshape(2, 3)), [2, 3], np.arange(6).reshape(2, 3)),
    (I.Assign([1.0, 2.0, 3.0]), [3], [1.0, 2.0, 3.0]),
    (I.Assign([[1, 2], [3, 4]]), [4], [1, 2, 3, 4]),  # same size, reshaped
    # Paddle 3.3.1 values:
    (I.Bilinear(), [1, 1, 4, 4], np.array([
        0.0625, 0.28125, 0.375, 0.15625, 0.1875, 0.65625, 0.75, 0.21875, 0.1875, 0.46875,
        0.375, 0.09375, 0.0625, 0.09375, 0.0, -0.03125]).reshape(1, 1, 4, 4)),
], ids=["Constant", "Assign_numpy", "Assign_list", "Assign_reshape", "Bilinear"])
def test_exact_values_eager_and_static(init, shape, expected):
    np.testing.assert_allclose(_eager_value(init, shape), expected)
    pyir.enable_static()
    param, startup = _static_param(init, shape)
    Executor().run(startup)
    np.testing.assert_allclose(pyir.static.global_scope()[param.name], expected)


def test_assign_from_a_tensor_sets_exact_values(eager):
    value = np.random.default_rng(0).standard_normal((3, 4)).astype("float32")
    fc = pyir.nn.Linear(3, 4, weight_attr=pyir.ParamAttr(
        initializer=I.Assign(pyir.to_tensor(value))))
    np.testing.assert_array_equal(fc.weight.numpy(), value)


@pytest.mark.parametrize("shape,groups,ones", [
    ([3, 1, 2, 2], 1, [(0, 0, 1, 1)]),
    ([2, 3, 3], 2, [(0, 0, 1), (1, 0, 1)]),  # Paddle 3.3.1: np.argwhere of its value
    ([4, 4, 3, 3, 3], 1, [(i, i, 1, 1, 1) for i in range(4)]),
])
def test_dirac_eager_and_static(shape, groups, ones):
    expected = np.zeros(shape)
    for idx in ones:
        expected[idx] = 1
    np.testing.assert_array_equal(_eager_value(I.Dirac(groups), shape), expected)
    pyir.enable_static()
    param, startup = _static_param(I.Dirac(groups), shape)
    Executor().run(startup)
    np.testing.assert_array_equal(pyir.static.global_scope()[param.name], expected)


def test_dirac_conv_passes_input_through(eager):
    x = np.random.default_rng(0).standard_normal((1, 3, 5, 5)).astype("float32")
    conv = pyir.nn.Conv2D(3, 3, 3, padding=1, weight_attr=I.Dirac(), bias_attr=False)
    np.testing.assert_allclose(conv(pyir.to_tensor(x)).numpy(), x, atol=1e-6)


@pytest.mark.parametrize("init,low,high,mean,std", [
    (I.Uniform(-2.0, 3.0), -2.0, 3.0, 0.5, 5 / math.sqrt(12)),
    (I.Normal(1.0, 2.0), -math.inf, math.inf, 1.0, 2.0),
    (I.XavierUniform(), -math.sqrt(6 / 400), math.sqrt(6 / 400), 0.0, math.sqrt(2 / 400)),
    (I.KaimingNormal(), -math.inf, math.inf, 0.0, math.sqrt(2 / 200)),
    (I.TruncatedNormal(5.0, 1.0, 3.0, 7.0), 3.0, 7.0, 5.0, 0.8796),  # std of N cut at 2 sigma
], ids=["Uniform", "Normal", "XavierUniform", "KaimingNormal", "TruncatedNormal"])
def test_random_initializer_statistics(eager, init, low, high, mean, std):
    pyir.seed(5)
    value = _eager_value(init, [200, 200])
    assert value.min() >= low and value.max() <= high
    assert value.mean() == pytest.approx(mean, abs=0.02)
    assert value.std() == pytest.approx(std, rel=0.03)
    pyir.enable_static()
    param, startup = _static_param(init, [200, 200])
    Executor().run(startup)
    static = pyir.static.global_scope()[param.name]
    assert static.min() >= low and static.max() <= high
    assert static.std() == pytest.approx(std, rel=0.03)


@pytest.mark.parametrize("shape,gain", [([3, 5], 1.0), ([6, 2], 2.0), ([4, 2, 3], 0.5)])
def test_orthogonal_rows_or_columns_are_orthonormal(eager, shape, gain):
    w = _eager_value(I.Orthogonal(gain), shape).reshape(shape[0], -1).astype("float64")
    small = w @ w.T if w.shape[0] <= w.shape[1] else w.T @ w
    np.testing.assert_allclose(small, gain ** 2 * np.eye(len(small)), atol=1e-5)
    pyir.enable_static()
    param, startup = _static_param(I.Orthogonal(gain), shape)
    Executor().run(startup)
    w = pyir.static.global_scope()[param.name].reshape(shape[0], -1).astype("float64")
    small = w @ w.T if w.shape[0] <= w.shape[1] else w.T @ w
    np.testing.assert_allclose(small, gain ** 2 * np.eye(len(small)), atol=1e-5)


def test_calculate_gain_matches_paddle():
    names = ["sigmoid", "linear", "conv2d", "tanh", "relu", "leaky_relu", "selu"]
    # Paddle 3.3.1:
    assert [I.calculate_gain(n) for n in names] == pytest.approx(
        [1, 1, 1, 1.6666666666666667, 1.4142135623730951, 1.4141428569978354, 0.75])
    assert I.calculate_gain("leaky_relu", 0.2) == pytest.approx(1.3867504905630728)
    with pytest.raises(BuildError, match="unknown nonlinearity 'swish'"):
        I.calculate_gain("swish")


def test_global_initializer_and_precedence(eager):
    I.set_global_initializer(I.Constant(2.0), I.Constant(-1.0))
    try:
        fc = pyir.nn.Linear(2, 3)
        assert np.all(fc.weight.numpy() == 2) and np.all(fc.bias.numpy() == -1)
        # the ParamAttr's own initializer wins over the global one
        fc = pyir.nn.Linear(2, 3, weight_attr=I.Constant(5.0))
        assert np.all(fc.weight.numpy() == 5)
        # the global one wins over a layer's default (BatchNorm's ones)
        assert np.all(pyir.nn.LayerNorm(3).weight.numpy() == 2)
    finally:
        I.set_global_initializer(None)
    assert np.all(pyir.nn.Linear(2, 3).bias.numpy() == 0)
    with pytest.raises(BuildError, match="weight_init must be an Initializer"):
        I.set_global_initializer("uniform")


def test_param_attr_options(eager):
    attr = pyir.ParamAttr(name="my_w", initializer=I.Constant(1.0), learning_rate=0.5,
                          regularizer="L2", trainable=False, need_clip=False)
    fc = pyir.nn.Linear(2, 3, weight_attr=attr, bias_attr=False)
    assert fc.weight.name == "my_w" and fc.bias is None
    assert fc.weight.stop_gradient and not fc.weight.trainable
    assert fc.weight.optimize_attr == {"learning_rate": 0.5}
    assert fc.weight.regularizer == "L2" and fc.weight.need_clip is False
    assert list(fc.state_dict()) == ["weight"]
    y = fc(pyir.to_tensor(np.ones((1, 2), "float32"), stop_gradient=False)).sum()
    y.backward()
    assert fc.weight.grad is None  # not trainable: no gradient
    fc.weight.trainable = True
    assert not fc.weight.stop_gradient
    named = pyir.nn.Linear(2, 3, weight_attr="named_w", bias_attr=I.Constant(3.0))
    assert named.weight.name == "named_w" and np.all(named.bias.numpy() == 3)


def test_static_param_attr_and_duplicate_names():
    main, startup = pyir.static.Program(), pyir.static.Program()
    with pyir.static.program_guard(main, startup):
        fc = pyir.nn.Linear(2, 3, weight_attr=pyir.ParamAttr(name="w", trainable=False))
        assert fc.weight.stop_gradient and fc.weight.persistable
        with pytest.raises(BuildError, match="parameter 'w' already exists"):
            pyir.nn.Linear(2, 3, weight_attr="w")


def test_old_initializer_names(eager):
    assert isinstance(I.NormalInitializer(1.0, 2.0), I.Normal)
    assert I.NormalInitializer(1.0, 2.0).std == 2.0
    assert isinstance(I.MSRAInitializer(uniform=False), I.KaimingNormal)
    assert isinstance(I.XavierInitializer(uniform=False), I.XavierNormal)
    assert I.TruncatedNormalInitializer(0.0, 1.0, a=-1.0, b=1.0).b == 1.0
    assert I.UniformInitializer(-3, 3).high == 3.0
    assert I.NumpyArrayInitializer is I.Assign
    assert I.ConstantInitializer(4.0).value == 4.0


@pytest.mark.parametrize("call,match", [
    (lambda: _eager_value(I.Assign(np.zeros(5)), [2, 3]), "value has 5 elements"),
    (lambda: _eager_value(I.Dirac(), [3, 3]), "3-D, 4-D or 5-D"),
    (lambda: _eager_value(I.Dirac(groups=2), [3, 1, 3, 3]), "not divisible by groups 2"),
    (lambda: _eager_value(I.Orthogonal(), [4]), "at least 2 dimensions"),
    (lambda: _eager_value(I.Bilinear(), [1, 1, 2, 3]), "square kernels"),
    (lambda: I.Uniform(2.0, 1.0), "low 2.0 is larger than high 1.0"),
    (lambda: I.Normal(0.0, -1.0), "std must be >= 0"),
    (lambda: I.TruncatedNormal(a=1.0, b=1.0), r"a \(1.0\) must be below b"),
    (lambda: I.KaimingNormal(mode="fan_avg"), "mode must be 'fan_in' or 'fan_out'"),
    (lambda: I.Constant("x"), "value must be a number"),
    (lambda: pyir.ParamAttr(initializer="xavier"), "must be a pyir.nn.initializer"),
    (lambda: pyir.ParamAttr(learning_rate=-1), "learning_rate must be a number >= 0"),
    (lambda: pyir.nn.Linear(2, 3, weight_attr=3), "expected a ParamAttr"),
    (lambda: create_parameter([2, -1], "float32"), "must be known"),
    (lambda: I.Constant(1.0)(np.zeros(3)), "expected a static Variable or an eager Tensor"),
])
def test_refusals(eager, call, match):
    with pytest.raises(BuildError, match=match):
        call()


def test_forward_and_init_spellings():
    main, startup = pyir.static.Program(), pyir.static.Program()
    var = startup.global_block().create_var("v", "float32", [2], persistable=True)
    I.Constant(3.0).init(var, startup.global_block())
    I.Constant(4.0).forward(var)  # the default block: the default startup program's
    assert [op.type for op in startup.global_block().ops] == ["fill_constant"]
    Executor().run(startup)
    np.testing.assert_array_equal(pyir.static.global_scope()["v"], [3.0, 3.0])
    pyir.disable_static()
    t = pyir.to_tensor(np.zeros(3, "float32"))
    I.Constant(2.0).forward(t)
    np.testing.assert_array_equal(t.numpy(), [2.0, 2.0, 2.0])
