"""`paddle.static` file functions besides the inference model: checkpoints (`save` / `load`,
`load_program_state` / `set_program_state`), programs and parameters as bytes
(`serialize_*` / `deserialize_*`, `save_to_file` / `load_from_file`) and `normalize_program`.

    save(program, "ck/model")   ck/model.pdparams  {parameter name: array}     pickle
                                ck/model.pdopt     {optimizer state: array}    pickle
                                ck/model.pdmodel   the program                 ProgramDesc

The pickles are what Paddle writes, so checkpoints move both ways. They are read with a
restricted unpickler that builds only containers, numbers, strings and numpy arrays, and
refuses anything else: a checkpoint cannot run code.
"""

from __future__ import annotations

import os
import pickle
import warnings

import numpy as np

from ..errors import FormatError, PyirError, Where
from ..files.pickles import safe_loads
from ..executor import Scope, global_scope
from ..framework import (FEED_MINIBATCH, FETCH_LIST, Parameter, Program, Variable,
                         default_main_program)
from ._storage import (atomic_write, decode_params, encode_params, inference_program,
                       parse_program, persistable_names)

_READER, _RAW = 15, 17
_NOT_STORED = (FEED_MINIBATCH, FETCH_LIST, _READER, _RAW)

def safe_load_pickle(data: bytes, path: str = "<bytes>"):
    """A checkpoint pickle, read by pyir's one safe unpickler (pyir/files/pickles.py)."""
    return safe_loads(data, path)


def _read_pickle_file(path: str):
    if not os.path.isfile(path):
        raise FormatError("no such checkpoint file", Where(file=path))
    with open(path, "rb") as f:
        return safe_load_pickle(f.read(), path)


def _stored(var: Variable) -> bool:
    return var.persistable and var.type not in _NOT_STORED


def is_persistable(var: Variable) -> bool:
    """Whether `var` is kept in the scope across runs (and saved), as Paddle's
    `is_persistable`: persistable and not a feed/fetch/reader holder.

    Example:
        >>> pyir.static.is_persistable(main.global_block().var("fc_0.w_0"))
        True
    """
    return _stored(var)


def is_parameter(var: Variable) -> bool:
    return isinstance(var, Parameter)


def _unique_vars(program: Program, keep) -> list[Variable]:
    seen: dict[str, Variable] = {}
    for var in program.list_vars():
        if keep(var) and var.name not in seen:
            seen[var.name] = var
    return list(seen.values())


def _scope_value(scope: Scope, name: str) -> np.ndarray:
    found = scope.find_var(name)
    if found is None or not found.is_initialized():
        raise PyirError(f"variable {name!r} has no value in the scope: run the startup "
                        f"program before saving", Where(var=name))
    return np.array(found.get_tensor())


def _prefix(model_path: str, what: str) -> str:
    if not isinstance(model_path, str) or not os.path.basename(model_path):
        raise PyirError(f"{what}: model_path must be 'dirname/filename', got {model_path!r}")
    for ext in (".pdparams", ".pdopt", ".pdmodel"):
        if model_path.endswith(ext):
            return model_path[:-len(ext)]
    return model_path


def save(program: Program, model_path: str, protocol: int = 4, **configs) -> None:
    """Write a checkpoint: MODEL_PATH.pdparams (parameters), .pdopt (other persistables, the
    optimizer's state) and .pdmodel (the program), as Paddle's `static.save`.

    Example:
        >>> pyir.static.save(main, "ck/model")
    """
    protocol = configs.pop("pickle_protocol", protocol)
    if isinstance(protocol, bool) or not isinstance(protocol, int) or not 2 <= protocol <= 4:
        raise PyirError(f"static.save: protocol must be an int in 2..4, got {protocol!r}")
    if not isinstance(program, Program):
        raise PyirError(f"static.save expects a Program, got {type(program).__name__}")
    prefix = _prefix(model_path, "static.save")
    scope = configs.get("scope") or global_scope()
    params = {v.name: _scope_value(scope, v.name) for v in _unique_vars(program, is_parameter)}
    opt = {v.name: _scope_value(scope, v.name) for v in _unique_vars(
        program, lambda v: _stored(v) and not is_parameter(v))}
    os.makedirs(os.path.dirname(os.path.abspath(prefix)), exist_ok=True)
    atomic_write(prefix + ".pdparams", pickle.dumps(params, protocol=protocol))
    atomic_write(prefix + ".pdopt", pickle.dumps(opt, protocol=protocol))
    atomic_write(prefix + ".pdmodel", program.serialize_to_string())


