"""`pyir.optimizer`: Paddle's optimizers for static programs (`minimize` appends the update
ops) and eager training (`step()` runs the same op kernels), and the schedulers of
`pyir.optimizer.lr`.

Example:
    >>> opt = pyir.optimizer.Adam(pyir.optimizer.lr.StepDecay(0.1, 10), parameters=params)
    >>> loss.backward(); opt.step(); opt.clear_grad()
"""

from __future__ import annotations

from .. import unsupported as _unsupported
from . import lr
from .adam import Adam, Adamax, AdamW, Lamb, NAdam, RAdam
from .adaptive import Adadelta, Adagrad, RMSProp, Rprop
from .base import Optimizer
from .lbfgs import LBFGS
from .sgd import ASGD, SGD, Momentum

UNSUPPORTED: dict[str, str] = {}

__all__ = ["ASGD", "LBFGS", "SGD", "Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "Lamb",
           "Momentum", "NAdam", "Optimizer", "RAdam", "RMSProp", "Rprop", "lr"]

__getattr__ = _unsupported.module_getattr(__name__, UNSUPPORTED)
