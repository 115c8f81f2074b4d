"""Running a program file: what `pyir run MODEL` does, and the feed files it reads.

    run_model(model, feeds)
      +-- load_model          MODEL.pb / .pdmodel + params (default: the sidecar .pdiparams)
      +-- read_feeds          FILE.npy | NAME=FILE.npy | FILE.npz  ->  {input: array}
      +-- Executor.run        once, or `steps` times through training.run_steps (a training
                              program updates its parameters in the scope each step)
    write_npz / save_params   the outputs, the (updated) parameters; atomically
"""

from __future__ import annotations

import contextlib
import io
import os
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .. import dtypes
from ..callables import bind_ids, search_path
from ..errors import FeedError, PyirError, Where
from ..executor import Executor, Scope
from ..ops.control_flow import max_loop_steps as loop_limit
from ..training import run_steps
from .export import forward_part
from .inference import persistable_names, pruned_to
from .model import LoadedModel, load_model, state_updates
from .params import ZIP_MAGIC, npz_members, open_npz, read_npy, read_npz_member, write_params


@dataclass
class RunResult:
    """What `run_model` returns: the fetched values by name, the model as loaded (its
    parameters, updated by training, are in `scope`) and, when it trained, the loss's name
    and each step's loss."""

    outputs: dict
    loaded: LoadedModel
    scope: Scope
    loss_name: str | None = None
    losses: list[float] = field(default_factory=list)


def run_model(model: str, feeds=(), fetches=(), params: str | None = None, *,
              steps: int | None = None, batch_size: int | None = None, paths=(),
              id_bindings=None, max_loop_steps: int | None = None,
              max_memory: int | None = None, on_step: Callable[[int, str, float], None] | None = None) -> RunResult:
    """Load `model` (a pyir .pb or Paddle .pdmodel) with its parameters and run it, as
    `pyir run` does.

    Args:
        feeds: `{input name: array}`, or `--feed` strings (`read_feeds`).
        fetches: names to fetch (default: the file's fetch targets); with `steps`, the first
            is the loss.
        params: a `.pdiparams` or `.npz` file (default: the model's `.pdiparams` beside it).
        steps: run this many times (training); `batch_size` rows per step (default: all).
        paths: directories to search for py_func callables' modules.
        id_bindings: `{Paddle callable id: "module:name"}` for Paddle files, or `--bind-id`
            strings "ID=MODULE:NAME".
        on_step: with `steps`, called as on_step(step, loss name, loss) after each step.
        max_loop_steps: a `while` op running more iterations than this stops with an error
            (default 10,000,000).
        max_memory: bytes the run may allocate (None: no limit; `pyir run` passes
            `default_max_memory()`); beyond it, a PyirError.

    Example:
        >>> result = pyir.files.run_model("out/mlp.pb", {"x": x})
        >>> result.outputs["fc_1.tmp_2"].shape
        (4, 4)
    """
    if not os.path.isfile(model):
        raise PyirError("no such model file", Where(file=model))
    if batch_size is not None and steps is None:
        raise PyirError("--batch-size needs --steps")
    scope = Scope()
    if not isinstance(id_bindings, dict):
        id_bindings = parse_id_bindings(id_bindings or ())
    with search_path(list(paths)), bind_ids(id_bindings), loop_limit(max_loop_steps), \
            memory_limit(max_memory):
        loaded = load_model(model, params=params, scope=scope)
        _check_params_found(loaded, model)
        fetch_names = list(fetches) or list(loaded.fetch_names)
        if not fetch_names:
            raise PyirError("the file records no outputs (fetch ops); name them with --fetch",
                            Where(file=model))
        program, inputs = (loaded.program, list(loaded.feed_names)) if steps is not None \
            else scored_program(loaded, fetches)
        feed = dict(feeds) if isinstance(feeds, dict) else read_feeds(
            feeds, inputs, model, declared=_declared_inputs(loaded))
        if steps is None:
            results = Executor().run(program, feed=feed, fetch_list=fetch_names, scope=scope)
            return RunResult(dict(zip(fetch_names, results)), loaded, scope)
        if not state_updates(loaded.program):
            raise PyirError("--steps trains a training program, but no op of this one updates a "
                            "parameter (an inference program?): run it without --steps, or "
                            "build it with an optimizer's minimize(loss)", Where(file=model))
        loss = fetch_names[0]
        report = None if on_step is None else lambda step, value: on_step(step, loss, value)
        trained = run_steps(loaded.program, feed, steps, scope, loss=loss,
                            fetch_list=fetch_names[1:], batch_size=batch_size, on_step=report)
    return RunResult({n: trained.last[n] for n in fetch_names}, loaded, scope, loss,
                     trained.losses)


