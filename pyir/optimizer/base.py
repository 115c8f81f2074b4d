"""The optimizer base: one description of an update (its op, accumulators and attributes)
used by static programs (`minimize` appends ops) and eagerly (`step` runs the same op kernels).

Static `minimize` appends, as Paddle does:
  - the backward pass;
  - gradient clipping (`grad_clip=`, pyir/nn/clip.py) and weight decay (`weight_decay=`, or a
    parameter's own `ParamAttr(regularizer=...)`; pyir/regularizer.py);
  - a persistable learning-rate variable (Paddle's `learning_rate_N`) and each parameter's
    accumulators (velocity, moments, beta powers), all filled by the startup program;
  - one update op per parameter, with op_role = optimize.

Eagerly, `opt.step()` takes each parameter's `.grad`, clips and decays it with the same ops,
and runs the update op's kernel (`eager.run_op` inside `no_grad`) on the parameter and its
accumulator Tensors (`<param>_<suffix>_0`, Paddle's names, also the `state_dict` keys).
"""

from __future__ import annotations

import numbers
from typing import NamedTuple

import numpy as np

from .. import dtypes
from ..backward import append_backward
from ..builder import ROLE_OPTIMIZE, emit, op_role
from ..eager import Tensor, no_grad, run_op
from ..errors import BuildError
from ..framework import Variable, default_startup_program, program_guard, unique_name
from ..nn.clip import ClipGradBase, ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue
from ..regularizer import as_regularizer
from .lr import LRScheduler


class Acc(NamedTuple):
    """One accumulator of an update op: its input and output slots, Paddle's name suffix, the
    initial value, and its shape (None: the parameter's)."""

    slot: str
    out: str | None  # None: an input the op only reads (a later op updates it)
    suffix: str
    value: float = 0.0
    shape: tuple | None = None
    dtype: str | None = None  # None: the parameter's


