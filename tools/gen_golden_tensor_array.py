"""Regenerate tests/golden_tensor_array/: Paddle-written legacy programs with tensor arrays,
and check that pyir-written ones run in Paddle.

Cases (each built in Paddle 3.3.1's legacy static mode):
  while_stack   a while loop writing each step's state into an array, then
                tensor_array_to_tensor (stack), array_length and array_read after it
                (save_inference_model: model.pdmodel)
  concat_main   writes in the main block, tensor_array_to_tensor (concat) and array_read
  while_block_rnn  Paddle 2.x's `While` block API: step inputs read from one array, states
                written into another, the counter stepped by `increment` in place; a
                parameter (model.pdiparams)
  while_grad    the while_stack loop with its gradient (append_backward + gradients): the
                whole program as main.pdmodel, its x@GRAD checked here against finite
                differences before it is written (Paddle drops gradients through a loop
                variable whose initial value is stop_gradient, so the loop state starts
                from x)

Each folder holds inputs.npz (`run<i>:<feed>`) and expected.npz (`run<i>:<fetch name>`);
tests/test_tensor_array.py runs them with pyir and never imports Paddle.

Then the other way: programs pyir builds (an inference model, and a program with its
gradient) are written by pyir, loaded by Paddle and run; the numbers must agree (printed,
and the tool fails otherwise). Nothing from that half is written.

Run (Paddle 3.3.1 as the oracle, in its own venv):
    FLAGS_enable_pir_api=0 /work/paddle-venv/bin/python tools/gen_golden_tensor_array.py
"""

from __future__ import annotations

import os
import pathlib
import shutil
import sys
import tempfile

os.environ.setdefault("FLAGS_enable_pir_api", "0")

import subprocess

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "golden_tensor_array"
X1 = np.array([[0.5, -1.0, 0.25], [1.5, 0.0, -0.75]], "float32")
X2 = np.array([[-0.2, 0.8, 1.1], [0.3, -1.4, 0.6]], "float32")


# --- pyir-written programs (built in a process of their own: pyir's and Paddle's protobuf
# descriptors cannot share one) ----------------------------------------------------------
def pyir_side(folder: str) -> None:
    """Write, into `folder`, the while_stack computation built by pyir: an inference model
    (m.pdmodel) and the whole program with its gradient (grad.pdmodel), with pyir's numbers
    for X1 (pyir.npz)."""
    sys.path.insert(0, str(ROOT))
    import pyir
    from pyir import framework
    from pyir.serialize import serialize_program

    def build(with_grad: bool):
        main, startup = pyir.static.Program(), pyir.static.Program()
        with pyir.static.program_guard(main, startup):
            x = pyir.static.data("x", [2, 3], "float32")
            x.stop_gradient = False
            arr = pyir.tensor.create_array("float32")
            i = pyir.full([1], 0, "int64")
            n = pyir.full([1], 3, "int64")

            def body(i, h, arr):
                h = pyir.tanh(h * 0.5 + x)
                pyir.tensor.array_write(h, i, arr)
                return [i + 1, h, arr]

            pyir.static.nn.while_loop(lambda i, h, a: i < n, body, [i, x * 0.0, arr])
            stacked, _ = pyir.tensor.array.tensor_array_to_tensor(arr, axis=0, use_stack=True)
            length = pyir.tensor.array_length(arr)
            second = pyir.tensor.array_read(arr, pyir.full([1], 1, "int64"))
            outs = [stacked, length, second]
            if with_grad:
                loss = pyir.mean(stacked) + pyir.mean(second)
                pyir.static.append_backward(loss)
                outs = [loss, main.global_block().var("x@GRAD")]
        return main, x, outs

    framework.static_mode[0] = True
    try:
        infer, x, outs = build(with_grad=False)
        grad, _, grad_outs = build(with_grad=True)
    finally:
        framework.static_mode[0] = False
    exe = pyir.static.Executor()
    numbers = {f"infer:{j}": v for j, v in enumerate(exe.run(infer, feed={"x": X1},
                                                              fetch_list=outs))}
    pyir.static.save_inference_model(f"{folder}/m", [x], outs, exe, program=infer)
    for j, v in enumerate(exe.run(grad, feed={"x": X1}, fetch_list=grad_outs)):
        numbers[f"grad:{grad_outs[j].name}"] = v
    pathlib.Path(folder, "grad.pdmodel").write_bytes(serialize_program(grad))
    np.savez(pathlib.Path(folder, "pyir.npz"), **numbers)


