"""`fluid.initializer`: the fluid-era initializer names over pyir's initializers."""

from __future__ import annotations

from ..layer_helper import (Constant, Initializer, Normal, Uniform,  # noqa: F401
                            XavierNormal, XavierUniform)

ConstantInitializer, UniformInitializer, NormalInitializer = Constant, Uniform, Normal


def Xavier(uniform: bool = True, fan_in=None, fan_out=None, seed: int = 0):  # noqa: N802
    """Fluid's `Xavier(uniform=True)`: XavierUniform, or XavierNormal with uniform=False.

    Example:
        >>> attr = fluid.ParamAttr(initializer=fluid.initializer.Xavier(uniform=False))
    """
    cls = XavierUniform if uniform else XavierNormal
    return cls(fan_in=fan_in, fan_out=fan_out, seed=seed)


XavierInitializer = Xavier

__all__ = ["Constant", "Uniform", "Normal", "Xavier", "ConstantInitializer",
           "UniformInitializer", "NormalInitializer", "XavierInitializer", "Initializer"]