class Optimizer:
    """Base of the optimizers: learning rate, clipping, decay and one update op per param.

    Subclasses set `_update_op` and define `_accs(param)` and `_update_attrs(param)`.
    """

    _update_op = ""
    _io = ("Param", "Grad", "LearningRate", "ParamOut")  # the op's slot names for these

    def __init__(self, learning_rate=0.001, parameters=None, weight_decay=None,
                 grad_clip=None, name: str | None = None):
        who = type(self).__name__
        if isinstance(learning_rate, Tensor) and learning_rate.size == 1:
            learning_rate = float(learning_rate.numpy().reshape(()))  # a constant rate
        if isinstance(learning_rate, LRScheduler):
            pass
        elif isinstance(learning_rate, bool) or not isinstance(learning_rate, numbers.Real) \
                or learning_rate <= 0:
            raise BuildError(f"{who}: learning_rate must be a positive number or a "
                             f"pyir.optimizer.lr.LRScheduler, got {learning_rate!r}")
        else:
            learning_rate = float(learning_rate)
        if grad_clip is not None and not isinstance(grad_clip, ClipGradBase):
            raise BuildError(f"{who}: grad_clip must be a pyir.nn.ClipGradByValue / "
                             f"ClipGradByNorm / ClipGradByGlobalNorm, got "
                             f"{type(grad_clip).__name__}")
        self._regularization = as_regularizer(weight_decay, who)
        self._grad_clip = grad_clip
        self._learning_rate = learning_rate
        self._parameter_list, self._group_of = _flatten_groups(parameters, who)
        self._lr_var: Variable | None = None
        self._accumulators: dict[str, Tensor] = {}     # eager state, by Paddle's name
        self._accumulators_holder: dict = {}           # loaded state not yet used
        self._name = name

    # --- learning rate ----------------------------------------------------------------------
    def get_lr(self) -> float:
        """The current learning rate (a scheduler's current value).

        Example:
            >>> opt.get_lr()
        """
        lr = self._learning_rate
        return float(lr()) if isinstance(lr, LRScheduler) else lr

    def set_lr(self, value: float) -> None:
        """Set a constant learning rate (refused when a scheduler drives it).

        Example:
            >>> opt.set_lr(0.01)
        """
        if isinstance(self._learning_rate, LRScheduler):
            raise BuildError(f"{type(self).__name__}.set_lr: the learning rate comes from a "
                             f"scheduler; step the scheduler or use set_lr_scheduler")
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise BuildError(f"{type(self).__name__}.set_lr: value must be a number, got "
                             f"{type(value).__name__}")
        self._learning_rate = float(value)

    def set_lr_scheduler(self, scheduler: LRScheduler) -> None:
        """Let `scheduler` drive the learning rate from now on."""
        if not isinstance(scheduler, LRScheduler):
            raise BuildError(f"{type(self).__name__}.set_lr_scheduler: expects an "
                             f"LRScheduler, got {type(scheduler).__name__}")
        self._learning_rate = scheduler

    # --- what subclasses describe -----------------------------------------------------------
    def _accs(self, param) -> list[Acc]:
        """The update op's accumulators for `param`."""
        return []

    def _update_attrs(self, param) -> dict:
        """The update op's attributes for `param`."""
        return {}

    def _extra_inputs(self, param, lr) -> dict:
        """Inputs other than param, grad, learning rate and accumulators (Rprop's ranges)."""
        return {}

    def _after_update(self, param, acc: dict, run) -> None:
        """Ops after a parameter's update (Adamax's beta power); `run(op, inputs, attrs,
        outputs)` appends or runs one."""

    def _eager_update(self, param, grad, lr, acc: dict) -> bool:
        """An optimizer whose eager step is not one plain op call does it here and returns
        True (ASGD)."""
        return False

    def _regularizer_for(self, param):
        """For a parameter given in a group, the group's weight_decay (default: the
        optimizer's), which replaces the parameter's own: Paddle's `_add_param_group` sets
        `param.regularizer` from it. Otherwise the parameter's own regularizer, else the
        optimizer's."""
        group = self._group_of.get(id(param))
        if group is not None:
            return as_regularizer(group.get("weight_decay", self._regularization),
                                  type(self).__name__)
        own = getattr(param, "regularizer", None)
        return own if own is not None else self._regularization

    def _clip_by_group(self, params_grads: list) -> list:
        """Eager clipping. Paddle steps each parameter group on its own, so a group's
        grad_clip (default: the optimizer's) sees only that group's gradients (a global norm
        is per group)."""
        if not self._group_of:
            return params_grads if self._grad_clip is None else \
                _clip_eager(self._grad_clip, params_grads)
        parts: dict = {}
        for pair in params_grads:
            parts.setdefault(id(self._group_of.get(id(pair[0]))), []).append(pair)
        clipped = []
        for part in parts.values():
            clip = (self._group_of.get(id(part[0][0])) or {}).get("grad_clip", self._grad_clip)
            clipped.extend(part if clip is None else _clip_eager(clip, part))
        return clipped

    def _lr_scale(self, param) -> float:
        """The parameter's learning-rate multiplier: its group's `learning_rate` (default 1,
        replacing ParamAttr(learning_rate=...), as Paddle's `_add_param_group` sets
        `optimize_attr`), else its own."""
        group = self._group_of.get(id(param))
        if group is not None:
            return _scale_number(group.get("learning_rate", 1.0), param)
        return _param_lr_scale(param)

    # --- static -----------------------------------------------------------------------------
    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """Static: append the backward of `loss` and the parameter updates to loss's program.
        Eager (`loss` a Tensor, after `loss.backward()`): update the parameters now.

        Returns:
            (optimize_ops, params_grads): the update ops (None eagerly) and (param, grad) pairs.

        Example:
            >>> opt = pyir.optimizer.SGD(learning_rate=0.01)
            >>> optimize_ops, params_grads = opt.minimize(loss)
        """
        if isinstance(loss, Tensor):
            params_grads = self._eager_params_grads(parameters)
            self._apply_eager(params_grads)
            return None, params_grads
        params_grads = append_backward(loss, parameters or self._parameter_list, no_grad_set)
        return self.apply_gradients(params_grads, loss, startup_program), params_grads

    def backward(self, loss, startup_program=None, parameters=None, no_grad_set=None,
                 callbacks=None) -> list:
        """The (param, grad) pairs of `loss`: static, the appended backward pass; eager,
        `loss.backward()` and the parameters' gradients.

        Example:
            >>> params_grads = opt.backward(loss); opt.apply_gradients(params_grads)
        """
        if isinstance(loss, Tensor):
            loss.backward()
            return self._eager_params_grads(parameters)
        return append_backward(loss, parameters or self._parameter_list, no_grad_set)

    def apply_gradients(self, params_grads: list, loss: Variable | None = None,
                        startup_program=None) -> list:
        """Append gradient clipping, weight decay and one update op per (param, grad), in
        parameter-name order as Paddle does; returns the update ops."""
        if params_grads and isinstance(params_grads[0][0], Tensor):
            self._apply_eager(params_grads)
            return []
        program = (loss.block.program if loss is not None else params_grads[0][0].block.program)
        startup = startup_program or default_startup_program()
        lr = self._learning_rate_var(program, startup)
        block = program.global_block()
        ordered = sorted(params_grads, key=lambda pg: pg[0].name)
        state = {p.name: self._static_accumulators(p, program, startup) for p, _ in ordered}
        ops = []

        def run(op_type, inputs, attrs, outputs):
            emit(op_type, inputs, attrs, outputs, block=block)

        with program_guard(program), op_role(ROLE_OPTIMIZE):
            if self._grad_clip is not None:
                ordered = self._clipped(ordered, block)
            ordered = self._regularized(ordered, block)
            param_slot, grad_slot, lr_slot, out_slot = self._io
            for param, grad in ordered:
                acc = state[param.name]
                param_lr = self._param_lr_static(param, lr, block)
                inputs = {param_slot: param, grad_slot: grad,
                          **({lr_slot: param_lr} if lr_slot else {}),
                          **self._extra_inputs(param, lr),
                          **{slot: var for slot, (var, _) in acc.items()}}
                emit(self._update_op, inputs,
                     {**self._update_attrs(param), "op_role_var": [param.name, grad.name],
                      "op_namescope": f"/{_scope_name('optimizer')}/"},
                     {out_slot: param, **{out: var for _, (var, out) in acc.items() if out}},
                     block=block)
                ops.append(block.ops[-1])
                self._after_update(param, {s: v for s, (v, _) in acc.items()}, run)
        return ops

    def _param_lr_static(self, param, lr, block):
        """A parameter's own learning rate (`ParamAttr(learning_rate=s)`, Paddle's
        `optimize_attr`): the global one scaled by s with a `scale` op, as Paddle appends it."""
        scale = self._lr_scale(param)
        if scale == 1.0:
            return lr
        out = block.create_var(unique_name.generate("tmp"), "float32", list(lr.shape))
        emit("scale", {"X": lr}, {"scale": scale, "bias": 0.0, "bias_after_scale": True,
                                  "op_namescope": "/scale_with_param_lr/"},
             {"Out": out}, block=block)
        return out

    def _clipped(self, params_grads: list, block) -> list:
        """Clip the gradients (ops in name scope gradient_clip, each tagged with its param)."""
        first = len(block.ops)
        clipped = self._grad_clip.clip(params_grads, block)
        owner = {g.name: p.name for p, g in clipped}
        _tag(block.ops[first:], f"/{_scope_name('gradient_clip')}/",
             lambda op: [owner[op.output_arg_names[0]], op.output_arg_names[0]]
             if op.output_arg_names and op.output_arg_names[0] in owner else [])
        return clipped

    def _regularized(self, params_grads: list, block) -> list:
        """Add each parameter's decay term to its gradient, in place (name scope
        regularization)."""
        scope = None
        for param, grad in params_grads:
            regularizer = self._regularizer_for(param)
            if regularizer is None:
                continue
            scope = scope or f"/{_scope_name('regularization')}/"
            first = len(block.ops)
            term = regularizer(param, grad, block)
            emit("sum", {"X": [grad, term]}, outputs={"Out": grad}, block=block)
            _tag(block.ops[first:], scope, lambda op, p=param, g=grad: [p.name, g.name])
        return params_grads

    def _static_accumulators(self, param, program, startup) -> dict:
        """input slot -> (persistable state variable, output slot) for one parameter."""
        return {a.slot: (self._accumulator(program, startup, param, a.suffix, a.value, a.shape),
                         a.out) for a in self._accs(param)}

    def _accumulator(self, program, startup, param, suffix: str, value: float = 0.0,
                     shape=None) -> Variable:
        """Paddle's `<param>_<suffix>_0`: persistable, of the parameter's dtype, filled with
        `value` by the startup program (param-shaped unless `shape` is given)."""
        name = unique_name.generate(f"{param.name}_{suffix}")
        shape = list(param.shape if shape is None else shape)
        var = program.global_block().create_var(name, param.dtype, shape, persistable=True,
                                                stop_gradient=True)
        init = startup.global_block().create_var(name, param.dtype, shape, persistable=True,
                                                 stop_gradient=True)
        emit("fill_constant", attrs={"shape": shape, "value": value, "str_value": repr(value),
                                     "dtype": dtypes.to_code(param.dtype)},
             outputs={"Out": init}, block=startup.global_block())
        return var

    def _learning_rate_var(self, program, startup) -> Variable:
        """Paddle's `learning_rate_N`: a persistable 0-d float32, set by the startup program
        (to a scheduler's current value; the program then remembers the scheduler as
        `program.lr_scheduler`, its variable as `program.lr_var`)."""
        block = program.global_block()
        if self._lr_var is not None and self._lr_var.block is block:
            return self._lr_var
        name = unique_name.generate("learning_rate")
        value = self.get_lr()
        var = block.create_var(name, "float32", [], persistable=True, stop_gradient=True)
        init = startup.global_block().create_var(name, "float32", [], persistable=True,
                                                 stop_gradient=True)
        emit("fill_constant", attrs={"shape": [], "value": value, "dtype": 5,
                                     "str_value": repr(value)},
             outputs={"Out": init}, block=startup.global_block())
        if isinstance(self._learning_rate, LRScheduler):
            program.lr_scheduler, program.lr_var = self._learning_rate, var
            self._learning_rate._var_name = name
        self._lr_var = var
        return var

    # --- eager ------------------------------------------------------------------------------
    @no_grad()
    def step(self) -> None:
        """Update every parameter that has a gradient (after `loss.backward()`).

        Example:
            >>> loss.backward(); opt.step(); opt.clear_grad()
        """
        self._apply_eager(self._eager_params_grads(None))

    def _eager_params_grads(self, parameters) -> list:
        params = parameters if parameters is not None else self._parameter_list
        if params is None:
            raise BuildError(f"{type(self).__name__}: eager updates need the parameters: pass "
                             f"parameters=model.parameters() when creating the optimizer")
        return [(p, p.grad) for p in params
                if isinstance(p, Tensor) and not p.stop_gradient and p.grad is not None]

    def _apply_eager(self, params_grads: list) -> None:
        with no_grad():
            params_grads = self._clip_by_group(params_grads)
            lr = Tensor(np.array(self.get_lr(), np.float32))
            self._make_eager_accumulators([p for p, _ in params_grads])
            param_slot, grad_slot, lr_slot, out_slot = self._io
            for param, grad in params_grads:
                grad = grad if isinstance(grad, Tensor) else Tensor(np.asarray(grad))
                regularizer = self._regularizer_for(param)
                if regularizer is not None:
                    grad = run_op("sum", {"X": [grad, regularizer.eager_term(param)]})["Out"]
                acc = self._eager_accumulators(param)
                scale = self._lr_scale(param)
                param_lr = lr if scale == 1.0 else \
                    run_op("scale", {"X": lr}, {"scale": scale})["Out"]
                if self._eager_update(param, grad, param_lr, acc):
                    continue
                inputs = {param_slot: param, grad_slot: grad,
                          **({lr_slot: param_lr} if lr_slot else {}),
                          **self._extra_inputs(param, lr), **acc}
                outs = run_op(self._update_op, inputs, self._update_attrs(param))
                param._value = outs[out_slot]._value
                by_out = {a.slot: a.out for a in self._accs(param)}
                for slot, tensor in acc.items():
                    if by_out[slot] in outs:
                        tensor._value = outs[by_out[slot]]._value
                self._after_update(param, acc, _run_now)

    def _make_eager_accumulators(self, params: list) -> None:
        """Create missing accumulators kind by kind over the parameters (all moment1, then
        all moment2, ...), so state_dict() lists them in Paddle's order."""
        kinds = max((len(self._accs(p)) for p in params), default=0)
        for i in range(kinds):
            for param in params:
                accs = self._accs(param)
                if i < len(accs):
                    self._eager_accumulator(param, accs[i])

    def _eager_accumulators(self, param) -> dict:
        """input slot -> this parameter's accumulator Tensor, made on first use (from a loaded
        state dict when it has the name)."""
        return {a.slot: self._eager_accumulator(param, a) for a in self._accs(param)}

    def _eager_accumulator(self, param, a: Acc) -> Tensor:
        name = f"{param.name}_{a.suffix}_0"
        tensor = self._accumulators.get(name)
        if tensor is None:
            shape = param.shape if a.shape is None else list(a.shape)
            loaded = self._accumulators_holder.pop(name, None)
            dtype = param.dtype if a.dtype is None else np.dtype(a.dtype)
            value = np.full(shape, a.value, dtype=dtype) if loaded is None else \
                _value_of(loaded, shape, dtype, name)
            tensor = self._accumulators[name] = Tensor(value, name=name)
        return tensor

    def clear_grad(self, set_to_zero: bool = True) -> None:
        """Reset the parameters' gradients (to zeros, or to None with set_to_zero=False).

        Example:
            >>> opt.clear_grad()
        """
        for param in self._parameter_list or []:
            if isinstance(param, Tensor) and param.grad is not None:
                param.grad = Tensor(np.zeros_like(param.grad._value)) if set_to_zero else None

    clear_gradients = clear_grad

    def state_dict(self) -> dict:
        """The accumulators by Paddle's names (`linear_0.w_0_moment1_0`, ...), plus the
        scheduler's state under `LR_Scheduler`.

        Example:
            >>> pyir.save(opt.state_dict(), "opt.pdopt")
        """
        state = dict(self._accumulators)
        if isinstance(self._learning_rate, LRScheduler):
            state["LR_Scheduler"] = self._learning_rate.state_dict()
        return state

    def set_state_dict(self, state_dict: dict) -> None:
        """Restore accumulators (now, or when first used) and the scheduler's state.

        Example:
            >>> opt.set_state_dict(pyir.load("opt.pdopt"))
        """
        if not isinstance(state_dict, dict):
            raise BuildError(f"{type(self).__name__}.set_state_dict expects a dict, got "
                             f"{type(state_dict).__name__}")
        for key, value in state_dict.items():
            if key == "LR_Scheduler":
                if isinstance(self._learning_rate, LRScheduler):
                    self._learning_rate.set_state_dict(value)
            elif key == "StructuredToParameterName@@":
                continue
            elif key in self._accumulators:
                tensor = self._accumulators[key]
                tensor._value = _value_of(value, tensor.shape, tensor.dtype, key)
            else:
                self._accumulators_holder[key] = value

    set_dict = set_state_dict


