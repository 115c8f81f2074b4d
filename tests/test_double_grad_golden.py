"""Higher-order eager gradients against Paddle 3.3.1: the cases of tests/double_grad_cases.py
(gradient penalties, a Hessian-vector product, d^3/dx^3, jacobian/hessian, matmul and shape
ops) run on pyir and compared with the results Paddle computed for the same code
(tools/gen_golden_double_grad.py wrote tests/golden_double_grad/)."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import pyir
from double_grad_cases import CASES

GOLDEN = pathlib.Path(__file__).parent / "golden_double_grad"


@pytest.fixture(autouse=True)
def eager():
    pyir.disable_static()
    yield
    pyir.enable_static()


def _load(name: str):
    with np.load(GOLDEN / f"{name}.npz") as data:
        inputs = {k[3:]: data[k] for k in data.files if k.startswith("in:")}
        expected = {k[4:]: data[k] for k in data.files if k.startswith("out:")}
    return inputs, expected


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_matches_paddle(name):
    inputs, expected = _load(name)
    got = CASES[name](pyir, **inputs)
    assert set(got) == set(expected)
    # float64 throughout; Paddle keeps float attributes (elu's alpha, leaky_relu's slope) in
    # float32, which moves results by ~1e-8 relative
    for key, want in expected.items():
        np.testing.assert_allclose(got[key], want, rtol=1e-6, atol=1e-9,
                                   err_msg=f"{name}: {key}")


def test_goldens_are_not_trivial():
    """The second-order parts are nonzero: a rule dropping them would fail the comparison."""
    _, cube = _load("cube")
    np.testing.assert_allclose(cube["d3"], 6.0)
    _, gp = _load("gp_mlp")
    assert np.abs(gp["dw1"]).max() > 1e-3 and np.abs(gp["dx"]).max() > 1e-3
    _, hvp = _load("hvp")
    assert np.abs(hvp["hv"]).max() > 1e-2
