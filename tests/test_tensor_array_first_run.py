"""Tensor arrays and loops on a big plan's interpreted first run (codegen.interpreter): every
test of test_tensor_array.py runs again with the threshold at 0, so each first run takes the
interpreted path, where a write_to_array's prior value (`codegen.Current`) is read from the
values dict instead of a generated local."""

import pytest

import pyir.plan
from test_tensor_array import *  # noqa: F401,F403  (the same tests, on the interpreted first run)
from test_tensor_array import _modes  # noqa: F401  (its autouse fixture, which * leaves out)


@pytest.fixture(autouse=True)
def interpret_first_runs(monkeypatch):
    monkeypatch.setattr(pyir.plan, "DEFER_CODEGEN_STEPS", 0)