def _run_now(op_type: str, inputs: dict, attrs: dict, outputs: dict) -> None:
    """Run one op eagerly and write its outputs into the given Tensors (in place)."""
    results = run_op(op_type, inputs, attrs)
    for slot, target in outputs.items():
        target._value = results[slot]._value


def _param_lr_scale(param) -> float:
    """The learning-rate multiplier of a parameter (`optimize_attr['learning_rate']`, set
    from ParamAttr(learning_rate=...)); 1.0 when it has none."""
    attr = getattr(param, "optimize_attr", None) or {}
    return _scale_number(attr.get("learning_rate", 1.0), param)


def _scale_number(scale, param) -> float:
    if isinstance(scale, bool) or not isinstance(scale, numbers.Real):
        raise BuildError(f"parameter {param.name}: optimize_attr['learning_rate'] must be a "
                         f"number, got {type(scale).__name__}")
    return float(scale)


def _value_of(value, shape, dtype, name: str) -> np.ndarray:
    array = np.asarray(value.numpy() if isinstance(value, Tensor) else value)
    if list(array.shape) != list(shape):
        raise BuildError(f"optimizer state {name!r} has shape {list(array.shape)}, expected "
                         f"{list(shape)}")
    return np.array(array, dtype=dtype)


def _flatten_groups(parameters, who: str) -> tuple[list | None, dict]:
    """Parameters as a flat list, and for parameters given in groups ({'params': [...],
    'weight_decay': ..., 'learning_rate': ...}) their group's options by id."""
    if parameters is None:
        return None, {}
    if isinstance(parameters, (Tensor, Variable)):
        raise BuildError(f"{who}: parameters must be a list of parameters, got one "
                         f"{type(parameters).__name__}")
    flat, group_of = [], {}
    for item in parameters:
        if isinstance(item, dict):
            if "params" not in item:
                raise BuildError(f"{who}: a parameter group needs a 'params' list")
            unknown = set(item) - {"params", "weight_decay", "learning_rate", "grad_clip"}
            if unknown:
                raise BuildError(f"{who}: parameter groups support 'params', 'weight_decay' "
                                 f"and 'learning_rate' in pyir, got {sorted(item)}")
            options = {k: v for k, v in item.items() if k != "params"}
            for param in item["params"]:
                flat.append(param)
                group_of[id(param)] = options
        else:
            flat.append(item)
    return flat, group_of


