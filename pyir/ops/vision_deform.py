"""Deformable convolution (v2 with Mask: `deformable_conv`; v1 without: `deformable_conv_v1`)
and their `_grad` ops. Offset [N, 2*DG*KH*KW, OH, OW] holds (dy, dx) per deformable group and
kernel tap; Mask [N, DG*KH*KW, OH, OW] scales each sample; samples are bilinear with zeros
outside the image, as Paddle's CPU kernel."""

from __future__ import annotations

import numpy as np

from ..errors import KernelError
from ..registry import Attr, Example, VarSpec, register_op
from ..registry import AttrType as T
from ._helpers import default_grad


def _out_hw(h, w, kh, kw, strides, paddings, dilations):
    return ((h + 2 * paddings[0] - (dilations[0] * (kh - 1) + 1)) // strides[0] + 1,
            (w + 2 * paddings[1] - (dilations[1] * (kw - 1) + 1)) // strides[1] + 1)


def _positions(x_shape, w_shape, offset, strides, paddings, dilations, dg):
    """Sample rows/cols [N, DG, KH*KW, OH, OW] in float64."""
    n, _, h, w = x_shape
    kh, kw = w_shape[2:]
    oh, ow = offset.shape[2:]
    off = offset.reshape(n, dg, kh * kw, 2, oh, ow).astype(np.float64)
    ki, kj = np.divmod(np.arange(kh * kw), kw)
    base_y = (np.arange(oh) * strides[0] - paddings[0])[None, :, None] + \
        (ki * dilations[0])[:, None, None]
    base_x = (np.arange(ow) * strides[1] - paddings[1])[None, None, :] + \
        (kj * dilations[1])[:, None, None]
    return base_y[None, None] + off[:, :, :, 0], base_x[None, None] + off[:, :, :, 1]


def _corners(py, px, h, w):
    """The four bilinear corners: list of (row, col, weight, d weight/dy, d weight/dx, valid)."""
    inside = (py > -1) & (px > -1) & (py < h) & (px < w)
    y0, x0 = np.floor(py).astype(np.int64), np.floor(px).astype(np.int64)
    ly, lx = py - y0, px - x0
    result = []
    for dy, dx in ((0, 0), (0, 1), (1, 0), (1, 1)):
        r, c = y0 + dy, x0 + dx
        wy = ly if dy else 1 - ly
        wx = lx if dx else 1 - lx
        sy = 1.0 if dy else -1.0
        sx = 1.0 if dx else -1.0
        valid = inside & (r >= 0) & (c >= 0) & (r < h) & (c < w)
        result.append((np.clip(r, 0, h - 1), np.clip(c, 0, w - 1), wy * wx, sy * wx, wy * sx,
                       valid))
    return result


def _check(Input, Offset, Filter, Mask, groups, deformable_groups, strides, paddings,
           dilations, op_type):
    n, c, h, w = Input.shape
    kh, kw = Filter.shape[2:]
    oh, ow = _out_hw(h, w, kh, kw, strides, paddings, dilations)
    if c != Filter.shape[1] * groups or Filter.shape[0] % groups:
        raise KernelError(f"{op_type}: the filter {list(Filter.shape)} does not fit an input "
                          f"of {c} channels in {groups} groups")
    want = (n, 2 * deformable_groups * kh * kw, oh, ow)
    if tuple(Offset.shape) != want:
        raise KernelError(f"{op_type}: Offset must have shape {list(want)}, got "
                          f"{list(Offset.shape)}")
    if Mask is not None and tuple(Mask.shape) != (n, deformable_groups * kh * kw, oh, ow):
        raise KernelError(f"{op_type}: Mask must have shape "
                          f"{[n, deformable_groups * kh * kw, oh, ow]}, got {list(Mask.shape)}")
    if c % deformable_groups:
        raise KernelError(f"{op_type}: {c} input channels are not divisible by "
                          f"deformable_groups {deformable_groups}")


def _columns(Input, Offset, Filter, Mask, strides, paddings, dilations, dg):
    """cols [N, C, KH*KW, OH, OW] (masked samples), plus what the gradient needs."""
    n, c, h, w = Input.shape
    py, px = _positions(Input.shape, Filter.shape, Offset, strides, paddings, dilations, dg)
    x = Input.astype(np.float64).reshape(n, dg, c // dg, h * w)
    bidx = np.arange(n)[:, None, None, None, None]
    gidx = np.arange(dg)[None, :, None, None, None]
    raw = 0.0
    corners = _corners(py, px, h, w)
    for r, col, weight, _, _, valid in corners:
        vals = x[bidx, gidx, :, r * w + col]          # [N, DG, K, OH, OW, C/DG]
        raw = raw + vals * (weight * valid)[..., None]
    raw = np.moveaxis(raw, -1, 2)                      # [N, DG, C/DG, K, OH, OW]
    mask = 1.0 if Mask is None else Mask.astype(np.float64).reshape(n, dg, 1, *py.shape[2:])
    cols = (raw * mask).reshape(n, c, *py.shape[2:])
    return cols, raw, mask, corners


def _forward(Input, Offset, Filter, Mask, strides, paddings, dilations, deformable_groups,
             groups, op_type):
    _check(Input, Offset, Filter, Mask, groups, deformable_groups, strides, paddings, dilations,
           op_type)
    n, c = Input.shape[:2]
    cols, *_ = _columns(Input, Offset, Filter, Mask, strides, paddings, dilations,
                        deformable_groups)
    k, oh, ow = cols.shape[2:]
    cols = cols.reshape(n, groups, c // groups * k, oh * ow)
    wts = Filter.astype(np.float64).reshape(groups, Filter.shape[0] // groups, -1)
    out = np.einsum("gok,ngkp->ngop", wts, cols).reshape(n, Filter.shape[0], oh, ow)
    return {"Output": out.astype(Input.dtype)}


def _backward(Input, Offset, Filter, Mask, Output_grad, strides, paddings, dilations,
              deformable_groups, groups):
    n, c, h, w = Input.shape
    dg = deformable_groups
    cols, raw, mask, corners = _columns(Input, Offset, Filter, Mask, strides, paddings,
                                        dilations, dg)
    k, oh, ow = cols.shape[2:]
    g = Output_grad.astype(np.float64).reshape(n, groups, -1, oh * ow)
    wts = Filter.astype(np.float64).reshape(groups, Filter.shape[0] // groups, -1)
    d_filter = np.einsum("ngop,ngkp->gok", g, cols.reshape(n, groups, -1, oh * ow))
    d_cols = np.einsum("gok,ngop->ngkp", wts, g).reshape(n, dg, c // dg, k, oh, ow)
    d_raw = d_cols * mask
    x = Input.astype(np.float64).reshape(n, dg, c // dg, h * w)
    d_x = np.zeros_like(x)
    d_py = np.zeros(raw.shape[:1] + raw.shape[1:2] + raw.shape[3:])
    d_px = np.zeros_like(d_py)
    bidx = np.arange(n)[:, None, None, None, None]
    gidx = np.arange(dg)[None, :, None, None, None]
    upstream = np.moveaxis(d_raw, 2, -1)               # [N, DG, K, OH, OW, C/DG]
    for r, col, weight, dwy, dwx, valid in corners:
        flat = r * w + col
        vals = x[bidx, gidx, :, flat]
        dot = (upstream * vals).sum(-1) * valid
        d_py += dot * dwy
        d_px += dot * dwx
        contrib = upstream * (weight * valid)[..., None]
        for b in range(n):
            for gg in range(dg):
                np.add.at(d_x[b, gg].T, flat[b, gg].reshape(-1),
                          contrib[b, gg].reshape(-1, c // dg))
    result = {"Input@GRAD": d_x.reshape(Input.shape).astype(Input.dtype),
              "Offset@GRAD": np.stack([d_py, d_px], 3).reshape(Offset.shape)
              .astype(Offset.dtype),
              "Filter@GRAD": d_filter.reshape(Filter.shape).astype(Filter.dtype)}
    if Mask is not None:
        result["Mask@GRAD"] = (d_cols * raw).sum(2).reshape(Mask.shape).astype(Mask.dtype)
    return result


def _infer(ctx):
    x, f, a = ctx.input("Input"), ctx.input("Filter"), ctx.attrs
    if -1 in x.shape[2:]:
        hw = (-1, -1)
    else:
        hw = _out_hw(x.shape[2], x.shape[3], f.shape[2], f.shape[3], a["strides"],
                     a["paddings"], a["dilations"])
    return {"Output": VarSpec((x.shape[0], f.shape[0], *hw), x.dtype)}


def _expect(Input, Offset, Filter, Mask=None, strides=(1, 1), paddings=(0, 0),
            dilations=(1, 1), deformable_groups=1, groups=1, im2col_step=1):
    """Loop reference: every output, tap and channel sampled one at a time."""
    n, c, h, w = Input.shape
    o, cg, kh, kw = Filter.shape
    oh, ow = Offset.shape[2:]
    out = np.zeros((n, o, oh, ow))
    per_dg = c // deformable_groups

    def sample(img, y, x):
        if not (-1 < y < h and -1 < x < w):
            return 0.0
        y0, x0 = int(np.floor(y)), int(np.floor(x))
        total = 0.0
        for r, q in ((y0, x0), (y0, x0 + 1), (y0 + 1, x0), (y0 + 1, x0 + 1)):
            if 0 <= r < h and 0 <= q < w:
                total += (1 - abs(y - r)) * (1 - abs(x - q)) * img[r, q]
        return total

    for b in range(n):
        for oc in range(o):
            grp = oc // (o // groups)
            for i in range(oh):
                for j in range(ow):
                    acc = 0.0
                    for ci in range(cg):
                        ch = grp * cg + ci
                        d = ch // per_dg
                        for u in range(kh):
                            for v in range(kw):
                                t = u * kw + v
                                y = i * strides[0] - paddings[0] + u * dilations[0] + \
                                    Offset[b, d * 2 * kh * kw + 2 * t, i, j]
                                x = j * strides[1] - paddings[1] + v * dilations[1] + \
                                    Offset[b, d * 2 * kh * kw + 2 * t + 1, i, j]
                                m = 1.0 if Mask is None else Mask[b, d * kh * kw + t, i, j]
                                acc += Filter[oc, ci, u, v] * m * sample(Input[b, ch], y, x)
                    out[b, oc, i, j] = acc
    return {"Output": out.astype(Input.dtype)}


_ATTRS = [Attr("strides", T.INTS, [1, 1]), Attr("paddings", T.INTS, [0, 0]),
          Attr("dilations", T.INTS, [1, 1]), Attr("deformable_groups", T.INT, 1),
          Attr("groups", T.INT, 1), Attr("im2col_step", T.INT, 64)]
# deformable_conv_v1 declares groups before deformable_groups (Paddle's OpMaker order).
_ATTRS_V1 = [_ATTRS[0], _ATTRS[1], _ATTRS[2], _ATTRS[4], _ATTRS[3], _ATTRS[5]]


def _rng(seed, *shape, scale=1.0):
    # offsets away from integers keep finite differences off the bilinear kinks
    return (np.random.default_rng(seed).uniform(-1, 1, shape) * scale).astype("float64")


@register_op(
    "deformable_conv", no_extra_attrs=True,
    inputs=["Input", "Offset", "Filter", "Mask"], outputs=["Output"],
    attrs=_ATTRS, infer=_infer, grad=default_grad("deformable_conv_grad"),
    doc="Output = conv(X sampled bilinearly at the kernel taps moved by Offset, times Mask)",
    examples=[Example({"Input": _rng(1, 1, 2, 4, 4), "Offset": _rng(2, 1, 18, 4, 4, scale=0.7),
                       "Filter": _rng(3, 2, 2, 3, 3), "Mask": _rng(4, 1, 9, 4, 4)},
                      {"paddings": [1, 1]}, _expect),
              Example({"Input": _rng(5, 2, 4, 5, 4).astype("float32"),
                       "Offset": _rng(6, 2, 16, 2, 4, scale=1.3).astype("float32"),
                       "Filter": _rng(7, 4, 2, 2, 2).astype("float32"),
                       "Mask": _rng(8, 2, 8, 2, 4).astype("float32")},
                      {"strides": [2, 1], "dilations": [1, 2], "groups": 2,
                       "deformable_groups": 2, "paddings": [0, 1]}, _expect, grad=False)],
)
def deformable_conv(Input, Offset, Filter, Mask, strides, paddings, dilations,
                    deformable_groups, groups, im2col_step):
    return _forward(Input, Offset, Filter, Mask, strides, paddings, dilations,
                    deformable_groups, groups, "deformable_conv")


@register_op("deformable_conv_grad",
             inputs=["Input", "Offset", "Filter", "Mask", "Output@GRAD"],
             outputs=["Input@GRAD", "Offset@GRAD", "Filter@GRAD", "Mask@GRAD"],
             attrs=_ATTRS, grad_of="deformable_conv",
             doc="the gradients of deformable_conv for Input, Offset, Filter and Mask")
def deformable_conv_grad(Input, Offset, Filter, Mask, Output_grad, strides, paddings,
                         dilations, deformable_groups, groups, im2col_step):
    return _backward(Input, Offset, Filter, Mask, Output_grad, strides, paddings, dilations,
                     deformable_groups, groups)


@register_op(
    "deformable_conv_v1", no_extra_attrs=True,
    inputs=["Input", "Offset", "Filter"], outputs=["Output"],
    attrs=_ATTRS_V1, infer=_infer, grad=default_grad("deformable_conv_v1_grad"),
    doc="Output = conv(X sampled bilinearly at the kernel taps moved by Offset)",
    examples=[Example({"Input": _rng(9, 1, 2, 4, 5), "Offset": _rng(10, 1, 8, 3, 4, scale=0.8),
                       "Filter": _rng(11, 3, 2, 2, 2)}, {}, _expect)],
)
def deformable_conv_v1(Input, Offset, Filter, strides, paddings, dilations, groups,
                       deformable_groups, im2col_step):
    return _forward(Input, Offset, Filter, None, strides, paddings, dilations,
                    deformable_groups, groups, "deformable_conv_v1")


@register_op("deformable_conv_v1_grad", inputs=["Input", "Offset", "Filter", "Output@GRAD"],
             outputs=["Input@GRAD", "Offset@GRAD", "Filter@GRAD"], attrs=_ATTRS_V1,
             grad_of="deformable_conv_v1",
             doc="the gradients of deformable_conv_v1 for Input, Offset and Filter")
def deformable_conv_v1_grad(Input, Offset, Filter, Output_grad, strides, paddings, dilations,
                            groups, deformable_groups, im2col_step):
    return _backward(Input, Offset, Filter, None, Output_grad, strides, paddings, dilations,
                     deformable_groups, groups)
