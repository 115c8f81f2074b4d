"""Optimizers for static programs: `pyir.optimizer.SGD(learning_rate).minimize(loss)`.

`minimize` appends the backward pass, a persistable learning-rate variable (filled by the
startup program, Paddle's `learning_rate_N`) and one update op per parameter with
op_role = optimize, so the training program is forward + backward + updates in one file.
"""

from __future__ import annotations

from .backward import append_backward
from .builder import ROLE_OPTIMIZE, emit, op_role
from .errors import BuildError
from .framework import (Variable, default_startup_program, program_guard, unique_name)


class Optimizer:
    """Base of the static optimizers: backward + learning rate + one update op per param."""

    _update_op = ""

    def __init__(self, learning_rate: float = 0.001, parameters=None, weight_decay=None,
                 grad_clip=None, name: str | None = None):
        if not isinstance(learning_rate, (int, float)) or learning_rate <= 0:
            raise BuildError(f"{type(self).__name__}: learning_rate must be a positive number, "
                             f"got {learning_rate!r}")
        if weight_decay is not None or grad_clip is not None:
            raise BuildError(f"{type(self).__name__}: weight_decay and grad_clip are not "
                             f"supported by pyir; leave them None")
        self._learning_rate = float(learning_rate)
        self._parameter_list = parameters
        self._lr_var: Variable | None = None

    def get_lr(self) -> float:
        return self._learning_rate

    def minimize(self, loss: Variable, startup_program=None, parameters=None,
                 no_grad_set=None) -> tuple[list, list]:
        """Append the backward of `loss` and the parameter updates to loss's program.

        Args:
            loss: the scalar to minimize.
            startup_program: where the learning rate is initialized (default: the default
                startup program).
            parameters: parameters (or names) to update; default: every trainable parameter.
            no_grad_set: variables (or names) that get no gradient.

        Returns:
            (optimize_ops, params_grads): the update ops and the (param, grad) pairs.

        Example:
            >>> opt = pyir.optimizer.SGD(learning_rate=0.01)
            >>> optimize_ops, params_grads = opt.minimize(loss)
        """
        params_grads = append_backward(loss, parameters or self._parameter_list, no_grad_set)
        return self.apply_gradients(params_grads, loss, startup_program), params_grads

    def apply_gradients(self, params_grads: list, loss: Variable, startup_program=None) -> list:
        """Append one update op per (param, grad), in parameter-name order as Paddle does."""
        program = loss.block.program
        lr = self._learning_rate_var(program, startup_program or default_startup_program())
        ops = []
        with program_guard(program), op_role(ROLE_OPTIMIZE):
            for param, grad in sorted(params_grads, key=lambda pg: pg[0].name):
                emit(self._update_op, self._update_inputs(param, grad, lr),
                     {"op_role_var": [param.name, grad.name],
                      "op_namescope": f"/{_scope_name('optimizer')}/"},
                     {"ParamOut": param}, block=program.global_block())
                ops.append(program.global_block().ops[-1])
        return ops

    def _update_inputs(self, param, grad, lr) -> dict:
        return {"Param": param, "Grad": grad, "LearningRate": lr}

    def _learning_rate_var(self, program, startup) -> Variable:
        """Paddle's `learning_rate_N`: a persistable 0-d float32, set by the startup program."""
        block = program.global_block()
        if self._lr_var is not None and self._lr_var.block is block:
            return self._lr_var
        name = unique_name.generate("learning_rate")
        var = block.create_var(name, "float32", [], persistable=True, stop_gradient=True)
        init = startup.global_block().create_var(name, "float32", [], persistable=True,
                                                 stop_gradient=True)
        emit("fill_constant", attrs={"shape": [], "value": self._learning_rate, "dtype": 5,
                                     "str_value": repr(self._learning_rate)},
             outputs={"Out": init}, block=startup.global_block())
        self._lr_var = var
        return var


class SGD(Optimizer):
    """Plain stochastic gradient descent: `param -= learning_rate * grad` (op `sgd`).

    Example:
        >>> opt = pyir.optimizer.SGD(learning_rate=0.1)
        >>> opt.minimize(loss)
        >>> exe.run(startup); exe.run(main, feed=..., fetch_list=[loss])   # one step
    """

    _update_op = "sgd"


def _scope_name(stem: str) -> str:
    """Paddle's unique name scopes: optimizer, optimizer_1, optimizer_2, ..."""
    n = int(unique_name.generate(f"@scope@{stem}").rsplit("_", 1)[1])
    return stem if n == 0 else f"{stem}_{n}"


__all__ = ["SGD", "Optimizer"]
