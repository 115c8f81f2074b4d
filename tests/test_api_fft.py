"""paddle.fft: every transform built in static mode (the legacy ops Paddle emits, run by the
Executor) and run eagerly, against numpy.fft, over norms, axes, n/s (crop and pad) and
dtypes; the emitted op types and attributes; frequencies and shifts; every refusal."""

from __future__ import annotations

import numpy as np
import pytest

import pyir
import pyir.fft as F
from pyir import framework
from pyir.errors import BuildError
from pyir.unsupported import UnsupportedError

from linalg_harness import run_eager, run_static, static_ops

R = np.random.default_rng(11)
NORMS = ["backward", "forward", "ortho"]


def _real(*shape, dtype="float32"):
    return R.uniform(-1.0, 1.0, shape).astype(dtype)


def _cplx(*shape, dtype="complex64"):
    return (R.uniform(-1, 1, shape) + 1j * R.uniform(-1, 1, shape)).astype(dtype)


X_REAL, X_CPLX, X64 = _real(3, 8), _cplx(3, 8), _real(4, 6, dtype="float64")
X3 = _real(2, 4, 6)


def _scale(norm, n, inverse):
    """numpy-independent statement of the three norms: 1/n on one side or 1/sqrt(n) on both."""
    if norm == "ortho":
        return 1.0 / np.sqrt(n)
    return 1.0 / n if (norm == "backward") == inverse else 1.0


def _hfftn_ref(x, s, axes, norm):
    """hfft: the unscaled real transform of a Hermitian signal is n * irfft(conj(x))."""
    sizes = list(s) if s is not None else [x.shape[a] for a in axes[:-1]] + \
        [2 * (x.shape[axes[-1]] - 1)]
    n = int(np.prod(sizes))
    return np.fft.irfftn(np.conj(x), s=sizes, axes=axes) * n * _scale(norm, n, False)


def _ihfftn_ref(x, s, axes, norm):
    """ihfft: conj of the unscaled one-sided spectrum, scaled as an inverse transform."""
    y = np.fft.rfftn(x, s=s, axes=axes)
    n = int(np.prod(s if s is not None else [x.shape[a] for a in axes]))
    return np.conj(y) * _scale(norm, n, True)


def _check(fn, arrays, expected, dtype, rtol=2e-5, atol=2e-5):
    static_values, ops = run_static(fn, arrays)
    eager_values = run_eager(fn, arrays)
    for got in (static_values[0], eager_values[0]):
        assert got.dtype == np.dtype(dtype)
        assert got.shape == expected.shape, (got.shape, expected.shape)
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol)
    return ops


# (function, numpy reference, input)
ONE_D = [
    ("fft-real", F.fft, np.fft.fft, X_REAL, "complex64"),
    ("fft-complex", F.fft, np.fft.fft, X_CPLX, "complex64"),
    ("ifft-real", F.ifft, np.fft.ifft, X_REAL, "complex64"),
    ("ifft-complex", F.ifft, np.fft.ifft, X_CPLX, "complex64"),
    ("rfft", F.rfft, np.fft.rfft, X_REAL, "complex64"),
    ("rfft-f64", F.rfft, np.fft.rfft, X64, "complex128"),
    ("irfft", F.irfft, np.fft.irfft, X_CPLX, "float32"),
    ("hfft", F.hfft, np.fft.hfft, X_CPLX, "float32"),
    ("ihfft", F.ihfft, np.fft.ihfft, X_REAL, "complex64"),
    ("ihfft-f64", F.ihfft, np.fft.ihfft, X64, "complex128"),
]


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("n, axis", [(None, -1), (5, -1), (11, 1), (2, 0), (7, -2)])
@pytest.mark.parametrize("case", ONE_D, ids=[c[0] for c in ONE_D])
def test_one_dimensional_transforms_match_numpy(case, n, axis, norm):
    _, fn, ref, x, dtype = case
    expected = ref(x, n=n, axis=axis, norm=norm)
    _check(lambda t: fn(t, n=n, axis=axis, norm=norm), [x], expected, dtype)


def test_hfft_and_ihfft_follow_their_definitions():
    """Independent of numpy's hfft: n * irfft(conj x) and conj(rfft x) / n."""
    np.testing.assert_allclose(run_eager(lambda t: F.hfft(t, n=9), [X_CPLX])[0],
                               _hfftn_ref(X_CPLX, [9], [-1], "backward"), atol=2e-5)
    np.testing.assert_allclose(run_eager(lambda t: F.ihfft(t), [X_REAL])[0],
                               _ihfftn_ref(X_REAL, None, [-1], "backward"), atol=2e-6)


