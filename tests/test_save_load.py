"""paddle.save / paddle.load: files written by Paddle 3.3.1 load in pyir, pyir writes Paddle's
layout (checked with a plain unpickler here; Paddle 3.3.1 itself loaded pyir's files while
these tests were written), round trips, and the safe unpickler's refusals (a hostile pickle
runs nothing)."""

from __future__ import annotations

import base64
import collections
import io
import os
import pickle

import numpy as np
import pytest

import pyir
from pyir import serialization
from pyir.errors import PyirError
from pyir.optimizer import lr as sched

# Written by Paddle 3.3.1: paddle.save(linear.state_dict()), paddle.save(adam.state_dict())
# for a Linear(3, 2) with weight arange(6)/10, bias [0.5, -0.5], after one Adam step
# (StepDecay(0.1, 2)); and paddle.save({"epoch": 3, "loss": [1.5, 2.5], "w": int64 tensor
# [1, 2], "name": "run", "arr": np.eye(2)}).
PADDLE_PDPARAMS = (
    "gASVIQEAAAAAAAB9lCiMBndlaWdodJSMFm51bXB5Ll9jb3JlLm11bHRpYXJyYXmUjAxfcmVjb25zdHJ1Y3SUk5SMBW"
    "51bXB5lIwHbmRhcnJheZSTlEsAhZRDAWKUh5RSlChLAUsDSwKGlGgFjAVkdHlwZZSTlIwCZjSUiYiHlFKUKEsDjAE8"
    "lE5OTkr/////Sv////9LAHSUYolDGM3MzL3wUgIxzczMPc7MTD6amZk+zczMPpR0lGKMBGJpYXOUaARoB0sAhZRoCY"
    "eUUpQoSwFLAoWUaBGJQwjNzMw+mpkZv5R0lGKMG1N0cnVjdHVyZWRUb1BhcmFtZXRlck5hbWVAQJR9lChoAYwMbGlu"
    "ZWFyXzAud18wlGgWjAxsaW5lYXJfMC5iXzCUdXUu")

PADDLE_PDOPT = (
    "gASV2gMAAAAAAAB9lCiMFmxpbmVhcl8wLndfMF9tb21lbnQxXzCUjBZudW1weS5fY29yZS5tdWx0aWFycmF5lIwMX3"
    "JlY29uc3RydWN0lJOUjAVudW1weZSMB25kYXJyYXmUk5RLAIWUQwFilIeUUpQoSwFLA0sChpRoBYwFZHR5cGWUk5SM"
    "AmY0lImIh5RSlChLA4wBPJROTk5K/////0r/////SwB0lGKJQxjQzEw90MxMPdDMTD3QzEw90MxMPdDMTD2UdJRijB"
    "ZsaW5lYXJfMC5iXzBfbW9tZW50MV8wlGgEaAdLAIWUaAmHlFKUKEsBSwKFlGgRiUMI0MxMPdDMTD2UdJRijBZsaW5l"
    "YXJfMC53XzBfbW9tZW50Ml8wlGgEaAdLAIWUaAmHlFKUKEsBSwNLAoaUaBGJQxgAEoM5ABKDOQASgzkAEoM5ABKDOQ"
    "ASgzmUdJRijBZsaW5lYXJfMC5iXzBfbW9tZW50Ml8wlGgEaAdLAIWUaAmHlFKUKEsBSwKFlGgRiUMIABKDOQASgzmU"
    "dJRijBxsaW5lYXJfMC53XzBfYmV0YTFfcG93X2FjY18wlGgEaAdLAIWUaAmHlFKUKEsBSwGFlGgRiUMEKFxPP5R0lG"
    "KMHGxpbmVhcl8wLmJfMF9iZXRhMV9wb3dfYWNjXzCUaARoB0sAhZRoCYeUUpQoSwFLAYWUaBGJQwQoXE8/lHSUYowc"
    "bGluZWFyXzAud18wX2JldGEyX3Bvd19hY2NfMJRoBGgHSwCFlGgJh5RSlChLAUsBhZRoEYlDBP98fz+UdJRijBxsaW"
    "5lYXJfMC5iXzBfYmV0YTJfcG93X2FjY18wlGgEaAdLAIWUaAmHlFKUKEsBSwGFlGgRiUME/3x/P5R0lGKMDExSX1Nj"
    "aGVkdWxlcpR9lCiMCmxhc3RfZXBvY2iUSwCMB2xhc3RfbHKURz+5mZmZmZmadYwbU3RydWN0dXJlZFRvUGFyYW1ldG"
    "VyTmFtZUBAlH2UKGgBjBZsaW5lYXJfMC53XzBfbW9tZW50MV8wlGgWjBZsaW5lYXJfMC5iXzBfbW9tZW50MV8wlGgd"
    "jBZsaW5lYXJfMC53XzBfbW9tZW50Ml8wlGgkjBZsaW5lYXJfMC5iXzBfbW9tZW50Ml8wlGgrjBxsaW5lYXJfMC53Xz"
    "BfYmV0YTFfcG93X2FjY18wlGgyjBxsaW5lYXJfMC5iXzBfYmV0YTFfcG93X2FjY18wlGg5jBxsaW5lYXJfMC53XzBf"
    "YmV0YTJfcG93X2FjY18wlGhAjBxsaW5lYXJfMC5iXzBfYmV0YTJfcG93X2FjY18wlHV1Lg==")

