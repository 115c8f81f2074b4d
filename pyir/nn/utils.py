"""`paddle.nn.utils`: eager helpers around parameters and their gradients.

- `clip_grad_norm_` / `clip_grad_value_` scale or clip the `.grad` of parameters in place
  (after `backward()`, before `opt.step()`), as Paddle's do: the total norm is the norm of the
  per-gradient norms, the scale `max_norm / (total + 1e-6)` clamped to 1.
- `parameters_to_vector` / `vector_to_parameters` flatten parameters into one 1-D tensor
  and back.
- `weight_norm` / `remove_weight_norm` reparameterize a layer's weight as
  `g * v / ||v||` (norm over every axis but `dim`; `dim=None` over all): the weight is
  replaced by parameters `<name>_g` and `<name>_v`, and a forward pre-hook recomputes it.
- `spectral_norm` is `pyir.nn.spectral_norm`.
"""

from __future__ import annotations

import numpy as np

from .. import tensor as T
from ..eager import Tensor, no_grad
from ..errors import BuildError
from . import functional as F
from .layer_base import Layer
from .layers_extra import spectral_norm

__all__ = ["weight_norm", "remove_weight_norm", "spectral_norm", "parameters_to_vector",
           "vector_to_parameters", "clip_grad_norm_", "clip_grad_value_"]


def _param_list(parameters) -> list:
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False) -> Tensor:
    """Scale the gradients of `parameters` in place so that their total `norm_type` norm is
    at most `max_norm`; returns the total norm before clipping (a 0-d Tensor).

    Example:
        >>> loss.backward()
        >>> pyir.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        >>> opt.step()
    """
    params = _param_list(parameters)
    norm_type = float(norm_type)
    if norm_type not in (float("inf"), 0.0, 1.0, 2.0):
        raise BuildError(f"clip_grad_norm_: norm_type must be one of inf, 0, 1, 2, got "
                         f"{norm_type}")
    grads = [p.grad._value for p in params if p.grad is not None]
    if not grads:
        return Tensor(np.zeros([], "float32"))
    if norm_type == float("inf"):
        total = max(np.abs(g).max() for g in grads)
    else:
        norms = np.stack([np.linalg.norm(g.ravel(), norm_type) for g in grads])
        total = np.linalg.norm(norms, norm_type)
    total = np.asarray(total, dtype=grads[0].dtype)
    if error_if_nonfinite and not np.isfinite(total):
        raise BuildError(f"clip_grad_norm_: the total {norm_type:g}-norm of the gradients is "
                         f"not finite, so they cannot be clipped (error_if_nonfinite=True)")
    coef = min(np.asarray(max_norm, total.dtype) / (total + np.asarray(1e-6, total.dtype)),
               np.asarray(1.0, total.dtype))
    for p in params:
        if p.grad is not None:
            p.grad._value = (p.grad._value * coef).astype(p.grad._value.dtype)
    return Tensor(total)


def clip_grad_value_(parameters, clip_value: float) -> None:
    """Clip every gradient element of `parameters` to [-clip_value, clip_value], in place."""
    value = float(clip_value)
    for p in _param_list(parameters):
        if p.grad is not None:
            p.grad._value = np.clip(p.grad._value, -value, value).astype(p.grad._value.dtype)


def parameters_to_vector(parameters, name=None) -> Tensor:
    """The parameters flattened and concatenated into one 1-D tensor (a new leaf)."""
    params = _param_list(parameters)
    flat = np.concatenate([np.asarray(p._value).ravel() for p in params])
    return Tensor(flat.astype(params[0]._value.dtype), stop_gradient=False)


def vector_to_parameters(vec, parameters, name=None) -> None:
    """Copy consecutive slices of the 1-D `vec` into `parameters` (in their shapes)."""
    params = _param_list(parameters)
    values = np.asarray(vec._value if isinstance(vec, Tensor) else vec)
    if values.ndim != 1:
        raise BuildError(f"vector_to_parameters: vec must be 1-D, got shape {list(values.shape)}")
    total = sum(int(np.prod(p.shape)) for p in params)
    if values.size < total:
        raise BuildError(f"vector_to_parameters: vec has {values.size} values, the parameters "
                         f"need {total}")
    start = 0
    for p in params:
        size = int(np.prod(p.shape))
        p.set_value(values[start:start + size].reshape(p.shape).astype(p._value.dtype))
        start += size


