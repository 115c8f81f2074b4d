"""Discrete Fourier transforms and framing: Paddle's `fft_c2c`, `fft_r2c`, `fft_c2r`, `frame`
and `overlap_add`, with their `_grad` ops.

The three FFT ops transform over `axes` with Paddle's `normalization` ("backward": the inverse
direction is scaled by 1/n, "forward": the forward one, "ortho": both by 1/sqrt(n)) and
`forward` (the sign of the exponent: True is exp(-2 pi i k n / N)). The kernels are numpy's
`np.fft` functions, so results equal `np.fft.fftn`/`rfftn`/`irfftn`/`hfft`/`ihfft`.

Gradients follow Paddle's convention for complex values (grad = dL/dRe + i dL/dIm of a real
loss L): an FFT is linear, so its gradient is the adjoint transform with the same scale,
the opposite exponent sign, and for the real-input/real-output ops the projection onto real
values or the doubling of the bins a one-sided spectrum stands for twice.

The registry sweeps differentiate real inputs into real outputs; every FFT op has a complex
input or output, so the examples say grad=False and tests/test_api_fft_grad.py checks the
three rules (eager and static) against finite differences of real losses instead.
"""

from __future__ import annotations

import math

import numpy as np

from ..registry import Attr, Example, VarSpec, register_op
from ..registry import AttrType as T
from ._helpers import default_grad, rand

_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}
_COMPLEX_OF = {np.dtype(np.float32): np.dtype(np.complex64),
               np.dtype(np.float64): np.dtype(np.complex128),
               np.dtype(np.float16): np.dtype(np.complex64)}
_REAL_OF = {np.dtype(np.complex64): np.dtype(np.float32),
            np.dtype(np.complex128): np.dtype(np.float64)}


def complex_of(dtype) -> np.dtype:
    """The complex dtype holding values of a real (or complex) dtype: float32 -> complex64."""
    dtype = np.dtype(dtype)
    return dtype if dtype.kind == "c" else _COMPLEX_OF.get(dtype, np.dtype(np.complex128))


def real_of(dtype) -> np.dtype:
    """The real dtype of a complex (or real) dtype: complex64 -> float32."""
    dtype = np.dtype(dtype)
    return _REAL_OF.get(dtype, dtype)


def scale_of(normalization: str, forward: bool, n: int) -> float:
    """The factor Paddle applies to a transform of `n` points in the given direction."""
    if normalization == "ortho":
        return 1.0 / math.sqrt(n) if n else 1.0
    scaled = forward if normalization == "forward" else not forward
    return 1.0 / n if scaled and n else 1.0


def _signal_size(shape, axes) -> int:
    return math.prod(int(shape[a]) for a in axes)


# --- fft_c2c --------------------------------------------------------------------------------
def _c2c(X, axes, normalization, forward):
    fn = np.fft.fftn if forward else np.fft.ifftn
    return fn(X, axes=axes, norm=normalization).astype(complex_of(X.dtype), copy=False)


def _infer_c2c(ctx):
    x = ctx.input("X")
    return {"Out": VarSpec(x.shape, complex_of(x.dtype))}


def _c2c_expect(X, axes, normalization, forward):
    fn = np.fft.fftn if forward else np.fft.ifftn
    return {"Out": fn(X, axes=axes, norm=normalization)}


_CX = (rand(3, 4, dtype="float64") + 1j * rand(3, 4, dtype="float64")).astype(np.complex128)
_CX32 = (rand(2, 5) + 1j * rand(2, 5)).astype(np.complex64)


@register_op(
    "fft_c2c", inputs=["X"], outputs=["Out"],
    attrs=[Attr("axes", T.LONGS, []), Attr("normalization", T.STRING, "backward"),
           Attr("forward", T.BOOLEAN, True)],
    infer=_infer_c2c, grad=default_grad("fft_c2c_grad", uses=[]),
    doc="Out = complex-to-complex DFT of X over `axes` (exp(-i..) when forward), scaled by "
        "`normalization`",
    examples=[
        Example({"X": _CX}, {"axes": [1], "normalization": "backward", "forward": True},
                _c2c_expect, grad=False),
        Example({"X": _CX}, {"axes": [0, 1], "normalization": "ortho", "forward": False},
                _c2c_expect, grad=False),
        Example({"X": _CX32}, {"axes": [0], "normalization": "forward", "forward": True},
                _c2c_expect, grad=False),
    ])
