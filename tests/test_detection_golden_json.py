"""The vision/detection goldens of
tests/golden_detection/ from their PIR twins (pir/<case>.json, tools/gen_golden_detection_pir.py),
run by pyir to the numbers Paddle's legacy run gave (the PIR run was checked equal to them when
the twins were written). Outputs are positional: cases_pir.json names the legacy fetch each
one stands for. Integer outputs must be equal, floats within rtol 1e-4.
"""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

from pyir import files
from pyir.executor import Executor, Scope

GOLDEN = pathlib.Path(__file__).resolve().parent / "golden_detection"
CASES = json.loads((GOLDEN / "cases_pir.json").read_text())
RTOL, ATOL = 1e-4, 1e-5


@pytest.fixture(scope="module")
def golden():
    with np.load(GOLDEN / "golden.npz") as data:
        yield {k: data[k] for k in data.files}


def test_every_op_but_the_legacy_multiclass_nms_has_a_twin():
    legacy = json.loads((GOLDEN / "cases.json").read_text())
    assert sorted(CASES) == sorted(n for n, m in legacy.items() if m["op"] != "multiclass_nms")


@pytest.mark.parametrize("name", sorted(CASES))
def test_json_twin_matches_paddle(name, golden):
    meta = CASES[name]
    scope = Scope()
    model = files.load_model(str(GOLDEN / "pir" / f"{name}.json"), None, scope)
    assert model.feed_names == meta["feeds"]
    assert len(model.fetch_names) == len(meta["fetches"])
    feed = {n: golden[f"{name}/{n}"] for n in meta["feeds"]}
    results = Executor().run(model.program, feed=feed, fetch_list=model.fetch_names, scope=scope)
    for fetch, actual in zip(meta["fetches"], results):
        want, actual = golden[f"{name}/{fetch}"], np.asarray(actual)
        assert actual.shape == want.shape and actual.dtype == want.dtype, fetch
        if want.dtype.kind in "iub":
            np.testing.assert_array_equal(actual, want, err_msg=fetch)
        else:
            np.testing.assert_allclose(actual, want, rtol=RTOL, atol=ATOL, err_msg=fetch)
