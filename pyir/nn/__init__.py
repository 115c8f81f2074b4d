"""pyir.nn: layers (`Linear`), losses (`CrossEntropyLoss`) and `functional`."""

from . import functional, loss  # noqa: F401
from .layer import Layer, Linear
from .loss import CrossEntropyLoss

__all__ = ["Layer", "Linear", "CrossEntropyLoss", "functional", "loss"]