if __name__ == "__main__" and sys.argv[1:2] == ["--pyir-side"]:
    pyir_side(sys.argv[2])
    sys.exit(0)

import paddle  # noqa: E402
from paddle.base.layer_helper import LayerHelper  # noqa: E402
from gen_golden_control_flow import write_inference_case  # noqa: E402 (tools/ is on sys.path)


def _op(op_type: str, inputs: dict, attrs: dict, dtype):
    """An op through LayerHelper (Paddle 3.3.1's tanh & co. reject legacy Variables)."""
    helper = LayerHelper(op_type)
    out = helper.create_variable_for_type_inference(dtype)
    helper.append_op(type=op_type, inputs=inputs, outputs={"Out": [out]}, attrs=attrs)
    return out


def _loop(x, start_from_x: bool):
    """h_t = tanh(0.5 h_{t-1} + x) for t < 3, each h_t written into an array."""
    arr = paddle.tensor.create_array("float32")
    i = paddle.full([1], 0, "int64")
    n = paddle.full([1], 3, "int64")

    def body(i, h, arr):
        h = _op("tanh", {"X": [h * 0.5 + x]}, {}, "float32")
        paddle.tensor.array_write(h, i, arr)
        return [i + 1, h, arr]

    h0 = x * 0.0 if start_from_x else paddle.zeros([2, 3], "float32")
    paddle.static.nn.while_loop(lambda i, h, a: paddle.less_than(i, n), body, [i, h0, arr])
    return arr


def _after_loop(arr):
    stacked, _ = paddle.tensor.manipulation.tensor_array_to_tensor(arr, axis=0, use_stack=True)
    length = paddle.tensor.array_length(arr)
    second = paddle.tensor.array_read(arr, paddle.full([1], 1, "int64"))
    return stacked, length, second


def while_stack():
    x = paddle.static.data("x", [2, 3], "float32")
    stacked, length, second = _after_loop(_loop(x, start_from_x=False))
    return [x], [stacked, length, second], [{"x": X1}, {"x": X2}]


def concat_main():
    x = paddle.static.data("x", [2, 3], "float32")
    y = paddle.static.data("y", [2, 2], "float32")
    arr = paddle.tensor.create_array("float32")
    paddle.tensor.array_write(x, paddle.full([1], 0, "int64"), arr)
    paddle.tensor.array_write(y * 2.0, paddle.full([1], 1, "int64"), arr)
    joined, _ = paddle.tensor.manipulation.tensor_array_to_tensor(arr, axis=1)
    second = paddle.tensor.array_read(arr, paddle.full([1], 1, "int64"))
    runs = [{"x": X1, "y": np.array([[1.0, 2.0], [3.0, 4.0]], "float32")}]
    return [x, y], [joined, second], runs


def while_block_rnn():
    """Paddle 2.x's hand-written RNN: the `While` block API reading step inputs from one
    array and writing states into another, its counter stepped by `increment` in place."""
    from paddle.static.nn.control_flow import While

    x = paddle.static.data("x", [4, 2, 3], "float32")
    w = paddle.static.create_parameter([3, 3], "float32", name="w",
                                       default_initializer=paddle.nn.initializer.Assign(
                                           np.linspace(-0.5, 0.5, 9).reshape(3, 3)))
    arr_in = paddle.tensor.create_array("float32")
    for t in range(4):
        paddle.tensor.array_write(x[t], paddle.full([1], t, "int64"), arr_in)
    i = paddle.full([1], 0, "int64")
    n = paddle.tensor.array_length(arr_in)
    h = paddle.zeros([2, 3], "float32")
    arr_out = paddle.tensor.create_array("float32")
    cond = paddle.less_than(i, n)
    loop = While(cond=cond)
    with loop.block():
        xt = paddle.tensor.array_read(arr_in, i)
        hn = _op("tanh", {"X": [_op("matmul_v2", {"X": [h], "Y": [w]},
                                    {"trans_x": False, "trans_y": False}, "float32") + xt]},
                 {}, "float32")
        paddle.assign(hn, h)
        paddle.tensor.array_write(hn, i, arr_out)
        LayerHelper("increment").append_op(type="increment", inputs={"X": [i]},
                                           outputs={"Out": [i]}, attrs={"step": 1.0})
        paddle.assign(paddle.less_than(i, n), cond)
    states, _ = paddle.tensor.manipulation.tensor_array_to_tensor(arr_out, axis=0,
                                                                  use_stack=True)
    xv = np.random.default_rng(0).standard_normal((4, 2, 3)).astype("float32")
    return [x], [states, h], [{"x": xv}]


