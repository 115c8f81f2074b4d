"""LeNet inference at batch 32: pyir's Executor on Paddle's own model file vs hand-written numpy.

    model   tests/paddle_golden/lenet (paddle.vision.models.LeNet, written by Paddle 3.3.1)
    pyir    Executor.run on the loaded .pdmodel / .pdiparams         target <= 1.1x numpy
    numpy   the same network by hand: im2col + matmul convolution, strided-view max pooling
    paddle  (optional, --paddle) Paddle's CPU executor on the same files, when paddle imports
            beside pyir (Paddle 3.3.1 registers the same protobuf package name as pyir, so it
            usually cannot: time it in its own process with the same `interleaved` blocks)

Both main sides run in this process on the same arrays and parameters and must agree. A
benchmark, not a test: it prints figures and never fails on a slow machine.

    python benchmarks/bench_lenet.py [--batch 32] [--calls 300] [--cpu-time] [--paddle]
"""

from __future__ import annotations

import argparse
import os
import pathlib
import time

# One BLAS thread on both sides: at batch 32 the products are small, and threads fighting
# other load on a shared machine only add noise to the ratio.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
from numpy.lib.stride_tricks import as_strided  # noqa: E402

from pyir import files  # noqa: E402
from pyir.executor import Executor, Scope  # noqa: E402

MODEL = pathlib.Path(__file__).resolve().parent.parent / "tests" / "paddle_golden" / "lenet"


def interleaved(fns: dict, calls: int, block: int = 10) -> dict:
    """Seconds per call of each fn: blocks of `block` calls taken in turn, best block kept.

    Taking the sides in turn and keeping each one's best block makes the ratio robust to
    other load on a shared machine.
    """
    best = {name: float("inf") for name in fns}
    for fn in fns.values():
        fn()
    for _ in range(max(calls // block, 1)):
        for name, fn in fns.items():
            start = clock()
            for _ in range(block):
                fn()
            best[name] = min(best[name], (clock() - start) / block)
    return best


clock = time.perf_counter


# --- the hand-written network -----------------------------------------------------------------
def conv2d(x, w, b, pad):
    """im2col over a strided view, one matmul, bias."""
    if pad:
        x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, c, h, wd = x.shape
    oc, _, kh, kw = w.shape
    oh, ow = h - kh + 1, wd - kw + 1
    s = x.strides
    cols = as_strided(x, (n, c, kh, kw, oh, ow), (s[0], s[1], s[2], s[3], s[2], s[3]))
    out = np.matmul(w.reshape(1, oc, -1), cols.reshape(n, c * kh * kw, oh * ow))
    return out.reshape(n, oc, oh, ow) + b.reshape(1, oc, 1, 1)


def max_pool_2x2(x):
    """2x2 / stride 2 max: elementwise max of the four strided views of the window offsets
    (numpy's max over two tiny trailing axes of one 6-D view is ~30x slower)."""
    out = np.maximum(x[:, :, 0::2, 0::2], x[:, :, 0::2, 1::2])
    np.maximum(out, x[:, :, 1::2, 0::2], out=out)
    return np.maximum(out, x[:, :, 1::2, 1::2], out=out)


def lenet_numpy(image, p):
    x = max_pool_2x2(np.maximum(conv2d(image, p["conv2d_0.w_0"], p["conv2d_0.b_0"], 1), 0))
    x = max_pool_2x2(np.maximum(conv2d(x, p["conv2d_1.w_0"], p["conv2d_1.b_0"], 0), 0))
    x = x.reshape(x.shape[0], -1)
    x = x @ p["linear_0.w_0"] + p["linear_0.b_0"]
    x = x @ p["linear_1.w_0"] + p["linear_1.b_0"]
    return x @ p["linear_2.w_0"] + p["linear_2.b_0"]


# --- the sides --------------------------------------------------------------------------------
def pyir_side(batch: int):
    scope = Scope()
    model = files.load_model(str(MODEL / "model.pdmodel"), str(MODEL / "model.pdiparams"), scope)
    feed_name = model.feed_names[0]
    var = model.program.global_block().var(feed_name)
    var.shape = (-1,) + tuple(var.shape[1:])  # the file fixed batch 2; any batch is fine
    exe = Executor()

    def run(image):
        return exe.run(model.program, feed={feed_name: image}, fetch_list=model.fetch_names,
                       scope=scope)[0]

    params = {name: scope[name] for name in scope.local_var_names()}
    return run, params


def paddle_side():
    """Paddle's CPU executor on the same files, or None when paddle is not importable."""
    import os

    os.environ.setdefault("FLAGS_enable_pir_api", "0")
    try:
        import paddle
    except Exception as e:  # noqa: BLE001  absent, or its protobuf package clashes with pyir's
        print(f"paddle: cannot be used in this process ({type(e).__name__}: "
              f"{str(e).splitlines()[-1][:120]})")
        return None
    paddle.enable_static()
    exe = paddle.static.Executor(paddle.CPUPlace())
    program, feeds, fetches = paddle.static.load_inference_model(str(MODEL / "model"), exe)
    program.global_block().var(feeds[0]).desc.set_shape([-1, 1, 28, 28])
    return lambda image: exe.run(program, feed={feeds[0]: image}, fetch_list=fetches)[0]


def main() -> None:
    parser = argparse.ArgumentParser(description="LeNet batch-32 inference benchmark")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--paddle", action="store_true", help="also time Paddle if importable")
    parser.add_argument("--cpu-time", action="store_true",
                        help="time with process CPU time instead of wall time (busy machines)")
    args, _ = parser.parse_known_args()
    global clock
    clock = time.process_time if args.cpu_time else time.perf_counter
    image = np.random.default_rng(0).standard_normal((args.batch, 1, 28, 28)).astype("float32")
    run_pyir, params = pyir_side(args.batch)
    ours, ref = run_pyir(image), lenet_numpy(image, params)
    np.testing.assert_allclose(ours, ref, rtol=1e-4, atol=1e-5)
    t = interleaved({"numpy": lambda: lenet_numpy(image, params),
                     "pyir": lambda: run_pyir(image)}, args.calls)
    print(f"LeNet batch {args.batch}: numpy {t['numpy'] * 1e3:.3f} ms, pyir "
          f"{t['pyir'] * 1e3:.3f} ms, ratio {t['pyir'] / t['numpy']:.2f}x (target <= 1.1x)")
    if args.paddle:
        run_paddle = paddle_side()
        if run_paddle is None:
            return
        np.testing.assert_allclose(run_paddle(image), ref, rtol=1e-4, atol=1e-5)
        t = interleaved({"paddle": lambda: run_paddle(image), "pyir": lambda: run_pyir(image)},
                        args.calls)
        print(f"paddle {t['paddle'] * 1e3:.3f} ms, pyir {t['pyir'] * 1e3:.3f} ms: pyir is "
              f"{t['paddle'] / t['pyir']:.1f}x faster (target >= 3x)")


if __name__ == "__main__":
    main()
