"""Paddle's own results for the tensor, compare, math, transformer and rnn ops, run by pyir.

Each case under tests/golden_seq/ was written by tools/gen_golden_seq.py with Paddle 3.3.1 in
legacy mode. Inference cases are saved models with inputs and Paddle's outputs: pyir loads
the .pdmodel/.pdiparams pair, runs it once, and compares every fetch on its own, labelled
with what it checks (meta.json), e.g. "round half to even". Gradient cases hold a forward
program, Paddle's `append_backward` of it, and Paddle's input gradients: pyir must get them
both by running Paddle's backward ops and by appending its own backward.
"""

from __future__ import annotations

import functools
import json
import pathlib

import numpy as np
import pytest

import pyir
from pyir.backward import append_backward
from pyir.executor import Executor, Scope
from pyir.serialize import load_program

GOLDEN = pathlib.Path(__file__).resolve().parent / "golden_seq"


def _meta(case: str) -> dict:
    return json.loads((GOLDEN / case / "meta.json").read_text())


_ALL = sorted(p.name for p in GOLDEN.iterdir() if (p / "meta.json").is_file())
CASES = [c for c in _ALL if _meta(c).get("kind") != "grad"]
GRAD_CASES = [c for c in _ALL if _meta(c).get("kind") == "grad"]
FETCHES = [pytest.param(case, i, id=f"{case}-{i}-{label}")
           for case in CASES for i, label in enumerate(_meta(case)["labels"])]
GRADS = [pytest.param(case, i, id=f"{case}-{i}-{label}")
         for case in GRAD_CASES for i, label in enumerate(_meta(case)["labels"])]


@functools.cache
def run_case(case: str) -> dict:
    """Load the saved model with pyir and run it on the saved inputs; fetch name -> array."""
    folder = GOLDEN / case
    scope = Scope()
    model = pyir.files.load_model(str(folder / "model.pdmodel"), scope=scope)
    with np.load(folder / "inputs.npz") as inputs:
        feed = {name: inputs[name] for name in model.feed_names}
    values = Executor().run(model.program, feed=feed, fetch_list=model.fetch_names, scope=scope)
    return dict(zip(model.fetch_names, (np.asarray(v) for v in values)))


def test_every_case_feeds_and_fetches_what_paddle_saved():
    for case in CASES:
        meta = _meta(case)
        model = pyir.files.load_model(str(GOLDEN / case / "model.pdmodel"), scope=Scope())
        assert sorted(model.feed_names) == sorted(meta["feeds"]), case
        assert list(model.fetch_names) == meta["fetches"], case


@pytest.mark.parametrize("case, index", FETCHES)
def test_fetch_matches_paddle(case, index):
    meta = _meta(case)
    name, label = meta["fetches"][index], meta["labels"][index]
    with np.load(GOLDEN / case / "expected.npz") as expected:
        want = expected[name]
    got = run_case(case)[name]
    what = f"{case}: {label} ({name})"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, Paddle {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape}, Paddle {want.shape}"
    if np.issubdtype(want.dtype, np.floating):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=2e-6, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


@functools.cache
def run_grad_case(case: str, program_file: str) -> dict:
    """Gradients of a grad case's loss: from Paddle's backward program, or from pyir's own
    backward appended to the forward program; grad name -> array."""
    meta = _meta(case)
    program = load_program(str(GOLDEN / case / program_file))
    if program_file == "model_forward.pb":
        append_backward(program.global_block().var(meta["loss"]))
    with np.load(GOLDEN / case / "inputs.npz") as inputs:
        feed = dict(inputs)
    values = Executor().run(program, feed=feed, fetch_list=meta["grads"], scope=Scope())
    return dict(zip(meta["grads"], (np.asarray(v) for v in values)))


@pytest.mark.parametrize("program_file", ["model_with_grad.pb", "model_forward.pb"])
@pytest.mark.parametrize("case, index", GRADS)
def test_gradient_matches_paddle(case, index, program_file):
    meta = _meta(case)
    name = meta["grads"][index]
    with np.load(GOLDEN / case / "expected.npz") as expected:
        want = expected[name]
    got = run_grad_case(case, program_file)[name]
    what = f"{case} via {program_file}: d loss / d {meta['labels'][index]} ({name})"
    assert got.shape == want.shape and got.dtype == want.dtype, what
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=what)


def test_pyir_run_cli_runs_the_saved_lstm_like_paddle(tmp_path):
    from click.testing import CliRunner
    from pyir.cli.main import main

    case = GOLDEN / "lstm"
    out = tmp_path / "out.npz"
    result = CliRunner().invoke(main, ["run", str(case / "model.pdmodel"), "--params",
                                       str(case / "model.pdiparams"), "--feed",
                                       str(case / "inputs.npz"), "-o", str(out)])
    assert result.exit_code == 0, result.output
    with np.load(out) as got, np.load(case / "expected.npz") as want:
        for name in _meta("lstm")["fetches"]:
            np.testing.assert_allclose(got[name], want[name], rtol=1e-5, atol=2e-6,
                                       err_msg=name)


