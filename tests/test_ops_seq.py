"""Paddle's own results for the tensor, compare, math, transformer and rnn ops, run by pyir.

Each case under tests/golden_seq/ was written by tools/gen_golden_seq.py with Paddle 3.3.1 in
legacy mode. Inference cases are saved models with inputs and Paddle's outputs: pyir loads
the .pdmodel/.pdiparams pair, runs it once, and compares every fetch on its own, labelled
with what it checks (meta.json), e.g. "round half to even". Gradient cases hold a forward
program, Paddle's `append_backward` of it, and Paddle's input gradients: pyir must get them
both by running Paddle's backward ops and by appending its own backward.
"""

from __future__ import annotations

import functools
import json
import pathlib

import numpy as np
import pytest

import pyir
from pyir.backward import append_backward
from pyir.executor import Executor, Scope
from pyir.serialize import load_program

GOLDEN = pathlib.Path(__file__).resolve().parent / "golden_seq"


def _meta(case: str) -> dict:
    return json.loads((GOLDEN / case / "meta.json").read_text())


_ALL = sorted(p.name for p in GOLDEN.iterdir() if (p / "meta.json").is_file())
CASES = [c for c in _ALL if _meta(c).get("kind") != "grad"]
GRAD_CASES = [c for c in _ALL if _meta(c).get("kind") == "grad"]
FETCHES = [pytest.param(case, i, id=f"{case}-{i}-{label}")
           for case in CASES for i, label in enumerate(_meta(case)["labels"])]
GRADS = [pytest.param(case, i, id=f"{case}-{i}-{label}")
         for case in GRAD_CASES for i, label in enumerate(_meta(case)["labels"])]


@functools.lru_cache(maxsize=None)
def run_case(case: str) -> dict:
    """Load the saved model with pyir and run it on the saved inputs; fetch name -> array."""
    folder = GOLDEN / case
    scope = Scope()
    model = pyir.io.load_model(str(folder / "model.pdmodel"), scope=scope)
    with np.load(folder / "inputs.npz") as inputs:
        feed = {name: inputs[name] for name in model.feed_names}
    values = Executor().run(model.program, feed=feed, fetch_list=model.fetch_names, scope=scope)
    return dict(zip(model.fetch_names, (np.asarray(v) for v in values)))


def test_every_case_feeds_and_fetches_what_paddle_saved():
    for case in CASES:
        meta = _meta(case)
        model = pyir.io.load_model(str(GOLDEN / case / "model.pdmodel"), scope=Scope())
        assert sorted(model.feed_names) == sorted(meta["feeds"]), case
        assert list(model.fetch_names) == meta["fetches"], case


@pytest.mark.parametrize("case, index", FETCHES)
def test_fetch_matches_paddle(case, index):
    meta = _meta(case)
    name, label = meta["fetches"][index], meta["labels"][index]
    with np.load(GOLDEN / case / "expected.npz") as expected:
        want = expected[name]
    got = run_case(case)[name]
    what = f"{case}: {label} ({name})"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, Paddle {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape}, Paddle {want.shape}"
    if np.issubdtype(want.dtype, np.floating):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=2e-6, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


@functools.lru_cache(maxsize=None)
def run_grad_case(case: str, program_file: str) -> dict:
    """Gradients of a grad case's loss: from Paddle's backward program, or from pyir's own
    backward appended to the forward program; grad name -> array."""
    meta = _meta(case)
    program = load_program(str(GOLDEN / case / program_file))
    if program_file == "model_forward.pb":
        append_backward(program.global_block().var(meta["loss"]))
    with np.load(GOLDEN / case / "inputs.npz") as inputs:
        feed = dict(inputs)
    values = Executor().run(program, feed=feed, fetch_list=meta["grads"], scope=Scope())
    return dict(zip(meta["grads"], (np.asarray(v) for v in values)))


@pytest.mark.parametrize("program_file", ["model_with_grad.pb", "model_forward.pb"])
@pytest.mark.parametrize("case, index", GRADS)
def test_gradient_matches_paddle(case, index, program_file):
    meta = _meta(case)
    name = meta["grads"][index]
    with np.load(GOLDEN / case / "expected.npz") as expected:
        want = expected[name]
    got = run_grad_case(case, program_file)[name]
    what = f"{case} via {program_file}: d loss / d {meta['labels'][index]} ({name})"
    assert got.shape == want.shape and got.dtype == want.dtype, what
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=what)
