"""The zoo of tests/golden_zoo/
run by pyir from Paddle 3.3.1's PIR `model.json`, to Paddle's numbers and to the same result
as the legacy `.pdmodel` of the same net.

PIR programs name no fetch targets (their values have no names), so outputs are compared by
position: out0, out1, ... in Paddle's fetch order. The feeds are named as in meta.json.
"""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

from pyir import files
from pyir.executor import Executor, Scope

GOLDEN = pathlib.Path(__file__).resolve().parent / "golden_zoo"
NETS = sorted(p.name for p in GOLDEN.iterdir() if (p / "meta.json").is_file())
RTOL, ATOL = 1e-4, 1e-5


def _run(folder: pathlib.Path, fmt: str):
    meta = json.loads((folder / "meta.json").read_text())[fmt]
    scope = Scope()
    model = files.load_model(str(folder / meta["model"]), str(folder / meta["params"]), scope)
    assert model.feed_names == meta["feed_names"]
    assert len(model.fetch_names) == len(meta["fetch_names"])
    with np.load(folder / "inputs.npz") as inputs:
        feed = {n: inputs[n] for n in model.feed_names}
    return Executor().run(model.program, feed=feed, fetch_list=model.fetch_names, scope=scope)


def _check(net, results, expected):
    assert len(results) == len(expected.files), net
    for i, actual in enumerate(results):
        want, actual = expected[f"out{i}"], np.asarray(actual)
        assert actual.dtype == want.dtype and actual.shape == want.shape, (net, i)
        if want.dtype.kind in "iub":
            np.testing.assert_array_equal(actual, want, err_msg=f"{net} out{i}")
        else:
            np.testing.assert_allclose(actual, want, rtol=RTOL, atol=ATOL, err_msg=f"{net} out{i}")


def test_every_net_has_a_json():
    assert len(NETS) >= 16
    assert all((GOLDEN / n / json.loads((GOLDEN / n / "meta.json").read_text())["pir"]["model"])
               .is_file() for n in NETS)


@pytest.mark.parametrize("net", NETS)
def test_json_model_matches_paddle(net):
    folder = GOLDEN / net
    with np.load(folder / "expected.npz") as expected:
        _check(net, _run(folder, "pir"), expected)


@pytest.mark.parametrize("net", [n for n in NETS
                                 if json.loads((GOLDEN / n / "meta.json").read_text())["legacy"]])
def test_json_and_pdmodel_give_the_same_result(net):
    folder = GOLDEN / net
    legacy, pir = _run(folder, "legacy"), _run(folder, "pir")
    for i, (a, b) in enumerate(zip(legacy, pir)):
        a, b = np.asarray(a), np.asarray(b)
        assert a.dtype == b.dtype and a.shape == b.shape, (net, i)
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=f"{net} out{i}")


def test_a_json_loads_by_content_not_by_extension(tmp_path):
    """The reader detects PIR JSON by its content: a copy named .pdmodel loads the same."""
    folder = GOLDEN / "lenet"
    copy = tmp_path / "renamed.pdmodel"
    copy.write_bytes((folder / "model.json").read_bytes())
    model = files.load_model(str(copy), str(folder / "model.pdiparams"), Scope())
    assert model.feed_names == ["x"]
