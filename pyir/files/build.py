"""Building a program file from a Python model file: what `pyir build MODEL.py` does.

    build_model(model, out)
      +-- loaded_model         fresh default programs; the file runs as module `<stem>` (its
      |                        __main__ block does not); the programs it built
      +-- output_names         the names asked for, else the variables no op consumes
      +-- startup -> Scope     parameters get their initial values
      +-- staged_save          save_built_program into a scratch directory beside OUT, then
      |                        OUT and OUT's .pdiparams moved into place together
      +-- load_model           the written file read back (a check that it loads)
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
import traceback
from dataclasses import dataclass

from .. import framework
from ..callables import search_path
from ..errors import BuildError, PyirError, Where
from ..executor import Executor, Scope
from ..framework import Program, Variable
from ..targets import default_outputs
from .atomic import staged_save
from .inference import persistable_names
from .model import LoadedModel, load_model, save_built_program

_PYIR_DIR = os.path.dirname(os.path.abspath(framework.__file__))


@dataclass
class BuiltModel:
    """What `build_model` wrote: the file read back, the inputs and outputs it records and
    the parameter values it stores."""

    source: str                  # the model's .py file
    path: str                    # the program file written
    inputs: list[Variable]       # the `data` variables, in declaration order
    outputs: list[str]
    saved: LoadedModel           # the written file, read back
    parameters: dict             # name -> value, as stored in the params file


def build_model(model: str, out: str | None = None, fetches=(), paths=()) -> BuiltModel:
    """Import `model` (a .py file that builds a program) and write that program to `out`
    (+ its `.pdiparams`), as `pyir build` does.

    Inputs are the `data` variables; outputs are `fetches` or, without any, the
    non-persistable variables some op writes and no op reads. The file is pruned to the
    outputs like Paddle's inference models, except a training program (one whose ops update
    parameters), which is written whole so `pyir run --steps N` trains it.

    Args:
        out: the program file (default: `<stem>.pdmodel` in the current directory).
        fetches: output names to record.
        paths: directories the model imports its callables' modules from (put on sys.path
            while it builds, and searched when its references are checked, as `--path` does
            for `pyir run`).

    Example:
        >>> built = pyir.files.build_model("samples/mlp.py", "out/mlp.pb")
        >>> built.outputs
        ['fc_1.tmp_2']
    """
    out = out or os.path.splitext(os.path.basename(model))[0] + ".pdmodel"
    # The module stays importable until the file is written: saving may resolve the
    # references of callables the model registered.
    with search_path(list(paths)), loaded_model(model, paths) as (main, startup):
        inputs = [v for v in main.global_block().vars.values() if v.need_check_feed]
        outputs = output_names(main, fetches, model)
        scope = Scope()
        Executor().run(startup, scope=scope)
        staged_save(out, lambda path: save_built_program(path, main, [v.name for v in inputs],
                                                         outputs, scope))
        scope = Scope()
        saved = load_model(out, scope=scope)
    parameters = {n: scope[n] for n in persistable_names(saved.program) if n in scope}
    return BuiltModel(model, out, inputs, outputs, saved, parameters)


@contextlib.contextmanager
def loaded_model(model: str, paths=()):
    """Fresh default programs, then import `model`; yields its (main, startup) programs.

    The model's module and directory (then `paths`) stay on sys.modules / sys.path inside
    the block.

    Args:
        model: path of a Python file that builds a program at import time.
        paths: more directories to import from.

    Example:
        >>> with loaded_model("samples/mlp.py") as (main, startup):
        ...     print(main)
    """
    if not os.path.isfile(model):
        raise BuildError("no such model file", Where(file=model))
    if not model.endswith(".py"):
        raise BuildError("expected a Python file (.py) that builds a program; `pyir run` and "
                         "`pyir inspect` take built .pb / .pdmodel files", Where(file=model))
    framework.reset_default_programs()
    framework.static_mode[0] = True
    name = os.path.splitext(os.path.basename(model))[0]
    with _as_script(model, name, paths):
        module = _import_model(model, name)
        yield _pick_programs(module, model)


@contextlib.contextmanager
def _as_script(path: str, name: str, paths=()):
    """sys.path starts with the file's directory then `paths`, and sys.modules[name] is set;
    both undone afterwards."""
    front = [os.path.dirname(os.path.abspath(path))] + [os.path.abspath(p) for p in paths]
    old_module = sys.modules.get(name)
    sys.path[:0] = front
    try:
        yield
    finally:
        if sys.path[:len(front)] == front:
            del sys.path[:len(front)]
        if old_module is not None:
            sys.modules[name] = old_module
        else:
            sys.modules.pop(name, None)


def _import_model(path: str, name: str):
    spec = importlib.util.spec_from_file_location(name, os.path.abspath(path))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    # `pyir build` writes the model's outputs and nothing else: no __pycache__ beside the
    # model (or beside the modules it imports from its directory).
    old_flag, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        spec.loader.exec_module(module)
    except SyntaxError as e:
        raise BuildError(f"syntax error: {e.msg}", Where(file=f"{path}:{e.lineno}")) from None
    except (KeyboardInterrupt, GeneratorExit):
        raise
    except BaseException as e:  # noqa: BLE001 - any failure of user code is one line
        raise _model_error(path, e) from None
    finally:
        sys.dont_write_bytecode = old_flag
    return module


def _model_error(path: str, exc: BaseException) -> BuildError:
    """One line naming the user's own line that failed: the deepest frame in a file of the
    model's directory tree that is not part of pyir or of the Python installation."""
    place = path
    for frame, lineno in traceback.walk_tb(exc.__traceback__):
        filename = os.path.abspath(frame.f_code.co_filename)
        if _is_users(filename, os.path.dirname(os.path.abspath(path))):
            shown = path if filename == os.path.abspath(path) else os.path.relpath(filename)
            place = f"{shown}:{lineno}"
    if isinstance(exc, PyirError):
        message = str(exc)
    elif isinstance(exc, SystemExit):
        message = f"the model file called sys.exit({exc.code!r}) while being imported"
    else:
        message = f"{type(exc).__name__}: {exc}"
    return BuildError(f"{message} (while importing the model)", Where(file=place))


