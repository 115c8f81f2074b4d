"""save_inference_model / load_inference_model / save_model / load_model (docs/wire-format.md §2)."""

import json
import pathlib

import numpy as np
import pytest

import pyir

from pyir import files as pio
from pyir import static
from pyir._proto import framework_pb2 as pb
from pyir.registry import AttrType
from pyir.builder import emit
from pyir.errors import FormatError, PyirError
from pyir.executor import Scope, global_scope
from pyir.framework import FEED_MINIBATCH, FETCH_LIST
from pyir.files import read_params, write_params
from pyir.serialize import load_program

GOLDEN = pathlib.Path(__file__).resolve().parent / "paddle_golden"


def _mlp(act="relu"):
    x = static.data("x", [4, 16], "float32")
    h = static.nn.fc(x, 32, activation=act)
    o = static.nn.fc(h, 10)
    return x, h, o


def _startup(exe=None):
    exe = exe or static.Executor()
    exe.run(static.default_startup_program())
    return exe


def test_saved_mlp_is_byte_identical_to_paddles(tmp_path):
    x, h, o = _mlp()
    s = emit("softmax", {"X": o}, {"axis": -1})["Out"]
    static.save_inference_model(str(tmp_path / "m"), [x], [h, o, s], _startup())
    assert (tmp_path / "m.pdmodel").read_bytes() == (GOLDEN / "mlp" / "model.pdmodel").read_bytes()


def test_save_load_run_gives_the_same_outputs(tmp_path, rng):
    x, h, o = _mlp(act="tanh")
    exe = _startup()
    feed = {"x": rng.standard_normal((4, 16)).astype(np.float32)}
    want = exe.run(static.default_main_program(), feed=feed, fetch_list=[o, h])
    static.save_inference_model(str(tmp_path / "sub" / "m"), [x], [o, h], exe)
    with static.scope_guard(Scope()):
        program, feeds, fetches = static.load_inference_model(str(tmp_path / "sub" / "m"), exe)
        assert feeds == ["x"] and [v.name for v in fetches] == [o.name, h.name]
        got = exe.run(program, feed=feed, fetch_list=fetches)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


def test_layout_follows_paddles_conventions(tmp_path):
    a = static.data("a", [-1, 3], "float32")
    b = static.data("b", [-1, 3], "float32")
    y = static.nn.fc(emit("elementwise_add", {"X": a, "Y": b})["Out"], 2)
    unused = static.nn.fc(a, 5)  # a branch the fetches do not need: pruned with its params
    z = emit("tanh", {"X": y})["Out"]
    static.save_inference_model(str(tmp_path / "m"), [a, b], [z, y], _startup())
    desc = pb.ProgramDesc()
    desc.ParseFromString((tmp_path / "m.pdmodel").read_bytes())
    assert desc.version.version == 3003001 and len(desc.op_version_map.pair) == 76
    block = desc.blocks[0]
    ops = [(op.type, {x.name: x.i for x in op.attrs}.get("col")) for op in block.ops]
    assert ops[:2] == [("feed", 1), ("feed", 0)] and ops[-2:] == [("fetch", 0), ("fetch", 1)]
    assert [op.outputs[0].arguments[0] for op in block.ops[:2]] == ["b", "a"]
    names = [v.name for v in block.vars]
    assert names[-2:] == ["feed", "fetch"] and names[:-2] == sorted(names[:-2])
    assert not any(n.startswith("fc_1.") for n in names)
    holders = {v.name: v for v in block.vars[-2:]}
    assert holders["feed"].type.type == FEED_MINIBATCH and holders["fetch"].type.type == FETCH_LIST
    assert all(v.persistable for v in holders.values())
    for v in block.vars:
        assert v.HasField("persistable") and not v.HasField("is_parameter")
        assert not v.HasField("stop_gradient")
        assert v.HasField("need_check_feed") == (v.name in ("a", "b"))
    for op in block.ops:
        attr_names = [x.name for x in op.attrs]
        assert attr_names == sorted(attr_names) and "op_callstack" not in attr_names
        assert [s.parameter for s in op.inputs] == sorted(s.parameter for s in op.inputs)
    params = read_params(str(tmp_path / "m.pdiparams"), ["fc_0.b_0", "fc_0.w_0"])
    np.testing.assert_array_equal(params["fc_0.w_0"], global_scope()["fc_0.w_0"])
    assert unused.name not in names


