"""The registry sweep: every forward op's examples, built with `emit` and run by the Executor.

For each example the kernel's outputs must match the example's independent numpy expectation,
and the shapes/dtypes that inference gave the built variables must match the arrays the kernel
produced (-1 matches any size). The sweep reads `pyir.registry.OPS`, so ops added in any
family module are covered without touching this file.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import pyir
from pyir import registry
from pyir.builder import emit
from pyir.executor import Executor
from pyir.framework import Program, program_guard

FORWARD = sorted(op for op, d in registry.OPS.items() if d.grad_of is None and d.io is None)

# Ops that run sub-blocks cannot be built as a one-op program from an Example; the named
# tests run them in whole programs against independent expectations instead.
RUN_BY_PROGRAM_TESTS = {
    "pylayer": "test_pylayer.py::test_seed004_prints_its_documented_output",
    "conditional_block": "test_control_flow.py::test_static_cond_picks_the_branch_and_has_"
                         "paddles_layout",
    "while": "test_control_flow.py::test_while_loop_counts_and_accumulates",
    "select_output": "test_control_flow.py::test_select_output_routes_to_the_masked_branch",
    # tensor arrays (boxed TensorArray values, not arrays an Example can feed)
    "write_to_array": "test_tensor_array.py::test_static_write_read_length_and_concat_with_"
                      "paddles_layout",
    "read_from_array": "test_tensor_array.py::test_static_write_read_length_and_concat_with_"
                       "paddles_layout",
    "lod_array_length": "test_tensor_array.py::test_create_array_with_initial_values_writes_"
                        "them_in_order",
    "tensor_array_to_tensor": "test_tensor_array.py::test_stacking_follows_numpy",
}
SWEPT = [op for op in FORWARD if op not in RUN_BY_PROGRAM_TESTS]
CASES = [pytest.param(op, i, id=f"{op}-{i}")
         for op in SWEPT for i in range(len(registry.OPS[op].examples))]


def _declare(block, name: str, value, free_batch: bool = False) -> pyir.Variable:
    array = np.asarray(value)
    shape = (-1, *array.shape[1:]) if free_batch and array.ndim else array.shape
    var = block.create_var(name, array.dtype, shape, stop_gradient=True)
    var.need_check_feed = True
    return var


def build_example(op_type: str, example: registry.Example, free_batch: bool = False):
    """A one-op program over `data` inputs; returns (program, feed, {slot: [out vars]}).

    With `free_batch`, every input's first dim is declared -1, as a batch dim usually is.
    """
    program = Program()
    block = program.global_block()
    feed, inputs = {}, {}
    for slot, value in example.inputs.items():
        if value is None:
            continue
        if isinstance(value, (list, tuple)):
            names = [f"{slot}_{j}" for j in range(len(value))]
            inputs[slot] = [_declare(block, n, v, free_batch) for n, v in zip(names, value)]
            feed.update({n: np.asarray(v) for n, v in zip(names, value)})
        else:
            inputs[slot] = _declare(block, slot, value, free_batch)
            feed[slot] = np.asarray(value)
    with program_guard(program, Program()):
        outs = emit(op_type, inputs, dict(example.attrs))
    outs = {k: v if isinstance(v, list) else [v] for k, v in outs.items() if v is not None}
    return program, feed, outs


def expected_outputs(example: registry.Example) -> dict:
    if callable(example.expect):
        return example.expect(**example.inputs, **example.attrs)
    return example.expect


def _assert_matches(actual: np.ndarray, expected, what: str) -> None:
    expected = np.asarray(expected)
    assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype} != {expected.dtype}"
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    if np.issubdtype(expected.dtype, np.floating):
        tol = 1e-5 if expected.dtype == np.float32 else 1e-10
        np.testing.assert_allclose(actual, expected, rtol=tol, atol=tol, err_msg=what)
    else:
        np.testing.assert_array_equal(actual, expected, err_msg=what)


def _assert_inferred(var: pyir.Variable, actual: np.ndarray) -> None:
    assert var.dtype == actual.dtype, f"{var.name}: inferred {var.dtype}, kernel {actual.dtype}"
    assert len(var.shape) == actual.ndim and all(
        d in (-1, a) for d, a in zip(var.shape, actual.shape)), \
        f"{var.name}: inferred shape {list(var.shape)}, kernel gave {list(actual.shape)}"


@pytest.mark.parametrize("free_batch", [False, True], ids=["shapes", "batch-1"])
@pytest.mark.parametrize("op_type, index", CASES)
def test_example(op_type, index, free_batch):
    example = registry.OPS[op_type].examples[index]
    program, feed, outs = build_example(op_type, example, free_batch)
    fetch = [(slot, i, var) for slot, vs in outs.items() for i, var in enumerate(vs)]
    values = Executor().run(program, feed=feed, fetch_list=[v for _, _, v in fetch])
    got = {}
    for (slot, i, var), value in zip(fetch, values):
        _assert_inferred(var, np.asarray(value))
        got.setdefault(slot, []).append(np.asarray(value))
    for slot, want in expected_outputs(example).items():
        assert slot in got, f"{op_type} example {index}: no output {slot!r} was built"
        wants = want if isinstance(want, (list, tuple)) else [want]
        assert len(got[slot]) == len(wants), f"{op_type}.{slot}: {len(got[slot])} outputs"
        for j, (a, w) in enumerate(zip(got[slot], wants)):
            _assert_matches(a, w, f"{op_type} example {index} {slot}[{j}]")


@pytest.mark.parametrize("op_type", FORWARD)
def test_every_op_has_an_example_with_expectation(op_type):
    if op_type in RUN_BY_PROGRAM_TESTS:
        module, func = RUN_BY_PROGRAM_TESTS[op_type].split("::")
        assert hasattr(importlib.import_module(module[:-3]), func), \
            f"{op_type}: {RUN_BY_PROGRAM_TESTS[op_type]} does not exist"
        return
    examples = registry.OPS[op_type].examples
    assert any(e.expect is not None for e in examples), \
        f"op {op_type} has no Example with an expectation: add one to its register_op(...)"


def test_sweep_sees_ops_of_every_family():
    """The sweep is driven by the registry, so it covers ops registered in any module."""
    modules = {registry.OPS[op].kernel.__module__ for op in FORWARD}
    assert {"pyir.ops.math", "pyir.ops.elementwise", "pyir.ops.activation"} <= modules
    assert len(CASES) >= len(FORWARD)


def test_mismatching_expectation_is_caught():
    """The comparison is not vacuous: a wrong expectation fails."""
    example = registry.Example({"X": np.ones((2, 2), np.float32)}, {"scale": 2.0},
                               {"Out": np.full((2, 2), 3.0, np.float32)})
    program, feed, outs = build_example("scale", example)
    (value,) = Executor().run(program, feed=feed, fetch_list=[outs["Out"][0]])
    with pytest.raises(AssertionError):
        _assert_matches(np.asarray(value), example.expect["Out"], "scale")


@pytest.mark.parametrize("op_type, fn", [("exp", np.exp), ("log", np.log)])
def test_float32_exp_and_log_are_correctly_rounded(op_type, fn):
    """Paddle prints exp(1) as 2.7182817 (seed 004); numpy's float32 exp gives 2.718282."""
    x = np.linspace(0.5, 3.0, 1001, dtype=np.float32)
    program, feed, outs = build_example(op_type, registry.Example({"X": x}))
    (value,) = Executor().run(program, feed=feed, fetch_list=[outs["Out"][0]])
    np.testing.assert_array_equal(value, fn(x.astype(np.float64)).astype(np.float32))
    if op_type == "exp":
        assert value[200] == np.float32(2.7182817)


def test_a_kernel_whose_parameters_disagree_with_its_declaration_is_refused(monkeypatch):
    monkeypatch.setattr(registry, "OPS", dict(registry.OPS))  # keep the real registry clean

    def kernel(X, scale):
        return {"Out": X * scale}

    with pytest.raises(pyir.PyirError, match=r"kernel of op 'fake' takes \(X, scale\); its "
                                             r"declaration needs \(X, factor\)"):
        registry.register_op("fake", inputs=["X"], outputs=["Out"],
                             attrs=[registry.Attr("factor", registry.AttrType.FLOAT, 1.0)])(kernel)
    registry.register_op("fake", inputs=["X"], outputs=["Out"],
                         attrs=[registry.Attr("scale", registry.AttrType.FLOAT, 1.0)])(kernel)
    assert registry.OPS["fake"].kernel is kernel
