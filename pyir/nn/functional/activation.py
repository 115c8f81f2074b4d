"""Activations of `paddle.nn.functional` (relu, gelu, softmax, ...), static and eager alike.

Each is one legacy op (the type and attributes Paddle 2.6's static mode emits); glu and swiglu
compose a few, as Paddle's Python does. In-place variants come from `inplace_of`.
"""

from __future__ import annotations

from ... import dtypes
from ...dispatch import inplace_of
from ...dispatch import out as _out
from ...framework import unique_name
from ...tensor import multiply, split
from ._base import fail as _fail
from ._base import written

__all__ = [
    "relu", "relu6", "elu", "selu", "celu", "gelu", "silu", "swish", "mish", "sigmoid",
    "hardsigmoid", "hardswish", "hardtanh", "hardshrink", "softshrink", "tanhshrink",
    "leaky_relu", "prelu", "rrelu", "log_sigmoid", "logsigmoid", "softplus", "softsign", "tanh",
    "thresholded_relu", "maxout", "glu", "swiglu", "gumbel_softmax", "softmax", "log_softmax",
    "relu_", "elu_", "hardtanh_", "leaky_relu_", "softmax_", "tanh_", "thresholded_relu_",
]

# Paddle names of this family pyir leaves out, with the reason (pyir/unsupported.py).
UNSUPPORTED: dict[str, str] = {}




def relu(x, name: str | None = None):
    """max(x, 0) (op `relu`).

    Example:
        >>> h = pyir.nn.functional.relu(x)   # relu_0.tmp_0
    """
    return _out("relu", {"X": x}, name=name)


def relu6(x, name: str | None = None):
    """min(max(x, 0), 6) (op `relu6`).

    Example:
        >>> h = F.relu6(x)
    """
    return _out("relu6", {"X": x}, name=name)


def elu(x, alpha: float = 1.0, name: str | None = None):
    """x if x > 0 else alpha (exp(x) - 1) (op `elu`).

    Example:
        >>> h = F.elu(x, alpha=0.5)
    """
    return _out("elu", {"X": x}, {"alpha": float(alpha)}, name=name)


def selu(x, scale: float = 1.0507009873554805, alpha: float = 1.6732632423543772,
         name: str | None = None):
    """scale * (x if x > 0 else alpha (exp(x) - 1)) (op `selu`); scale > 1, alpha >= 0.

    Example:
        >>> h = F.selu(x)
    """
    if scale <= 1.0:
        _fail("selu", f"scale must be greater than 1.0, got {scale}")
    if alpha < 0:
        _fail("selu", f"alpha must be no less than 0, got {alpha}")
    return _out("selu", {"X": x}, {"scale": float(scale), "alpha": float(alpha)}, name=name)


def celu(x, alpha: float = 1.0, name: str | None = None):
    """max(0, x) + min(0, alpha (exp(x / alpha) - 1)) (op `celu`); alpha must not be 0.

    Example:
        >>> h = F.celu(x, alpha=0.2)
    """
    if alpha == 0:
        _fail("celu", "alpha cannot be 0")
    return _out("celu", {"X": x}, {"alpha": float(alpha)}, name=name)


def gelu(x, approximate=False, name: str | None = None):
    """x * Phi(x), exact (erf) or with the tanh approximation (op `gelu`).

    Example:
        >>> h = F.gelu(x, approximate="tanh")
    """
    if isinstance(approximate, str):
        if approximate not in ("tanh", "none"):
            _fail("gelu", f"approximate must be True, False, 'tanh' or 'none', got "
                          f"{approximate!r}")
        approximate = approximate == "tanh"
    return _out("gelu", {"X": x}, {"approximate": bool(approximate)}, name=name)


def silu(x, inplace: bool = False, name: str | None = None):
    """x * sigmoid(x) (op `silu`); written back into x when `inplace`.

    Example:
        >>> h = F.silu(x)
    """
    if inplace:
        return _silu_inplace(x, name=name)
    return _out("silu", {"X": x}, name=name)


def _silu(x, name=None):
    return _out("silu", {"X": x}, name=name)


_silu_inplace = inplace_of(_silu, "silu_")


def swish(x, name: str | None = None):
    """x * sigmoid(x) (op `swish`).

    Example:
        >>> h = F.swish(x)
    """
    return _out("swish", {"X": x}, name=name)


def mish(x, name: str | None = None):
    """x * tanh(softplus(x)) (op `mish`, threshold 20).

    Example:
        >>> h = F.mish(x)
    """
    return _out("mish", {"X": x}, {"threshold": 20.0}, name=name)


def sigmoid(x, name: str | None = None, *, out=None):
    """1 / (1 + exp(-x)) (op `sigmoid`).

    Example:
        >>> p = F.sigmoid(logits)
    """
    return written(_out("sigmoid", {"X": x}, name=name), out)


def tanh(x, name: str | None = None, *, out=None):
    """tanh(x) (op `tanh`).

    Example:
        >>> h = F.tanh(x)
    """
    return written(_out("tanh", {"X": x}, name=name), out)


