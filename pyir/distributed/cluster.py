"""Everything that touches Ray (docs/scale-out.md): joining or starting a cluster, the worker
actors, and shipping `--path` directories. The only module of pyir that imports `ray`, and
only inside its functions, so `import pyir` never loads it and pyir runs without it.

    connect(workers, address)     a context: ray.init (a local cluster, or `address` /
                                  $RAY_ADDRESS), shut down after when this call started it
    MapPool(spec, workers, addr)  N actors, each a files.many.Scorer built once from the spec
                                  in the object store; .map(jobs) yields results as they come
    GradPool(spec, workers, addr) N actors, each a data_parallel.ShardRunner; .run(params,
                                  shards) is one step's gradients (params sent once per step)
    pack_dirs / unpack_dirs       `--path` directories as zip bytes, unpacked on each worker

A worker that dies is restarted by Ray (max_restarts) and the call it was running is retried
(max_task_retries); results come back to the driver, which alone writes files, so a retried
call never loses or duplicates an output.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import tempfile
import zipfile
from collections import deque
from dataclasses import replace

from ..errors import PyirError
from ..files.many import ModelSpec, Scorer
from .data_parallel import ShardRunner

INSTALL = "pip install 'pyir[ray]'"
RESTARTS = 3          # a worker process that dies is started again this many times
IN_FLIGHT = 1         # calls per worker at a time: a worker that dies names its one input
START_TIMEOUT = 300   # seconds for the workers to start (a loaded machine starts Ray slowly)
MAX_PATH_BYTES = 64 << 20


def import_ray():
    """The `ray` module, or a PyirError saying how to install it."""
    try:
        import ray
    except ImportError:
        raise PyirError(f"--workers N needs Ray, which is not installed: {INSTALL} "
                        f"(or --workers 0 runs in this process)") from None
    return ray


@contextlib.contextmanager
def connect(workers: int, address: str | None = None):
    """Use the Ray cluster this process is connected to, the one at `address` (or
    $RAY_ADDRESS), or else start one on this machine; yields the `ray` module. A cluster
    this call started is shut down after."""
    ray = import_ray()
    started = False
    if not ray.is_initialized():
        address = address or os.environ.get("RAY_ADDRESS") or None
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        options = {"include_dashboard": False, "logging_level": logging.ERROR}
        try:
            if address:
                ray.init(address=address, **options)
            else:
                ray.init(num_cpus=max(workers, os.cpu_count() or 1), **options)
        except (ConnectionError, RuntimeError, ValueError) as e:
            where = f"join the Ray cluster at {address}" if address else "start a Ray cluster"
            raise PyirError(f"cannot {where}: {' '.join(str(e).split())}") from None
        started = True
    try:
        cpus = ray.cluster_resources().get("CPU", 0)
        if cpus < workers:
            raise PyirError(f"--workers {workers}: the Ray cluster has {cpus:g} CPUs; each "
                            f"worker takes one")
        yield ray
    finally:
        if started:
            ray.shutdown()


# --- --path directories ------------------------------------------------------------------------
def search_dirs(spec: ModelSpec) -> list[str]:
    """The directories a worker must see: --path and $PYIR_PATH, as on this machine."""
    env = [p for p in os.environ.get("PYIR_PATH", "").split(os.pathsep) if p]
    return list(dict.fromkeys(os.path.abspath(d) for d in [*spec.paths, *env]))


def pack_dirs(dirs) -> list[bytes]:
    """Each directory as zip bytes (its files, without __pycache__ and hidden entries)."""
    packed, total = [], 0
    for directory in dirs:
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as archive:
            for root, subdirs, names in os.walk(directory):
                subdirs[:] = sorted(d for d in subdirs
                                    if d != "__pycache__" and not d.startswith("."))
                for name in sorted(names):
                    if name.startswith(".") or name.endswith(".pyc"):
                        continue
                    path = os.path.join(root, name)
                    total += os.path.getsize(path)
                    if total > MAX_PATH_BYTES:
                        raise PyirError(f"--path {directory}: the --path directories hold more "
                                        f"than {MAX_PATH_BYTES >> 20} MiB, all sent to every "
                                        f"worker; name a directory holding only the callables' "
                                        f"modules")
                    archive.write(path, os.path.relpath(path, directory))
        packed.append(buf.getvalue())
    return packed


def unpack_dirs(packed: list[bytes]) -> list[str]:
    """Unpack `pack_dirs` output into fresh directories of this machine; their paths."""
    base = tempfile.mkdtemp(prefix="pyir-path-")
    dirs = []
    for index, data in enumerate(packed):
        target = os.path.join(base, str(index))
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            archive.extractall(target)
        dirs.append(target)
    return dirs


# --- the actors (plain classes; ray.remote wraps them in `_actor`) -------------------------------
class _Worker:
    """A worker builds its model on its first call, from the refs each call carries (nested
    in a list, so Ray passes them as refs, and a restarted worker builds it again)."""

    build = None

    def __init__(self):
        self.built, self.error = None, None

    def ready(self, refs: list):
        if self.built is None and self.error is None:
            spec, packed = import_ray().get(refs[0])
            try:
                self.built = type(self).build(replace(spec, paths=unpack_dirs(packed)))
            except PyirError as e:
                self.error = str(e)
        return self.error


class MapWorker(_Worker):
    """Builds a Scorer once (callables resolved here, by the same rules as `pyir run`)."""

    build = Scorer

    def score(self, refs: list, path: str, data: bytes):
        error = self.ready(refs)
        if error is not None:
            return None, error
        try:
            return self.built.score(path, data), None
        except PyirError as e:
            return None, str(e)


class GradWorker(_Worker):
    """Builds a ShardRunner once; `run` is one shard's loss and gradients."""

    build = ShardRunner

    def run(self, refs: list, params: dict, feed: dict):
        error = self.ready(refs)
        if error is not None:
            return None, error
        try:
            return self.built.run(params, feed), None
        except PyirError as e:
            return None, str(e)


