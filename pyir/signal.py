"""`pyir.signal`: Paddle's `paddle.signal` (`frame`, `overlap_add`, `stft`, `istft`), and
Paddle's top-level window functions (`hann_window`, `hamming_window`, `blackman_window`,
`bartlett_window`, `kaiser_window`), static and eager (pyir/dispatch.py).

`frame` and `overlap_add` are the ops of the same names (pyir/ops/fft_ops.py). `stft` and
`istft` are built from them and the FFT ops exactly as Paddle builds them (pad, frame,
transpose, multiply by the window, fft_r2c / fft_c2c; istft: fft_c2r / fft_c2c, overlap_add
and division by the overlap-added squared window). A window is a constant (op
`assign_value`) computed here with numpy, with scipy's definitions that Paddle follows.

Example:
    >>> spec = pyir.signal.stft(x, n_fft=8, window=pyir.hann_window(8))
"""

from __future__ import annotations

import numbers
from typing import Literal  # noqa: F401  (a name paddle.signal exposes)

import numpy as np

from . import unsupported as _unsupported
from .dispatch import dtype_of, out
from .eager import Tensor
from .errors import BuildError, Where
from .fft import fft_c2c, fft_c2r, fft_r2c  # noqa: F401  (names paddle.signal exposes)
from .framework import static_mode
from .nn import functional as _functional
from .regularizer import in_dynamic_or_pir_mode  # noqa: F401  (a name paddle.signal exposes)
from .tensor.attribute import is_complex
from .tensor.creation import ones
from .tensor.manip_shape import assign
from .tensor.math_binary import divide, multiply
from .tensor import squeeze, tile, transpose, unsqueeze


def _fail(fn: str, message: str):
    raise BuildError(f"paddle.signal.{fn}: {message}", Where(op_type=fn))


def in_dynamic_mode() -> bool:
    """Whether pyir runs eagerly (Paddle's name). Example: pyir.signal.in_dynamic_mode()."""
    return not static_mode[0]


def in_pir_mode() -> bool:
    """Always False: pyir builds legacy programs (Paddle's name)."""
    return False


def _positive_int(value, what: str, fn: str):
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value <= 0:
        _fail(fn, f"unexpected {what}: {value!r}; it should be a positive integer")


# --- frame / overlap_add ------------------------------------------------------------------------
def frame(x, frame_length, hop_length, axis=-1, name=None):
    """Frames of `frame_length` samples every `hop_length` along the last (axis=-1: output
    [..., frame_length, n_frames]) or first axis (axis=0: [n_frames, frame_length, ...]), op
    `frame`. Example: pyir.signal.frame(x, 4, 2)."""
    if axis not in (0, -1):
        _fail("frame", f"unexpected axis: {axis!r}; it should be 0 or -1")
    _positive_int(frame_length, "frame_length", "frame")
    _positive_int(hop_length, "hop_length", "frame")
    if len(x.shape) < 1:
        _fail("frame", "x must have at least one dimension")
    seq = x.shape[axis]
    if seq >= 0 and frame_length > seq:
        _fail("frame", f"frame_length should be <= the sequence length, got ({frame_length}) > "
                       f"({seq})")
    return out("frame", {"X": x}, {"frame_length": int(frame_length),
                                   "hop_length": int(hop_length), "axis": int(axis)}, name=name)


def overlap_add(x, hop_length, axis=-1, name=None):
    """The frames of x ([..., frame_length, n_frames] for axis=-1, [n_frames, frame_length,
    ...] for axis=0) added into one signal every `hop_length` samples, op `overlap_add`.
    Example: pyir.signal.overlap_add(frames, 2)."""
    if axis not in (0, -1):
        _fail("overlap_add", f"unexpected axis: {axis!r}; it should be 0 or -1")
    _positive_int(hop_length, "hop_length", "overlap_add")
    if len(x.shape) < 2:
        _fail("overlap_add", f"x must have at least two dimensions (frame_length and "
                             f"n_frames), got shape {list(x.shape)}")
    return out("overlap_add", {"X": x}, {"hop_length": int(hop_length), "axis": int(axis)},
               name=name)


# --- stft / istft -----------------------------------------------------------------------------
def _centered_window(window, win_length, n_fft, dtype, fn):
    """The window (ones by default) checked and zero-padded on both sides to n_fft."""
    if window is not None:
        if len(window.shape) != 1 or window.shape[0] != win_length:
            _fail(fn, f"expected a 1-D window of size win_length ({win_length}), got shape "
                      f"{list(window.shape)}")
    else:
        window = ones([win_length], dtype=dtype)
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        window = _functional.pad(window, [left, n_fft - win_length - left], mode="constant")
    return window


