"""py_func across processes: build in A, append backward in B, run in C (fresh interpreters).

Each process is `.venv/bin/python -c ...` using the library API, so only what the file holds
travels between them. C finds `helpers_callables` only through $PYIR_PATH. The CLI tests at
the end run `pyir build` / `pyir run` on the samples from another working directory.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
SAMPLES = ROOT / "samples"
PYTHON = sys.executable
PYIR = str(pathlib.Path(sys.executable).with_name("pyir"))

# A: a net with fc + py_func tanh (backward, skip) + a debug op + a two-in/two-out py_func.
BUILD = """
    import sys, numpy as np
    sys.path.insert(0, {tests!r})
    import pyir, helpers_callables as hc
    from pyir import static
    pyir.enable_static()
    pyir.seed(7)
    block = static.default_main_program().global_block()
    x = static.data("x", [2, 3], "float32")
    h = static.nn.fc(x, size=4)
    t = block.create_var(name="t", dtype="float32", shape=[2, 4])
    static.py_func(hc.tanh, h, t, backward_func=hc.tanh_grad, skip_vars_in_backward_input=h)
    static.py_func(hc.record_call, t, None)
    s = block.create_var(name="s", dtype="float32", shape=[2, 4])
    p = block.create_var(name="p", dtype="float32", shape=[2, 4])
    static.py_func(hc.add_mul, [t, h], [s, p], backward_func=hc.add_mul_grad)
    loss = pyir.mean(s) + pyir.mean(p)
    exe = static.Executor()
    exe.run(static.default_startup_program())
    scope = static.global_scope()
    params = {{v.name: scope[v.name] for v in block.all_parameters()}}
    open({out!r} + "/forward.pb", "wb").write(static.default_main_program().serialize_to_string())
    np.savez({out!r} + "/params.npz", **params)
    open({out!r} + "/loss_name", "w").write(loss.name)
    # the in-process numbers C must reproduce
    static.append_backward(loss)
    xv = np.linspace(-1, 1, 6, dtype="float32").reshape(2, 3)
    names = [loss.name, "fc_0.w_0@GRAD", "fc_0.b_0@GRAD", "fc_0.tmp_1@GRAD"]
    values = exe.run(feed={{"x": xv}}, fetch_list=names)
    np.savez({out!r} + "/in_process.npz", x=xv, **dict(zip(names, values)))
"""

# B: append backward to A's file, without access to the callables' module.
GRAD = """
    import pyir
    from pyir import static
    program = pyir.Program.parse_from_string(open({out!r} + "/forward.pb", "rb").read())
    loss = program.global_block().var(open({out!r} + "/loss_name").read())
    static.append_backward(loss)
    open({out!r} + "/train.pb", "wb").write(program.serialize_to_string())
    import sys
    assert "helpers_callables" not in sys.modules
"""

# C: run B's file; helpers_callables is found through $PYIR_PATH only.
RUN = """
    import sys, numpy as np
    import pyir
    from pyir import static
    program = pyir.Program.parse_from_string(open({out!r} + "/train.pb", "rb").read())
    scope = static.Scope()
    data = np.load({out!r} + "/in_process.npz")
    with np.load({out!r} + "/params.npz") as params:
        for name in params.files:
            scope[name] = params[name]
    names = [n for n in data.files if n != "x"]
    values = static.Executor().run(program, feed={{"x": data["x"]}}, fetch_list=names,
                                   scope=scope)
    np.savez({out!r} + "/fresh.npz", **dict(zip(names, values)))
    print("debug calls:", len(sys.modules["helpers_callables"].CALLS))
