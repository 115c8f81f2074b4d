"""pyir.distributed without a cluster: the data-parallel split of a training program (equal
to one process for SGD, Momentum, Adam, with py_func and pylayer ops), its refusals, and
what happens without Ray installed. The Ray runs are in test_distributed_ray.py."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from conftest import assert_one_line_error, cli

import pyir
import pyir.distributed
from pyir.distributed import data_parallel
from pyir.executor import Scope
from pyir.files import save_training_program

OPTIMIZERS = {
    "sgd": lambda: pyir.optimizer.SGD(learning_rate=0.2),
    "momentum": lambda: pyir.optimizer.Momentum(learning_rate=0.1, momentum=0.9),
    "adam": lambda: pyir.optimizer.Adam(learning_rate=0.05,
                                        grad_clip=pyir.nn.ClipGradByGlobalNorm(1.0)),
}


def save_regression(path, optimizer="sgd", middle=None, loss="mean"):
    """x -> fc -> (middle) -> fc -> loss of the squared error, trained by `optimizer`;
    written with its parameters to `path`."""
    main, startup = pyir.static.Program(), pyir.static.Program()
    with pyir.static.program_guard(main, startup):
        pyir.seed(7)
        x = pyir.static.data(name="x", shape=[None, 3], dtype="float32")
        t = pyir.static.data(name="t", shape=[None, 1], dtype="float32")
        h = pyir.static.nn.fc(x, size=4)
        h = middle(h) if middle else pyir.tanh(h)
        err = pyir.square(pyir.static.nn.fc(h, size=1) - t)
        value = pyir.mean(err) if loss == "mean" else pyir.sum(err)
        OPTIMIZERS[optimizer]().minimize(value)
    scope = Scope()
    pyir.static.Executor().run(startup, scope=scope)
    save_training_program(str(path), main, ["x", "t"], [value.name], scope)
    return str(path)


def data(rows=10, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((rows, 3)).astype(np.float32)
    return {"x": x, "t": (x @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3)}


def assert_same_params(a, b, rtol=1e-5, atol=1e-6):
    names = pyir.files.persistable_names(a.loaded.program)
    assert names and names == pyir.files.persistable_names(b.loaded.program)
    for name in names:
        np.testing.assert_allclose(b.scope[name], a.scope[name], rtol=rtol, atol=atol,
                                   err_msg=name)


@pytest.mark.parametrize("optimizer", sorted(OPTIMIZERS))
def test_sharded_training_equals_one_process(tmp_path, optimizer):
    """3 shards of uneven size (7 rows -> 3, 2, 2) give the parameters of one process."""
    model = save_regression(tmp_path / "m.pb", optimizer)
    one = pyir.files.run_model(model, data(), steps=4, batch_size=7)
    split = pyir.distributed.train(model, data(), 4, workers=3, batch_size=7, in_process=True)
    assert split.losses == pytest.approx(one.losses, rel=1e-5)
    assert one.losses[-1] < one.losses[0]
    assert_same_params(one, split)


def test_split_sends_the_gradients_and_keeps_the_updates(tmp_path):
    program = pyir.files.load_model(save_regression(tmp_path / "m.pb", "adam"),
                                    scope=Scope()).program
    split = data_parallel.split_training(program)
    assert split.loss == "mean_0.tmp_0"
    assert sorted(split.grads) == ["fc_0.b_0@GRAD", "fc_0.w_0@GRAD", "fc_1.b_0@GRAD",
                                   "fc_1.w_0@GRAD"]
    assert sorted(split.reads) == ["fc_0.b_0", "fc_0.w_0", "fc_1.b_0", "fc_1.w_0"]
    update_ops = {op.type for op in split.update_program.global_block().ops}
    assert "adam" in update_ops and "squared_l2_norm" in update_ops  # clipping after the mean
    assert not update_ops & {"mul", "mul_grad", "tanh"}
    grad_part = pyir.serialize.parse_program(split.grad_program)
    assert not {op.type for op in grad_part.global_block().ops} & {"adam", "squared_l2_norm"}


def test_shards_and_weights():
    batch = {"x": np.arange(10).reshape(5, 2), "s": np.float32(3)}
    shards = data_parallel.shard(batch, 2)
    assert [s["x"].shape[0] for s in shards] == [3, 2] and shards[1]["s"] == 3
    assert len(data_parallel.shard(batch, 8)) == 5             # no empty shard
    loss, (grad,) = data_parallel.average([[np.float32(1), np.ones(2, np.float32)],
                                           [np.float32(4), np.zeros(2, np.float32)]], shards)
    assert loss == pytest.approx(0.6 * 1 + 0.4 * 4) and grad.dtype == np.float32
    np.testing.assert_allclose(grad, [0.6, 0.6])
    with pytest.raises(pyir.errors.PyirError, match="same number of rows"):
        data_parallel.shard({"a": np.zeros(3), "b": np.zeros(4)}, 2)


def test_py_func_and_pylayer_programs_train_sharded(tmp_path):
    import helpers_callables as h

    def through_py_func(v):
        out = pyir.static.default_main_program().current_block().create_var(
            name="pf_out", dtype="float32", shape=[-1, 4])
        pyir.static.py_func(func=h.tanh, x=v, out=out, backward_func=h.tanh_grad,
                            skip_vars_in_backward_input=v)
        return out

    def through_pylayer(v):
        return pyir.static.nn.static_pylayer(
            forward_fn=lambda a: pyir.tanh(a), inputs=[v],
            backward_fn=lambda dy: dy * (1 - pyir.square(pyir.tanh(v))))

    for name, middle in (("pf", through_py_func), ("pl", through_pylayer)):
        model = save_regression(tmp_path / f"{name}.pb", "momentum", middle)
        types = {op.type for op in pyir.files.load_model(model, scope=Scope()).program
                 .global_block().ops}
        assert {"pf": "py_func", "pl": "pylayer"}[name] in types
        one = pyir.files.run_model(model, data(), steps=3, batch_size=6)
        split = pyir.distributed.train(model, data(), 3, workers=2, batch_size=6,
                                       in_process=True)
        assert one.losses[-1] < one.losses[0]
        assert_same_params(one, split)


def test_a_sum_loss_is_refused(tmp_path):
    model = save_regression(tmp_path / "m.pb", loss="sum")
    with pytest.raises(pyir.errors.PyirError, match="mean over the batch.*computed by "
                                                    "reduce_sum"):
        pyir.distributed.train(model, data(), 1, workers=2, in_process=True)


def test_batch_norm_statistics_are_refused(tmp_path):
    model = save_regression(tmp_path / "m.pb", "sgd",
                            lambda v: pyir.static.nn.batch_norm(v))
    with pytest.raises(pyir.errors.PyirError,
                       match="batch_norm, variable.*updates the persistable"):
        pyir.distributed.train(model, data(), 1, workers=2, in_process=True)


def test_an_inference_program_is_refused(tmp_path):
    out = tmp_path / "mlp.pb"
    assert cli("build", pyir_root() / "samples" / "mlp.py", "-o", out).exit_code == 0
    with pytest.raises(pyir.errors.PyirError, match="needs a training program"):
        data_parallel.split_training(pyir.files.load_model(str(out), scope=Scope()).program)


def test_without_ray_the_commands_say_how_to_install_it(tmp_path, monkeypatch):
    model = save_regression(tmp_path / "m.pb")
    np.savez(tmp_path / "d.npz", **data())
    monkeypatch.setitem(sys.modules, "ray", None)      # `import ray` raises ImportError
    assert_one_line_error(cli("run", model, "--feed", tmp_path / "d.npz", "--steps", "2",
                              "--workers", "2"),
                          "pyir run: error:", "needs Ray", "pip install 'pyir[ray]'")
    np.savez(tmp_path / "e.npz", **data(seed=1))
    assert_one_line_error(cli("map", model, tmp_path / "d.npz", tmp_path / "e.npz",
                              "-o", tmp_path / "out", "--workers", "2", "--fetch", "tmp_0"),
                          "pyir map: error:", "pip install 'pyir[ray]'", "--workers 0")
    assert not (tmp_path / "out").exists()
    # a program data-parallel training refuses is refused before any cluster is needed
    summed = save_regression(tmp_path / "s.pb", loss="sum")
    with pytest.raises(pyir.errors.PyirError, match="mean over the batch"):
        pyir.distributed.train(summed, data(), 1, workers=2)


def test_workers_without_steps_or_many_inputs_is_a_usage_error(tmp_path):
    model = save_regression(tmp_path / "m.pb")
    np.savez(tmp_path / "d.npz", **data())
    assert_one_line_error(cli("run", model, "--feed", tmp_path / "d.npz", "--workers", "2"),
                          "--workers splits training")


def test_import_pyir_does_not_import_ray():
    import subprocess

    code = ("import sys, pyir, pyir.distributed; "
            "print('ray' in sys.modules, 'pyir.distributed.cluster' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "True"]


def test_paddle_collective_names_point_here():
    with pytest.raises(pyir.errors.PyirError, match="paddle.distributed.all_reduce.*Ray"):
        pyir.distributed.all_reduce(None)
    assert pyir.distributed.get_rank() == 0 and pyir.distributed.get_world_size() == 1
    assert pyir.distributed.init_parallel_env() is None  # one process: nothing to set up
    with pytest.raises(AttributeError):
        pyir.distributed.no_such_name


def pyir_root():
    import pathlib

    return pathlib.Path(__file__).resolve().parent.parent


def test_learning_rate_schedule_ops_run_once_per_step_with_the_updates(tmp_path):
    """An op of Paddle's LRSched role (16), here a step counter, runs on the driver once per
    step; the same counter in the forward role would be refused (it would run per shard)."""
    main, startup = pyir.static.Program(), pyir.static.Program()
    with pyir.static.program_guard(main, startup):
        x = pyir.static.data(name="x", shape=[None, 3], dtype="float32")
        step = pyir.static.create_global_var(shape=[1], value=0.0, dtype="float32",
                                             persistable=True, name="step")
        pyir.increment(step, 1.0)
        loss = pyir.mean(pyir.square(pyir.static.nn.fc(x, size=1)))
        pyir.optimizer.SGD(learning_rate=0.1).minimize(loss)
    scope = Scope()
    pyir.static.Executor().run(startup, scope=scope)
    save_training_program(str(tmp_path / "fwd.pb"), main, ["x"], [loss.name], scope)
    main.global_block().ops[0].attrs["op_role"] = 16
    save_training_program(str(tmp_path / "lr.pb"), main, ["x"], [loss.name], scope)
    feed = {"x": data()["x"]}
    with pytest.raises(pyir.errors.PyirError,
                       match="op #1 increment.*updates the persistable 'step'"):
        pyir.distributed.train(str(tmp_path / "fwd.pb"), feed, 1, in_process=True)
    one = pyir.files.run_model(str(tmp_path / "lr.pb"), feed, steps=3, batch_size=5)
    two = pyir.distributed.train(str(tmp_path / "lr.pb"), feed, 3, workers=2, batch_size=5,
                                 in_process=True)
    assert two.scope["step"][0] == one.scope["step"][0] == 3
    assert_same_params(one, two)
