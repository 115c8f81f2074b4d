"""case / switch_case / cond behaviours that Paddle's own unit tests rely on (test_case.py,
test_switch_case.py, test_cond.py): `paddle.tensor.fill_constant`, the
`paddle.static.nn.control_flow` module path, TypeError / ValueError refusals and a persistable
variable computed in the run and read inside a branch. Our own cases, checked with numpy."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import pyir
from pyir import framework
from pyir.control_flow import ControlFlowTypeError, ControlFlowValueError
from pyir.errors import BuildError

nn = pyir.static.nn
fill_constant = pyir.tensor.fill_constant


def _run(main, fetch, feed=None):
    return pyir.static.Executor().run(main, feed=feed or {}, fetch_list=fetch)


def test_fill_constant_values_dtype_and_out():
    main = pyir.static.Program()
    with pyir.static.program_guard(main, pyir.static.Program()):
        a = fill_constant([2, 3], "int32", 7.9)        # the value is cast to the dtype
        b = fill_constant(shape=[], dtype="float64", value=0.25)
        target = main.current_block().create_var(name="t", dtype="float32", shape=[2])
        c = fill_constant([2], "float32", -1.5, out=target)
    assert c is target and a.stop_gradient
    ra, rb, rc = _run(main, [a, b, c])
    np.testing.assert_array_equal(ra, np.full((2, 3), 7, np.int32))
    assert ra.dtype == np.int32 and rb.shape == () and rb.dtype == np.float64
    np.testing.assert_allclose(rc, [-1.5, -1.5])
    assert not hasattr(pyir, "fill_constant")          # not a top-level name, as in Paddle
    with pytest.raises(BuildError, match="tensor value"):
        fill_constant([1], "float32", a)


def test_fill_constant_eager():
    framework.static_mode[0] = False
    t = fill_constant([3], "int64", 4)
    assert isinstance(t, pyir.Tensor) and t.dtype == np.int64
    np.testing.assert_array_equal(t.numpy(), [4, 4, 4])


def test_control_flow_module_path():
    mod = importlib.import_module("pyir.static.nn.control_flow")
    assert mod is pyir.control_flow and nn.control_flow is mod
    assert mod.case is nn.case and mod.switch_case is nn.switch_case


def test_switch_case_refusals_are_type_and_value_errors():
    def f():
        return fill_constant([1], "int32", 1)

    main = pyir.static.Program()
    with pyir.static.program_guard(main, pyir.static.Program()):
        key = fill_constant([1], "int32", 1)
        key_f = fill_constant([1], "float32", 1)
        bad = [dict(branch_index=1, branch_fns=[(1, f)]),
               dict(branch_index=key_f, branch_fns=[(1, f)]),
               dict(branch_index=key, branch_fns=1),
               dict(branch_index=key, branch_fns=[1]),
               dict(branch_index=key, branch_fns=[(1, 2, 3)]),
               dict(branch_index=key, branch_fns=[(2.3, f)]),
               dict(branch_index=key, branch_fns=[(1, 1), (2, f)]),
               dict(branch_index=key, branch_fns=[(1, f)], default=1)]
        for kwargs in bad:
            with pytest.raises(TypeError) as info:
                nn.switch_case(**kwargs)
            assert isinstance(info.value, ControlFlowTypeError), kwargs
        with pytest.raises(ValueError, match="key 2 appears more than once") as info:
            nn.switch_case(key, [(2, f), (2, f)])
        assert isinstance(info.value, ControlFlowValueError)
        assert len(main.global_block().ops) == 2       # nothing was built by the refusals


def test_case_refusals_are_type_errors():
    def f():
        return fill_constant([1], "int32", 1)

    main = pyir.static.Program()
    with pyir.static.program_guard(main, pyir.static.Program()):
        pred = pyir.less_than(fill_constant([1], "float32", 0.1),
                              fill_constant([1], "float32", 0.2))
        for kwargs in (dict(pred_fn_pairs=1), dict(pred_fn_pairs=[1]),
                       dict(pred_fn_pairs=[(1, 2, 3)]), dict(pred_fn_pairs=[(1, f)]),
                       dict(pred_fn_pairs=[(pred, 2)]), dict(pred_fn_pairs=[(pred, f)],
                                                             default=f())):
            with pytest.raises(TypeError):
                nn.case(**kwargs)
        with pytest.raises(ValueError, match="must not be empty"):
            nn.case([])


@pytest.mark.parametrize("index, expected_out, expected_grad", [(1, 3.0, 1.0), (2, 6.0, 2.0),
                                                                 (9, -3.0, -1.0)])
def test_branch_reading_a_persistable_variable_computed_in_the_run(index, expected_out,
                                                                    expected_grad):
    main = pyir.static.Program()
    with pyir.static.program_guard(main, pyir.static.Program()):
        x = pyir.full([], 3.0, "float32")
        x.stop_gradient = False
        x.persistable = True                   # written by fill_constant in main, not startup
        i = pyir.full([], index, "int32")
        out = nn.switch_case(i, [(1, lambda: x), (2, lambda: 2 * x)], default=lambda: -x)
        pyir.static.append_backward(out)
    got, dx = _run(main, [out.name, x.grad_name])
    assert got.shape == () and dx.shape == ()
    np.testing.assert_allclose(got, expected_out)
    np.testing.assert_allclose(dx, expected_grad)
