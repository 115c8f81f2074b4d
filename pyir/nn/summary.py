"""`pyir.summary`: a table of a Layer's sublayers with their output shapes and parameter
counts, found by running the layer once in eager mode on zeros of `input_size` (as Paddle's
hapi `summary` does).
"""

from __future__ import annotations

import numpy as np

from .. import framework
from ..eager import Tensor, no_grad
from ..errors import PyirError


def _input_shapes(input_size) -> list[tuple]:
    """input_size as a list of shapes (a batch dim of -1 or None becomes 1)."""
    if isinstance(input_size, tuple) and all(isinstance(d, (int, type(None))) for d in
                                             input_size):
        sizes = [input_size]
    elif isinstance(input_size, list) and input_size and all(
            isinstance(s, (list, tuple)) for s in input_size):
        sizes = list(input_size)
    elif isinstance(input_size, list) and all(isinstance(d, (int, type(None)))
                                              for d in input_size):
        sizes = [tuple(input_size)]
    elif hasattr(input_size, "shape"):  # an InputSpec
        sizes = [tuple(input_size.shape)]
    else:
        raise PyirError(f"summary: input_size must be a shape tuple or a list of them, got "
                        f"{input_size!r}")
    return [tuple(1 if d is None or d == -1 else int(d) for d in s) for s in sizes]


def _shape_of(output) -> list:
    if isinstance(output, Tensor):
        return list(output.shape)
    if isinstance(output, (list, tuple)):
        return [_shape_of(o) for o in output]
    return []


def summary(net, input_size=None, dtypes=None, input=None) -> dict:  # noqa: A002
    """Print each sublayer's type, output shape and parameter count; return
    {"total_params": N, "trainable_params": M}.

    Example:
        >>> pyir.summary(pyir.nn.Linear(4, 2), (1, 4))
    """
    if framework.static_mode[0]:
        raise PyirError("summary runs the layer eagerly: call pyir.disable_static() first")
    if input is None:
        if input_size is None:
            raise PyirError("summary: give input_size (a shape) or input (tensors)")
        shapes = _input_shapes(input_size)
        kinds = [dtypes] * len(shapes) if dtypes is None or isinstance(dtypes, str) \
            else list(dtypes)
        inputs = [Tensor(np.zeros(s, np.dtype(k or "float32"))) for s, k in zip(shapes, kinds)]
    else:
        inputs = list(input) if isinstance(input, (list, tuple)) else [input]
    rows, handles, counts = [], [], {}

    def record(layer, layer_inputs, output):
        kind = type(layer).__name__
        counts[kind] = counts.get(kind, 0) + 1
        own = layer.parameters(include_sublayers=False)
        rows.append((f"{kind}-{counts[kind]}", [_shape_of(i) for i in layer_inputs],
                     _shape_of(output), sum(int(p.size) for p in own)))

    # Leaf layers only, as Paddle lists them (a container's row would repeat its children).
    leaves = [layer for _, layer in net.named_sublayers(include_self=True)
              if not layer.sublayers()]
    for layer in leaves or [net]:
        handles.append(layer.register_forward_post_hook(record))
    try:
        with no_grad():
            net(*inputs)
    finally:
        for handle in handles:
            handle.remove()
    params = net.parameters()
    total = sum(int(p.size) for p in params)
    trainable = sum(int(p.size) for p in params if not p.stop_gradient)
    _print_table(rows, total, trainable)
    return {"total_params": total, "trainable_params": trainable}


def _print_table(rows, total: int, trainable: int) -> None:
    width = 75
    line = "-" * width
    print(line)
    print(f"{'Layer (type)':^18} {'Input Shape':^20} {'Output Shape':^20} {'Param #':^12}")
    print("=" * width)
    for name, in_shape, out_shape, count in rows:
        print(f"{name:^18} {str(in_shape):^20} {str(out_shape):^20} {count:^12,}")
    print("=" * width)
    print(f"Total params: {total:,}")
    print(f"Trainable params: {trainable:,}")
    print(f"Non-trainable params: {total - trainable:,}")
    print(line)


__all__ = ["summary"]
