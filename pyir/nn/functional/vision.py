"""Vision layers of `paddle.nn.functional`: affine_grid, grid_sample, pixel_shuffle,
pixel_unshuffle, channel_shuffle (static and eager alike)."""

from __future__ import annotations

import numbers

from ...dispatch import out as _out
from ._base import fail

__all__ = ["affine_grid", "grid_sample", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle"]

# Paddle names of this family pyir leaves out, with the reason (pyir/unsupported.py).
UNSUPPORTED: dict[str, str] = {}


def affine_grid(theta, out_shape, align_corners: bool = True, name: str | None = None):
    """The sampling grid [N, H, W, 2] of the affine maps theta [N, 2, 3] over out_shape
    [N, C, H, W] (op `affine_grid`).

    Example:
        >>> grid = F.affine_grid(theta, [1, 3, 32, 32])
    """
    shape = [int(v) for v in out_shape]
    if len(shape) != 4:
        fail("affine_grid", f"out_shape must be [N, C, H, W] (4 values), got {shape}")
    if list(theta.shape[1:]) != [2, 3]:
        fail("affine_grid", f"theta must be [N, 2, 3], got {list(theta.shape)}")
    return _out("affine_grid", {"Theta": theta}, {"output_shape": shape,
                                                  "align_corners": bool(align_corners)},
                name=name, slot="Output")


def grid_sample(x, grid, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool = True, name: str | None = None):
    """x [N, C, H, W] sampled at grid [N, Ho, Wo, 2] (x, y in [-1, 1]) (op `grid_sampler`).

    Example:
        >>> y = F.grid_sample(x, grid, padding_mode="border")
    """
    if mode not in ("bilinear", "nearest"):
        fail("grid_sample", f"mode must be 'bilinear' or 'nearest', got {mode!r}")
    if padding_mode not in ("zeros", "reflection", "border"):
        fail("grid_sample", f"padding_mode must be 'zeros', 'reflection' or 'border', got "
                            f"{padding_mode!r}")
    if not isinstance(align_corners, bool):
        fail("grid_sample", f"align_corners must be a bool, got {align_corners!r}")
    if len(x.shape) != 4:
        fail("grid_sample", f"x must be 4-D (5-D sampling is not supported by pyir), got shape "
                            f"{list(x.shape)}")
    return _out("grid_sampler", {"X": x, "Grid": grid},
                {"mode": mode, "padding_mode": padding_mode, "align_corners": align_corners},
                name=name, slot="Output")


def _check(fn, x, factor, what, data_format):
    if not isinstance(factor, numbers.Integral) or factor <= 0:
        fail(fn, f"{what} must be a positive int, got {factor!r}")
    if data_format not in ("NCHW", "NHWC"):
        fail(fn, f"data_format must be NCHW or NHWC, got {data_format!r}")
    if len(x.shape) != 4:
        fail(fn, f"x must be 4-D, got shape {list(x.shape)}")


def pixel_shuffle(x, upscale_factor: int, data_format: str = "NCHW", name: str | None = None):
    """[N, C*r*r, H, W] -> [N, C, H*r, W*r] (op `pixel_shuffle`).

    Example:
        >>> y = F.pixel_shuffle(x, 2)
    """
    _check("pixel_shuffle", x, upscale_factor, "upscale_factor", data_format)
    channels = x.shape[1 if data_format == "NCHW" else 3]
    if channels > 0 and channels % (upscale_factor ** 2):
        fail("pixel_shuffle", f"the {channels} channels are not divisible by "
                              f"upscale_factor^2 = {upscale_factor ** 2}")
    return _out("pixel_shuffle", {"X": x}, {"upscale_factor": int(upscale_factor),
                                            "data_format": data_format}, name=name)


def pixel_unshuffle(x, downscale_factor: int, data_format: str = "NCHW",
                    name: str | None = None):
    """[N, C, H*r, W*r] -> [N, C*r*r, H, W] (op `pixel_unshuffle`).

    Example:
        >>> y = F.pixel_unshuffle(x, 2)
    """
    _check("pixel_unshuffle", x, downscale_factor, "downscale_factor", data_format)
    hw = x.shape[2:] if data_format == "NCHW" else x.shape[1:3]
    if any(v > 0 and v % downscale_factor for v in hw):
        fail("pixel_unshuffle", f"height and width {list(hw)} must be divisible by "
                                f"downscale_factor={downscale_factor}")
    return _out("pixel_unshuffle", {"X": x}, {"downscale_factor": int(downscale_factor),
                                              "data_format": data_format}, name=name)


def channel_shuffle(x, groups: int, data_format: str = "NCHW", name: str | None = None):
    """Interleave the channels of `groups` groups (op `channel_shuffle`).

    Example:
        >>> y = F.channel_shuffle(x, 3)
    """
    _check("channel_shuffle", x, groups, "groups", data_format)
    channels = x.shape[1 if data_format == "NCHW" else 3]
    if channels > 0 and channels % groups:
        fail("channel_shuffle", f"the {channels} channels are not divisible by groups={groups}")
    return _out("channel_shuffle", {"X": x}, {"groups": int(groups),
                                              "data_format": data_format}, name=name)
