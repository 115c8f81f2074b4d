"""A big plan's generated code comes in chunk functions (codegen.CHUNK_STEPS steps each) that
its run function calls in turn: they must compute, free, convert and fail exactly as one
function does. Every test of test_plan.py runs again here with chunks of 2 steps."""

import numpy as np
import pytest

import pyir.codegen
from pyir import framework
from pyir.builder import emit
from pyir.errors import KernelError
from pyir.plan import compile_plan
from pyir.static import data
from test_plan import *  # noqa: F401,F403  (the same tests, on chunked code)
from test_plan import _fake_op


@pytest.fixture(autouse=True)
def two_step_chunks(monkeypatch):
    monkeypatch.setattr(pyir.codegen, "CHUNK_STEPS", 2)


def _chain(n, fetch_every=0):
    x = data("x", [3, 4])
    c = data("c", [3, 4])
    h, kept = x, []
    for i in range(n):
        op = ("elementwise_add", "elementwise_mul", "tanh")[i % 3]
        h = emit(op, {"X": h} if op == "tanh" else {"X": h, "Y": c})["Out"]
        if fetch_every and i % fetch_every == 0:
            kept.append(h)
    return x, c, h, kept


def test_chunks_pass_values_across_and_fetch_from_any_chunk():
    x, c, out, kept = _chain(11, fetch_every=4)
    plan = compile_plan(framework.default_main_program(), ("x", "c"),
                        (out.name, *(v.name for v in kept)))
    assert plan.source.count("def chunk_") == 6
    feed = {"x": np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4),
            "c": np.full((3, 4), 0.5, np.float32)}
    a, values = feed["x"], []
    for i in range(11):
        a = (a + feed["c"], a * feed["c"], np.tanh(a))[i % 3]
        values.append(a)
    got = plan.execute(dict(feed), {})
    np.testing.assert_allclose(got[0], values[-1], rtol=1e-6)
    for g, i in zip(got[1:], range(0, 11, 4)):
        np.testing.assert_allclose(g, values[i], rtol=1e-6)


def test_a_failure_inside_a_chunk_names_its_op(monkeypatch):
    def broken(X):
        raise ZeroDivisionError("boom")
    _fake_op(monkeypatch, broken)
    x, c, out, _ = _chain(5)
    block = framework.default_main_program().global_block()
    block.create_var("y", "float32", [3, 4])
    block.append_op("fake", {"X": [out.name]}, {"Out": ["y"]}, {})
    with pytest.raises(KernelError, match=r"op #5 fake: kernel failed: ZeroDivisionError"):
        compile_plan(framework.default_main_program(), ("x", "c"), ("y",)).execute(
            {"x": np.ones((3, 4), np.float32), "c": np.ones((3, 4), np.float32)}, {})
