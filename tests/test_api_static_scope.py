"""paddle.static scopes and program-building helpers: the scope API (var/find_var,
get_tensor().set, np.array), Executor options, name_scope, create_global_var,
CompiledProgram, Print and accuracy."""

import warnings

import numpy as np
import pytest

import pyir
import pyir.static as S
from pyir.errors import BuildError, PyirError
from pyir.fluid import core
from pyir.input_spec import InputSpec
from pyir.unsupported import UnsupportedError


# --- scope API ------------------------------------------------------------------------------
def test_scope_var_set_and_read_back():
    scope = S.Scope()
    value = np.arange(6, dtype="float32").reshape(2, 3)
    tensor = scope.var("w").get_tensor()
    tensor.set(value, pyir.CPUPlace())
    value[0, 0] = 99  # set() copies
    got = np.array(scope.find_var("w").get_tensor())
    np.testing.assert_array_equal(got, np.arange(6, dtype="float32").reshape(2, 3))
    assert tensor.shape() == [2, 3] and tensor._dtype() == np.float32
    assert tensor._is_initialized() and scope.find_var("w").is_initialized()
    assert "w" in scope.local_var_names()
    np.testing.assert_array_equal(tensor.numpy(), got)
    assert np.asarray(tensor, dtype="float64").dtype == np.float64


def test_scope_handles_are_live_and_missing_names_are_none():
    scope = S.Scope()
    tensor = scope.var("w").get_tensor()
    assert scope.find_var("nope") is None
    assert not tensor._is_initialized()
    with pytest.raises(PyirError, match="'w' is not initialized"):
        np.array(tensor)
    scope["w"] = np.ones(2)
    np.testing.assert_array_equal(np.array(tensor), np.ones(2))  # the earlier handle sees it
    scope.erase(["w"])
    assert scope.find_var("w") is None


def test_scope_variables_hold_plain_numbers():
    scope = S.Scope()
    scope.var("n").set_int(7)
    scope.var("f").set_float(0.25)
    assert scope.find_var("n").get_int() == 7 and scope.find_var("f").get_float() == 0.25
    assert np.array(scope.find_var("n").get_tensor()).dtype == np.int64
    with pytest.raises(PyirError, match="not initialized"):
        scope.var("empty").get_float()


def test_child_scopes_see_their_parents():
    parent = S.Scope()
    parent.var("a").set(np.float32(1.5))
    kid = parent.new_scope()
    kid.var("b").get_tensor().set(np.zeros(2, "int64"))
    assert np.array(kid.find_var("a").get_tensor()) == np.float32(1.5)
    assert kid.find_local_var("a") is None and parent.find_var("b") is None
    assert parent.kids == [kid]
    parent.drop_kids()
    assert parent.kids == []


def test_tensor_lod_is_refused_unless_empty():
    tensor = core.LoDTensor()
    tensor.set(np.ones((3, 2), "float32"), core.CPUPlace())
    tensor.set_lod([[]])
    assert tensor.lod() == [] and len(tensor) == 3
    with pytest.raises(PyirError, match="LoD is not supported"):
        tensor.set_lod([[0, 1, 3]])


def build_affine():
    main, start = S.Program(), S.Program()
    with S.program_guard(main, start):
        x = S.data("x", [-1, 2])
        w = S.create_parameter([2, 2], "float32",
                               default_initializer=pyir.fluid.initializer.Constant(2.0))
        y = pyir.matmul(x, w)
    return main, start, x, w, y


