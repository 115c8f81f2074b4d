"""`pyir map` over many inputs: N Ray workers against the in-process loop (--workers 0).

    model    an MLP 784 -> 2048 x 3 -> 10 (relu, softmax; 10 M parameters), saved
    inputs   64 .npz files of `--batch` rows each
    loop     map_files(workers=0): one process scores every file
    ray      a local Ray cluster (ray.init), N workers each building the model once from the
             object store (MapPool), then the files; the outputs must equal the loop's

Reports the cluster's fixed start cost (ray.init, then the workers), the time to score the
files with each, and the speed-up with and without the start cost. A benchmark, not a test:
on a machine shared with other work the ratio says little beyond "it scales".

    python benchmarks/bench_map.py [--inputs 64] [--batch 256] [--workers 2]
"""

from __future__ import annotations

import argparse
import os
import pathlib
import shutil
import sys
import tempfile
import time

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")   # one BLAS thread per process: workers don't fight
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

import numpy as np  # noqa: E402

import pyir  # noqa: E402
from pyir import distributed  # noqa: E402
from pyir.distributed import _collect, MapResult  # noqa: E402
from pyir.files.many import ModelSpec, output_paths  # noqa: E402



def save_mlp(path: str) -> None:
    pyir.enable_static()
    pyir.seed(0)
    main, startup = pyir.static.Program(), pyir.static.Program()
    with pyir.static.program_guard(main, startup):
        x = pyir.static.data(name="x", shape=[None, 784], dtype="float32")
        h = x
        for _ in range(3):
            h = pyir.static.nn.fc(h, size=2048, activation="relu")
        y = pyir.static.nn.fc(h, size=10, activation="softmax")
    scope = pyir.static.Scope()
    pyir.static.Executor().run(startup, scope=scope)
    pyir.files.save_model(path, main, ["x"], [y.name], scope)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=64)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    try:
        import ray
    except ImportError:
        print("ray is not installed (pip install 'pyir[ray]'): nothing to compare")
        return 0
    work = pathlib.Path(tempfile.mkdtemp(prefix="bench-map-"))
    try:
        return run(ray, work, args)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(ray, work: pathlib.Path, args) -> int:
    rng = np.random.default_rng(0)
    (work / "in").mkdir()
    for i in range(args.inputs):
        np.savez(work / "in" / f"b{i:03d}.npz",
                 x=rng.standard_normal((args.batch, 784)).astype(np.float32))
    model = str(work / "mlp.pb")
    save_mlp(model)
    inputs = [str(work / "in")]

    start = time.perf_counter()
    loop = distributed.map_files(model, inputs, str(work / "loop"))
    loop_s = time.perf_counter() - start

    start = time.perf_counter()
    ray.init(num_cpus=max(args.workers, os.cpu_count() or 1), include_dashboard=False,
             logging_level="ERROR")
    init_s = time.perf_counter() - start
    try:
        spec = ModelSpec.load(model)
        files = sorted(str(p) for p in (work / "in").iterdir())
        outputs = output_paths(files, str(work / "ray"))
        start = time.perf_counter()
        pool = distributed._cluster.MapPool(spec, args.workers)   # joins the cluster above
        pool_s = time.perf_counter() - start
        result = MapResult(outputs=outputs)
        start = time.perf_counter()
        _collect(pool.map(files), outputs, result, None)
        ray_s = time.perf_counter() - start
        pool.close()
    finally:
        ray.shutdown()

    if not len(loop.written) == len(result.written) == args.inputs:
        print(f"failed: {next(iter({**loop.failed, **result.failed}.values()), '?')}")
        return 1
    for path in files:
        a = np.load(loop.outputs[path])
        b = np.load(outputs[path])
        assert a.files == b.files and all(np.array_equal(a[k], b[k]) for k in a.files), path
    fixed = init_s + pool_s
    print(f"MLP 784-2048x3-10, {args.inputs} inputs of batch {args.batch}, "
          f"{args.workers} workers, {os.cpu_count()} CPUs (load {os.getloadavg()[0]:.1f})")
    print(f"in-process loop     {loop_s:7.2f} s   ({loop_s / args.inputs * 1e3:.1f} ms/input)")
    print(f"ray: start cluster  {init_s:7.2f} s   (ray.init)")
    print(f"ray: start workers  {pool_s:7.2f} s   (actors + model from the object store)")
    print(f"ray: score inputs   {ray_s:7.2f} s   ({ray_s / args.inputs * 1e3:.1f} ms/input)")
    print(f"speed-up            {loop_s / ray_s:7.2f} x  scoring only; "
          f"{loop_s / (ray_s + fixed):.2f} x with the start cost ({fixed:.1f} s)")
    print("outputs equal: yes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
