"""Spatial transformer ops for paddle.nn.functional: affine_grid and grid_sampler (4-D input;
bilinear / nearest; zeros / border / reflection padding) with their `_grad` ops."""

from __future__ import annotations

import itertools

import numpy as np

from ..registry import Attr, Example, Slot, VarSpec, register_op
from ..registry import AttrType as T
from ._helpers import default_grad, rand


# --- affine_grid ---------------------------------------------------------------------------------
_AG_ATTRS = [Attr("output_shape", T.INTS, []), Attr("align_corners", T.BOOLEAN, True)]


def _line(n, align_corners):
    v = np.linspace(-1.0, 1.0, n) if n > 1 else np.zeros(1)
    return v if align_corners else v * (n - 1) / n


def _base_grid(shape, align_corners):
    """[*spatial, k + 1] homogeneous coordinates (x first) for output_shape [N, C, *spatial]."""
    spatial = shape[2:]
    axes = [_line(n, align_corners) for n in spatial]
    mesh = np.meshgrid(*axes, indexing="ij")  # (d), h, w
    coords = [mesh[-1 - i] for i in range(len(spatial))]  # x, y, (z)
    return np.stack(coords + [np.ones(spatial)], axis=-1)


def _shape_of(OutputShape, output_shape):
    return [int(v) for v in np.asarray(OutputShape).reshape(-1)] if OutputShape is not None \
        else list(output_shape)


def _ag_expect(Theta, output_shape, align_corners=True):
    n, _, h, w = output_shape
    out = np.zeros((n, h, w, 2))
    for b, i, j in np.ndindex(n, h, w):
        x = -1 + 2 * j / (w - 1) if align_corners else (-1 + 2 * j / (w - 1)) * (w - 1) / w
        y = -1 + 2 * i / (h - 1) if align_corners else (-1 + 2 * i / (h - 1)) * (h - 1) / h
        out[b, i, j] = Theta[b] @ np.array([x, y, 1.0])
    return {"Output": out.astype(Theta.dtype)}


@register_op(
    "affine_grid", inputs=["Theta", Slot("OutputShape", dispensable=True, no_grad=True)],
    outputs=["Output"], attrs=_AG_ATTRS,
    infer=lambda ctx: {"Output": VarSpec(
        (ctx.input("Theta").shape[0], *ctx.attr("output_shape")[2:],
         len(ctx.attr("output_shape")) - 2) if ctx.attr("output_shape") else
        (ctx.input("Theta").shape[0], -1, -1, 2), ctx.input("Theta").dtype)},
    grad=default_grad("affine_grid_grad", uses=["OutputShape"], keep_empty=()),
    doc="Output[n, ..., :] = Theta[n] @ (x, y, (z,) 1) over a grid spanning [-1, 1] "
        "(cell centers when not align_corners)",
    examples=[Example({"Theta": rand(2, 2, 3)}, {"output_shape": [2, 1, 3, 4]}, _ag_expect),
              Example({"Theta": rand(1, 2, 3).astype("float64")},
                      {"output_shape": [1, 3, 2, 5], "align_corners": False}, _ag_expect)],
)
def affine_grid(Theta, OutputShape, output_shape, align_corners):
    base = _base_grid(_shape_of(OutputShape, output_shape), align_corners)
    out = np.einsum("...k,nck->n...c", base, Theta)
    return {"Output": out.astype(Theta.dtype, copy=False)}


# Paddle's own affine_grid_grad ops also pass Theta (unused: the grid is linear in it)
@register_op("affine_grid_grad", inputs=[Slot("Theta", dispensable=True),
                                         Slot("OutputShape", dispensable=True), "Output@GRAD"],
             outputs=["Theta@GRAD"], attrs=_AG_ATTRS, grad_of="affine_grid",
             doc="dTheta[n] = sum over the grid of dOutput^T (x, y, 1)")
def affine_grid_grad(Theta, OutputShape, Output_grad, output_shape, align_corners):
    shape = _shape_of(OutputShape, output_shape)
    shape[0] = Output_grad.shape[0]
    base = _base_grid(shape, align_corners)
    k = base.shape[-1]
    flat = Output_grad.reshape(Output_grad.shape[0], -1, Output_grad.shape[-1])
    return {"Theta@GRAD": np.einsum("lk,nlc->nck", base.reshape(-1, k), flat).astype(
        Output_grad.dtype)}


# --- grid_sampler --------------------------------------------------------------------------------
_GS_ATTRS = [Attr("align_corners", T.BOOLEAN, True), Attr("padding_mode", T.STRING, "zeros"),
             Attr("mode", T.STRING, "bilinear")]


