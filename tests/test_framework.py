"""The IR objects: programs, blocks, variables, names, clone, round trip of flags."""

import numpy as np
import pytest

import pyir
from pyir import framework
from pyir.errors import BuildError
from pyir.framework import Program, program_guard, unique_name


def test_program_guard_switches_and_restores_default_programs():
    main, startup = Program(), Program()
    before = framework.default_main_program()
    with program_guard(main, startup):
        assert framework.default_main_program() is main
        assert framework.default_startup_program() is startup
        pyir.static.data("x", [2, 3])
    assert framework.default_main_program() is before
    assert "x" in main.global_block().vars and "x" not in before.global_block().vars


def test_program_guard_rejects_non_programs():
    with pytest.raises(BuildError, match="expects a Program"):
        with program_guard("main"):
            pass


def test_unique_names_count_per_key_and_guard_restarts_them():
    assert unique_name.generate("fc") == "fc_0"
    assert unique_name.generate("fc") == "fc_1"
    assert unique_name.generate("conv2d") == "conv2d_0"
    with unique_name.guard():
        assert unique_name.generate("fc") == "fc_0"
    assert unique_name.generate("fc") == "fc_2"


def test_fc_creates_paddle_named_parameters_in_main_and_startup():
    x = pyir.static.data("x", [-1, 4])
    pyir.static.nn.fc(x, size=3)
    main, startup = framework.default_main_program(), framework.default_startup_program()
    assert [p.name for p in main.all_parameters()] == ["fc_0.w_0", "fc_0.b_0"]
    assert main.global_block().var("fc_0.w_0").shape == (4, 3)
    assert [op.type for op in startup.global_block().ops] == ["uniform_random", "fill_constant"]
    assert [op.type for op in main.global_block().ops] == ["mul", "elementwise_add"]


def test_block_var_searches_ancestors_and_names_missing_variable():
    program = Program()
    program.global_block().create_var("outer", "float32", [2])
    with program.sub_block() as sub:
        assert sub.parent_idx == 0
        assert sub.var("outer").name == "outer"
        with pytest.raises(BuildError, match="no variable 'nope' in block 1"):
            sub.var("nope")
    assert program.current_block_idx == 0


def test_variable_flags_default_false_and_only_set_ones_are_written():
    program = Program()
    var = program.global_block().create_var("v", "float32", [2], persistable=False)
    assert var.need_check_feed is False and var.is_parameter is False
    data = program.serialize_to_string()
    parsed = Program.parse_from_string(data)
    assert parsed.global_block().var("v")._flags == {"persistable": False, "stop_gradient": False}


def test_clone_for_test_sets_is_test_and_keeps_parameters():
    x = pyir.static.data("x", [-1, 4])
    pyir.static.nn.fc(x, size=3)
    main = framework.default_main_program()
    main.global_block().ops[0].attrs["is_test"] = False
    copy = main.clone(for_test=True)
    assert copy.global_block().ops[0].attrs["is_test"] is True
    assert main.global_block().ops[0].attrs["is_test"] is False
    assert [p.name for p in copy.all_parameters()] == ["fc_0.w_0", "fc_0.b_0"]
    assert main.clone().serialize_to_string() == main.serialize_to_string()


def test_shape_none_means_unknown_dim():
    x = pyir.static.data("x", [None, 5], "float64")
    assert x.shape == (-1, 5) and x.dtype == np.float64 and x.stop_gradient
