"""Less common layers: Unfold / Fold (im2col and back), SpectralNorm, SyncBatchNorm (a
BatchNorm: pyir runs in one process) and `Parameter`."""

from __future__ import annotations

import numpy as np

from ..dispatch import out
from ..errors import BuildError
from ..framework import default_main_program, default_startup_program, unique_name
from ..eager import Tensor
from ..initializers import Assign, Normal
from ..layer_helper import EagerParameter, ParamAttr
from ..tensor import linalg as tlinalg
from ..tensor import manipulation as manip
from ..tensor import math as tmath
from . import _ops
from .layer_base import Layer
from .layers_norm import _BatchNormBase

__all__ = ["Unfold", "Fold", "SpectralNorm", "SyncBatchNorm", "Parameter", "spectral_norm"]

Parameter = EagerParameter


def _pair(value, what: str, who: str) -> list[int]:
    values = [value] * 2 if isinstance(value, int) else list(value)
    if len(values) != 2 or not all(isinstance(v, int) and v > 0 for v in values):
        raise BuildError(f"{who}: {what} must be a positive int or 2 of them, got {value!r}")
    return values


def _paddings(value, who: str) -> list[int]:
    """[top, bottom, left, right] from an int, [ph, pw] or [top, left, bottom, right]."""
    values = [value] * 2 if isinstance(value, int) else list(value)
    if len(values) == 2:
        return [values[0], values[0], values[1], values[1]]
    if len(values) == 4:
        return [values[0], values[2], values[1], values[3]]
    raise BuildError(f"{who}: paddings must be an int, 2 ints or 4 ints, got {value!r}")


class Unfold(Layer):
    """Sliding blocks of NCHW input as columns: [N, C*kh*kw, L] (im2col), channel-major.

    Example:
        >>> pyir.nn.Unfold([2, 2])(x)     # x [1, 3, 4, 4] -> [1, 12, 9]
    """

    def __init__(self, kernel_sizes, dilations=1, paddings=0, strides=1, name=None):
        super().__init__()
        self.kernel_sizes = _pair(kernel_sizes, "kernel_sizes", "Unfold")
        self.dilations = _pair(dilations, "dilations", "Unfold")
        self.strides = _pair(strides, "strides", "Unfold")
        self.paddings = _paddings(paddings, "Unfold")

    def forward(self, x):
        if len(x.shape) != 4:
            raise BuildError(f"Unfold needs a 4-D input, got shape {list(x.shape)}")
        (kh, kw), (dh, dw), (sh, sw) = self.kernel_sizes, self.dilations, self.strides
        top, bottom, left, right = self.paddings
        if any(self.paddings):
            x = manip.squeeze(_ops.pad3d(manip.unsqueeze(x, 2), [left, right, top, bottom, 0, 0],
                                         "constant", 0.0, "NCDHW"), 2)
        h, w = x.shape[2], x.shape[3]
        oh, ow = (h - (dh * (kh - 1) + 1)) // sh + 1, (w - (dw * (kw - 1) + 1)) // sw + 1
        if oh <= 0 or ow <= 0:
            raise BuildError(f"Unfold: the kernel does not fit the (padded) input "
                             f"{h}x{w}")
        blocks = [out("strided_slice", {"Input": x},
                      {"axes": [2, 3], "starts": [i * dh, j * dw],
                       "ends": [i * dh + (oh - 1) * sh + 1, j * dw + (ow - 1) * sw + 1],
                       "strides": [sh, sw], "infer_flags": [1, 1], "decrease_axis": []})
                  for i in range(kh) for j in range(kw)]
        stacked = manip.stack(blocks, axis=2)  # [N, C, K, oh, ow]
        return manip.reshape(stacked, [0, x.shape[1] * kh * kw, oh * ow])