def fft_c2c(X, axes, normalization, forward):
    return {"Out": _c2c(X, list(axes), normalization, forward)}


@register_op("fft_c2c_grad", inputs=["Out@GRAD"], outputs=["X@GRAD"],
             attrs=[Attr("axes", T.LONGS, []), Attr("normalization", T.STRING, "backward"),
                    Attr("forward", T.BOOLEAN, True)],
             infer=lambda ctx: {"X@GRAD": VarSpec(ctx.input("Out@GRAD").shape,
                                                  complex_of(ctx.input("Out@GRAD").dtype))},
             grad_of="fft_c2c", doc="X@GRAD = the adjoint DFT of Out@GRAD (same scale)")
def fft_c2c_grad(Out_grad, axes, normalization, forward):
    axes = list(axes)
    scale = scale_of(normalization, forward, _signal_size(Out_grad.shape, axes))
    fn = np.fft.ifftn if forward else np.fft.fftn
    unscaled = fn(Out_grad, axes=axes, norm="forward" if forward else "backward")
    return {"X@GRAD": (unscaled * scale).astype(complex_of(Out_grad.dtype), copy=False)}


# --- fft_r2c --------------------------------------------------------------------------------
def _r2c(X, axes, normalization, forward, onesided):
    if onesided:
        if forward:
            out = np.fft.rfftn(X, axes=axes, norm=normalization)
        else:
            out = np.conj(np.fft.rfftn(X, axes=axes, norm=_SWAP[normalization]))
    else:
        fn = np.fft.fftn if forward else np.fft.ifftn
        out = fn(X, axes=axes, norm=normalization)
    return out.astype(complex_of(X.dtype), copy=False)


def _infer_r2c(ctx):
    x = ctx.input("X")
    shape = list(x.shape)
    axes = list(ctx.attr("axes"))
    if ctx.attr("onesided") and axes and shape[axes[-1]] != -1:
        shape[axes[-1]] = shape[axes[-1]] // 2 + 1
    return {"Out": VarSpec(tuple(shape), complex_of(x.dtype))}


def _r2c_expect(X, axes, normalization, forward, onesided):
    """numpy's own one-axis functions: rfft / ihfft (one-sided), fft / ifft (full)."""
    (axis,) = axes
    if onesided:
        fn = np.fft.rfft if forward else np.fft.ihfft
    else:
        fn = np.fft.fft if forward else np.fft.ifft
    return {"Out": fn(X, axis=axis, norm=normalization)}


_RX = rand(3, 6, dtype="float64")


@register_op(
    "fft_r2c", inputs=["X"], outputs=["Out"],
    attrs=[Attr("axes", T.LONGS, []), Attr("normalization", T.STRING, "backward"),
           Attr("forward", T.BOOLEAN, True), Attr("onesided", T.BOOLEAN, True)],
    infer=_infer_r2c, grad=default_grad("fft_r2c_grad", uses=["X"]),
    doc="Out = DFT of real X over `axes` (only the n//2+1 bins of the last axis when "
        "onesided), scaled by `normalization`",
    examples=[
        Example({"X": _RX}, {"axes": [1], "normalization": "backward", "forward": True,
                             "onesided": True}, _r2c_expect, grad=False),
        Example({"X": _RX}, {"axes": [0], "normalization": "ortho", "forward": False,
                             "onesided": True}, _r2c_expect, grad=False),
        Example({"X": rand(2, 5, dtype="float64")},
                {"axes": [-1], "normalization": "forward", "forward": True, "onesided": False},
                _r2c_expect, grad=False),
        Example({"X": rand(4, 5)}, {"axes": [1], "normalization": "backward",
                                    "forward": False, "onesided": False},
                _r2c_expect, grad=False),
    ])
def fft_r2c(X, axes, normalization, forward, onesided):
    return {"Out": _r2c(X, list(axes), normalization, forward, onesided)}


