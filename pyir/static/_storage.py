"""The file-format helpers `pyir.static` uses (ProgramDesc bytes, params records, atomic
writes, the inference layout), imported in this one place so that a move of those modules
touches one file."""

from __future__ import annotations

from ..files.atomic import atomic_write  # noqa: F401
from ..files.inference import inference_program, persistable_names  # noqa: F401
from ..files.model import load_inference_model, save_inference_model  # noqa: F401
from ..files.params import decode_params, encode_params, encode_record  # noqa: F401
from ..serialize import parse_program  # noqa: F401