def _norm_except_dim(w, dim: int):
    """The L2 norm of `w` over every axis but `dim` (shape [w.shape[dim]]); all axes for -1."""
    if dim == -1:
        return T.sqrt(T.sum(T.square(w)) + 1e-12)
    if dim != 0:
        perm = list(range(len(w.shape)))
        perm[0], perm[dim] = dim, 0
        w = T.transpose(w, perm)
    return T.sqrt(T.sum(T.square(T.reshape(w, [w.shape[0], -1])), axis=1) + 1e-12)


def _weight_from(v, g, dim: int):
    """g * v / ||v||, the norm over every axis but `dim`."""
    shape = list(v.shape)
    if dim == -1:
        return v / (T.sqrt(T.sum(T.square(v))) + 1e-12) * g
    perm = list(range(len(shape)))
    perm[0], perm[dim] = dim, 0
    moved = T.transpose(v, perm) if dim != 0 else v
    unit = T.reshape(F.normalize(T.reshape(moved, [moved.shape[0], -1]), axis=1), moved.shape)
    if dim != 0:
        unit = T.transpose(unit, perm)
    gshape = [1] * len(shape)
    gshape[dim] = shape[dim]
    return unit * T.reshape(g, gshape)


class _WeightNorm:
    """The forward pre-hook that recomputes `layer.<name>` from `<name>_g` and `<name>_v`."""

    def __init__(self, name: str, dim: int):
        self.name, self.dim = name, dim

    def compute_weight(self, layer):
        return _weight_from(getattr(layer, self.name + "_v"), getattr(layer, self.name + "_g"),
                            self.dim)

    def __call__(self, layer, inputs):
        object.__setattr__(layer, self.name, self.compute_weight(layer))


def weight_norm(layer: Layer, name: str = "weight", dim: int | None = 0) -> Layer:
    """Reparameterize `layer.<name>` as `<name>_g * <name>_v / ||<name>_v||`; returns layer.

    Example:
        >>> conv = pyir.nn.utils.weight_norm(pyir.nn.Conv2D(3, 5, 3))
        >>> conv.weight_g.shape, conv.weight_v.shape
        ([5], [5, 3, 3, 3])
    """
    for hook in layer._forward_pre_hooks.values():
        if isinstance(hook, _WeightNorm) and hook.name == name:
            raise BuildError(f"weight_norm: {name!r} of {type(layer).__name__} already has a "
                             f"weight_norm hook")
    weight = layer._parameters.get(name)
    if weight is None:
        raise BuildError(f"weight_norm: {type(layer).__name__} has no parameter {name!r}")
    rank = len(weight.shape)
    dim = -1 if dim is None else int(dim)
    if not -rank <= dim < rank:
        raise BuildError(f"weight_norm: dim must be in [-{rank}, {rank}), got {dim}")
    if dim != -1:
        dim %= rank
    hook = _WeightNorm(name, dim)
    del layer._parameters[name]
    with no_grad():
        g_value = _norm_except_dim(weight, dim)
    v = layer.create_parameter(list(weight.shape), dtype=weight.dtype)
    layer.add_parameter(name + "_v", v)
    g = layer.create_parameter(list(g_value.shape), dtype=weight.dtype)
    layer.add_parameter(name + "_g", g)
    v.set_value(np.asarray(weight._value))
    g.set_value(np.asarray(g_value._value))
    hook(layer, ())
    layer.register_forward_pre_hook(hook)
    return layer


def remove_weight_norm(layer: Layer, name: str = "weight") -> Layer:
    """Undo `weight_norm`: `layer.<name>` is a plain parameter again (its current value)."""
    for key, hook in list(layer._forward_pre_hooks.items()):
        if isinstance(hook, _WeightNorm) and hook.name == name:
            with no_grad():
                value = hook.compute_weight(layer)
            layer.__dict__.pop(name, None)
            del layer._parameters[name + "_g"]
            del layer._parameters[name + "_v"]
            weight = layer.create_parameter(list(value.shape), dtype=value.dtype)
            weight.set_value(np.asarray(value._value))
            layer.add_parameter(name, weight)
            del layer._forward_pre_hooks[key]
            return layer
    raise BuildError(f"remove_weight_norm: {type(layer).__name__} has no weight_norm hook "
                     f"on {name!r}")
