"""paddle.signal (frame, overlap_add, stft, istft) and Paddle's window functions, static and
eager, against numpy references written sample by sample here; the ops Paddle emits; the
gradients of frame and overlap_add; every refusal."""

from __future__ import annotations

import numpy as np
import pytest

import pyir
import pyir.signal as S
from pyir import framework
from pyir.errors import BuildError
from pyir.unsupported import UnsupportedError

from linalg_harness import run_eager, run_static, static_ops

R = np.random.default_rng(3)


def _real(*shape, dtype="float32"):
    return R.uniform(-1.0, 1.0, shape).astype(dtype)


def _frames_ref(x, length, hop, axis):
    seq = x.shape[-1] if axis == -1 else x.shape[0]
    starts = range(0, seq - length + 1, hop)
    if axis == -1:
        return np.stack([x[..., s:s + length] for s in starts], axis=-1)
    return np.stack([x[s:s + length] for s in starts], axis=0)


def _overlap_ref(x, hop, axis):
    if axis == 0:
        x = np.moveaxis(x, (0, 1), (-1, -2))
    length, n_frames = x.shape[-2:]
    out = np.zeros(x.shape[:-2] + ((n_frames - 1) * hop + length,), x.dtype)
    for f in range(n_frames):
        out[..., f * hop:f * hop + length] += x[..., :, f]
    return out if axis == -1 else np.moveaxis(out, -1, 0)


def _both(fn, arrays, expected, rtol=1e-5, atol=1e-5):
    static_values, ops = run_static(fn, arrays)
    for got in (static_values[0], run_eager(fn, arrays)[0]):
        assert got.shape == expected.shape and got.dtype == expected.dtype
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol)
    return ops


# --- frame / overlap_add ------------------------------------------------------------------------
@pytest.mark.parametrize("shape, length, hop, axis", [
    ((10,), 4, 2, -1), ((2, 9), 3, 3, -1), ((2, 3, 8), 8, 1, -1), ((10, 2), 4, 3, 0),
    ((7, 2, 3), 2, 5, 0), ((5,), 5, 2, 0)])
def test_frame_matches_slices(shape, length, hop, axis):
    x = _real(*shape)
    ops = _both(lambda t: S.frame(t, length, hop, axis), [x], _frames_ref(x, length, hop, axis))
    assert ops == ["frame"]
    op = static_ops(lambda t: S.frame(t, length, hop, axis), [x])[0]
    assert (op.attrs["frame_length"], op.attrs["hop_length"], op.attrs["axis"]) == \
        (length, hop, axis)


def test_frame_keeps_integer_dtype():
    x = np.arange(12, dtype=np.int64).reshape(2, 6)
    np.testing.assert_array_equal(run_eager(lambda t: S.frame(t, 3, 2), [x])[0],
                                  _frames_ref(x, 3, 2, -1))


@pytest.mark.parametrize("shape, hop, axis", [
    ((4, 3), 2, -1), ((2, 5, 4), 5, -1), ((2, 3, 1), 1, -1), ((3, 4), 1, 0),
    ((4, 3, 2), 2, 0), ((2, 2, 3, 2), 4, 0)])
def test_overlap_add_matches_a_sample_loop(shape, hop, axis):
    x = _real(*shape)
    ops = _both(lambda t: S.overlap_add(t, hop, axis), [x], _overlap_ref(x, hop, axis))
    assert ops == ["overlap_add"]


def test_overlap_add_inverts_frame_where_frames_do_not_overlap():
    x = _real(3, 12)
    back = run_eager(lambda t: S.overlap_add(S.frame(t, 4, 4), 4), [x])[0]
    np.testing.assert_allclose(back, x)


@pytest.mark.parametrize("fn, shape, ref", [
    (lambda t: S.frame(t, 4, 3), (2, 11), lambda x: _frames_ref(x, 4, 3, -1)),
    (lambda t: S.frame(t, 3, 2, axis=0), (8, 2), lambda x: _frames_ref(x, 3, 2, 0)),
    (lambda t: S.overlap_add(t, 2), (2, 4, 3), lambda x: _overlap_ref(x, 2, -1)),
    (lambda t: S.overlap_add(t, 3, axis=0), (3, 4, 2), lambda x: _overlap_ref(x, 3, 0)),
])
def test_frame_and_overlap_add_gradients_are_their_adjoints(fn, shape, ref):
    x = _real(*shape, dtype="float64")
    weights = R.uniform(0.5, 1.5, ref(x).shape)
    framework.static_mode[0] = False
    leaf = pyir.to_tensor(x, stop_gradient=False)
    pyir.sum(fn(leaf) * pyir.to_tensor(weights)).backward()
    expected = np.zeros_like(x)
    for index in np.ndindex(x.shape):  # the loss is linear: its gradient is exact
        basis = np.zeros_like(x)
        basis[index] = 1.0
        expected[index] = np.sum(weights * ref(basis))
    np.testing.assert_allclose(leaf.grad.numpy(), expected, rtol=1e-12, atol=1e-12)