PADDLE_PKL = (
    "gASVbQEAAAAAAAB9lCiMBWVwb2NolEsDjARsb3NzlF2UKEc/+AAAAAAAAEdABAAAAAAAAGWMAXeUjAhidWlsdGluc5"
    "SMBXR1cGxllJOUjBJnZW5lcmF0ZWRfdGVuc29yXzCUjBZudW1weS5fY29yZS5tdWx0aWFycmF5lIwMX3JlY29uc3Ry"
    "dWN0lJOUjAVudW1weZSMB25kYXJyYXmUk5RLAIWUQwFilIeUUpQoSwFLAoWUaAyMBWR0eXBllJOUjAJpOJSJiIeUUp"
    "QoSwOMATyUTk5OSv////9K/////0sAdJRiiUMQAQAAAAAAAAACAAAAAAAAAJR0lGKGlIWUUpSMBG5hbWWUjANydW6U"
    "jANhcnKUaAtoDksAhZRoEIeUUpQoSwFLAksChpRoFYwCZjiUiYiHlFKUKEsDaBlOTk5K/////0r/////SwB0lGKJQy"
    "AAAAAAAADwPwAAAAAAAAAAAAAAAAAAAAAAAAAAAADwP5R0lGJ1Lg==")


def _file(tmp_path, name, b64):
    path = tmp_path / name
    path.write_bytes(base64.b64decode(b64))
    return str(path)


def _eager_params():
    pyir.disable_static()
    w = pyir.to_tensor(np.arange(6, dtype=np.float32).reshape(3, 2), stop_gradient=False)
    b = pyir.to_tensor(np.array([0.5, -0.5], np.float32), stop_gradient=False)
    w.name, b.name = "linear_0.w_0", "linear_0.b_0"
    return w, b


def test_loads_paddles_state_dict(tmp_path):
    pyir.disable_static()
    state = pyir_load(_file(tmp_path, "m.pdparams", PADDLE_PDPARAMS))
    assert list(state) == ["weight", "bias"]  # the name table is dropped
    assert isinstance(state["weight"], pyir.Tensor) and state["weight"].name == "linear_0.w_0"
    # one Adam step of ~lr moved each entry by 0.1
    np.testing.assert_allclose(state["weight"].numpy(),
                               np.arange(6).reshape(3, 2) / 10 - 0.1, atol=1e-6)
    np.testing.assert_allclose(state["bias"].numpy(), [0.4, -0.6], atol=1e-6)
    arrays = pyir_load(_file(tmp_path, "m.pdparams", PADDLE_PDPARAMS), return_numpy=True)
    assert isinstance(arrays["weight"], np.ndarray) and arrays["weight"].dtype == np.float32


