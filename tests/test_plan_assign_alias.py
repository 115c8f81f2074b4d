"""An `assign` whose input dies at it binds its output to the input's array (codegen
`_write_alias`); a fed value, a scope value or a value still read later is copied."""

from __future__ import annotations

import numpy as np
import pytest

from pyir import framework
from pyir.builder import emit
from pyir.errors import KernelError
from pyir.plan import compile_plan
from pyir.static import Executor, data


def test_an_assign_of_a_dying_intermediate_takes_its_array():
    x = data("x", [3])
    t = emit("tanh", {"X": x})["Out"]
    y = emit("assign", {"X": t})["Out"]
    program = framework.default_main_program()
    plan = compile_plan(program, ("x",), (y.name,))
    assert "op_assign(" in plan.source  # the fallback for an unexpected value stays
    assert f"= v_{t.name.replace('.', '_')}\n" in plan.source  # the alias itself
    feed = np.array([0.5, -1.0, 2.0], np.float32)
    (got,) = Executor().run(program, feed={"x": feed}, fetch_list=[y])
    np.testing.assert_array_equal(got, np.tanh(feed))


def test_a_fed_value_or_one_read_later_is_copied():
    x = data("x", [3])
    y = emit("assign", {"X": x})["Out"]           # fed: the caller keeps its array
    t = emit("exp", {"X": x})["Out"]
    z = emit("assign", {"X": t})["Out"]           # t is fetched too: still read after
    program = framework.default_main_program()
    feed = np.array([0.5, -1.0, 2.0], np.float32)
    got_y, got_t, got_z = Executor().run(program, feed={"x": feed}, fetch_list=[y, t, z])
    assert got_y is not feed and got_z is not got_t
    np.testing.assert_array_equal(got_y, feed)
    np.testing.assert_allclose(got_z, np.exp(feed), rtol=1e-6)
    np.testing.assert_array_equal(got_z, got_t)
    got_z[0] = 7.0
    assert got_t[0] != 7.0


def test_a_value_of_another_dtype_still_fails_as_the_kernel_would():
    x = data("x", [3])
    t = emit("tanh", {"X": x})["Out"]
    y = emit("assign", {"X": t})["Out"]
    y.dtype = np.dtype(np.float64)  # declared otherwise than what the kernel produces
    program = framework.default_main_program()
    program.plan_cache.clear()
    with pytest.raises(KernelError, match="declared float64"):
        Executor().run(program, feed={"x": np.ones(3, np.float32)}, fetch_list=[y])
