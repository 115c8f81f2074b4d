"""paddle.static files: checkpoints (save/load, program state) in Paddle's pickle layout read
by a restricted unpickler, programs and persistables as bytes, normalize_program, and
save_vars/load_vars."""

import os
import pickle

import numpy as np
import pytest

import pyir
import pyir.static as S
from pyir.errors import FormatError, PyirError
from pyir.static.io import safe_load_pickle


def trained_program():
    """fc + Adam, one step run: parameters plus optimizer state (moments, pow accs, lr)."""
    main, start = S.Program(), S.Program()
    with S.program_guard(main, start):
        x = S.data("x", [-1, 4], "float32")
        loss = pyir.mean(S.nn.fc(x, 3))
        pyir.optimizer.Adam(0.1).minimize(loss)
    exe = S.Executor()
    exe.run(start)
    exe.run(main, feed={"x": np.ones((2, 4), "float32")}, fetch_list=[loss])
    return main, start, exe, loss


def scope_values(names):
    return {n: np.array(S.global_scope().find_var(n).get_tensor()) for n in names}


def test_save_writes_paddles_three_files(tmp_path):
    main, _, _, _ = trained_program()
    S.save(main, str(tmp_path / "ck" / "model"))
    with open(tmp_path / "ck" / "model.pdparams", "rb") as f:
        params = pickle.load(f)
    with open(tmp_path / "ck" / "model.pdopt", "rb") as f:
        opt = pickle.load(f)
    # Paddle 3.3.1 splits an fc+Adam program the same way: parameters in .pdparams, the
    # learning rate, moments and beta pow accumulators in .pdopt.
    assert sorted(params) == ["fc_0.b_0", "fc_0.w_0"]
    assert sorted(opt) == ["fc_0.b_0_beta1_pow_acc_0", "fc_0.b_0_beta2_pow_acc_0",
                           "fc_0.b_0_moment1_0", "fc_0.b_0_moment2_0",
                           "fc_0.w_0_beta1_pow_acc_0", "fc_0.w_0_beta2_pow_acc_0",
                           "fc_0.w_0_moment1_0", "fc_0.w_0_moment2_0", "learning_rate_0"]
    np.testing.assert_array_equal(params["fc_0.w_0"], scope_values(["fc_0.w_0"])["fc_0.w_0"])
    program = S.deserialize_program((tmp_path / "ck" / "model.pdmodel").read_bytes())
    assert [op.type for op in program.global_block().ops] == \
        [op.type for op in main.global_block().ops]


def test_load_restores_every_persistable(tmp_path):
    main, start, exe, _ = trained_program()
    names = [v.name for v in main.list_vars() if S.is_persistable(v)]
    saved = scope_values(names)
    S.save(main, str(tmp_path / "m"))
    exe.run(start)  # re-initialize: parameters and state change
    assert not np.array_equal(scope_values(["fc_0.w_0"])["fc_0.w_0"], saved["fc_0.w_0"])
    S.load(main, str(tmp_path / "m.pdparams"), exe)
    for name in names:
        np.testing.assert_array_equal(scope_values([name])[name], saved[name])


def test_program_state_round_trip_and_var_list(tmp_path):
    main, start, exe, _ = trained_program()
    S.save(main, str(tmp_path / "m"))
    state = S.load_program_state(str(tmp_path / "m"))
    assert len(state) == 11
    only = S.load_program_state(str(tmp_path / "m"), var_list=[main.global_block().var("fc_0.w_0")])
    assert list(only) == ["fc_0.w_0"]
    exe.run(start)
    S.set_program_state(main, state)
    np.testing.assert_array_equal(scope_values(["fc_0.b_0"])["fc_0.b_0"], state["fc_0.b_0"])


def test_set_program_state_checks_shape_dtype_and_warns_on_unknown_names():
    main, _, _, _ = trained_program()
    w = scope_values(["fc_0.w_0"])["fc_0.w_0"]
    with pytest.raises(PyirError, match=r"needs shape \[4, 3\]"):
        S.set_program_state(main, {"fc_0.w_0": np.zeros((3, 4), "float32")})
    with pytest.raises(PyirError, match="needs dtype float32"):
        S.set_program_state(main, {"fc_0.w_0": w.astype("float64")})
    with pytest.warns(UserWarning, match="not set: nobody"):
        S.set_program_state(main, {"fc_0.w_0": w + 1, "nobody": np.zeros(1)})
    np.testing.assert_array_equal(scope_values(["fc_0.w_0"])["fc_0.w_0"], w + 1)


