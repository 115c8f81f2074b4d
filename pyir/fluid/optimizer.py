"""`fluid.optimizer`: the fluid-era optimizer names (`SGDOptimizer`, `SGD`, `AdamOptimizer`,
...) over pyir.optimizer's classes. Fluid spells two arguments differently: `parameter_list`
is Paddle 2's `parameters` and `regularization` its `weight_decay`; both are accepted."""

from __future__ import annotations

from .. import optimizer as _opt


def _fluid_class(base: type, name: str) -> type:
    def __init__(self, *args, parameter_list=None, regularization=None, **kwargs):
        if parameter_list is not None:
            kwargs.setdefault("parameters", parameter_list)
        if regularization is not None:
            kwargs.setdefault("weight_decay", regularization)
        base.__init__(self, *args, **kwargs)

    doc = (f"fluid's `{name}`: pyir.optimizer.{base.__name__}, also taking fluid's "
           f"`parameter_list` and `regularization` arguments.")
    return type(name, (base,), {"__init__": __init__, "__doc__": doc,
                                "__module__": __name__})


SGDOptimizer = _fluid_class(_opt.SGD, "SGDOptimizer")
MomentumOptimizer = _fluid_class(_opt.Momentum, "MomentumOptimizer")
AdamOptimizer = _fluid_class(_opt.Adam, "AdamOptimizer")
AdagradOptimizer = _fluid_class(_opt.Adagrad, "AdagradOptimizer")
RMSPropOptimizer = _fluid_class(_opt.RMSProp, "RMSPropOptimizer")
AdamaxOptimizer = _fluid_class(_opt.Adamax, "AdamaxOptimizer")
AdadeltaOptimizer = _fluid_class(_opt.Adadelta, "AdadeltaOptimizer")
# fluid also had the short names for the same classes
SGD, Momentum, Adam, Adagrad = SGDOptimizer, MomentumOptimizer, AdamOptimizer, AdagradOptimizer
RMSProp, Adamax, Adadelta = RMSPropOptimizer, AdamaxOptimizer, AdadeltaOptimizer

__all__ = ["SGDOptimizer", "MomentumOptimizer", "AdamOptimizer", "AdagradOptimizer",
           "RMSPropOptimizer", "AdamaxOptimizer", "AdadeltaOptimizer", "SGD", "Momentum",
           "Adam", "Adagrad", "RMSProp", "Adamax", "Adadelta"]
