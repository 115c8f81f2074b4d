"""Seed 003's network built with pyir's builder API matches what Paddle 3.3.1 built and computed.

The golden `simple_net` program uses py_func tanh layers; here `pyir.tanh` stands in for them
(same math), so the loss head (fc + softmax + CrossEntropyLoss) and the numbers can be
compared with Paddle's file and Paddle's loss.
"""

import numpy as np

import pyir
from pyir.executor import Executor
from pyir.serialize import load_program

from conftest import GOLDEN

CASE = GOLDEN / "simple_net"


def _build():
    x = pyir.static.data(name="x", shape=[1, 4], dtype="float32")
    y = pyir.static.data(name="y", shape=[1], dtype="int64")
    hidden = x
    for _ in range(4):
        hidden = pyir.tanh(pyir.static.nn.fc(hidden, size=200))
    prediction = pyir.static.nn.fc(hidden, size=10, activation="softmax")
    return pyir.nn.loss.CrossEntropyLoss()(prediction, y)


def _loss_head(program):
    """The ops from the last fc's softmax on: what CrossEntropyLoss emitted."""
    ops = program.global_block().ops
    start = max(i for i, op in enumerate(ops) if op.type == "softmax")
    return [(op.type, {k: v for k, v in op.attrs.items() if k in _COMPARED})
            for op in ops[start:] if op.attrs.get("op_role", 0) in (0, 256)]


_COMPARED = {"axes", "axis", "soft_label", "ignore_index", "use_softmax", "numeric_stable_mode",
             "dim", "keep_dim", "reduce_all"}


def test_cross_entropy_loss_emits_paddles_ops():
    loss = _build()
    main = pyir.static.default_main_program()
    golden = load_program(str(CASE / "model_forward.pb"))
    assert _loss_head(main) == _loss_head(golden)
    assert loss.name == "mean_0.tmp_0" and loss.shape == ()
    params = sorted(p.name for p in main.all_parameters())
    assert params == sorted(np.load(CASE / "params.npz").files)


def test_loss_value_matches_paddle():
    loss = _build()
    scope = pyir.static.global_scope()
    for name, value in np.load(CASE / "params.npz").items():
        scope[name] = value
    inputs = dict(np.load(CASE / "inputs.npz"))
    (value,) = Executor().run(feed=inputs, fetch_list=[loss])
    expected = np.load(CASE / "expected.npz")["mean_0.tmp_0"]
    assert value.dtype == np.float32 and value.shape == ()
    np.testing.assert_allclose(value, expected, rtol=1e-5, atol=1e-6)


def test_paddles_own_grad_program_runs_on_pyir_kernels():
    """mlp_grad's backward (reduce_mean_grad, softmax_with_cross_entropy_grad, matmul_v2_grad,
    sum, ...) as Paddle wrote it gives Paddle's gradients."""
    case = GOLDEN / "mlp_grad"
    program = load_program(str(case / "model_with_grad.pb"))
    scope = pyir.static.global_scope()
    for name, value in np.load(case / "params.npz").items():
        scope[name] = value
    expected = np.load(case / "expected.npz")
    values = Executor().run(program, feed=dict(np.load(case / "inputs.npz")),
                            fetch_list=list(expected.files))
    for name, value in zip(expected.files, values):
        np.testing.assert_allclose(value, expected[name], rtol=1e-5, atol=1e-6, err_msg=name)


def test_appended_backward_gives_paddles_parameter_gradients():
    loss = _build()
    pyir.static.append_backward(loss)
    scope = pyir.static.global_scope()
    for name, value in np.load(CASE / "params.npz").items():
        scope[name] = value
    expected = np.load(CASE / "expected.npz")
    names = [n for n in expected.files if n.startswith("fc_")]
    values = Executor().run(feed=dict(np.load(CASE / "inputs.npz")), fetch_list=names)
    for name, value in zip(names, values):
        np.testing.assert_allclose(value, expected[name], rtol=1e-5, atol=1e-7, err_msg=name)