def _is_users(filename: str, model_dir: str) -> bool:
    installed = {os.path.abspath(p) for p in (sys.prefix, sys.base_prefix, _PYIR_DIR)}
    return filename.startswith(model_dir + os.sep) and not any(
        filename.startswith(p + os.sep) for p in installed)


def _pick_programs(module, path: str) -> tuple[Program, Program]:
    """The default programs, unless they are empty and the module holds its own programs."""
    main, startup = framework.default_main_program(), framework.default_startup_program()
    if any(b.ops for b in main.blocks):
        return main, startup
    own = [v for v in vars(module).values() if isinstance(v, Program) and v.global_block().ops]
    mains = [p for p in own if any(v.need_check_feed for v in p.global_block().vars.values())]
    if len(mains) == 1:
        rest = [p for p in own if p is not mains[0]]
        return mains[0], rest[0] if len(rest) == 1 else Program()
    if mains:
        raise BuildError("the model file holds several programs with inputs; build into the "
                         "default main program instead", Where(file=path))
    raise BuildError("the model file builds no ops: its top-level code should build into the "
                     "default main program (a __main__ block does not run)", Where(file=path))


def output_names(main: Program, fetches, path: str) -> list[str]:
    """`fetches` (each must be a variable of `main`), else `default_outputs(main)`.

    Example:
        >>> output_names(main, (), "samples/mlp.py")
        ['fc_1.tmp_2']
    """
    block = main.global_block()
    for name in fetches:
        if block.find_var(name) is None:
            raise BuildError(f"--fetch {name!r}: the program has no such variable",
                             Where(file=path, var=name))
    names = list(dict.fromkeys(fetches)) or default_outputs(main)
    if not names:
        raise BuildError("the program has no outputs (every variable is read by some op); "
                         "name them with --fetch NAME", Where(file=path))
    return names


__all__ = ["build_model", "BuiltModel", "loaded_model", "output_names"]