def hardsigmoid(x, slope: float = 0.1666667, offset: float = 0.5, name: str | None = None):
    """min(max(slope x + offset, 0), 1) (op `hard_sigmoid`).

    Example:
        >>> h = F.hardsigmoid(x)
    """
    return _out("hard_sigmoid", {"X": x}, {"slope": float(slope), "offset": float(offset)},
                name=name)


def hardswish(x, name: str | None = None):
    """x * min(max(x + 3, 0), 6) / 6 (op `hard_swish`).

    Example:
        >>> h = F.hardswish(x)
    """
    return _out("hard_swish", {"X": x}, {"threshold": 6.0, "scale": 6.0, "offset": 3.0},
                name=name)


def hardtanh(x, min: float = -1.0, max: float = 1.0, name: str | None = None):  # noqa: A002
    """min(max(x, min), max) (op `brelu`).

    Example:
        >>> h = F.hardtanh(x, -2.0, 2.0)
    """
    return _out("brelu", {"X": x}, {"t_min": float(min), "t_max": float(max)}, name=name)


def hardshrink(x, threshold: float = 0.5, name: str | None = None):
    """x where |x| > threshold, else 0 (op `hard_shrink`).

    Example:
        >>> h = F.hardshrink(x, 0.3)
    """
    return _out("hard_shrink", {"X": x}, {"threshold": float(threshold)}, name=name)


def softshrink(x, threshold: float = 0.5, name: str | None = None):
    """x - t if x > t, x + t if x < -t, else 0 (op `softshrink`, attribute `lambda`); t >= 0.

    Example:
        >>> h = F.softshrink(x, 0.3)
    """
    if threshold < 0:
        _fail("softshrink", f"threshold must be no less than 0, got {threshold}")
    return _out("softshrink", {"X": x}, {"lambda": float(threshold)}, name=name)


def tanhshrink(x, name: str | None = None):
    """x - tanh(x) (op `tanh_shrink`).

    Example:
        >>> h = F.tanhshrink(x)
    """
    return _out("tanh_shrink", {"X": x}, name=name)


def leaky_relu(x, negative_slope: float = 0.01, name: str | None = None):
    """x if x > 0 else negative_slope x (op `leaky_relu`, attribute `alpha`).

    Example:
        >>> h = F.leaky_relu(x, 0.2)
    """
    return _out("leaky_relu", {"X": x}, {"alpha": float(negative_slope)}, name=name)


_PRELU_FORMATS = ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC")


def prelu(x, weight, data_format: str = "NCHW", name: str | None = None):
    """x if x > 0 else weight x, one weight or one per channel (op `prelu`).

    Example:
        >>> h = F.prelu(x, alpha)   # alpha: [1] or [C]
    """
    if len(weight.shape) != 1:
        _fail("prelu", f"weight must be 1-D, got shape {list(weight.shape)}")
    if data_format not in _PRELU_FORMATS:
        _fail("prelu", f"data_format must be one of {', '.join(_PRELU_FORMATS)}, got "
                       f"{data_format!r}")
    mode = "all"
    if weight.shape[0] > 1:
        if len(x.shape) < 2:
            _fail("prelu", "a per-channel weight needs x of rank >= 2")
        channels = x.shape[1] if data_format[1] == "C" else x.shape[-1]
        if channels != weight.shape[0]:
            _fail("prelu", f"weight has {weight.shape[0]} values, x has {channels} channels")
        mode = "channel"
    fmt = "NCHW" if data_format[1] == "C" else "NHWC"
    return _out("prelu", {"X": x, "Alpha": weight}, {"mode": mode, "data_format": fmt},
                name=name)


def rrelu(x, lower: float = 1.0 / 8.0, upper: float = 1.0 / 3.0, training: bool = True,
          name: str | None = None):
    """x if x >= 0 else a x, a ~ U(lower, upper) in training, (lower + upper) / 2 otherwise
    (op `rrelu`).

    Example:
        >>> h = F.rrelu(x, training=False)
    """
    if not 0 <= lower <= 1:
        _fail("rrelu", f"lower must be in [0, 1], got {lower}")
    if not 0 <= upper <= 1:
        _fail("rrelu", f"upper must be in [0, 1], got {upper}")
    if lower > upper:
        _fail("rrelu", f"lower ({lower}) must be no greater than upper ({upper})")
    return _out("rrelu", {"X": x}, {"lower": float(lower), "upper": float(upper),
                                    "is_test": not training}, name=name)


def log_sigmoid(x, name: str | None = None):
    """log(sigmoid(x)) (op `logsigmoid`).

    Example:
        >>> h = F.log_sigmoid(x)
    """
    return _out("logsigmoid", {"X": x}, name=name)


logsigmoid = log_sigmoid


def softplus(x, beta: float = 1, threshold: float = 20, name: str | None = None):
    """log(1 + exp(beta x)) / beta, x where beta x > threshold (op `softplus`).

    Example:
        >>> h = F.softplus(x, beta=2)
    """
    return _out("softplus", {"X": x}, {"beta": float(beta), "threshold": float(threshold)},
                name=name)


