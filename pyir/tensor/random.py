"""Random tensors: `pyir.rand`, `pyir.randn`, `pyir.randint`, `pyir.normal`,
`pyir.bernoulli`, `pyir.multinomial`, ... and the in-place fills `x.normal_()`,
`x.exponential_()`, ... (Paddle's `paddle.tensor.random`), emitting Paddle's legacy random ops
(uniform_random, gaussian_random, randint, randperm, bernoulli, ...).

Every draw comes from the global stream (`pyir.seed(n)` makes it repeat) unless a nonzero
`seed` argument fixes the op's own stream. Created static variables are constants.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from .. import dtypes
from .. import random as _stream
from ..dispatch import constant, dtype_of, inplace_of, out
from ..errors import BuildError, Where
from .manip_shape import TENSORS, cast, signed_like, tensor_ints

__all__ = ["rand", "randn", "uniform", "standard_normal", "normal", "log_normal", "randint",
           "randint_like", "randperm", "bernoulli", "multinomial", "poisson", "binomial",
           "standard_gamma", "rand_like", "randn_like", "get_rng_state", "set_rng_state",
           "exponential_", "normal_", "uniform_", "bernoulli_", "cauchy_", "geometric_",
           "log_normal_"]

# Paddle names of this family pyir leaves out, with the reason (pyir/unsupported.py).
UNSUPPORTED: dict[str, str] = {}


def _where(fn: str) -> Where:
    return Where(op_type=fn)


def _float_dtype(dtype, fn: str) -> np.dtype:
    dt = dtypes.to_numpy(dtype or dtypes.default_float())
    if dt.kind != "f":
        raise BuildError(f"{fn}: dtype must be a float type, got {dt}", _where(fn))
    return dt


def _shape_inputs(shape, fn: str):
    """(shape attribute, {ShapeTensor, ShapeTensorList}) for a shape of ints or tensors."""
    attr, tensor, tensors = tensor_ints(shape, None, fn)
    if any(d < -1 for d in attr) or (tensor is None and tensors is None and
                                     any(d < 0 for d in attr)):
        raise BuildError(f"{fn}: shape {attr} must hold non-negative sizes", _where(fn))
    return attr, {"ShapeTensor": tensor, "ShapeTensorList": tensors}


# --- uniform and normal -------------------------------------------------------------------------
def uniform(shape, dtype=None, min: float = -1.0, max: float = 1.0,  # noqa: A002
            seed: int = 0, name: str | None = None, **_ignored):
    """Samples of U[min, max) (op `uniform_random`; a nonzero seed repeats the values).

    Example:
        >>> w = pyir.uniform([4, 3], min=-0.5, max=0.5, seed=1)
    """
    if max < min:
        raise BuildError(f"uniform: max ({max}) must not be below min ({min})",
                         _where("uniform_random"))
    attr, inputs = _shape_inputs(shape, "uniform_random")
    attrs = {"shape": attr, "min": float(min), "max": float(max), "seed": int(seed),
             "dtype": dtypes.to_code(_float_dtype(dtype, "uniform"))}
    return constant(out("uniform_random", inputs, attrs, name=name, stem="uniform"))


def rand(shape, dtype=None, name: str | None = None, **_ignored):
    """Samples of U[0, 1) (op `uniform_random`).

    Example:
        >>> noise = pyir.rand([2, 3], dtype="float64")
    """
    return uniform(shape, dtype, min=0.0, max=1.0, name=name)


def _gaussian(shape, mean, std, dtype, name, fn="gaussian_random", seed=0):
    if std < 0:
        raise BuildError(f"{fn}: std must not be negative, got {std}", _where(fn))
    attr, inputs = _shape_inputs(shape, "gaussian_random")
    attrs = {"shape": attr, "mean": float(mean), "std": float(std), "seed": int(seed),
             "dtype": dtypes.to_code(_float_dtype(dtype, fn))}
    return constant(out("gaussian_random", inputs, attrs, name=name, stem="gaussian"))


def randn(shape, dtype=None, name: str | None = None, **_ignored):
    """Samples of N(0, 1) (op `gaussian_random`).

    Example:
        >>> noise = pyir.randn([2, 3])
    """
    return _gaussian(shape, 0.0, 1.0, dtype, name)


def standard_normal(shape, dtype=None, name: str | None = None, **_ignored):
    """randn(shape, dtype).

    Example:
        >>> noise = pyir.standard_normal([2, 3])
    """
    return _gaussian(shape, 0.0, 1.0, dtype, name)


def normal(mean=0.0, std=1.0, shape=None, name: str | None = None, **_ignored):
    """Samples of N(mean, std^2): numbers with a `shape` (op `gaussian_random`), or tensors
    giving each element its mean / std (a standard sample of their shape, scaled and
    shifted), as Paddle builds it.

    Example:
        >>> z = pyir.normal(1.0, 2.0, [3])
    """
    if not isinstance(mean, TENSORS) and not isinstance(std, TENSORS):
        if shape is None:
            raise BuildError("normal: give a shape when mean and std are numbers",
                             _where("gaussian_random"))
        return _gaussian(shape, mean, std, None, name)
    like = mean if isinstance(mean, TENSORS) else std
    standard = _gaussian(out("shape", {"Input": like}), 0.0, 1.0, dtype_of(like), None)
    sample = standard * std if isinstance(std, TENSORS) else standard * float(std)
    return sample + mean if isinstance(mean, TENSORS) else sample + float(mean)


def log_normal(mean=1.0, std=2.0, shape=None, name: str | None = None):
    """exp of normal(mean, std, shape) samples (ops gaussian_random and exp).

    Example:
        >>> z = pyir.log_normal(0.0, 0.5, [4])
    """
    return out("exp", {"X": normal(mean, std, shape)}, name=name)


def rand_like(input, name: str | None = None, *, dtype=None, **_ignored):  # noqa: A002
    """rand of input's shape, input's dtype unless given (ops shape and uniform_random).

    Example:
        >>> u = pyir.rand_like(x)
    """
    dt = dtype_of(input) if dtype is None else dtype
    return uniform(out("shape", {"Input": input}), dt, 0.0, 1.0, name=name)


def randn_like(x, dtype=None, name: str | None = None, **_ignored):
    """randn of x's shape, x's dtype unless given (ops shape and gaussian_random).

    Example:
        >>> z = pyir.randn_like(x)
    """
    dt = dtype_of(x) if dtype is None else dtype
    return _gaussian(out("shape", {"Input": x}), 0.0, 1.0, dt, name)


# --- integers -----------------------------------------------------------------------------------
def randint(low: int = 0, high: int | None = None, shape=(1,), dtype=None,
            name: str | None = None):
    """Integers uniform in [low, high) (op `randint`; int64 by default; randint(n) draws
    from [0, n)).

    Example:
        >>> idx = pyir.randint(0, 10, [4])
    """
    if high is None:
        low, high = 0, low
    if int(high) <= int(low):
        raise BuildError(f"randint: high ({high}) must be greater than low ({low})",
                         _where("randint"))
    dt = dtypes.to_numpy(dtype or "int64")
    attr, inputs = _shape_inputs(list(shape) if isinstance(shape, tuple) else shape, "randint")
    attrs = {"shape": attr, "low": int(low), "high": int(high), "seed": 0,
             "dtype": dtypes.to_code(dt)}
    return constant(out("randint", inputs, attrs, name=name))


def randint_like(x, low: int = 0, high: int | None = None, dtype=None,
                 name: str | None = None):
    """randint of x's shape, cast to x's dtype unless given (ops shape, randint, cast).

    Example:
        >>> idx = pyir.randint_like(x, 0, 5)
    """
    if high is None:
        low, high = 0, low
    if int(high) <= int(low):
        raise BuildError(f"randint_like: high ({high}) must be greater than low ({low})",
                         _where("randint"))
    dt = dtype_of(x) if dtype is None else dtypes.to_numpy(dtype)
    attrs = {"shape": [], "low": int(low), "high": int(high), "seed": 0,
             "dtype": dtypes.to_code(np.int64)}
    drawn = out("randint", {"ShapeTensor": out("shape", {"Input": x})}, attrs, name=name)
    return constant(cast(drawn, dt))


def randperm(n: int, dtype="int64", name: str | None = None, **_ignored):
    """A random permutation of 0 .. n-1 (op `randperm`).

    Example:
        >>> order = pyir.randperm(5)
    """
    if not isinstance(n, numbers.Integral) or n < 1:
        raise BuildError(f"randperm: n must be a positive int, got {n!r}", _where("randperm"))
    return constant(out("randperm", {}, {"n": int(n), "dtype": dtypes.to_code(dtype)},
                        name=name))


# --- distributions of a tensor's values -------------------------------------------------------
def bernoulli(x, p: float | None = None, name: str | None = None):
    """1 with probability x[i] (or p), else 0, in x's dtype (op `bernoulli`; with p, x only
    gives the shape: ops fill_any_like and bernoulli).

    Example:
        >>> mask = pyir.bernoulli(probs)
    """
    if p is not None:
        if not 0.0 <= float(p) <= 1.0:
            raise BuildError(f"bernoulli: p must lie in [0, 1], got {p}", _where("bernoulli"))
        x = out("fill_any_like", {"X": x}, {"value": float(p),
                                            "dtype": dtypes.to_code(dtype_of(x))},
                stem="full_like")
    return constant(out("bernoulli", {"X": x}, name=name, stem="randint"))


def multinomial(x, num_samples: int = 1, replacement: bool = False, name: str | None = None):
    """Category indices drawn with the weights in x's last dim (op `multinomial`, int64).

    Example:
        >>> picks = pyir.multinomial(weights, 2)
    """
    if len(x.shape) not in (1, 2):
        raise BuildError(f"multinomial: x must be 1-D or 2-D, got {len(x.shape)}-D",
                         _where("multinomial"))
    if int(num_samples) < 1:
        raise BuildError(f"multinomial: num_samples must be positive, got {num_samples}",
                         _where("multinomial"))
    if not replacement and x.shape[-1] >= 0 and num_samples > x.shape[-1]:
        raise BuildError(f"multinomial: cannot draw {num_samples} distinct categories from "
                         f"{x.shape[-1]}; pass replacement=True", _where("multinomial"))
    return constant(out("multinomial", {"X": x}, {"num_samples": int(num_samples),
                                                  "replacement": bool(replacement)},
                        name=name))


def poisson(x, name: str | None = None):
    """Samples of Poisson(x[i]) in x's dtype (op `poisson`).

    Example:
        >>> counts = pyir.poisson(rates)
    """
    return constant(out("poisson", {"X": x}, name=name))


def binomial(count, prob, name: str | None = None):
    """Samples of Binomial(count[i], prob[i]) as int64 (ops cast, broadcast_tensors,
    binomial).

    Example:
        >>> k = pyir.binomial(n, p)
    """
    count = cast(count, dtype_of(prob))
    count, prob = out("broadcast_tensors", {"X": [count, prob]})
    return constant(out("binomial", {"count": count, "prob": prob}, name=name, slot="out"))


def standard_gamma(x, name: str | None = None):
    """Samples of Gamma(x[i], 1) in x's dtype (op `standard_gamma`).

    Example:
        >>> g = pyir.standard_gamma(alpha)
    """
    return constant(out("standard_gamma", {"x": x}, name=name, slot="out"))


# --- the global stream -------------------------------------------------------------------------
def get_rng_state(device=None) -> list:
    """The state of the global random stream, as a list (set_rng_state restores it).

    Example:
        >>> state = pyir.get_rng_state()
    """
    return [dict(_stream.generator().bit_generator.state)]


def set_rng_state(state_list, device=None) -> None:
    """Restore the global random stream from get_rng_state's list.

    Example:
        >>> pyir.set_rng_state(state)
    """
    if not isinstance(state_list, (list, tuple)) or len(state_list) != 1 or \
            not isinstance(state_list[0], dict):
        raise BuildError("set_rng_state expects the list get_rng_state returned",
                         _where("set_rng_state"))
    _stream.generator().bit_generator.state = state_list[0]


# --- in-place fills -----------------------------------------------------------------------------
def _exponential(x, lam: float = 1.0, name: str | None = None):
    if lam <= 0:
        raise BuildError(f"exponential_: lam must be positive, got {lam}",
                         _where("exponential"))
    return out("exponential", {"X": x}, {"lambda": float(lam)}, name=name)


def _like_shape(x):
    return out("shape", {"Input": x})


def _normal_like(x, mean=0.0, std=1.0, name=None):
    return _gaussian(_like_shape(x), mean, std, dtype_of(x), name, fn="normal_")


def _uniform_like(x, min=0.0, max=1.0, seed=0, name=None):  # noqa: A002
    return uniform(_like_shape(x), dtype_of(x), min, max, seed, name=name)


def _bernoulli_like(x, p=0.5, name=None):
    if isinstance(p, TENSORS):
        return cast(bernoulli(out("expand_as_v2", {"X": p, "Y": x},
                                  {"target_shape": list(x.shape)})), dtype_of(x))
    return bernoulli(x, float(p))


def _cauchy_like(x, loc=0, scale=1, name=None):
    u = _uniform_like(x)
    return out("tan", {"X": (u - 0.5) * math.pi}) * float(scale) + float(loc)


def _geometric_like(x, probs, name=None):
    if not isinstance(probs, TENSORS) and not 0.0 < float(probs) < 1.0:
        raise BuildError(f"geometric_: probs must lie in (0, 1), got {probs}",
                         _where("geometric_"))
    u = _uniform_like(x)
    log_q = out("log", {"X": 1.0 - probs}) if isinstance(probs, TENSORS) else \
        math.log(1.0 - float(probs))
    ratio = out("log", {"X": 1.0 - u}) / log_q
    return out("ceil", {"X": ratio})


def _log_normal_like(x, mean=1.0, std=2.0, name=None):
    return out("exp", {"X": _normal_like(x, mean, std)})


def _fill(fn, public: str, doc: str):
    inplace = signed_like(inplace_of(fn, public), fn)
    inplace.__doc__ = f"{doc}\n\n    Example:\n        >>> x.{public}()\n"
    return inplace


exponential_ = _fill(_exponential, "exponential_",
                     "Fill x with Exponential(lam) samples (op exponential).")
normal_ = _fill(_normal_like, "normal_", "Fill x with N(mean, std^2) samples.")
uniform_ = _fill(_uniform_like, "uniform_", "Fill x with U[min, max) samples.")
bernoulli_ = _fill(_bernoulli_like, "bernoulli_", "Fill x with Bernoulli(p) samples.")
cauchy_ = _fill(_cauchy_like, "cauchy_", "Fill x with Cauchy(loc, scale) samples.")
geometric_ = _fill(_geometric_like, "geometric_",
                   "Fill x with Geometric(probs) samples (trials to the first success).")
log_normal_ = _fill(_log_normal_like, "log_normal_",
                    "Fill x with exp(N(mean, std^2)) samples.")


def random_(x, from_: int = 0, to: int | None = None, *, generator=None):
    """Fill x in place with integers uniform in [from_, to) (ops shape, randint, cast, assign);
    random_(x, n) draws from [0, n), random_(x) from [0, 2**mantissa) for floats (the int
    type's maximum for integers).

    Example:
        >>> x.random_(0, 10)
    """
    if to is None:
        if from_ == 0:
            dt = np.dtype(dtype_of(x))
            to = 2 ** {np.dtype(np.float16): 11, np.dtype(np.float32): 24,
                       np.dtype(np.float64): 53}.get(dt, 8) if dt.kind == "f" else \
                int(np.iinfo(dt).max) if dt.kind in "iu" else 2
        else:
            from_, to = 0, from_
    if from_ >= to:
        raise BuildError(f"random_ expects from_ < to, got from_={from_}, to={to}",
                         _where("randint"))
    return _fill(lambda t: randint_like(t, int(from_), int(to)), "random_",
                 "Fill x with random integers.")(x)


METHODS = {"random_": random_}
