"""Histograms, counting and combinatorics, covariance: `pyir.histogram`, `pyir.bincount`,
`pyir.cartesian_prod`, `pyir.combinations`, `pyir.block_diag`, `pyir.linalg.cov`, ...
(exported through pyir/tensor/linalg.py)."""

from __future__ import annotations

import itertools
import numbers

import numpy as np

from .. import dispatch, dtypes
from ..dispatch import dtype_of, ndim, tensor_list
from ..eager import Tensor
from ..framework import Variable
from ._linalg_common import binary, constant_tensor, full_tensor, refuse
from .manipulation import cast, concat, gather, reshape, slice as slice_axes, squeeze, stack, \
    transpose
from .math import max as reduce_max, min as reduce_min, sum as reduce_sum

__all__ = [
    "histogram", "histogram_bin_edges", "histogramdd", "bincount", "cartesian_prod",
    "combinations", "block_diag", "cov", "corrcoef",
]


# --- histograms -----------------------------------------------------------------------------------
def _check_bins(bins, lo, hi, function):
    if not isinstance(bins, numbers.Integral) or bins < 1:
        refuse(function, f"bins must be a positive int, got {bins!r}")
    if lo > hi:
        refuse(function, f"max ({hi}) must not be less than min ({lo})")


def histogram(input, bins: int = 100, min: float = 0.0, max: float = 0.0,  # noqa: A002
              weight=None, density: bool = False, name: str | None = None):
    """Counts (or weight sums) of input in `bins` equal bins over [min, max], input's range
    when both are 0; values outside are dropped (op `histogram`). int64 counts, float32
    with weight or density.

    Example:
        >>> counts = pyir.histogram(x, bins=10, min=0.0, max=1.0)
    """
    _check_bins(bins, min, max, "histogram")
    if weight is not None and list(weight.shape) != list(input.shape):
        refuse("histogram", f"weight {list(weight.shape)} must have input's shape "
                             f"{list(input.shape)}")
    return dispatch.out("histogram", {"X": input, "Weight": weight},
                        {"bins": int(bins), "min": float(min), "max": float(max),
                         "density": bool(density)}, name=name)


def _range_tensors(x, lo: float, hi: float):
    """[lo], [hi] as float32 tensors: x's min and max when both are 0, widened by 0.5 when
    equal (reduce_min / reduce_max and elementwise ops)."""
    if lo != 0 or hi != 0:
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        return full_tensor([1], lo, "float32", x), full_tensor([1], hi, "float32", x)
    flat = cast(reshape(x, [-1]), "float32")
    low, high = reduce_min(flat, 0, keepdim=True), reduce_max(flat, 0, keepdim=True)
    same = cast(dispatch.out("equal", {"X": low, "Y": high}, {"axis": -1}), "float32")
    half = dispatch.out("scale", {"X": same}, {"scale": 0.5, "bias": 0.0})
    return binary("sub", low, half), binary("add", high, half)


def histogram_bin_edges(input, bins: int = 100, min: float = 0.0,  # noqa: A002
                        max: float = 0.0, name: str | None = None):
    """The bins + 1 edges histogram() uses (op `linspace` over [min, max], input's range
    when both are 0; widened by 0.5 each side when empty).

    Example:
        >>> edges = pyir.histogram_bin_edges(x, bins=4)
    """
    _check_bins(bins, min, max, "histogram_bin_edges")
    lo, hi = _range_tensors(input, float(min), float(max))
    count = full_tensor([1], bins + 1, "int32", input)
    return dispatch.out("linspace", {"Start": lo, "Stop": hi, "Num": count}, {"dtype": 5},
                        name=name)


def _dims_bins(bins, dims: int, function: str):
    """The bin count (int) or the edges tensor of each of `dims` dims."""
    if isinstance(bins, numbers.Integral):
        bins = [bins] * dims
    bins = list(bins)
    if len(bins) != dims:
        refuse(function, f"bins needs one entry per dim ({dims}), got {len(bins)}")
    for b in bins:
        if not isinstance(b, (numbers.Integral, Variable, Tensor)) or \
                isinstance(b, numbers.Integral) and b < 1:
            refuse(function, f"bins must be positive ints or edge tensors, got {b!r}")
    return bins