def load_program_state(model_path: str, var_list=None) -> dict:
    """The {name: array} state of a checkpoint written by `save` (.pdparams, plus .pdopt when
    present). `var_list` keeps only those variables.

    Example:
        >>> state = pyir.static.load_program_state("ck/model")
    """
    prefix = _prefix(model_path, "load_program_state")
    params_file = prefix + ".pdparams"
    if not os.path.isfile(params_file):
        raise FormatError("no such checkpoint (load_program_state reads MODEL_PATH.pdparams; "
                          "pyir does not read per-variable save_vars directories)",
                          Where(file=params_file))
    state = _as_state(_read_pickle_file(params_file), params_file)
    if os.path.isfile(prefix + ".pdopt"):
        state.update(_as_state(_read_pickle_file(prefix + ".pdopt"), prefix + ".pdopt"))
    if var_list is not None:
        wanted = {v.name if isinstance(v, Variable) else v for v in var_list}
        state = {k: v for k, v in state.items() if k in wanted}
    return state


def _as_state(value, path: str) -> dict:
    if not isinstance(value, dict):
        raise FormatError(f"a checkpoint holds a dict of arrays, this one a "
                          f"{type(value).__name__}", Where(file=path))
    value.pop("StructuredToParameterName@@", None)
    return {str(k): np.asarray(v) for k, v in value.items()}


def set_program_state(program: Program, state_dict: dict) -> None:
    """Put the arrays of `state_dict` into the global scope for `program`'s persistables,
    checking shape and dtype; names the program does not have are reported in a warning.

    Example:
        >>> pyir.static.set_program_state(main, pyir.static.load_program_state("ck/model"))
    """
    scope = global_scope()
    used = set()
    for var in _unique_vars(program, _stored):
        if var.name not in state_dict:
            continue
        found = scope.find_var(var.name)
        if found is None:
            raise PyirError(f"set_program_state: {var.name!r} is not in the scope; run the "
                            f"startup program first", Where(var=var.name))
        new = np.asarray(state_dict[var.name])
        if found.is_initialized():
            old = np.asarray(found.get_tensor())
            if old.shape != new.shape:
                raise PyirError(f"set_program_state: {var.name!r} needs shape "
                                f"{list(old.shape)}, the state holds {list(new.shape)}",
                                Where(var=var.name))
            if old.dtype != new.dtype:
                raise PyirError(f"set_program_state: {var.name!r} needs dtype {old.dtype}, "
                                f"the state holds {new.dtype}", Where(var=var.name))
        found.get_tensor().set(new)
        used.add(var.name)
    unused = [k for k in state_dict if k not in used]
    if unused:
        warnings.warn(f"set_program_state: not in the program, not set: {' '.join(unused)}",
                      stacklevel=2)


def load(program: Program, model_path: str, executor=None, var_list=None) -> None:
    """Read a checkpoint written by `save` into the global scope for `program`.

    Example:
        >>> pyir.static.load(main, "ck/model", exe)
    """
    if not isinstance(program, Program):
        raise PyirError(f"static.load expects a Program, got {type(program).__name__}")
    prefix = _prefix(model_path, "static.load")
    state = load_program_state(prefix, var_list)
    scope = global_scope()
    wanted = None if var_list is None else {v.name if isinstance(v, Variable) else v
                                           for v in var_list}
    for var in _unique_vars(program, _stored):
        if wanted is not None and var.name not in wanted:
            continue
        if var.name not in state:
            if is_parameter(var):
                raise FormatError(f"the checkpoint has no value for parameter {var.name!r}",
                                  Where(file=prefix + ".pdparams", var=var.name))
            continue
        array = state[var.name]
        if var.shape is not None and (len(var.shape) != array.ndim or any(
                d not in (-1, a) for d, a in zip(var.shape, array.shape))):
            raise FormatError(f"holds shape {list(array.shape)} for {var.name!r}, which the "
                              f"program declares {list(var.shape)}",
                              Where(file=prefix + ".pdparams", var=var.name))
        scope.var(var.name).get_tensor().set(array)