def _clip_eager(clip, params_grads: list) -> list:
    """Eager gradient clipping with the ops the static clip appends (pyir/nn/clip.py);
    parameters with `need_clip = False` (ParamAttr(need_clip=False)) keep their gradient."""
    kept = [(p, g) for p, g in params_grads if getattr(p, "need_clip", True) is False]
    clipped = _clip_all(clip, [(p, g) for p, g in params_grads
                               if getattr(p, "need_clip", True) is not False])
    by_param = {id(p): (p, g) for p, g in kept + clipped}
    return [by_param[id(p)] for p, _ in params_grads]


def _clip_all(clip, params_grads: list) -> list:
    if isinstance(clip, ClipGradByValue):
        return [(p, run_op("clip", {"X": g}, {"min": clip.min, "max": clip.max})["Out"])
                for p, g in params_grads]
    if isinstance(clip, ClipGradByNorm):
        return [(p, run_op("clip_by_norm", {"X": g}, {"max_norm": clip.clip_norm})["Out"])
                for p, g in params_grads]
    if isinstance(clip, ClipGradByGlobalNorm):
        if not params_grads:
            return []
        squares = [run_op("squared_l2_norm", {"X": g})["Out"] for _, g in params_grads]
        norm = run_op("sqrt", {"X": run_op("sum", {"X": squares})["Out"]})["Out"]
        limit = Tensor(np.array([clip.clip_norm], dtype=params_grads[0][1].dtype))
        larger = run_op("elementwise_max", {"X": limit, "Y": norm})["Out"]
        scale = run_op("elementwise_div", {"X": limit, "Y": larger})["Out"]
        return [(p, run_op("elementwise_mul", {"X": g, "Y": scale})["Out"])
                for p, g in params_grads]
    raise BuildError(f"gradient clip {type(clip).__name__} has no eager form in pyir")


def _tag(ops: list, scope: str, role_var) -> None:
    """Give ops an optimizer just appended their name scope and `op_role_var(op)`."""
    for op in ops:
        op.attrs["op_namescope"] = scope
        op.attrs["op_role_var"] = role_var(op)


def _scope_name(stem: str) -> str:
    """Paddle's unique name scopes: optimizer, optimizer_1, optimizer_2, ..."""
    n = int(unique_name.generate(f"@scope@{stem}").rsplit("_", 1)[1])
    return stem if n == 0 else f"{stem}_{n}"


__all__ = ["Optimizer"]
