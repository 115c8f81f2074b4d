"""`pyir.pir`: Paddle 3 PIR program files (`.json`) read into pyir Programs.

    detect.py      is_pir_json: is this a PIR program? (all every program load needs)
    reader.py      the JSON: header (magic, version), types, attribute values
    table.py       GENERATED (tools/gen_pir_table.py): pd_op -> legacy op, slots, attributes
    translate.py   a parsed module -> a Program of legacy ops with feed/fetch targets
    writer.py      a Program -> PIR `.json` (`pyir convert ... -o OUT.json`)

The reader, table and translator load on first use (`import pyir` does not pay for them).
Facts the reader relies on: docs/pir-json.md.

Example:
    >>> program = pyir.pir.parse_pir_program(open("model.json", "rb").read(), "model.json")
"""

from __future__ import annotations

import importlib as _importlib

from .detect import is_pir_json

# Name -> the module of this package defining it, imported when the name is first asked for.
_LAZY_NAMES = {"parse_pir_program": "translate", "translate": "translate",
               "parse_module": "reader", "SUPPORTED_VERSIONS": "reader"}


def __getattr__(name: str):
    if name not in _LAZY_NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(f"{__name__}.{_LAZY_NAMES[name]}"), name)
    globals()[name] = value
    return value


__all__ = ["parse_pir_program", "is_pir_json", "parse_module", "translate",
           "SUPPORTED_VERSIONS"]
