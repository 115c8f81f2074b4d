"""Paddle 3 PIR `.json` programs run by pyir to Paddle 3.3.1's numbers (goldens written by
tools/gen_golden_pir.py), to the same result as the legacy `.pdmodel` of the same model, and
through every door that opens a model: load_inference_model, jit.load, the CLI, convert."""

from __future__ import annotations

import json
import pathlib
import shutil

import numpy as np
import pytest

import pyir
from conftest import cli
from pyir.files import load_model, run_model
from pyir.files.convert import convert_model
from pyir.serialize import load_program

GOLDEN = pathlib.Path(__file__).parent / "golden_pir"
MODELS = sorted(p.name for p in GOLDEN.iterdir() if (p / "model.json").exists())


def inputs(name):
    return dict(np.load(GOLDEN / name / "inputs.npz"))


def expected(name):
    data = np.load(GOLDEN / name / "expected.npz")
    return [data[f"out{i}"] for i in range(len(data.files))]


def test_the_goldens_cover_the_brief():
    assert {"mlp", "cnn", "lstm", "clip_inf", "block", "misc", "control_flow",
            "control_flow_neg", "vision", "transformer_gru"} <= set(MODELS)
    assert sum(f.stat().st_size for f in GOLDEN.rglob("*") if f.is_file()) < 1_500_000


@pytest.mark.parametrize("name", MODELS)
def test_json_runs_to_paddles_numbers(name):
    result = run_model(str(GOLDEN / name / "model.json"), inputs(name))
    outs = list(result.outputs.values())
    want = expected(name)
    assert len(outs) == len(want)
    for got, exp in zip(outs, want):
        assert got.dtype == exp.dtype and got.shape == exp.shape
        np.testing.assert_allclose(got, exp, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("name", [m for m in MODELS if (GOLDEN / m / "model.pdmodel").exists()])
def test_json_and_pdmodel_agree(name):
    a = run_model(str(GOLDEN / name / "model.json"), inputs(name))
    b = run_model(str(GOLDEN / name / "model.pdmodel"), inputs(name))
    for x, y in zip(a.outputs.values(), b.outputs.values()):
        np.testing.assert_allclose(x, y, rtol=1e-6, atol=1e-7)


def test_feed_and_fetch_targets_are_real_variable_names():
    m = load_model(str(GOLDEN / "mlp" / "model.json"), scope=pyir.static.Scope())
    assert m.feed_names == ["x"]
    block = m.program.global_block()
    assert len(m.fetch_names) == 1 and not m.fetch_names[0].startswith("fetch_name")
    assert block.var(m.fetch_names[0]).dtype == np.float32
    params = sorted(v.name for v in block.vars.values() if v.persistable and v.name not in (
        "feed", "fetch"))
    assert params == ["linear_0.b_0", "linear_0.w_0", "linear_1.b_0", "linear_1.w_0"]
    assert block.var("linear_0.w_0").shape == (8, 16)
    assert [op.type for op in block.ops][:3] == ["feed", "matmul_v2", "elementwise_add"]


def test_translation_uses_legacy_ops_and_attributes():
    program = load_program(str(GOLDEN / "cnn" / "model.json"))
    ops = {op.type: op for op in program.global_block().ops}
    assert "batch_norm_" not in ops and "full_int_array" not in ops
    bn = ops["batch_norm"]
    # in place: the running statistics are written back to the parameters they came from
    assert bn.output("MeanOut") == bn.input("Mean") and bn.attrs["data_layout"] == "NCHW"
    pools = [op for op in program.global_block().ops if op.type == "pool2d"]
    # kernel_size arrives as a full_int_array operand
    assert [(p.attrs["ksize"], p.attrs["pooling_type"], p.attrs["adaptive"]) for p in pools] \
        == [([2, 2], "max", False), ([1, 1], "avg", True)]
    assert [op.attrs["groups"] for op in program.global_block().ops if op.type == "conv2d"] \
        == [1, 2]


def test_minus_inf_attribute_reaches_the_kernel():
    program = load_program(str(GOLDEN / "clip_inf" / "model.json"))
    clips = [op for op in program.global_block().ops if op.type == "clip"]
    assert any(op.attrs["min"] == -np.inf for op in clips)
    assert any(op.attrs["max"] == np.inf for op in clips)


def test_lstm_skips_the_non_persistable_dropout_state():
    program = load_program(str(GOLDEN / "lstm" / "model.json"))
    names = {v.name for v in program.list_vars()}
    assert not any("dropout_state" in n for n in names)
    rnn = next(op for op in program.global_block().ops if op.type == "rnn")
    assert len(rnn.input("WeightList")) == 4 and len(rnn.output("State")) == 2


def test_load_inference_model_and_jit_load_find_the_json(tmp_path):
    for f in ("model.json", "model.pdiparams"):
        shutil.copy(GOLDEN / "block" / f, tmp_path / f)
    exe = pyir.static.Executor()
    program, feeds, fetches = pyir.static.load_inference_model(str(tmp_path / "model"), exe)
    outs = exe.run(program, feed={feeds[0]: inputs("block")["ids"]}, fetch_list=fetches)
    for got, want in zip(outs, expected("block")):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)
    layer = pyir.jit.load(str(tmp_path / "model"))
    got = layer(pyir.to_tensor(inputs("block")["ids"]))
    np.testing.assert_allclose(np.asarray(got[0]), expected("block")[0], rtol=1e-4, atol=1e-6)