class Fold(Layer):
    """The inverse arrangement of Unfold: columns [N, C*kh*kw, L] summed back into
    [N, C, H, W] (overlaps add up)."""

    def __init__(self, output_sizes, kernel_sizes, dilations=1, paddings=0, strides=1,
                 name=None):
        super().__init__()
        self.output_sizes = _pair(output_sizes, "output_sizes", "Fold")
        self.kernel_sizes = _pair(kernel_sizes, "kernel_sizes", "Fold")
        self.dilations = _pair(dilations, "dilations", "Fold")
        self.strides = _pair(strides, "strides", "Fold")
        self.paddings = _paddings(paddings, "Fold")

    def forward(self, x):
        (kh, kw), (dh, dw), (sh, sw) = self.kernel_sizes, self.dilations, self.strides
        top, bottom, left, right = self.paddings
        h, w = self.output_sizes[0] + top + bottom, self.output_sizes[1] + left + right
        oh, ow = (h - (dh * (kh - 1) + 1)) // sh + 1, (w - (dw * (kw - 1) + 1)) // sw + 1
        if len(x.shape) != 3 or x.shape[1] % (kh * kw) or x.shape[2] != oh * ow:
            raise BuildError(f"Fold: expected input [N, C*{kh * kw}, {oh * ow}], got shape "
                             f"{list(x.shape)}")
        channels = x.shape[1] // (kh * kw)
        cols = manip.reshape(x, [0, channels, kh * kw, oh, ow])
        parts = out("unstack", {"X": cols}, {"axis": 2, "num": kh * kw}, slot="Y")
        total = None
        for k, patch in enumerate(parts):
            i, j = divmod(k, kw)
            spread = _spread(patch, sh, sw, oh, ow)  # [N, C, (oh-1)*sh+1, (ow-1)*sw+1]
            ph, pw = (oh - 1) * sh + 1, (ow - 1) * sw + 1
            pads = [j * dw, w - j * dw - pw, i * dh, h - i * dh - ph, 0, 0]
            placed = manip.squeeze(_ops.pad3d(manip.unsqueeze(spread, 2), pads, "constant",
                                              0.0, "NCDHW"), 2)
            total = placed if total is None else total + placed
        if any(self.paddings):
            total = manip.slice(total, [2, 3], [top, left], [h - bottom, w - right])
        return total


def _spread(patch, sh, sw, oh, ow):
    """Zeros inserted between rows/columns: [N, C, oh, ow] -> [N, C, (oh-1)*sh+1, ...]."""
    if sh == 1 and sw == 1:
        return patch
    zeros = _ops.zeros_like(patch)
    y = manip.stack([patch] + [zeros] * (sh - 1), axis=3)  # [N, C, oh, sh, ow]
    y = manip.reshape(y, [0, 0, oh * sh, ow])
    zeros = _ops.zeros_like(y)
    y = manip.stack([y] + [zeros] * (sw - 1), axis=4)  # [N, C, oh*sh, ow, sw]
    y = manip.reshape(y, [0, 0, oh * sh, ow * sw])
    return manip.slice(y, [2, 3], [0, 0], [(oh - 1) * sh + 1, (ow - 1) * sw + 1])


class SpectralNorm(Layer):
    """weight / sigma, sigma the largest singular value of weight (dim first, flattened to
    [h, w]) estimated by power_iters power iterations from weight_u [h], weight_v [w]
    (Normal(0, 1), no gradient)."""

    def __init__(self, weight_shape, dim=0, power_iters=1, eps=1e-12, dtype="float32"):
        super().__init__(dtype=dtype)
        shape = list(weight_shape)
        if not shape or not -len(shape) <= dim < len(shape):
            raise BuildError(f"SpectralNorm: dim {dim} is out of range for weight_shape "
                             f"{shape}")
        if not isinstance(power_iters, int) or power_iters < 1:
            raise BuildError(f"SpectralNorm: power_iters must be a positive int, got "
                             f"{power_iters!r}")
        self._shape, self._dim = shape, dim % len(shape)
        self._power_iters, self._eps = power_iters, float(eps)
        h = shape[self._dim]
        w = int(np.prod(shape)) // h
        self.weight_u = self.create_parameter([h], ParamAttr(trainable=False),
                                              default_initializer=Normal(0.0, 1.0))
        self.weight_u.stop_gradient = True
        self.weight_v = self.create_parameter([w], ParamAttr(trainable=False),
                                              default_initializer=Normal(0.0, 1.0))
        self.weight_v.stop_gradient = True

    def _normalize(self, v):
        return v / (tmath.sqrt(tmath.sum(v * v)) + self._eps)

    def forward(self, x):
        if list(x.shape) != self._shape:
            raise BuildError(f"SpectralNorm: expected a weight of shape {self._shape}, got "
                             f"{list(x.shape)}")
        perm = [self._dim] + [d for d in range(len(self._shape)) if d != self._dim]
        mat = manip.reshape(manip.transpose(x, perm) if self._dim else x,
                            [self._shape[self._dim], -1])
        u = manip.unsqueeze(self.weight_u, 1)
        v = manip.unsqueeze(self.weight_v, 1)
        for _ in range(self._power_iters):
            v = self._normalize(tlinalg.matmul(mat, u, transpose_x=True))
            u = self._normalize(tlinalg.matmul(mat, v))
        sigma = tmath.sum(u * tlinalg.matmul(mat, v))
        return x / sigma