# (function, reference, input, s, axes, output dtype)
N_D = [
    ("fftn-all", F.fftn, np.fft.fftn, X3, None, None, "complex64"),
    ("fftn-s", F.fftn, np.fft.fftn, X3, [3, 5], None, "complex64"),
    ("fftn-axes-unsorted", F.fftn, np.fft.fftn, _cplx(2, 4, 6), [3, 2, 7], [2, 0, 1],
     "complex64"),
    ("ifftn", F.ifftn, np.fft.ifftn, _cplx(3, 4), None, [1, 0], "complex64"),
    ("ifftn-real", F.ifftn, np.fft.ifftn, X3, [2, 8], [-1, 0], "complex64"),
    ("rfftn", F.rfftn, np.fft.rfftn, X3, None, None, "complex64"),
    ("rfftn-axes", F.rfftn, np.fft.rfftn, X3, [3, 7], [2, 1], "complex64"),
    ("irfftn", F.irfftn, np.fft.irfftn, _cplx(3, 5), None, None, "float32"),
    ("irfftn-s", F.irfftn, np.fft.irfftn, _cplx(2, 3, 5), [4, 9], [0, 2], "float32"),
    ("hfftn", F.hfftn, _hfftn_ref, _cplx(3, 5), None, [0, 1], "float32"),
    ("hfftn-s", F.hfftn, _hfftn_ref, _cplx(3, 5), [4, 6], [0, 1], "float32"),
    ("ihfftn", F.ihfftn, _ihfftn_ref, X3, None, [0, 1, 2], "complex64"),
    ("ihfftn-s", F.ihfftn, _ihfftn_ref, X3, [3, 5], [1, 2], "complex64"),
    ("fft2", F.fft2, np.fft.fft2, X3, None, (-2, -1), "complex64"),
    ("fft2-axes", F.fft2, np.fft.fft2, X3, [3, 3], [0, 2], "complex64"),
    ("ifft2", F.ifft2, np.fft.ifft2, _cplx(3, 4), [5, 2], (-2, -1), "complex64"),
    ("rfft2", F.rfft2, np.fft.rfft2, X3, None, (-2, -1), "complex64"),
    ("irfft2", F.irfft2, np.fft.irfft2, _cplx(3, 4), [3, 8], (-2, -1), "float32"),
    ("hfft2", F.hfft2, _hfftn_ref, _cplx(3, 4), None, (-2, -1), "float32"),
    ("ihfft2", F.ihfft2, _ihfftn_ref, X3, None, (-2, -1), "complex64"),
]


