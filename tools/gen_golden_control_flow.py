"""Regenerate tests/golden_control_flow/: Paddle-written legacy programs with control flow.

Each case is built in Paddle's legacy static mode and saved with `save_inference_model`;
tests/golden_control_flow/<case>/ holds model.pdmodel (+ model.pdiparams when there are
parameters), inputs.npz (one feed per run: `run<i>:<name>`) and expected.npz (Paddle's
outputs, `run<i>:<j>`). tests/test_control_flow.py runs them with pyir; it never imports
Paddle.

Paddle 3.3.1's `static.nn.cond` cannot be built in legacy mode (it calls the C++
`logical_not`, which rejects legacy Variables), so the `cond` case assembles the same layout
from Paddle's own building blocks (`ConditionalBlock`, `select_input`), as `cond` did in
Paddle 2.x.

Run (Paddle 3.3.1 as the oracle, in its own venv):
    FLAGS_enable_pir_api=0 /work/paddle-venv/bin/python tools/gen_golden_control_flow.py
"""

from __future__ import annotations

import os
import pathlib
import shutil

os.environ.setdefault("FLAGS_enable_pir_api", "0")

import numpy as np
import paddle
from paddle.base.layer_helper import LayerHelper
from paddle.static.nn.control_flow import ConditionalBlock, copy_var_to_parent_block, select_input

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "golden_control_flow"


def _op(op_type: str, inputs: dict, attrs: dict, dtype):
    helper = LayerHelper(op_type)
    out = helper.create_variable_for_type_inference(dtype)
    helper.append_op(type=op_type, inputs=inputs, outputs={"Out": [out]}, attrs=attrs)
    return out


def while_sum():
    """i, s = while i < n: i + 1, s + x * i (x fed, n = 4)."""
    x = paddle.static.data("x", [3], "float32")
    i = paddle.full([1], 0, "int64")
    n = paddle.full([1], 4, "int64")
    s = paddle.full([3], 0.0, "float32")

    def body(i, s):
        scaled = x * paddle.cast(i, "float32")
        return [i + 1, s + scaled]

    i2, s2 = paddle.static.nn.while_loop(lambda i, s: paddle.less_than(i, n), body, [i, s])
    runs = [{"x": np.array([1.0, -2.0, 0.5], "float32")}]
    return [x], [i2, s2], runs


def cond_branches():
    """y = x * 2 if p else x - 1, with Paddle 2.x's cond layout."""
    x = paddle.static.data("x", [2, 3], "float32")
    p = paddle.static.data("p", [1], "bool")
    helper = LayerHelper("cond")
    outs = []
    for pred, fn in ((p, lambda: x * 2.0), (None, lambda: x - 1.0)):
        if pred is None:
            pred = _op("logical_not", {"X": [p]}, {}, "bool")
        block = ConditionalBlock([pred], is_scalar_condition=True)
        with block.block():
            outs.append(copy_var_to_parent_block(fn(), helper))
    mask = paddle.cast(p, "int32")
    y = select_input([outs[1], outs[0]], mask)
    value = np.arange(6, dtype="float32").reshape(2, 3)
    runs = [{"x": value, "p": np.array([True])}, {"x": value, "p": np.array([False])}]
    return [x, p], [y], runs


CASES = {"while_sum": while_sum, "cond_branches": cond_branches}


def write_inference_case(out: pathlib.Path, name: str, build) -> None:
    """Build `build()` -> (feeds, fetches, runs) into fresh programs, save it with
    save_inference_model under out/name/model, and record each run's inputs and outputs
    (`run<i>:<name>`, `run<i>:<j>`). tools/gen_golden_tensor_array.py uses it too."""
    main_prog, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main_prog, startup):
        feeds, fetches, runs = build()
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    target = out / name
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    paddle.static.save_inference_model(str(target / "model"), feeds, fetches, exe,
                                       program=main_prog)
    inputs, expected = {}, {}
    for r, feed in enumerate(runs):
        inputs.update({f"run{r}:{k}": v for k, v in feed.items()})
        values = exe.run(main_prog, feed=feed, fetch_list=fetches)
        expected.update({f"run{r}:{j}": np.asarray(v) for j, v in enumerate(values)})
    np.savez(target / "inputs.npz", **inputs)
    np.savez(target / "expected.npz", **expected)
    print(f"wrote {target}")


def main() -> None:
    paddle.enable_static()
    for name, build in CASES.items():
        write_inference_case(OUT, name, build)


if __name__ == "__main__":
    main()