def histogramdd(x, bins=10, ranges=None, density: bool = False, weights=None,
                name: str | None = None):
    """The D-dimensional histogram of the points x [..., D]: the counts [b_0, ..., b_D-1]
    and the edges of each dim (searchsorted + bincount per point).

    Args:
        bins: an int, one int per dim, or one edges tensor per dim.
        ranges: [lo_0, hi_0, lo_1, hi_1, ...] (default: each dim's min and max).

    Example:
        >>> hist, edges = pyir.histogramdd(points, bins=[2, 3])
    """
    if ndim(x) < 1:
        refuse("histogramdd", "x must have a last dim holding the coordinates")
    dims = x.shape[-1]
    if dims < 0:
        refuse("histogramdd", "x's last dim (the coordinates) must be known")
    bins = _dims_bins(bins, dims, "histogramdd")
    if ranges is not None and len(ranges) != 2 * dims:
        refuse("histogramdd", f"ranges needs 2 values per dim ({2 * dims}), got {len(ranges)}")
    points = cast(reshape(x, [-1, dims]), "float32") if dtype_of(x) != np.float64 \
        else reshape(x, [-1, dims])
    dtype = dtype_of(points)
    edges, sizes = [], []
    flat_index, inside = None, None
    for d, b in enumerate(bins):
        column = squeeze(slice_axes(points, [1], [d], [d + 1]), [1])
        if isinstance(b, (Variable, Tensor)):
            edge = cast(b, dtype) if dtype_of(b) != dtype else b
            size = b.shape[0] - 1
        else:
            if ranges is not None:
                lo = full_tensor([1], ranges[2 * d], dtype, x)
                hi = full_tensor([1], ranges[2 * d + 1], dtype, x)
            else:
                lo, hi = reduce_min(column, 0, keepdim=True), reduce_max(column, 0, keepdim=True)
            edge = dispatch.out("linspace", {"Start": lo, "Stop": hi,
                                             "Num": full_tensor([1], b + 1, "int32", x)},
                                {"dtype": dtypes.to_code(dtype)})
            size = b
        edges.append(edge)
        sizes.append(size)
        # bin = (number of edges <= value) - 1; the last edge closes the last bin.
        position = dispatch.out("searchsorted", {"SortedSequence": edge, "Values": column},
                                {"out_int32": False, "right": True})
        last = slice_axes(edge, [0], [size], [size + 1])
        at_end = cast(dispatch.out("equal", {"X": column, "Y": last}, {"axis": -1}), "int64")
        bin_index = binary("sub", binary("sub", position, full_tensor([1], 1, "int64", x)), at_end)
        lowest, count = full_tensor([1], 0, "int64", x), full_tensor([1], size, "int64", x)
        ok = dispatch.out("logical_and", {
            "X": dispatch.out("greater_equal", {"X": bin_index, "Y": lowest}, {"axis": -1}),
            "Y": dispatch.out("less_than", {"X": bin_index, "Y": count}, {"axis": -1})})
        inside = ok if inside is None else dispatch.out("logical_and", {"X": inside, "Y": ok})
        clipped = dispatch.out("clip", {"X": bin_index}, {"min": 0.0, "max": float(size - 1)})
        flat_index = clipped if flat_index is None else binary(
            "add", dispatch.out("scale", {"X": flat_index}, {"scale": float(size), "bias": 0.0}),
            clipped)
    weight = cast(inside, dtype)
    if weights is not None:
        weight = binary("mul", weight, cast(reshape(weights, [-1]), dtype))
    total = int(np.prod(sizes))
    counts = dispatch.out("bincount", {"X": flat_index, "Weights": weight},
                          {"minlength": total})
    hist = reshape(slice_axes(counts, [0], [0], [total]), sizes)
    if density:
        volume = None
        for d, edge in enumerate(edges):
            widths = binary("sub", slice_axes(edge, [0], [1], [sizes[d] + 1]),
                             slice_axes(edge, [0], [0], [sizes[d]]))
            shape = [1] * dims
            shape[d] = sizes[d]
            widths = reshape(widths, shape)
            volume = widths if volume is None else binary("mul", volume, widths)
        hist = binary("div", hist, binary("mul", volume, reduce_sum(hist)))
    return hist, edges