def test_executor_runs_in_the_given_scope():
    main, start, x, w, y = build_affine()
    exe = S.Executor(pyir.CPUPlace())
    mine = core.Scope()
    with S.scope_guard(mine):
        exe.run(start)
        assert S.global_scope() is mine
    assert S.global_scope().find_var(w.name) is None
    np.testing.assert_array_equal(np.array(mine.find_var(w.name).get_tensor()),
                                  np.full((2, 2), 2.0))
    mine.find_var(w.name).get_tensor().set(np.eye(2, dtype="float32"), pyir.CPUPlace())
    feed = {"x": np.array([[1.0, 2.0]], "float32")}
    (by_var,) = exe.run(main, feed=feed, fetch_list=[y], scope=mine)
    (by_name,) = exe.run(main, feed=feed, fetch_list=[y.name], scope=mine,
                         return_numpy=False)
    np.testing.assert_array_equal(by_var, [[1.0, 2.0]])
    np.testing.assert_array_equal(np.array(by_name), [[1.0, 2.0]])
    np.testing.assert_array_equal(by_name.numpy(), [[1.0, 2.0]])


def test_compiled_program_runs_the_same_program():
    main, start, x, w, y = build_affine()
    strategy = S.BuildStrategy()
    strategy.fuse_all_optimizer_ops = True
    exec_strategy = S.ExecutionStrategy(num_threads=4)
    compiled = S.CompiledProgram(main, build_strategy=strategy).with_data_parallel(
        loss_name=y.name, exec_strategy=exec_strategy)
    assert strategy.fuse_all_optimizer_ops and exec_strategy.num_threads == 4
    exe = S.Executor()
    exe.run(S.CompiledProgram(start))
    (got,) = exe.run(compiled, feed={"x": np.ones((3, 2), "float32")}, fetch_list=[y])
    np.testing.assert_array_equal(got, np.full((3, 2), 4.0))
    assert compiled.global_block() is main.global_block()
    with pytest.raises(PyirError, match="expects a Program"):
        S.CompiledProgram("graph")


# --- building helpers -----------------------------------------------------------------------
def test_name_scope_tags_ops_like_paddle():
    main = S.Program()
    with S.program_guard(main, S.Program()):
        x = S.data("x", [-1, 4])
        with S.name_scope("a"):
            y = x * 2
            with S.name_scope("b"):
                z = y + 1
        with S.name_scope("a"):
            z - 1
        z * 3
    # Paddle 3.3.1 wrote "/a/", "/a/b/", "/a_1/" and "/" for these four scale ops.
    assert [op.attrs["op_namescope"] for op in main.global_block().ops] == \
        ["/a/", "/a/b/", "/a_1/", "/"]


def test_create_global_var_fills_in_the_startup_program():
    main, start = S.Program(), S.Program()
    with S.program_guard(main, start):
        g = S.create_global_var([2, 3], 1.5, "float32", persistable=True)
        step = S.create_global_var([1], 7, "int64", name="step")
    # Paddle 3.3.1: `_generated_var_0` (persistable) and `step` (persistable only in the
    # startup program), both stop_gradient, each filled by fill_constant.
    assert g.name == "_generated_var_0" and g.persistable and g.stop_gradient
    assert not step.persistable and start.global_block().var("step").persistable
    assert [(op.type, op.attrs["dtype"], op.attrs["value"]) for op in
            start.global_block().ops] == [("fill_constant", 5, 1.5), ("fill_constant", 3, 7.0)]
    exe = S.Executor()
    exe.run(start)
    np.testing.assert_array_equal(np.array(S.global_scope().find_var("step").get_tensor()),
                                  np.array([7], "int64"))
    with pytest.raises(BuildError, match="already exists"):
        with S.program_guard(main, start):
            S.create_global_var([1], 0, "int64", name="step")
    with pytest.raises(BuildError, match="fully known"):
        S.create_global_var([-1, 2], 0, "float32")


def test_create_parameter_refusals():
    with pytest.raises(BuildError, match="list of ints"):
        S.create_parameter("3", "float32")
    with pytest.raises(BuildError, match="attr=False"):
        S.create_parameter([3], "float32", attr=False)


def test_data_defaults_to_float32_and_refuses_duplicates():
    x = S.data("x", [None, 3])
    assert x.dtype == np.float32 and x.shape == (-1, 3) and x.stop_gradient
    with pytest.raises(BuildError, match="already declared"):
        S.data("x", [3])


