"""The checker, and the one-line errors the CLI gives for broken files (issue 2, point 7)."""

import pathlib

import pytest

from pyir.checker import check_program
from pyir.errors import CheckError
from pyir.framework import Program
from pyir.registry import AttrType

from conftest import GOLDEN, assert_one_line_error, cli


def _program(*ops, declare=("x", "y")) -> Program:
    program = Program()
    block = program.global_block()
    for name in declare:
        block.create_var(name, "float32", [2, 3])
    for op_type, inputs, outputs, attrs in ops:
        block.append_op(op_type, inputs, outputs, attrs,
                        {k: AttrType.INT if isinstance(v, int) else AttrType.STRING
                         for k, v in attrs.items()})
    return program


def _write(tmp_path, program, name="broken.pb") -> pathlib.Path:
    path = tmp_path / name
    path.write_bytes(program.serialize_to_string())
    return path


def test_valid_program_has_no_problems():
    assert check_program(_program(("tanh", {"X": ["x"]}, {"Out": ["y"]}, {}))) == []


def test_unknown_op_names_block_index_and_type():
    program = _program(("tanh", {"X": ["x"]}, {"Out": ["y"]}, {}),
                       ("frobnicate", {"X": ["y"]}, {"Out": ["x"]}, {}))
    program.source = "m.pb"
    with pytest.raises(CheckError) as e:
        check_program(program)
    w = e.value.where
    assert (w.file, w.block, w.op_index, w.op_type) == ("m.pb", 0, 1, "frobnicate")
    assert "unknown op type 'frobnicate'" in str(e.value)


def test_undeclared_variable_is_named():
    program = _program(("tanh", {"X": ["ghost"]}, {"Out": ["y"]}, {}))
    with pytest.raises(CheckError, match="'ghost' is not declared") as e:
        check_program(program)
    assert (e.value.where.op_index, e.value.where.var) == (0, "ghost")


@pytest.mark.parametrize("op, message", [
    (("tanh", {"X": ["x"], "Bogus": ["x"]}, {"Out": ["y"]}, {}), "no input slot 'Bogus'"),
    (("tanh", {"X": ["x", "y"]}, {"Out": ["y"]}, {}), "takes one variable, got 2"),
    (("elementwise_add", {"X": ["x"]}, {"Out": ["y"]}, {}), "needs input slot 'Y'"),
    (("elementwise_add", {"X": ["x"], "Y": ["x"]}, {"Out": ["y"]}, {"axis": "one"}),
     "'axis' has type STRING, expected INT"),
])
def test_slot_and_attribute_mismatches(op, message):
    with pytest.raises(CheckError, match=message):
        check_program(_program(op))


def test_bad_block_index_and_lenient_mode():
    program = _program(("tanh", {"X": ["x"]}, {"Out": ["y"]}, {}),
                       ("nope", {"X": ["x"]}, {"Out": ["zz"]}, {}))
    op = program.global_block().ops[0]
    op.attrs["sub_block"], op.attr_types["sub_block"] = 3, AttrType.BLOCK
    problems = check_program(program, lenient=True)
    texts = [str(p) for p in problems]
    assert any("refers to block 3" in t for t in texts)
    assert any("'zz' is not declared" in t for t in texts)
    assert any("unknown op type 'nope'" in t for t in texts)


@pytest.mark.parametrize("verb", ["run", "inspect"])
def test_truncated_and_non_protobuf_files(tmp_path, verb):
    cut = tmp_path / "cut.pdmodel"
    cut.write_bytes((GOLDEN / "mlp" / "model.pdmodel").read_bytes()[:700])
    assert_one_line_error(cli(verb, str(cut)), str(cut), "truncated or not protobuf")
    junk = tmp_path / "junk.pb"
    junk.write_bytes(b"\xff\xfe not a protobuf at all \x00\x01")
    assert_one_line_error(cli(verb, str(junk)), str(junk), "not a Paddle/pyir ProgramDesc")
    empty = tmp_path / "empty.pb"
    empty.write_bytes(b"")
    assert_one_line_error(cli(verb, str(empty)), str(empty), "no blocks")


def test_unknown_op_is_one_line_for_run_and_inspect_check(tmp_path):
    path = _write(tmp_path, _program(("tanh", {"X": ["x"]}, {"Out": ["y"]}, {}),
                                     ("frobnicate", {"X": ["y"]}, {"Out": ["x"]}, {})))
    for args in (["run", str(path), "--fetch", "x"], ["inspect", "--check", str(path)]):
        assert_one_line_error(cli(*args), str(path), "block 0", "op #1 frobnicate",
                               "unknown op type")


def test_undeclared_variable_is_one_line(tmp_path):
    path = _write(tmp_path, _program(("tanh", {"X": ["ghost"]}, {"Out": ["y"]}, {})))
    for args in (["run", str(path), "--fetch", "y"], ["inspect", "--check", str(path)]):
        assert_one_line_error(cli(*args), str(path), "block 0", "op #0 tanh", "'ghost'")