class SyncBatchNorm(_BatchNormBase):
    """BatchNorm across devices; pyir runs in one process, so it is BatchNorm."""

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCHW", name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format)

    def _check_input(self, x):
        if len(x.shape) < 2:
            raise BuildError(f"SyncBatchNorm needs an input of at least 2 dimensions, got "
                             f"shape {list(x.shape)}")

    @classmethod
    def convert_sync_batchnorm(cls, layer):
        """The layer unchanged: its batch norms already see the whole batch."""
        return layer


def spectral_norm(layer, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim=None):
    """Reparameterize `layer.<name>` as <name>_orig / sigma (its largest singular value,
    estimated by power iteration from the buffers <name>_u, <name>_v, which training-mode
    calls update eagerly). Returns the layer.

    Example:
        >>> fc = pyir.nn.spectral_norm(pyir.nn.Linear(4, 3))
    """
    weight = layer._parameters.get(name)
    if weight is None:
        raise BuildError(f"spectral_norm: {type(layer).__name__} has no parameter {name!r}")
    if not isinstance(n_power_iterations, int) or n_power_iterations < 0:
        raise BuildError(f"spectral_norm: n_power_iterations must be an int >= 0, got "
                         f"{n_power_iterations!r}")
    if dim is None:
        transposed = ("Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose", "Linear")
        dim = 1 if type(layer).__name__ in transposed else 0
    shape = list(weight.shape)
    dim %= len(shape)
    h = shape[dim]
    w = int(np.prod(shape)) // h
    del layer._parameters[name]
    layer.add_parameter(name + "_orig", weight)
    rng = np.random.default_rng()
    u, v = rng.normal(size=h), rng.normal(size=w)
    dtype = np.dtype(weight.dtype)
    for suffix, value in (("_u", u), ("_v", v)):
        value = (value / max(np.linalg.norm(value), eps)).astype(dtype)
        layer.register_buffer(name + suffix, _buffer(value, weight))

    def matrix(wt):
        perm = [dim] + [d for d in range(len(shape)) if d != dim]
        return manip.reshape(manip.transpose(wt, perm) if dim else wt, [h, -1])

    def normalize(x):
        norm = tmath.sqrt(tmath.sum(x * x))
        return x / tmath.clip(norm, eps, np.inf)

    def hook(module, inputs):
        orig = module._parameters[name + "_orig"]
        mat = matrix(orig)
        u_buf, v_buf = module._buffers[name + "_u"], module._buffers[name + "_v"]
        u_now, v_now = u_buf, v_buf
        if module.training and n_power_iterations:
            frozen = Tensor(orig.numpy()) if isinstance(orig, Tensor) else orig
            fmat = matrix(frozen)
            for _ in range(n_power_iterations):
                v_now = normalize(tlinalg.matmul(fmat, manip.unsqueeze(u_now, 1),
                                                 transpose_x=True))
                v_now = manip.squeeze(v_now, 1)
                u_now = manip.squeeze(normalize(tlinalg.matmul(
                    fmat, manip.unsqueeze(v_now, 1))), 1)
            if isinstance(u_buf, Tensor):  # eager: the buffers keep the iteration
                u_buf._value, v_buf._value = u_now.numpy().copy(), v_now.numpy().copy()
                u_now, v_now = Tensor(u_buf.numpy()), Tensor(v_buf.numpy())
        sigma = tmath.sum(u_now * manip.squeeze(tlinalg.matmul(
            mat, manip.unsqueeze(v_now, 1)), 1))
        module.register_buffer(name, orig / sigma, persistable=False)

    layer.register_forward_pre_hook(hook)
    hook(layer, ())
    return layer


def _buffer(value: np.ndarray, like):
    """A buffer holding `value`: an eager Tensor, or a persistable static variable filled by
    an assign_value op in the startup program."""
    if isinstance(like, Tensor):
        return Tensor(value)
    var_name = unique_name.generate(like.name + ".buffer")
    var = default_main_program().global_block().create_var(var_name, value.dtype,
                                                           list(value.shape), persistable=True)
    init = default_startup_program().global_block().create_var(
        var_name, value.dtype, list(value.shape), persistable=True)
    Assign(value)(init)
    return var