class _Pool:
    """N actors of one class built from one spec put in the object store once, on the
    cluster `connect(workers, address)` gives (a cluster it started ends with `close`)."""

    worker_class = None

    def __init__(self, spec: ModelSpec, workers: int, address: str | None = None):
        packed = pack_dirs(search_dirs(spec))
        self.actors = []
        self.connection = connect(workers, address)
        self.ray = self.connection.__enter__()
        try:
            self.refs = [self.ray.put((spec, packed))]
            self.remote_class = self.ray.remote(num_cpus=1, max_restarts=RESTARTS,
                                                max_task_retries=RESTARTS)(self.worker_class)
            self.actors = [self._start() for _ in range(workers)]
        except BaseException:
            self.close()
            raise
        try:
            errors = self.ray.get([a.ready.remote(self.refs) for a in self.actors],
                                  timeout=START_TIMEOUT)
        except self.ray.exceptions.GetTimeoutError:
            self.close()
            raise PyirError(f"the {workers} Ray workers did not start within {START_TIMEOUT} s "
                            f"(the cluster has {self.ray.available_resources().get('CPU', 0):g} "
                            f"free CPUs; each worker takes one)") from None
        except BaseException:
            self.close()
            raise
        if any(errors):
            self.close()
            raise PyirError(f"on a worker: {next(e for e in errors if e)}")

    def _start(self):
        return self.remote_class.remote()

    def replace(self, index: int) -> None:
        """A worker that died for good (its restarts used up) is replaced by a new one."""
        self.ray.kill(self.actors[index], no_restart=True)
        self.actors[index] = self._start()

    def close(self) -> None:
        """Stop the workers (and the cluster, when this pool started it)."""
        try:
            for actor in self.actors:
                self.ray.kill(actor, no_restart=True)
        finally:
            self.actors = []
            self.connection.__exit__(None, None, None)


class MapPool(_Pool):
    worker_class = MapWorker

    def map(self, jobs):
        """(input, outputs or None, error or None) for each input path of `jobs`, in the
        order they finish; each input's bytes are read here and sent to one worker, one
        input per worker at a time (so a worker that dies for good names its input)."""
        ray = self.ray
        pending, running = deque(jobs), {}

        def submit(index: int) -> None:
            if pending:
                path = pending.popleft()
                with open(path, "rb") as f:
                    data = f.read()
                running[self.actors[index].score.remote(self.refs, path, data)] = (index, path)

        for index in range(len(self.actors)):
            for _ in range(IN_FLIGHT):
                submit(index)
        while running:
            (ref,), _ = ray.wait(list(running), num_returns=1)
            index, path = running.pop(ref)
            try:
                outputs, error = ray.get(ref)
            except ray.exceptions.RayActorError as e:
                outputs, error = None, (f"its worker died {RESTARTS + 1} times while running "
                                        f"it ({type(e).__name__})")
                self.replace(index)
            except ray.exceptions.RayTaskError as e:
                outputs, error = None, (f"internal error on a worker: {e.cause!r} (a pyir bug; "
                                        f"please report it)")
            yield path, outputs, error
            submit(index)


class GradPool(_Pool):
    worker_class = GradWorker

    def run(self, params: dict, shards: list) -> list:
        """Each shard's [loss, grad, ...], computed by one worker each (the parameters go
        into the object store once for all of them)."""
        ray = self.ray
        params_ref = ray.put(params)
        refs = [self.actors[i % len(self.actors)].run.remote(self.refs, params_ref, s)
                for i, s in enumerate(shards)]
        try:
            results = ray.get(refs)
        except ray.exceptions.RayActorError as e:
            raise PyirError(f"a worker died {RESTARTS + 1} times computing one step's "
                            f"gradients ({type(e).__name__}); training stopped") from None
        errors = [error for _, error in results if error]
        if errors:
            raise PyirError(f"on a worker: {errors[0]}")
        return [values for values, _ in results]


__all__ = ["INSTALL", "import_ray", "connect", "MapPool", "GradPool", "pack_dirs",
           "unpack_dirs", "search_dirs"]