def test_missing_model_file_is_one_line(tmp_path):
    assert_one_line_error(cli("inspect", str(tmp_path / "nope.pb")), "nope.pb")


def test_every_paddle_golden_program_passes_the_checker():
    # includes pylayer's backward blocks in a forward-only program, which name x@GRAD
    # variables that only append_backward declares
    files = sorted(p for p in GOLDEN.rglob("*") if p.suffix in (".pdmodel", ".pb")
                   and p.name != "paddle_framework_descriptor.pb")
    from pyir.serialize import load_program

    for path in files:
        assert check_program(load_program(str(path)), lenient=True) == [], path


def test_non_utf8_names_are_a_format_error(tmp_path):
    program = _program(("tanh", {"X": ["x"]}, {"Out": ["y"]}, {}))
    path = tmp_path / "bytes.pb"
    path.write_bytes(program.serialize_to_string().replace(b"tanh", b"\xff\xfeah"))
    for verb in ("run", "inspect"):
        assert_one_line_error(cli(verb, str(path)), str(path),
                               "paddle.framework.proto.OpDesc.type", "not UTF-8")


@pytest.mark.parametrize("edit, message", [
    (lambda p: setattr(p.global_block(), "parent_idx", 0), "block 0 is the root"),
    (lambda p: setattr(p.global_block(), "parent_idx", 7), "block 0 is the root"),
    (lambda p: setattr(p.blocks[1], "parent_idx", 1), "parent_idx 1 is not an earlier block"),
    (lambda p: setattr(p.blocks[1], "parent_idx", 5), "parent_idx 5 is not an earlier block"),
    (lambda p: setattr(p.blocks[1], "idx", 3), "says it is block 3"),
    (lambda p: setattr(p.blocks[1], "forward_block_idx", 9), "forward_block_idx 9"),
])
def test_a_broken_block_tree_is_reported_without_walking_it(edit, message):
    program = _program(("tanh", {"X": ["x"]}, {"Out": ["y"]}, {}))
    program.create_block()
    program.rollback()
    program.blocks[1].append_op("tanh", {"X": ["x"]}, {"Out": ["y"]}, {}, {})
    edit(program)
    with pytest.raises(CheckError, match=message):
        check_program(program)
    problems = check_program(program, lenient=True)  # returns: no endless walk up the parents
    assert problems and message in str(problems[0])


@pytest.mark.parametrize("runs", [[(1, 1)], [(1, 2), (2, 1)]])
def test_blocks_that_run_each_other_in_a_cycle_are_refused(runs):
    program = _program()
    for _ in range(2):
        program.create_block()
        program.rollback()
    for owner, sub in runs:
        block = program.blocks[owner]
        block.create_var("z", "float32", [2, 3])
        block.append_op("pylayer", {"Input": ["x"]}, {"Out": ["z"], "Scope": []},
                        {"blocks": [sub]}, {"blocks": AttrType.BLOCKS})
    with pytest.raises(CheckError, match="blocks run each other in a cycle"):
        check_program(program)
    assert check_program(program, lenient=True)  # reported, not looped on


@pytest.mark.parametrize("verb", ["inspect", "run"])
def test_a_self_parented_block_ends_with_one_line_not_a_hang(tmp_path, verb):
    program = _program(("tanh", {"X": ["x"]}, {"Out": ["y"]}, {}))
    program.global_block().parent_idx = 0
    path = _write(tmp_path, program)
    args = [verb, str(path)] + (["--check"] if verb == "inspect" else ["--feed",
                                                                        "x=missing.npy"])
    assert_one_line_error(cli(*args), "block 0 is the root")


@pytest.mark.parametrize("label", [10, 99, -3])
def test_an_out_of_range_label_is_an_error_not_a_zero_loss(label):
    import numpy as np

    import pyir
    from pyir.errors import KernelError

    from pyir import framework

    framework.static_mode[0] = False  # eager, whatever earlier tests left
    logits = pyir.to_tensor(np.zeros((2, 10), "float32"))
    labels = pyir.to_tensor(np.array([[1], [label]], "int64"))
    with pytest.raises(KernelError, match=f"label {label} is out of range for 10 classes"):
        pyir.nn.functional.cross_entropy(logits, labels)
    ignored = pyir.nn.functional.cross_entropy(
        logits, pyir.to_tensor(np.array([[1], [-100]], "int64")), reduction="none")
    np.testing.assert_allclose(ignored.numpy().ravel(), [np.log(10.0), 0.0], rtol=1e-6)


def test_inspect_check_refuses_what_run_would_refuse_without_importing(tmp_path):
    program = _program(("py_func", {"X": ["x"]}, {"Out": ["y"]},
                        {"forward_callable": "os:system", "backward_callable": ""}))
    path = _write(tmp_path, program)
    result = cli("inspect", str(path), "--check")
    assert_one_line_error(result, "'os' is part of the Python standard library")
    listed = cli("inspect", str(path))
    assert listed.exit_code == 0 and "problems (1):" in listed.output
