"""Shared fixtures: every test builds into fresh default programs with fresh names."""

import pathlib

import numpy as np
import pytest

import pyir
from pyir import framework
from pyir.executor import Scope, scope_guard

ROOT = pathlib.Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "paddle_golden"  # copied from shared/paddle-golden


@pytest.fixture(autouse=True)
def fresh_programs():
    """Each test starts with new default programs, name counters, scope and static mode."""
    framework.reset_default_programs()
    old_mode = framework.static_mode[0]
    pyir.enable_static()
    with scope_guard(Scope()):
        yield
    framework.static_mode[0] = old_mode


@pytest.fixture
def rng():
    return np.random.default_rng(0)