"""


def _without_pyir_path(extra=None):
    env = {k: v for k, v in os.environ.items() if k != "PYIR_PATH"}
    env.update(extra or {})
    return env


def run_python(code: str, out, extra_env=None, check=True):
    result = subprocess.run(
        [PYTHON, "-c", textwrap.dedent(code).format(out=str(out), tests=str(TESTS))],
        capture_output=True, text=True, env=_without_pyir_path(extra_env), cwd=out)
    if check:
        assert result.returncode == 0, result.stderr
    return result


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("abc")
    run_python(BUILD, out)
    run_python(GRAD, out)
    return out


def test_build_grad_run_in_three_processes_gives_in_process_numbers(built):
    result = run_python(RUN, built, {"PYIR_PATH": str(TESTS)})
    assert "debug calls: 1" in result.stdout  # the debug op ran in C
    expected, fresh = np.load(built / "in_process.npz"), np.load(built / "fresh.npz")
    assert set(fresh.files) == set(expected.files) - {"x"}
    for name in fresh.files:
        np.testing.assert_allclose(fresh[name], expected[name], rtol=1e-6, atol=1e-7,
                                   err_msg=name)


def test_grad_file_names_the_backward_callables(built):
    import pyir

    program = pyir.Program.parse_from_string((built / "train.pb").read_bytes())
    refs = {ref for _, _, _, ref in pyir.callables.references(program)}
    assert refs == {"helpers_callables:tanh", "helpers_callables:tanh_grad",
                    "helpers_callables:record_call", "helpers_callables:add_mul",
                    "helpers_callables:add_mul_grad"}


def test_run_without_search_path_is_refused_before_any_op_runs(built):
    result = run_python(RUN, built, check=False)
    assert result.returncode != 0
    assert "CallableError" in result.stderr
    assert "module 'helpers_callables' is not imported, not in a directory you named" in \
        result.stderr
    assert "--path DIR" in result.stderr


# --- the CLI ---------------------------------------------------------------------------------
def pyir_cli(*args, cwd, env=None):
    return subprocess.run([PYIR, *map(str, args)], capture_output=True, text=True, cwd=cwd,
                          env=_without_pyir_path(env))


def test_cli_example2_prints_the_documented_sum_from_another_directory(tmp_path):
    built = pyir_cli("build", SAMPLES / "seed003_example2_registered.py", "-o", "ex2.pb",
                     cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    ran = pyir_cli("run", tmp_path / "ex2.pb", "--path", SAMPLES,
                   "--feed", f"x={SAMPLES / 'seed003_example2_x.npy'}",
                   "--feed", f"y={SAMPLES / 'seed003_example2_y.npy'}", cwd=elsewhere)
    assert ran.returncode == 0, ran.stderr
    assert "output: int32 [2, 3]\n[[12 17 13]\n [ 8  8  5]]" in ran.stdout
    assert "pyir run: warning: " in ran.stderr  # declared [3, 1], returned [2, 3]
    assert "returned shape [2, 3]" in ran.stderr


def test_cli_pyir_path_instead_of_path_option(tmp_path):
    assert pyir_cli("build", SAMPLES / "seed003_example2_registered.py", "-o", "ex2.pb",
                    cwd=tmp_path).returncode == 0
    ran = pyir_cli("run", "ex2.pb", "--feed", f"x={SAMPLES / 'seed003_example2_x.npy'}",
                   "--feed", f"y={SAMPLES / 'seed003_example2_y.npy'}", cwd=tmp_path,
                   env={"PYIR_PATH": str(SAMPLES)})
    assert ran.returncode == 0, ran.stderr
    assert "[[12 17 13]" in ran.stdout


@pytest.mark.parametrize("sample", ["seed003_example1.py", "seed003_example2.py"])
def test_cli_build_of_verbatim_seed_fails_at_save_with_the_fix(sample, tmp_path):
    result = pyir_cli("build", SAMPLES / sample, "-o", "out.pb", cwd=tmp_path)
    assert result.returncode == 1
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("pyir build: error:") and "op #" in last
    assert "is not registered" in last and "@pyir.register" in last
    assert not (tmp_path / "out.pb").exists()


def test_cli_example1_build_then_run_matches_in_process(tmp_path):
    built = pyir_cli("build", SAMPLES / "seed003_example1_registered.py", "-o", "ex1.pb",
                     cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    inputs = SAMPLES / "seed003_example1_inputs.npz"
    ran = pyir_cli("run", "ex1.pb", "--path", SAMPLES, "--feed", inputs, "-o", "out.npz",
                   "-q", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    import pyir
    from pyir.files import load_model

    scope = pyir.static.Scope()
    loaded = load_model(str(tmp_path / "ex1.pb"), scope=scope)
    # the backward reference stays on the forward ops; the debug ops were pruned at save
    assert {ref for _, _, _, ref in pyir.callables.references(loaded.program)} \
        == {"seed_pyfuncs:tanh", "seed_pyfuncs:tanh_grad"}
    with np.load(inputs) as feed, np.load(tmp_path / "out.npz") as got:
        loss = got["mean_0.tmp_0"]
        np.testing.assert_allclose(loss, _numpy_example1(scope, feed["x"], feed["y"]),
                                   rtol=1e-5)


def _numpy_example1(scope, x, label):
    """Seed 003 example 1 by hand: 4 x [fc 200 + tanh], fc 10 + softmax, CrossEntropyLoss
    (which applies softmax again, as in the seed)."""
    def softmax(z):
        e = np.exp(z - z.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)

    h = x.astype("float64")
    for i in range(4):
        h = np.tanh(h @ scope[f"fc_{i}.w_0"] + scope[f"fc_{i}.b_0"])
    prediction = softmax(h @ scope["fc_4.w_0"] + scope["fc_4.b_0"])
    return -np.log(softmax(prediction)[np.arange(len(label)), label]).mean()


def test_cli_hostile_file_is_refused_and_nothing_runs(tmp_path):
    import pyir
    from pyir.serialize import program_to_desc

    sentinel = tmp_path / "ran.txt"
    code = f"""
        import sys, numpy as np
        sys.path.insert(0, {str(TESTS)!r})
        import pyir, helpers_callables as hc
        from pyir import static
        pyir.enable_static()
        x = static.data("x", [2], "float32")
        block = static.default_main_program().global_block()
        a = block.create_var(name="a", dtype="float32", shape=[2])
        b = block.create_var(name="b", dtype="float32", shape=[2])
        static.py_func(hc.touch_sentinel, x, a)
        static.py_func(hc.tanh, a, b)
        from pyir.files import save_model
        save_model("good.pb", static.default_main_program(), ["x"], ["b"])
    """
    run_python(code, tmp_path)
    program = pyir.Program.parse_from_string((tmp_path / "good.pb").read_bytes())
    py_ops = [op for op in program.global_block().ops if op.type == "py_func"]
    py_ops[1].attrs["forward_callable"] = "os:system"
    (tmp_path / "evil.pb").write_bytes(program_to_desc(program).SerializeToString())
    np.save(tmp_path / "x.npy", np.array([1.0, 2.0], "float32"))
    result = pyir_cli("run", "evil.pb", "--feed", "x.npy", cwd=tmp_path,
                      env={"PYIR_PATH": str(TESTS), "PYIR_TEST_SENTINEL": str(sentinel)})
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "'os:system'" in lines[0] and "refused" in lines[0]
    assert not sentinel.exists()
    good = pyir_cli("run", "good.pb", "--feed", "x.npy", cwd=tmp_path,
                    env={"PYIR_PATH": str(TESTS), "PYIR_TEST_SENTINEL": str(sentinel)})
    assert good.returncode == 0, good.stderr
    assert sentinel.exists()  # the same file without the hostile op does run the first op


def test_cli_build_grad_run_matches_in_process_append_backward(tmp_path, monkeypatch, capsys):
    import runpy

    import pyir
    from pyir.files import load_model

    sample = SAMPLES / "seed003_example1_registered.py"
    inputs = SAMPLES / "seed003_example1_inputs.npz"
    for args in (("build", sample, "-o", "ex1.pb"), ("grad", "ex1.pb", "-o", "train.pb"),
                 ("run", "train.pb", "--path", SAMPLES, "--feed", inputs, "-o", "g.npz", "-q")):
        result = pyir_cli(*args, cwd=tmp_path)
        assert result.returncode == 0, (args, result.stderr)
    # the same model built and differentiated in this process, on the parameters built above
    monkeypatch.syspath_prepend(str(SAMPLES))
    ns = runpy.run_path(str(sample), run_name="__main__")
    pyir.static.append_backward(ns["res"])
    scope = pyir.static.Scope()
    load_model(str(tmp_path / "ex1.pb"), scope=scope)
    with np.load(tmp_path / "g.npz") as fresh, np.load(inputs) as feed:
        names = [n for n in fresh.files if n != "x@GRAD"]
        assert len(names) == 11 and ns["res"].name in names
        values = pyir.static.Executor().run(feed=dict(feed), fetch_list=names, scope=scope)
        for name, value in zip(names, values):
            np.testing.assert_allclose(fresh[name], value, rtol=1e-6, atol=1e-9, err_msg=name)
