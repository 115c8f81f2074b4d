"""`Layer` (the minimal base of pyir.nn layers) and `Linear`."""

from __future__ import annotations

from .. import framework
from ..errors import BuildError
from ..framework import unique_name
from ..layer_helper import Constant, create_parameter, to_param_attr
from ..dispatch import out as _out

__all__ = ["Layer", "Linear"]


class Layer:
    """Base of pyir's layers: a name scope (`linear_0`), parameters, and `__call__ -> forward`."""

    def __init__(self, name_scope: str | None = None, dtype="float32"):
        stem = name_scope or type(self).__name__.lower()
        self._full_name = unique_name.generate(stem)
        self._dtype = dtype
        self._parameters: dict = {}

    def full_name(self) -> str:
        return self._full_name

    def parameters(self) -> list:
        return [p for p in self._parameters.values() if p is not None]

    def forward(self, *inputs, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define forward()")

    def __call__(self, *inputs, **kwargs):
        return self.forward(*inputs, **kwargs)


class Linear(Layer):
    """y = x @ weight + bias, emitted as `matmul_v2` + `elementwise_add` (axis -1).

    Parameters are `linear_N.w_0` [in_features, out_features] (Xavier uniform) and
    `linear_N.b_0` [out_features] (zeros), initialized by the startup program.

    Example:
        >>> fc = pyir.nn.Linear(4, 10)
        >>> y = fc(x)          # linear_0.tmp_1
    """

    def __init__(self, in_features: int, out_features: int, weight_attr=None, bias_attr=None,
                 name: str | None = None):
        super().__init__("linear")
        if not framework.static_mode[0]:
            raise BuildError("pyir.nn.Linear creates static parameters; call "
                             "pyir.enable_static() first")
        if int(in_features) <= 0 or int(out_features) <= 0:
            raise BuildError(f"Linear needs positive sizes, got in_features={in_features}, "
                             f"out_features={out_features}")
        self.weight = create_parameter([in_features, out_features], self._dtype,
                                       to_param_attr(weight_attr),
                                       name_stem=self._full_name, suffix="w")
        battr = to_param_attr(bias_attr)
        self.bias = None if battr is None else create_parameter(
            [out_features], self._dtype, battr, name_stem=self._full_name, suffix="b",
            default_initializer=Constant(0.0))
        self._parameters = {"weight": self.weight, "bias": self.bias}
        self.name = name

    def forward(self, x):
        helper = self.name or self._full_name
        out = _out("matmul_v2", {"X": x, "Y": self.weight}, {"trans_x": False, "trans_y": False},
                   name=helper)
        if self.bias is not None:
            out = _out("elementwise_add", {"X": out, "Y": self.bias}, {"axis": -1}, name=helper)
        return out