@register_op("fft_r2c_grad", inputs=["X", "Out@GRAD"], outputs=["X@GRAD"],
             attrs=[Attr("axes", T.LONGS, []), Attr("normalization", T.STRING, "backward"),
                    Attr("forward", T.BOOLEAN, True), Attr("onesided", T.BOOLEAN, True)],
             infer=lambda ctx: {"X@GRAD": ctx.input("X")},
             grad_of="fft_r2c", doc="X@GRAD = Re(adjoint DFT of the zero-padded Out@GRAD)")
def fft_r2c_grad(X, Out_grad, axes, normalization, forward, onesided):
    axes = [a % X.ndim for a in axes]
    full = np.asarray(Out_grad)
    if onesided:  # the dropped bins have no gradient: pad them with zeros
        widths = [(0, 0)] * full.ndim
        widths[axes[-1]] = (0, X.shape[axes[-1]] - full.shape[axes[-1]])
        full = np.pad(full, widths)
    scale = scale_of(normalization, forward, _signal_size(X.shape, axes))
    fn = np.fft.ifftn if forward else np.fft.fftn
    unscaled = fn(full, axes=axes, norm="forward" if forward else "backward")
    return {"X@GRAD": np.real(unscaled * scale).astype(X.dtype, copy=False)}


# --- fft_c2r --------------------------------------------------------------------------------
def _c2r_sizes(shape, axes, last_dim_size) -> list[int]:
    sizes = [int(shape[a]) for a in axes]
    sizes[-1] = int(last_dim_size) if last_dim_size else 2 * (sizes[-1] - 1)
    return sizes


def _infer_c2r(ctx):
    x = ctx.input("X")
    shape = list(x.shape)
    axes = list(ctx.attr("axes"))
    if axes:
        last = axes[-1]
        size = ctx.attr("last_dim_size")
        shape[last] = int(size) if size else (-1 if shape[last] == -1 else 2 * (shape[last] - 1))
    return {"Out": VarSpec(tuple(shape), real_of(x.dtype))}


def _c2r_expect(X, axes, normalization, forward, last_dim_size):
    """numpy's own one-axis functions: irfft (backward) and hfft (forward)."""
    (axis,) = axes
    fn = np.fft.hfft if forward else np.fft.irfft
    return {"Out": fn(X, n=last_dim_size or None, axis=axis, norm=normalization)}


@register_op(
    "fft_c2r", inputs=["X"], outputs=["Out"],
    attrs=[Attr("axes", T.LONGS, []), Attr("normalization", T.STRING, "backward"),
           Attr("forward", T.BOOLEAN, True), Attr("last_dim_size", T.LONG, 0)],
    infer=_infer_c2r, grad=default_grad("fft_c2r_grad", uses=[]),
    doc="Out = real inverse of a one-sided spectrum X over `axes` (last axis: "
        "last_dim_size points, default 2*(m-1)), scaled by `normalization`",
    examples=[
        Example({"X": _CX}, {"axes": [1], "normalization": "backward", "forward": False,
                             "last_dim_size": 0}, _c2r_expect, grad=False),
        Example({"X": _CX}, {"axes": [1], "normalization": "ortho", "forward": True,
                             "last_dim_size": 7}, _c2r_expect, grad=False),
        Example({"X": _CX}, {"axes": [0], "normalization": "forward", "forward": False,
                             "last_dim_size": 5}, _c2r_expect, grad=False),
        Example({"X": _CX32}, {"axes": [1], "normalization": "backward", "forward": True,
                               "last_dim_size": 0}, _c2r_expect, grad=False),
    ])
def fft_c2r(X, axes, normalization, forward, last_dim_size):
    axes = list(axes)
    sizes = _c2r_sizes(X.shape, axes, last_dim_size)
    if forward:  # Paddle's forward c2r is numpy's hfft: irfft of the conjugate
        out = np.fft.irfftn(np.conj(X), s=sizes, axes=axes, norm=_SWAP[normalization])
    else:
        out = np.fft.irfftn(X, s=sizes, axes=axes, norm=normalization)
    return {"Out": out.astype(real_of(X.dtype), copy=False)}


