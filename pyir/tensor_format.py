"""How a Tensor prints: Paddle's layout of values (8 decimals, aligned items, "..." past
1000 elements)."""

from __future__ import annotations

import numpy as np

from .errors import PyirError

_INDENT = 7
# Paddle's defaults; set_printoptions changes them.
_OPTIONS = {"precision": 8, "threshold": 1000, "edgeitems": 3, "sci_mode": False,
            "linewidth": 80}


def set_printoptions(precision: int | None = None, threshold: int | None = None,
                     edgeitems: int | None = None, sci_mode: bool | None = None,
                     linewidth: int | None = None) -> None:
    """How Tensors print: decimals, the element count past which "..." elides, the items
    kept at each edge then, scientific notation. None keeps a setting.

    Example:
        >>> pyir.set_printoptions(precision=4)
    """
    given = {"precision": precision, "threshold": threshold, "edgeitems": edgeitems,
             "linewidth": linewidth}
    for key, value in given.items():
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise PyirError(f"set_printoptions: {key} must be a non-negative int, got "
                            f"{value!r}")
        _OPTIONS[key] = value
    if sci_mode is not None:
        _OPTIONS["sci_mode"] = bool(sci_mode)


def format_value(value: np.ndarray) -> str:
    """Paddle's tensor body: 8 decimals ("1." for whole floats), items padded to one width,
    a sign column when any item is negative, "..." past 1000 elements."""
    summarize = value.size > _OPTIONS["threshold"]
    shown = _shown(value, summarize).ravel()
    signed = value.dtype.kind in "fi" and bool(np.any(shown < 0))
    items = [_item(v, signed) for v in shown]
    if value.ndim == 0:
        return items[0].strip() if not signed else items[0]
    width = max(len(t) for t in items)
    return _nested(value, summarize, iter(t.ljust(width) for t in items), 0)


def _shown(value: np.ndarray, summarize: bool) -> np.ndarray:
    """The elements that are printed (edges only, when summarizing), in print order."""
    if not summarize or value.ndim == 0:
        return value
    edge = _OPTIONS["edgeitems"]
    for axis in range(value.ndim):
        if value.shape[axis] > 2 * edge:
            index = list(range(edge)) + list(range(value.shape[axis] - edge,
                                                    value.shape[axis]))
            value = np.take(value, index, axis=axis)
    return value


def _item(v, signed: bool) -> str:
    if isinstance(v, (np.floating, float)):
        digits = _OPTIONS["precision"]
        if np.isnan(v):
            text = "nan"
        elif _OPTIONS["sci_mode"]:
            text = f"{v:.{digits}e}"
        elif np.isfinite(v) and v == np.floor(v):
            text = f"{v:.0f}."
        else:
            text = f"{v:.{digits}f}"
    else:
        text = str(v)
    return " " + text if signed and not text.startswith("-") else text


def _nested(value: np.ndarray, summarize: bool, items, depth: int) -> str:
    n, edge = value.shape[0], _OPTIONS["edgeitems"]
    cut = summarize and n > 2 * edge
    rows = list(range(edge)) + [None] + list(range(n - edge, n)) if cut else list(range(n))
    if value.ndim == 1:
        return "[" + ", ".join("..." if i is None else next(items) for i in rows) + "]"
    gap = ",\n" + "\n" * (value.ndim - 2) + " " * (_INDENT + depth + 1)
    parts = ["..." if i is None else _nested(value[i], summarize, items, depth + 1)
             for i in rows]
    return "[" + gap.join(parts) + "]"
