"""A big plan's first run interprets its steps (codegen.interpreter) and its second generates
the code: both must compute, free, convert and fail exactly as the generated code does.

Every test of test_plan.py runs again here with the threshold at 0, so that each first run
in them takes the interpreted path; the tests below pin what is particular to it.
"""

import sys

import numpy as np
import pytest

import pyir.plan
from pyir import codegen, framework
from pyir.builder import emit
from pyir.errors import FeedError, Interrupted, KernelError
from pyir.plan import compile_plan
from pyir.static import Executor, data
from test_plan import *  # noqa: F401,F403  (the same tests, on the interpreted first run)
from test_plan import _fake_op, _run_fake


@pytest.fixture(autouse=True)
def interpret_first_runs(monkeypatch):
    monkeypatch.setattr(pyir.plan, "DEFER_CODEGEN_STEPS", 0)


def _chain(n):
    x = data("x", [3, 4])
    c = data("c", [3, 4])
    h = x
    for i in range(n):
        op = ("elementwise_add", "elementwise_mul", "tanh")[i % 3]
        h = emit(op, {"X": h} if op == "tanh" else {"X": h, "Y": c})["Out"]
    feed = {"x": np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4),
            "c": np.full((3, 4), 0.5, np.float32)}
    want = feed["x"]
    for i in range(n):
        want = (want + feed["c"], want * feed["c"], np.tanh(want))[i % 3]
    return h, feed, want


def test_first_run_interprets_and_second_run_generates_the_code():
    out, feed, want = _chain(30)
    plan = compile_plan(framework.default_main_program(), ("x", "c"), (out.name,))
    assert not isinstance(plan.generated, codegen.Generated)
    first, = plan.execute(dict(feed), {})
    assert not isinstance(plan.generated, codegen.Generated)
    second, = plan.execute(dict(feed), {})
    assert isinstance(plan.generated, codegen.Generated)
    third, = plan.execute(dict(feed), {})
    np.testing.assert_allclose(first, want, rtol=1e-6)
    assert np.array_equal(first, second) and np.array_equal(second, third)


def test_plans_below_the_threshold_generate_code_at_once(monkeypatch):
    monkeypatch.setattr(pyir.plan, "DEFER_CODEGEN_STEPS", 31)
    out, _, _ = _chain(30)
    plan = compile_plan(framework.default_main_program(), ("x", "c"), (out.name,))
    assert isinstance(plan.generated, codegen.Generated)
    out2 = emit("tanh", {"X": out})["Out"]
    plan = compile_plan(framework.default_main_program(), ("x", "c"), (out2.name,))
    assert not isinstance(plan.generated, codegen.Generated)


def test_source_of_a_deferred_plan_is_generated_on_request():
    out, feed, want = _chain(4)
    plan = compile_plan(framework.default_main_program(), ("x", "c"), (out.name,))
    assert "def run(env, scope_vars):" in plan.source
    np.testing.assert_allclose(plan.execute(dict(feed), {})[0], want, rtol=1e-6)


def test_interpreted_run_frees_each_intermediate_after_its_last_use(monkeypatch):
    """The interpreter's values hold no released name when a later step runs."""
    out, feed, _ = _chain(6)
    program = framework.default_main_program()
    plan = compile_plan(program, ("x", "c"), (out.name,))
    seen = []
    real = plan.steps[-1].kernel

    def spy(*args):
        seen.append(set(sys._getframe(1).f_locals["values"]))  # the interpreter's values
        return real(*args)

    plan.steps[-1].kernel = spy
    plan.execute(dict(feed), {})
    released = set().union(*(s.release for s in plan.steps[:-1]))
    assert seen and all(not (released & d) for d in seen)


def test_a_list_slot_given_too_many_values_is_named(monkeypatch):
    _fake_op(monkeypatch, lambda X: {"Out": [X, X, X]}, outputs=(pyir.registry.Slot(
        "Out", duplicable=True),))
    with pytest.raises(KernelError, match=r"fake: kernel returned the wrong number of values "
                                          r"for output slot 'Out' \(2 variables\): too many "
                                          r"values to unpack \(expected 2\)"):
        _run_fake(outputs=("y", "z"))


def test_a_kernel_error_of_pyir_keeps_its_place_and_cause(monkeypatch):
    def refuses(X):
        raise KernelError("no such mode") from ValueError("inner")
    _fake_op(monkeypatch, refuses)
    with pytest.raises(KernelError, match=r"op #0 fake: no such mode") as info:
        _run_fake()
    assert isinstance(info.value.__cause__, ValueError)


def test_ctrl_c_names_the_running_op(monkeypatch):
    def interrupted(X):
        raise KeyboardInterrupt
    _fake_op(monkeypatch, interrupted)
    with pytest.raises(Interrupted, match=r"op #0 fake: interrupted \(Ctrl-C\) while running"):
        _run_fake()


def test_a_missing_feed_on_the_first_run_is_a_feed_error():
    out, feed, _ = _chain(3)
    with pytest.raises(FeedError, match="input 'c' was not fed"):
        compile_plan(framework.default_main_program(), ("x", "c"), (out.name,)).execute(
            {"x": feed["x"]}, {})


def test_big_programs_match_between_the_two_tiers(monkeypatch):
    monkeypatch.setattr(pyir.plan, "DEFER_CODEGEN_STEPS", 500)
    out, feed, want = _chain(600)
    exe = Executor()
    runs = [exe.run(feed=feed, fetch_list=[out])[0] for _ in range(3)]
    np.testing.assert_allclose(runs[0], want, rtol=1e-5)
    assert np.array_equal(runs[0], runs[1]) and np.array_equal(runs[1], runs[2])
