"""Linear algebra: products, norms and distances (`pyir.matmul`, `pyir.norm`, `pyir.cdist`,
...; Paddle's `paddle.tensor.linalg`). `pyir.linalg` re-exports the names Paddle has there.

Norms are in linalg_norms.py, matrix functions and solvers in linalg_matrix.py,
decompositions in linalg_decomp.py, histograms and combinatorics in linalg_misc.py; their
names are exported from here too (pyir/tensor/__init__.py lists this module only).
"""

from __future__ import annotations

import numbers

import numpy as np

from .. import dispatch
from ..dispatch import inplace_of, ndim, tensor_list
from ..eager import Tensor
from ..errors import PyirError
from ..framework import Variable
from ..ops.linalg_ext import einsum_labels
from ._linalg_common import refuse
from .linalg_decomp import *  # noqa: F401,F403
from .linalg_decomp import __all__ as _decomp_names
from .linalg_matrix import *  # noqa: F401,F403
from .linalg_matrix import __all__ as _matrix_names
from .linalg_matrix import UNSUPPORTED as _MATRIX_UNSUPPORTED
from .linalg_misc import *  # noqa: F401,F403
from .linalg_misc import __all__ as _misc_names
from .linalg_norms import *  # noqa: F401,F403
from .linalg_norms import __all__ as _norm_names
from .manipulation import reshape, transpose

__all__ = [
    "matmul", "mm", "bmm", "dot", "mv", "addmm", "addmm_", "baddbmm", "baddbmm_", "einsum",
    "tensordot", "kron", "outer", "inner", "cross", "trace", "vecdot",
    "multi_dot",
] + _norm_names + _matrix_names + _decomp_names + _misc_names

# Paddle names of this family pyir leaves out, with the reason (pyir/unsupported.py).
UNSUPPORTED: dict[str, str] = dict(_MATRIX_UNSUPPORTED)


def _need_ndim(x, allowed, function: str, what: str = "x"):
    if ndim(x) not in allowed:
        refuse(function, f"{what} must be {' or '.join(f'{n}-D' for n in allowed)}, got "
                          f"{ndim(x)}-D")


def matmul(x, y, transpose_x: bool = False, transpose_y: bool = False, name: str | None = None,
           *, out=None):
    """Matrix product with numpy batching and broadcasting (op `matmul_v2`).

    Args:
        transpose_x / transpose_y: transpose the last two dims of x / y first.

    Example:
        >>> out = pyir.matmul(x, w, transpose_y=True)
    """
    if out is not None:
        refuse("matmul", "out= is not supported by pyir; use the returned tensor")
    return dispatch.out("matmul_v2", {"X": x, "Y": y},
                        {"trans_x": bool(transpose_x), "trans_y": bool(transpose_y)}, name=name)


def mm(input, mat2, name: str | None = None):  # noqa: A002 - Paddle's name
    """Matrix product input @ mat2 (op `matmul_v2`, batched like matmul).

    Example:
        >>> z = pyir.mm(a, b)
    """
    return dispatch.out("matmul_v2", {"X": input, "Y": mat2},
                        {"trans_x": False, "trans_y": False}, name=name, stem="mm")


def bmm(x, y, name: str | None = None, *, out=None):
    """Batched product of 3-D x [B, M, K] and y [B, K, N] (op `bmm`).

    Example:
        >>> z = pyir.bmm(x, y)
    """
    if out is not None:
        refuse("bmm", "out= is not supported by pyir; use the returned tensor")
    _need_ndim(x, (3,), "bmm")
    _need_ndim(y, (3,), "bmm", "y")
    if x.shape[0] >= 0 and y.shape[0] >= 0 and x.shape[0] != y.shape[0] or \
            x.shape[2] >= 0 and y.shape[1] >= 0 and x.shape[2] != y.shape[1]:
        refuse("bmm", f"x {list(x.shape)} and y {list(y.shape)} need the same batch and "
                       f"x's columns equal to y's rows")
    return dispatch.out("bmm", {"X": x, "Y": y}, name=name)


def dot(x, y, name: str | None = None, *, out=None):
    """Inner product of 1-D x and y, or row-wise of 2-D ones (op `dot`).

    Example:
        >>> s = pyir.dot(x, y)
    """
    if out is not None:
        refuse("dot", "out= is not supported by pyir; use the returned tensor")
    _need_ndim(x, (1, 2), "dot")
    return dispatch.out("dot", {"X": x, "Y": y}, name=name)


def mv(x, vec, name: str | None = None):
    """Matrix-vector product of x [M, N] and vec [N] (op `mv`).

    Example:
        >>> y = pyir.mv(a, v)
    """
    _need_ndim(x, (2,), "mv")
    _need_ndim(vec, (1,), "mv", "vec")
    return dispatch.out("mv", {"X": x, "Vec": vec}, name=name)