def test_load_refuses_a_checkpoint_missing_a_parameter(tmp_path):
    main, _, exe, _ = trained_program()
    with open(tmp_path / "m.pdparams", "wb") as f:
        pickle.dump({"fc_0.w_0": np.zeros((4, 3), "float32")}, f, protocol=4)
    with pytest.raises(FormatError, match="no value for parameter 'fc_0.b_0'"):
        S.load(main, str(tmp_path / "m"), exe)
    with open(tmp_path / "m.pdparams", "wb") as f:
        pickle.dump({"fc_0.w_0": np.zeros((3, 3), "float32"),
                     "fc_0.b_0": np.zeros(3, "float32")}, f, protocol=4)
    with pytest.raises(FormatError, match=r"shape \[3, 3\] for 'fc_0.w_0'"):
        S.load(main, str(tmp_path / "m"), exe)
    with pytest.raises(FormatError, match="no such checkpoint"):
        S.load_program_state(str(tmp_path / "absent"))


class _Exploit:
    def __reduce__(self):
        return (os.system, ("echo pwned",))


@pytest.mark.parametrize("payload, match", [
    ({"w": _Exploit()}, "refused to load: the file references (posix|os|nt).system"),
    ({"w": np.array([object()], dtype=object)}, "refused to load"),
    ([1, 2], None),
])
def test_checkpoint_unpickler_admits_only_plain_data(payload, match):
    data = pickle.dumps(payload, protocol=4)
    if match is None:
        assert safe_load_pickle(data) == payload
        return
    with pytest.raises(FormatError, match=match):
        safe_load_pickle(data)


def test_checkpoint_unpickler_reads_numpy_arrays_and_scalars():
    value = {"a": np.arange(6, dtype="int64").reshape(2, 3), "s": np.float32(2.5),
             "nested": [{"b": np.ones(2, "float16")}], "t": (1, "x", 2.0, None, True)}
    got = safe_load_pickle(pickle.dumps(value, protocol=2))
    np.testing.assert_array_equal(got["a"], value["a"])
    assert got["s"] == np.float32(2.5) and got["t"] == value["t"]
    assert got["nested"][0]["b"].dtype == np.float16
    with pytest.raises(FormatError, match="not a readable pickle"):
        safe_load_pickle(b"not a pickle")


def test_a_list_pickle_is_not_a_checkpoint(tmp_path):
    with open(tmp_path / "m.pdparams", "wb") as f:
        pickle.dump([np.zeros(2)], f)
    with pytest.raises(FormatError, match="dict of arrays"):
        S.load_program_state(str(tmp_path / "m"))


@pytest.mark.parametrize("protocol", [1, 5, "4", True])
def test_save_refuses_bad_protocols(tmp_path, protocol):
    main, _, _, _ = trained_program()
    with pytest.raises(PyirError, match="protocol"):
        S.save(main, str(tmp_path / "m"), protocol=protocol)


def test_save_needs_a_file_name():
    main, _, _, _ = trained_program()
    with pytest.raises(PyirError, match="dirname/filename"):
        S.save(main, "somedir/")


# --- bytes ----------------------------------------------------------------------------------
def mlp():
    main, start = S.Program(), S.Program()
    with S.program_guard(main, start):
        x = S.data("x", [-1, 4], "float32")
        h = S.nn.fc(x, 5, activation="relu")
        y = S.nn.batch_norm(h)  # is_test flips to True in the inference program
        out = S.nn.fc(y, 2)
        pyir.mean(out)  # an op the fetch does not need: pruned
    exe = S.Executor()
    exe.run(start)
    return main, x, out, exe


def test_normalize_program_prunes_and_adds_feed_fetch():
    main, x, out, _ = mlp()
    infer = S.normalize_program(main, x, out)
    types = [op.type for op in infer.global_block().ops]
    assert types[0] == "feed" and types[-1] == "fetch"
    assert "mean" not in types and "reduce_mean" not in types
    assert all(op.attrs["is_test"] for op in infer.global_block().ops if "is_test" in op.attrs)
    assert main.global_block().ops[0].type != "feed"  # the original is untouched
    with pytest.raises(PyirError, match="Variable"):
        S.normalize_program(main, "x", out)
    with pytest.raises(PyirError, match="empty"):
        S.normalize_program(S.Program(), [], [])