def softsign(x, name: str | None = None):
    """x / (1 + |x|) (op `softsign`).

    Example:
        >>> h = F.softsign(x)
    """
    return _out("softsign", {"X": x}, name=name)


def thresholded_relu(x, threshold: float = 1.0, value: float = 0.0, name: str | None = None):
    """x if x > threshold else value (op `thresholded_relu`).

    Example:
        >>> h = F.thresholded_relu(x, 0.5)
    """
    return _out("thresholded_relu", {"X": x},
                {"threshold": float(threshold), "value": float(value)}, name=name)


def maxout(x, groups: int, axis: int = 1, name: str | None = None):
    """The max over each group of `groups` consecutive channels (op `maxout`); x is 4-D,
    axis 1 (NCHW) or -1 / 3 (NHWC).

    Example:
        >>> h = F.maxout(x, groups=2)   # [N, 4, H, W] -> [N, 2, H, W]
    """
    if axis not in (1, -1, 3):
        _fail("maxout", f"axis must be 1 (NCHW) or -1 / 3 (NHWC), got {axis}")
    if len(x.shape) != 4:
        _fail("maxout", f"x must be 4-D, got shape {list(x.shape)}")
    channels = x.shape[axis]
    if channels > 0 and channels % groups:
        _fail("maxout", f"the channel count {channels} is not divisible by groups={groups}")
    return _out("maxout", {"X": x}, {"groups": int(groups), "axis": 3 if axis == -1 else axis},
                name=name)


def glu(x, axis: int = -1, name: str | None = None):
    """a * sigmoid(b), x split into halves a, b along `axis` (split, sigmoid,
    elementwise_mul).

    Example:
        >>> h = F.glu(x, axis=1)   # [N, 2C] -> [N, C]
    """
    if x.shape[axis] > 0 and x.shape[axis] % 2:
        _fail("glu", f"the size of axis {axis} must be even, got {x.shape[axis]}", "split")
    a, b = split(x, 2, axis=axis % len(x.shape))  # Paddle's split gets a non-negative axis
    return multiply(a, sigmoid(b), name=name)


def swiglu(x, y=None, name: str | None = None):
    """silu(x) * y; without y, x is split into halves (x, y) along the last axis.

    Example:
        >>> h = F.swiglu(gate, up)
    """
    if y is None:
        if x.shape[-1] > 0 and x.shape[-1] % 2:
            _fail("swiglu", f"the last axis must be even without y, got {x.shape[-1]}")
        x, y = split(x, 2, axis=len(x.shape) - 1)
    return multiply(_out("silu", {"X": x}), y, name=name)


def gumbel_softmax(x, temperature: float = 1.0, hard: bool = False, axis: int = -1,
                   name: str | None = None):
    """softmax((x + Gumbel noise) / temperature), one-hot when `hard` (op `gumbel_softmax`).

    Example:
        >>> sample = F.gumbel_softmax(logits, temperature=0.5, hard=True)
    """
    if temperature <= 0:
        _fail("gumbel_softmax", f"temperature must be positive, got {temperature}")
    return _out("gumbel_softmax", {"X": x}, {"temperature": float(temperature),
                                              "hard": bool(hard), "axis": int(axis)}, name=name)


def _softmax_like(op_type: str, x, axis: int, dtype, name):
    """`op_type` on x (cast to `dtype` first, inside the same name scope, as Paddle does)."""
    helper = name
    if dtype is not None and dtypes.to_numpy(dtype) != x.dtype:
        helper = name or unique_name.generate(op_type)
        x = _out("cast", {"X": x}, {"in_dtype": dtypes.to_code(x.dtype),
                                    "out_dtype": dtypes.to_code(dtypes.to_numpy(dtype))},
                 name=helper)
    return _out(op_type, {"X": x}, {"axis": int(axis)}, name=helper)


def softmax(x, axis: int = -1, dtype=None, name: str | None = None, *, out=None):
    """exp(x) / sum(exp(x)) along `axis` (op `softmax`; x is cast to `dtype` first if given).

    Example:
        >>> p = pyir.nn.functional.softmax(logits, axis=-1)
    """
    return written(_softmax_like("softmax", x, axis, dtype, name), out)


def log_softmax(x, axis: int = -1, dtype=None, name: str | None = None):
    """log(softmax(x)) along `axis` (op `log_softmax`).

    Example:
        >>> logp = pyir.nn.functional.log_softmax(logits)
    """
    return _softmax_like("log_softmax", x, axis, dtype, name)


relu_ = inplace_of(relu, "relu_")
elu_ = inplace_of(elu, "elu_")
hardtanh_ = inplace_of(hardtanh, "hardtanh_")
leaky_relu_ = inplace_of(leaky_relu, "leaky_relu_")
softmax_ = inplace_of(softmax, "softmax_")
tanh_ = inplace_of(tanh, "tanh_")
thresholded_relu_ = inplace_of(thresholded_relu, "thresholded_relu_")
