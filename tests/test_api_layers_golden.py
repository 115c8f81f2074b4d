"""Layers against PaddlePaddle 3.3.1: every case of tests/golden_layers/cases.py is built with
pyir.nn, loaded with the parameter values Paddle used (by Paddle's state_dict keys, which must
match pyir's), run eagerly and inside a static program_guard, and compared with Paddle's output
(tests/golden_layers/layers.npz, written by make_golden.py under Paddle 3.3.1)."""

import importlib.util
import json
import pathlib

import numpy as np
import pytest

import pyir
from pyir.dispatch import out
from pyir.executor import Executor

HERE = pathlib.Path(__file__).resolve().parent / "golden_layers"
_spec = importlib.util.spec_from_file_location("golden_layer_cases", HERE / "cases.py")
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)
GOLDEN = np.load(HERE / "layers.npz")
META = json.loads((HERE / "layers.json").read_text())


def _state(name):
    return {k: GOLDEN[f"{name}/state{i}"] for i, k in enumerate(META[name]["keys"])}


def _constant(array):
    """A static constant (assign_value), what Paddle's to_tensor gives in a static program."""
    return out("assign_value", {}, {"shape": list(array.shape), "dtype": 5,
                                    "values": [float(v) for v in array.ravel()]})


def _first(out):
    return out[0] if isinstance(out, (tuple, list)) else out


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_eager_matches_paddle(name):
    pyir.disable_static()
    make, inputs, train, kwargs = cases.unpack(cases.CASES[name])
    layer = make(pyir.nn, pyir.to_tensor)
    assert list(layer.state_dict()) == META[name]["keys"]
    missing, unexpected = layer.set_state_dict(_state(name))
    assert missing == [] and unexpected == []
    if not train:
        layer.eval()
    out = layer(*[pyir.to_tensor(a) for a in inputs],
                **{k: tuple(pyir.to_tensor(a) for a in v) if isinstance(v, tuple)
                   else pyir.to_tensor(v) for k, v in kwargs.items()})
    np.testing.assert_allclose(_first(out).numpy(), GOLDEN[f"{name}/out"], rtol=1e-4,
                               atol=1e-5)
    if f"{name}/mean" in GOLDEN:  # running statistics updated as Paddle updates them
        np.testing.assert_allclose(layer._mean.numpy(), GOLDEN[f"{name}/mean"], rtol=1e-5,
                                   atol=1e-6)


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_static_matches_paddle(name):
    make, inputs, train, kwargs = cases.unpack(cases.CASES[name])
    main, startup = pyir.static.Program(), pyir.static.Program()
    with pyir.static.program_guard(main, startup):
        layer = make(pyir.nn, _constant)
        if not train:
            layer.eval()
        feeds = {f"in{i}": a for i, a in enumerate(inputs)}
        args = [pyir.static.data(f"in{i}", list(a.shape), str(a.dtype))
                for i, a in enumerate(inputs)]
        kw = {}
        for k, v in kwargs.items():
            parts = v if isinstance(v, tuple) else (v,)
            made = tuple(pyir.static.data(f"{k}{i}", list(a.shape), str(a.dtype))
                         for i, a in enumerate(parts))
            feeds.update({f"{k}{i}": a for i, a in enumerate(parts)})
            kw[k] = made if isinstance(v, tuple) else made[0]
        result = _first(layer(*args, **kw))
    exe = Executor()
    exe.run(startup)
    layer.set_state_dict(_state(name))
    fetch = [result] + ([layer._mean] if f"{name}/mean" in GOLDEN else [])
    results = exe.run(main, feed=feeds, fetch_list=fetch)
    np.testing.assert_allclose(results[0], GOLDEN[f"{name}/out"], rtol=1e-4, atol=1e-5)
    if len(results) > 1:  # batch_norm wrote MeanOut into the running mean
        np.testing.assert_allclose(pyir.static.global_scope()[layer._mean.name],
                                   GOLDEN[f"{name}/mean"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(cases.GRAD_CASES))
def test_eager_gradients_match_paddle(name):
    pyir.disable_static()
    make, inputs, train, kwargs = cases.unpack(cases.CASES[name])
    layer = make(pyir.nn, pyir.to_tensor)
    layer.set_state_dict(_state(name))
    if not train:
        layer.eval()
    out = _first(layer(*[pyir.to_tensor(a, stop_gradient=a.dtype.kind != "f") for a in inputs],
                       **{k: pyir.to_tensor(v) for k, v in kwargs.items()}))
    (out * pyir.to_tensor(cases.grad_weights(out.shape))).sum().backward()
    params = list(layer.state_dict().values())
    checked = 0
    for i, key in enumerate(META[name]["keys"]):
        if f"{name}/grad{i}" not in GOLDEN:
            continue
        assert params[i].grad is not None, key
        np.testing.assert_allclose(params[i].grad.numpy(), GOLDEN[f"{name}/grad{i}"],
                                   rtol=1e-3, atol=1e-4, err_msg=key)
        checked += 1
    assert checked > 0


@pytest.mark.parametrize("name", sorted(cases.GRAD_CASES))
def test_static_gradients_match_paddle(name):
    make, inputs, train, kwargs = cases.unpack(cases.CASES[name])
    main, startup = pyir.static.Program(), pyir.static.Program()
    with pyir.static.program_guard(main, startup):
        layer = make(pyir.nn, _constant)
        if not train:
            layer.eval()
        args = [pyir.static.data(f"in{i}", list(a.shape), str(a.dtype))
                for i, a in enumerate(inputs)]
        for arg, a in zip(args, inputs):
            arg.stop_gradient = a.dtype.kind != "f"
        kw = {k: pyir.static.data(k, list(v.shape), str(v.dtype)) for k, v in kwargs.items()}
        result = _first(layer(*args, **kw))
        weights = _constant(cases.grad_weights(tuple(result.shape)))
        loss = pyir.tensor.sum(result * weights)
        pyir.static.append_backward(loss)
    params = list(layer.state_dict().values())
    wanted = [(i, key) for i, key in enumerate(META[name]["keys"])
              if f"{name}/grad{i}" in GOLDEN]
    exe = Executor()
    exe.run(startup)
    layer.set_state_dict(_state(name))
    feeds = {f"in{i}": a for i, a in enumerate(inputs)}
    feeds.update(kwargs)
    grads = exe.run(main, feed=feeds, fetch_list=[params[i].name + "@GRAD" for i, _ in wanted])
    assert wanted
    for (i, key), grad in zip(wanted, grads):
        np.testing.assert_allclose(grad, GOLDEN[f"{name}/grad{i}"], rtol=1e-3, atol=1e-4,
                                   err_msg=key)
