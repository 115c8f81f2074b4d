"""Comparisons, logical and bitwise functions, closeness tests and type predicates:
`pyir.equal`, `pyir.logical_and`, `pyir.bitwise_left_shift`, `pyir.isclose`, `pyir.isin`,
`pyir.is_tensor`, ... (Paddle's `paddle.tensor.logic`). A Python number for `y` becomes a
0-D `fill_constant` of x's dtype, as in Paddle.
"""

from __future__ import annotations

from ..dispatch import dtype_of, inplace_of, ndim
from ..dispatch import out as apply_out  # for functions whose `out=` argument hides `out`
from ..errors import BuildError, Where
from .math_common import TENSOR_TYPES, as_tensor_like, into, need_tensor

_COMPARE = {"equal": "equal", "not_equal": "not_equal", "greater_than": "greater_than",
            "greater_equal": "greater_equal", "less_than": "less_than",
            "less_equal": "less_equal", "eq": "equal", "ne": "not_equal", "gt": "greater_than",
            "ge": "greater_equal", "lt": "less_than", "le": "less_equal",
            "less": "less_than", "greater": "greater_than"}
_LOGICAL = ["logical_and", "logical_or", "logical_xor"]
_BITWISE = ["bitwise_and", "bitwise_or", "bitwise_xor"]
_IN_PLACE = ["equal", "not_equal", "greater_than", "greater_equal", "less_than",
             "less_equal", "less", "logical_and", "logical_or", "logical_xor", "logical_not",
             "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_invert",
             "bitwise_left_shift", "bitwise_right_shift"]

__all__ = [*_COMPARE, *_LOGICAL, "logical_not", *_BITWISE, "bitwise_not", "bitwise_invert",
           "bitwise_left_shift", "bitwise_right_shift", "allclose", "isclose", "equal_all",
           "is_tensor", "is_empty", "isin",
           *[f"{n}_" for n in _IN_PLACE]]

# Paddle names of this family pyir leaves out, with the reason (pyir/unsupported.py).
UNSUPPORTED: dict[str, str] = {}


def _compare(public: str, op_type: str):
    def fn(x, y, name: str | None = None, *, out=None):  # noqa: A002
        need_tensor(x, public)
        result = apply_out(op_type, {"X": x, "Y": as_tensor_like(x, y, public)}, name=name)
        return into(result, out)

    fn.__name__ = fn.__qualname__ = public
    fn.__doc__ = f"""Elementwise comparison with broadcasting, a bool tensor (op `{op_type}`).

    Example:
        >>> mask = pyir.{public}(x, y)
    """
    return fn


def _logical(public: str):
    def fn(x, y, name: str | None = None, *, out=None):  # noqa: A002
        need_tensor(x, public)
        result = apply_out(public, {"X": x, "Y": as_tensor_like(x, y, public)}, name=name)
        return into(result, out)

    fn.__name__ = fn.__qualname__ = public
    fn.__doc__ = f"""Elementwise `{public}` (nonzero is true), a bool tensor (op `{public}`).

    Example:
        >>> pyir.{public}(a, b)
    """
    return fn


def _integer_or_bool(x, fn: str):
    need_tensor(x, fn)
    if dtype_of(x).kind not in "iub":
        raise BuildError(f"expects an integer or bool tensor, got {dtype_of(x)}",
                         Where(op_type=fn))
    return x


def _bitwise(public: str):
    def fn(x, y, out=None, name: str | None = None):  # noqa: A002
        _integer_or_bool(x, public)
        result = apply_out(public, {"X": x, "Y": as_tensor_like(x, y, public)}, name=name)
        return into(result, out)

    fn.__name__ = fn.__qualname__ = public
    fn.__doc__ = f"""Elementwise `{public}` of integer or bool tensors (op `{public}`).

    Example:
        >>> pyir.{public}(a, b)
    """
    return fn


for _name, _op in _COMPARE.items():
    globals()[_name] = _compare(_name, _op)
for _name in _LOGICAL:
    globals()[_name] = _logical(_name)
for _name in _BITWISE:
    globals()[_name] = _bitwise(_name)


def logical_not(x, name: str | None = None, *, out=None):  # noqa: A002
    """Elementwise not (nonzero is true), a bool tensor (op `logical_not`).

    Example:
        >>> pyir.logical_not(mask)
    """
    return into(apply_out("logical_not", {"X": need_tensor(x, "logical_not")}, name=name), out)


def bitwise_not(x, out=None, name: str | None = None):  # noqa: A002
    """Elementwise ~x of an integer or bool tensor (op `bitwise_not`).

    Example:
        >>> pyir.bitwise_not(x)
    """
    result = apply_out("bitwise_not", {"X": _integer_or_bool(x, "bitwise_not")}, name=name)
    return into(result, out)