def test_is_test_is_set_and_extra_attrs_clipped():
    x = static.data("x", [2, 3], "float32")
    y = emit("tanh", {"X": x})["Out"]
    op = static.default_main_program().global_block().ops[-1]
    op.attrs.update(is_test=False, use_mkldnn=True, op_callstack=["f.py:1"])
    infer = pio.inference_program(static.default_main_program(), ["x"], [y.name])
    tanh = next(o for o in infer.global_block().ops if o.type == "tanh")
    assert "use_mkldnn" not in tanh.attrs and "op_callstack" not in tanh.attrs
    assert tanh.attrs.get("is_test", True) is True
    # the source program is untouched
    assert op.attrs["use_mkldnn"] is True


def test_no_persistables_means_no_params_file(tmp_path):
    x = static.data("x", [2, 3], "float32")
    y = emit("exp", {"X": x})["Out"]
    static.save_inference_model(str(tmp_path / "m"), [x], [y], static.Executor())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.pdmodel"]
    program, feeds, fetches = static.load_inference_model(str(tmp_path / "m"), None)
    out = static.Executor().run(program, feed={"x": np.ones((2, 3), np.float32)},
                                fetch_list=fetches)
    np.testing.assert_allclose(out[0], np.exp(np.ones((2, 3), np.float32)))


def test_failed_save_leaves_nothing_behind(tmp_path):
    x, h, o = _mlp()  # startup program not run: the parameters have no values
    with pytest.raises(PyirError, match="fc_0.b_0.*startup"):
        static.save_inference_model(str(tmp_path / "m"), [x], [o], static.Executor())
    assert list(tmp_path.iterdir()) == []


def test_bad_arguments():
    x, h, o = _mlp()
    with pytest.raises(PyirError, match="not a variable"):
        pio.inference_program(static.default_main_program(), ["x"], ["nope"])
    with pytest.raises(PyirError, match="fetch_vars is empty"):
        static.save_inference_model("/tmp/never", [x], [], static.Executor())
    with pytest.raises(PyirError, match="file prefix"):
        static.save_inference_model(str(GOLDEN), [x], [o], static.Executor())


def test_load_inference_model_reads_paddles_mlp():
    program, feeds, fetches = static.load_inference_model(str(GOLDEN / "mlp" / "model"), None)
    meta = json.loads((GOLDEN / "mlp" / "meta.json").read_text())
    assert feeds == meta["feed_names"]
    assert [v.name for v in fetches] == meta["fetch_names"]
    for name, info in meta["persistable_vars"].items():
        assert global_scope()[name].shape == tuple(info["shape"])
        assert abs(float(global_scope()[name].mean()) - info["mean"]) < 1e-6


def test_save_model_and_load_model_with_sidecar_and_npz(tmp_path, rng):
    x, h, o = _mlp()
    scope = Scope()
    static.Executor().run(static.default_startup_program(), scope=scope)
    path = tmp_path / "out" / "model.pb"
    pio.save_model(str(path), static.default_main_program(), ["x"], [o.name], scope)
    assert sorted(p.name for p in path.parent.iterdir()) == ["model.pb", "model.pdiparams"]
    loaded = pio.load_model(str(path), scope=Scope())
    assert (loaded.feed_names, loaded.fetch_names) == (["x"], [o.name])
    assert loaded.params_path == str(tmp_path / "out" / "model.pdiparams")
    npz = tmp_path / "p.npz"
    write_params(str(npz), {n: scope[n] for n in pio.persistable_names(loaded.program)})
    other = Scope()
    pio.load_model(str(path), params=str(npz), scope=other)
    feed = {"x": rng.standard_normal((4, 16)).astype(np.float32)}
    a = static.Executor().run(loaded.program, feed=feed, fetch_list=[o.name], scope=other)
    b = static.Executor().run(static.default_main_program(), feed=feed, fetch_list=[o],
                              scope=scope)
    np.testing.assert_array_equal(a[0], b[0])


