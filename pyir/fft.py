"""`pyir.fft`: Paddle's `paddle.fft` (static and eager; pyir/dispatch.py).

Every transform is one of three ops (pyir/ops/fft_ops.py), as in Paddle: `fft_c2c` (complex
to complex), `fft_r2c` (real to complex; `onesided` keeps n//2+1 bins of the last axis) and
`fft_c2r` (a one-sided spectrum to real). `n`/`s` crop (op `slice`) or zero-pad (op `pad`) the
input first; integer inputs are cast to float32 (complex64 for complex transforms).
`norm` is "backward" (scale the inverse by 1/n), "forward" or "ortho", as in numpy.

Example:
    >>> spectrum = pyir.fft.rfft(x, n=16, norm="ortho")
"""

from __future__ import annotations

from collections.abc import Sequence
import numbers

import numpy as np

from . import unsupported as _unsupported
from .dispatch import dtype_of, out
from .errors import BuildError, Where

from .ops.fft_ops import complex_of
from .regularizer import in_dynamic_or_pir_mode  # noqa: F401  (a name paddle.fft exposes)
from .tensor.attribute import is_floating_point, is_integer
from .tensor.creation import arange
from .tensor.manip_join import slice as _slice
from .tensor.manip_layout import roll
from .tensor.manip_shape import assign, cast

_NORMS = ("forward", "backward", "ortho")


def _fail(fn: str, message: str):
    raise BuildError(f"paddle.fft.{fn}: {message}", Where(op_type=fn))


# --- argument checks --------------------------------------------------------------------------
def _check_norm(norm, fn):
    if norm not in _NORMS:
        _fail(fn, f"unexpected norm {norm!r}; norm should be 'forward', 'backward' or 'ortho'")


def _check_n(n, fn):
    if not isinstance(n, numbers.Integral) or isinstance(n, bool) or n <= 0:
        _fail(fn, f"invalid FFT argument n ({n!r}); it should be a positive integer")


def _check_axis(x, axis, fn):
    rank = len(x.shape)
    if not isinstance(axis, numbers.Integral) or not -rank <= axis < rank:
        _fail(fn, f"invalid FFT axis ({axis!r}); it should be an integer in [-{rank}, {rank})")


def _check_s(x, s, fn):
    if not isinstance(s, Sequence):
        _fail(fn, f"invalid FFT argument s ({s!r}); it should be a sequence of integers")
    if len(s) > len(x.shape):
        _fail(fn, f"s has {len(s)} sizes but x has rank {len(x.shape)}")
    for size in s:
        if not isinstance(size, numbers.Integral) or size <= 0:
            _fail(fn, f"FFT sizes {list(s)} contain an invalid value ({size!r}); sizes must be "
                      f"positive integers")


def _check_axes(x, axes, fn):
    rank = len(x.shape)
    if not isinstance(axes, Sequence):
        _fail(fn, f"invalid FFT axes ({axes!r}); they should be a sequence of integers")
    if len(axes) > rank:
        _fail(fn, f"{len(axes)} axes for an input of rank {rank}")
    for axis in axes:
        if not isinstance(axis, numbers.Integral) or not -rank <= axis < rank:
            _fail(fn, f"FFT axes {list(axes)} contain an invalid value ({axis!r}); it should be "
                      f"in [-{rank}, {rank})")
    if len({a % rank for a in axes}) != len(axes):
        _fail(fn, f"FFT axes {list(axes)} name a dimension twice")


def _check_pair(x, s, axes, fn):
    """The 2-D functions: x of rank >= 2, s and axes of two entries each."""
    if len(x.shape) < 2:
        _fail(fn, f"the rank of the input ({len(x.shape)}) should be >= 2")
    for what, value in (("s", s), ("axes", axes)):
        if value is not None and (not isinstance(value, Sequence) or len(value) != 2):
            _fail(fn, f"invalid FFT argument {what} ({value!r}); it should be a sequence of "
                      f"2 integers")


# --- input preparation --------------------------------------------------------------------------
def _is_complex(x) -> bool:
    return dtype_of(x).kind == "c"


