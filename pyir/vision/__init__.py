"""paddle.vision for pyir: the detection and OCR ops of `paddle.vision.ops`.

Example:
    >>> from pyir.vision import ops
"""

from . import ops

__all__ = ["ops"]