def test_params_that_do_not_fit_the_program_are_rejected(tmp_path):
    x, h, o = _mlp()
    scope = Scope()
    static.Executor().run(static.default_startup_program(), scope=scope)
    path = tmp_path / "m.pb"
    pio.save_model(str(path), static.default_main_program(), ["x"], [o.name], scope)
    names = pio.persistable_names(load_program(str(path)))
    bad = {n: scope[n] for n in names}
    bad["fc_1.w_0"] = np.zeros((32, 11), np.float32)
    write_params(str(tmp_path / "bad.npz"), bad)
    with pytest.raises(FormatError, match=r"bad.npz.*fc_1.w_0.*\[32, 11\]"):
        pio.load_model(str(path), params=str(tmp_path / "bad.npz"), scope=Scope())
    with pytest.raises(FormatError, match="no such params file"):
        pio.load_model(str(path), params=str(tmp_path / "missing.pdiparams"))


def test_pylayer_backward_blocks_are_dropped_and_blocks_renumbered():
    program = load_program(str(GOLDEN / "pylayer_grad" / "model_forward.pb"))
    infer = pio.inference_program(program, ["x", "w"], ["mean_0.tmp_0"])
    assert len(infer.blocks) == 3
    layers = [op for op in infer.global_block().ops if op.type == "pylayer"]
    assert [op.attrs["blocks"] for op in layers] == [[1], [2]]
    assert [(b.idx, b.parent_idx) for b in infer.blocks] == [(0, -1), (1, 0), (2, 0)]
    assert [op.type for op in infer.blocks[2].ops] == [op.type for op in program.blocks[3].ops]
    # the variables the sub-blocks read from the global block survive pruning
    for b in infer.blocks[1:]:
        for op in b.ops:
            for name in op.input_arg_names:
                assert b.find_var(name) is not None, name


def test_py_func_programs_save_load_and_run(tmp_path, rng):
    import helpers_callables as hc

    x = static.data("x", [2, 3], "float32")
    h = static.nn.fc(x, 3)
    y = static.default_main_program().global_block().create_var("y", "float32", [2, 3])
    static.py_func(hc.tanh, h, y, backward_func=hc.tanh_grad, skip_vars_in_backward_input=h)
    exe = _startup()
    feed = {"x": rng.standard_normal((2, 3)).astype(np.float32)}
    want = exe.run(static.default_main_program(), feed=feed, fetch_list=[y])[0]
    static.save_inference_model(str(tmp_path / "m"), [x], [y], exe)
    refs = [op.attrs["forward_callable"] for op in load_program(str(tmp_path / "m.pdmodel"))
            .global_block().ops if op.type == "py_func"]
    assert refs == ["helpers_callables:tanh"]
    with static.scope_guard(Scope()):
        program, feeds, fetches = static.load_inference_model(str(tmp_path / "m"), exe)
        np.testing.assert_array_equal(exe.run(program, feed=feed, fetch_list=fetches)[0], want)


def test_unsaveable_callable_fails_before_any_file_is_written(tmp_path):
    x = static.data("x", [2, 3], "float32")
    y = static.default_main_program().global_block().create_var("y", "float32", [2, 3])
    static.py_func(lambda a: a * 2, x, y)
    with pytest.raises(PyirError, match="py_func"):
        static.save_inference_model(str(tmp_path / "m"), [x], [y], static.Executor())
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("case", ["mlp_grad", "pylayer_grad", "simple_net"])
def test_load_model_reads_paddles_training_programs_with_explicit_params(case):
    folder = GOLDEN / case
    scope = Scope()
    loaded = pio.load_model(str(folder / "model_with_grad.pb"),
                            params=str(folder / "model.pdiparams"), scope=scope)
    meta = json.loads((folder / "meta.json").read_text())
    assert sorted(loaded.feed_names) == sorted(meta["feed_names"])
    assert loaded.params_path == str(folder / "model.pdiparams")
    with np.load(folder / "params.npz") as ref:
        assert sorted(scope.vars) == sorted(ref.files)
        for name in ref.files:
            np.testing.assert_array_equal(scope[name], ref[name])
    # without fetch ops the outputs are the tensors no op reads (never holder variables)
    block = loaded.program.global_block()
    assert all(block.var(n).dtype is not None for n in loaded.fetch_names)


