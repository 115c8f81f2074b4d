"""Differentiating a program file: what `pyir grad MODEL` does.

    grad_model(model, out)
      +-- load_model              MODEL (+ params) into a scope
      +-- differentiate           `loss` (default: the single scalar output) w.r.t. `wrt`
      |                           (default: parameters + inputs with stop_gradient=False)
      +-- save_training_program   OUT with fetch targets [loss, grads...] (+ params)
    check_model_gradients(model, feeds)    the backward ops against finite differences
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from ..differentiation import differentiate
from ..callables import bind_ids, search_path
from ..builder import ROLE_BACKWARD, ROLE_OPTIMIZE
from ..errors import GradError, PyirError, Where
from ..executor import Scope
from ..gradcheck import GradResult, check_program_gradients
from .inference import persistable_names
from .export import forward_part
from .model import load_model, save_training_program
from .run import parse_id_bindings, read_feeds


@dataclass
class GradModel:
    """What `grad_model` wrote: the file, the loss and [(variable, its gradient)] names."""

    path: str
    loss: str
    gradients: list[tuple[str, str]]
    params_written: bool = True  # False: the model's parameters were not found beside it


def grad_model(model: str, out: str | None = None, loss: str | None = None, wrt=(),
               params: str | None = None, paths=(), *, forward_only: bool = False) -> GradModel:
    """Append the backward ops to `model` and write `out`, whose fetch targets are the loss
    and the gradients, as `pyir grad` does.

    Args:
        out: the file to write (default: `<stem>_grad.pdmodel` in the current directory).
        loss: the scalar to differentiate (default: the program's single scalar output).
        wrt: names to differentiate against (default: every parameter and every input with
            stop_gradient=False).
        params: a `.pdiparams` or `.npz` file (default: the model's `.pdiparams` beside it).
        paths: directories to search for py_func callables' modules.
        forward_only: differentiate the forward part of a program that already holds
            backward or optimizer ops (those ops are dropped) instead of refusing it.

    Example:
        >>> pyir.files.grad_model("out/mlp.pb", "out/mlp_grad.pb", wrt=["fc_0.w_0"]).gradients
        [('fc_0.w_0', 'fc_0.w_0@GRAD')]
    """
    if not os.path.isfile(model):
        raise PyirError("no such model file", Where(file=model))
    scope = Scope()
    with search_path(list(paths)):
        loaded = load_model(model, params=params, scope=scope)
        if forward_only:
            program = forward_part(loaded.program)
        else:
            _refuse_differentiated(loaded.program)
            program = loaded.program.clone()
        loss_name, pairs = differentiate(program, loss, list(wrt))
    out = out or os.path.splitext(os.path.basename(model))[0] + "_grad.pdmodel"
    # Appending backward ops needs no parameter values: without them only the program is
    # written, and `pyir run OUT --params FILE` supplies them later.
    have_params = all(name in scope for name in persistable_names(program))
    save_training_program(out, program, list(loaded.feed_names),
                          [loss_name] + [g for _, g in pairs], scope if have_params else None)
    return GradModel(out, loss_name, pairs, have_params)


def _refuse_differentiated(program) -> None:
    """`pyir grad` of a program that already holds backward or optimizer ops would nest its
    gradient names (`grad/x@GRAD`) and check the wrong things: refuse, naming the op."""
    for index, op in enumerate(program.global_block().ops):
        role = op.attrs.get("op_role", 0)
        if isinstance(role, int) and role & (ROLE_BACKWARD | ROLE_OPTIMIZE):
            kind = "optimizer" if role & ROLE_OPTIMIZE else "backward"
            raise GradError(f"the program already holds {kind} ops (op #{index} {op.type} has "
                            f"op_role {role}): give pyir grad the forward program it was built "
                            f"from, or add --forward-only to differentiate its forward part",
                            Where(file=program.source, block=0, op_index=index,
                                  op_type=op.type))


def check_model_gradients(model: str, feeds, loss: str | None = None, wrt=(),
                          params: str | None = None, paths=(), *, max_elements: int = 32,
                          rtol: float = 1e-4, atol: float = 1e-6, id_bindings=None,
                          forward_only: bool = False) -> list[GradResult]:
    """Compare `model`'s backward ops with finite differences in float64 (`pyir grad --check`).

    Args:
        feeds: `{input name: array}`, or `--feed` strings (`read_feeds`).
        loss, wrt, params, paths, forward_only: as for `grad_model`.
        max_elements: elements sampled per gradient.
        id_bindings: `{Paddle callable id: "module:name"}` or `--bind-id` strings, for
            Paddle files whose py_func ops hold process-local ids.

    Example:
        >>> all(r.ok for r in pyir.files.check_model_gradients("mlp.pb", {"x": x, "label": y}))
        True
    """
    if not os.path.isfile(model):
        raise PyirError("no such model file", Where(file=model))
    if not feeds:
        raise PyirError("--check runs the program: give its inputs with --feed")
    scope = Scope()
    if not isinstance(id_bindings, dict):
        id_bindings = parse_id_bindings(id_bindings or ())
    with search_path(list(paths)), bind_ids(id_bindings):
        loaded = load_model(model, params=params, scope=scope)
        if forward_only:
            program = forward_part(loaded.program)
        else:
            _refuse_differentiated(loaded.program)
            program = loaded.program
        feed = dict(feeds) if isinstance(feeds, dict) else read_feeds(
            feeds, list(loaded.feed_names), model)
        return check_program_gradients(program, loss, feed, scope, list(wrt) or None,
                                       max_elements=max_elements, rtol=rtol, atol=atol)


__all__ = ["grad_model", "GradModel", "check_model_gradients"]