def test_loads_paddles_optimizer_state_and_continues(tmp_path):
    w, b = _eager_params()
    scheduler = sched.StepDecay(0.1, 2)
    opt = pyir.optimizer.Adam(scheduler, parameters=[w, b])
    state = pyir_load(_file(tmp_path, "m.pdopt", PADDLE_PDOPT))
    assert state["LR_Scheduler"] == {"last_epoch": 0, "last_lr": 0.1}
    np.testing.assert_allclose(state["linear_0.w_0_moment1_0"].numpy(), np.full((3, 2), 0.05),
                               rtol=1e-5)
    opt.set_state_dict(state)
    (w.sum() + b.sum()).backward()
    opt.step()
    powers = opt.state_dict()["linear_0.w_0_beta1_pow_acc_0"].numpy()
    np.testing.assert_allclose(powers, [0.9 ** 3], rtol=1e-6)  # Paddle's 0.81, one more step
    moment = opt.state_dict()["linear_0.w_0_moment1_0"].numpy()
    np.testing.assert_allclose(moment, 0.9 * 0.05 + 0.1 * 1.0, rtol=1e-5)


def test_loads_paddles_nested_object(tmp_path):
    pyir.disable_static()
    obj = pyir_load(_file(tmp_path, "o.pkl", PADDLE_PKL))
    assert obj["epoch"] == 3 and obj["loss"] == [1.5, 2.5] and obj["name"] == "run"
    assert isinstance(obj["w"], pyir.Tensor) and obj["w"].numpy().tolist() == [1, 2]
    assert obj["w"].dtype == np.int64
    # (name, array) tuples become Tensors; a bare array stays an array, as in Paddle
    assert isinstance(obj["arr"], np.ndarray)
    np.testing.assert_array_equal(obj["arr"], np.eye(2))


def pyir_load(path, **configs):
    return serialization.load(path, **configs)


def test_writes_paddles_layout(tmp_path):
    w, b = _eager_params()
    path = tmp_path / "sub" / "m.pdparams"  # folders are made
    serialization.save({"weight": w, "bias": b}, str(path))
    data = path.read_bytes()
    assert data[:2] == b"\x80\x04"  # protocol 4
    raw = pickle.loads(data)
    assert list(raw) == ["weight", "bias", "StructuredToParameterName@@"]
    assert raw["StructuredToParameterName@@"] == {"weight": "linear_0.w_0",
                                                  "bias": "linear_0.b_0"}
    assert type(raw["weight"]) is np.ndarray
    np.testing.assert_array_equal(raw["weight"], w.numpy())
    nested = tmp_path / "n.pkl"
    serialization.save({"epoch": 2, "w": w, "parts": [b, 1.5], "arr": np.ones(2)}, str(nested),
                       protocol=2)
    data = nested.read_bytes()
    assert data[:2] == b"\x80\x02"
    raw = pickle.loads(data)
    assert raw["w"][0] == "linear_0.w_0" and type(raw["w"]) is tuple
    assert raw["parts"][0][0] == "linear_0.b_0" and raw["parts"][1] == 1.5
    assert "StructuredToParameterName@@" not in raw


def test_round_trips(tmp_path):
    w, b = _eager_params()
    scheduler = sched.LinearWarmup(sched.StepDecay(0.5, 2), 2, 0.0, 0.5)
    opt = pyir.optimizer.Momentum(scheduler, parameters=[w, b])
    (w.sum() + b.sum()).backward()
    opt.step()
    state = opt.state_dict()
    serialization.save(state, str(tmp_path / "o.pdopt"))
    back = serialization.load(str(tmp_path / "o.pdopt"))
    assert back["LR_Scheduler"] == scheduler.state_dict()
    np.testing.assert_array_equal(back["linear_0.w_0_velocity_0"].numpy(),
                                  state["linear_0.w_0_velocity_0"].numpy())
    buffer = io.BytesIO()
    serialization.save(w, buffer)
    buffer.seek(0)
    tensor = serialization.load(buffer)
    assert tensor.name == "linear_0.w_0" and tensor.shape == [3, 2]
    pyir.enable_static()  # static mode gives arrays
    assert isinstance(serialization.load(str(tmp_path / "o.pdopt"))["linear_0.w_0_velocity_0"],
                      np.ndarray)


class _Hostile:
    def __init__(self, command):
        self.command = command

    def __reduce__(self):
        return (os.system, (self.command,))


def test_a_hostile_pickle_is_refused_without_running(tmp_path):
    marker = tmp_path / "ran"
    path = tmp_path / "evil.pdparams"
    path.write_bytes(pickle.dumps({"weight": _Hostile(f"touch {marker}")}, protocol=4))
    with pytest.raises(serialization.UnsafePickleError,
                       match=rf"evil.pdparams: refused to load: the file references "
                             rf"{os.system.__module__}.system; pyir admits only"):
        serialization.load(str(path))
    assert not marker.exists()