# --- bytes ------------------------------------------------------------------------------------
def _var_names(items, what: str) -> list[str]:
    items = items if isinstance(items, (list, tuple)) else [items]
    for item in items:
        if not isinstance(item, Variable):
            raise PyirError(f"{what} must be a Variable or a list of Variables, got "
                            f"{type(item).__name__}")
    return [v.name for v in items]


def normalize_program(program: Program, feed_vars, fetch_vars, **kwargs) -> Program:
    """The inference form of `program` that `save_inference_model` writes: pruned to
    `fetch_vars`, `is_test` set, feed and fetch ops added.

    Example:
        >>> infer = pyir.static.normalize_program(main, [x], [y])
    """
    if not isinstance(program, Program):
        raise PyirError(f"normalize_program expects a Program, got {type(program).__name__}")
    if not program.global_block().ops:
        raise PyirError("normalize_program: the program is empty; it needs at least one op")
    return inference_program(program, _var_names(feed_vars, "feed_vars"),
                             _var_names(fetch_vars, "fetch_vars"))


def serialize_program(feed_vars, fetch_vars, **kwargs) -> bytes:
    """The normalized program (see `normalize_program`) as ProgramDesc bytes.

    Example:
        >>> data = pyir.static.serialize_program([x], [y])
    """
    program = kwargs.get("program") or default_main_program()
    return normalize_program(program, feed_vars, fetch_vars).serialize_to_string()


def serialize_persistables(feed_vars, fetch_vars, executor, **kwargs) -> bytes:
    """The persistables the normalized program needs, as `.pdiparams` bytes (sorted names).

    Example:
        >>> data = pyir.static.serialize_persistables([x], [y], exe)
    """
    program = kwargs.get("program") or default_main_program()
    infer = normalize_program(program, feed_vars, fetch_vars)
    scope = global_scope()
    return encode_params({n: _scope_value(scope, n) for n in persistable_names(infer)})


def deserialize_program(data: bytes) -> Program:
    """A Program from ProgramDesc bytes.

    Example:
        >>> program = pyir.static.deserialize_program(data)
    """
    if not isinstance(data, (bytes, bytearray)):
        raise PyirError(f"deserialize_program expects bytes, got {type(data).__name__}")
    return parse_program(bytes(data))


def deserialize_persistables(program: Program, data: bytes, executor) -> None:
    """Load `.pdiparams` bytes into the global scope for `program`'s persistables.

    Example:
        >>> pyir.static.deserialize_persistables(program, data, exe)
    """
    if not isinstance(program, Program):
        raise PyirError(f"deserialize_persistables expects a Program, got "
                        f"{type(program).__name__}")
    names = persistable_names(program)
    if data is None:
        if any(isinstance(v, Parameter) for v in program.list_vars()):
            raise PyirError("deserialize_persistables: data is None but the program has "
                            "parameters")
        return
    arrays = decode_params(bytes(data), names)
    scope = global_scope()
    for var in _unique_vars(program, _stored):
        array = arrays[var.name].array
        if isinstance(var, Parameter) and var.shape is not None and \
                tuple(var.shape) != array.shape and -1 not in var.shape:
            raise PyirError(f"deserialize_persistables: parameter {var.name!r} needs shape "
                            f"{list(var.shape)}, the data holds {list(array.shape)}")
        scope.var(var.name).get_tensor().set(array)


def save_to_file(path: str, content: bytes) -> None:
    """Write bytes to `path` (atomically).

    Example:
        >>> pyir.static.save_to_file("m.pdmodel", pyir.static.serialize_program([x], [y]))
    """
    if not isinstance(content, (bytes, bytearray)):
        raise PyirError(f"save_to_file: content must be bytes, got {type(content).__name__}")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    atomic_write(path, bytes(content))


def load_from_file(path: str) -> bytes:
    """The bytes of `path`.

    Example:
        >>> program = pyir.static.deserialize_program(pyir.static.load_from_file("m.pdmodel"))
    """
    if not os.path.isfile(path):
        raise FormatError("no such file", Where(file=path))
    with open(path, "rb") as f:
        return f.read()


__all__ = ["save", "load", "load_program_state", "set_program_state", "normalize_program",
           "serialize_program", "serialize_persistables", "deserialize_program",
           "deserialize_persistables", "save_to_file", "load_from_file", "is_persistable"]