def _as_complex(x):
    """Integer x -> complex64; real x -> its complex dtype; complex x unchanged."""
    if is_integer(x):
        return cast(x, "complex64")
    if is_floating_point(x):
        return cast(x, complex_of(dtype_of(x)))
    return x


def _as_real(x, fn):
    if _is_complex(x):
        _fail(fn, f"expects a real input (float16, float32 or float64), got {dtype_of(x)}; use "
                  f"fft/fftn for complex inputs")
    return cast(x, "float32") if is_integer(x) else x


def _resize(x, sizes, axes):
    """x cropped (op `slice`) and zero-padded at the end (op `pad`) to `sizes` on `axes`."""
    shape = list(x.shape)
    cut = [(a, s) for a, s in zip(axes, sizes) if shape[a] > s]
    if cut:
        x = _slice(x, [a for a, _ in cut], [0] * len(cut), [s for _, s in cut])
    grow = [(a, s - shape[a]) for a, s in zip(axes, sizes) if 0 <= shape[a] < s]
    if grow:
        paddings = [0] * (2 * len(shape))
        for axis, extra in grow:
            paddings[2 * axis + 1] = extra
        x = out("pad", {"X": x}, {"paddings": paddings, "pad_value": 0.0})
    return x


def _finish(result, output):
    return result if output is None else assign(result, output)


def _normal_axes(x, axes):
    rank = len(x.shape)
    return [int(a) % rank for a in axes]


def _plan_nd(x, s, axes, fn, keep_last: bool):
    """Paddle's axes/s for the n-D functions: all axes (or the last len(s)) by default; given
    axes sorted (all but the last when `keep_last`: the real/one-sided axis stays last)."""
    if s is not None:
        _check_s(x, s, fn)
    rank = len(x.shape)
    if axes is None:
        axes = list(range(rank)) if s is None else list(range(rank - len(s), rank))
        return axes, None if s is None else [int(v) for v in s]
    _check_axes(x, axes, fn)
    axes = _normal_axes(x, axes)
    order = list(np.argsort(axes[:-1] if keep_last else axes, kind="stable"))
    if keep_last:
        order.append(len(axes) - 1)
    if s is not None and len(s) != len(axes):
        _fail(fn, f"length of s ({len(s)}) and length of axes ({len(axes)}) do not match")
    return [axes[i] for i in order], None if s is None else [int(s[i]) for i in order]


# --- Paddle's internal transforms (also public in paddle.fft) -----------------------------------
def fft_c2c(x, n, axis, norm, forward, name, out=None):  # noqa: A002
    """One-axis complex transform (op `fft_c2c`). Example: fft_c2c(x, None, -1, "backward",
    True, None)."""
    x = _as_complex(x)
    _check_norm(norm, "fft_c2c")
    axis = -1 if axis is None else axis
    _check_axis(x, axis, "fft_c2c")
    axes = _normal_axes(x, [axis])
    if n is not None:
        _check_n(n, "fft_c2c")
        x = _resize(x, [n], axes)
    return _finish(_c2c_op(x, axes, norm, forward, name), out)


def fft_r2c(x, n, axis, norm, forward, onesided, name, out=None):  # noqa: A002
    """One-axis real-input transform (op `fft_r2c`). Example: fft_r2c(x, None, -1,
    "backward", True, True, None)."""
    x = _as_real(x, "fft_r2c")
    _check_norm(norm, "fft_r2c")
    axis = -1 if axis is None else axis
    _check_axis(x, axis, "fft_r2c")
    axes = _normal_axes(x, [axis])
    if n is not None:
        _check_n(n, "fft_r2c")
        x = _resize(x, [n], axes)
    return _finish(_r2c_op(x, axes, norm, forward, onesided, name), out)