@pytest.mark.parametrize("payload, refused", [
    (pickle.dumps(eval, protocol=2), "builtins.eval"),
    (pickle.dumps(_Hostile, protocol=4), "test_save_load._Hostile"),
    (b"\x80\x04c__builtin__\ngetattr\n.", "builtins.getattr"),
])
def test_other_globals_are_refused(tmp_path, payload, refused):
    path = tmp_path / "x.pkl"
    path.write_bytes(payload)
    with pytest.raises(serialization.UnsafePickleError, match=rf"references .*{refused}"):
        serialization.load(str(path))


def test_protocol_2_files_load(tmp_path):
    path = tmp_path / "old.pdparams"  # Python 2 module names (__builtin__, copy_reg-free)
    payload = collections.OrderedDict(w=np.arange(3, dtype=np.float32), n=(1, {2.5}))
    path.write_bytes(pickle.dumps(payload, protocol=2))
    back = serialization.load(str(path), return_numpy=True)
    assert type(back) is collections.OrderedDict and back["n"] == (1, {2.5})
    np.testing.assert_array_equal(back["w"], [0, 1, 2])


def test_broken_and_missing_files(tmp_path):
    broken = tmp_path / "broken.pdparams"
    broken.write_bytes(pickle.dumps({"a": 1})[:-3])
    with pytest.raises(PyirError, match="broken.pdparams: not a readable pickle"):
        serialization.load(str(broken))
    with pytest.raises(PyirError, match="no such file"):
        serialization.load(str(tmp_path / "absent.pdparams"))
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(b"hello")
    with pytest.raises(PyirError, match="neither a pickle written by paddle.save nor a program"):
        serialization.load(str(garbage))
    with pytest.raises(PyirError, match=r"unknown option\(s\) \['mmap'\]"):
        serialization.load(str(garbage), mmap=True)


def test_save_refuses_what_load_would_refuse(tmp_path):
    with pytest.raises(PyirError, match=r"cannot save obj\['model'\] of type _Hostile"):
        serialization.save({"model": _Hostile("x"), "epoch": 1}, str(tmp_path / "a.pkl"))
    with pytest.raises(PyirError, match="protocol must be 2, 3 or 4, got 5"):
        serialization.save({}, str(tmp_path / "a.pkl"), protocol=5)
    with pytest.raises(PyirError, match="array of Python objects"):
        serialization.save([np.array([{}], dtype=object)], str(tmp_path / "a.pkl"))
    x = pyir.static.data("x", [2], "float32")
    with pytest.raises(PyirError, match="is a static Variable"):
        serialization.save({"x": x}, str(tmp_path / "a.pkl"))
    assert not (tmp_path / "a.pkl").exists()


def test_saves_and_loads_a_program(tmp_path):
    x = pyir.static.data("x", [None, 2], "float32")
    pyir.tanh(x)
    main = pyir.static.default_main_program()
    serialization.save(main, str(tmp_path / "main.pdmodel"))
    loaded = serialization.load(str(tmp_path / "main.pdmodel"))
    assert [op.type for op in loaded.global_block().ops] == ["tanh"]


def test_resume_from_files_matches_an_uninterrupted_run(tmp_path):
    rng = np.random.default_rng(2)
    grads = [rng.standard_normal((3, 2)).astype(np.float32) for _ in range(4)]

    def train(w, opt, steps):
        for g in steps:
            (w * pyir.to_tensor(g)).sum().backward()
            opt.step()
            opt.clear_grad()
            opt._learning_rate.step()

    w, _ = _eager_params()
    straight = pyir.optimizer.Adam(sched.ExponentialDecay(0.1, 0.5), parameters=[w])
    train(w, straight, grads)

    first, _ = _eager_params()
    opt = pyir.optimizer.Adam(sched.ExponentialDecay(0.1, 0.5), parameters=[first])
    train(first, opt, grads[:2])
    serialization.save({"weight": first}, str(tmp_path / "ck.pdparams"))
    serialization.save(opt.state_dict(), str(tmp_path / "ck.pdopt"))

    resumed, _ = _eager_params()  # a fresh start, then the checkpoint
    resumed._value = serialization.load(str(tmp_path / "ck.pdparams"))["weight"].numpy()
    opt = pyir.optimizer.Adam(sched.ExponentialDecay(0.1, 0.5), parameters=[resumed])
    opt.set_state_dict(serialization.load(str(tmp_path / "ck.pdopt")))
    assert opt.get_lr() == pytest.approx(0.025)
    train(resumed, opt, grads[2:])
    np.testing.assert_array_equal(resumed.numpy(), w.numpy())


