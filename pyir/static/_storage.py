"""The file-format helpers `pyir.static` uses (ProgramDesc bytes, params records, atomic
writes, the inference layout), imported in this one place so that a move of those modules
touches one file."""

from __future__ import annotations

from ..io import (inference_program, load_inference_model,  # noqa: F401
                  persistable_names, save_inference_model)
from ..params import decode_params, encode_params, encode_record  # noqa: F401
from ..serialize import atomic_write, parse_program  # noqa: F401
