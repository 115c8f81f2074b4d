"""Shapes and layout: `pyir.reshape`, `pyir.concat`, `pyir.gather`, `pyir.scatter`, ...
(Paddle's `paddle.tensor.manipulation`), gathered from the modules of this family:
`manip_shape` (reshape, transpose, cast, assign), `manip_layout` (expand, tile, flip, facts),
`manip_join` (concat, split, slice), `manip_index` (gathers, scatters, masks) and `manip_more`
(unique, block_diag, tensordot); the in-place
variants (`reshape_`, `scatter_`, ...) are made here.

Each function is one `dispatch.out` call (or a few), static and eager alike, emitting the
legacy ops Paddle's static mode emits for the same call.
"""

from __future__ import annotations

from ..dispatch import inplace_of
from ..framework import Variable
from ..unsupported import COMPLEX
from . import manip_index, manip_join, manip_layout, manip_more, manip_shape
from .manip_index import *  # noqa: F401,F403
from .manip_join import *  # noqa: F401,F403
from .manip_layout import *  # noqa: F401,F403
from .manip_more import *  # noqa: F401,F403
from .manip_shape import *  # noqa: F401,F403
from .manip_shape import (cast, flatten, reshape, signed_like, squeeze, t, transpose,
                          unsqueeze)

STRIDED_VIEW = ("a view of memory with arbitrary strides has no meaning for pyir's numpy values "
                "(Paddle itself has it in dynamic mode only); use reshape, slice or gather")

# Paddle names of this family pyir leaves out, with the reason (pyir/unsupported.py).
UNSUPPORTED: dict[str, str] = {
    "as_strided": STRIDED_VIEW, "as_complex": COMPLEX, "as_real": COMPLEX,
    "view_as_complex": COMPLEX, "view_as_real": COMPLEX,
}


# --- in-place variants ------------------------------------------------------------------------
def _reshaping_inplace(fn, public_name: str):
    """An in-place variant that changes x's shape or dtype. Paddle's static mode emits the
    out-of-place op for it (a new variable: a Variable's shape is fixed), its dynamic mode
    rewrites x; eager tensors here are rewritten through `inplace_of`."""
    eager_inplace = inplace_of(fn, public_name)

    def inplace(x, *args, **kwargs):
        if isinstance(x, Variable):
            return fn(x, *args, **kwargs)
        return eager_inplace(x, *args, **kwargs)

    signed_like(inplace, fn)
    inplace.__name__ = inplace.__qualname__ = public_name
    inplace.__doc__ = (f"In-place `{fn.__name__}` (static mode: the out-of-place op, as "
                       f"Paddle emits).\n\n    Example:\n        >>> x.{public_name}(...)\n")
    return inplace


reshape_ = _reshaping_inplace(reshape, "reshape_")
flatten_ = _reshaping_inplace(flatten, "flatten_")
squeeze_ = _reshaping_inplace(squeeze, "squeeze_")
unsqueeze_ = _reshaping_inplace(unsqueeze, "unsqueeze_")
transpose_ = _reshaping_inplace(transpose, "transpose_")
t_ = _reshaping_inplace(t, "t_")
cast_ = _reshaping_inplace(cast, "cast_")

# In-place variants that keep x's shape: static mode writes the result back into x (op
# assign), as Paddle's in-place ops do.
for _name in manip_index.INPLACE:
    _fn = getattr(manip_index, _name[:-1])
    globals()[_name] = signed_like(inplace_of(_fn, _name), _fn)


__all__ = [
    *manip_shape.__all__, *manip_layout.__all__, *manip_join.__all__, *manip_index.__all__,
    *manip_more.__all__, "reshape_", "flatten_", "squeeze_", "unsqueeze_", "transpose_", "t_",
    "cast_",
    *manip_index.INPLACE,
]