def _numeric_loss(xv: np.ndarray) -> float:
    h, hs = np.zeros_like(xv, dtype=np.float64), []
    for _ in range(3):
        h = np.tanh(0.5 * h + xv)
        hs.append(h)
    return float(np.mean(np.stack(hs)) + np.mean(hs[1]))


def _numeric_grad(xv: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    x = xv.astype(np.float64)
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        grad[i] = (_numeric_loss(up) - _numeric_loss(down)) / (2 * eps)
    return grad


def write_while_grad() -> None:
    main_prog, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main_prog, startup):
        x = paddle.static.data("x", [2, 3], "float32")
        x.stop_gradient = False
        stacked, _, second = _after_loop(_loop(x, start_from_x=True))
        loss = paddle.mean(stacked) + paddle.mean(second)
        paddle.static.append_backward(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    inputs, expected = {}, {}
    for r, xv in enumerate((X1, X2)):
        got_loss, got_grad = exe.run(main_prog, feed={"x": xv}, fetch_list=[loss, "x@GRAD"])
        np.testing.assert_allclose(got_loss, _numeric_loss(xv), rtol=1e-5)
        np.testing.assert_allclose(got_grad, _numeric_grad(xv), rtol=1e-4, atol=1e-6)
        inputs[f"run{r}:x"] = xv
        expected[f"run{r}:{loss.name}"] = np.asarray(got_loss)
        expected[f"run{r}:x@GRAD"] = np.asarray(got_grad)
    target = OUT / "while_grad"
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for block in main_prog.blocks:  # Python stack traces: most of the file, no meaning
        for op in block.ops:
            op.desc.remove_attr("op_callstack")
    (target / "main.pdmodel").write_bytes(main_prog.desc.serialize_to_string())
    np.savez(target / "inputs.npz", **inputs)
    np.savez(target / "expected.npz", **expected)
    print(f"wrote {target} (Paddle's x@GRAD agrees with finite differences)")


def check_pyir_files_in_paddle() -> None:
    """pyir's files, run by Paddle, give pyir's numbers (and pyir's gradient is right)."""
    python = ROOT / ".venv" / "bin" / "python"
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([str(python if python.exists() else sys.executable), __file__,
                        "--pyir-side", tmp], check=True)
        mine = np.load(f"{tmp}/pyir.npz")
        exe = paddle.static.Executor(paddle.CPUPlace())
        program, _, fetches = paddle.static.load_inference_model(f"{tmp}/m", exe)
        for j, value in enumerate(exe.run(program, feed={"x": X1}, fetch_list=fetches)):
            np.testing.assert_allclose(value, mine[f"infer:{j}"], rtol=1e-6)
        print("a pyir inference model with a while loop writing a tensor array runs in Paddle "
              "to pyir's numbers")
        program = paddle.static.Program.parse_from_string(
            pathlib.Path(tmp, "grad.pdmodel").read_bytes())
        names = [k.split(":", 1)[1] for k in mine.files if k.startswith("grad:")]
        got = exe.run(program, feed={"x": X1}, fetch_list=names)
        for name, value in zip(names, got):
            np.testing.assert_allclose(value, mine[f"grad:{name}"], rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(mine["grad:x@GRAD"], _numeric_grad(X1), rtol=1e-4, atol=1e-6)
        print("a pyir program with the gradient of that loop runs in Paddle to pyir's numbers "
              "(which agree with finite differences)")


def main() -> None:
    paddle.enable_static()
    write_inference_case(OUT, "while_stack", while_stack)
    write_inference_case(OUT, "concat_main", concat_main)
    write_inference_case(OUT, "while_block_rnn", while_block_rnn)
    write_while_grad()
    check_pyir_files_in_paddle()


if __name__ == "__main__":
    main()
