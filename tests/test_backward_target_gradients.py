"""`pyir.static.gradients(targets, inputs, target_gradients=...)`: the initial gradient of each
target, Paddle's op layout for it, its refusals; and accumulation when one grad op writes the
same gradient twice (x * x)."""

from __future__ import annotations

import numpy as np
import pytest

import pyir
from pyir.errors import GradError
from pyir.static import Program, program_guard

RNG = np.random.default_rng(7)
X = RNG.standard_normal((2, 3)).astype(np.float32)
G = RNG.standard_normal((2, 3)).astype(np.float32)


def _build(make):
    """Build `make(x, g)` (it returns the gradient Variables) in a fresh program."""
    main, startup = Program(), Program()
    with program_guard(main, startup):
        x = pyir.static.data("x", [2, 3], "float32")
        x.stop_gradient = False
        g = pyir.static.data("g", [2, 3], "float32")
        grads = make(x, g)
    return main, grads


def _run(main, grads):
    return pyir.static.Executor().run(main, feed={"x": X, "g": G}, fetch_list=list(grads))


def _ops(main):
    return [(op.type, {k: v for k, v in op.inputs.items() if v},
             {k: v for k, v in op.outputs.items() if v}) for op in main.global_block().ops]


CASES = {
    # name: (build targets from x -> (targets, target_gradients given g), d/dx expected)
    "cube_with_g": (lambda x, g: ([x * x * x], [g]), lambda: G * 3 * X ** 2),
    "single_variable_not_list": (lambda x, g: (x * x * x, g), lambda: G * 3 * X ** 2),
    "g_and_ones": (lambda x, g: ([x * x * x, x * 2.0], [g, None]),
                   lambda: G * 3 * X ** 2 + 2.0),
    "ones_only": (lambda x, g: ([x * x * x], None), lambda: 3 * X ** 2),
    "product_with_g": (lambda x, g: ([pyir.tanh(x) * x], [g]),
                       lambda: G * ((1 - np.tanh(X) ** 2) * X + np.tanh(X))),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_target_gradients_scale_the_gradient_of_each_target(case):
    targets, expected = CASES[case]

    def make(x, g):
        ts, tgs = targets(x, g)
        return pyir.static.gradients(ts, [x], target_gradients=tgs)

    main, grads = _build(make)
    [dx] = _run(main, grads)
    np.testing.assert_allclose(dx, expected(), rtol=1e-5, atol=1e-6)


def test_target_gradient_replaces_the_seed_in_paddles_layout():
    """Layout printed by Paddle 3.3.1 (legacy static) for gradients([x*x*x, x*2], [x], [g, None]):
    no seed op for the first target, its grad op reads g as Out@GRAD, four partials summed."""
    main, _ = _build(lambda x, g: pyir.static.gradients([x * x * x, x * 2.0], [x], [g, None]))
    renamed = [f"x@GRAD@RENAME@block0@{i}" for i in range(4)]
    assert _ops(main)[2:] == [
        ("scale", {"X": ["x"]}, {"Out": ["tmp_2"]}),
        ("fill_any_like", {"X": ["tmp_2"]}, {"Out": ["tmp_2@GRAD"]}),
        ("scale", {"X": ["tmp_2@GRAD"]}, {"Out": [renamed[0]]}),
        ("elementwise_mul_grad", {"Out@GRAD": ["g"], "X": ["tmp_0"], "Y": ["x"]},
         {"X@GRAD": ["tmp_0@GRAD"], "Y@GRAD": [renamed[1]]}),
        ("elementwise_mul_grad", {"Out@GRAD": ["tmp_0@GRAD"], "X": ["x"], "Y": ["x"]},
         {"X@GRAD": [renamed[2]], "Y@GRAD": [renamed[3]]}),
        ("sum", {"X": renamed}, {"Out": ["x@GRAD"]}),
    ]
    assert "tmp_1@GRAD" not in main.global_block().vars


def test_one_grad_op_writing_a_gradient_twice_gets_two_partials():
    """x * x: both outputs of elementwise_mul_grad are x's gradient (Paddle 3.3.1 names them
    @1 and @2 after the first writer's @0)."""
    main, grads = _build(lambda x, g: pyir.static.gradients([x * x * x], [x]))
    ops = _ops(main)
    assert ops[-2][2] == {"X@GRAD": ["x@GRAD@RENAME@block0@1"],
                          "Y@GRAD": ["x@GRAD@RENAME@block0@2"]}
    assert ops[-1] == ("sum", {"X": [f"x@GRAD@RENAME@block0@{i}" for i in range(3)]},
                       {"Out": ["x@GRAD"]})
    np.testing.assert_allclose(_run(main, grads)[0], 3 * X ** 2, rtol=1e-5)


def test_append_backward_of_a_square_sums_both_partials():
    main, startup = Program(), Program()
    with program_guard(main, startup):
        x = pyir.static.data("x", [3], "float32")
        x.stop_gradient = False
        loss = pyir.mean(x * x)
        pyir.static.append_backward(loss)
    [dx] = pyir.static.Executor().run(main, feed={"x": X[0]}, fetch_list=["x@GRAD"])
    np.testing.assert_allclose(dx, 2 * X[0] / 3, rtol=1e-5)


def test_a_dim_unknown_on_either_side_matches():
    main, startup = Program(), Program()
    with program_guard(main, startup):
        x = pyir.static.data("x", [-1, 3], "float32")
        x.stop_gradient = False
        g = pyir.static.data("g", [2, 3], "float32")
        [dx] = pyir.static.gradients([x * 3.0], [x], target_gradients=[g])
    [got] = pyir.static.Executor().run(main, feed={"x": X, "g": G}, fetch_list=[dx])
    np.testing.assert_allclose(got, 3.0 * G, rtol=1e-6)


@pytest.mark.parametrize("tgrads, match", [
    (lambda g, bad: [g, g], "1 targets but 2 target_gradients"),
    (lambda g, bad: [bad], r"must be a Variable of its shape \[2, 3\].*'bad' of shape \[3, 2\]"),
    (lambda g, bad: [np.ones((2, 3), np.float32)], "must be a Variable.*got ndarray"),
    (lambda g, bad: [g[0]], r"of its shape \[2, 3\].* of shape \[3\]"),
])
def test_target_gradients_refusals(tgrads, match):
    main, startup = Program(), Program()
    with program_guard(main, startup):
        x = pyir.static.data("x", [2, 3], "float32")
        x.stop_gradient = False
        g = pyir.static.data("g", [2, 3], "float32")
        bad = pyir.static.data("bad", [3, 2], "float32")
        with pytest.raises(GradError, match=match):
            pyir.static.gradients([x * 3.0], [x], target_gradients=tgrads(g, bad))
