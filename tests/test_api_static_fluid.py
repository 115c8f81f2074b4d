"""The legacy namespaces `pyir.fluid` / `pyir.base`: what Paddle's own py_func and
static_pylayer tests import and call (base.core.Scope, DataFeeder, compiler.CompiledProgram,
base.backward.append_backward, pir_utils), and the small fluid modules."""

import numpy as np
import pytest

import pyir as paddle
from pyir import base, fluid
from pyir.base import compiler, core
from pyir.base.backward import append_backward
from pyir.pir_utils import test_with_pir_api
from pyir.unsupported import UnsupportedError
from pyir.errors import PyirError


def tanh_grad(y, dy):
    return np.asarray(dy) * (1 - np.square(np.asarray(y)))


def nll(probs, labels):
    rows = np.arange(len(labels))
    return -np.log(probs[rows, labels[:, 0]])[:, None].astype(probs.dtype)


def nll_grad(probs, labels, dout):
    grad = np.zeros_like(probs)
    rows = np.arange(len(labels))
    grad[rows, labels[:, 0]] = -dout[:, 0] / probs[rows, labels[:, 0]]
    return grad, None


def reader():
    rng = np.random.RandomState(0)
    for _ in range(80):
        features = rng.random_sample([8])
        yield features, np.argmax(features[:4], keepdims=True)  # a learnable label


def train(use_py_func: bool, compiled: bool) -> np.ndarray:
    """The shape of Paddle's test_py_func_op: fc layers with tanh / cross entropy either as
    ops or as py_funcs with backward functions, trained with SGD through a DataFeeder."""
    with base.program_guard(base.Program(), base.Program()):
        with base.scope_guard(base.core.Scope()):
            paddle.seed(1)
            img = paddle.static.data(name="image", shape=[-1, 8], dtype="float32")
            label = paddle.static.data(name="label", shape=[-1, 1], dtype="int64")
            hidden = img
            for idx in range(2):
                hidden = paddle.static.nn.fc(hidden, size=6, bias_attr=base.ParamAttr(
                    initializer=fluid.initializer.Constant(1.0)))
                if use_py_func:
                    out = base.default_main_program().current_block().create_var(
                        name=f"hidden_{idx}", dtype="float32", shape=hidden.shape)
                    hidden = paddle.static.py_func(func=np.tanh, x=hidden, out=out,
                                                   backward_func=tanh_grad,
                                                   skip_vars_in_backward_input=hidden)
                else:
                    hidden = paddle.tanh(hidden)
            prediction = paddle.static.nn.fc(hidden, size=4, activation="softmax")
            if use_py_func:
                loss = base.default_main_program().current_block().create_var(
                    name="loss", dtype="float32", shape=[-1, 1])
                loss = paddle.static.py_func(func=nll, x=[prediction, label], out=loss,
                                             backward_func=nll_grad,
                                             skip_vars_in_backward_input=loss)
            else:
                loss = fluid.layers.cross_entropy(prediction, label)
            loss = paddle.mean(loss)
            paddle.optimizer.SGD(learning_rate=0.5).minimize(loss)
            feeder = base.DataFeeder(feed_list=[img, label], place=base.CPUPlace())
            exe = base.Executor(base.CPUPlace())
            exe.run(base.default_startup_program())
            program = compiler.CompiledProgram(base.default_main_program()) if compiled \
                else base.default_main_program()
            losses = []
            for rows in paddle.batch(reader, batch_size=10)():
                (value,) = exe.run(program, feed=feeder.feed(rows),
                                   fetch_list=[loss.name if compiled else loss])
                losses.append(value)
            return np.array(losses)


def test_py_func_training_matches_ops_as_paddles_test_checks():
    with_ops = train(use_py_func=False, compiled=False)
    assert with_ops[-1] < with_ops[0]  # it trains
    np.testing.assert_allclose(train(use_py_func=True, compiled=False), with_ops, atol=1e-5)
    np.testing.assert_allclose(train(use_py_func=True, compiled=True), with_ops, atol=1e-5)


@test_with_pir_api
def run_static_pylayer_backward():
    """Paddle's test_static_pylayer: y = 3x forward, dx = tanh(dy) backward."""
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        data = paddle.full(shape=[3, 4], dtype="float32", fill_value=-2.0)
        data.stop_gradient = False
        out = paddle.static.nn.static_pylayer(lambda x: 3 * x, [data],
                                              lambda dy: paddle.tanh(dy))
        loss = paddle.mean(out)
        append_backward(loss, [data])
    place = base.CUDAPlace(0) if core.is_compiled_with_cuda() else base.CPUPlace()
    return base.Executor(place).run(main, fetch_list=[out.name, data.name + "@GRAD"])