def test_detection_is_by_content_not_extension(tmp_path):
    for f in ("model.json", "model.pdiparams"):
        shutil.copy(GOLDEN / "mlp" / f, tmp_path / f.replace("model.json", "model.bin")
                    .replace("model.pdiparams", "model.pdiparams"))
    result = run_model(str(tmp_path / "model.bin"), inputs("mlp"))
    np.testing.assert_allclose(list(result.outputs.values())[0], expected("mlp")[0],
                               rtol=1e-4, atol=1e-6)


def test_cli_run_and_inspect_take_json(tmp_path):
    np.save(tmp_path / "x.npy", inputs("mlp")["x"])
    out = tmp_path / "out.npz"
    r = cli("run", GOLDEN / "mlp" / "model.json", "--feed", tmp_path / "x.npy", "-o", out)
    assert r.exit_code == 0, r.output
    got = np.load(out)
    np.testing.assert_allclose(got[got.files[0]], expected("mlp")[0], rtol=1e-4, atol=1e-6)
    r = cli("inspect", GOLDEN / "cnn" / "model.json")
    assert r.exit_code == 0 and "batch_norm(" in r.output and "pool2d(" in r.output


def test_grad_of_a_json_model_runs(tmp_path):
    # the PIR program, once translated, is an ordinary program: append a loss and differentiate
    m = load_model(str(GOLDEN / "mlp" / "model.json"), scope=pyir.static.global_scope())
    program = m.program
    with pyir.static.program_guard(program):
        out = program.global_block().var(m.fetch_names[0])
        loss = pyir.mean(out * out)
        grads = pyir.static.append_backward(loss)
    exe = pyir.static.Executor()
    names = {p.name: g.name for p, g in grads}
    res = exe.run(program, feed=inputs("mlp"), fetch_list=[loss.name, names["linear_1.b_0"]])
    assert np.isfinite(res[0]) and res[1].shape == (4,) and np.abs(res[1]).sum() > 0


@pytest.mark.parametrize("name", MODELS)
def test_convert_writes_a_legacy_model_that_runs_the_same(name, tmp_path):
    out = tmp_path / "legacy" / "model.pdmodel"
    done = convert_model(str(GOLDEN / name / "model.json"), str(out))
    assert out.read_bytes()[:1] != b"{"  # a protobuf ProgramDesc, not JSON
    src_params = GOLDEN / name / "model.pdiparams"
    if src_params.exists():
        assert pathlib.Path(done.params_path).read_bytes() == src_params.read_bytes()
    result = run_model(str(out), inputs(name))
    for got, want in zip(result.outputs.values(), expected(name)):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)


def test_cli_convert(tmp_path):
    r = cli("convert", GOLDEN / "cnn" / "model.json", "-o", tmp_path / "m.pdmodel")
    assert r.exit_code == 0, r.output
    assert "m.pdiparams" in r.output and (tmp_path / "m.pdiparams").exists()
    program = load_program(str(tmp_path / "m.pdmodel"))
    assert program.version == 3003001
    assert not json.dumps([op.type for op in program.global_block().ops]).count("_\"")