def _reflect(x, low2, high2):
    """Paddle's reflect_coordinates and the derivative sign of the reflection."""
    if low2 == high2:
        return np.zeros_like(x), np.zeros_like(x)
    low, span = low2 / 2, (high2 - low2) / 2
    d = x - low
    sign = np.where(d < 0, -1.0, 1.0)
    d = np.abs(d)
    flips = np.floor(d / span)
    extra = np.fmod(d, span)
    even = flips % 2 == 0
    return np.where(even, extra + low, span - extra + low), sign * np.where(even, 1.0, -1.0)


def _source(g, size, align_corners, padding_mode):
    """Input coordinate of each grid value and d coordinate / d grid."""
    if align_corners:
        coord, scale = (g + 1) / 2 * (size - 1), (size - 1) / 2
    else:
        coord, scale = ((g + 1) * size - 1) / 2, size / 2
    factor = np.full(g.shape, scale)
    if padding_mode == "border":
        inside = (coord > 0) & (coord < size - 1)
        coord, factor = np.clip(coord, 0, size - 1), factor * inside
    elif padding_mode == "reflection":
        if align_corners:
            coord, sign = _reflect(coord, 0, 2 * (size - 1))
        else:
            coord, sign = _reflect(coord, -1, 2 * size - 1)
        inside = (coord > 0) & (coord < size - 1)
        coord, factor = np.clip(coord, 0, size - 1), factor * sign * inside
    return coord, factor


def _taps(x, idx):
    """X[n, :, *idx] per grid point (0 outside): [N, C, *out], and the in-bounds mask; idx holds
    one integer array [N, *out] per spatial axis of X."""
    sizes = x.shape[2:]
    ok = np.ones(idx[0].shape, bool)
    for i, size in zip(idx, sizes):
        ok &= (i >= 0) & (i < size)
    clipped = tuple(np.clip(i, 0, size - 1) for i, size in zip(idx, sizes))
    b = np.arange(x.shape[0]).reshape((-1,) + (1,) * (idx[0].ndim - 1))
    vals = x[(b, slice(None)) + clipped]  # [N, *out, C]
    return np.moveaxis(vals, -1, 1) * ok[:, None], ok


def _sample(X, Grid, align_corners, padding_mode):
    """Per spatial axis of X (D, H, W order): the source coordinates and d coordinate / d grid.
    The grid's last axis lists x (W) first, then y (H), then z (D)."""
    sizes = X.shape[2:]
    k = len(sizes)
    pairs = [_source(Grid[..., k - 1 - axis], size, align_corners, padding_mode)
             for axis, size in enumerate(sizes)]
    return [c for c, _ in pairs], [f for _, f in pairs]


def _corners(coords):
    """(integer index per axis, weight, per-axis weights, per-axis signs) of the 2^k linear
    interpolation corners."""
    lows = [np.floor(c).astype(int) for c in coords]
    fracs = [c - lo for c, lo in zip(coords, lows)]
    for offsets in itertools.product((0, 1), repeat=len(coords)):
        idx = [lo + o for lo, o in zip(lows, offsets)]
        ws = [t if o else 1 - t for t, o in zip(fracs, offsets)]
        yield idx, np.prod(ws, axis=0), ws, [1.0 if o else -1.0 for o in offsets]


def _gs_expect(X, Grid, align_corners=True, padding_mode="zeros", mode="bilinear"):
    n, c, h, w = X.shape
    _, ho, wo, _ = Grid.shape
    out = np.zeros((n, c, ho, wo))
    for b, i, j in np.ndindex(n, ho, wo):
        gx, gy = Grid[b, i, j]
        if align_corners:
            x, y = (gx + 1) / 2 * (w - 1), (gy + 1) / 2 * (h - 1)
        else:
            x, y = ((gx + 1) * w - 1) / 2, ((gy + 1) * h - 1) / 2
        if padding_mode == "border":
            x, y = min(max(x, 0), w - 1), min(max(y, 0), h - 1)
        if mode == "nearest":
            r, q = int(np.rint(y)), int(np.rint(x))
            if 0 <= r < h and 0 <= q < w:
                out[b, :, i, j] = X[b, :, r, q]
            continue
        x0, y0 = int(np.floor(x)), int(np.floor(y))
        for dy in (0, 1):
            for dx in (0, 1):
                r, q = y0 + dy, x0 + dx
                wt = (1 - abs(x - q)) * (1 - abs(y - r))
                if 0 <= r < h and 0 <= q < w:
                    out[b, :, i, j] += wt * X[b, :, r, q]
    return {"Output": out.astype(X.dtype)}


