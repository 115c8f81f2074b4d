"""`pyir convert IN -o OUT`: a program file in another format, its parameters beside it.

    convert_model(src, out)
      +-- load_program         src by content: a legacy ProgramDesc or a Paddle 3 PIR .json
      +-- check_program        every op known to pyir, slots and attributes as declared
      +-- serialize_program    the legacy `.pdmodel` bytes (Paddle 3.3.1's version stamp)
          or program_to_pir    OUT ending in `.json`: a PIR program (pyir/pir/writer.py)
      +-- write_files          OUT + OUT's `.pdiparams` (the source's, byte for byte), atomically

The parameter stream is the same in both Paddle formats (docs/pir-json.md, "What the save
APIs write"), so the source's `.pdiparams` is copied unchanged.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from ..checker import check_program
from ..errors import FormatError, PyirError, Where
from ..pir.writer import program_to_pir
from ..serialize import PADDLE_VERSION, load_program, serialize_program
from .atomic import write_files
from .inference import PADDLE_OP_VERSIONS, persistable_names


@dataclass
class Converted:
    """What `convert_model` wrote: the program file, its params file (or None), op count."""

    path: str
    params_path: str | None
    ops: int


def convert_model(src: str, out: str, params: str | None = None,
                  out_params: str | None = None) -> Converted:
    """Write the program `src` (a Paddle 3 PIR `.json`, a Paddle `.pdmodel` or a pyir `.pb`)
    as a legacy ProgramDesc at `out` (which Paddle 3.3.1 loads with FLAGS_enable_pir_api=0),
    or, when `out` ends in `.json`, as a PIR program (which Paddle 3.3.1 loads in its default
    mode), with the parameters beside it.

    Args:
        params: the source's params file (default: `<src stem>.pdiparams` when it exists).
        out_params: where the params go (default: `<out stem>.pdiparams`).

    Example:
        >>> convert_model("model.json", "legacy/model.pdmodel").params_path
        'legacy/model.pdiparams'
    """
    program = load_program(src)
    check_program(program)
    if out.endswith(".json"):
        try:
            files = {out: program_to_pir(program)}
        except PyirError as e:
            raise e.at(file=src) from None
    else:
        if program.version is None:
            program.version = PADDLE_VERSION
            program.op_version_map = list(PADDLE_OP_VERSIONS)
        files = {out: serialize_program(program)}
    if params is None:
        sidecar = os.path.splitext(src)[0] + ".pdiparams"
        params = sidecar if os.path.isfile(sidecar) else None
    out_params = out_params or os.path.splitext(out)[0] + ".pdiparams"
    if persistable_names(program):
        if params is None:
            raise FormatError("the program has parameters but there is no params file beside "
                              "it (name it with --params)", Where(file=src))
        try:
            with open(params, "rb") as f:
                data = f.read()
        except OSError as e:
            raise FormatError(f"cannot read params file: {e.strerror}",
                              Where(file=params)) from None
        if os.path.abspath(params) != os.path.abspath(out_params):
            files[out_params] = data
    else:
        out_params = None
    write_files(files)
    return Converted(out, out_params, len(program.global_block().ops))


__all__ = ["convert_model", "Converted"]
