"""Reductions and running totals: `pyir.sum`, `pyir.amax`, `pyir.all`, `pyir.cumsum`,
`pyir.cummax`, `pyir.diff`, ... (Paddle's `paddle.tensor.math`). `axis` is None (every axis),
an int or a list/tuple of ints, negative counting from the end; `keepdim` keeps the reduced
axes as 1s.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..dispatch import apply_op, dtype_of, inplace_of, ndim
from ..dispatch import out as apply_out  # for functions whose `out=` argument hides `out`
from ..errors import BuildError, Where
from .math_common import (axis_list, cast, filled_like, into, need_tensor, one_axis,
                          reduce_attrs, where)

__all__ = ["sum", "prod", "max", "min", "amax", "amin", "all", "any", "logsumexp", "nansum",
           "nanmean", "count_nonzero", "cumsum", "cumprod", "cummax", "cummin",
           "logcumsumexp", "diff", "trapezoid", "cumulative_trapezoid", "renorm", "reduce_as",
           "cumsum_", "cumprod_", "renorm_"]

# Paddle names of this family pyir leaves out, with the reason (pyir/unsupported.py).
UNSUPPORTED: dict[str, str] = {}

_PROMOTED_TO_INT64 = (np.dtype(np.bool_), np.dtype(np.int32))


def _reduce(op_type: str, x, axis, keepdim, name, stem, fn: str, **extra):
    need_tensor(x, fn)
    attrs = {**reduce_attrs(x, axis, keepdim, fn), **extra}
    return apply_out(op_type, {"X": x}, attrs, name=name, stem=stem)


def sum(x, axis=None, dtype=None, keepdim: bool = False, name: str | None = None, *,  # noqa: A001
        out=None):  # noqa: A002
    """Sum over `axis` (op `reduce_sum`); bool and int32 sum to int64 unless `dtype` says.

    Example:
        >>> total = pyir.sum(x, axis=[0, -1], keepdim=True)
    """
    need_tensor(x, "sum")
    in_dtype = dtype_of(x)
    if dtype is None and in_dtype in _PROMOTED_TO_INT64:
        dtype = "int64"
    extra = {} if dtype is None else {"in_dtype": dtypes.to_code(in_dtype),
                                      "out_dtype": dtypes.to_code(dtype)}
    return into(_reduce("reduce_sum", x, axis, keepdim, name, "sum", "sum", **extra), out)


def prod(x, axis=None, keepdim: bool = False, dtype=None, out=None,  # noqa: A002
         name: str | None = None):
    """Product over `axis` (op `reduce_prod`; a `cast` first when `dtype` is given).

    Example:
        >>> pyir.prod(x, axis=1)
    """
    need_tensor(x, "prod")
    if dtype is not None:
        x = cast(x, dtype)
    return into(_reduce("reduce_prod", x, axis, keepdim, name, None, "prod"), out)


def max(x, axis=None, keepdim: bool = False, name: str | None = None):  # noqa: A001
    """Maximum over `axis` (op `reduce_max`).

    Example:
        >>> pyir.max(x, axis=-1)
    """
    return _reduce("reduce_max", x, axis, keepdim, name, "max", "max")


def min(x, axis=None, keepdim: bool = False, name: str | None = None):  # noqa: A001
    """Minimum over `axis` (op `reduce_min`).

    Example:
        >>> pyir.min(x, axis=0, keepdim=True)
    """
    return _reduce("reduce_min", x, axis, keepdim, name, "min", "min")


def amax(x, axis=None, keepdim: bool = False, name: str | None = None, *,
         out=None):  # noqa: A002
    """Maximum over `axis`; tied maxima share the gradient evenly (op `reduce_amax`).

    Example:
        >>> pyir.amax(x, axis=0)
    """
    return into(_reduce("reduce_amax", x, axis, keepdim, name, "amax", "amax"), out)


def amin(x, axis=None, keepdim: bool = False, name: str | None = None, *,
         out=None):  # noqa: A002
    """Minimum over `axis`; tied minima share the gradient evenly (op `reduce_amin`).

    Example:
        >>> pyir.amin(x, axis=[0, 1])
    """
    return into(_reduce("reduce_amin", x, axis, keepdim, name, "amin", "amin"), out)


def all(x, axis=None, keepdim: bool = False, name: str | None = None, *,  # noqa: A001
        out=None):  # noqa: A002
    """Whether every element over `axis` is true (nonzero), op `reduce_all`.

    Example:
        >>> pyir.all(mask, axis=1)
    """
    return into(_reduce("reduce_all", x, axis, keepdim, name, "all", "all"), out)


def any(x, axis=None, keepdim: bool = False, name: str | None = None, *,  # noqa: A001
        out=None):  # noqa: A002
    """Whether some element over `axis` is true (nonzero), op `reduce_any`.

    Example:
        >>> pyir.any(mask)
    """
    return into(_reduce("reduce_any", x, axis, keepdim, name, "any", "any"), out)


def logsumexp(x, axis=None, keepdim: bool = False, name: str | None = None, *,
              out=None):  # noqa: A002
    """log(sum(exp(x))) over `axis`, computed stably (op `logsumexp`).

    Example:
        >>> pyir.logsumexp(x, axis=1)
    """
    need_tensor(x, "logsumexp")
    dims = axis_list(x, axis, "logsumexp")
    attrs = {"axis": dims, "keepdim": bool(keepdim),
             "reduce_all": not dims or len(dims) == ndim(x)}
    return into(apply_out("logsumexp", {"X": x}, attrs, name=name), out)


def nansum(x, axis=None, dtype=None, keepdim: bool = False, name: str | None = None):
    """Sum over `axis` treating NaN as 0 (isnan_v2 + where, then reduce_sum).

    Example:
        >>> pyir.nansum(x, axis=1)
    """
    need_tensor(x, "nansum")
    cleaned = where(apply_out("isnan_v2", {"X": x}), filled_like(x, 0.0), x)
    return sum(cleaned, axis, dtype, keepdim, name)


def nanmean(x, axis=None, keepdim: bool = False, name: str | None = None):
    """Mean over `axis` of the non-NaN elements: nansum / count of non-NaN.

    Example:
        >>> pyir.nanmean(x, axis=0)
    """
    need_tensor(x, "nanmean")
    present = apply_out("logical_not", {"X": apply_out("isnan_v2", {"X": x})})
    count = sum(present, axis, keepdim=keepdim)
    total = nansum(x, axis, keepdim=keepdim)
    return apply_out("elementwise_div", {"X": total, "Y": cast(count, dtype_of(x))},
                     {"axis": -1}, name=name)


def count_nonzero(x, axis=None, keepdim: bool = False, name: str | None = None):
    """How many elements over `axis` are nonzero (int64): cast to bool, to int64, reduce_sum.

    Example:
        >>> pyir.count_nonzero(x, axis=1)
    """
    need_tensor(x, "count_nonzero")
    counted = cast(cast(x, "bool"), "int64")
    return sum(counted, axis, keepdim=keepdim, name=name)


def _flattened(x, fn):
    """x as 1-D (op flatten_contiguous_range), for running totals with axis None."""
    if ndim(x) <= 1:
        return x
    return apply_out("flatten_contiguous_range", {"X": x},
                     {"start_axis": 0, "stop_axis": ndim(x) - 1}, stem="flatten")


def cumsum(x, axis: int | None = None, dtype=None, name: str | None = None, *,
           out=None):  # noqa: A002
    """Running sum along `axis` (op `cumsum`; axis None runs over the flattened tensor).

    Example:
        >>> pyir.cumsum(x, axis=1)
    """
    need_tensor(x, "cumsum")
    if dtype is not None:
        x = cast(x, dtype)
    attrs = {"axis": -1, "flatten": True} if axis is None else \
        {"axis": one_axis(x, axis, "cumsum"), "flatten": False}
    return into(apply_out("cumsum", {"X": x}, {**attrs, "exclusive": False, "reverse": False},
                          name=name), out)


def cumprod(x, dim: int | None = None, *, dtype=None, out=None,  # noqa: A002
            name: str | None = None):
    """Running product along `dim` (op `cumprod`; dim None runs over the flattened tensor).

    Example:
        >>> pyir.cumprod(x, dim=0)
    """
    need_tensor(x, "cumprod")
    if dtype is not None:
        x = cast(x, dtype)
    if dim is None:
        x, dim = _flattened(x, "cumprod"), -1
    attrs = {"dim": one_axis(x, dim, "cumprod"), "exclusive": False, "reverse": False}
    return into(apply_out("cumprod", {"X": x}, attrs, name=name), out)


def _running_extreme(op_type, x, axis, dtype, name):
    need_tensor(x, op_type)
    if dtypes.to_numpy(dtype) not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise BuildError(f"dtype must be int32 or int64, got {dtype}", Where(op_type=op_type))
    if axis is None:
        x, axis = _flattened(x, op_type), -1
    attrs = {"axis": one_axis(x, axis, op_type), "dtype": dtypes.to_code(dtype)}
    result = apply_op(op_type, {"x": x}, attrs,
                      name=name)
    return result["out"], result["indices"]


def cummax(x, axis: int | None = None, dtype="int64", name: str | None = None):
    """Running maximum along `axis` and the index where each was reached (op `cummax`).

    Example:
        >>> values, indices = pyir.cummax(x, axis=1)
    """
    return _running_extreme("cummax", x, axis, dtype, name)


def cummin(x, axis: int | None = None, dtype="int64", name: str | None = None):
    """Running minimum along `axis` and the index where each was reached (op `cummin`).

    Example:
        >>> values, indices = pyir.cummin(x, axis=0)
    """
    return _running_extreme("cummin", x, axis, dtype, name)


def logcumsumexp(x, axis: int | None = None, dtype=None, name: str | None = None):
    """Running log(sum(exp(x))) along `axis` (op `logcumsumexp`; None: flattened).

    Example:
        >>> pyir.logcumsumexp(x, axis=0)
    """
    need_tensor(x, "logcumsumexp")
    if dtype is not None:
        x = cast(x, dtype)
    attrs = {"axis": -1, "flatten": True} if axis is None else \
        {"axis": one_axis(x, axis, "logcumsumexp"), "flatten": False}
    return apply_out("logcumsumexp", {"X": x}, {**attrs, "exclusive": False, "reverse": False},
                     name=name)


def _slice(x, axis, start, end):
    return apply_out("slice", {"Input": x}, {"axes": [axis], "starts": [start], "ends": [end],
                                             "infer_flags": [1], "decrease_axis": []})


def diff(x, n: int = 1, axis: int = -1, prepend=None, append=None,
         name: str | None = None, *, out=None):  # noqa: A002
    """The n-th forward difference along `axis` (slice ops and elementwise_sub, logical_xor
    for bool); prepend/append are concatenated first.

    Example:
        >>> pyir.diff(x, axis=0)
    """
    need_tensor(x, "diff")
    if not isinstance(n, (int, np.integer)) or n < 0:
        raise BuildError(f"n must be a non-negative int, got {n!r}", Where(op_type="diff"))
    axis = one_axis(x, axis, "diff") % ndim(x)
    parts = [t for t in (prepend, x, append) if t is not None]
    if len(parts) > 1:
        x = apply_out("concat", {"X": parts}, {"axis": axis})
    for step in range(n):
        length = x.shape[axis]
        if length is None or length < 0:
            raise BuildError("diff needs a known length along axis", Where(op_type="diff"))
        if length == 0:
            break
        before, after = _slice(x, axis, 0, length - 1), _slice(x, axis, 1, length)
        last = step == n - 1
        if dtype_of(x) == np.bool_:
            x = apply_out("logical_xor", {"X": after, "Y": before}, name=name if last else None)
        else:
            x = apply_out("elementwise_sub", {"X": after, "Y": before}, {"axis": -1},
                          name=name if last else None)
    return into(x, out)


def _trapezoid(y, x, dx, axis, running: bool, name, fn):
    """The trapezoid rule along axis: (y[1:] + y[:-1]) / 2 times the spacing, then summed
    (reduce_sum) or accumulated (cumsum)."""
    need_tensor(y, fn)
    if x is not None and dx is not None:
        raise BuildError("give x or dx, not both", Where(op_type=fn))
    axis = one_axis(y, axis, fn) % ndim(y)
    length = y.shape[axis]
    if length is None or length < 0:
        raise BuildError("needs a known length along axis", Where(op_type=fn))
    heights = apply_out("elementwise_add", {"X": _slice(y, axis, 1, length),
                                            "Y": _slice(y, axis, 0, length - 1)}, {"axis": -1})
    if x is None:
        areas = apply_out("scale", {"X": heights}, {"scale": 0.5 * (1.0 if dx is None
                                                                    else float(dx))})
    else:
        need_tensor(x, fn)
        x_axis = 0 if ndim(x) == 1 else axis
        widths = apply_out("elementwise_sub", {"X": _slice(x, x_axis, 1, length),
                                               "Y": _slice(x, x_axis, 0, length - 1)},
                           {"axis": -1})
        if ndim(x) == 1 and ndim(y) > 1:  # line the spacings up with y's axis
            shape = [1] * ndim(y)
            shape[axis] = length - 1
            widths = apply_out("reshape2", {"X": widths}, {"shape": shape})
        areas = apply_out("scale", {"X": apply_out("elementwise_mul", {
            "X": heights, "Y": widths}, {"axis": -1})}, {"scale": 0.5})
    if running:
        return apply_out("cumsum", {"X": areas}, {"axis": axis, "flatten": False,
                                                  "exclusive": False, "reverse": False},
                         name=name)
    return apply_out("reduce_sum", {"X": areas}, {"dim": [axis], "keep_dim": False,
                                                  "reduce_all": ndim(y) == 1}, name=name)


def trapezoid(y, x=None, dx: float | None = None, axis: int = -1, name: str | None = None):
    """The integral of y along axis by the trapezoid rule, at sample points x (1-D, or shaped
    like y) or evenly spaced dx apart (default 1).

    Example:
        >>> pyir.trapezoid(y, dx=0.1)
    """
    return _trapezoid(y, x, dx, axis, False, name, "trapezoid")


def cumulative_trapezoid(y, x=None, dx: float | None = None, axis: int = -1,
                         name: str | None = None):
    """The running trapezoid-rule integral of y along axis (one element shorter there).

    Example:
        >>> pyir.cumulative_trapezoid(y, x)
    """
    return _trapezoid(y, x, dx, axis, True, name, "cumulative_trapezoid")


def renorm(x, p: float, axis: int, max_norm: float):
    """Each slice of x along axis scaled down to p-norm max_norm where its norm exceeds it
    (op `renorm`).

    Example:
        >>> pyir.renorm(w, p=2.0, axis=0, max_norm=1.0)
    """
    need_tensor(x, "renorm")
    if not p > 0 or not max_norm >= 0:
        raise BuildError(f"needs p > 0 and max_norm >= 0, got p={p!r}, max_norm={max_norm!r}",
                         Where(op_type="renorm"))
    return apply_out("renorm", {"X": x}, {"p": float(p), "axis": one_axis(x, axis, "renorm"),
                                          "max_norm": float(max_norm)})


def reduce_as(x, target, name: str | None = None):
    """x summed down to target's shape, over the axes where target was broadcast (op
    `reduce_as`).

    Example:
        >>> pyir.reduce_as(grad, bias)
    """
    need_tensor(x, "reduce_as")
    need_tensor(target, "reduce_as")
    return apply_out("reduce_as", {"x": x, "target": target}, name=name, slot="out")


cumsum_ = inplace_of(cumsum, "cumsum_")
renorm_ = inplace_of(renorm, "renorm_")
cumprod_ = inplace_of(cumprod, "cumprod_")