def _run_one(op_type: str, feed: dict, attrs: dict, outs=("Out",)):
    from pyir.builder import emit
    from pyir.framework import Program, program_guard

    program = Program()
    block = program.global_block()
    inputs = {}
    for slot, value in feed.items():
        values = value if isinstance(value, list) else [value]
        made = [block.create_var(f"{slot}_{i}", v.dtype, v.shape) for i, v in enumerate(values)]
        inputs[slot] = made if isinstance(value, list) else made[0]
    with program_guard(program, Program()):
        result = emit(op_type, inputs, attrs)
    flat = {f"{s}_{i}": v for s, value in feed.items()
            for i, v in enumerate(value if isinstance(value, list) else [value])}
    return Executor().run(program, feed=flat, fetch_list=[result[s] for s in outs])


def test_one_hot_rejects_a_label_outside_depth_and_names_it():
    with pytest.raises(pyir.PyirError, match=r"label 7 is outside \[0, 3\)"):
        _run_one("one_hot_v2", {"X": np.array([1, 7], np.int64)}, {"depth": 3})


def test_rnn_refuses_a_weight_list_of_the_wrong_length():
    x = np.zeros((2, 1, 3), np.float32)
    h0 = np.zeros((1, 1, 2), np.float32)
    weights = [np.zeros((8, 3), np.float32), np.zeros((8, 2), np.float32)]
    with pytest.raises(pyir.PyirError, match="needs 2 PreState tensors and 4 WeightList"):
        _run_one("rnn", {"Input": x, "PreState": [h0, h0], "WeightList": weights},
                 {"mode": "LSTM", "input_size": 3, "hidden_size": 2}, outs=("Out",))


def test_legacy_compare_ignores_axis_where_elementwise_ops_honour_it():
    x = np.arange(9, dtype=np.float32).reshape(3, 3)
    y = np.array([2.0, 4.0, 6.0], np.float32)
    (less,) = _run_one("less_than", {"X": x, "Y": y}, {"axis": 0})
    np.testing.assert_array_equal(less, x < y[None, :])


def test_rnn_refuses_training_mode_dropout_between_layers():
    x = np.zeros((2, 1, 3), np.float32)
    h0 = np.zeros((2, 1, 2), np.float32)
    weights = [np.zeros((2, 3), np.float32), np.zeros((2, 2), np.float32),
               np.zeros((2, 2), np.float32), np.zeros((2, 2), np.float32)] + \
        [np.zeros(2, np.float32)] * 4
    with pytest.raises(pyir.PyirError, match="dropout between layers"):
        _run_one("rnn", {"Input": x, "PreState": [h0], "WeightList": weights},
                 {"mode": "RNN_TANH", "input_size": 3, "hidden_size": 2, "num_layers": 2,
                  "dropout_prob": 0.5, "is_test": False})


PROTOS = json.loads((GOLDEN / "op_protos.json").read_text())


@pytest.mark.parametrize("op_type", sorted(PROTOS))
def test_registry_declares_paddles_slots_attribute_types_and_defaults(op_type):
    """Paddle's OpProto (op_protos.json) against the registry: same slot names with the same
    duplicable/dispensable flags, every Paddle attribute declared with its type and default."""
    from pyir import registry

    paddle, opdef = PROTOS[op_type], registry.OPS[op_type]
    for kind, slots in (("input", opdef.inputs), ("output", opdef.outputs)):
        mine = {s.name: [s.duplicable, s.dispensable] for s in slots}
        theirs = {name: [dup, disp] for name, dup, disp in paddle[kind + "s"]}
        assert mine == theirs, f"{op_type} {kind}s"
    for name, (attr_type, default) in paddle["attrs"].items():
        spec = opdef.attr_spec(name)
        if spec is None:
            assert name in registry.COMMON_ATTRS, f"{op_type}: attribute {name} not declared"
            continue
        assert spec.type == attr_type, f"{op_type}.{name}: type {spec.type}, Paddle {attr_type}"
        if default is None or (isinstance(default, str) and default.startswith("Scalar")):
            continue  # Paddle has no default (a required attribute) or a Scalar object
        if isinstance(default, float):
            assert spec.default == pytest.approx(default, rel=1e-6), f"{op_type}.{name}"
        else:
            assert spec.default == default, f"{op_type}.{name}: default {spec.default!r}, " \
                                            f"Paddle {default!r}"