def stft(x, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, name=None):
    """The short-time Fourier transform of a 1-D [seq] or 2-D [batch, seq] signal: output
    [(batch,) n_fft//2+1 (onesided) or n_fft, n_frames]. Example:
    pyir.signal.stft(x, 16, hop_length=4)."""
    rank = len(x.shape)
    if rank not in (1, 2):
        _fail("stft", f"x should be a 1-D or 2-D tensor, got rank {rank}")
    if rank == 1:
        x = unsqueeze(x, 0)
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    _positive_int(n_fft, "n_fft", "stft")
    _positive_int(hop_length, "hop_length", "stft")
    seq = x.shape[-1]
    if seq >= 0 and n_fft > seq:
        _fail("stft", f"n_fft should be in (0, seq_length ({seq})], got {n_fft}")
    if not isinstance(win_length, numbers.Integral) or not 0 < win_length <= n_fft:
        _fail("stft", f"win_length should be in (0, n_fft ({n_fft})], got {win_length!r}")
    window = _centered_window(window, win_length, n_fft, dtype_of(x), "stft")
    if center:
        if pad_mode not in ("constant", "reflect"):
            _fail("stft", f"pad_mode should be 'reflect' or 'constant', got {pad_mode!r}")
        half = n_fft // 2
        x = squeeze(_functional.pad(unsqueeze(x, -1), [half, half], mode=pad_mode,
                                    data_format="NLC"), -1)
    frames = transpose(frame(x, n_fft, hop_length, axis=-1), [0, 2, 1])
    frames = multiply(frames, window)
    norm = "ortho" if normalized else "backward"
    framed_complex = is_complex(frames)
    if onesided is None:
        onesided = not framed_complex
    if framed_complex and onesided:
        _fail("stft", "onesided should be False when the input or the window is complex")
    if not is_complex(x):
        spectrum = fft_r2c(frames, None, -1, norm, True, onesided, name)
    else:
        spectrum = fft_c2c(frames, None, -1, norm, True, name)
    spectrum = transpose(spectrum, [0, 2, 1])
    return squeeze(spectrum, 0) if rank == 1 else spectrum


def istft(x, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=True, length=None, return_complex=False, name=None):
    """The inverse of stft (least-squares overlap-add): a complex [(batch,) fft_size,
    n_frames] spectrum to a [(batch,) seq] signal. Example: pyir.signal.istft(spec, 16)."""
    if not is_complex(x):
        _fail("istft", f"x should be a complex tensor (complex64 or complex128), got "
                       f"{dtype_of(x)}")
    rank = len(x.shape)
    if rank not in (2, 3):
        _fail("istft", f"x should be a 2-D or 3-D complex tensor, got rank {rank}")
    if rank == 2:
        x = unsqueeze(x, 0)
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    if not isinstance(win_length, numbers.Integral) or not 0 < win_length <= n_fft:
        _fail("istft", f"win_length should be in (0, n_fft ({n_fft})], got {win_length!r}")
    if not isinstance(hop_length, numbers.Integral) or not 0 < hop_length <= win_length:
        _fail("istft", f"hop_length should be in (0, win_length ({win_length})], got "
                       f"{hop_length!r}")
    n_frames, fft_size = x.shape[-1], x.shape[-2]
    if 0 in x.shape:
        _fail("istft", "x should not be an empty tensor")
    want = n_fft // 2 + 1 if onesided else n_fft
    if fft_size >= 0 and fft_size != want:
        _fail("istft", f"fft_size should be {want} (n_fft // 2 + 1 when onesided, else n_fft) "
                       f"when onesided is {bool(onesided)}, got {fft_size}")
    real_dtype = np.float32 if dtype_of(x) == np.complex64 else np.float64
    window = _centered_window(window, win_length, n_fft, real_dtype, "istft")
    x = transpose(x, [0, 2, 1])
    norm = "ortho" if normalized else "backward"
    if return_complex:
        if onesided:
            _fail("istft", "onesided should be False when return_complex is True")
        signal = fft_c2c(x, None, -1, norm, False, None)
    else:
        if is_complex(window):
            _fail("istft", "the window should not be complex when return_complex is False")
        if not onesided:
            x = x[:, :, :n_fft // 2 + 1]
        signal = fft_c2r(x, None, -1, norm, False, None)
    signal = overlap_add(transpose(multiply(signal, window), [0, 2, 1]), hop_length, axis=-1)
    squared = unsqueeze(multiply(window, window), 0)
    envelope = overlap_add(transpose(tile(squared, [n_frames, 1]), [1, 0]), hop_length, -1)
    start = n_fft // 2 if center else 0
    if length is None:
        if center:
            signal = signal[:, start:-start] if start else signal
            envelope = envelope[start:-start] if start else envelope
    else:
        signal = signal[:, start:start + length]
        envelope = envelope[start:start + length]
    if isinstance(envelope, Tensor) and np.abs(envelope.numpy()).min(initial=np.inf) < 1e-11:
        _fail("istft", "the Nonzero Overlap Add (NOLA) condition failed: the overlap-added "
                       "squared window is zero somewhere; use a smaller hop_length or another "
                       "window")
    signal = divide(signal, envelope)
    return squeeze(signal, 0) if rank == 2 else signal


# --- windows (Paddle's top-level paddle.hann_window, ...) -----------------------------------------
def _window_points(window_length, periodic, fn):
    if not isinstance(window_length, numbers.Integral) or isinstance(window_length, bool) or \
            window_length < 0:
        _fail(fn, f"window_length must be a non-negative integer, got {window_length!r}")
    return int(window_length) + (1 if periodic else 0)


def _cosine_sum(points, coefficients) -> np.ndarray:
    """sum_k a_k cos(k * phase), phase running from -pi to pi over `points` samples."""
    phase = np.linspace(-np.pi, np.pi, points)
    return sum(a * np.cos(k * phase) for k, a in enumerate(coefficients))


def _window(values: np.ndarray, window_length, dtype, requires_grad, short=True):
    """The constant window (op `assign_value`): `values` cut to window_length (a periodic
    window is a symmetric one of window_length + 1 points without the last); windows of 0
    or 1 points are ones when `short`."""
    if np.dtype(dtype).kind != "f":
        raise BuildError(f"a window needs a float type, got dtype {np.dtype(dtype)}")
    values = values[:window_length]
    if short and window_length <= 1:
        values = np.ones(window_length)
    result = assign(np.asarray(values, dtype=np.dtype(dtype)))
    if requires_grad:
        result.stop_gradient = False
    return result


def hann_window(window_length, periodic=True, *, dtype="float32", layout=None, device=None,
                pin_memory=False, requires_grad=False):
    """The Hann window 0.5 - 0.5 cos(2 pi n / N). Example: pyir.hann_window(8)."""
    points = _window_points(window_length, periodic, "hann_window")
    return _window(_cosine_sum(points, [0.5, 0.5]), window_length, dtype, requires_grad)


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype="float32",
                   layout=None, device=None, pin_memory=False, requires_grad=False):
    """The generalized Hamming window alpha - beta cos(2 pi n / N). Example:
    pyir.hamming_window(8)."""
    points = _window_points(window_length, periodic, "hamming_window")
    values = _cosine_sum(points, [alpha, beta])
    if window_length <= 1:  # Paddle rescales its length-1 window of ones: alpha + beta
        return _window(np.full(window_length, alpha + beta), window_length, dtype,
                       requires_grad, short=False)
    return _window(values, window_length, dtype, requires_grad)


