"""paddle.vision for pyir: the detection and OCR ops of `paddle.vision.ops`, `LeNet` in
`paddle.vision.models`, and the array transforms of `paddle.vision.transforms`.

Example:
    >>> from pyir.vision import ops
"""

from . import models, ops, transforms
from .models import LeNet  # noqa: F401

__all__ = ["ops", "models", "transforms", "LeNet"]
