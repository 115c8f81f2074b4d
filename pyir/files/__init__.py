"""`pyir.files`: everything pyir reads from or writes to disk, and the library behind each
`pyir` command (the CLI verbs are thin wrappers over these functions).

    atomic.py      atomic_write, write_files (several files, all or none), staged_save
    params.py      parameter files: Paddle's `.pdiparams` records and `.npz`; write_npz
    inference.py   the inference layout Paddle's save_inference_model writes
    model.py       save_inference_model / load_inference_model (Paddle's API), save_model,
                   save_training_program, save_built_program, load_model
    build.py       build_model       `pyir build MODEL.py`
    run.py         run_model         `pyir run MODEL`      (read_feeds, save_params)
    grad.py        grad_model        `pyir grad MODEL`     (check_model_gradients: --check)
    many.py        score_all         many inputs, one output each (`pyir run --feed A --feed B`,
                                     `pyir map`; pyir/distributed runs it on Ray)
    export.py      export_model      `pyir export TRAIN`   (forward_part)
    convert.py     convert_model     `pyir convert IN -o OUT` (PIR .json <-> legacy)
    describe.py    describe_model    `pyir inspect MODEL`
    view.py        serve_model       `pyir view MODEL`     (Netron; optional)
    pickles.py     the one safe unpickler (`pyir.load` of `.pdparams` / `.pdopt`)

Reading a program file is `load_program` (pyir/serialize.py parses the bytes).

Example:
    >>> built = pyir.files.build_model("samples/mlp.py", "out/mlp.pb")
    >>> pyir.files.run_model("out/mlp.pb", {"x": x}).outputs
"""

from __future__ import annotations

from ..serialize import load_program
from .atomic import atomic_write, staged_save, write_files
from .params import TensorRecord, read_params, write_npz, write_params
from .inference import inference_program, persistable_names
from .model import (LoadedModel, load_inference_model, load_model, load_params_into,
                    save_built_program, save_inference_model, save_model, save_training_program,
                    state_updates)
from .build import BuiltModel, build_model
from .run import RunResult, read_feeds, run_model, save_params
from .grad import GradModel, check_model_gradients, grad_model
from .export import ExportedModel, export_model, forward_part
from .describe import describe_model

__all__ = ["load_program", "atomic_write", "staged_save", "write_files", "TensorRecord",
           "read_params", "write_npz", "write_params", "inference_program",
           "persistable_names", "LoadedModel", "load_inference_model", "load_model",
           "load_params_into", "save_built_program", "save_inference_model", "save_model",
           "save_training_program", "state_updates", "BuiltModel", "build_model", "RunResult",
           "read_feeds", "run_model", "save_params", "GradModel", "check_model_gradients",
           "grad_model", "ExportedModel", "export_model", "forward_part", "describe_model"]