def test_if_and_while_become_pyirs_control_flow_ops():
    program = load_program(str(GOLDEN / "control_flow" / "model.json"))
    types = [op.type for op in program.global_block().ops]
    assert types.count("conditional_block") == 2 and "select_input" in types
    assert "while" in types and program.num_blocks == 4
    loop = program.global_block().ops[types.index("while")]
    body = program.blocks[loop.attrs["sub_block"]]
    # the body ends by assigning the new condition and loop variables back
    assert [op.type for op in body.ops[-3:]] == ["assign"] * 3
    assert loop.input("Condition")[0] in loop.output("Out")


@pytest.mark.parametrize("name", ["control_flow", "control_flow_neg"])
def test_gradient_through_if_and_while_matches_finite_differences(name):
    scope = pyir.static.Scope()
    m = load_model(str(GOLDEN / name / "model.json"), scope=scope)
    program = m.program
    with pyir.static.program_guard(program):
        block = program.global_block()
        loss = pyir.mean(block.var(m.fetch_names[1])) + pyir.mean(block.var(m.fetch_names[0]))
        grads = dict((p.name, g.name) for p, g in pyir.static.append_backward(loss))
    exe = pyir.static.Executor()
    feed = inputs(name)

    def run(fetch):
        return exe.run(program, feed=feed, fetch_list=fetch, scope=scope)

    g = run([grads["linear_0.b_0"]])[0]
    b = scope["linear_0.b_0"].copy()
    eps = 1e-2
    for i in range(b.size):
        for sign in (1, -1):
            bb = b.copy()
            bb[i] += sign * eps
            scope["linear_0.b_0"] = bb
            if sign == 1:
                up = float(run([loss.name])[0])
            else:
                down = float(run([loss.name])[0])
        scope["linear_0.b_0"] = b
        assert abs((up - down) / (2 * eps) - g[i]) < 2e-3, (i, g)


def test_jit_json_to_pdmodel(tmp_path):
    src = GOLDEN / "cnn"
    pyir.jit.json_to_pdmodel(None, None, str(src / "model"), str(tmp_path / "legacy"))
    assert (tmp_path / "legacy.pdiparams").read_bytes() == (src / "model.pdiparams").read_bytes()
    got = list(run_model(str(tmp_path / "legacy.pdmodel"), inputs("cnn")).outputs.values())
    np.testing.assert_allclose(got[0], expected("cnn")[0], rtol=1e-4, atol=1e-6)


def test_cli_grad_takes_json(tmp_path):
    # a PIR file whose output is a scalar loss (the MLP's mean square), written as .json
    from pyir.files.inference import inference_program
    from pyir.files.params import read_params
    from pyir.pir.writer import program_to_pir
    program = load_program(str(GOLDEN / "mlp" / "model.json"))
    block = program.global_block()
    fetched = next(op.input("X")[0] for op in block.ops if op.type == "fetch")
    with pyir.static.program_guard(program):
        out = block.var(fetched)
        loss = pyir.mean(out * out)
    model = tmp_path / "loss.json"
    model.write_bytes(program_to_pir(inference_program(program, ["x"], [loss.name])))
    shutil.copy(GOLDEN / "mlp" / "model.pdiparams", tmp_path / "loss.pdiparams")
    r = cli("grad", model, "-o", tmp_path / "grad.pb")
    assert r.exit_code == 0, r.output
    np.save(tmp_path / "x.npy", inputs("mlp")["x"])
    r = cli("run", tmp_path / "grad.pb", "--params", tmp_path / "loss.pdiparams", "--feed",
            tmp_path / "x.npy", "-o", tmp_path / "g.npz")
    assert r.exit_code == 0, r.output
    grad = np.load(tmp_path / "g.npz")["linear_1.b_0@GRAD"]
    # central differences of the .json model itself, parameters given as .npz
    params = read_params(str(GOLDEN / "mlp" / "model.pdiparams"),
                         ["linear_0.b_0", "linear_0.w_0", "linear_1.b_0", "linear_1.w_0"])
    eps = 1e-2
    for i in range(4):
        losses = []
        for sign in (1, -1):
            p = {k: v.astype(np.float64).astype(np.float32) for k, v in params.items()}
            p["linear_1.b_0"] = p["linear_1.b_0"].copy()
            p["linear_1.b_0"][i] += sign * eps
            np.savez(tmp_path / "p.npz", **p)
            res = run_model(str(model), inputs("mlp"), params=str(tmp_path / "p.npz"))
            losses.append(float(list(res.outputs.values())[0]))
        assert abs((losses[0] - losses[1]) / (2 * eps) - grad[i]) < 1e-3, (i, grad)
    assert np.abs(grad).max() > 1e-3
