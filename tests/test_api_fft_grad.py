"""Gradients through the FFT ops (fft_c2c, fft_r2c, fft_c2r) for real losses, eager (tape) and
static (backward pass), against central finite differences of numpy.fft.

The registry sweep (tests/test_grad_rules.py) checks fft_r2c's rule; fft_c2c's and fft_c2r's
take complex inputs, which it cannot perturb, so they are checked here: a chain of transforms
ends in a real signal, the loss is sum(w * signal), and for a complex input the gradient is
Paddle's dL/dRe + i dL/dIm.
"""

from __future__ import annotations

import numpy as np
import pytest

import pyir
import pyir.fft as F
from pyir import framework
from pyir.executor import Executor

R = np.random.default_rng(5)


def _real(*shape):
    return R.standard_normal(shape)


def _cplx(*shape):
    return R.standard_normal(shape) + 1j * R.standard_normal(shape)


def _numeric(ref, x, weights, eps=1e-6):
    """d/dx sum(w * ref(x)) by central differences; real and imaginary parts for complex x."""
    def loss(v):
        return float(np.sum(weights * ref(v)))

    grad = np.zeros(x.shape, dtype=x.dtype)
    steps = [1.0, 1j] if np.iscomplexobj(x) else [1.0]
    for index in np.ndindex(x.shape):
        for step in steps:
            plus, minus = x.copy(), x.copy()
            plus[index] += eps * step
            minus[index] -= eps * step
            grad[index] += step * (loss(plus) - loss(minus)) / (2 * eps)
    return grad


# (id, pyir chain, numpy chain, input): every chain ends in a real signal.
CHAINS = [
    ("rfft-irfft", lambda t: F.irfft(F.rfft(t, norm="ortho"), n=7),
     lambda x: np.fft.irfft(np.fft.rfft(x, norm="ortho"), n=7), _real(2, 6)),
    ("ihfft-hfft", lambda t: F.hfft(F.ihfft(t, axis=0), n=5, axis=0, norm="forward"),
     lambda x: np.fft.hfft(np.fft.ihfft(x, axis=0), n=5, axis=0, norm="forward"),
     _real(5, 3)),
    ("c2c-hfft", lambda t: F.hfft(F.fft(t, norm="forward"), n=6),
     lambda x: np.fft.hfft(np.fft.fft(x, norm="forward"), n=6), _cplx(2, 4)),
    ("ifft-irfft-odd", lambda t: F.irfft(F.ifft(t, n=5), n=9, norm="ortho"),
     lambda x: np.fft.irfft(np.fft.ifft(x, n=5), n=9, norm="ortho"), _cplx(3, 4)),
    ("irfft-even", lambda t: F.irfft(t, n=6), lambda x: np.fft.irfft(x, n=6), _cplx(2, 4)),
    ("hfft-backward", lambda t: F.hfft(t), lambda x: np.fft.hfft(x), _cplx(2, 5)),
    ("fftn-irfftn", lambda t: F.irfftn(F.fftn(t, axes=[0, 1])[:, :3], s=[3, 4]),
     lambda x: np.fft.irfftn(np.fft.fftn(x, axes=[0, 1])[:, :3], s=[3, 4], axes=[0, 1]),
     _cplx(3, 4)),
    ("rfftn-hfftn", lambda t: F.hfftn(F.rfftn(t, norm="ortho"), s=[2, 5], norm="ortho"),
     lambda x: np.fft.irfftn(np.conj(np.fft.rfftn(x, norm="ortho")), s=[2, 5], axes=[0, 1],
                             norm="ortho"), _real(2, 5)),
    ("fft2-real", lambda t: F.irfft2(F.fft2(t)[:, :2], s=[3, 2], norm="forward"),
     lambda x: np.fft.irfft2(np.fft.fft2(x)[:, :2], s=[3, 2], norm="forward"), _real(3, 3)),
]


def _eager_grad(chain, x, weights):
    framework.static_mode[0] = False
    leaf = pyir.to_tensor(x, stop_gradient=False)
    loss = pyir.sum(chain(leaf) * pyir.to_tensor(weights))
    loss.backward()
    return leaf.grad.numpy()


def _static_grad(chain, x, weights):
    framework.reset_default_programs()
    framework.static_mode[0] = True
    try:
        leaf = pyir.static.data("x", list(x.shape), str(x.dtype))
        leaf.stop_gradient = False
        w = pyir.static.data("w", list(weights.shape), "float64")
        loss = pyir.sum(chain(leaf) * w)
        (grad,) = pyir.static.gradients([loss], [leaf])
        main = pyir.static.default_main_program()
        value = Executor().run(main, feed={"x": x, "w": weights}, fetch_list=[grad])[0]
        return np.asarray(value), [op.type for op in main.global_block().ops]
    finally:
        framework.static_mode[0] = False


@pytest.mark.parametrize("case", CHAINS, ids=[c[0] for c in CHAINS])
def test_gradients_of_real_losses_match_finite_differences(case):
    _, chain, ref, x = case
    weights = R.uniform(0.5, 1.5, ref(x).shape)
    expected = _numeric(ref, x, weights)
    eager = _eager_grad(chain, x, weights)
    static, ops = _static_grad(chain, x, weights)
    assert any(op.endswith("_grad") and op.startswith("fft_") for op in ops)
    for got in (eager, static):
        assert got.dtype == x.dtype and got.shape == x.shape
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)


def test_each_fft_grad_op_appears_in_the_backward_program():
    chain = lambda t: F.irfft(F.fft(F.rfft(t))[:, :3], n=4)  # noqa: E731
    _, ops = _static_grad(chain, _real(2, 4), np.ones((2, 4)))
    for op in ("fft_c2r_grad", "fft_c2c_grad", "fft_r2c_grad"):
        assert op in ops


def test_the_sign_of_the_c2c_gradient_is_checked():
    """A c2c gradient taken with the forward exponent (not the adjoint) must be caught."""
    x = _cplx(1, 4)
    weights = R.uniform(0.5, 1.5, (1, 6))
    ref = lambda v: np.fft.hfft(np.fft.fft(v), n=6)  # noqa: E731
    good = _eager_grad(lambda t: F.hfft(F.fft(t), n=6), x, weights)
    np.testing.assert_allclose(good, _numeric(ref, x, weights), atol=1e-6)
    assert not np.allclose(np.conj(good), _numeric(ref, x, weights), atol=1e-6)
