"""Activations of `paddle.nn.functional` (relu, softmax, ...), static and eager alike."""

from __future__ import annotations

from ... import dtypes
from ...dispatch import out as _out
from ...framework import unique_name

__all__ = ["relu", "softmax", "log_softmax"]

# Paddle names of this family pyir leaves out, with the reason (pyir/unsupported.py).
UNSUPPORTED: dict[str, str] = {}


def relu(x, name: str | None = None):
    """max(x, 0) (op `relu`).

    Example:
        >>> h = pyir.nn.functional.relu(x)   # relu_0.tmp_0
    """
    return _out("relu", {"X": x}, name=name)


def _softmax_like(op_type: str, x, axis: int, dtype, name):
    """`op_type` on x (cast to `dtype` first, inside the same name scope, as Paddle does)."""
    helper = name
    if dtype is not None and dtypes.to_numpy(dtype) != x.dtype:
        helper = name or unique_name.generate(op_type)
        x = _out("cast", {"X": x}, {"in_dtype": dtypes.to_code(x.dtype),
                                    "out_dtype": dtypes.to_code(dtypes.to_numpy(dtype))},
                 name=helper)
    return _out(op_type, {"X": x}, {"axis": int(axis)}, name=helper)


def softmax(x, axis: int = -1, dtype=None, name: str | None = None):
    """exp(x) / sum(exp(x)) along `axis` (op `softmax`; x is cast to `dtype` first if given).

    Example:
        >>> p = pyir.nn.functional.softmax(logits, axis=-1)
    """
    return _softmax_like("softmax", x, axis, dtype, name)


def log_softmax(x, axis: int = -1, dtype=None, name: str | None = None):
    """log(softmax(x)) along `axis` (op `log_softmax`).

    Example:
        >>> logp = pyir.nn.functional.log_softmax(logits)
    """
    return _softmax_like("log_softmax", x, axis, dtype, name)
