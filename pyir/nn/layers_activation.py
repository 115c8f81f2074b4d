"""Activation layers. Each is its op (`relu`, `gelu`, `leaky_relu`, ...) or, where Paddle's op
is not in pyir's registry yet, the same function composed from registered ops."""

from __future__ import annotations

from .. import dtypes
from ..dispatch import out
from ..errors import BuildError
from ..initializers import Constant
from ..tensor import manipulation as manip
from ..tensor import math as tmath
from . import _ops
from .layer_base import Layer

__all__ = ["ReLU", "ReLU6", "Sigmoid", "Tanh", "GELU", "Silu", "SiLU", "Swish", "Mish",
           "Hardswish", "Hardsigmoid", "Softsign", "LeakyReLU", "ELU", "CELU", "SELU",
           "Softplus", "Softshrink", "Hardshrink", "Tanhshrink", "ThresholdedReLU",
           "LogSigmoid", "Hardtanh", "Softmax", "LogSoftmax", "Softmax2D", "PReLU", "RReLU",
           "Maxout", "GLU"]


def _simple(name: str, op_type: str, doc: str, params=(), attr_of=None):
    """A layer class whose forward is one op; `params` are (name, default) constructor
    arguments, `attr_of(self)` their op attributes."""

    def __init__(self, *args, name=None, **kwargs):
        Layer.__init__(self)
        if len(args) > len(params):
            raise BuildError(f"{type(self).__name__} takes at most {len(params)} arguments")
        values = dict(params)
        values.update(zip([p for p, _ in params], args))
        for key, value in kwargs.items():
            if key not in values:
                raise BuildError(f"{type(self).__name__} got an unexpected argument {key!r}")
            values[key] = value
        self._config = values
        self._name = name

    def forward(self, x):
        return out(op_type, {"X": x}, attr_of(self._config) if attr_of else {}, name=self._name)

    def extra_repr(self):
        shown = ", ".join(f"{k}={v}" for k, v in self._config.items())
        return shown + (f", name={self._name}" if self._name else ("" if shown else ""))

    return type(name, (Layer,), {"__init__": __init__, "forward": forward,
                                 "extra_repr": extra_repr, "__doc__": doc,
                                 "__module__": __name__})


ReLU = _simple("ReLU", "relu", "max(x, 0) (`relu`).")
ReLU6 = _simple("ReLU6", "relu6", "min(max(x, 0), 6) (`relu6`).")
Sigmoid = _simple("Sigmoid", "sigmoid", "1 / (1 + exp(-x)) (`sigmoid`).")
Tanh = _simple("Tanh", "tanh", "tanh(x) (`tanh`).")
Silu = _simple("Silu", "silu", "x * sigmoid(x) (`silu`).")
SiLU = Silu
Swish = _simple("Swish", "swish", "x * sigmoid(x) (`swish`).")
Mish = _simple("Mish", "mish", "x * tanh(softplus(x)) (`mish`).")
Softsign = _simple("Softsign", "softsign", "x / (1 + |x|) (`softsign`).")
Hardswish = _simple("Hardswish", "hard_swish", "x * relu6(x + 3) / 6 (`hard_swish`).",
                    attr_of=lambda c: {"threshold": 6.0, "scale": 6.0, "offset": 3.0})
Hardsigmoid = _simple("Hardsigmoid", "hard_sigmoid", "clip(x / 6 + 0.5, 0, 1) "
                      "(`hard_sigmoid`).",
                      attr_of=lambda c: {"slope": 0.1666667, "offset": 0.5})
GELU = _simple("GELU", "gelu", "x * Phi(x), or its tanh approximation (`gelu`).",
               [("approximate", False)], lambda c: {"approximate": bool(c["approximate"])})
LeakyReLU = _simple("LeakyReLU", "leaky_relu", "x if x > 0 else negative_slope * x.",
                    [("negative_slope", 0.01)], lambda c: {"alpha": float(c["negative_slope"])})
ELU = _simple("ELU", "elu", "x if x > 0 else alpha * (exp(x) - 1) (`elu`).",
              [("alpha", 1.0)], lambda c: {"alpha": float(c["alpha"])})
SELU = _simple("SELU", "selu", "scale * (x if x > 0 else alpha * (exp(x) - 1)) (`selu`).",
               [("scale", 1.0507009873554804934193349852946),
                ("alpha", 1.6732632423543772848170429916717)],
               lambda c: {"scale": float(c["scale"]), "alpha": float(c["alpha"])})
Softplus = _simple("Softplus", "softplus", "log(1 + exp(beta * x)) / beta (`softplus`).",
                   [("beta", 1.0), ("threshold", 20.0)],
                   lambda c: {"beta": float(c["beta"]), "threshold": float(c["threshold"])})


class Softmax(Layer):
    """exp(x) / sum(exp(x)) along axis (`softmax`)."""

    _op = "softmax"

    def __init__(self, axis: int = -1, name=None):
        super().__init__()
        self._axis, self._name = axis, name

    def forward(self, x):
        return out(self._op, {"X": x}, {"axis": self._axis}, name=self._name)

    def extra_repr(self):
        return f"axis={self._axis}"


class LogSoftmax(Softmax):
    """log(softmax(x)) along axis (`log_softmax`)."""

    _op = "log_softmax"


class Softmax2D(Softmax):
    """Softmax over the channels of CHW or NCHW input."""

    def __init__(self, name=None):
        super().__init__(-3, name)

    def forward(self, x):
        if len(x.shape) not in (3, 4):
            raise BuildError(f"Softmax2D needs a 3-D or 4-D input, got shape {list(x.shape)}")
        return super().forward(x)