def _axes_for_ref(x, s, axes):
    if axes is not None:
        return list(axes)
    return list(range(x.ndim)) if s is None else list(range(x.ndim - len(s), x.ndim))


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("case", N_D, ids=[c[0] for c in N_D])
def test_n_dimensional_transforms_match_numpy(case, norm):
    _, fn, ref, x, s, axes, dtype = case
    ref_axes = _axes_for_ref(x, s, axes)
    expected = ref(x, s=s, axes=ref_axes, norm=norm)
    kwargs = {"s": s, "norm": norm}
    if axes is not None:
        kwargs["axes"] = axes
    _check(lambda t: fn(t, **kwargs), [x], expected, dtype, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("fn, expected_op, attrs", [
    (lambda x: F.fft(x), "fft_r2c", {"axes": [1], "forward": True, "onesided": False,
                                      "normalization": "backward"}),
    (lambda x: F.ifft(x, norm="ortho"), "fft_r2c", {"axes": [1], "forward": False,
                                                     "onesided": False,
                                                     "normalization": "ortho"}),
    (lambda x: F.rfft(x, axis=0), "fft_r2c", {"axes": [0], "forward": True,
                                               "onesided": True}),
    (lambda x: F.ihfft(x, norm="forward"), "fft_r2c", {"axes": [1], "forward": False,
                                                        "onesided": True,
                                                        "normalization": "forward"}),
    (lambda x: F.fft(pyir.cast(x, "complex64")), "fft_c2c", {"axes": [1], "forward": True}),
    (lambda x: F.irfft(x), "fft_c2r", {"axes": [1], "forward": False}),
    (lambda x: F.irfft(x, n=6), "fft_c2r", {"axes": [1], "forward": False,
                                             "last_dim_size": 6}),
    (lambda x: F.hfft(x, n=9, axis=0), "fft_c2r", {"axes": [0], "forward": True,
                                                    "last_dim_size": 9}),
    (lambda x: F.fftn(pyir.cast(x, "complex64"), axes=[1, 0]), "fft_c2c",
     {"axes": [0, 1], "forward": True}),
    (lambda x: F.rfftn(x, axes=[1, 0]), "fft_r2c", {"axes": [1, 0], "onesided": True}),
    (lambda x: F.irfftn(x, s=[3, 4], axes=[1, 0]), "fft_c2r",
     {"axes": [1, 0], "last_dim_size": 4}),
])
def test_static_calls_emit_paddles_legacy_fft_ops(fn, expected_op, attrs):
    ops = static_ops(fn, [X_REAL])
    fft_ops = [op for op in ops if op.type.startswith("fft_")]
    assert [op.type for op in fft_ops] == [expected_op]
    for key, value in attrs.items():
        assert fft_ops[0].attrs[key] == value, key


def test_irfft_without_n_leaves_last_dim_size_unset_and_real_input_is_cast_to_complex():
    ops = static_ops(lambda x: F.irfft(x), [X_REAL])
    assert [op.type for op in ops] == ["cast", "fft_c2r"]
    assert ops[0].attrs["out_dtype"] == 23  # complex64
    assert "last_dim_size" not in ops[1].attrs or ops[1].attrs["last_dim_size"] == 0


def test_n_crops_with_slice_and_pads_with_pad():
    crop = static_ops(lambda x: F.fft(x, n=5), [X_REAL])
    assert [op.type for op in crop] == ["slice", "fft_r2c"]
    assert crop[0].attrs["ends"] == [5]
    grow = static_ops(lambda x: F.fft(x, n=10, axis=0), [X_REAL])
    assert [op.type for op in grow] == ["pad", "fft_r2c"]
    assert grow[0].attrs["paddings"] == [0, 7, 0, 0]
    irfft = static_ops(lambda x: F.irfft(x, n=20), [X_CPLX])
    assert [op.type for op in irfft] == ["pad", "fft_c2r"]
    assert irfft[0].attrs["paddings"] == [0, 0, 0, 3]  # to n // 2 + 1 = 11 bins


def test_integer_input_is_cast_to_float32():
    x = np.arange(8, dtype=np.int64).reshape(2, 4)
    got = run_eager(F.rfft, [x])[0]
    assert got.dtype == np.complex64
    np.testing.assert_allclose(got, np.fft.rfft(x), atol=1e-5)
    got = run_eager(F.ifft, [x.astype(np.int32)])[0]
    np.testing.assert_allclose(got, np.fft.ifft(x), atol=1e-6)
    assert run_eager(F.irfft, [x])[0].dtype == np.float32


def test_complex128_keeps_double_precision():
    x = _cplx(3, 6, dtype="complex128")
    got = run_eager(F.irfft, [x])[0]
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, np.fft.irfft(x), rtol=1e-12, atol=1e-12)


def test_out_argument_receives_the_result():
    pyir.disable_static()
    target = pyir.to_tensor(np.zeros((3, 5), np.complex64))
    result = F.rfft(pyir.to_tensor(X_REAL), out=target)
    np.testing.assert_allclose(target.numpy(), np.fft.rfft(X_REAL), atol=1e-5)
    np.testing.assert_allclose(result.numpy(), target.numpy())


def test_empty_batch_and_single_point():
    empty = np.zeros((0, 4), np.float32)
    assert run_eager(F.fft, [empty])[0].shape == (0, 4)
    one = np.array([3.0], np.float32)
    np.testing.assert_allclose(run_eager(F.fft, [one])[0], [3.0 + 0j])


# --- frequencies and shifts ---------------------------------------------------------------------
@pytest.mark.parametrize("n, d", [(5, 0.5), (6, 1.0), (1, 2.0), (8, 0.1)])
def test_fftfreq_and_rfftfreq_match_numpy(n, d):
    for fn, ref in ((F.fftfreq, np.fft.fftfreq), (F.rfftfreq, np.fft.rfftfreq)):
        static_values, _ = run_static(lambda: fn(n, d), [])
        eager = run_eager(lambda: fn(n, d), [])[0]
        for got in (static_values[0], eager):
            assert got.dtype == np.float32
            np.testing.assert_allclose(got, ref(n, d), rtol=1e-6, atol=1e-7)
    assert run_eager(lambda: F.fftfreq(4, dtype="float64"), [])[0].dtype == np.float64