def test_extra_output_slots_are_clipped_but_their_variables_stay(monkeypatch):
    from dataclasses import dataclass

    from pyir import registry

    @dataclass(frozen=True)
    class ExtraSlot(registry.Slot):
        extra: bool = True

    base = registry.OPS["tanh"]
    fake = registry.OpDef("fake_xshape", base.inputs, (registry.Slot("Out"), ExtraSlot("XShape")),
                          (), base.kernel, None, None, False, "", ())
    monkeypatch.setitem(registry.OPS, "fake_xshape", fake)
    x = static.data("x", [2, 3], "float32")
    block = static.default_main_program().global_block()
    for name in ("y", "y_shape"):
        block.create_var(name, "float32", [2, 3])
    block.append_op("fake_xshape", {"X": ["x"]}, {"Out": ["y"], "XShape": ["y_shape"]})
    infer = pio.inference_program(static.default_main_program(), [x.name], ["y"])
    op = next(o for o in infer.global_block().ops if o.type == "fake_xshape")
    assert op.outputs == {"Out": ["y"]}
    assert "y_shape" in infer.global_block().vars  # as Paddle: declared, no longer written


def test_written_files_get_the_usual_permissions(tmp_path):
    import os

    x, h, o = _mlp()
    old = os.umask(0o022)
    try:
        static.save_inference_model(str(tmp_path / "m"), [x], [o], _startup())
    finally:
        os.umask(old)
    for name in ("m.pdmodel", "m.pdiparams"):
        assert (tmp_path / name).stat().st_mode & 0o777 == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.pdiparams", "m.pdmodel"]


def _exp_pylayer():
    import pyir

    x = static.data("X", [1, 3], "float32")
    x.stop_gradient = False
    y = static.nn.static_pylayer(pyir.exp, [x], lambda dy: 2 * pyir.exp(dy))
    return x, y


def test_save_model_keeps_pylayer_backward_blocks_so_the_file_can_be_differentiated(tmp_path):
    x, y = _exp_pylayer()
    infer = pio.save_model(str(tmp_path / "m.pb"), static.default_main_program(), ["X"],
                           [y.name], Scope())
    pylayer = next(op for op in infer.global_block().ops if op.type == "pylayer")
    assert len(pylayer.attrs["blocks"]) == 2
    loaded = pio.load_model(str(tmp_path / "m.pb"))
    program = loaded.program
    with static.program_guard(program, static.Program()):
        gx, = static.gradients([program.global_block().var(y.name)],
                               [program.global_block().var("X")])
    value = np.array([[0.0, 1.0, 2.0]], np.float32)
    got, = static.Executor().run(program, feed={"X": value}, fetch_list=[gx])
    np.testing.assert_allclose(got, 2 * np.exp(1.0) * np.ones((1, 3)), rtol=1e-6)


def test_save_inference_model_drops_pylayer_backward_blocks_as_paddle_does(tmp_path):
    x, y = _exp_pylayer()
    static.save_inference_model(str(tmp_path / "m"), [x], [y], static.Executor())
    program = load_program(str(tmp_path / "m.pdmodel"))
    pylayer = next(op for op in program.global_block().ops if op.type == "pylayer")
    assert len(pylayer.attrs["blocks"]) == 1 and len(program.blocks) == 2


PADDLE_SAVED = sorted(p.parent for p in pathlib.Path(__file__).resolve().parent.glob(
    "*/*/model.pdmodel") if (p.parent / "model.pdiparams").exists())


