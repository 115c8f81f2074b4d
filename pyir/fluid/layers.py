"""`fluid.layers`: fc, data, py_func, cross_entropy (op `cross_entropy2`), mean (op `mean`)."""

from __future__ import annotations

from .. import dtypes
from ..errors import BuildError, Where
from ..framework import Variable, default_main_program
from ..static import nn as static_nn
from ..dispatch import apply_op, out as _out
from ..pyfunc import py_func as static_py_func

__all__ = ["fc", "data", "py_func", "cross_entropy", "mean", "relu", "tanh", "softmax"]


def fc(input, size: int, num_flatten_dims: int = 1, param_attr=None, bias_attr=None,
       act: str | None = None, name: str | None = None):
    """Fully connected layer (`mul` + `elementwise_add` + the `act` op); params `fc_N.w_0/b_0`.

    Example:
        >>> prediction = fluid.layers.fc(hidden, size=10, act="softmax")
    """
    return static_nn.fc(input, size, num_flatten_dims=num_flatten_dims, weight_attr=param_attr,
                        bias_attr=bias_attr, activation=act, name=name)


def data(name: str, shape, append_batch_size: bool = True, dtype="float32",
         lod_level: int = 0, type=None, stop_gradient: bool = True) -> Variable:
    """Declare an input. With `append_batch_size` a -1 batch dim is prepended, unless the
    shape already has a free (None or negative) dim.

    Example:
        >>> img = fluid.layers.data(name="img", shape=[4])      # shape [-1, 4]
    """
    shape = [-1 if d is None else int(d) for d in shape]
    if append_batch_size and all(d >= 0 for d in shape):
        shape = [-1] + shape
    block = default_main_program().global_block()
    if name in block.vars:
        raise BuildError(f"data {name!r} is already declared in the main program")
    var = block.create_var(name, dtypes.to_numpy(dtype), shape, stop_gradient=stop_gradient,
                           lod_level=lod_level)
    var.need_check_feed = True
    return var


py_func = static_py_func  # `pyir.static.py_func` under its fluid name


def cross_entropy(input, label, soft_label: bool = False, ignore_index: int = -100):
    """-log(input[label]) per row, on probabilities (op `cross_entropy2`); output [..., 1].

    Example:
        >>> loss = fluid.layers.cross_entropy(input=prediction, label=label)
    """
    if soft_label:
        raise BuildError("fluid.layers.cross_entropy with soft_label=True is not supported; "
                         "use pyir.nn.functional.cross_entropy(..., soft_label=True)",
                         Where(op_type="cross_entropy2"))
    if isinstance(input, Variable) and isinstance(label, Variable) and \
            len(label.shape) != len(input.shape):
        raise BuildError(f"label must have the rank of input ({len(input.shape)}), with a "
                         f"trailing 1; got shape {list(label.shape)}",
                         Where(op_type="cross_entropy2"))
    return apply_op("cross_entropy2", {"X": input, "Label": label},
                    {"ignore_index": int(ignore_index)})["Y"]


def mean(x, name: str | None = None):
    """Mean of all elements (op `mean`), a 0-D result.

    Example:
        >>> avg_loss = fluid.layers.mean(loss)
    """
    return _out("mean", {"X": x}, name=name)


def relu(x, name: str | None = None):
    return _out("relu", {"X": x}, name=name)


def tanh(x, name: str | None = None):
    return _out("tanh", {"X": x}, name=name)


def softmax(input, use_cudnn: bool = False, name: str | None = None, axis: int = -1):
    return _out("softmax", {"X": input}, {"axis": int(axis)}, name=name)