def blackman_window(window_length, periodic=True, *, dtype="float32", layout=None,
                    device=None, pin_memory=False, requires_grad=False):
    """The Blackman window 0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / N). Example:
    pyir.blackman_window(8)."""
    points = _window_points(window_length, periodic, "blackman_window")
    return _window(_cosine_sum(points, [0.42, 0.50, 0.08]), window_length, dtype,
                   requires_grad)


def bartlett_window(window_length, periodic=True, *, dtype="float32", layout=None,
                    device=None, pin_memory=False, requires_grad=False):
    """The triangular Bartlett window. Example: pyir.bartlett_window(8)."""
    points = _window_points(window_length, periodic, "bartlett_window")
    n = np.arange(points, dtype=np.float64)
    half = (points - 1) / 2.0
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.where(n <= half, 2.0 * n / (points - 1), 2.0 - 2.0 * n / (points - 1))
    return _window(values, window_length, dtype, requires_grad)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype="float32", layout=None,
                  device=None, pin_memory=False, requires_grad=False):
    """The Kaiser window I0(beta sqrt(1 - ((n - a) / a)^2)) / I0(beta). Example:
    pyir.kaiser_window(8, beta=5.0)."""
    points = _window_points(window_length, periodic, "kaiser_window")
    alpha = (points - 1) / 2.0
    n = np.arange(points, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.i0(beta * np.sqrt(1 - ((n - alpha) / alpha) ** 2)) / np.i0(beta)
    return _window(values, window_length, dtype, requires_grad)


WINDOW_FUNCTIONS = ("bartlett_window", "blackman_window", "hamming_window", "hann_window",
                    "kaiser_window")

__all__ = ["frame", "istft", "overlap_add", "stft"]

# Paddle names of `paddle.signal` pyir leaves out, with the reason (pyir/unsupported.py).
UNSUPPORTED: dict[str, str] = {
    "LayerHelper": _unsupported.PADDLE_INTERNAL,
    "check_variable_and_dtype": _unsupported.PADDLE_INTERNAL,
}
__getattr__ = _unsupported.module_getattr(__name__, UNSUPPORTED)
