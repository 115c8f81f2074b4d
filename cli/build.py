"""`pyir build MODEL.py`: import a model file, write the program it builds and its parameters.

    build
      +-- _import_model        the file runs as module `<stem>` (its __main__ block does not)
      +-- _pick_programs       the default programs, or module-level ones built with program_guard
      +-- _outputs             --fetch names, else the variables no op consumes
      +-- startup -> Scope     parameters get their initial values
      +-- save_program         Paddle's inference layout (a training program: unpruned),
      |                        into a scratch directory beside OUT
      +-- _save_pair           OUT.pb and OUT.pdiparams renamed into place together
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import sys
import tempfile
import traceback
from collections import Counter

import click
import numpy as np

from pyir import dtypes, framework, registry
from pyir.errors import BuildError, PyirError, Where
from pyir.io import default_outputs
from pyir.framework import FEED_MINIBATCH, FETCH_LIST, Program

_PYIR_DIR = os.path.dirname(os.path.abspath(framework.__file__))


@click.command("build")
@click.argument("model", type=click.Path(dir_okay=False))
@click.option("-o", "--output", "out", type=click.Path(dir_okay=False),
              help="Program file to write (default: <stem>.pb in the current directory).")
@click.option("--fetch", "fetches", multiple=True, metavar="NAME",
              help="Output variable to record (repeatable; default: every variable no op "
                   "consumes).")
def build(model: str, out: str | None, fetches: tuple[str, ...]) -> None:
    """Import MODEL.py and write the program it builds to OUT.pb (+ OUT.pdiparams).

    \b
    MODEL.py runs as a module named after the file (its directory first on sys.path, as
    `python MODEL.py` has it); an `if __name__ == "__main__":` block does not run. Its
    top-level code builds into the default programs (or into module-level programs under
    program_guard). The startup program runs to give parameters their initial values.

    \b
    Inputs are the `data` variables in declaration order. Outputs are the --fetch names or,
    without any, the non-persistable variables some op writes and no op reads. The file is
    pruned to the outputs like Paddle's inference models, except a training program (one
    whose ops update parameters), which is written whole so `pyir run --steps N` trains it.

    \b
    Example:
      pyir build samples/mlp.py -o out/mlp.pb
    """
    from pyir.executor import Executor, Scope

    out = out or os.path.splitext(os.path.basename(model))[0] + ".pb"
    # The module stays importable until the file is written: saving may resolve the
    # references of callables the model registered.
    with loaded_model(model) as (main, startup):
        inputs = [v for v in main.global_block().vars.values() if v.need_check_feed]
        outputs = _outputs(main, fetches, model)
        scope = Scope()
        Executor().run(startup, scope=scope)
        _save_pair(out, lambda path: save_program(path, main, [v.name for v in inputs],
                                                  outputs, scope))
        _print_summary(model, out, inputs, outputs)


def _save_pair(out: str, save) -> None:
    """Run `save(path)` into a scratch directory beside `out`, then move its files into place.

    The program and its sidecar appear together or not at all; a sidecar left from an
    earlier build of a model that had parameters is removed when this one has none.
    """
    directory = os.path.dirname(os.path.abspath(out))
    os.makedirs(directory, exist_ok=True)
    scratch = tempfile.mkdtemp(dir=directory, prefix=".pyir-build-")
    try:
        save(os.path.join(scratch, os.path.basename(out)))
        stem = os.path.splitext(out)[0]
        sidecar = os.path.join(scratch, os.path.basename(stem) + ".pdiparams")
        if os.path.exists(sidecar):
            os.replace(sidecar, stem + ".pdiparams")
        elif os.path.exists(stem + ".pdiparams"):
            os.unlink(stem + ".pdiparams")
        os.replace(os.path.join(scratch, os.path.basename(out)), out)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


@contextlib.contextmanager
def loaded_model(model: str):
    """Fresh default programs, then import `model`; yields its (main, startup) programs.

    The model's module and directory stay on sys.modules / sys.path inside the block.

    Args:
        model: path of a Python file that builds a program at import time.

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
    with _as_script(model, name):
        module = _import_model(model, name)
        yield _pick_programs(module, model)


@contextlib.contextmanager
def _as_script(path: str, name: str):
    """sys.path[0] = the file's directory and sys.modules[name] set, both undone afterwards."""
    directory = os.path.dirname(os.path.abspath(path))
    old_module = sys.modules.get(name)
    sys.path.insert(0, directory)
    try:
        yield
    finally:
        if sys.path and sys.path[0] == directory:
            del sys.path[0]
        if old_module is not None:
            sys.modules[name] = old_module
        else:
            sys.modules.pop(name, None)


def _import_model(path: str, name: str):
    spec = importlib.util.spec_from_file_location(name, os.path.abspath(path))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as e:
        raise BuildError(f"syntax error: {e.msg}", Where(file=f"{path}:{e.lineno}")) from None
    except (KeyboardInterrupt, GeneratorExit):
        raise
    except BaseException as e:  # noqa: BLE001 - any failure of user code is one line
        raise _model_error(path, e) from None
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


def _outputs(main: Program, fetches: tuple[str, ...], path: str) -> list[str]:
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


def _is_io(op) -> bool:
    opdef = registry.lookup(op.type)
    return opdef is not None and opdef.io is not None


def state_updates(program: Program) -> list[str]:
    """Persistable variables that ops of the global block write (a training program's
    parameter and optimizer-state updates), in the order they are written."""
    block = program.global_block()
    written = {}
    for op in block.ops:
        if _is_io(op):
            continue
        for name in op.output_arg_names:
            var = block.find_var(name)
            if var is not None and var.persistable and var.type not in (FEED_MINIBATCH,
                                                                          FETCH_LIST):
                written[name] = None
    return list(written)


def save_program(path: str, main: Program, feeds: list[str], outputs: list[str], scope) -> None:
    """Paddle's inference layout (`pyir.io.save_model`), or, for a training program (one
    that updates persistable variables), the whole program unpruned
    (`pyir.training.save_program`): pruning to the outputs would drop the optimizer's
    updates, and `is_test` would change what the program computes."""
    from pyir.io import save_model
    from pyir.training import save_program as save_training_program

    if state_updates(main):
        save_training_program(path, main, feeds, outputs, scope)
    else:
        save_model(path, main, feeds, outputs, scope)


def _print_summary(model: str, out: str, inputs, outputs: list[str]) -> None:
    """Read the written file back (a check that it loads) and describe it."""
    from pyir.executor import Scope
    from pyir.io import load_model, persistable_names

    scope = Scope()
    saved = load_model(out, scope=scope)
    program = saved.program
    params = saved.params_path
    click.echo(f"built {model} -> {out}" + (f" (+ {params})" if params else ""))
    click.echo("inputs:")
    for v in inputs:
        click.echo(f"  {v.name}  {_spec(v)}")
    click.echo("outputs:")
    for name in outputs:
        var = program.global_block().find_var(name)
        click.echo(f"  {name}  {_spec(var)}" if var is not None else f"  {name}")
    counts = Counter(op.type for op in program.global_block().ops if not _is_io(op))
    detail = ", ".join(f"{t} {n}" for t, n in sorted(counts.items()))
    click.echo(f"ops: {sum(counts.values())}" + (f" ({detail})" if detail else ""))
    names = [n for n in persistable_names(program) if n in scope]
    values = sum(int(np.asarray(scope[n]).size) for n in names)
    click.echo(f"parameters: {len(names)} tensors, {values} values")


def _spec(var) -> str:
    if var.dtype is None:
        return ""
    return f"{dtypes.name_of(var.dtype)} {list(var.shape)}"