def bitwise_invert(x, out=None, name: str | None = None):  # noqa: A002
    """Alias of `bitwise_not`.

    Example:
        >>> pyir.bitwise_invert(x)
    """
    return bitwise_not(x, out, name)


def _shift(public: str):
    def fn(x, y, is_arithmetic: bool = True, out=None, name: str | None = None):  # noqa: A002
        _integer_or_bool(x, public)
        result = apply_out(public, {"x": x, "y": as_tensor_like(x, y, public)},
                           {"is_arithmetic": bool(is_arithmetic)}, name=name, slot="out")
        return into(result, out)

    fn.__name__ = fn.__qualname__ = public
    fn.__doc__ = f"""Elementwise bit shift (op `{public}`); is_arithmetic=False shifts right
    logically (zeros in from the left, the sign bit included).

    Example:
        >>> pyir.{public}(x, y)
    """
    return fn


bitwise_left_shift = _shift("bitwise_left_shift")
bitwise_right_shift = _shift("bitwise_right_shift")


def _tolerances(rtol, atol, equal_nan, fn):
    for what, value in (("rtol", rtol), ("atol", atol)):
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise BuildError(f"{what} must be a float, got {value!r}", Where(op_type=fn))
    if not isinstance(equal_nan, bool):
        raise BuildError(f"equal_nan must be a bool, got {equal_nan!r}", Where(op_type=fn))
    return {"rtol": str(float(rtol)), "atol": str(float(atol)), "equal_nan": equal_nan}


def allclose(x, y, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False,
             name: str | None = None):
    """Whether |x - y| <= atol + rtol |y| everywhere, a 0-D bool (op `allclose`).

    Example:
        >>> pyir.allclose(x, y, rtol=1e-3)
    """
    need_tensor(x, "allclose")
    return apply_out("allclose", {"Input": x, "Other": y},
                     _tolerances(rtol, atol, equal_nan, "allclose"), name=name)


def isclose(x, y, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False,
            name: str | None = None):
    """Elementwise |x - y| <= atol + rtol |y|, a bool tensor (op `isclose`).

    Example:
        >>> pyir.isclose(x, y, equal_nan=True)
    """
    need_tensor(x, "isclose")
    return apply_out("isclose", {"Input": x, "Other": y},
                     _tolerances(rtol, atol, equal_nan, "isclose"), name=name)


def equal_all(x, y, name: str | None = None):
    """Whether x and y have the same shape and elements, a 0-D bool (op `equal_all`).

    Example:
        >>> pyir.equal_all(x, y)
    """
    need_tensor(x, "equal_all")
    return apply_out("equal_all", {"X": x, "Y": y}, name=name)


def is_empty(x, name: str | None = None):
    """Whether x has no elements, a 0-D bool (op `is_empty`).

    Example:
        >>> pyir.is_empty(x)
    """
    return apply_out("is_empty", {"X": need_tensor(x, "is_empty")}, name=name)


def is_tensor(x) -> bool:
    """Whether x is a pyir Tensor or static Variable.

    Example:
        >>> pyir.is_tensor(x)
    """
    return isinstance(x, TENSOR_TYPES)


def isin(x, test_x, assume_unique: bool = False, invert: bool = False,
         name: str | None = None):
    """Whether each element of x occurs in test_x: x with a new last axis compared with the
    flattened test_x, then reduce_any (logical_not for invert).

    Example:
        >>> pyir.isin(x, pyir.to_tensor([1, 3]))
    """
    need_tensor(x, "isin")
    if not isinstance(test_x, TENSOR_TYPES):
        raise BuildError(f"test_x must be a tensor, got {type(test_x).__name__}",
                         Where(op_type="isin"))
    expanded = apply_out("unsqueeze2", {"X": x}, {"axes": [ndim(x)]})
    candidates = apply_out("reshape2", {"X": test_x}, {"shape": [-1]})
    matches = apply_out("equal", {"X": expanded, "Y": candidates})
    found = apply_out("reduce_any", {"X": matches},
                      {"dim": [-1], "keep_dim": False, "reduce_all": ndim(x) == 0},
                      name=None if invert else name)
    return apply_out("logical_not", {"X": found}, name=name) if invert else found


for _name in _IN_PLACE:  # Paddle's shift variants keep `out` in their signature
    globals()[f"{_name}_"] = inplace_of(globals()[_name], f"{_name}_",
                                        keep_out="shift" in _name)
del _name, _op