def scored_program(loaded: LoadedModel, fetches=()) -> tuple:
    """(program, its inputs) that `pyir run MODEL --fetch ...` (and `pyir map`) runs: the
    whole program, or for named values of a training program only the forward ops they need
    (no update, no label the loss alone reads)."""
    program, inputs = loaded.program, list(loaded.feed_names)
    if fetches and state_updates(program):
        program = pruned_to(forward_part(program), list(fetches))
        reads = {n for op in program.global_block().ops for n in op.input_arg_names}
        inputs = [n for n in inputs if n in reads]
    return program, inputs


def _declared_inputs(loaded: LoadedModel) -> dict:
    """{input: (dtype, shape)} as the program declares its fed `data` variables."""
    block = loaded.program.global_block()
    out = {}
    for name in loaded.feed_names:
        var = block.find_var(name)
        if var is not None and var.need_check_feed:
            out[name] = (var.dtype, var.shape)
    return out


def parse_id_bindings(specs) -> dict[int, str]:
    """`--bind-id` strings ID=MODULE:NAME as {id: reference} (resolved like a file's references).

    Example:
        >>> parse_id_bindings(["0=myfuncs:tanh"])
        {0: 'myfuncs:tanh'}
    """
    bindings = {}
    for spec in specs:
        key, sep, reference = spec.partition("=")
        if not sep or not key.strip().lstrip("-").isdigit() or ":" not in reference:
            raise PyirError(f"--bind-id {spec!r}: expected ID=MODULE:NAME, e.g. 0=myfuncs:tanh")
        bindings[int(key)] = reference.strip()
    return bindings


def _check_params_found(loaded: LoadedModel, model: str) -> None:
    names = persistable_names(loaded.program)
    if names and loaded.params_path is None:
        sidecar = os.path.splitext(model)[0] + ".pdiparams"
        raise PyirError(f"the program has {len(names)} parameters ({names[0]}, ...) but there "
                        f"is no {sidecar}; pass --params FILE (.pdiparams or .npz)",
                        Where(file=model))


def save_params(loaded: LoadedModel, scope: Scope, path: str | None = None) -> list[str]:
    """Write the program's persistable values from `scope` back to `path` (default: where
    they were loaded from), atomically; returns their names.

    Example:
        >>> save_params(result.loaded, result.scope)      # after training
    """
    path = path or loaded.params_path
    names = persistable_names(loaded.program)
    if not names:
        raise PyirError("--save-params: the program has no parameters",
                        Where(file=loaded.program.source))
    write_params(path, {n: scope[n] for n in names})
    return names


