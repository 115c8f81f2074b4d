"""Unary activations and their gradients. Each is one `_unary(...)` call: formula + derivative."""

from __future__ import annotations

import numpy as np

from ..registry import Example, register_op
from ._helpers import default_grad, rand, rand_positive, same_as


def _unary(name, forward, derivative, doc, uses="X", positive=False, attrs=()):
    """Register `name` and `name_grad`.

    derivative(x_or_out, dout) gives dX from the forward input (uses="X") or output (uses="Out").
    """
    make = rand_positive if positive else rand

    @register_op(name, inputs=["X"], outputs=["Out"], infer=same_as("X"),
                 grad=default_grad(f"{name}_grad", uses=[uses]), doc=doc,
                 examples=[Example({"X": make(3, 4)}, expect=lambda X: {"Out": forward(X)}),
                           Example({"X": make(2, 3, 5).astype("float64")},
                                   expect=lambda X: {"Out": forward(X)})])
    def kernel(X):
        return {"Out": forward(X)}

    def grad_from_out(Out, Out_grad):
        return {"X@GRAD": derivative(Out, Out_grad).astype(Out_grad.dtype, copy=False)}

    def grad_from_x(X, Out_grad):
        return {"X@GRAD": derivative(X, Out_grad).astype(Out_grad.dtype, copy=False)}

    register_op(f"{name}_grad", inputs=[uses, "Out@GRAD"], outputs=["X@GRAD"],
                infer=same_as(uses, out="X@GRAD"), grad_of=name, doc=f"gradient of {name}",
                )(grad_from_out if uses == "Out" else grad_from_x)


def _rounded_from_double(fn):
    """fn evaluated in float64 and rounded back: numpy's float32 exp/log are often 1 ulp off the
    correctly rounded value, Paddle's almost never (e.g. exp(1) = 2.7182817, not 2.718282)."""

    def precise(x):
        if x.dtype.itemsize >= 8 or not np.issubdtype(x.dtype, np.floating):
            return fn(x)
        return fn(x.astype(np.float64)).astype(x.dtype)

    return precise


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


_unary("tanh", np.tanh, lambda out, g: g * (1.0 - out * out), "Out = tanh(X)", uses="Out")
_unary("exp", _rounded_from_double(np.exp), lambda out, g: g * out, "Out = exp(X)", uses="Out")
_unary("sigmoid", _sigmoid, lambda out, g: g * out * (1.0 - out), "Out = 1 / (1 + exp(-X))",
       uses="Out")
_unary("relu", lambda x: np.maximum(x, 0).astype(x.dtype, copy=False),
       lambda out, g: g * (out > 0), "Out = max(X, 0)", uses="Out")
_unary("log", _rounded_from_double(np.log), lambda x, g: g / x, "Out = ln(X)", positive=True)
_unary("sqrt", np.sqrt, lambda out, g: g * 0.5 / out, "Out = sqrt(X)", uses="Out",
       positive=True)
_unary("square", np.square, lambda x, g: g * 2.0 * x, "Out = X^2")
_unary("abs", np.abs, lambda x, g: g * np.sign(x), "Out = |X|")