@register_op("fft_c2r_grad", inputs=["Out@GRAD"], outputs=["X@GRAD"],
             attrs=[Attr("axes", T.LONGS, []), Attr("normalization", T.STRING, "backward"),
                    Attr("forward", T.BOOLEAN, True), Attr("last_dim_size", T.LONG, 0)],
             infer=lambda ctx: {"X@GRAD": VarSpec(_grad_c2r_shape(ctx),
                                                  complex_of(ctx.input("Out@GRAD").dtype))},
             grad_of="fft_c2r",
             doc="X@GRAD = one-sided DFT of Out@GRAD, bins that stand for two doubled")
def fft_c2r_grad(Out_grad, axes, normalization, forward, last_dim_size):
    axes = [a % Out_grad.ndim for a in axes]
    n = int(Out_grad.shape[axes[-1]])
    scale = scale_of(normalization, forward, _signal_size(Out_grad.shape, axes))
    spectrum = np.fft.rfftn(Out_grad, axes=axes) * scale
    if forward:
        spectrum = np.conj(spectrum)
    weights = np.full(n // 2 + 1, 2.0)
    weights[0] = 1.0
    if n % 2 == 0:
        weights[-1] = 1.0
    shape = [1] * Out_grad.ndim
    shape[axes[-1]] = n // 2 + 1
    grad = spectrum * weights.reshape(shape)
    return {"X@GRAD": grad.astype(complex_of(Out_grad.dtype), copy=False)}


def _grad_c2r_shape(ctx):
    shape = list(ctx.input("Out@GRAD").shape)
    axes = list(ctx.attr("axes"))
    if axes and shape[axes[-1]] != -1:
        shape[axes[-1]] = shape[axes[-1]] // 2 + 1
    return tuple(shape)


# --- frame / overlap_add ----------------------------------------------------------------------
def frames_of(x: np.ndarray, frame_length: int, hop_length: int, axis: int) -> np.ndarray:
    """Slices of `frame_length` samples every `hop_length` along the first (axis=0) or last
    (axis=-1) axis: [..., frame_length, n_frames] or [n_frames, frame_length, ...]."""
    moved = x if axis == -1 else np.moveaxis(x, 0, -1)
    n_frames = 1 + (moved.shape[-1] - frame_length) // hop_length
    index = np.arange(frame_length)[:, None] + hop_length * np.arange(n_frames)[None, :]
    framed = moved[..., index]  # [..., frame_length, n_frames]
    return framed if axis == -1 else np.moveaxis(framed, (-2, -1), (1, 0))


def overlap_added(x: np.ndarray, hop_length: int, axis: int) -> np.ndarray:
    """The inverse layout of `frames_of`: frames summed where they overlap."""
    framed = x if axis == -1 else np.moveaxis(x, (1, 0), (-2, -1))
    frame_length, n_frames = framed.shape[-2], framed.shape[-1]
    length = (n_frames - 1) * hop_length + frame_length if n_frames else 0
    out = np.zeros(framed.shape[:-2] + (length,), dtype=x.dtype)
    for f in range(n_frames):
        out[..., f * hop_length:f * hop_length + frame_length] += framed[..., :, f]
    return out if axis == -1 else np.moveaxis(out, -1, 0)


def _infer_frame(ctx):
    x = ctx.input("X")
    length, hop, axis = ctx.attr("frame_length"), ctx.attr("hop_length"), ctx.attr("axis")
    seq = x.shape[-1] if axis == -1 else x.shape[0]
    n_frames = -1 if seq == -1 else 1 + (seq - length) // hop
    shape = (*x.shape[:-1], length, n_frames) if axis == -1 else \
        (n_frames, length, *x.shape[1:])
    return {"Out": VarSpec(shape, x.dtype)}


def _frame_expect(X, frame_length, hop_length, axis):
    """Frames picked one by one with Python slices."""
    seq = X.shape[-1] if axis == -1 else X.shape[0]
    starts = range(0, seq - frame_length + 1, hop_length)
    if axis == -1:
        return {"Out": np.stack([X[..., s:s + frame_length] for s in starts], axis=-1)}
    return {"Out": np.stack([X[s:s + frame_length] for s in starts], axis=0)}


@register_op(
    "frame", inputs=["X"], outputs=["Out"],
    attrs=[Attr("frame_length", T.INT, 1), Attr("hop_length", T.INT, 1),
           Attr("axis", T.INT, -1)],
    infer=_infer_frame, grad=default_grad("frame_grad"),
    doc="Out = frames of `frame_length` samples every `hop_length` along the first or last "
        "axis",
    examples=[
        Example({"X": rand(2, 9)}, {"frame_length": 4, "hop_length": 2, "axis": -1},
                _frame_expect),
        Example({"X": rand(10, 3, dtype="float64")},
                {"frame_length": 3, "hop_length": 3, "axis": 0}, _frame_expect),
    ])
def frame(X, frame_length, hop_length, axis):
    return {"Out": frames_of(X, frame_length, hop_length, axis)}


@register_op("frame_grad", inputs=["X", "Out@GRAD"], outputs=["X@GRAD"],
             attrs=[Attr("frame_length", T.INT, 1), Attr("hop_length", T.INT, 1),
                    Attr("axis", T.INT, -1)],
             infer=lambda ctx: {"X@GRAD": ctx.input("X")}, grad_of="frame",
             doc="X@GRAD = Out@GRAD's frames added back where they were cut from")
def frame_grad(X, Out_grad, frame_length, hop_length, axis):
    summed = overlap_added(Out_grad, hop_length, axis)
    grad = np.zeros_like(X)
    if axis == -1:
        grad[..., :summed.shape[-1]] = summed
    else:
        grad[:summed.shape[0]] = summed
    return {"X@GRAD": grad}


def _infer_overlap_add(ctx):
    x = ctx.input("X")
    hop, axis = ctx.attr("hop_length"), ctx.attr("axis")
    length, n_frames = (x.shape[-2], x.shape[-1]) if axis == -1 else (x.shape[1], x.shape[0])
    seq = -1 if -1 in (length, n_frames) else (n_frames - 1) * hop + length
    shape = (*x.shape[:-2], seq) if axis == -1 else (seq, *x.shape[2:])
    return {"Out": VarSpec(shape, x.dtype)}


def _overlap_add_expect(X, hop_length, axis):
    """Each frame added into a zero signal sample by sample."""
    framed = X if axis == -1 else np.moveaxis(X, (1, 0), (-2, -1))
    length, n_frames = framed.shape[-2:]
    out = np.zeros(framed.shape[:-2] + ((n_frames - 1) * hop_length + length,), X.dtype)
    for f in range(n_frames):
        for i in range(length):
            out[..., f * hop_length + i] += framed[..., i, f]
    return {"Out": out if axis == -1 else np.moveaxis(out, -1, 0)}


@register_op(
    "overlap_add", inputs=["X"], outputs=["Out"],
    attrs=[Attr("hop_length", T.INT, 1), Attr("axis", T.INT, -1)],
    infer=_infer_overlap_add, grad=default_grad("overlap_add_grad"),
    doc="Out = the frames of X (frame_length x n_frames at the last or first two axes) "
        "summed into one signal every `hop_length` samples",
    examples=[
        Example({"X": rand(2, 4, 3)}, {"hop_length": 2, "axis": -1}, _overlap_add_expect),
        Example({"X": rand(3, 4, 2, dtype="float64")}, {"hop_length": 3, "axis": 0},
                _overlap_add_expect),
    ])
def overlap_add(X, hop_length, axis):
    return {"Out": overlap_added(X, hop_length, axis)}


@register_op("overlap_add_grad", inputs=["X", "Out@GRAD"], outputs=["X@GRAD"],
             attrs=[Attr("hop_length", T.INT, 1), Attr("axis", T.INT, -1)],
             infer=lambda ctx: {"X@GRAD": ctx.input("X")}, grad_of="overlap_add",
             doc="X@GRAD = the frames of Out@GRAD")
def overlap_add_grad(X, Out_grad, hop_length, axis):
    length = X.shape[-2] if axis == -1 else X.shape[1]
    return {"X@GRAD": frames_of(Out_grad, length, hop_length, axis).astype(X.dtype)}