def addmm(input, x, y, beta: float = 1.0, alpha: float = 1.0,  # noqa: A002
          name: str | None = None):
    """beta * input + alpha * x @ y for matrices, input broadcast (op `addmm`).

    Example:
        >>> z = pyir.addmm(bias, x, w, beta=0.5, alpha=2.0)
    """
    _need_ndim(x, (2,), "addmm")
    _need_ndim(y, (2,), "addmm", "y")
    return dispatch.out("addmm", {"Input": input, "X": x, "Y": y},
                        {"Beta": float(beta), "Alpha": float(alpha)}, name=name)


def baddbmm(input, x, y, beta: float = 1.0, alpha: float = 1.0,  # noqa: A002
            name: str | None = None):
    """beta * input + alpha * x @ y per batch, x [B, M, K], y [B, K, N] (op `baddbmm`).

    Example:
        >>> z = pyir.baddbmm(c, x, y, beta=0.5)
    """
    _need_ndim(x, (3,), "baddbmm")
    _need_ndim(y, (3,), "baddbmm", "y")
    return dispatch.out("baddbmm", {"Input": input, "X": x, "Y": y},
                        {"Beta": float(beta), "Alpha": float(alpha)}, name=name)


addmm_ = inplace_of(addmm, "addmm_")
baddbmm_ = inplace_of(baddbmm, "baddbmm_")


def einsum(equation: str, *operands):
    """Einstein summation over the operands (op `einsum`), numpy's rules with `...`.

    Example:
        >>> z = pyir.einsum("bij,bjk->bik", x, y)
    """
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not isinstance(equation, str):
        refuse("einsum", f"equation must be a string, got {equation!r}")
    operands = tensor_list(list(operands), "einsum")
    try:
        labels, result = einsum_labels(equation, [ndim(o) for o in operands])
    except PyirError as e:
        refuse("einsum", str(e).removeprefix("einsum: "))
    if "..." in equation:  # as Paddle, spell the broadcast dims out for the op
        equation = ",".join(labels) + "->" + result
    return dispatch.out("einsum", {"Operands": operands}, {"equation": equation})


def _tensordot_axes(axes, nx: int, ny: int) -> tuple[list[int], list[int]]:
    if isinstance(axes, Tensor):
        axes = axes.numpy().tolist()
    if isinstance(axes, Variable):
        refuse("tensordot", "a Variable axes is not supported; pass ints or lists of ints")
    if isinstance(axes, numbers.Integral):
        if axes < 0 or axes > min(nx, ny):
            refuse("tensordot", f"axes {axes} must be in [0, {min(nx, ny)}]")
        return list(range(nx - axes, nx)), list(range(axes))
    if not isinstance(axes, (list, tuple)) or not all(
            isinstance(a, numbers.Integral) or (isinstance(a, (list, tuple)) and all(
                isinstance(b, numbers.Integral) for b in a)) for a in axes):
        refuse("tensordot", f"axes must be an int, a list of ints or two lists of ints, got "
                            f"{axes!r}")
    axes = list(axes)
    if all(isinstance(a, numbers.Integral) for a in axes):
        ax_x = ax_y = [int(a) for a in axes]
    elif len(axes) == 1:
        ax_x = ax_y = [int(a) for a in axes[0]]
    elif len(axes) == 2:
        ax_x, ax_y = [int(a) for a in axes[0]], [int(a) for a in axes[1]]
    else:
        refuse("tensordot", f"axes must be an int, a list of ints or two lists, got {axes}")
    if len(ax_x) != len(ax_y):
        refuse("tensordot", f"x and y need as many contracted axes, got {ax_x} and {ax_y}")
    return [a % nx for a in ax_x], [a % ny for a in ax_y]


def tensordot(x, y, axes=2, name: str | None = None):
    """Sum of products over the given axes of x and y (transpose2, reshape2, matmul_v2).

    Args:
        axes: n (the last n of x with the first n of y), one list for both, or two lists.

    Example:
        >>> z = pyir.tensordot(x, y, axes=[[1, 2], [0, 1]])
    """
    ax_x, ax_y = _tensordot_axes(axes, ndim(x), ndim(y))
    for a, b in zip(ax_x, ax_y):
        if x.shape[a] >= 0 and y.shape[b] >= 0 and x.shape[a] != y.shape[b]:
            refuse("tensordot", f"axis {a} of x (size {x.shape[a]}) and axis {b} of y (size "
                                 f"{y.shape[b]}) differ")
    free_x = [i for i in range(ndim(x)) if i not in ax_x]
    free_y = [i for i in range(ndim(y)) if i not in ax_y]
    inner = int(np.prod([x.shape[a] for a in ax_x]))
    xt = transpose(x, free_x + ax_x) if free_x + ax_x != list(range(ndim(x))) else x
    yt = transpose(y, ax_y + free_y) if ax_y + free_y != list(range(ndim(y))) else y
    product = matmul(reshape(xt, [-1, inner]), reshape(yt, [inner, -1]))
    shape = [x.shape[i] for i in free_x] + [y.shape[i] for i in free_y]
    return reshape(product, shape, name=name)