def test_print_passes_values_through_and_prints_both_phases(capsys):
    main = S.Program()
    with S.program_guard(main, S.Program()):
        x = S.data("x", [-1, 4])
        x.stop_gradient = False
        shown = S.Print(x, message="hi", summarize=3)
        loss = pyir.mean(shown)
        S.append_backward(loss)
    value = np.array([[1, 2, 3, 4], [4, 3, 2, 1], [1, 5, 2, 2]], "float32")
    out, grad = S.Executor().run(main, feed={"x": value}, fetch_list=[shown, "x@GRAD"])
    np.testing.assert_array_equal(out, value)
    np.testing.assert_allclose(grad, np.full((3, 4), 1 / 12), rtol=1e-6)
    text = capsys.readouterr().out
    # Paddle 3.3.1 printed these lines for the same program.
    assert "Variable: x\n  - message: hi\n" in text
    assert "  - shape: [3, 4]\n" in text and "  - dtype: float32\n" in text
    assert "  - data: [1.000000 2.000000 3.000000]" in text
    assert "  - data: [0.083333 0.083333 0.083333]" in text
    grad_op = main.global_block().ops[-1]
    assert (grad_op.type, grad_op.attrs["is_forward"]) == ("print", False)


def test_print_phase_and_first_n(capsys):
    main = S.Program()
    with S.program_guard(main, S.Program()):
        x = S.data("x", [2])
        S.Print(x, first_n=1, message="once", print_phase="forward")
        S.Print(x, message="never", print_phase="backward")
    exe = S.Executor()
    for _ in range(3):
        exe.run(main, feed={"x": np.zeros(2, "float32")})
    text = capsys.readouterr().out
    assert text.count("message: once") == 1 and "never" not in text
    with pytest.raises(BuildError, match="print_phase"):
        with S.program_guard(main, S.Program()):
            S.Print(x, print_phase="sideways")


def test_accuracy_matches_paddle_and_numpy():
    main = S.Program()
    with S.program_guard(main, S.Program()):
        x = S.data("x", [-1, 4])
        label = S.data("label", [-1, 1], "int64")
        acc = S.accuracy(x, label, k=2)
    block = main.global_block()
    assert [op.type for op in block.ops] == ["top_k_v2", "accuracy"]
    assert block.ops[0].attrs["k"] == 2 and block.ops[0].attrs["sorted"] is False
    scores = np.array([[1, 2, 3, 4], [4, 3, 2, 1], [1, 5, 2, 2]], "float32")
    labels = np.array([[2], [2], [0]], "int64")
    got, correct, total = S.Executor().run(
        main, feed={"x": scores, "label": labels},
        fetch_list=[acc, "accuracy_0.tmp_3", "accuracy_0.tmp_4"])
    # Paddle 3.3.1 gave 0.33333334 (float32), 1 and 3 (int32) for these inputs.
    assert got.dtype == np.float32 and got == np.float32(1 / 3)
    assert correct.dtype == np.int32 and (int(correct), int(total)) == (1, 3)
    top2 = np.argsort(-scores, axis=1)[:, :2]
    assert got == np.float32(np.mean([labels[i, 0] in top2[i] for i in range(3)]))
    with pytest.raises(BuildError, match="positive int"):
        with S.program_guard(main, S.Program()):
            S.accuracy(x, label, k=0)


def test_places_and_left_out_names():
    assert S.cpu_places(2) == [pyir.CPUPlace(), pyir.CPUPlace()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "runs on the CPU", once per process
        assert len(S.xpu_places([0, 1])) == 2
    for name, reason in [("IpuStrategy", "IPU"), ("ctr_metric_bundle", "distributed"),
                         ("WeightNormParamAttr", "weight normalization")]:
        with pytest.raises(UnsupportedError, match=reason):
            getattr(S, name)()
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        S.nothing  # noqa: B018
    assert S.InputSpec is InputSpec