class CELU(Layer):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""

    def __init__(self, alpha: float = 1.0, name=None):
        super().__init__()
        if alpha == 0:
            raise BuildError("CELU: alpha must not be 0")
        self._alpha = float(alpha)

    def forward(self, x):
        neg = (_ops.exp(x * (1.0 / self._alpha)) - 1.0) * self._alpha
        return _ops.where(x > 0.0, x, neg)

    def extra_repr(self):
        return f"alpha={self._alpha}"


class Softshrink(Layer):
    """x - t if x > t, x + t if x < -t, else 0."""

    def __init__(self, threshold: float = 0.5, name=None):
        super().__init__()
        if threshold < 0:
            raise BuildError(f"Softshrink: threshold must be >= 0, got {threshold}")
        self._threshold = float(threshold)

    def forward(self, x):
        t = self._threshold
        zero = _ops.zeros_like(x)
        return _ops.where(x > t, x - t, _ops.where(x < -t, x + t, zero))


class Hardshrink(Layer):
    """x if |x| > threshold else 0."""

    def __init__(self, threshold: float = 0.5, name=None):
        super().__init__()
        self._threshold = float(threshold)

    def forward(self, x):
        t = self._threshold
        return _ops.where((x > t) | (x < -t), x, _ops.zeros_like(x))


class Tanhshrink(Layer):
    """x - tanh(x)."""

    def forward(self, x):
        return x - tmath.tanh(x)


class ThresholdedReLU(Layer):
    """x if x > threshold else value."""

    def __init__(self, threshold: float = 1.0, value: float = 0.0, name=None):
        super().__init__()
        self._threshold, self._value = float(threshold), float(value)

    def forward(self, x):
        fill = _ops.zeros_like(x) + self._value
        return _ops.where(x > self._threshold, x, fill)


class LogSigmoid(Layer):
    """log(sigmoid(x)) = -softplus(-x)."""

    def forward(self, x):
        return -_ops.softplus(-x)


class Hardtanh(Layer):
    """clip(x, min, max)."""

    def __init__(self, min: float = -1.0, max: float = 1.0, name=None):  # noqa: A002
        super().__init__()
        if min > max:
            raise BuildError(f"Hardtanh: min {min} is larger than max {max}")
        self._min, self._max = float(min), float(max)

    def forward(self, x):
        return tmath.clip(x, self._min, self._max)


class PReLU(Layer):
    """x if x > 0 else weight * x, with one weight or one per channel (`prelu`); the parameter
    is `_weight`, initialized to `init`."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, weight_attr=None,
                 data_format: str = "NCHW", name=None):
        super().__init__()
        if not isinstance(num_parameters, int) or num_parameters <= 0:
            raise BuildError(f"PReLU: num_parameters must be a positive int, got "
                             f"{num_parameters!r}")
        self._num_parameters, self._init, self._data_format = num_parameters, init, data_format
        self._weight = self.create_parameter([num_parameters], weight_attr,
                                             default_initializer=Constant(init))

    def forward(self, x):
        mode = "all" if self._num_parameters == 1 else "channel"
        return out("prelu", {"X": x, "Alpha": self._weight},
                   {"mode": mode, "data_format": self._data_format})

    def extra_repr(self):
        return f"num_parameters={self._num_parameters}, data_format={self._data_format}, " \
               f"init={self._init}, dtype={self._dtype}"


class RReLU(Layer):
    """Leaky ReLU with a random slope in [lower, upper] while training, their mean in eval."""

    def __init__(self, lower: float = 1.0 / 8.0, upper: float = 1.0 / 3.0, name=None):
        super().__init__()
        if not 0 <= lower <= upper <= 1:
            raise BuildError(f"RReLU: need 0 <= lower <= upper <= 1, got lower={lower}, "
                             f"upper={upper}")
        self._lower, self._upper = float(lower), float(upper)

    def forward(self, x):
        if not self.training:
            return out("leaky_relu", {"X": x}, {"alpha": (self._lower + self._upper) / 2})
        attrs = {"min": self._lower, "max": self._upper, "seed": 0,
                 "dtype": dtypes.to_code(x.dtype)}
        if all(int(d) >= 0 for d in x.shape):
            slope = out("uniform_random", {}, {**attrs, "shape": list(x.shape)}, like=x)
        else:  # a batch dimension known only when run
            slope = out("uniform_random", {"ShapeTensor": out("shape", {"Input": x})}, attrs)
        return _ops.where(x >= 0.0, x, x * slope)


class Maxout(Layer):
    """The maximum over `groups` consecutive channels: [N, C, ...] -> [N, C/groups, ...]."""

    def __init__(self, groups: int, axis: int = 1, name=None):
        super().__init__()
        if not isinstance(groups, int) or groups <= 0:
            raise BuildError(f"Maxout: groups must be a positive int, got {groups!r}")
        self._groups, self._axis = groups, axis

    def forward(self, x):
        n = len(x.shape)
        axis = self._axis % n
        c = x.shape[axis]
        if c % self._groups:
            raise BuildError(f"Maxout: channels {c} are not divisible by groups {self._groups}")
        shape = [0] * axis + [c // self._groups, self._groups] + list(x.shape[axis + 1:])
        return tmath.max(manip.reshape(x, shape), axis=axis + 1)


class GLU(Layer):
    """a * sigmoid(b), with x split in halves a, b along axis."""

    def __init__(self, axis: int = -1, name=None):
        super().__init__()
        self._axis = axis

    def forward(self, x):
        if x.shape[self._axis] % 2:
            raise BuildError(f"GLU: the size of axis {self._axis} must be even, got "
                             f"{x.shape[self._axis]}")
        a, b = manip.split(x, 2, axis=self._axis)
        return a * _ops.sigmoid(b)