def fft_c2r(x, n, axis, norm, forward, name, out=None):  # noqa: A002
    """One-axis transform of a one-sided spectrum to a real signal of n points (op
    `fft_c2r`). Example: fft_c2r(x, 8, -1, "backward", False, None)."""
    x = _as_complex(x)
    _check_norm(norm, "fft_c2r")
    axis = -1 if axis is None else axis
    _check_axis(x, axis, "fft_c2r")
    axes = _normal_axes(x, [axis])
    if n is not None:
        _check_n(n, "fft_c2r")
        x = _resize(x, [n // 2 + 1], axes)
    return _finish(_c2r_op(x, axes, norm, forward, n, name), out)


def fftn_c2c(x, s, axes, norm, forward, name, out=None):  # noqa: A002
    """n-D complex transform (op `fft_c2c`). Example: fftn_c2c(x, None, None, "backward",
    True, None)."""
    x = _as_complex(x)
    _check_norm(norm, "fftn_c2c")
    axes, s = _plan_nd(x, s, axes, "fftn_c2c", keep_last=False)
    if s is not None:
        x = _resize(x, s, axes)
    return _finish(_c2c_op(x, axes, norm, forward, name), out)


def fftn_r2c(x, s, axes, norm, forward, onesided, name, out=None):  # noqa: A002
    """n-D real-input transform (op `fft_r2c`). Example: fftn_r2c(x, None, None, "backward",
    True, True, None)."""
    x = _as_real(x, "fftn_r2c")
    _check_norm(norm, "fftn_r2c")
    axes, s = _plan_nd(x, s, axes, "fftn_r2c", keep_last=True)
    if s is not None:
        x = _resize(x, s, axes)
    return _finish(_r2c_op(x, axes, norm, forward, onesided, name), out)


def fftn_c2r(x, s, axes, norm, forward, name, out=None):  # noqa: A002
    """n-D transform of a one-sided spectrum to a real signal (op `fft_c2r`). Example:
    fftn_c2r(x, [4, 6], None, "backward", False, None)."""
    x = _as_complex(x)
    _check_norm(norm, "fftn_c2r")
    axes, s = _plan_nd(x, s, axes, "fftn_c2r", keep_last=True)
    if s is not None:
        x = _resize(x, [*s[:-1], s[-1] // 2 + 1], axes)
    return _finish(_c2r_op(x, axes, norm, forward, None if s is None else s[-1], name), out)


def _c2c_op(x, axes, norm, forward, name):
    return out("fft_c2c", {"X": x}, {"axes": axes, "normalization": norm,
                                     "forward": bool(forward)}, name=name)


def _r2c_op(x, axes, norm, forward, onesided, name):
    return out("fft_r2c", {"X": x}, {"axes": axes, "normalization": norm,
                                     "forward": bool(forward), "onesided": bool(onesided)},
               name=name)


def _c2r_op(x, axes, norm, forward, n, name):
    attrs = {"axes": axes, "normalization": norm, "forward": bool(forward)}
    if n is not None:
        attrs["last_dim_size"] = int(n)
    return out("fft_c2r", {"X": x}, attrs, name=name)


def _is_real(x) -> bool:
    return not _is_complex(x)


# --- 1-D ------------------------------------------------------------------------------------
def fft(x, n=None, axis=-1, norm="backward", name=None, *, out=None):  # noqa: A002
    """The 1-D discrete Fourier transform. Example: y = pyir.fft.fft(x, n=8)."""
    if _is_real(x):
        return fft_r2c(x, n, axis, norm, True, False, name, out=out)
    return fft_c2c(x, n, axis, norm, True, name, out=out)


def ifft(x, n=None, axis=-1, norm="backward", name=None, *, out=None):  # noqa: A002
    """The 1-D inverse transform. Example: x = pyir.fft.ifft(y)."""
    if _is_real(x):
        return fft_r2c(x, n, axis, norm, False, False, name, out=out)
    return fft_c2c(x, n, axis, norm, False, name, out=out)


def rfft(x, n=None, axis=-1, norm="backward", name=None, *, out=None):  # noqa: A002
    """The n//2+1 non-negative frequency bins of a real signal. Example: pyir.fft.rfft(x)."""
    return fft_r2c(x, n, axis, norm, True, True, name, out=out)


def irfft(x, n=None, axis=-1, norm="backward", name=None, *, out=None):  # noqa: A002
    """The real signal of a one-sided spectrum (n points, default 2*(m-1)). Example:
    pyir.fft.irfft(y, n=8)."""
    return fft_c2r(x, n, axis, norm, False, name, out=out)


def hfft(x, n=None, axis=-1, norm="backward", name=None, *, out=None):  # noqa: A002
    """The real spectrum of a Hermitian-symmetric signal given by its first half. Example:
    pyir.fft.hfft(x, n=8)."""
    return fft_c2r(x, n, axis, norm, True, name, out=out)


def ihfft(x, n=None, axis=-1, norm="backward", name=None, *, out=None):  # noqa: A002
    """The inverse of hfft: a one-sided spectrum from a real signal. Example:
    pyir.fft.ihfft(x)."""
    return fft_r2c(x, n, axis, norm, False, True, name, out=out)


# --- n-D ------------------------------------------------------------------------------------
def fftn(x, s=None, axes=None, norm="backward", name=None, *, out=None):  # noqa: A002
    """The n-D transform over `axes` (all by default). Example: pyir.fft.fftn(x, axes=[0, 1])."""
    if _is_real(x):
        return fftn_r2c(x, s, axes, norm, True, False, name, out=out)
    return fftn_c2c(x, s, axes, norm, True, name, out=out)


def ifftn(x, s=None, axes=None, norm="backward", name=None, *, out=None):  # noqa: A002
    """The n-D inverse transform. Example: pyir.fft.ifftn(y)."""
    if _is_real(x):
        return fftn_r2c(x, s, axes, norm, False, False, name, out=out)
    return fftn_c2c(x, s, axes, norm, False, name, out=out)


def rfftn(x, s=None, axes=None, norm="backward", name=None, *, out=None):  # noqa: A002
    """The n-D transform of a real input, one-sided on the last axis. Example:
    pyir.fft.rfftn(x)."""
    return fftn_r2c(x, s, axes, norm, True, True, name, out=out)


def irfftn(x, s=None, axes=None, norm="backward", name=None, *, out=None):  # noqa: A002
    """The real n-D signal of a spectrum one-sided on the last axis. Example:
    pyir.fft.irfftn(y, s=[4, 6])."""
    return fftn_c2r(x, s, axes, norm, False, name, out=out)


def hfftn(x, s=None, axes=None, norm="backward", name=None, *, out=None):  # noqa: A002
    """The n-D hfft. Example: pyir.fft.hfftn(x)."""
    return fftn_c2r(x, s, axes, norm, True, name, out=out)


def ihfftn(x, s=None, axes=None, norm="backward", name=None, *, out=None):  # noqa: A002
    """The n-D ihfft. Example: pyir.fft.ihfftn(x)."""
    return fftn_r2c(x, s, axes, norm, False, True, name, out=out)


# --- 2-D: the n-D functions over two axes ---------------------------------------------------
def fft2(x, s=None, axes=(-2, -1), norm="backward", name=None, *, out=None):  # noqa: A002
    """The 2-D transform. Example: pyir.fft.fft2(x)."""
    _check_pair(x, s, axes, "fft2")
    return fftn(x, s, axes, norm, name, out=out)


def ifft2(x, s=None, axes=(-2, -1), norm="backward", name=None, *, out=None):  # noqa: A002
    """The 2-D inverse transform. Example: pyir.fft.ifft2(y)."""
    _check_pair(x, s, axes, "ifft2")
    return ifftn(x, s, axes, norm, name, out=out)


def rfft2(x, s=None, axes=(-2, -1), norm="backward", name=None, *, out=None):  # noqa: A002
    """The 2-D rfft. Example: pyir.fft.rfft2(x)."""
    _check_pair(x, s, axes, "rfft2")
    return rfftn(x, s, axes, norm, name, out=out)


def irfft2(x, s=None, axes=(-2, -1), norm="backward", name=None, *, out=None):  # noqa: A002
    """The 2-D irfft. Example: pyir.fft.irfft2(y, s=[4, 6])."""
    _check_pair(x, s, axes, "irfft2")
    return irfftn(x, s, axes, norm, name, out=out)


def hfft2(x, s=None, axes=(-2, -1), norm="backward", name=None, *, out=None):  # noqa: A002
    """The 2-D hfft. Example: pyir.fft.hfft2(x)."""
    _check_pair(x, s, axes, "hfft2")
    return hfftn(x, s, axes, norm, name, out=out)


def ihfft2(x, s=None, axes=(-2, -1), norm="backward", name=None, *, out=None):  # noqa: A002
    """The 2-D ihfft. Example: pyir.fft.ihfft2(x)."""
    _check_pair(x, s, axes, "ihfft2")
    return ihfftn(x, s, axes, norm, name, out=out)


# --- frequencies and shifts -----------------------------------------------------------------
def _frequency_scale(n, d, fn):
    if not isinstance(n, numbers.Integral) or n < 0 or d * n == 0:
        _fail(fn, f"n must be a positive integer and d nonzero, got n={n!r}, d={d!r}")
    return 1.0 / (n * d)


def fftfreq(n, d=1.0, dtype=None, name=None, *, out=None, device=None,  # noqa: A002
            requires_grad=False):
    """The sample frequencies of an n-point fft: [0, 1, ..., -1] / (n*d) (ops range, roll,
    scale). Example: pyir.fft.fftfreq(5, d=0.5)."""
    from_scale = _frequency_scale(n, d, "fftfreq")
    indices = arange(-(n // 2), (n + 1) // 2, dtype=dtype or "float32")
    result = _scale(roll(indices, -(n // 2)), from_scale)
    return _finish(_keep_grad(result, requires_grad), out)


def rfftfreq(n, d=1.0, dtype=None, name=None, *, out=None, device=None,  # noqa: A002
             requires_grad=False):
    """The n//2+1 non-negative sample frequencies of an rfft. Example:
    pyir.fft.rfftfreq(6)."""
    from_scale = _frequency_scale(n, d, "rfftfreq")
    indices = arange(0, n // 2 + 1, dtype=dtype or "float32")
    return _finish(_keep_grad(_scale(indices, from_scale), requires_grad), out)


def _scale(x, factor):
    return out("scale", {"X": x}, {"scale": float(factor), "bias": 0.0,
                                   "bias_after_scale": True})


def _keep_grad(x, requires_grad):
    if requires_grad:
        x.stop_gradient = False
    return x


def _shift(x, axes, inverse: bool, fn):
    shape = list(x.shape)
    if axes is None:
        axes = list(range(len(shape)))
    elif isinstance(axes, numbers.Integral):
        axes = [axes]
    _check_axes(x, list(axes), fn)
    if any(shape[a] < 0 for a in axes):
        _fail(fn, "needs the sizes of the shifted axes; x has an unknown size there")
    shifts = [(shape[a] + 1) // 2 if inverse else shape[a] // 2 for a in axes]
    return roll(x, shifts, list(axes))


def fftshift(x, axes=None, name=None):
    """The zero frequency moved to the middle (op `roll` by n//2). Example:
    pyir.fft.fftshift(pyir.fft.fftfreq(5))."""
    return _shift(x, axes, False, "fftshift")


def ifftshift(x, axes=None, name=None):
    """The inverse of fftshift (op `roll` by (n+1)//2). Example: pyir.fft.ifftshift(y)."""
    return _shift(x, axes, True, "ifftshift")


__all__ = [
    "fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "hfft2", "hfftn", "ifft", "ifft2",
    "ifftn", "ifftshift", "ihfft", "ihfft2", "ihfftn", "irfft", "irfft2", "irfftn", "rfft",
    "rfft2", "rfftfreq", "rfftn",
]

# Paddle names of `paddle.fft` pyir leaves out, with the reason (pyir/unsupported.py).
UNSUPPORTED: dict[str, str] = {
    "LayerHelper": _unsupported.PADDLE_INTERNAL,
    "check_variable_and_dtype": _unsupported.PADDLE_INTERNAL,
    "param_two_alias": _unsupported.PADDLE_INTERNAL,
}
__getattr__ = _unsupported.module_getattr(__name__, UNSUPPORTED)
