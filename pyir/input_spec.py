"""`InputSpec`: the shape, dtype and name of a program input (Paddle's
`paddle.static.InputSpec`, which `paddle.jit.save` also takes)."""

from __future__ import annotations

import numpy as np

from . import dtypes
from .errors import PyirError


class InputSpec:
    """Describes one input: `shape` (None or -1 for a free dim), `dtype`, `name`.

    Example:
        >>> spec = pyir.static.InputSpec([None, 784], "float32", "x")
    """

    def __init__(self, shape, dtype="float32", name: str | None = None,
                 stop_gradient: bool = False):
        if isinstance(shape, int):
            shape = [shape]
        if not isinstance(shape, (list, tuple)):
            raise PyirError(f"InputSpec shape must be a list or tuple, got {shape!r}")
        self.shape = tuple(-1 if d is None else int(d) for d in shape)
        self.dtype = dtypes.to_numpy(dtype)
        self.name = name
        self.stop_gradient = stop_gradient

    @classmethod
    def from_tensor(cls, tensor, name: str | None = None) -> "InputSpec":
        return cls(list(tensor.shape), tensor.dtype, name or getattr(tensor, "name", None))

    @classmethod
    def from_numpy(cls, ndarray, name: str | None = None) -> "InputSpec":
        array = np.asarray(ndarray)
        return cls(list(array.shape), array.dtype, name)

    def batch(self, batch_size) -> "InputSpec":
        """This spec with a leading batch dim."""
        size = batch_size[0] if isinstance(batch_size, (list, tuple)) else batch_size
        return InputSpec([size, *self.shape], self.dtype, self.name, self.stop_gradient)

    def unbatch(self) -> "InputSpec":
        """This spec without its leading dim."""
        if not self.shape:
            raise PyirError("unbatch() needs an InputSpec with at least one dim")
        return InputSpec(list(self.shape[1:]), self.dtype, self.name, self.stop_gradient)

    def __eq__(self, other) -> bool:
        return isinstance(other, InputSpec) and (self.shape, self.dtype, self.name) == (
            other.shape, other.dtype, other.name)

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype, self.name))

    def __repr__(self) -> str:
        return (f"InputSpec(shape={self.shape}, dtype={dtypes.name_of(self.dtype)}, "
                f"name={self.name}, stop_gradient={self.stop_gradient})")
