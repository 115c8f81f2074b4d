"""Eager mode: `Tensor`, `to_tensor`, `run_op` and tape autograd, all over the op registry.

An eager op is its registry kernel run on arrays (`run_op`). When an input needs a gradient,
`run_op` records a tape node. `Tensor.backward()` walks the nodes newest first; each op node
asks its op's registry gradient rule (`opdef.grad(op, opdef)`, the same maker the static
backward pass uses) for grad ops and runs their kernels. So there is no second implementation
of any op or gradient: eager and static mode share one definition.

    run_op(op_type, inputs, attrs)      kernel -> output Tensors (+ _OpNode when recording)
    Tensor.backward()
      +-- autograd.backward_into_leaves nodes in reverse creation order, partial gradients
          +-- _OpNode.backward          grad maker over a stand-in op -> grad kernels
          +-- PyLayer nodes             (pyir/autograd.py) the user's backward
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import numbers

import numpy as np

from . import binding, dtypes, registry
from .errors import GradError, KernelError, PyirError, Where
from .framework import OpView, Variable
from .ops._helpers import EMPTY_VAR, grad_name
from .tensor import SCALAR_AS_SCALE

_grad_enabled = [True]
_serial = itertools.count()


# --- grad mode ---------------------------------------------------------------------------
def is_grad_enabled() -> bool:
    """Whether eager ops record the tape (False inside `no_grad`)."""
    return _grad_enabled[0]


@contextlib.contextmanager
def set_grad_enabled(mode: bool):
    """Turn tape recording on or off inside the block."""
    old, _grad_enabled[0] = _grad_enabled[0], bool(mode)
    try:
        yield
    finally:
        _grad_enabled[0] = old


class no_grad(contextlib.ContextDecorator):  # noqa: N801 - Paddle's spelling
    """Ops inside run without recording gradients; usable as `with` or as a decorator.

    Example:
        >>> with pyir.no_grad():
        ...     y = x * 2          # y.stop_gradient is True
    """

    def __enter__(self):
        self._old, _grad_enabled[0] = _grad_enabled[0], False
        return self

    def __exit__(self, *exc):
        _grad_enabled[0] = self._old
        return False


# --- Tensor ------------------------------------------------------------------------------
class Tensor:
    """An eager tensor: a numpy value plus what autograd needs.

    `stop_gradient` is True by default (as in Paddle): set it to False on a leaf to get its
    `.grad` from `backward()`. Functions of `pyir` (`pyir.tanh(t)`, `pyir.matmul(a, b)`) and
    their method forms (`t.mean()`, `t.sum()`) work on Tensors as on static Variables.
    """

    __array_priority__ = 100  # numpy scalars defer to Tensor's operators

    def __init__(self, value, stop_gradient: bool = True, name: str | None = None):
        self._value = np.asarray(value)
        self.stop_gradient = stop_gradient
        self.grad: Tensor | None = None
        self.name = name or f"eager_tmp_{next(_serial)}"
        self._node = None      # the tape node that produced this tensor
        self._slot = None      # its output name in that node

    # --- values -------------------------------------------------------------------------
    def numpy(self) -> np.ndarray:
        return self._value

    def __array__(self, dtype=None, copy=None):
        return self._value if dtype is None else self._value.astype(dtype)

    @property
    def shape(self) -> list[int]:
        return list(self._value.shape)

    @property
    def dtype(self) -> np.dtype:
        return self._value.dtype

    @property
    def ndim(self) -> int:
        return self._value.ndim

    @property
    def size(self) -> int:
        return int(self._value.size)

    @property
    def place(self):
        from . import CPUPlace

        return CPUPlace()

    @property
    def is_leaf(self) -> bool:
        return self._node is None

    def item(self):
        return self._value.item()

    def tolist(self):
        return self._value.tolist()

    def __len__(self) -> int:
        return len(self._value)

    def __bool__(self) -> bool:
        return bool(self._value)

    def __float__(self) -> float:
        return float(self._value)

    def __int__(self) -> int:
        return int(self._value)

    def __getitem__(self, index):
        """Ints, slices (any step) and `...` index through the `strided_slice` op, so they
        differentiate; other indices (arrays, masks, None) only on stop_gradient tensors."""
        attrs = _strided_slice_attrs(index, self.shape)
        if attrs is None:
            if not self.stop_gradient:
                raise PyirError(f"indexing with {index!r} is not differentiable in pyir's eager "
                                f"mode; use ints and slices, pyir.gather, or index t.detach()")
            return Tensor(self._value[index])
        out = run_op("strided_slice", {"Input": self}, attrs)["Out"]
        if len(attrs["decrease_axis"]) == self.ndim:  # every axis indexed: a 0-d result
            out = run_op("reshape2", {"X": out}, {"shape": []})["Out"]
        return out

    def __repr__(self) -> str:
        return (f"Tensor(shape={self.shape}, dtype={dtypes.name_of(self.dtype)}, "
                f"place=Place(cpu), stop_gradient={self.stop_gradient},\n"
                f"       {format_value(self._value)})")

    # --- autograd -----------------------------------------------------------------------
    def backward(self, grad_tensor=None, retain_graph: bool = False) -> None:
        """Accumulate d(self)/d(leaf) into `.grad` of every leaf with stop_gradient=False.

        Args:
            grad_tensor: the gradient of self (default: ones of self's shape).
            retain_graph: accepted for Paddle compatibility; the tape is always kept.
        """
        if self.stop_gradient:
            raise GradError(f"backward() on a tensor with stop_gradient=True ({self.name}): no "
                            f"input of it needs a gradient; set stop_gradient=False on a leaf")
        from .autograd import backward_into_leaves

        backward_into_leaves([self], [grad_tensor])

    def gradient(self) -> np.ndarray | None:
        """`.grad` as a numpy array (None before any backward)."""
        return None if self.grad is None else self.grad._value

    def clear_grad(self) -> None:
        self.grad = None

    clear_gradient = clear_grad

    def detach(self) -> "Tensor":
        """The same value, cut from the tape."""
        return Tensor(self._value)

    def astype(self, dtype) -> "Tensor":
        return _tensor_function("cast")(self, dtype)

    # Methods such as t.mean(), t.sum(), t.tanh(), t.reshape(...) are pyir's functions.
    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        fn = _tensor_function(name, missing_ok=True)
        if fn is None:
            raise AttributeError(f"'Tensor' object has no attribute {name!r}")
        return functools.partial(fn, self)


def _strided_slice_attrs(index, shape: list) -> dict | None:
    """`strided_slice` attributes for an index of ints, slices and one `...`; else None."""
    index = index if isinstance(index, tuple) else (index,)
    if sum(i is Ellipsis for i in index) > 1 or not all(
            i is Ellipsis or isinstance(i, (slice, numbers.Integral)) for i in index):
        return None
    if Ellipsis in index:
        at = index.index(Ellipsis)
        index = index[:at] + (slice(None),) * (len(shape) - len(index) + 1) + index[at + 1:]
    if len(index) > len(shape):
        return None
    attrs = {"axes": [], "starts": [], "ends": [], "strides": [], "decrease_axis": []}
    for axis, (item, dim) in enumerate(zip(index, shape)):
        if isinstance(item, slice):
            start, end, step = item.indices(dim)
            end = -dim - 1 if end < 0 else end  # a negative step running past the front
        else:
            start = int(item) + dim if item < 0 else int(item)
            end, step = start + 1, 1
            attrs["decrease_axis"].append(axis)
        for key, value in zip(("axes", "starts", "ends", "strides"), (axis, start, end, step)):
            attrs[key].append(value)
    attrs["infer_flags"] = [1] * len(attrs["axes"])
    return attrs


# --- printing, as Paddle prints tensors ------------------------------------------------------
_EDGE, _THRESHOLD, _INDENT = 3, 1000, 7


def format_value(value: np.ndarray) -> str:
    """Paddle's tensor body: 8 decimals ("1." for whole floats), items padded to one width,
    a sign column when any item is negative, "..." past 1000 elements."""
    summarize = value.size > _THRESHOLD
    shown = _shown(value, summarize).ravel()
    signed = value.dtype.kind in "fi" and bool(np.any(shown < 0))
    items = [_item(v, signed) for v in shown]
    if value.ndim == 0:
        return items[0].strip() if not signed else items[0]
    width = max(len(t) for t in items)
    return _nested(value, summarize, iter(t.ljust(width) for t in items), 0)


def _shown(value: np.ndarray, summarize: bool) -> np.ndarray:
    """The elements that are printed (edges only, when summarizing), in print order."""
    if not summarize or value.ndim == 0:
        return value
    for axis in range(value.ndim):
        if value.shape[axis] > 2 * _EDGE:
            index = list(range(_EDGE)) + list(range(value.shape[axis] - _EDGE,
                                                    value.shape[axis]))
            value = np.take(value, index, axis=axis)
    return value


def _item(v, signed: bool) -> str:
    if isinstance(v, (np.floating, float)):
        text = "nan" if np.isnan(v) else f"{v:.0f}." if np.isfinite(v) and v == np.floor(v) \
            else f"{v:.8f}"
    else:
        text = str(v)
    return " " + text if signed and not text.startswith("-") else text


def _nested(value: np.ndarray, summarize: bool, items, depth: int) -> str:
    n = value.shape[0]
    cut = summarize and n > 2 * _EDGE
    rows = list(range(_EDGE)) + [None] + list(range(n - _EDGE, n)) if cut else list(range(n))
    if value.ndim == 1:
        return "[" + ", ".join("..." if i is None else next(items) for i in rows) + "]"
    gap = ",\n" + "\n" * (value.ndim - 2) + " " * (_INDENT + depth + 1)
    parts = ["..." if i is None else _nested(value[i], summarize, items, depth + 1)
             for i in rows]
    return "[" + gap.join(parts) + "]"


def _tensor_function(name: str, missing_ok: bool = False):
    from . import tensor as tensor_api

    fn = getattr(tensor_api, name, None) if name in getattr(tensor_api, "__all__", ()) else None
    if fn is None and not missing_ok:
        raise PyirError(f"pyir has no function {name!r} for eager Tensors")
    return fn


def _other(self: Tensor, other) -> Tensor:
    """The second operand of an operator as a Tensor (a Python scalar takes self's dtype)."""
    if isinstance(other, Tensor):
        return other
    if isinstance(other, Variable):
        raise PyirError(f"cannot combine eager Tensor {self.name} with static Variable "
                        f"{other.name}: build with Variables only (static) or Tensors only (eager)")
    return Tensor(np.asarray(other, dtype=self.dtype if np.isscalar(other) else None))


def _elementwise(op_type: str, reflected: bool = False):
    def method(self, other):
        a, b = (_other(self, other), self) if reflected else (self, _other(self, other))
        return run_op(op_type, {"X": a, "Y": b}, {"axis": -1})["Out"]

    return method


def _scalar_or(op_type: str, scalar_rule, reflected: bool = False, to_float: bool = False):
    """A Python scalar operand becomes a `scale` op (as Paddle emits); a tensor one an
    elementwise op. Integer tensors divide as float32, as in Paddle."""
    tensor_rule = _elementwise(op_type, reflected)

    def method(self, other):
        if to_float and not np.issubdtype(self.dtype, np.floating):
            self = _tensor_function("cast")(self, "float32")
        if scalar_rule is not None and isinstance(other, numbers.Number) and \
                not isinstance(other, bool):
            return _tensor_function("scale")(self, *scalar_rule(float(other)))
        return tensor_rule(self, other)

    return method


_OPERATORS = {
    "__add__": _scalar_or("elementwise_add", SCALAR_AS_SCALE["__add__"]),
    "__radd__": _scalar_or("elementwise_add", SCALAR_AS_SCALE["__radd__"], reflected=True),
    "__sub__": _scalar_or("elementwise_sub", SCALAR_AS_SCALE["__sub__"]),
    "__rsub__": _scalar_or("elementwise_sub", SCALAR_AS_SCALE["__rsub__"], reflected=True),
    "__mul__": _scalar_or("elementwise_mul", SCALAR_AS_SCALE["__mul__"]),
    "__rmul__": _scalar_or("elementwise_mul", SCALAR_AS_SCALE["__rmul__"], reflected=True),
    "__truediv__": _scalar_or("elementwise_div", SCALAR_AS_SCALE["__truediv__"],
                              to_float=True),
    "__rtruediv__": _scalar_or("elementwise_div", None, reflected=True, to_float=True),
    "__pow__": lambda self, other: _tensor_function("pow")(
        self, other if isinstance(other, numbers.Number) else _other(self, other)),
    "__rpow__": _elementwise("elementwise_pow", reflected=True),
    "__floordiv__": _elementwise("elementwise_floordiv"),
    "__rfloordiv__": _elementwise("elementwise_floordiv", reflected=True),
    "__mod__": _elementwise("elementwise_mod"),
    "__rmod__": _elementwise("elementwise_mod", reflected=True),
    "__matmul__": lambda self, other: _tensor_function("matmul")(self, _other(self, other)),
    "__rmatmul__": lambda self, other: _tensor_function("matmul")(_other(self, other), self),
    "__neg__": lambda self: _tensor_function("scale")(self, -1.0),
    "__abs__": lambda self: _tensor_function("abs")(self),
    "__eq__": _elementwise("equal"),
    "__ne__": _elementwise("not_equal"),
    "__lt__": _elementwise("less_than"),
    "__le__": _elementwise("less_equal"),
    "__gt__": _elementwise("greater_than"),
    "__ge__": _elementwise("greater_equal"),
}
for _name, _method in _OPERATORS.items():
    setattr(Tensor, _name, _method)
Tensor.__hash__ = object.__hash__  # defining __eq__ would otherwise drop it


def array_of(value) -> np.ndarray:
    return value._value if isinstance(value, Tensor) else np.asarray(value)


def to_tensor(data, dtype=None, place=None, stop_gradient: bool = True) -> Tensor:
    """An eager Tensor from a number, a (nested) list, a numpy array or a Tensor.

    Python floats become float32 and ints int64 (Paddle's defaults); numpy arrays keep their
    dtype unless `dtype` is given.

    Example:
        >>> t = pyir.to_tensor([[1.0, 2.0]], stop_gradient=False)
    """
    if isinstance(data, Tensor):
        value = data._value
    else:
        value = np.array(data)
        if dtype is None and not isinstance(data, np.ndarray | np.generic):
            if value.dtype == np.float64:
                value = value.astype(np.float32)
            elif value.dtype == np.complex128:
                value = value.astype(np.complex64)
    if dtype is not None:
        value = value.astype(dtypes.to_numpy(dtype))
    return Tensor(np.array(value, copy=True), stop_gradient=stop_gradient)


# --- running ops -------------------------------------------------------------------------
class _StandIn(OpView):
    """What a gradient maker sees of an eager op: Operator's reading API over local names."""

    block = None

    def __init__(self, type: str, inputs: dict, outputs: dict, attrs: dict):
        self.type, self.inputs, self.outputs, self.attrs = type, inputs, outputs, attrs


def run_op(op_type: str, inputs: dict | None = None, attrs: dict | None = None) -> dict:
    """Run op `op_type`'s registry kernel on eager values; record the tape if needed.

    Args:
        inputs: slot -> Tensor (or array/number), list of them for duplicable slots, or None.
        attrs: attribute values; missing ones take the op's defaults.

    Returns:
        slot -> Tensor (list of Tensors for duplicable slots) for every output the kernel made.

    Example:
        >>> run_op("tanh", {"X": t})["Out"]
    """
    opdef = registry.get(op_type)
    if opdef.runtime:
        raise PyirError(f"op {op_type} needs a program to run ({', '.join(opdef.runtime)}); "
                        f"it has no eager form", Where(op_type=op_type))
    where = Where(op_type=op_type)
    binding.check_attr_names(opdef, attrs or {}, where)
    full = binding.kernel_attrs(opdef, attrs or {}, where)
    args, names, tensors = _gather(opdef, binding.slot_values(opdef, inputs, where))
    try:
        results = opdef.kernel(*args, *full.values())
    except PyirError:
        raise
    except Exception as e:
        shapes = ", ".join(f"{n}={t.shape}" for n, t in tensors)
        raise KernelError(f"kernel failed on inputs ({shapes}): {type(e).__name__}: {e}",
                          Where(op_type=op_type)) from e
    outs, out_names, out_tensors = _wrap(opdef, results)
    if _grad_enabled[0] and opdef.grad is not None and \
            any(not t.stop_gradient for _, t in tensors):
        stand_in = _StandIn(op_type, names, out_names, {**full, **(attrs or {})})
        _OpNode(opdef, stand_in, tensors, out_tensors).attach()
    return outs


def _gather(opdef, values: dict) -> tuple[list, dict, list]:
    """Kernel arguments, local names per input slot, and [(local name, Tensor)]."""
    names, tensors, arrays = {}, [], {}
    for slot in opdef.inputs:
        items = values[slot.name]
        if any(isinstance(v, Variable) for v in items):
            raise PyirError(f"op {opdef.type} got a static Variable and eager Tensors: build "
                            f"with Variables only (static) or Tensors only (eager)",
                            Where(op_type=opdef.type))
        items = [v if isinstance(v, Tensor) else Tensor(np.asarray(v)) for v in items]
        # One name per occurrence: x * x gets X0 and Y0, whose gradients then add up.
        names[slot.name] = [f"{slot.param}{i}" for i in range(len(items))]
        tensors += zip(names[slot.name], items)
        arrays[slot.name] = [t._value for t in items]
    return binding.kernel_args(opdef, arrays), names, tensors


def _wrap(opdef, results: dict) -> tuple[dict, dict, dict]:
    """Output Tensors per slot, local names per output slot, and {local name: Tensor}."""
    outs, names, tensors = {}, {}, {}
    for slot in opdef.outputs:
        if results.get(slot.name) is None:
            continue
        value = results[slot.name]
        made = [Tensor(np.asarray(v)) for v in (value if slot.duplicable else [value])]
        names[slot.name] = [f"{slot.param}_out{i}" for i in range(len(made))]
        tensors.update(zip(names[slot.name], made))
        outs[slot.name] = made if slot.duplicable else made[0]
    return outs, names, tensors


# --- the tape ----------------------------------------------------------------------------
class Node:
    """A recorded step: input Tensors by local name, outputs by local name.

    Subclasses implement `backward(out_grads) -> {input name: array | None}`, where
    `out_grads` maps each output name to its gradient array (None if none flowed back).
    """

    def __init__(self, inputs: list, outputs: dict):
        self.seq = next(_serial)
        self.inputs = inputs            # [(name, Tensor)]
        self.outputs = outputs          # {name: Tensor}

    def attach(self) -> None:
        """Make the outputs this node's, so backward() reaches it through them."""
        for name, tensor in self.outputs.items():
            tensor._node, tensor._slot = self, name
            tensor.stop_gradient = False

    def backward(self, out_grads: dict) -> dict:
        raise NotImplementedError


class _OpNode(Node):
    """An eager op: its gradient is its registry rule's grad ops, run with their kernels."""

    def __init__(self, opdef, stand_in: _StandIn, inputs: list, outputs: dict):
        super().__init__(inputs, outputs)
        self.opdef, self.stand_in = opdef, stand_in

    def backward(self, out_grads: dict) -> dict:
        env = {name: t._value for name, t in self.inputs}
        env.update({name: t._value for name, t in self.outputs.items()})
        for name, g in out_grads.items():
            env[grad_name(name)] = np.zeros_like(env[name]) if g is None else g
        for gop in self.opdef.grad(self.stand_in, self.opdef):
            _run_grad_op(gop, env, self.opdef.type)
        return {name: env.get(grad_name(name)) for name, _ in self.inputs}


def _run_grad_op(gop, env: dict, forward_type: str) -> None:
    gdef = registry.get(gop.type)
    where = Where(op_type=gop.type)
    if gdef.runtime:
        raise GradError(f"the gradient of op {forward_type} ({gop.type}) needs a program; it "
                        f"cannot run in eager mode", where)
    values = {slot: [env.get(n) for n in names if n != EMPTY_VAR]
              for slot, names in gop.inputs.items()}
    # Makers copy the forward op's attributes; the grad kernel takes the ones it declares.
    attrs = binding.kernel_attrs(gdef, gop.attrs, where, GradError)
    results = gdef.kernel(*binding.kernel_args(gdef, values), *attrs.values())
    for slot, names in gop.outputs.items():
        value = results.get(slot)
        if value is None:
            continue
        values = value if gdef.output_slot(slot).duplicable else [value]
        for name, v in zip(names, values):
            if name != EMPTY_VAR and v is not None:
                env[name] = np.asarray(v)


def rand(shape, dtype=None, name: str | None = None):
    """Samples of U[0, 1) (op `uniform_random`), eager or static like `pyir.uniform`.

    Example:
        >>> noise = pyir.rand([2, 3], dtype="float64")
    """
    return _tensor_function("uniform")(shape, dtype, min=0.0, max=1.0, name=name)


from .autograd import grad  # noqa: E402 - pyir.grad, as paddle.grad; autograd imports this module

__all__ = ["Tensor", "to_tensor", "run_op", "no_grad", "is_grad_enabled", "set_grad_enabled",
           "grad", "rand"]
