"""How a Tensor prints: Paddle's layout of values (8 decimals, aligned items, "..." past
1000 elements)."""

from __future__ import annotations

import numpy as np

_EDGE, _THRESHOLD, _INDENT = 3, 1000, 7


def format_value(value: np.ndarray) -> str:
    """Paddle's tensor body: 8 decimals ("1." for whole floats), items padded to one width,
    a sign column when any item is negative, "..." past 1000 elements."""
    summarize = value.size > _THRESHOLD
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
    for axis in range(value.ndim):
        if value.shape[axis] > 2 * _EDGE:
            index = list(range(_EDGE)) + list(range(value.shape[axis] - _EDGE,
                                                    value.shape[axis]))
            value = np.take(value, index, axis=axis)
    return value


def _item(v, signed: bool) -> str:
    if isinstance(v, (np.floating, float)):
        text = "nan" if np.isnan(v) else f"{v:.0f}." if np.isfinite(v) and v == np.floor(v) \
            else f"{v:.8f}"
    else:
        text = str(v)
    return " " + text if signed and not text.startswith("-") else text


def _nested(value: np.ndarray, summarize: bool, items, depth: int) -> str:
    n = value.shape[0]
    cut = summarize and n > 2 * _EDGE
    rows = list(range(_EDGE)) + [None] + list(range(n - _EDGE, n)) if cut else list(range(n))
    if value.ndim == 1:
        return "[" + ", ".join("..." if i is None else next(items) for i in rows) + "]"
    gap = ",\n" + "\n" * (value.ndim - 2) + " " * (_INDENT + depth + 1)
    parts = ["..." if i is None else _nested(value[i], summarize, items, depth + 1)
             for i in rows]
    return "[" + gap.join(parts) + "]"