@pytest.mark.parametrize("folder", PADDLE_SAVED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_resaving_a_paddle_model_keeps_the_attributes_paddle_kept(folder, tmp_path):
    """Paddle's clip_extra drops each op's extra attributes: re-saving one of its inference
    models must leave every computing op with exactly the attributes and values it has."""
    exe = static.Executor()
    with static.scope_guard(Scope()):
        program, feeds, fetches = static.load_inference_model(str(folder / "model"), exe)
        static.save_inference_model(str(tmp_path / "m"), [program.global_block().var(n)
                                                          for n in feeds], fetches, exe,
                                    program=program)
    ours, theirs = pb.ProgramDesc(), pb.ProgramDesc()
    ours.ParseFromString((tmp_path / "m.pdmodel").read_bytes())
    theirs.ParseFromString((folder / "model.pdmodel").read_bytes())

    def computing_ops(desc):
        return [op for op in desc.blocks[0].ops if op.type not in ("feed", "fetch")]

    assert [op.type for op in computing_ops(ours)] == [op.type for op in computing_ops(theirs)]
    for mine, paddles in zip(computing_ops(ours), computing_ops(theirs)):
        assert list(mine.attrs) == list(paddles.attrs), mine.type
        assert list(mine.outputs) == list(paddles.outputs), mine.type


def test_attributes_paddle_marks_extra_are_clipped_from_saved_models(tmp_path):
    x = static.data("x", [-1, 4], "float32")
    y = emit("dropout", {"X": x}, {"dropout_prob": 0.25, "seed": 7, "fix_seed": True})["Out"]
    static.save_inference_model(str(tmp_path / "m"), [x], [y], static.Executor())
    desc = pb.ProgramDesc()
    desc.ParseFromString((tmp_path / "m.pdmodel").read_bytes())
    dropout = next(op for op in desc.blocks[0].ops if op.type == "dropout")
    names = {a.name for a in dropout.attrs}
    assert "dropout_prob" in names and "is_test" in names
    assert not names & {"seed", "fix_seed"}


# Ops whose Paddle 3.3.1 OpProto marks no attribute extra (`core.get_op_extra_attrs` is empty
# for them): read off Paddle 3.3.1.
PADDLE_NO_EXTRA_ATTRS = {
    "acos", "adam", "adamw", "arg_max", "arg_min", "argsort", "asin", "assign", "assign_value",
    "atan", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "bmm", "cholesky",
    "clip_by_norm", "cross", "cross_entropy2", "cumprod", "cumsum", "determinant", "diag_v2",
    "dist", "dot", "equal", "erf", "expand_as_v2", "eye", "fill_any_like",
    "fill_constant_batch_size_like", "flip", "gather", "gather_nd", "gather_tree",
    "greater_equal", "greater_than", "group_norm", "hard_sigmoid", "increment", "index_add",
    "index_sample", "index_select", "instance_norm", "inverse", "isfinite_v2", "isinf_v2",
    "isnan_v2", "kron", "label_smooth", "less_equal", "less_than", "linspace", "logical_and",
    "logical_not", "logical_or", "logical_xor", "logsumexp", "masked_select", "matrix_power",
    "mean", "meshgrid", "momentum", "norm", "not_equal", "one_hot_v2", "p_norm", "pad", "pow",
    "put_along_axis", "py_func", "range", "repeat_interleave", "rnn", "roll", "scatter",
    "scatter_nd_add", "selu", "sequence_mask", "set_value", "sign", "softmax_with_cross_entropy",
    "squared_l2_norm", "strided_slice", "take_along_axis", "tile", "top_k", "top_k_v2", "trace",
    "tril_triu", "trunc", "uniform_random", "unsqueeze2", "unstack", "where", "where_index",
    # the vision and detection ops (issue 15)
    "anchor_generator", "box_coder", "channel_shuffle", "deformable_conv", "deformable_conv_v1",
    "distribute_fpn_proposals", "generate_proposals_v2", "matrix_nms", "multiclass_nms",
    "multiclass_nms3", "nms", "pixel_shuffle", "pixel_unshuffle", "psroi_pool", "roi_align",
    "roi_pool", "yolo_box", "yolov3_loss",
}


def test_the_no_extra_attrs_flag_is_set_on_exactly_paddles_ops():
    from pyir import registry

    flagged = {name for name, opdef in registry.OPS.items() if opdef.no_extra_attrs}
    assert flagged == PADDLE_NO_EXTRA_ATTRS, (sorted(flagged - PADDLE_NO_EXTRA_ATTRS),
                                              sorted(PADDLE_NO_EXTRA_ATTRS - flagged))


def test_a_flagged_op_keeps_its_callstack_in_a_saved_model_and_others_lose_it(tmp_path):
    main = pyir.static.Program()
    with pyir.static.program_guard(main, pyir.static.Program()):
        x = pyir.static.data("x", [2, 3], "float32")
        y = pyir.cumsum(pyir.tanh(x), axis=1)   # tanh: extras clipped; cumsum: flagged
    for op in main.global_block().ops:
        op.attrs["op_callstack"], op.attr_types["op_callstack"] = ["here"], AttrType.STRINGS
    pyir.static.save_inference_model(str(tmp_path / "m"), [x], [y], pyir.static.Executor(),
                                     program=main)
    desc = pb.ProgramDesc()
    desc.ParseFromString((tmp_path / "m.pdmodel").read_bytes())
    kept = {op.type: {a.name for a in op.attrs} for op in desc.blocks[0].ops}
    assert "op_callstack" in kept["cumsum"] and "op_callstack" not in kept["tanh"]
