"""`paddle.save` / `paddle.load`: state dicts and nested structures of tensors in Paddle's
pickle layout (`.pdparams`, `.pdopt`, ...), loaded without running code from the file.

Layout (what Paddle 3.3.1 writes, protocol 4 by default):
  - a state dict (a dict whose values are all Tensors, or dicts of plain values such as an
    optimizer's `LR_Scheduler`): the Tensors as numpy arrays, plus the key
    `StructuredToParameterName@@` mapping each key to the tensor's name;
  - anything else (a Tensor, lists/tuples/dicts holding Tensors, numbers, strings, arrays):
    each Tensor as the tuple `(name, numpy array)`.
`load` turns `(name, array)` tuples back into Tensors (or, when there are none, every array),
drops `StructuredToParameterName@@`, and with `return_numpy=True` gives arrays. In static
mode it gives arrays.

Loading is safe: the unpickler admits only containers (dict, list, tuple, set, OrderedDict),
numbers, strings, bytes and numpy arrays (numpy's own reconstruct functions and dtypes); any
other global in the file is refused with a one-line error naming the file and the global,
before anything runs. docs/saving.md says more.
"""

from __future__ import annotations

import _compat_pickle
import collections
import io
import numbers
import os
import pickle
import warnings

import numpy as np

from . import framework, static
from .eager import Tensor
from .errors import PyirError
from .executor import Executor, Scope, global_scope
from .serialize import parse_program

STRUCTURE_KEY = "StructuredToParameterName@@"