def test_load_of_an_inference_model_prefix_gives_its_parameters(tmp_path):
    x = pyir.static.data("x", [None, 3], "float32")
    y = pyir.static.nn.fc(x, 2)
    exe = pyir.static.Executor()
    exe.run(pyir.static.default_startup_program())
    pyir.static.save_inference_model(str(tmp_path / "m"), [x], [y], exe)
    scope = pyir.static.global_scope()
    pyir.disable_static()
    params = serialization.load(str(tmp_path / "m"))
    assert sorted(params) == ["fc_0.b_0", "fc_0.w_0"]
    assert params["fc_0.w_0"].name == "fc_0.w_0"
    np.testing.assert_array_equal(params["fc_0.w_0"].numpy(), scope["fc_0.w_0"])
    arrays = serialization.load(str(tmp_path / "m"), return_numpy=True)
    assert isinstance(arrays["fc_0.b_0"], np.ndarray)


# Written by Paddle 3.3.1's paddle.static.save for x -> fc(x, 2) -> mean, Adam(0.1), after
# the startup program: fc_0.w_0 (uniform init), fc_0.b_0 zeros; learning_rate_0 and Adam state.
STATIC_PDPARAMS = (
    "gASV4wAAAAAAAAB9lCiMCGZjXzAud18wlIwWbnVtcHkuX2NvcmUubXVsdGlhcnJheZSMDF9yZWNvbnN0cnVjdJSTlI"
    "wFbnVtcHmUjAduZGFycmF5lJOUSwCFlEMBYpSHlFKUKEsBSwNLAoaUaAWMBWR0eXBllJOUjAJmNJSJiIeUUpQoSwOM"
    "ATyUTk5OSv////9K/////0sAdJRiiUMYHCYevwgkJr+0HoQ+ej0YP5D0vz6cNqc+lHSUYowIZmNfMC5iXzCUaARoB0"
    "sAhZRoCYeUUpQoSwFLAoWUaBGJQwgAAAAAAAAAAJR0lGJ1Lg==")

STATIC_PDOPT = (
    "gASVpAIAAAAAAAB9lCiMD2xlYXJuaW5nX3JhdGVfMJSMFm51bXB5Ll9jb3JlLm11bHRpYXJyYXmUjAxfcmVjb25zdH"
    "J1Y3SUk5SMBW51bXB5lIwHbmRhcnJheZSTlEsAhZRDAWKUh5RSlChLASloBYwFZHR5cGWUk5SMAmY0lImIh5RSlChL"
    "A4wBPJROTk5K/////0r/////SwB0lGKJQwTNzMw9lHSUYowSZmNfMC5iXzBfbW9tZW50MV8wlGgEaAdLAIWUaAmHlF"
    "KUKEsBSwKFlGgQiUMIAAAAAAAAAACUdJRijBJmY18wLmJfMF9tb21lbnQyXzCUaARoB0sAhZRoCYeUUpQoSwFLAoWU"
    "aBCJQwgAAAAAAAAAAJR0lGKMGGZjXzAuYl8wX2JldGExX3Bvd19hY2NfMJRoBGgHSwCFlGgJh5RSlChLAUsBhZRoEI"
    "lDBGZmZj+UdJRijBhmY18wLmJfMF9iZXRhMl9wb3dfYWNjXzCUaARoB0sAhZRoCYeUUpQoSwFLAYWUaBCJQwR3vn8/"
    "lHSUYowSZmNfMC53XzBfbW9tZW50MV8wlGgEaAdLAIWUaAmHlFKUKEsBSwNLAoaUaBCJQxgAAAAAAAAAAAAAAAAAAA"
    "AAAAAAAAAAAACUdJRijBJmY18wLndfMF9tb21lbnQyXzCUaARoB0sAhZRoCYeUUpQoSwFLA0sChpRoEIlDGAAAAAAA"
    "AAAAAAAAAAAAAAAAAAAAAAAAAJR0lGKMGGZjXzAud18wX2JldGExX3Bvd19hY2NfMJRoBGgHSwCFlGgJh5RSlChLAU"
    "sBhZRoEIlDBGZmZj+UdJRijBhmY18wLndfMF9iZXRhMl9wb3dfYWNjXzCUaARoB0sAhZRoCYeUUpQoSwFLAYWUaBCJ"
    "QwR3vn8/lHSUYnUu")

