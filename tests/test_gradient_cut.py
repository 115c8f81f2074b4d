"""A py_func without a backward on the way from a trainable value to the loss: the backward
pass warns, naming the op and its callable, instead of silently training only what lies after
it (Paddle users expect to hear about it). A pylayer without a backward block is refused
outright (tests/test_pylayer.py)."""

from __future__ import annotations

import warnings

import pytest

import pyir
from pyir.backward import GradientCutWarning, append_backward, gradients
from pyir.differentiation import differentiate
from pyir.errors import GradError
from pyir.executor import Executor, Scope
from pyir.files import save_model

import helpers_callables as hc
from conftest import cli


def py_func_net(backward=None, x_stop_gradient=True):
    """fc -> py_func tanh (backward optional) -> fc -> mean."""
    x = pyir.static.data(name="x", shape=[None, 3], dtype="float32")
    x.stop_gradient = x_stop_gradient
    h = pyir.static.nn.fc(x, size=4)
    block = pyir.static.default_main_program().current_block()
    out = block.create_var(name="t", dtype="float32", shape=h.shape)
    pyir.static.py_func(func=hc.tanh, x=h, out=out, backward_func=backward)
    return x, pyir.mean(pyir.static.nn.fc(out, size=1))


def cut_warnings(record):
    return [str(w.message) for w in record if issubclass(w.category, GradientCutWarning)]


def test_minimize_warns_naming_the_op_and_its_callable():
    _, loss = py_func_net()
    with pytest.warns(GradientCutWarning) as record:
        pyir.optimizer.SGD(learning_rate=0.1).minimize(loss)
    [message] = cut_warnings(record)
    assert "op #2 py_func" in message and "'helpers_callables:tanh'" in message
    assert "'fc_0.tmp_1'" in message and "backward_func" in message


def test_the_cut_is_real_the_layer_before_it_is_not_trained():
    _, loss = py_func_net()
    with pytest.warns(GradientCutWarning):
        pairs = append_backward(loss)
    assert sorted(p.name for p, _ in pairs) == ["fc_1.b_0", "fc_1.w_0"]


def test_no_warning_with_a_backward_func():
    _, loss = py_func_net(backward=hc.tanh_grad)
    with warnings.catch_warnings():
        warnings.simplefilter("error", GradientCutWarning)
        pairs = append_backward(loss)
    assert len(pairs) == 4


def test_no_warning_when_nothing_trainable_lies_before_the_op():
    x = pyir.static.data(name="x", shape=[None, 3], dtype="float32")  # stop_gradient=True
    block = pyir.static.default_main_program().current_block()
    out = block.create_var(name="t", dtype="float32", shape=x.shape)
    pyir.static.py_func(func=hc.tanh, x=x, out=out)
    loss = pyir.mean(pyir.static.nn.fc(out, size=1))
    with warnings.catch_warnings():
        warnings.simplefilter("error", GradientCutWarning)
        assert len(append_backward(loss)) == 2


def test_an_input_with_stop_gradient_false_counts_as_trainable():
    x = pyir.static.data(name="x", shape=[None, 3], dtype="float32")
    x.stop_gradient = False
    block = pyir.static.default_main_program().current_block()
    out = block.create_var(name="t", dtype="float32", shape=x.shape)
    pyir.static.py_func(func=hc.tanh, x=x, out=out)
    with pytest.warns(GradientCutWarning, match="'x'"):
        [dx] = gradients([pyir.mean(out)], [x])
    assert dx is None


def test_pyir_grad_warns_then_says_which_wrt_got_no_gradient(tmp_path):
    _, loss = py_func_net()
    main = pyir.static.default_main_program()
    scope = Scope()
    Executor().run(pyir.static.default_startup_program(), scope=scope)
    save_model(str(tmp_path / "m.pb"), main, ["x"], [loss.name], scope)
    result = cli("grad", tmp_path / "m.pb", "-o", tmp_path / "g.pb")
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 1 and len(lines) == 2, result.output
    assert lines[0].startswith("pyir grad: warning: op #") and "helpers_callables:tanh" in lines[0]
    assert "no gradient of" in lines[1] and "'fc_0.w_0'" in lines[1]
    ok = cli("grad", tmp_path / "m.pb", "--wrt", "fc_1.w_0", "-o", tmp_path / "g.pb")
    assert ok.exit_code == 0 and "warning" not in ok.output, ok.output
    assert (tmp_path / "g.pb").exists()


def test_the_error_alone_without_a_cut():
    x = pyir.static.data(name="x", shape=[None, 3], dtype="float32")
    pyir.static.data(name="other", shape=[None, 3], dtype="float32")
    loss = pyir.mean(pyir.static.nn.fc(x, size=1))
    with warnings.catch_warnings():
        warnings.simplefilter("error", GradientCutWarning)
        with pytest.raises(GradError, match="no gradient of .* reaches 'other'"):
            differentiate(pyir.static.default_main_program(), loss.name, ["other"])
