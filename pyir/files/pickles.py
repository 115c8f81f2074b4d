"""The one unpickler for files from elsewhere (`paddle.save` pickles, static checkpoints):
it builds containers, numbers, strings, bytes and numpy arrays, and refuses anything else
before it runs, naming the file and the refused global (docs/saving.md)."""

from __future__ import annotations

import _compat_pickle
import io
import pickle

import numpy as np

from ..errors import FormatError, Where

# (module, name) pairs a file may reference: containers and numpy's array machinery.
ALLOWED_GLOBALS = frozenset({
    ("builtins", "tuple"), ("builtins", "list"), ("builtins", "dict"), ("builtins", "set"),
    ("builtins", "frozenset"), ("builtins", "complex"), ("builtins", "bytearray"),
    ("builtins", "slice"), ("builtins", "range"),
    ("collections", "OrderedDict"), ("_codecs", "encode"),  # how protocol 2 spells bytes
    ("numpy", "ndarray"), ("numpy", "dtype"),
    ("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "scalar"), ("numpy._core.multiarray", "scalar"),
})


class UnsafePickleError(FormatError):
    """A file references something other than containers, numbers, strings and arrays."""


class _SafeUnpickler(pickle.Unpickler):
    def __init__(self, file, source: str):
        super().__init__(file, encoding="latin1")
        self._source = source

    def find_class(self, module: str, name: str):
        # protocol 2 files name Python 2 modules (__builtin__.tuple): read them as Python 3's
        module, name = _compat_pickle.NAME_MAPPING.get((module, name), (module, name))
        module = _compat_pickle.IMPORT_MAPPING.get(module, module)
        if (module, name) in ALLOWED_GLOBALS:
            return super().find_class(module, name)
        raise UnsafePickleError(
            f"refused to load: the file references {module}.{name}; pyir admits only "
            f"containers, numbers, strings and numpy arrays and runs no code from files",
            Where(file=self._source))

    def persistent_load(self, pid):
        raise UnsafePickleError("refused to load: the file uses pickle persistent ids, which "
                                "pyir does not admit", Where(file=self._source))


def safe_loads(data: bytes, source: str = "<bytes>"):
    """Unpickle `data` admitting only containers, numbers, strings and numpy arrays (no
    object arrays: they can hold anything).

    Example:
        >>> safe_loads(open("model.pdparams", "rb").read(), "model.pdparams")
    """
    try:
        value = _SafeUnpickler(io.BytesIO(data), source).load()
    except UnsafePickleError:
        raise
    except Exception as e:  # noqa: BLE001 - any unpickling failure is one error line
        raise FormatError(f"not a readable pickle ({type(e).__name__}: {e})",
                          Where(file=source)) from None
    _refuse_object_arrays(value, source)
    return value


def _refuse_object_arrays(value, source: str) -> None:
    if isinstance(value, np.ndarray):
        if value.dtype.hasobject:
            raise UnsafePickleError(f"refused to load: an array of dtype {value.dtype} (object "
                                    f"arrays can hold anything)", Where(file=source))
    elif isinstance(value, dict):
        for key, item in value.items():
            _refuse_object_arrays(key, source)
            _refuse_object_arrays(item, source)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            _refuse_object_arrays(item, source)
