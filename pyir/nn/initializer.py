"""`pyir.nn.initializer`: Paddle's parameter initializers (see pyir/initializers.py)."""

from ..initializers import *  # noqa: F401,F403
from ..initializers import __all__  # noqa: F401
