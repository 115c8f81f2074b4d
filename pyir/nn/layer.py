"""`Layer` and `Linear` (kept here for `from pyir.nn.layer import ...`); the layers live in
layer_base.py and layers_*.py."""

from .layer_base import Layer
from .layers_common import Linear

__all__ = ["Layer", "Linear"]
