"""`pyir inspect` on every Paddle golden file, and `pyir ops` from the registry."""

import json
import pathlib
import sys

import pytest
from click.testing import CliRunner

from pyir import registry
from pyir.cli.main import main
from pyir.framework import Program
from pyir.registry import AttrType
from pyir.serialize import load_program

GOLDEN = pathlib.Path(__file__).resolve().parent / "paddle_golden"
FILES = sorted(p for p in GOLDEN.rglob("*") if p.suffix in (".pdmodel", ".pb")
               and p.name != "paddle_framework_descriptor.pb")


def _cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(GOLDEN).as_posix())
def test_inspect_reads_every_paddle_file_in_every_format(path):
    program = load_program(str(path))
    text = _cli("inspect", path)
    assert text.exit_code == 0, text.output
    for block in program.blocks:
        assert f"block {block.idx} (parent {block.parent_idx}" in text.stdout
    for op_type in {op.type for b in program.blocks for op in b.ops}:
        assert f"= {op_type}(" in text.stdout
    data = json.loads(_cli("inspect", path, "--format", "json").stdout)
    assert [len(b["ops"]) for b in data["blocks"]] == [len(b.ops) for b in program.blocks]
    dot = _cli("inspect", path, "--format", "dot")
    assert dot.exit_code == 0 and dot.stdout.startswith("digraph")


def test_unknown_ops_are_marked_not_fatal(tmp_path):
    program = Program()
    block = program.global_block()
    block.create_var("x", "float32", [2])
    block.append_op("frobnicate", {"X": ["x"]}, {"Out": ["x"]})
    path = tmp_path / "u.pb"
    path.write_bytes(program.serialize_to_string())
    text = _cli("inspect", path)
    assert text.exit_code == 0
    assert "frobnicate(X=[x])  # unknown op" in text.stdout
    assert "problems (1):" in text.stdout and "op #0 frobnicate" in text.stdout
    data = json.loads(_cli("inspect", path, "--format", "json").stdout)
    assert data["blocks"][0]["ops"][0]["known"] is False and len(data["problems"]) == 1
    assert "salmon" in _cli("inspect", path, "--format", "dot").stdout


def test_block_option_selects_one_block():
    path = GOLDEN / "pylayer_grad" / "model_with_grad.pb"
    out = _cli("inspect", path, "--block", 2).stdout
    assert "block 2 (parent 0" in out and "block 0 (parent" not in out
    data = json.loads(_cli("inspect", path, "--block", 3, "--format", "json").stdout)
    assert [b["idx"] for b in data["blocks"]] == [3]
    bad = _cli("inspect", path, "--block", 9)
    assert bad.exit_code == 1 and "--block 9: the program has blocks 0..4" in bad.stderr


def test_paddle_py_func_callables_are_listed():
    out = _cli("inspect", GOLDEN / "simple_net" / "model_forward.pb").stdout
    listed = out.split("callables (never imported by inspect):\n")[1]
    assert "block 0 op #2 py_func: forward = '<paddle callable id 0>'" in listed
    assert "block 0 op #2 py_func: backward = '<paddle callable id 1>'" in listed
    # the debug py_func has no backward (id -1): nothing listed for it
    assert "block 0 op #3 py_func: forward = '<paddle callable id 2>'" in listed
    assert "op #3 py_func: backward" not in listed


def test_string_callable_references_are_listed_not_imported(tmp_path):
    program = Program()
    block = program.global_block()
    block.create_var("x", "float32", [2])
    block.append_op("py_func", {"X": ["x"]}, {"Out": ["x"]},
                    {"forward_callable": "pyir_inspect_untrusted_mod:run",
                     "backward_callable": "os:system"},
                    {"forward_callable": AttrType.STRING, "backward_callable": AttrType.STRING})
    path = tmp_path / "c.pb"
    path.write_bytes(program.serialize_to_string())
    text = _cli("inspect", path)
    data = json.loads(_cli("inspect", path, "--format", "json").stdout)
    assert "pyir_inspect_untrusted_mod" not in sys.modules
    refs = {r["reference"] for r in data["callables"]}
    assert {"pyir_inspect_untrusted_mod:run", "os:system"} <= refs
    assert "block 0 op #0 py_func: backward = 'os:system'" in text.stdout


def test_ops_lists_every_forward_op_with_attributes():
    out = _cli("ops")
    assert out.exit_code == 0
    listed = [ln.split()[0] for ln in out.stdout.splitlines() if ln and not ln.startswith(" ")]
    forward = sorted(t for t, d in registry.OPS.items() if d.grad_of is None)
    assert listed[:-1] == forward
    mul = _cli("ops", "mul").stdout
    assert "    inputs:  X, Y" in mul and "    attr x_num_col_dims: INT = 1" in mul


def test_ops_json_is_generated_from_the_registry():
    data = json.loads(_cli("ops", "--all", "--format", "json").stdout)
    assert [d["type"] for d in data] == sorted(registry.OPS)
    for entry in data:
        opdef = registry.OPS[entry["type"]]
        assert [s["name"] for s in entry["inputs"]] == [s.name for s in opdef.inputs]
        assert [a["name"] for a in entry["attrs"]] == [a.name for a in opdef.attrs]
        assert [a["type"] for a in entry["attrs"]] == [AttrType.Name(a.type) for a in opdef.attrs]


def test_ops_unknown_name_is_one_line():
    out = _cli("ops", "frobnicate")
    assert out.exit_code == 1 and out.stderr.count("\n") == 1
    assert "unknown op type 'frobnicate'" in out.stderr


def test_help_works():
    for verb in ("inspect", "ops"):
        out = _cli(verb, "--help")
        assert out.exit_code == 0 and "Examples" in out.stdout