def kron(x, y, name: str | None = None):
    """The Kronecker product of x and y (op `kron`).

    Example:
        >>> z = pyir.kron(a, b)
    """
    return dispatch.out("kron", {"X": x, "Y": y}, name=name)


def outer(x, y, name: str | None = None, *, out=None):
    """Outer product of the flattened x and y: [x.size, y.size] (reshape2 + matmul_v2).

    Example:
        >>> z = pyir.outer(u, v)
    """
    if out is not None:
        refuse("outer", "out= is not supported by pyir; use the returned tensor")
    return dispatch.out("matmul_v2", {"X": reshape(x, [-1, 1]), "Y": reshape(y, [1, -1])},
                        {"trans_x": False, "trans_y": False}, name=name, stem="outer")


def inner(x, y, name: str | None = None):
    """Sum of products over the last axes: out[i.., j..] = <x[i..], y[j..]> (reshape2,
    transpose2, matmul_v2); a 0-D operand scales the other.

    Example:
        >>> z = pyir.inner(x, y)
    """
    if ndim(x) == 0 or ndim(y) == 0:
        return dispatch.out("elementwise_mul", {"X": x, "Y": y}, {"axis": -1}, name=name)
    if x.shape[-1] >= 0 and y.shape[-1] >= 0 and x.shape[-1] != y.shape[-1]:
        refuse("inner", f"the last dims of x {list(x.shape)} and y {list(y.shape)} differ")
    flat_x = reshape(x, [-1, x.shape[-1]])
    flat_y = transpose(reshape(y, [-1, y.shape[-1]]), [1, 0])
    product = dispatch.out("matmul_v2", {"X": flat_x, "Y": flat_y},
                           {"trans_x": False, "trans_y": False}, name=name, stem="inner")
    return reshape(product, list(x.shape[:-1]) + list(y.shape[:-1]))


def cross(x, y, axis: int = 9, name: str | None = None):
    """Cross product of 3-vectors along axis (9: the first axis of size 3), op `cross`.

    Example:
        >>> z = pyir.cross(u, v, axis=1)
    """
    if list(x.shape) != list(y.shape):
        refuse("cross", f"x {list(x.shape)} and y {list(y.shape)} must have the same shape")
    if axis == 9:
        if 3 not in x.shape:
            refuse("cross", f"x {list(x.shape)} has no axis of size 3")
    elif not -ndim(x) <= axis < ndim(x) or x.shape[axis] not in (3, -1):
        refuse("cross", f"axis {axis} of x {list(x.shape)} must exist and have size 3")
    return dispatch.out("cross", {"X": x, "Y": y}, {"dim": int(axis)}, name=name)


def trace(x, offset: int = 0, axis1: int = 0, axis2: int = 1, name: str | None = None):
    """Sum of the `offset` diagonal of the (axis1, axis2) planes (op `trace`).

    Example:
        >>> t = pyir.trace(x, offset=1)
    """
    if ndim(x) < 2:
        refuse("trace", f"x must be at least 2-D, got {ndim(x)}-D")
    a1, a2 = axis1 % ndim(x), axis2 % ndim(x)
    if a1 == a2:
        refuse("trace", f"axis1 ({axis1}) and axis2 ({axis2}) must differ")
    return dispatch.out("trace", {"Input": x}, {"offset": int(offset), "axis1": int(axis1),
                                                "axis2": int(axis2)}, name=name)


def vecdot(x, y, axis: int = -1, name: str | None = None):
    """Sum of x * y along axis (elementwise_mul + reduce_sum).

    Example:
        >>> d = pyir.linalg.vecdot(x, y)
    """
    product = dispatch.out("elementwise_mul", {"X": x, "Y": y}, {"axis": -1})
    n = ndim(product)
    if not -n <= axis < n:
        refuse("vecdot", f"axis {axis} is out of range for {n}-D inputs")
    return dispatch.out("reduce_sum", {"X": product},
                        {"dim": [int(axis)], "keep_dim": False, "reduce_all": n == 1},
                        name=name, stem="vecdot")


def multi_dot(x, name: str | None = None):
    """x[0] @ x[1] @ ... in the cheapest order; the first and last may be vectors (op
    `multi_dot`).

    Example:
        >>> z = pyir.linalg.multi_dot([a, b, c])
    """
    mats = tensor_list(x, "multi_dot")
    if len(mats) < 2:
        refuse("multi_dot", f"needs at least 2 tensors, got {len(mats)}")
    for i, m in enumerate(mats):
        allowed = (1, 2) if i in (0, len(mats) - 1) else (2,)
        _need_ndim(m, allowed, "multi_dot", f"x[{i}]")
    return dispatch.out("multi_dot", {"X": mats}, name=name)