def test_program_and_persistables_round_trip_through_bytes(tmp_path):
    main, x, out, exe = mlp()
    feed = {"x": np.arange(8, dtype="float32").reshape(2, 4)}
    (expect,) = exe.run(main.clone(for_test=True), feed=feed, fetch_list=[out.name])
    S.save_to_file(str(tmp_path / "m.pdmodel"), S.serialize_program([x], [out], program=main))
    S.save_to_file(str(tmp_path / "m.pdiparams"), S.serialize_persistables([x], [out], exe,
                                                                     program=main))
    program = S.deserialize_program(S.load_from_file(str(tmp_path / "m.pdmodel")))
    with S.scope_guard(S.Scope()):
        S.deserialize_persistables(program, S.load_from_file(str(tmp_path / "m.pdiparams")),
                                   exe)
        (got,) = exe.run(program, feed=feed, fetch_list=[out.name])
    np.testing.assert_allclose(got, expect, rtol=1e-6)
    # The same files load as an inference model.
    with S.scope_guard(S.Scope()):
        prog, feeds, fetches = S.load_inference_model(str(tmp_path / "m"), exe)
        (again,) = exe.run(prog, feed=feed, fetch_list=fetches)
    assert feeds == ["x"]
    np.testing.assert_allclose(again, expect, rtol=1e-6)


def test_bytes_functions_refuse_wrong_types(tmp_path):
    with pytest.raises(PyirError, match="expects bytes"):
        S.deserialize_program("text")
    with pytest.raises(PyirError, match="content must be bytes"):
        S.save_to_file(str(tmp_path / "f"), "text")
    with pytest.raises(FormatError, match="no such file"):
        S.load_from_file(str(tmp_path / "absent"))
    main, x, out, exe = mlp()
    with pytest.raises(PyirError, match="data is None"):
        S.deserialize_persistables(main, None, exe)
    with pytest.raises(PyirError, match="expects a Program"):
        S.deserialize_persistables("main", b"", exe)


def test_deserialize_persistables_checks_parameter_shapes():
    main, x, out, exe = mlp()
    data = S.serialize_persistables([x], [out], exe, program=main)
    other, start = S.Program(), S.Program()
    with S.program_guard(other, start):
        h = S.nn.fc(S.data("x", [-1, 3], "float32"), 5, activation="relu")
        S.nn.fc(S.nn.batch_norm(h), 2)
    with pytest.raises(PyirError, match=r"fc_2.w_0.* needs shape \[3, 5\], the data "
                                        r"holds \[4, 5\]"):
        S.deserialize_persistables(other, data, exe)


@pytest.mark.parametrize("filename", [None, "all.params"])
def test_save_vars_load_vars_round_trip(tmp_path, filename):
    main, x, out, exe = mlp()
    names = sorted(v.name for v in main.list_vars() if S.is_persistable(v))
    before = scope_values(names)
    S.save_vars(exe, str(tmp_path), main, filename=filename)
    if filename is None:
        assert sorted(os.listdir(tmp_path)) == names
    with S.scope_guard(S.Scope()):
        S.load_vars(exe, str(tmp_path), main, filename=filename)
        after = scope_values(names)
    for name in names:
        np.testing.assert_array_equal(after[name], before[name])


def test_save_vars_with_a_predicate_and_load_vars_errors(tmp_path):
    main, x, out, exe = mlp()
    S.save_vars(exe, str(tmp_path), main,
                predicate=lambda v: v.name.startswith("fc") and v.name.endswith("w_0"))
    assert sorted(os.listdir(tmp_path)) == ["fc_0.w_0", "fc_1.w_0"]
    with pytest.raises(FormatError, match="no file for variable 'batch_norm_0.b_0'"):
        S.load_vars(exe, str(tmp_path), main)
    with pytest.raises(PyirError, match="no value in the scope"):
        with S.scope_guard(S.Scope()):
            S.save_vars(exe, str(tmp_path / "x"), main)
