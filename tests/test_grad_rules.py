"""Every gradient rule in the registry against central finite differences, in float64.

For each differentiable op and each of its examples with grad=True, `check_op_example` builds
a one-op program, appends the op's rule through the backward pass and compares every float
input's gradient with finite differences. The meta-tests fail when a differentiable op has no
rule, or a rule that nothing checks.
"""

from __future__ import annotations

import numpy as np
import pytest

import pyir  # noqa: F401  (fills the registry)
from pyir import registry
from pyir.gradcheck import check_op_example, coverage_problems
from pyir.ops._helpers import default_grad
from pyir.registry import Example, OpDef, Slot

# Rules whose op cannot be built from an Example alone (a Python callable with declared
# outputs, sub-blocks): the named tests check them against finite differences instead.
CHECKED_BY_PROGRAM_TESTS = {
    "py_func": "test_backward.py::test_py_func_backward_matches_finite_differences",
    "pylayer": "test_backward.py::test_pylayer_backward_matches_finite_differences",
    "conditional_block": "test_control_flow.py::test_nested_cond_gradients_match_finite_"
                         "differences",
    "select_input": "test_control_flow.py::test_nested_cond_gradients_match_finite_differences",
    "while": "test_control_flow.py::test_cond_inside_while_loop_gradients_match_finite_"
             "differences",
    # tensor arrays, which an Example cannot feed
    "write_to_array": "test_tensor_array.py::test_array_gradients_in_the_main_block_match_"
                      "finite_differences",
    "read_from_array": "test_tensor_array.py::test_array_gradients_in_the_main_block_match_"
                       "finite_differences",
    "tensor_array_to_tensor": "test_tensor_array.py::test_loop_gradients_through_an_array_"
                              "match_finite_differences",
    # complex inputs or outputs, which the float64 sweep cannot perturb or weigh
    "fft_c2c": "test_api_fft_grad.py::test_gradients_of_real_losses_match_finite_differences",
    "fft_r2c": "test_api_fft_grad.py::test_gradients_of_real_losses_match_finite_differences",
    "fft_c2r": "test_api_fft_grad.py::test_gradients_of_real_losses_match_finite_differences",
}


def _cases():
    for name, opdef in sorted(registry.OPS.items()):
        if not opdef.differentiable or opdef.grad_of is not None:
            continue
        for i, example in enumerate(opdef.examples):
            if example.grad:
                yield pytest.param(name, i, id=f"{name}-{i}")


@pytest.mark.parametrize("op_type, index", list(_cases()))
def test_gradient_rule_matches_finite_differences(op_type, index):
    example = registry.OPS[op_type].examples[index]
    results = check_op_example(op_type, example)
    assert results, f"{op_type}: example {index} has no float input to differentiate"
    bad = [str(r) for r in results if not r.ok]
    assert not bad, f"{op_type} example {index}: " + "; ".join(bad)


def test_every_differentiable_op_has_a_checked_rule():
    problems = [p for p in coverage_problems()
                if p.split(":")[0] not in CHECKED_BY_PROGRAM_TESTS]
    assert not problems, "\n".join(problems)


def test_exempt_rules_name_tests_that_exist():
    import importlib

    for op_type, where in CHECKED_BY_PROGRAM_TESTS.items():
        module, func = where.split("::")
        mod = importlib.import_module(module[:-3])
        assert hasattr(mod, func), f"{op_type}: {where} does not exist"
        assert registry.OPS[op_type].grad is not None


def _fake(name, grad, examples):
    return OpDef(name, (Slot("X"),), (Slot("Out"),), (), lambda X: {"Out": X}, None, grad,
                 True, "", tuple(examples))


def test_meta_check_flags_a_differentiable_op_without_rule():
    ops = {"fake_norule": _fake("fake_norule", None, [Example({"X": np.ones(2)})])}
    assert coverage_problems(ops) == ["fake_norule: differentiable but has no gradient rule "
                                      "(grad=)"]


def test_meta_check_flags_a_rule_without_checkable_example():
    ops = {"fake_unchecked": _fake("fake_unchecked", default_grad("fake_unchecked_grad"),
                                   [Example({"X": np.ones(2)}, grad=False)])}
    assert coverage_problems(ops) == ["fake_unchecked: its gradient rule has no example "
                                      "with grad=True to check"]


def test_sweep_catches_a_wrong_rule(monkeypatch):
    """A rule with the wrong formula (TVM's tanh precedence bug) must fail the check."""
    opdef = registry.OPS["tanh_grad"]

    def wrong(Out, Out_grad):
        return {"X@GRAD": Out_grad * 1.0 - Out * Out}

    monkeypatch.setattr(opdef, "kernel", wrong)
    results = check_op_example("tanh", registry.OPS["tanh"].examples[0])
    assert not all(r.ok for r in results)
