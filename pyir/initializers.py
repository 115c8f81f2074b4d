"""Parameter initializers (`paddle.nn.initializer`), one definition for both modes.

An initializer called on a static Variable appends the startup op(s) Paddle emits for it
(`fill_constant`, `uniform_random`, `gaussian_random`, `truncated_gaussian_random`,
`assign_value`, ...) to the given block; called on an eager Tensor it runs the same op's
kernel now and writes the value into the tensor.

    init(param, block=None)
      +-- static: _emit(var, block)      the startup op(s), with Paddle's attributes
      +-- eager:  _value(shape, dtype)   the same op run now (run_op), or numpy
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from . import dtypes, eager
from .builder import emit
from .errors import BuildError
from .framework import Variable, default_startup_program
from .ops._helpers import rng_for

__all__ = ["Initializer", "Constant", "Uniform", "Normal", "TruncatedNormal", "XavierNormal",
           "XavierUniform", "KaimingNormal", "KaimingUniform", "Assign", "Orthogonal", "Dirac",
           "Bilinear", "calculate_gain", "set_global_initializer", "ConstantInitializer",
           "UniformInitializer", "NormalInitializer", "TruncatedNormalInitializer",
           "XavierInitializer", "MSRAInitializer", "NumpyArrayInitializer"]


class Initializer:
    """Base: `init(param, block=None)` fills a static parameter (ops in `block`, default the
    startup program) or an eager Tensor (now).

    Subclasses give `_op(shape, dtype) -> (op_type, attrs)` for one-op initializers, or
    override `_emit` and `_value`.
    """

    def __call__(self, param, block=None):
        if isinstance(param, Variable):
            block = block or default_startup_program().global_block()
            return self._emit(param, block)
        if isinstance(param, eager.Tensor):
            value = self._value(tuple(param.shape), param.dtype)
            param._value = np.asarray(value, dtype=param.dtype).reshape(param.shape)
            return param
        raise BuildError(f"{type(self).__name__}: expected a static Variable or an eager "
                         f"Tensor to initialize, got {type(param).__name__}")

    def forward(self, param, block=None):
        """The same as calling the initializer (Paddle's spelling)."""
        return self(param, block)

    init = forward  # pyir's earlier spelling, init(var, block)

    def _op(self, shape, dtype, seed: int) -> tuple[str, dict]:
        raise NotImplementedError(f"{type(self).__name__} must define _op or _emit/_value")

    def _emit(self, var, block):
        op_type, attrs = self._op(list(var.shape), var.dtype, block.program.random_seed)
        return emit(op_type, attrs=attrs, outputs={"Out": var}, block=block)["Out"]

    def _value(self, shape, dtype) -> np.ndarray:
        op_type, attrs = self._op(list(shape), dtype, 0)
        return eager.run_op(op_type, {}, attrs)["Out"].numpy()


def _code(dtype) -> int:
    return dtypes.to_code(dtype)


class Constant(Initializer):
    """Every element = value (`fill_constant`).

    Example:
        >>> pyir.ParamAttr(initializer=pyir.nn.initializer.Constant(0.5))
    """

    def __init__(self, value: float = 0.0, force_cpu: bool = False):
        if not isinstance(value, numbers.Number):
            raise BuildError(f"Constant initializer: value must be a number, got {value!r}")
        self.value = float(value)

    def _op(self, shape, dtype, seed):
        return "fill_constant", {"shape": shape, "value": self.value, "str_value":
                                 repr(self.value), "dtype": _code(dtype)}


class Uniform(Initializer):
    """Elements ~ U[low, high) (`uniform_random`).

    Example:
        >>> pyir.nn.initializer.Uniform(-0.1, 0.1)
    """

    def __init__(self, low: float = -1.0, high: float = 1.0, seed: int = 0, name=None,
                 diag_num: int = 0, diag_step: int = 0, diag_val: float = 1.0):
        if float(low) > float(high):
            raise BuildError(f"Uniform initializer: low {low} is larger than high {high}")
        self.low, self.high, self.seed = float(low), float(high), int(seed)
        self.diag = (int(diag_num), int(diag_step), float(diag_val))

    def _op(self, shape, dtype, seed):
        return "uniform_random", {"shape": shape, "min": self.low, "max": self.high,
                                  "seed": self.seed or seed, "diag_num": self.diag[0],
                                  "diag_step": self.diag[1], "diag_val": self.diag[2],
                                  "dtype": _code(dtype)}


class Normal(Initializer):
    """Elements ~ N(mean, std^2) (`gaussian_random`).

    Example:
        >>> pyir.nn.initializer.Normal(0.0, 0.02)
    """

    def __init__(self, mean: float = 0.0, std: float = 1.0, seed: int = 0, name=None):
        if float(std) < 0:
            raise BuildError(f"Normal initializer: std must be >= 0, got {std}")
        self.mean, self.std, self.seed = float(mean), float(std), int(seed)

    def _op(self, shape, dtype, seed):
        return "gaussian_random", {"shape": shape, "mean": self.mean, "std": self.std,
                                   "seed": self.seed or seed, "dtype": _code(dtype)}


class TruncatedNormal(Initializer):
    """Elements ~ N(mean, std^2) cut to [a, b] (`truncated_gaussian_random`).

    Example:
        >>> pyir.nn.initializer.TruncatedNormal(0.0, 0.02)
    """

    def __init__(self, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                 name=None, seed: int = 0):
        if float(a) >= float(b):
            raise BuildError(f"TruncatedNormal initializer: a ({a}) must be below b ({b})")
        self.mean, self.std, self.a, self.b = float(mean), float(std), float(a), float(b)
        self.seed = int(seed)

    def _op(self, shape, dtype, seed):
        return "truncated_gaussian_random", {"shape": shape, "mean": self.mean, "std": self.std,
                                             "seed": self.seed or seed, "a": self.a, "b": self.b,
                                             "dtype": _code(dtype)}


def compute_fans(shape) -> tuple[float, float]:
    """(fan_in, fan_out) as Paddle computes them: [in, out] for 2-D weights, [out, in, k...]
    times the receptive field for convolution weights, the size for 0/1-D."""
    shape = list(shape)
    if not shape:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = int(np.prod(shape[2:]))
    return shape[1] * receptive, shape[0] * receptive


class XavierUniform(Initializer):
    """U[-l, l] with l = gain * sqrt(6 / (fan_in + fan_out)) (`uniform_random`)."""

    def __init__(self, fan_in=None, fan_out=None, gain: float = 1.0, name=None, seed: int = 0):
        self.fan_in, self.fan_out, self.gain, self.seed = fan_in, fan_out, float(gain), seed

    def _op(self, shape, dtype, seed):
        fi, fo = compute_fans(shape)
        fi, fo = self.fan_in or fi, self.fan_out or fo
        limit = self.gain * math.sqrt(6.0 / float(fi + fo))
        return Uniform(-limit, limit, self.seed)._op(shape, dtype, seed)


class XavierNormal(Initializer):
    """N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out)) (`gaussian_random`)."""

    def __init__(self, fan_in=None, fan_out=None, gain: float = 1.0, name=None, seed: int = 0):
        self.fan_in, self.fan_out, self.gain, self.seed = fan_in, fan_out, float(gain), seed

    def _op(self, shape, dtype, seed):
        fi, fo = compute_fans(shape)
        fi, fo = self.fan_in or fi, self.fan_out or fo
        return Normal(0.0, self.gain * math.sqrt(2.0 / float(fi + fo)),
                      self.seed)._op(shape, dtype, seed)


def calculate_gain(nonlinearity: str, param=None) -> float:
    """The recommended gain of a nonlinearity (relu: sqrt(2), tanh: 5/3, ...).

    Example:
        >>> pyir.nn.initializer.calculate_gain("leaky_relu", 0.1)
    """
    if param is None:
        param = 0.01
    if not isinstance(param, (int, float)) or isinstance(param, bool):
        raise BuildError(f"calculate_gain: param must be a number, got {param!r}")
    gains = {"sigmoid": 1.0, "linear": 1.0, "conv1d": 1.0, "conv2d": 1.0, "conv3d": 1.0,
             "conv1d_transpose": 1.0, "conv2d_transpose": 1.0, "conv3d_transpose": 1.0,
             "tanh": 5.0 / 3, "relu": math.sqrt(2.0),
             "leaky_relu": math.sqrt(2.0 / (1 + float(param) ** 2)), "selu": 3.0 / 4}
    if nonlinearity not in gains:
        raise BuildError(f"calculate_gain: unknown nonlinearity {nonlinearity!r}; expected one "
                         f"of {', '.join(sorted(gains))}")
    return gains[nonlinearity]


class _Kaiming(Initializer):
    uniform = True

    def __init__(self, fan_in=None, negative_slope: float = 0.0, nonlinearity: str = "relu",
                 mode: str = "fan_in", seed: int = 0):
        if mode not in ("fan_in", "fan_out"):
            raise BuildError(f"{type(self).__name__}: mode must be 'fan_in' or 'fan_out', "
                             f"got {mode!r}")
        self.fan_in, self.slope, self.nonlinearity = fan_in, float(negative_slope), nonlinearity
        self.mode, self.seed = mode, int(seed)

    def _op(self, shape, dtype, seed):
        fi, fo = compute_fans(shape)
        fan = self.fan_in or (fi if self.mode == "fan_in" else fo)
        gain = calculate_gain(self.nonlinearity, self.slope)
        if self.uniform:
            limit = gain * math.sqrt(3.0 / float(fan))
            return Uniform(-limit, limit, self.seed)._op(shape, dtype, seed)
        return Normal(0.0, gain / math.sqrt(float(fan)), self.seed)._op(shape, dtype, seed)


class KaimingUniform(_Kaiming):
    """U[-l, l], l = gain * sqrt(3 / fan_in) (He et al.)."""


class KaimingNormal(_Kaiming):
    """N(0, std^2), std = gain / sqrt(fan_in) (He et al.)."""

    uniform = False


def MSRAInitializer(uniform: bool = True, fan_in=None, seed: int = 0,  # noqa: N802
                    negative_slope: float = 0, nonlinearity: str = "relu", mode: str = "fan_in"):
    """Paddle's older name for KaimingUniform/KaimingNormal."""
    cls = KaimingUniform if uniform else KaimingNormal
    return cls(fan_in, negative_slope, nonlinearity, mode, seed)


def XavierInitializer(uniform: bool = True, fan_in=None, fan_out=None, seed: int = 0,  # noqa: N802
                      gain: float = 1.0):
    """Paddle's older name for XavierUniform/XavierNormal."""
    return (XavierUniform if uniform else XavierNormal)(fan_in, fan_out, gain, seed=seed)


class _ValueInitializer(Initializer):
    """Initializers whose values are known when the program is built: `assign_value`."""

    def _array(self, shape, dtype) -> np.ndarray:
        raise NotImplementedError

    def _emit(self, var, block):
        value = np.asarray(self._array(tuple(var.shape), var.dtype))
        if value.dtype == np.bool_ or np.dtype(var.dtype) == np.bool_:
            data = [bool(v) for v in value.ravel()]
        elif np.dtype(var.dtype).kind in "iu":
            data = [int(v) for v in value.ravel()]
        else:
            data = [float(v) for v in value.ravel()]
        return emit("assign_value", attrs={"shape": list(var.shape), "dtype": _code(var.dtype),
                                           "values": data},
                    outputs={"Out": var}, block=block)["Out"]

    def _value(self, shape, dtype):
        return self._array(shape, dtype)


class Assign(_ValueInitializer):
    """The given values (numpy array, list or Tensor), whose size must match the parameter.

    Example:
        >>> pyir.ParamAttr(initializer=pyir.nn.initializer.Assign(np.eye(3)))
    """

    def __init__(self, value, name=None):
        if isinstance(value, eager.Tensor):
            value = value.numpy()
        elif isinstance(value, Variable):
            raise BuildError("Assign initializer: a static Variable has no value yet; pass a "
                             "numpy array, a list or an eager Tensor")
        self.value = np.array(value)
        if self.value.dtype == object:
            raise BuildError("Assign initializer: value must be a numeric array or list")

    def _array(self, shape, dtype):
        if self.value.size != int(np.prod(shape)):
            raise BuildError(f"Assign initializer: the value has {self.value.size} elements "
                             f"(shape {list(self.value.shape)}) but the parameter has shape "
                             f"{list(shape)}")
        return self.value.astype(dtypes.to_numpy(dtype)).reshape(shape)


NumpyArrayInitializer = Assign


class Orthogonal(_ValueInitializer):
    """A (semi-)orthogonal matrix of the parameter flattened to [shape[0], rest], times gain.

    Static mode writes the values (drawn when the program is built) with `assign_value`;
    Paddle emits gaussian_random + qr instead, which pyir has no op for.
    """

    def __init__(self, gain: float = 1.0, name=None, seed: int = 0):
        self.gain, self.seed = float(gain), int(seed)

    def _array(self, shape, dtype):
        if len(shape) < 2:
            raise BuildError(f"Orthogonal initializer needs a parameter of at least 2 "
                             f"dimensions, got shape {list(shape)}")
        rows, cols = shape[0], int(np.prod(shape[1:]))
        flat = rng_for(self.seed).normal(0.0, 1.0, (max(rows, cols), min(rows, cols)))
        q, r = np.linalg.qr(flat)
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        return (self.gain * q).reshape(shape).astype(dtypes.to_numpy(dtype))


class Dirac(Initializer):
    """A convolution kernel that passes its input through: 1 at the kernel centre of
    [g * out_per_group + i, i] for i < min(out_per_group, in_channels), 0 elsewhere."""

    def __init__(self, groups: int = 1, name=None):
        if int(groups) <= 0:
            raise BuildError(f"Dirac initializer: groups must be positive, got {groups}")
        self.groups = int(groups)

    def _indices(self, shape) -> list[int]:
        if len(shape) not in (3, 4, 5):
            raise BuildError(f"Dirac initializer needs a 3-D, 4-D or 5-D convolution weight, "
                             f"got shape {list(shape)}")
        if shape[0] % self.groups:
            raise BuildError(f"Dirac initializer: out channels {shape[0]} are not divisible by "
                             f"groups {self.groups}")
        per_group = shape[0] // self.groups
        centre = [k // 2 for k in shape[2:]]
        return [int(np.ravel_multi_index((g * per_group + i, i, *centre), shape))
                for g in range(self.groups) for i in range(min(per_group, shape[1]))]

    def _value(self, shape, dtype):
        out = np.zeros(int(np.prod(shape)), dtype=dtypes.to_numpy(dtype))
        out[self._indices(shape)] = 1
        return out.reshape(shape)

    def _emit(self, var, block):
        index = self._indices(var.shape)
        emit("fill_constant", attrs={"shape": list(var.shape), "value": 0.0, "str_value": "",
                                     "dtype": _code(var.dtype)}, outputs={"Out": var},
             block=block)
        emit("reshape2", {"X": var}, {"shape": [-1]}, outputs={"Out": var}, block=block)
        ids = emit("assign_value", attrs={"shape": [len(index)], "dtype": _code("int64"),
                                          "values": index}, block=block)["Out"]
        ones = emit("assign_value", attrs={"shape": [len(index)], "dtype": _code(var.dtype),
                                           "values": [1.0] * len(index)}, block=block)["Out"]
        emit("scatter", {"X": var, "Ids": ids, "Updates": ones}, {"overwrite": True},
             outputs={"Out": var}, block=block)
        return emit("reshape2", {"X": var}, {"shape": list(var.shape)}, outputs={"Out": var},
                    block=block)["Out"]


class Bilinear(_ValueInitializer):
    """Bilinear-upsampling weights for a transposed convolution [C_out, C_in, K, K]."""

    def _array(self, shape, dtype):
        if len(shape) != 4 or shape[2] != shape[3]:
            raise BuildError(f"Bilinear initializer needs a 4-D weight with square kernels, got "
                             f"shape {list(shape)}")
        size = shape[3]
        f = math.ceil(size / 2.0)
        c = (2 * f - 1 - f % 2) / (2.0 * f)
        i = np.arange(int(np.prod(shape)))
        # Paddle divides i / size in floating point (not //): its values, kept here
        x, y = i % size, (i / size) % size
        weight = (1 - np.abs(x / f - c)) * (1 - np.abs(y / f - c))
        return weight.reshape(shape).astype(dtypes.to_numpy(dtype))


# Paddle's older spellings, taking (loc, scale, seed) etc.
def ConstantInitializer(value: float = 0.0, force_cpu: bool = False):  # noqa: N802
    return Constant(value)


def UniformInitializer(low=-1.0, high=1.0, seed=0, diag_num=0, diag_step=0,  # noqa: N802
                       diag_val=1.0):
    return Uniform(low, high, seed, diag_num=diag_num, diag_step=diag_step, diag_val=diag_val)


def NormalInitializer(loc=0.0, scale=1.0, seed=0):  # noqa: N802
    return Normal(loc, scale, seed)


def TruncatedNormalInitializer(loc=0.0, scale=1.0, seed=0, a=-2.0, b=2.0):  # noqa: N802
    return TruncatedNormal(loc, scale, a, b, seed=seed)


# --- the global default initializers --------------------------------------------------------
_global = {"weight": None, "bias": None}


def set_global_initializer(weight_init, bias_init=None) -> None:
    """Initializers for every later parameter whose ParamAttr names none (None resets).

    Example:
        >>> pyir.nn.initializer.set_global_initializer(Uniform(-1, 1), Constant(0))
    """
    for what, init in (("weight_init", weight_init), ("bias_init", bias_init)):
        if init is not None and not isinstance(init, Initializer):
            raise BuildError(f"set_global_initializer: {what} must be an Initializer or None, "
                             f"got {type(init).__name__}")
    _global["weight"], _global["bias"] = weight_init, bias_init


def global_initializer(is_bias: bool):
    """The initializer set by `set_global_initializer` for weights or biases, or None."""
    return _global["bias" if is_bias else "weight"]