@pytest.mark.parametrize("shape, axes", [((5,), None), ((4, 5), None), ((4, 5), 1),
                                         ((3, 4, 5), [0, 2]), ((3, 4, 5), (-1,))])
def test_fftshift_and_ifftshift_match_numpy(shape, axes):
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    for fn, ref in ((F.fftshift, np.fft.fftshift), (F.ifftshift, np.fft.ifftshift)):
        static_values, ops = run_static(lambda t: fn(t, axes), [x])
        assert ops == ["roll"]
        for got in (static_values[0], run_eager(lambda t: fn(t, axes), [x])[0]):
            np.testing.assert_array_equal(got, ref(x, axes))
    c = _cplx(3, 5)
    np.testing.assert_array_equal(run_eager(F.fftshift, [c])[0], np.fft.fftshift(c))


# --- refusals -----------------------------------------------------------------------------------
@pytest.mark.parametrize("call, match", [
    (lambda x: F.fft(x, norm="none"), "unexpected norm 'none'"),
    (lambda x: F.ifftn(x, norm=None), "unexpected norm None"),
    (lambda x: F.fft(x, n=0), r"invalid FFT argument n \(0\)"),
    (lambda x: F.rfft(x, n=-3), r"invalid FFT argument n \(-3\)"),
    (lambda x: F.irfft(x, n=2.5), r"invalid FFT argument n \(2.5\)"),
    (lambda x: F.fft(x, axis=2), r"invalid FFT axis \(2\)"),
    (lambda x: F.hfft(x, axis=-3), r"invalid FFT axis \(-3\)"),
    (lambda x: F.fftn(x, s=5), "should be a sequence of integers"),
    (lambda x: F.fftn(x, s=[1, 2, 3]), "s has 3 sizes but x has rank 2"),
    (lambda x: F.rfftn(x, s=[0, 2]), r"invalid value \(0\)"),
    (lambda x: F.fftn(x, axes=[0, 2]), r"invalid value \(2\)"),
    (lambda x: F.fftn(x, axes=[1, -1]), "name a dimension twice"),
    (lambda x: F.fftn(x, axes=1), r"invalid FFT axes \(1\)"),
    (lambda x: F.rfftn(x, axes=[0, 1, 0]), "3 axes for an input of rank 2"),
    (lambda x: F.fftshift(x, axes=[2]), r"invalid value \(2\)"),
    (lambda x: F.ifftshift(x, axes=[0, 0]), "name a dimension twice"),
    (lambda x: F.irfftn(x, s=[2, 4], axes=[1]), "length of s \\(2\\) and length of axes"),
    (lambda x: F.fft2(x, s=[4]), "sequence of 2 integers"),
    (lambda x: F.rfft2(x, axes=[0, 1, 1]), "sequence of 2 integers"),
    (lambda x: F.ifft2(x[0]), r"rank of the input \(1\) should be >= 2"),
    (lambda x: F.rfft(pyir.cast(x, "complex64")), "expects a real input"),
    (lambda x: F.ihfftn(pyir.cast(x, "complex64")), "expects a real input"),
])
def test_refusals_name_the_function_and_the_problem(call, match):
    pyir.disable_static()
    with pytest.raises(BuildError, match=match):
        call(pyir.to_tensor(X_REAL))


def test_refusals_in_static_mode_too():
    with pytest.raises(BuildError, match="paddle.fft.fft_r2c: unexpected norm"):
        static_ops(lambda x: F.fft(x, norm="ORTHO"), [X_REAL])


def test_shifting_an_axis_of_unknown_size_is_refused():
    framework.reset_default_programs()
    framework.static_mode[0] = True
    try:
        x = pyir.static.data("x", [-1, 4], "float32")
        assert list(F.fftshift(x, axes=1).shape) == [-1, 4]
        with pytest.raises(BuildError, match="unknown size"):
            F.fftshift(x)
    finally:
        framework.static_mode[0] = False


@pytest.mark.parametrize("fn", [F.fftfreq, F.rfftfreq])
@pytest.mark.parametrize("n, d", [(0, 1.0), (4, 0.0), (-2, 1.0)])
def test_frequency_refusals(fn, n, d):
    with pytest.raises(BuildError, match="n must be a positive integer and d nonzero"):
        fn(n, d)


def test_paddle_internals_are_left_out_with_a_reason():
    with pytest.raises(UnsupportedError, match="paddle.fft.LayerHelper"):
        F.LayerHelper("x")
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        F.nope  # noqa: B018
    assert F.is_integer is pyir.is_integer and F.Sequence is not None