@register_op(
    "grid_sampler", inputs=["X", "Grid"], outputs=["Output"], attrs=_GS_ATTRS,
    infer=lambda ctx: {"Output": VarSpec((ctx.input("X").shape[0], ctx.input("X").shape[1],
                                          *ctx.input("Grid").shape[1:-1]),
                                         ctx.input("X").dtype)},
    grad=default_grad("grid_sampler_grad"),
    doc="Output[n, c, i, j] = X[n, c] sampled at Grid[n, i, j] = (x, y) in [-1, 1] "
        "(bilinear or nearest; zeros / border / reflection outside); 5-D X with a (x, y, z) "
        "grid samples volumes (trilinear)",
    examples=[
        Example({"X": rand(2, 2, 3, 4), "Grid": rand(2, 3, 2, 2) * 1.1}, {}, _gs_expect),
        Example({"X": rand(1, 2, 4, 3).astype("float64"),
                 "Grid": (rand(1, 2, 3, 2) * 1.2).astype("float64")},
                {"align_corners": False, "padding_mode": "border"}, _gs_expect),
        Example({"X": rand(1, 1, 3, 3), "Grid": np.array(
            [[[[-0.9, -0.8], [0.3, 0.45]], [[0.8, -0.1], [2.0, 0.2]]]], np.float32)},
            {"mode": "nearest"}, _gs_expect, grad=False),
        # a volume: the trilinear sample of a function linear in (x, y, z) is that function
        Example({"X": np.arange(24, dtype="float64").reshape(1, 1, 2, 3, 4),
                 "Grid": np.array([[[[[-0.5, 0.2, 0.9], [0.3, -0.6, -0.2]]]]])},
                {"align_corners": True},  # value = x + 4 y + 12 z at x = (gx + 1) / 2 * 3 ...
                {"Output": np.array([[[[[0.75 + 4 * 1.2 + 12 * 0.95,
                                         1.95 + 4 * 0.4 + 12 * 0.4]]]]])}),
    ],
)
def grid_sampler(X, Grid, align_corners, padding_mode, mode):
    coords, _ = _sample(X, Grid, align_corners, padding_mode)
    if mode == "nearest":
        out, _ = _taps(X, [np.rint(c).astype(int) for c in coords])
        return {"Output": out.astype(X.dtype, copy=False)}
    out = 0
    for idx, weight, _, _ in _corners(coords):
        vals, _ = _taps(X, idx)
        out = out + vals * weight[:, None]
    return {"Output": np.asarray(out).astype(X.dtype, copy=False)}


@register_op("grid_sampler_grad", inputs=["X", "Grid", "Output@GRAD"],
             outputs=["X@GRAD", "Grid@GRAD"], attrs=_GS_ATTRS, grad_of="grid_sampler",
             infer=lambda ctx: {"X@GRAD": VarSpec(ctx.input("X").shape, ctx.input("X").dtype),
                                "Grid@GRAD": VarSpec(ctx.input("Grid").shape,
                                                     ctx.input("Grid").dtype)},
             doc="dX: dOutput scattered with the sampling weights; dGrid: dOutput times the "
                 "weights' slope along each axis (0 for nearest)")
def grid_sampler_grad(X, Grid, Output_grad, align_corners, padding_mode, mode):
    sizes = X.shape[2:]
    k = len(sizes)
    coords, factors = _sample(X, Grid, align_corners, padding_mode)
    dx_img = np.zeros((X.shape[0], *sizes, X.shape[1]), np.float64)
    b = np.arange(X.shape[0]).reshape((-1,) + (1,) * k)
    g = np.moveaxis(Output_grad, 1, -1)  # [N, *out, C]
    dgrid = np.zeros(Grid.shape, np.float64)
    if mode == "nearest":
        idx = [np.rint(c).astype(int) for c in coords]
        _, ok = _taps(X, idx)
        clipped = tuple(np.clip(i, 0, size - 1) for i, size in zip(idx, sizes))
        np.add.at(dx_img, (b,) + clipped, g * ok[..., None])
    else:
        slopes = [np.zeros(c.shape) for c in coords]
        for idx, weight, ws, signs in _corners(coords):
            vals, ok = _taps(X, idx)
            clipped = tuple(np.clip(i, 0, size - 1) for i, size in zip(idx, sizes))
            np.add.at(dx_img, (b,) + clipped, g * (weight * ok)[..., None])
            gv = (np.moveaxis(vals, 1, -1) * g).sum(-1)
            for axis in range(k):
                others = np.prod([w for a, w in enumerate(ws) if a != axis], axis=0) \
                    if k > 1 else 1.0
                slopes[axis] += gv * others * signs[axis]
        for axis in range(k):
            dgrid[..., k - 1 - axis] = slopes[axis] * factors[axis]
    return {"X@GRAD": np.moveaxis(dx_img, -1, 1).astype(X.dtype),
            "Grid@GRAD": dgrid.astype(Grid.dtype)}
