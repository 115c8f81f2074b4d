"""Real model shapes: paddle.vision.models networks and detection/OCR heads, saved by Paddle
3.3.1 with paddle.jit.save (tools/gen_golden_zoo.py), run by pyir from their legacy
`.pdmodel` to Paddle's numbers.

Each tests/golden_zoo/<net>/ holds the legacy program (model.pdmodel), the PIR program
(model.json, read by tools/pending/test_golden_zoo_json.py), the parameters both share, the
feeds and Paddle's outputs. Floating outputs must agree to rtol 1e-4; integer outputs (NMS
indices and counts, argmax labels) exactly.
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
LEGACY = [n for n in NETS if json.loads((GOLDEN / n / "meta.json").read_text())["legacy"]]
RTOL, ATOL = 1e-4, 1e-5


def assert_matches_paddle(name: str, results, folder: pathlib.Path) -> None:
    with np.load(folder / "expected.npz") as expected:
        assert len(results) == len(expected.files), name
        for i, actual in enumerate(results):
            want = expected[f"out{i}"]
            actual = np.asarray(actual)
            assert actual.dtype == want.dtype and actual.shape == want.shape, \
                (name, i, actual.dtype, actual.shape, want.dtype, want.shape)
            if want.dtype.kind in "iub":
                np.testing.assert_array_equal(actual, want, err_msg=f"{name} out{i}")
            else:
                np.testing.assert_allclose(actual, want, rtol=RTOL, atol=ATOL,
                                           err_msg=f"{name} out{i}")


def feeds_of(folder: pathlib.Path, names) -> dict:
    with np.load(folder / "inputs.npz") as inputs:
        return {n: inputs[n] for n in names}


def test_the_zoo_is_there():
    """At least a dozen vision networks and three heads, each with a legacy program unless
    Paddle 3.3.1 cannot write one (its LSTM refuses legacy static mode)."""
    heads = [n for n in NETS if n.startswith("head_")]
    assert len(NETS) - len(heads) >= 12 and len(heads) >= 3, NETS
    missing = sorted(set(NETS) - set(LEGACY))
    assert missing == ["head_crnn"], missing
    assert sum(p.stat().st_size for p in GOLDEN.rglob("*") if p.is_file()) < 6_000_000


@pytest.mark.parametrize("net", LEGACY)
def test_legacy_model_matches_paddle(net):
    folder = GOLDEN / net
    meta = json.loads((folder / "meta.json").read_text())["legacy"]
    scope = Scope()
    model = files.load_model(str(folder / meta["model"]), str(folder / meta["params"]), scope)
    assert model.feed_names == meta["feed_names"]
    assert model.fetch_names == meta["fetch_names"]
    results = Executor().run(model.program, feed=feeds_of(folder, model.feed_names),
                             fetch_list=model.fetch_names, scope=scope)
    assert_matches_paddle(net, results, folder)