def bincount(x, weights=None, minlength: int = 0, name: str | None = None):
    """How often each value 0, 1, ... occurs in the 1-D non-negative int x (or the sum of
    its weights), at least minlength entries (op `bincount`).

    Example:
        >>> counts = pyir.bincount(labels, minlength=10)
    """
    if ndim(x) != 1 or dtype_of(x).kind not in "iu":
        refuse("bincount", f"x must be a 1-D integer tensor, got {dtypes.name_of(dtype_of(x))} "
                            f"of shape {list(x.shape)}")
    if not isinstance(minlength, numbers.Integral) or minlength < 0:
        refuse("bincount", f"minlength must be a non-negative int, got {minlength!r}")
    if weights is not None and list(weights.shape) != list(x.shape):
        refuse("bincount", f"weights {list(weights.shape)} must have x's shape "
                            f"{list(x.shape)}")
    return dispatch.out("bincount", {"X": x, "Weights": weights}, {"minlength": int(minlength)},
                        name=name)


# --- combinatorics --------------------------------------------------------------------------------
def cartesian_prod(x, name: str | None = None):
    """All tuples of one element from each 1-D tensor, [prod(sizes), len(x)] (meshgrid,
    stack, reshape2); one tensor is returned as it is.

    Example:
        >>> pairs = pyir.cartesian_prod([a, b])
    """
    tensors = tensor_list(x, "cartesian_prod")
    for t in tensors:
        if ndim(t) != 1:
            refuse("cartesian_prod", f"every tensor must be 1-D, got {ndim(t)}-D")
    if len(tensors) == 1:
        return tensors[0]
    grids = dispatch.out("meshgrid", {"X": tensors})
    return reshape(stack(grids, axis=-1), [-1, len(tensors)], name=name)


def combinations(x, r: int = 2, with_replacement: bool = False, name: str | None = None):
    """All length-r combinations of the elements of 1-D x, in lexicographic order of
    position: [count, r] (gather per position, stack).

    Example:
        >>> pairs = pyir.combinations(x, 2)
    """
    if ndim(x) != 1 or x.shape[0] < 0:
        refuse("combinations", f"x must be 1-D with a known size, got shape {list(x.shape)}")
    if not isinstance(r, numbers.Integral) or r < 0:
        refuse("combinations", f"r must be a non-negative int, got {r!r}")
    if r == 0:
        return full_tensor([0], 0, dtype_of(x), x)
    pick = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    index = np.array(list(pick(range(x.shape[0]), r)), np.int64).reshape(-1, r)
    columns = [gather(x, constant_tensor(index[:, k], x)) for k in range(r)]
    return stack(columns, axis=1, name=name)


def block_diag(inputs, name: str | None = None):
    """The block diagonal matrix of the tensors (0-D and 1-D ones as a row), zeros elsewhere
    (fill_constant, concat).

    Example:
        >>> m = pyir.block_diag([a, b])
    """
    blocks = []
    for t in tensor_list(inputs, "block_diag"):
        if ndim(t) > 2:
            refuse("block_diag", f"every tensor must be at most 2-D, got {ndim(t)}-D")
        blocks.append(reshape(t, [1, -1]) if ndim(t) < 2 else t)
    dtype = dtype_of(blocks[0])
    for b in blocks:
        if -1 in b.shape:
            refuse("block_diag", "every tensor needs a known shape")
    rows = []
    for i, b in enumerate(blocks):
        pieces = [b if j == i else full_tensor([b.shape[0], o.shape[1]], 0, dtype, b)
                  for j, o in enumerate(blocks)]
        pieces = [cast(p, dtype) if dtype_of(p) != dtype else p for p in pieces]
        rows.append(concat(pieces, axis=1) if len(pieces) > 1 else pieces[0])
    return concat(rows, axis=0, name=name) if len(rows) > 1 else rows[0]