# --- feed files ------------------------------------------------------------------------------
def read_feeds(specs, inputs: list[str], model: str, data: dict | None = None,
               declared: dict | None = None) -> dict:
    """Turn `--feed` strings into {input name: array}.

    Rules: `NAME=FILE.npy` binds NAME; a bare `FILE.npz` binds each array to the input of the
    same name; a bare `FILE.npy` binds to the program's only input. Every input must be bound
    exactly once, and only inputs may be bound. `data` ({bare FILE: its bytes}) reads those
    files from bytes read elsewhere (a worker of `pyir map` gets the bytes, not the path).
    `declared` ({input: (dtype, shape)}) is checked against each array's header before its
    data is read.

    Example:
        >>> read_feeds(("x=x.npy",), ["x"], "model.pb")["x"].shape
        (4, 16)
    """
    feed: dict[str, np.ndarray] = {}
    for spec in specs:
        for name, value in _feed_items(spec, inputs, model, declared,
                                       (data or {}).get(spec)):
            if name not in inputs:
                raise FeedError(f"--feed {spec}: the program has no input {name!r} (its inputs: "
                                f"{', '.join(inputs) or 'none'})", Where(file=model, var=name))
            if name in feed:
                raise FeedError(f"--feed {spec}: input {name!r} is fed twice",
                                Where(file=model, var=name))
            feed[name] = value
    missing = [n for n in inputs if n not in feed]
    if missing:
        raise FeedError(f"input {missing[0]!r} is not fed ({len(missing)} of {len(inputs)} "
                        f"inputs missing: {', '.join(missing)}); pass --feed NAME=FILE.npy",
                        Where(file=model, var=missing[0]))
    return feed


def _feed_items(spec: str, inputs: list[str], model: str, declared=None,
                data: bytes | None = None):
    name, sep, path = spec.partition("=")
    if sep and data is None and not os.path.exists(spec):
        if not name:
            raise FeedError(f"--feed {spec}: expected NAME=FILE.npy", Where(file=model))
        return [(name, _load_array(path, spec, model, name, declared))]
    if spec.endswith(".npz"):
        return _load_npz(spec, model, inputs, declared, data)
    if len(inputs) != 1:
        raise FeedError(f"--feed {spec}: a bare .npy binds to the only input, but the program "
                        f"has {len(inputs)} ({', '.join(inputs) or 'none'}); use "
                        f"--feed NAME=FILE.npy or an .npz", Where(file=model))
    return [(inputs[0], _load_array(spec, spec, model, inputs[0], declared, data))]


def _load_array(path: str, spec: str, model: str, name: str, declared,
                data: bytes | None = None) -> np.ndarray:
    where = Where(file=model, var=name)
    try:
        f = open(path, "rb") if data is None else io.BytesIO(data)
    except FileNotFoundError:
        raise FeedError(f"--feed {spec}: no such file {path!r}", Where(file=model)) from None
    except OSError as e:
        raise FeedError(f"--feed {spec}: cannot read {path!r}: {e.strerror}",
                        Where(file=model)) from None
    with f:
        if f.read(4) == ZIP_MAGIC:
            raise FeedError(f"--feed {spec}: {path!r} is an .npz archive; pass it without "
                            f"NAME=", Where(file=model))
        f.seek(0)
        size = len(data) if data is not None else os.fstat(f.fileno()).st_size
        return read_npy(f, size, where, FeedError,
                        what=f"--feed {spec}", check=_feed_check(name, declared, where))


def _load_npz(path: str, model: str, inputs: list[str], declared,
              data: bytes | None = None) -> list:
    """(name, array) for each member; a member that is no input is refused before any member
    is decompressed, each member's header is checked against its input's declaration before
    its data is, and each member's read error names it."""
    source = path if data is None else io.BytesIO(data)
    with open_npz(source, Where(file=model), FeedError, f"--feed {path}") as archive:
        members = npz_members(archive)
        stray = [k for k in members if k not in inputs]
        if stray:
            raise FeedError(f"--feed {path}: the program has no input {stray[0]!r} (its "
                            f"inputs: {', '.join(inputs) or 'none'})",
                            Where(file=model, var=stray[0]))
        items = []
        for name, info in members.items():
            where = Where(file=model, var=name)
            items.append((name, read_npz_member(archive, info, where, FeedError,
                                                _feed_check(name, declared, where),
                                                f"--feed {path}: member {name!r}")))
        return items


