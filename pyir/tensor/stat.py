"""Statistics: `pyir.mean`, `pyir.var`, `pyir.std`, `pyir.median`, `pyir.nanmedian`,
`pyir.quantile`, `pyir.nanquantile` (Paddle's `paddle.tensor.stat`).

mean is op `reduce_mean`; var/std, median and quantile are composed of several ops the way
Paddle's legacy Python code composes them (reduce_mean, elementwise ops, top_k_v2, argsort,
take_along_axis, ...), so their gradients come from those ops' rules.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..dispatch import apply_op, dtype_of, ndim
from ..dispatch import out as apply_out  # for functions whose `out=` argument hides `out`
from ..eager import Tensor
from ..errors import BuildError, Where
from .math_common import (FLOAT_TYPES, axis_list, cast, filled_like, into, need_tensor,
                          one_axis, reduce_attrs, reduced_count, scalar_like, to_float, where)

__all__ = ["mean", "var", "std", "median", "nanmedian", "quantile", "nanquantile"]

# Paddle names of this family pyir leaves out, with the reason (pyir/unsupported.py).
UNSUPPORTED: dict[str, str] = {}


def mean(x, axis=None, keepdim: bool = False, name: str | None = None, *, dtype=None,
         out=None):  # noqa: A002
    """Mean over `axis` (all axes when None), op `reduce_mean` (a `cast` first for `dtype`).

    Example:
        >>> loss = pyir.mean(per_example_loss)   # mean_0.tmp_0, a 0-D variable
    """
    need_tensor(x, "mean")
    if dtype is not None:
        x = cast(x, dtype)
    result = apply_out("reduce_mean", {"X": x}, reduce_attrs(x, axis, keepdim, "mean"),
                       name=name, stem="mean")
    return into(result, out)


def _count_over(x, dims):
    """How many elements each reduction over dims folds: a number when the shape says, else
    a tensor (sum of ones)."""
    known = reduced_count(x, dims)
    if known is not None:
        return known
    ones = filled_like(x, 1.0)
    return apply_out("reduce_sum", {"X": ones}, reduce_attrs(x, dims or None, True, "var"))


def var(x, axis=None, unbiased: bool | None = None, keepdim: bool = False,
        name: str | None = None, *, correction: float = 1, out=None):  # noqa: A002
    """Variance over `axis`: sum((x - mean)^2) / (N - correction); unbiased=True means
    correction 1, False means 0. (reduce_mean, elementwise_sub, square, reduce_sum, scale.)

    Example:
        >>> pyir.var(x, axis=1, unbiased=False)
    """
    need_tensor(x, "var")
    if unbiased is not None:
        correction = 1 if unbiased else 0
    x = to_float(x)
    dims = axis_list(x, axis, "var")
    center = apply_out("reduce_mean", {"X": x}, reduce_attrs(x, axis, True, "var"),
                       stem="mean")
    spread = apply_out("square", {"X": apply_out("elementwise_sub", {"X": x, "Y": center},
                                                 {"axis": -1})})
    total = apply_out("reduce_sum", {"X": spread}, reduce_attrs(x, axis, keepdim, "var"),
                      stem="sum")
    count = _count_over(x, dims)
    if isinstance(count, numbers.Number):
        divisor = float(np.maximum(count - correction, 0))
        with np.errstate(divide="ignore"):
            factor = float(np.float64(1.0) / divisor) if divisor else float("inf")
        result = apply_out("scale", {"X": total}, {"scale": factor, "bias": 0.0,
                                                   "bias_after_scale": True}, name=name)
    else:
        shifted = apply_out("scale", {"X": count}, {"scale": 1.0, "bias": -float(correction)})
        divisor = apply_out("elementwise_max", {"X": shifted, "Y": scalar_like(x, 0.0)},
                            {"axis": -1})
        if not keepdim:
            divisor = apply_out("reshape2", {"X": divisor}, {"shape": list(total.shape)})
        result = apply_out("elementwise_div", {"X": total, "Y": divisor}, {"axis": -1},
                           name=name)
    return into(result, out)


def std(x, axis=None, unbiased: bool = True, keepdim: bool = False, name: str | None = None):
    """Standard deviation over `axis`: sqrt(var) (unbiased: divide by N - 1).

    Example:
        >>> pyir.std(x, axis=0)
    """
    return apply_out("sqrt", {"X": var(x, axis, unbiased, keepdim)}, name=name)


# --- median ------------------------------------------------------------------------------------
def _median_axis(x, axis, fn):
    """(x, axis, flattened): axis None flattens x to 1-D."""
    if axis is None:
        if ndim(x) > 1:
            x = apply_out("flatten_contiguous_range", {"X": x},
                          {"start_axis": 0, "stop_axis": ndim(x) - 1}, stem="flatten")
        elif ndim(x) == 0:
            x = apply_out("reshape2", {"X": x}, {"shape": [1]})
        return x, 0, True
    if not isinstance(axis, numbers.Integral):
        raise BuildError(f"axis must be an int or None, got {axis!r}", Where(op_type=fn))
    return x, one_axis(x, axis, fn) % ndim(x), False


def _slice_at(x, axis, start):
    return apply_out("slice", {"Input": x}, {"axes": [axis], "starts": [start],
                                             "ends": [start + 1], "infer_flags": [1],
                                             "decrease_axis": []})


def median(x, axis=None, keepdim: bool = False, mode: str = "avg", name: str | None = None,
           *, out=None):  # noqa: A002
    """Median over `axis` (None: all elements), NaN if the slice holds a NaN. mode 'avg'
    averages the two middle values (result in float32/float64); 'min' takes the lower one
    and, for an explicit axis, also returns its index. Built from top_k_v2 (smallest k),
    slice and reduce ops.

    Example:
        >>> pyir.median(x, axis=1)
    """
    need_tensor(x, "median")
    if mode not in ("avg", "min"):
        raise BuildError(f"mode must be 'avg' or 'min', got {mode!r}", Where(op_type="median"))
    x, axis, flattened = _median_axis(x, axis, "median")
    size = x.shape[axis]
    if size is None or size <= 0:
        raise BuildError(f"median needs a known, non-empty length along axis {axis}",
                         Where(op_type="median"))
    kth = (size - 1) // 2 if mode == "min" else size // 2
    top = apply_op("top_k_v2", {"X": x}, {"k": kth + 1, "axis": axis, "largest": False,
                                          "sorted": True})
    values, indices = top["Out"], top["Indices"]
    float_type = dtype_of(x) if dtype_of(x) in FLOAT_TYPES else np.dtype(np.float32)
    if mode == "avg" and size % 2 == 0:
        pair = apply_out("elementwise_add", {"X": _slice_at(values, axis, kth - 1),
                                             "Y": _slice_at(values, axis, kth)}, {"axis": -1})
        middle = apply_out("scale", {"X": cast(pair, float_type)}, {"scale": 0.5})
    else:
        middle = cast(_slice_at(values, axis, kth), float_type if mode == "avg" else
                      dtype_of(x))
    if dtype_of(x) in FLOAT_TYPES:  # a NaN anywhere in the slice makes the median NaN
        nan_mask = apply_out("isnan_v2", {"X": x})
        has_nan = apply_out("reduce_any", {"X": nan_mask},
                            {"dim": [axis], "keep_dim": True, "reduce_all": False})
        middle = where(has_nan, filled_like(middle, np.nan), middle)
    keep = keepdim and not flattened
    result = middle if keep else apply_out("squeeze2", {"X": middle},
                                           {"axes": [] if flattened else [axis]},
                                           name=name)
    if mode == "min" and not flattened:  # Paddle returns no index for axis=None
        index = _slice_at(indices, axis, kth)
        index = index if keep else apply_out("squeeze2", {"X": index},
                                             {"axes": [] if flattened else [axis]})
        return into(result, out), index
    return into(result, out)


def nanmedian(x, axis=None, keepdim: bool = False, mode: str = "avg",
              name: str | None = None):
    """Median over `axis` ignoring NaN (op `nanmedian`); NaN where a slice is all NaN. mode
    'min' takes the lower middle value and also returns its index.

    Example:
        >>> pyir.nanmedian(x, axis=[0, 1])
    """
    need_tensor(x, "nanmedian")
    if mode not in ("avg", "min"):
        raise BuildError(f"mode must be 'avg' or 'min', got {mode!r}",
                         Where(op_type="nanmedian"))
    dims = axis_list(x, axis, "nanmedian")
    result = apply_op("nanmedian", {"X": x}, {"axis": dims, "keepdim": bool(keepdim),
                                              "mode": mode}, name=name)
    if mode == "min":
        return result["Out"], result["MedianIndex"]
    return result["Out"]


# --- quantile ----------------------------------------------------------------------------------
_INTERPOLATIONS = ("linear", "lower", "higher", "nearest", "midpoint")


def _quantile(x, q, axis, keepdim, interpolation, ignore_nan, fn, name=None):
    need_tensor(x, fn)
    if interpolation not in _INTERPOLATIONS:
        raise BuildError(f"interpolation must be one of {', '.join(_INTERPOLATIONS)}, got "
                         f"{interpolation!r}", Where(op_type=fn))
    if isinstance(q, Tensor):
        q = np.asarray(q.numpy()).tolist()
    qs = [q] if isinstance(q, numbers.Number) else list(q) if isinstance(q, (list, tuple)) \
        else None
    if not qs or not all(isinstance(v, numbers.Number) and 0 <= v <= 1 for v in qs):
        raise BuildError(f"q must be a number or a non-empty list of numbers in [0, 1], got "
                         f"{q!r}", Where(op_type=fn))
    x = to_float(x)
    shape = list(x.shape)
    dims = sorted({d % max(ndim(x), 1) for d in axis_list(x, axis, fn)}) if axis is not None \
        else list(range(ndim(x)))
    if axis is not None and not dims:
        raise BuildError("axis must not be empty", Where(op_type=fn))
    kept = [d for d in range(ndim(x)) if d not in dims]
    length = reduced_count(x, dims)
    if not length:
        raise BuildError("quantile needs a known, non-empty length along axis",
                         Where(op_type=fn))
    if kept + dims != list(range(ndim(x))):
        x = apply_out("transpose2", {"X": x}, {"axis": kept + dims})
    x = apply_out("reshape2", {"X": x}, {"shape": [0] * len(kept) + [length]})
    last_axis = len(kept)
    ordered = apply_op("argsort", {"X": x}, {"axis": last_axis, "descending": False})["Out"]
    nan_mask = apply_out("isnan_v2", {"X": x})
    flags = {"dim": [last_axis], "keep_dim": True, "reduce_all": False}
    valid = apply_out("reduce_sum", {"X": cast(apply_out("logical_not", {"X": nan_mask}),
                                               dtype_of(x))}, flags)
    if ignore_nan:  # positions among the valid (sorted first) values; NaN if none
        top = apply_out("elementwise_max", {
            "X": apply_out("scale", {"X": valid}, {"scale": 1.0, "bias": -1.0}),
            "Y": scalar_like(x, 0.0)}, {"axis": -1})
        undefined = apply_out("equal", {"X": valid, "Y": scalar_like(x, 0.0)})
    else:  # NaN where the slice holds one
        undefined = apply_out("reduce_any", {"X": nan_mask}, flags)
    results = []
    for value in qs:  # Paddle's `where` needs equal shapes: mask each [..., 1] pick
        if ignore_nan:
            position = apply_out("scale", {"X": top}, {"scale": float(value)})
        else:
            position = filled_like(valid, float(value) * (length - 1))
        pick = _pick(ordered, position, last_axis, interpolation)
        results.append(where(undefined, filled_like(pick, np.nan), pick))
    result = apply_out("concat", {"X": results}, {"axis": last_axis}) if len(results) > 1 \
        else results[0]
    target = [1 if d in dims else n for d, n in enumerate(shape)] if keepdim else \
        [n for d, n in enumerate(shape) if d not in dims]
    if len(qs) > 1:
        perm = [last_axis] + list(range(last_axis))
        result = apply_out("transpose2", {"X": result}, {"axis": perm})
        target = [len(qs)] + target
    if sum(1 for n in target if n is None or n < 0) > 1:
        raise BuildError("quantile supports at most one unknown dim", Where(op_type=fn))
    return apply_out("reshape2", {"X": result}, {"shape": [-1 if n is None or n < 0 else n
                                                            for n in target]}, name=name)


def _pick(ordered, position, axis, interpolation):
    """The value at fractional `position` of the sorted slice, per `interpolation`."""
    below = apply_out("floor", {"X": position})
    above = apply_out("ceil", {"X": position})
    if interpolation == "lower":
        return _take(ordered, below, axis)
    if interpolation == "higher":
        return _take(ordered, above, axis)
    if interpolation == "nearest":
        return _take(ordered, apply_out("round", {"X": position}, {"decimals": 0}), axis)
    low, high = _take(ordered, below, axis), _take(ordered, above, axis)
    if interpolation == "midpoint":
        weight = filled_like(low, 0.5)
    else:
        weight = apply_out("elementwise_sub", {"X": position, "Y": below}, {"axis": -1})
    return apply_out("lerp", {"X": low, "Y": high, "Weight": weight})


def _take(ordered, position, axis):
    index = cast(position, "int64")
    return apply_out("take_along_axis", {"Input": ordered, "Index": index},
                     {"Axis": axis}, slot="Result")


def quantile(x, q, axis=None, keepdim: bool = False, interpolation: str = "linear",
             name: str | None = None, *, out=None):  # noqa: A002
    """The q-th quantile(s) over `axis` (NaN if a slice holds NaN); interpolation linear,
    lower, higher, nearest or midpoint. Several q stack on a new first axis.

    Example:
        >>> pyir.quantile(x, [0.25, 0.75], axis=1)
    """
    return into(_quantile(x, q, axis, keepdim, interpolation, False, "quantile", name), out)


def nanquantile(x, q, axis=None, keepdim: bool = False, interpolation: str = "linear"):
    """`quantile` ignoring NaN (NaN only where a slice is all NaN).

    Example:
        >>> pyir.nanquantile(x, 0.5, axis=0)
    """
    return _quantile(x, q, axis, keepdim, interpolation, True, "nanquantile")