def test_static_pylayer_through_base_imports():
    ret, grad = run_static_pylayer_backward()
    np.testing.assert_allclose(ret, np.full((3, 4), -6.0))
    np.testing.assert_allclose(grad, np.full((3, 4), np.tanh(1 / 12)), rtol=1e-6)


def test_base_is_fluid():
    import pyir.base.compiler
    import pyir.base.dygraph

    assert base.core is fluid.core and pyir.base.compiler is fluid.compiler
    assert pyir.base.dygraph is fluid.dygraph
    assert base.Executor is paddle.static.Executor and base.Program is paddle.static.Program
    assert not core.is_compiled_with_cuda() and core.get_cuda_device_count() == 0
    assert core.LoDTensor is core.DenseTensor
    assert core.VarDesc.VarType.FP32 == 5 and core.VarDesc.VarType.INT64 == 3
    with pytest.raises(UnsupportedError, match="Paddle 3"):
        base.ParallelExecutor()
    with pytest.raises(UnsupportedError, match="IR graph"):
        core.Graph()


def test_data_feeder_converts_dtype_and_shape():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        img = paddle.static.data("img", [-1, 2, 2], "float32")
        label = paddle.static.data("label", [-1, 1], "int64")
    feeder = fluid.DataFeeder(["img", label], fluid.CPUPlace(), program=main)
    feed = feeder.feed([(np.arange(4.0), [3]), (np.ones(4), [1])])
    assert feeder.feed_names == ["img", "label"]
    assert feed["img"].dtype == np.float32 and feed["img"].shape == (2, 2, 2)
    np.testing.assert_array_equal(feed["label"], np.array([[3], [1]], "int64"))
    with pytest.raises(PyirError, match="sample 0 has 1 fields"):
        feeder.feed([(np.ones(4),)])
    with pytest.raises(PyirError, match="does not fit img"):
        feeder.feed([(np.ones(3), [1])])
    with pytest.raises(PyirError, match="LoD sequence"):
        with fluid.program_guard(main, fluid.Program()):
            fluid.DataFeeder([paddle.static.data("seq", [-1, 1], "int64", lod_level=1)])
    batches = list(feeder.decorate_reader(lambda: iter([[(np.ones(4), [0])]]))())
    assert list(batches[0]) == ["img", "label"]


def test_dygraph_guard_and_to_variable():
    assert not fluid.framework.in_dygraph_mode()  # the tests run in static mode
    with fluid.dygraph.guard():
        assert fluid.framework.in_dygraph_mode() and fluid.dygraph.enabled()
        t = fluid.dygraph.to_variable(np.array([1.0, 2.0]), dtype="float32")
        doubled = t * 2
        np.testing.assert_array_equal(doubled.numpy(), [2.0, 4.0])
        assert fluid.dygraph.to_variable(t) is t
    assert not fluid.framework.in_dygraph_mode()
    assert not fluid.framework.in_pir_mode()


def test_unique_name_guard_restarts_counters():
    first = fluid.unique_name.generate("layer")
    with fluid.unique_name.guard():
        assert fluid.unique_name.generate("layer") == "layer_0"
        assert fluid.unique_name.generate("layer") == "layer_1"
    assert fluid.unique_name.generate("layer") == \
        f"layer_{int(first.rsplit('_', 1)[1]) + 1}"
    old = fluid.unique_name.switch()
    assert fluid.unique_name.generate("layer") == "layer_0"
    fluid.unique_name.switch(old)


def test_fluid_initializers_and_layers():
    main, start = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, start):
        x = fluid.layers.data("x", [3])
        fluid.layers.fc(x, 2, param_attr=fluid.ParamAttr(
            initializer=fluid.initializer.Xavier(uniform=False)))
    assert x.shape == (-1, 3)
    assert [op.type for op in start.global_block().ops] == ["gaussian_random",
                                                            "fill_constant"]
    # Xavier normal of a [3, 2] weight: std sqrt(2 / (3 + 2)).
    assert start.global_block().ops[0].attrs["std"] == pytest.approx(np.sqrt(2 / 5))


def test_mode_switches():
    fluid.enable_dygraph()
    assert paddle.in_dynamic_mode()
    fluid.disable_dygraph()
    assert not paddle.in_dynamic_mode()