def _feed_check(name: str, declared, where: Where):
    """check(dtype, shape, nbytes) for read_npy: the input's declared dtype and shape (-1 =
    any size) and the run's memory limit, before the data is read."""
    spec = (declared or {}).get(name)

    def check(dtype, shape, nbytes):
        limit = _limit[0]
        if limit is not None and nbytes > limit:
            raise FeedError(f"the fed array is {list(shape)} {dtype} ({nbytes} bytes), more "
                            f"than --max-memory allows ({limit} bytes)", where)
        if spec is None:
            return
        want_dtype, want_shape = spec
        if want_dtype is not None and dtype != want_dtype:
            raise FeedError(f"fed {dtype} data to input {name!r}, which is declared "
                            f"{dtypes.name_of(want_dtype)}; convert it with "
                            f".astype('{dtypes.name_of(want_dtype)}')", where)
        if want_shape is not None and (len(want_shape) != len(shape) or any(
                d != -1 and d != v for d, v in zip(want_shape, shape))):
            raise FeedError(f"fed shape {list(shape)} to input {name!r}, which is declared "
                            f"{list(want_shape)} (-1 = any size)", where)

    return check


# --- the memory limit ------------------------------------------------------------------------
_limit: list = [None]  # bytes a run may allocate beyond what the process held at its start


def default_max_memory() -> int:
    """`pyir run`'s default --max-memory: half the machine's memory, at most 8 GiB and at
    least 1 GiB: generous for an honest program, a clean error for a hostile one."""
    try:
        physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        physical = 16 * 2**30
    return max(2**30, min(physical // 2, 8 * 2**30))


def parse_size(text: str) -> int:
    """'512M', '2G', '1.5GiB', '1000000' -> bytes.

    Example:
        >>> parse_size("2G")
        2147483648
    """
    units = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}
    raw = text.strip().lower().removesuffix("ib").removesuffix("b")
    unit = raw[-1:] if raw[-1:] in units and raw[-1:] else ""
    try:
        value = float(raw[:-1] if unit else raw) * units[unit]
    except ValueError:
        raise PyirError(f"--max-memory {text!r}: expected a size such as 512M, 4G or a number "
                        f"of bytes") from None
    if not 2**20 <= value < 2**62:
        raise PyirError(f"--max-memory {text!r}: give at least 1M")
    return int(value)


@contextlib.contextmanager
def memory_limit(max_bytes: int | None):
    """Inside the block the process may allocate at most `max_bytes` more address space
    (RLIMIT_AS; where the platform has none, only the fed arrays are checked); an allocation
    beyond it is a one-line PyirError naming the limit, not a crash."""
    if max_bytes is None:
        yield
        return
    try:
        import resource  # POSIX only
    except ImportError:
        resource = None
    old = resource.getrlimit(resource.RLIMIT_AS) if resource is not None else None
    if old is not None:
        cap = _address_space() + max_bytes
        for bound in old:
            if bound != resource.RLIM_INFINITY:
                cap = min(cap, bound)
        resource.setrlimit(resource.RLIMIT_AS, (cap, old[1]))
    _limit[0], previous = max_bytes, _limit[0]
    try:
        yield
    except MemoryError as e:
        raise PyirError(_out_of_memory(max_bytes, e)) from None
    except PyirError as e:
        if isinstance(e.__cause__, MemoryError):
            raise type(e)(_out_of_memory(max_bytes, e.__cause__), e.where) from None
        raise
    finally:
        _limit[0] = previous
        if old is not None:
            resource.setrlimit(resource.RLIMIT_AS, old)


def _out_of_memory(max_bytes: int, error: MemoryError) -> str:
    detail = str(error).split(" for an array")[0] or "an allocation failed"
    return (f"out of memory: the run needs more than --max-memory {max_bytes // 2**20} MiB "
            f"({detail}); raise --max-memory if you trust the file")


def _address_space() -> int:
    """The process's current virtual size in bytes (Linux: /proc/self/statm)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


__all__ = ["run_model", "RunResult", "read_feeds", "save_params", "memory_limit", "parse_size",
           "default_max_memory"]