# (module, name) pairs a file may reference: containers and numpy's array machinery.
_ALLOWED = {
    ("builtins", "tuple"), ("builtins", "list"), ("builtins", "dict"), ("builtins", "set"),
    ("builtins", "frozenset"), ("builtins", "complex"), ("builtins", "bytearray"),
    ("builtins", "slice"), ("builtins", "range"),
    ("collections", "OrderedDict"), ("_codecs", "encode"),
    ("numpy", "ndarray"), ("numpy", "dtype"),
    ("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "scalar"), ("numpy._core.multiarray", "scalar"),
}


class UnsafePickleError(PyirError):
    """A file references something other than containers, numbers, strings and arrays."""


class _SafeUnpickler(pickle.Unpickler):
    def __init__(self, file, source: str):
        super().__init__(file)
        self._source = source

    def find_class(self, module: str, name: str):
        # protocol 2 files name Python 2 modules (__builtin__.tuple): read them as Python 3's
        module, name = _compat_pickle.NAME_MAPPING.get((module, name), (module, name))
        module = _compat_pickle.IMPORT_MAPPING.get(module, module)
        if (module, name) in _ALLOWED:
            return super().find_class(module, name)
        raise UnsafePickleError(
            f"{self._source}: refused to load: the file references {module}.{name}; pyir.load "
            f"admits only containers, numbers, strings and numpy arrays and runs no code from "
            f"files")

    def persistent_load(self, pid):
        raise UnsafePickleError(f"{self._source}: refused to load: the file uses pickle "
                                f"persistent ids, which pyir.load does not admit")


def safe_loads(data: bytes, source: str = "<bytes>"):
    """Unpickle `data` admitting only containers, numbers, strings and numpy arrays.

    Example:
        >>> safe_loads(open("model.pdparams", "rb").read(), "model.pdparams")
    """
    try:
        return _SafeUnpickler(io.BytesIO(data), source).load()
    except UnsafePickleError:
        raise
    except Exception as e:  # noqa: BLE001 - any unpickling failure is one error line
        raise PyirError(f"{source}: not a readable pickle ({type(e).__name__}: {e})") from None


# --- save -----------------------------------------------------------------------------------
def save(obj, path, protocol: int = 4, **configs) -> None:
    """Save a state dict, a Tensor, or a nested structure of them (Paddle's pickle layout).

    Args:
        obj: a `layer.state_dict()` / `opt.state_dict()`, a Tensor, or lists, tuples and
            dicts of Tensors, numpy arrays, numbers and strings.
        path: the file to write (parent directories are made), or a writable binary buffer.
        protocol: the pickle protocol, 2 to 4.

    Example:
        >>> pyir.save(model.state_dict(), "model.pdparams")
    """
    if isinstance(protocol, bool) or not isinstance(protocol, int) or not 1 < protocol < 5:
        raise PyirError(f"pyir.save: protocol must be 2, 3 or 4, got {protocol!r}")
    if isinstance(obj, framework.Program):
        data = obj.serialize_to_string()
    else:
        data = pickle.dumps(_to_saved(obj), protocol=protocol)
    if hasattr(path, "write"):
        path.write(data)
        return
    if not isinstance(path, (str, os.PathLike)) or not str(path) or os.path.isdir(path):
        raise PyirError(f"pyir.save: path must be a file name (or a buffer), got {path!r}")
    folder = os.path.dirname(os.fspath(path))
    if folder:
        os.makedirs(folder, exist_ok=True)
    temp = f"{os.fspath(path)}.tmp{os.getpid()}"
    with open(temp, "wb") as f:
        f.write(data)
    os.replace(temp, path)


def _is_state_dict(obj) -> bool:
    if not isinstance(obj, dict) or not obj:
        return False
    for value in obj.values():
        if isinstance(value, dict):
            if _contains_tensor(value):
                return False
        elif not isinstance(value, Tensor):
            return False
    return True


def _contains_tensor(obj) -> bool:
    if isinstance(obj, Tensor):
        return True
    if isinstance(obj, dict):
        return any(_contains_tensor(v) for v in obj.values())
    if isinstance(obj, (list, tuple, set)):
        return any(_contains_tensor(v) for v in obj)
    return False


def _to_saved(obj):
    if _is_state_dict(obj):
        saved = {key: np.array(value.numpy()) if isinstance(value, Tensor) else
                 _plain(value, key) for key, value in obj.items()}
        saved[STRUCTURE_KEY] = {key: value.name for key, value in obj.items()
                                if isinstance(value, Tensor)}
        return saved
    return _plain(obj, "obj")


def _plain(obj, where: str):
    """Tensors as (name, array); refuse what `load` would refuse."""
    if isinstance(obj, Tensor):
        return (obj.name, np.array(obj.numpy()))
    if isinstance(obj, framework.Variable):
        raise PyirError(f"pyir.save: {where} is a static Variable; save its value from the "
                        f"scope (pyir.static.global_scope()[name]) instead")
    if isinstance(obj, (dict, collections.OrderedDict)):
        made = {k: _plain(v, f"{where}[{k!r}]") for k, v in obj.items()}
        return collections.OrderedDict(made) if type(obj) is collections.OrderedDict else made
    if isinstance(obj, (list, tuple, set, frozenset)):
        items = [_plain(v, f"{where}[{i}]") for i, v in enumerate(obj)]
        return type(obj)(items) if type(obj) in (list, tuple, set, frozenset) else items
    if obj is None or isinstance(obj, (str, bytes, bool, numbers.Number, np.generic)):
        return obj
    if isinstance(obj, np.ndarray):
        if obj.dtype.hasobject:
            raise PyirError(f"pyir.save: {where} is a numpy array of Python objects; save "
                            f"numeric arrays")
        return obj
    raise PyirError(f"pyir.save: cannot save {where} of type {type(obj).__name__}: pyir saves "
                    f"Tensors, numpy arrays, numbers, strings and lists/tuples/dicts of them "
                    f"(save a layer's state_dict(), not the layer)")


# --- load -----------------------------------------------------------------------------------
def load(path, **configs):
    """Load what `save` (or Paddle's `paddle.save`) wrote, refusing files that reference
    anything but containers, numbers, strings and numpy arrays.

    Args:
        path: the file, or a readable binary buffer; or the prefix of an inference model
            (`jit.save`, `save_inference_model`), whose parameters come back by name.
        return_numpy: give numpy arrays instead of Tensors.

    Example:
        >>> model.set_state_dict(pyir.load("model.pdparams"))
    """
    unknown = set(configs) - {"return_numpy", "model_filename", "params_filename",
                              "keep_name_table"}
    if unknown:
        raise PyirError(f"pyir.load: unknown option(s) {sorted(unknown)}")
    if hasattr(path, "read"):
        data, source = path.read(), "<buffer>"
    else:
        source = os.fspath(path)
        if not os.path.isfile(source) and os.path.isfile(source + ".pdmodel"):
            return _load_inference_params(source, configs)
        if not os.path.isfile(source):
            raise PyirError(f"pyir.load: no such file {source!r}")
        with open(source, "rb") as f:
            data = f.read()
    if not data.startswith(b"\x80"):
        try:
            return parse_program(data, source)
        except Exception:  # noqa: BLE001 - not a program either
            raise PyirError(f"{source}: neither a pickle written by paddle.save nor a program "
                            f"file") from None
    obj = safe_loads(data, source)
    numpy_only = bool(configs.get("return_numpy", False)) or framework.static_mode[0]
    names = {}
    if isinstance(obj, dict) and STRUCTURE_KEY in obj:
        names = obj.pop(STRUCTURE_KEY) or {}
        if configs.get("keep_name_table"):
            obj[STRUCTURE_KEY] = names
    if _contains(obj, _is_named_array):
        return _convert(obj, _is_named_array, lambda t: t[1] if numpy_only else
                        Tensor(np.array(t[1]), name=t[0]))
    if isinstance(obj, dict) and not numpy_only:  # state dict entries get their names back
        for key, name in names.items():
            if isinstance(obj.get(key), np.ndarray):
                obj[key] = Tensor(obj[key], name=name)
    return _convert(obj, lambda v: isinstance(v, np.ndarray),
                    lambda a: a if numpy_only else Tensor(a))


def _load_inference_params(prefix: str, configs: dict) -> dict:
    """The parameters of the inference model at `prefix` (`jit.save`, save_inference_model)
    as {variable name: Tensor}, as Paddle's load gives for a model prefix."""
    scope = Scope()
    static.load_inference_model(prefix, Executor(), scope=scope)
    numpy_only = bool(configs.get("return_numpy", False)) or framework.static_mode[0]
    return {name: np.array(value) if numpy_only else Tensor(np.array(value), name=name)
            for name, value in sorted(scope.vars.items())}


# --- paddle.static.save / load: a static program's persistable values -----------------------
def _persistables(program) -> tuple[list, list]:
    """(parameters, other persistable variables such as optimizer state) of a program."""
    if not isinstance(program, framework.Program):
        raise PyirError(f"expects a static Program, got {type(program).__name__}")
    params, others = [], []
    for var in program.list_vars():
        if not var.persistable or var.type in (framework.FEED_MINIBATCH, framework.FETCH_LIST):
            continue
        (params if var.is_parameter else others).append(var)
    return params, others


def save_static(program, model_path: str, protocol: int = 4, **configs) -> None:
    """`paddle.static.save`: the program's parameters to `model_path.pdparams`, its other
    persistable values (optimizer state, learning rate) to `model_path.pdopt` (pickles of
    {name: array}), and the program to `model_path.pdmodel`, from the global scope.

    Example:
        >>> pyir.static.save(main, "out/model")
    """
    if not isinstance(model_path, str) or not model_path or model_path.endswith(os.sep):
        raise PyirError(f"static.save: model_path {model_path!r} must be a file prefix such as "
                        f"'out/model'")
    params, others = _persistables(program)
    scope = global_scope()
    missing = [v.name for v in params + others if v.name not in scope]
    if missing:
        raise PyirError(f"static.save: {missing[:5]} have no value in the global scope: run the "
                        f"startup program first")
    save({v.name: np.array(scope[v.name]) for v in params}, model_path + ".pdparams", protocol)
    save({v.name: np.array(scope[v.name]) for v in others}, model_path + ".pdopt", protocol)
    save(program, model_path + ".pdmodel")


def load_program_state(model_path: str, var_list=None) -> dict:
    """`paddle.static.load_program_state`: {name: array} from `model_path.pdparams` and
    `.pdopt` (each loaded safely); `var_list` keeps only those variables.

    Example:
        >>> state = pyir.static.load_program_state("out/model")
    """
    files = [model_path + suffix for suffix in (".pdparams", ".pdopt")]
    if not os.path.isfile(files[0]):
        raise PyirError(f"load_program_state: no such file {files[0]!r}")
    state = {}
    for path in files:
        if os.path.isfile(path):
            with open(path, "rb") as f:
                loaded = safe_loads(f.read(), path)
            if not isinstance(loaded, dict):
                raise PyirError(f"{path}: expected a dict of arrays, got {type(loaded).__name__}")
            loaded.pop(STRUCTURE_KEY, None)
            state.update({k: np.asarray(v) for k, v in loaded.items()})
    if var_list is not None:
        wanted = {getattr(v, "name", v) for v in var_list}
        state = {k: v for k, v in state.items() if k in wanted}
    return state


def set_program_state(program, state_dict: dict) -> None:
    """`paddle.static.set_program_state`: put the values of `state_dict` into the global
    scope for the program's persistable variables (shapes must agree).

    Example:
        >>> pyir.static.set_program_state(main, pyir.static.load_program_state("out/model"))
    """
    params, others = _persistables(program)
    scope, used = global_scope(), set()
    for var in params + others:
        if var.name not in state_dict:
            continue
        value = np.asarray(state_dict[var.name].numpy() if isinstance(state_dict[var.name],
                                                                      Tensor)
                           else state_dict[var.name])
        if [d for d in var.shape if d != -1] and list(value.shape) != list(var.shape):
            raise PyirError(f"set_program_state: {var.name} has shape {list(value.shape)} in "
                            f"the state, the program declares {list(var.shape)}")
        scope[var.name] = value.astype(var.dtype, copy=False)
        used.add(var.name)
    unused = sorted(set(state_dict) - used)
    if unused:
        warnings.warn(f"set_program_state: {len(unused)} values have no variable in the "
                      f"program: {unused[:5]}", stacklevel=2)


def load_static(program, model_path: str, executor=None, var_list=None) -> None:
    """`paddle.static.load`: restore what `save_static` wrote into the global scope; every
    parameter of the program must be in the file.

    Example:
        >>> pyir.static.load(main, "out/model", exe)
    """
    state = load_program_state(model_path, var_list)
    params, _ = _persistables(program)
    wanted = params if var_list is None else [v for v in params if v.name in state or
                                              v in var_list]
    missing = [v.name for v in wanted if v.name not in state]
    if missing:
        raise PyirError(f"static.load: {model_path}.pdparams has no value for {missing[:5]}")
    set_program_state(program, state)


def _is_named_array(obj) -> bool:
    return (type(obj) is tuple and len(obj) == 2 and isinstance(obj[0], str)
            and isinstance(obj[1], np.ndarray))


def _contains(obj, condition) -> bool:
    if condition(obj):
        return True
    if isinstance(obj, dict):
        return any(_contains(v, condition) for v in obj.values())
    if isinstance(obj, (list, tuple, set, frozenset)):
        return any(_contains(v, condition) for v in obj)
    return False


def _convert(obj, condition, convert):
    if condition(obj):
        return convert(obj)
    if isinstance(obj, dict):
        for key in list(obj):
            obj[key] = _convert(obj[key], condition, convert)
        return obj
    if isinstance(obj, list):
        return [_convert(v, condition, convert) for v in obj]
    if type(obj) in (tuple, set, frozenset):
        return type(obj)(_convert(v, condition, convert) for v in obj)
    return obj


__all__ = ["UnsafePickleError", "load", "load_program_state", "load_static", "safe_loads", "save",
           "save_static", "set_program_state"]
