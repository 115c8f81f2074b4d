"""`pyir.pir`: Paddle 3 PIR program files (`.json`) read into pyir Programs.

    reader.py      the JSON: header (magic, version), types, attribute values
    table.py       GENERATED (tools/gen_pir_table.py): pd_op -> legacy op, slots, attributes
    translate.py   a parsed module -> a Program of legacy ops with feed/fetch targets

Facts the reader relies on: docs/pir-json.md.

Example:
    >>> program = pyir.pir.parse_pir_program(open("model.json", "rb").read(), "model.json")
"""

from __future__ import annotations

from ..framework import Program
from .reader import SUPPORTED_VERSIONS, is_pir_json, parse_module
from .translate import translate


def parse_pir_program(data: bytes, file: str | None = None) -> Program:
    """The pyir Program a PIR `.json` file holds (FormatError naming the file otherwise)."""
    return translate(parse_module(data, file), file)


__all__ = ["parse_pir_program", "is_pir_json", "parse_module", "translate",
           "SUPPORTED_VERSIONS"]
