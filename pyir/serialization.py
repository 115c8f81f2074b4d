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

import collections
import numbers
import os
import pickle

import numpy as np

from . import framework, static
from .eager import Tensor
from .errors import PyirError
from .files.pickles import UnsafePickleError, safe_loads  # noqa: F401
from .executor import Executor, Scope
from .serialize import parse_program

STRUCTURE_KEY = "StructuredToParameterName@@"

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


__all__ = ["UnsafePickleError", "load", "safe_loads", "save"]
