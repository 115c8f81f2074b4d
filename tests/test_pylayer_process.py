"""Pylayers across processes: build in A, differentiate (and train) in B, run in C.

Each process is a fresh `.venv/bin/python -c ...` (or the `pyir` CLI), so only what the files
hold travels between them: both sub-blocks of every pylayer. No Python callable of A's is
needed later, because forward and backward were traced into the program.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys
import textwrap

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "paddle_golden" / "pylayer_grad"
PYTHON = sys.executable
PYIR = str(pathlib.Path(sys.executable).with_name("pyir"))


def _python(code: str, cwd) -> str:
    done = subprocess.run([PYTHON, "-c", textwrap.dedent(code)], cwd=cwd, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _cli(*args, cwd) -> str:
    done = subprocess.run([PYIR, *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr + done.stdout
    return done.stdout


# A: seed 004's layer, with a scalar loss (sum(y), so d loss/dX = seed 004's data_grad).
SEED004_FORWARD = """
    import numpy as np, pyir as paddle
    from pyir.files import save_training_program as save_program
    paddle.enable_static()
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        data = paddle.static.data(name="X", shape=[None, 5], dtype="float32")
        data.stop_gradient = False
        ret = paddle.static.nn.static_pylayer(lambda x: paddle.exp(x), [data],
                                              lambda dy: 2 * paddle.exp(dy))
        loss = paddle.sum(ret)
    save_program("forward.pb", main, ["X"], [loss.name, ret.name], paddle.static.global_scope())
    np.save("x.npy", np.array([[1.0, 2.0, 3.0, 4.0, 5.0]], dtype=np.float32))
"""


def test_seed004_saved_then_differentiated_with_pyir_grad_and_run(tmp_path):
    _python(SEED004_FORWARD, tmp_path)
    _cli("grad", "forward.pb", "--wrt", "X", "-o", "grad.pb", cwd=tmp_path)
    _cli("run", "grad.pb", "--feed", "X=x.npy", "-o", "out.npz", "-q", cwd=tmp_path)
    out = np.load(tmp_path / "out.npz")
    np.testing.assert_allclose(out["X@GRAD"], np.full((1, 5), 2 * np.e, "float32"), rtol=1e-6)
    assert out["X@GRAD"].dtype == np.float32


# A: a model with PyLayers (one saves a value computed in forward) and parameters.
PYLAYER_MODEL = """
    import numpy as np, pyir
    from pyir.autograd import PyLayer
    from pyir.files import save_training_program as save_program
    pyir.enable_static()
    pyir.seed(5)

    class TanhSaved(PyLayer):
        @staticmethod
        def forward(ctx, x):
            y = pyir.tanh(x)
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, dy):
            y, = ctx.saved_tensor()
            return dy * (1 - pyir.square(y))

    main, startup = pyir.static.Program(), pyir.static.Program()
    with pyir.static.program_guard(main, startup):
        x = pyir.static.data("x", [8, 3], "float32")
        label = pyir.static.data("label", [8, 1], "float32")
        h = TanhSaved.apply(pyir.static.nn.fc(x, 6))
        out = pyir.static.nn.fc(h, 1)
        loss = pyir.mean(pyir.square(out - label))
    scope = pyir.static.global_scope()
    pyir.static.Executor().run(startup)
    save_program("model.pb", main, ["x", "label"], [loss.name], scope)
    rng = np.random.default_rng(0)
    xv = rng.standard_normal((8, 3)).astype("float32")
    np.savez("data.npz", x=xv, label=np.sin(xv.sum(1, keepdims=True)).astype("float32"))
    # the in-process gradients process C must reproduce
    pairs = pyir.static.append_backward(loss)
    values = pyir.static.Executor().run(main, feed=dict(np.load("data.npz")),
                                        fetch_list=[g for _, g in pairs])
    np.savez("in_process.npz", **{g.name: v for (_, g), v in zip(pairs, values)})
"""

# B: differentiate and add SGD, without the PyLayer class.
PYLAYER_TRAIN = """
    import pyir
    from pyir.files import load_model
    from pyir.files import save_training_program as save_program
    scope = pyir.static.Scope()
    m = load_model("model.pb", scope=scope)
    loss = m.program.global_block().var(m.fetch_names[0])
    startup = pyir.static.Program()
    with pyir.static.program_guard(m.program, startup):
        pyir.optimizer.SGD(learning_rate=0.2).minimize(loss)
    pyir.static.Executor().run(startup, scope=scope)  # the learning rate
    grads = sorted(n for n in m.program.global_block().vars if n.endswith("@GRAD")
                   and n.startswith("fc_"))
    save_program("train.pb", m.program, m.feed_names, [loss.name] + grads, scope)
"""

# C: run the training program.
PYLAYER_RUN = """
    import numpy as np, pyir
    from pyir.files import load_model
    scope = pyir.static.Scope()
    m = load_model("train.pb", scope=scope)
    exe, data = pyir.static.Executor(), dict(np.load("data.npz"))
    first = exe.run(m.program, feed=data, fetch_list=m.fetch_names, scope=scope)
    losses = [exe.run(m.program, feed=data, fetch_list=m.fetch_names[:1], scope=scope)[0]
              for _ in range(30)]
    np.savez("trained.npz", losses=np.array([first[0]] + losses),
             **dict(zip(m.fetch_names[1:], first[1:])))
"""


def test_pylayer_model_is_differentiated_and_trained_in_other_processes(tmp_path):
    _python(PYLAYER_MODEL, tmp_path)
    _python(PYLAYER_TRAIN, tmp_path)
    _python(PYLAYER_RUN, tmp_path)
    trained, reference = np.load(tmp_path / "trained.npz"), np.load(tmp_path / "in_process.npz")
    assert set(reference.files) <= set(trained.files)
    for name in reference.files:
        np.testing.assert_allclose(trained[name], reference[name], rtol=1e-5, atol=1e-7,
                                   err_msg=name)
    losses = trained["losses"]
    assert losses[-1] < 0.5 * losses[0]


def test_several_pylayers_run_in_a_fresh_process_with_paddles_numbers(tmp_path):
    """A program with two pylayers (four sub-blocks) written by pyir, run elsewhere."""
    build = f"""
        import sys
        sys.path.insert(0, {str(ROOT / "tests")!r})
        import pyir
        from test_pylayer import _golden_net
        pyir.enable_static()
        main, loss = _golden_net()
        pyir.static.append_backward(loss)
        open("two.pb", "wb").write(main.serialize_to_string())
    """
    run = f"""
        import numpy as np, pyir
        from pyir.serialize import load_program
        program = load_program("two.pb")
        assert [op.attr("blocks") for op in program.global_block().ops
                if op.type == "pylayer"] == [[1, 2], [3, 4]]
        scope = pyir.static.Scope()
        for name, value in np.load({str(GOLDEN / "params.npz")!r}).items():
            scope[name] = value
        expected = np.load({str(GOLDEN / "expected.npz")!r})
        values = pyir.static.Executor().run(
            program, feed=dict(np.load({str(GOLDEN / "inputs.npz")!r})),
            fetch_list=list(expected.files), scope=scope)
        for name, value in zip(expected.files, values):
            np.testing.assert_allclose(value, expected[name], rtol=1e-4, atol=1e-6)
        print("ok")
    """
    _python(build, tmp_path)
    assert _python(run, tmp_path).strip() == "ok"
