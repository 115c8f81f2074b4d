"""Paddle's own inference models (tests/paddle_golden) load and compute Paddle's numbers."""

import json
import pathlib

import numpy as np
import pytest

from pyir import static
from pyir.executor import Scope

GOLDEN = pathlib.Path(__file__).resolve().parent / "paddle_golden"


def _assert_close(name, actual, expected, tol):
    assert actual.shape == expected.shape, name
    if expected.dtype.kind in "fc":
        assert actual.dtype == expected.dtype, name
        bound = tol["atol"] + tol["rtol"] * np.abs(expected)
        worst = np.max(np.abs(actual - expected) - bound, initial=-np.inf)
        assert worst <= 0, f"{name}: exceeds atol+rtol*|expected| by {worst}"
    else:
        np.testing.assert_array_equal(actual, expected, err_msg=name)


@pytest.mark.parametrize("case", ["mlp", "lenet"])
def test_paddle_inference_model_matches_paddle(case):
    folder = GOLDEN / case
    meta = json.loads((folder / "meta.json").read_text())
    exe = static.Executor()
    with static.scope_guard(Scope()):
        program, feed_names, fetches = static.load_inference_model(str(folder / "model"), exe)
        assert feed_names == meta["feed_names"]
        assert [v.name for v in fetches] == meta["fetch_names"]
        with np.load(folder / "inputs.npz") as inputs:
            feed = {n: inputs[n] for n in feed_names}
        results = exe.run(program, feed=feed, fetch_list=fetches)
    with np.load(folder / "expected.npz") as expected:
        for name, actual in zip(meta["fetch_names"], results):
            tol = {**meta["tolerance"], **meta["tolerance_overrides"].get(name, {})}
            _assert_close(name, np.asarray(actual), expected[name], tol)