# --- covariance -----------------------------------------------------------------------------------
def cov(x, rowvar: bool = True, ddof: bool = True, fweights=None, aweights=None,
        name: str | None = None):
    """The covariance matrix of the variables in x's rows (columns when not rowvar), with
    integer frequency weights and observation weights, as numpy.cov.

    Example:
        >>> c = pyir.linalg.cov(samples)
    """
    if ndim(x) > 2:
        refuse("cov", f"x must be 1-D or 2-D, got {ndim(x)}-D")
    data = reshape(x, [1, -1]) if ndim(x) < 2 else (x if rowvar else transpose(x, [1, 0]))
    n = data.shape[1]
    dtype = dtype_of(data)
    weight = None
    for given, what in ((fweights, "fweights"), (aweights, "aweights")):
        if given is None:
            continue
        if ndim(given) != 1 or (n >= 0 and given.shape[0] >= 0 and given.shape[0] != n):
            refuse("cov", f"{what} must be 1-D with one entry per observation ({n}), got "
                           f"shape {list(given.shape)}")
        if what == "fweights" and dtype_of(given).kind not in "iu":
            refuse("cov", "fweights must be an integer tensor")
        given = cast(given, dtype)
        weight = given if weight is None else binary("mul", weight, given)
    correction = 1.0 if ddof else 0.0
    if weight is None:
        mean = dispatch.out("reduce_mean", {"X": data}, {"dim": [1], "keep_dim": True,
                                                         "reduce_all": False})
        centered = binary("sub", data, mean)
        scale = 1.0 / (n - correction) if n - correction > 0 else float("inf")
        product = dispatch.out("matmul_v2", {"X": centered, "Y": centered},
                               {"trans_x": False, "trans_y": True})
        result = dispatch.out("scale", {"X": product}, {"scale": scale, "bias": 0.0})
    else:
        total = reduce_sum(weight)
        mean = binary("div", reduce_sum(binary("mul", data, weight), 1, keepdim=True), total)
        centered = binary("sub", data, mean)
        if aweights is None or not correction:
            factor = dispatch.out("scale", {"X": total}, {"scale": 1.0, "bias": -correction})
        else:
            spread = binary("div", reduce_sum(binary("mul", weight, cast(aweights, dtype))),
                             total)
            factor = binary("sub", total, spread)
        product = dispatch.out("matmul_v2", {"X": binary("mul", centered, weight),
                                             "Y": centered}, {"trans_x": False, "trans_y": True})
        result = binary("div", product, factor)
    return reshape(result, [], name=name) if ndim(x) < 2 or data.shape[0] == 1 and ndim(x) == 1 \
        else result


def corrcoef(x, rowvar: bool = True, name: str | None = None):
    """Pearson correlation coefficients of the variables in x's rows (columns when not
    rowvar), clipped to [-1, 1], as numpy.corrcoef.

    Example:
        >>> r = pyir.linalg.corrcoef(samples)
    """
    c = cov(x, rowvar)
    if ndim(c) == 0:
        return binary("div", c, c)
    n = c.shape[0]
    diagonal = reduce_sum(binary("mul", c, constant_tensor(np.eye(n, dtype=dtype_of(c)), c)), 1)
    std = dispatch.out("sqrt", {"X": diagonal})
    scaled = binary("div", binary("div", c, reshape(std, [-1, 1])), reshape(std, [1, -1]))
    return dispatch.out("clip", {"X": scaled}, {"min": -1.0, "max": 1.0}, name=name)