STATIC_W = [[-0.6177690029144287, -0.6489872932434082], [0.2580467462539673, 0.5946880578994751],
            [0.37491273880004883, 0.32658851146698]]


def _static_adam_program():
    x = pyir.static.data("x", [None, 3], "float32")
    loss = pyir.mean(pyir.static.nn.fc(x, 2))
    pyir.optimizer.Adam(0.1).minimize(loss)
    exe = pyir.static.Executor()
    exe.run(pyir.static.default_startup_program())
    return pyir.static.default_main_program(), loss


def test_static_save_writes_paddles_files_and_loads_them_back(tmp_path):
    main, _ = _static_adam_program()
    scope = pyir.static.global_scope()
    prefix = str(tmp_path / "st" / "model")
    pyir.static.save(main, prefix)
    params = pickle.loads((tmp_path / "st" / "model.pdparams").read_bytes())
    opt = pickle.loads((tmp_path / "st" / "model.pdopt").read_bytes())
    assert sorted(params) == ["fc_0.b_0", "fc_0.w_0"]
    assert sorted(opt) == sorted(["learning_rate_0"] + [
        f"fc_0.{p}_{s}_0" for p in ("w_0", "b_0")
        for s in ("moment1", "moment2", "beta1_pow_acc", "beta2_pow_acc")])
    assert (tmp_path / "st" / "model.pdmodel").exists()
    saved_w = scope["fc_0.w_0"].copy()
    scope["fc_0.w_0"] = np.zeros_like(saved_w)
    scope["learning_rate_0"] = np.array(7.0, np.float32)
    pyir.static.load(main, prefix, pyir.static.Executor())
    np.testing.assert_array_equal(scope["fc_0.w_0"], saved_w)
    assert scope["learning_rate_0"] == np.float32(0.1)


def test_static_load_reads_paddles_files(tmp_path):
    main, _ = _static_adam_program()
    prefix = tmp_path / "model"
    (tmp_path / "model.pdparams").write_bytes(base64.b64decode(STATIC_PDPARAMS))
    (tmp_path / "model.pdopt").write_bytes(base64.b64decode(STATIC_PDOPT))
    state = pyir.static.load_program_state(str(prefix))
    assert len(state) == 11 and state["learning_rate_0"] == np.float32(0.1)
    pyir.static.load(main, str(prefix))
    scope = pyir.static.global_scope()
    np.testing.assert_allclose(scope["fc_0.w_0"], STATIC_W)
    np.testing.assert_array_equal(scope["fc_0.w_0_beta1_pow_acc_0"], np.float32([0.9]))
    only = pyir.static.load_program_state(str(prefix), var_list=["fc_0.b_0"])
    assert list(only) == ["fc_0.b_0"]


def test_static_state_refusals(tmp_path):
    main, _ = _static_adam_program()
    with pytest.raises(PyirError, match=r"'fc_0.w_0' needs shape \[3, 2\], the state holds "
                                        r"\[2\]"):
        pyir.static.set_program_state(main, {"fc_0.w_0": np.zeros(2, np.float32)})
    with pytest.warns(UserWarning, match="not in the program, not set: other"):
        pyir.static.set_program_state(main, {"other": np.zeros(2, np.float32)})
    serialization.save({"fc_0.b_0": np.zeros(2, np.float32)}, str(tmp_path / "m.pdparams"))
    with pytest.raises(PyirError, match=r"m.pdparams, variable 'fc_0.w_0': the checkpoint has "
                                        r"no value"):
        pyir.static.load(main, str(tmp_path / "m"))
    with pytest.raises(PyirError, match="absent.pdparams: no such checkpoint"):
        pyir.static.load_program_state(str(tmp_path / "absent"))
    with pytest.raises(PyirError, match="static.save expects a Program, got str"):
        pyir.static.save("main", str(tmp_path / "x"))
