"""The one place op modules are imported: after `import pyir.ops` the registry is complete.

Each family module registers its ops (forward and `_grad` together) when imported.
"""

from ..errors import PyirError
from ..registry import OPS
from . import (activation, compare, creation, elementwise, gather, linalg,  # noqa: F401
               manipulation, math, nn, optimizer, ordering, py_func, pylayer, reduce, rnn,
               slicing, tensor, unary_math)
from . import activation_ext, conv, norm, pool, shape_ext  # noqa: F401  (CNN ops)
from . import linalg_ext, manip_ext, math_ext, nn_ext, search_ext  # noqa: F401
from . import control_flow, init_ext, optimizer_ext  # noqa: F401


def _validate_registry() -> None:
    """Cross-op checks that need every op registered: grad_of names a registered op."""
    for opdef in OPS.values():
        if opdef.grad_of is not None and opdef.grad_of not in OPS:
            raise PyirError(f"op {opdef.type!r} says it is the gradient of unknown op "
                            f"{opdef.grad_of!r}")


_validate_registry()