# --- stft / istft -------------------------------------------------------------------------------
def _stft_ref(x, n_fft, hop, win_length, window, center, pad_mode, normalized, onesided):
    """Per-frame numpy FFT of the (padded) signal times the centred window."""
    x = np.atleast_2d(x)
    window = np.ones(win_length) if window is None else window
    left = (n_fft - win_length) // 2
    window = np.pad(window, (left, n_fft - win_length - left))
    if center:
        x = np.pad(x, ((0, 0), (n_fft // 2, n_fft // 2)), mode=pad_mode)
    n_frames = 1 + (x.shape[-1] - n_fft) // hop
    norm = "ortho" if normalized else "backward"
    fft = np.fft.rfft if onesided else np.fft.fft
    cols = [fft(x[:, f * hop:f * hop + n_fft] * window, norm=norm) for f in range(n_frames)]
    return np.stack(cols, axis=-1)


STFT_CASES = [
    dict(n_fft=8, hop_length=2, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None),
    dict(n_fft=8, hop_length=None, win_length=6, window=np.hanning(7)[:6], center=True,
         pad_mode="constant", normalized=True, onesided=True),
    dict(n_fft=6, hop_length=3, win_length=None, window=np.hamming(6), center=False,
         pad_mode="reflect", normalized=False, onesided=False),
    dict(n_fft=5, hop_length=1, win_length=3, window=None, center=True, pad_mode="reflect",
         normalized=True, onesided=None),
]


@pytest.mark.parametrize("batch", [True, False], ids=["2d", "1d"])
@pytest.mark.parametrize("case", STFT_CASES, ids=["default", "hann-pad", "full-nocenter",
                                                  "odd-nfft"])
def test_stft_matches_a_per_frame_numpy_reference(case, batch):
    x = _real(2, 20) if batch else _real(20)
    window = case["window"]
    hop = case["hop_length"] or case["n_fft"] // 4
    win_length = case["win_length"] or case["n_fft"]
    onesided = True if case["onesided"] is None else case["onesided"]
    expected = _stft_ref(x, case["n_fft"], hop, win_length, window, case["center"],
                         case["pad_mode"], case["normalized"], onesided).astype(np.complex64)
    expected = expected if batch else expected[0]
    kwargs = {k: v for k, v in case.items() if k != "window"}
    arrays = [x] if window is None else [x, window.astype(np.float32)]

    def call(t, w=None):
        return S.stft(t, window=w, **kwargs)

    ops = _both(call, arrays, expected, rtol=1e-4, atol=1e-5)
    assert "frame" in ops and "fft_r2c" in ops and "elementwise_mul" in ops


def test_stft_of_a_complex_signal_is_two_sided_fft_c2c():
    x = (_real(16) + 1j * _real(16)).astype(np.complex64)
    ops = static_ops(lambda t: S.stft(t, 8, 4, center=False), [x])
    assert "fft_c2c" in [op.type for op in ops]
    got = run_eager(lambda t: S.stft(t, 8, 4, center=False), [x])[0]
    frames = [np.fft.fft(x[s:s + 8]) for s in range(0, 9, 4)]
    np.testing.assert_allclose(got, np.stack(frames, -1), rtol=1e-4, atol=1e-5)


def _istft_ref(spec, n_fft, hop, window, center, normalized, onesided, length):
    """Inverse FFT per frame, windowed overlap-add divided by the overlap-added window^2."""
    norm = "ortho" if normalized else "backward"
    frames = [np.fft.irfft(spec[..., :n_fft // 2 + 1, f], n=n_fft, norm=norm)
              for f in range(spec.shape[-1])]
    total = (len(frames) - 1) * hop + n_fft
    signal = np.zeros(spec.shape[:-2] + (total,))
    envelope = np.zeros(total)
    for f, frame in enumerate(frames):
        signal[..., f * hop:f * hop + n_fft] += frame * window
        envelope[f * hop:f * hop + n_fft] += window * window
    start = n_fft // 2 if center else 0
    stop = total - start if length is None else start + length
    return signal[..., start:stop] / envelope[start:stop]


@pytest.mark.parametrize("center, normalized, onesided, length", [
    (True, False, True, None), (True, True, True, 17), (False, False, False, None),
    (False, True, True, 10)])
def test_istft_matches_a_numpy_overlap_add(center, normalized, onesided, length):
    n_fft, hop = 8, 2
    bins = n_fft // 2 + 1 if onesided else n_fft
    spec = (_real(2, bins, 7) + 1j * _real(2, bins, 7)).astype(np.complex64)
    spec[:, 0].imag = 0  # a real signal's DC bin
    window = np.hamming(n_fft + 1)[:n_fft].astype(np.float32)  # nonzero at both ends
    expected = _istft_ref(spec.astype(np.complex128), n_fft, hop, window.astype(np.float64),
                          center, normalized, onesided, length).astype(np.float32)

    def call(t, w):
        return S.istft(t, n_fft, hop, window=w, center=center, normalized=normalized,
                       onesided=onesided, length=length)

    ops = _both(call, [spec, window], expected, rtol=1e-4, atol=1e-4)
    assert ops.count("overlap_add") == 2 and "fft_c2r" in ops


def test_istft_inverts_stft():
    x = _real(3, 40, dtype="float64")
    window = pyir.to_tensor(np.hanning(17)[:16])
    framework.static_mode[0] = False
    spec = S.stft(pyir.to_tensor(x), 16, 4, window=window)
    assert spec.dtype == np.complex128
    back = S.istft(spec, 16, 4, window=window, length=40)
    np.testing.assert_allclose(back.numpy(), x, atol=1e-12)
    single = S.istft(S.stft(pyir.to_tensor(x[0]), 16, 4, window=window), 16, 4,
                     window=window, length=40)
    np.testing.assert_allclose(single.numpy(), x[0], atol=1e-12)


def test_istft_return_complex_uses_fft_c2c():
    spec = (_real(8, 5) + 1j * _real(8, 5)).astype(np.complex64)
    ops = static_ops(lambda t: S.istft(t, 8, 2, onesided=False, return_complex=True), [spec])
    assert "fft_c2c" in [op.type for op in ops]
    got = run_eager(lambda t: S.istft(t, 8, 2, onesided=False, return_complex=True,
                                      center=False), [spec])[0]
    frames = [np.fft.ifft(spec[:, f]) for f in range(5)]
    signal = np.zeros(16, complex)
    envelope = np.zeros(16)
    for f, fr in enumerate(frames):
        signal[2 * f:2 * f + 8] += fr
        envelope[2 * f:2 * f + 8] += 1
    np.testing.assert_allclose(got, signal / envelope, rtol=1e-4, atol=1e-5)


# --- windows ------------------------------------------------------------------------------------
def _symmetric(name, m, beta):
    return {"hann": np.hanning, "hamming": np.hamming, "blackman": np.blackman,
            "bartlett": np.bartlett, "kaiser": lambda k: np.kaiser(k, beta)}[name](m)


@pytest.mark.parametrize("name", ["hann", "hamming", "blackman", "bartlett", "kaiser"])
@pytest.mark.parametrize("length", [0, 1, 2, 7, 16])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows_match_numpy(name, length, periodic):
    fn = getattr(S, f"{name}_window")
    kwargs = {"beta": 5.0} if name == "kaiser" else {}
    if length <= 1:
        expected = np.ones(length)
    elif periodic:
        expected = _symmetric(name, length + 1, 5.0)[:length]
    else:
        expected = _symmetric(name, length, 5.0)
    expected = expected.astype(np.float32)
    static_values, ops = run_static(lambda: fn(length, periodic, **kwargs), [])
    assert ops == ["assign_value"]
    for got in (static_values[0], run_eager(lambda: fn(length, periodic, **kwargs), [])[0]):
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)


def test_window_options():
    framework.static_mode[0] = False
    w = S.hamming_window(9, alpha=0.5, beta=0.5, dtype="float64")
    assert w.dtype == np.float64
    np.testing.assert_allclose(w.numpy(), np.hanning(10)[:9], atol=1e-12)
    np.testing.assert_allclose(S.hamming_window(1, alpha=0.6, beta=0.3).numpy(), [0.9],
                               rtol=1e-6)
    np.testing.assert_allclose(S.kaiser_window(6, False).numpy(), np.kaiser(6, 12.0),
                               rtol=1e-5)
    assert S.hann_window(4).stop_gradient and not S.hann_window(4, requires_grad=True) \
        .stop_gradient


# --- refusals -----------------------------------------------------------------------------------
X = _real(2, 16)
SPEC = (_real(5, 7) + 1j * _real(5, 7)).astype(np.complex64)


@pytest.mark.parametrize("call, match", [
    (lambda x, s: S.frame(x, 4, 2, axis=1), "unexpected axis: 1"),
    (lambda x, s: S.frame(x, 0, 2), "unexpected frame_length: 0"),
    (lambda x, s: S.frame(x, 4, -1), "unexpected hop_length: -1"),
    (lambda x, s: S.frame(x, 17, 2), r"got \(17\) > \(16\)"),
    (lambda x, s: S.overlap_add(x, 2, axis=-2), "unexpected axis: -2"),
    (lambda x, s: S.overlap_add(x, 0), "unexpected hop_length: 0"),
    (lambda x, s: S.overlap_add(x[0], 2), "at least two dimensions"),
    (lambda x, s: S.stft(pyir.unsqueeze(x, 0), 8), "1-D or 2-D tensor, got rank 3"),
    (lambda x, s: S.stft(x, 32), r"n_fft should be in \(0, seq_length \(16\)\]"),
    (lambda x, s: S.stft(x, 8, win_length=9), r"win_length should be in \(0, n_fft \(8\)\]"),
    (lambda x, s: S.stft(x, 8, hop_length=0), "unexpected hop_length: 0"),
    (lambda x, s: S.stft(x, 8, window=pyir.ones([7])), "1-D window of size win_length"),
    (lambda x, s: S.stft(x, 8, pad_mode="edge"), "pad_mode should be 'reflect'"),
    (lambda x, s: S.stft(pyir.cast(x, "complex64"), 8, onesided=True),
     "onesided should be False"),
    (lambda x, s: S.istft(x, 8), "x should be a complex tensor"),
    (lambda x, s: S.istft(pyir.unsqueeze(pyir.unsqueeze(s, 0), 0), 8), "got rank 4"),
    (lambda x, s: S.istft(s, 8, hop_length=9), r"hop_length should be in \(0, win_length"),
    (lambda x, s: S.istft(s, 8, win_length=10), r"win_length should be in \(0, n_fft"),
    (lambda x, s: S.istft(s, 10), "fft_size should be 6"),
    (lambda x, s: S.istft(s, 8, onesided=False), "fft_size should be 8"),
    (lambda x, s: S.istft(s, 8, return_complex=True), "onesided should be False when "
                                                      "return_complex"),
    (lambda x, s: S.istft(s, 8, window=pyir.zeros([8])), "NOLA"),
    (lambda x, s: S.istft(s[:, :0], 8), "should not be an empty tensor"),
    (lambda x, s: S.frame(x[0, 0], 1, 1), "at least one dimension"),
    (lambda x, s: S.hann_window(-1), "window_length must be a non-negative integer"),
    (lambda x, s: S.kaiser_window(2.5), "window_length must be a non-negative integer"),
])
def test_refusals_name_the_function_and_the_problem(call, match):
    framework.static_mode[0] = False
    with pytest.raises(BuildError, match=match):
        call(pyir.to_tensor(X), pyir.to_tensor(SPEC))


def test_paddle_internals_are_left_out_with_a_reason():
    with pytest.raises(UnsupportedError, match="paddle.signal.check_variable_and_dtype"):
        S.check_variable_and_dtype(None, "x", [], "op")
    assert S.fft_r2c is pyir.fft.fft_r2c and not S.in_pir_mode()


def test_a_saved_stft_istft_program_loads_and_runs(tmp_path):
    """The FFT, frame and overlap_add ops survive Paddle's file format (a file written this
    way also loaded and ran in Paddle 3.3.1 with the same results when this was written)."""
    import pyir.static as st

    framework.reset_default_programs()
    framework.static_mode[0] = True
    try:
        main = st.default_main_program()
        x = st.data("x", [2, 24], "float32")
        window = S.hann_window(8)
        y = S.istft(S.stft(x, 8, 2, window=window), 8, 2, window=window, length=24)
        z = pyir.fft.irfft(pyir.fft.rfft(x, norm="ortho"), n=24, norm="ortho")
        exe = st.Executor()
        st.save_inference_model(str(tmp_path / "m"), [x], [y, z], exe, program=main)
        program, feeds, fetches = st.load_inference_model(str(tmp_path / "m"), exe)
        ops = {op.type: op for op in program.global_block().ops}
        assert ops["fft_r2c"].attrs["onesided"] is True and ops["frame"].attrs["hop_length"] == 2
        xv = _real(2, 24)
        for got in exe.run(program, feed={feeds[0]: xv}, fetch_list=fetches):
            np.testing.assert_allclose(got, xv, atol=1e-5)
    finally:
        framework.static_mode[0] = False
