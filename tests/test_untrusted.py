"""Untrusted files, round 2 (issue 18): unknown attributes, axes out of range, bfloat16,
bounded reads and memory, one-line errors for damaged feeds and params, callables that name
a __main__ module. Paddle's numbers here come from Paddle 3.3.1 (noted where used)."""

from __future__ import annotations

import struct
import zipfile

import numpy as np
import pytest

import pyir
from pyir._proto import framework_pb2 as pb
from pyir.checker import check_program, known_attrs
from pyir.errors import CheckError, FeedError, FormatError, PyirError
from pyir.files import params as params_mod
from pyir.files.run import memory_limit, parse_size, read_feeds
from pyir.framework import Program
from pyir.registry import AttrType
from pyir.serialize import load_program

from conftest import GOLDEN, ROOT, assert_one_line_error, cli


def _program(*ops, declare=(("x", "float32", [2, 3]), ("y", "float32", [2, 3]))):
    program = Program()
    block = program.global_block()
    for name, dtype, shape in declare:
        block.create_var(name, dtype, shape)
    for op_type, inputs, outputs, attrs, types in ops:
        block.append_op(op_type, inputs, outputs, attrs, types)
    return program


def _write(tmp_path, program, name="m.pb"):
    path = tmp_path / name
    path.write_bytes(program.serialize_to_string())
    return path


# --- attributes -----------------------------------------------------------------------------
def _scale(**attrs):
    types = {k: AttrType.FLOAT if isinstance(v, float) else AttrType.BOOLEAN
             for k, v in attrs.items()}
    return _program(("scale", {"X": ["x"]}, {"Out": ["y"]}, attrs, types))


def test_a_misspelled_attribute_is_refused_not_ignored(tmp_path):
    program = _scale(scale=2.0, bIas=1.0)
    with pytest.raises(CheckError, match="unknown attribute 'bIas'.*op scale"):
        check_program(program)
    path = _write(tmp_path, program)
    np.save(tmp_path / "x.npy", np.ones((2, 3), "float32"))
    for args in (["run", path, "--feed", f"x={tmp_path / 'x.npy'}", "--fetch", "y"],
                 ["inspect", "--check", path]):
        assert_one_line_error(cli(*args), "op #0 scale", "unknown attribute 'bIas'")
    shown = cli("inspect", path)  # without --check: shown, and the problem marked
    assert shown.exit_code == 0
    assert "problems (1):" in shown.output and "unknown attribute 'bIas'" in shown.output
    op_line = next(ln for ln in shown.output.splitlines() if ln.startswith("    #0 "))
    assert "bIas=1.0" in op_line and "<- ! unknown attribute 'bIas'" in op_line


def test_paddle_extra_and_common_attributes_are_known():
    assert {"Scale_x", "use_mkldnn", "mkldnn_data_type"} <= known_attrs("elementwise_add")
    assert {"workspace_size_MB", "exhaustive_search", "use_cudnn"} <= known_attrs("conv2d")
    assert {"op_role", "op_callstack", "with_quant_attr", "op_device"} <= known_attrs("relu")
    # a grad op knows its forward op's attributes (grad makers copy them)
    assert "Scale_x" in known_attrs("elementwise_add_grad")
    assert "vAlue" not in known_attrs("fill_constant")
    assert check_program(_scale(scale=2.0, use_mkldnn=False)) == []


def test_every_golden_file_written_by_paddle_has_only_known_attributes():
    files = [p for d in (ROOT / "tests", GOLDEN.parent.parent.parent / "shared" / "paddle-golden")
             if d.exists() for p in d.rglob("*") if p.suffix in (".pdmodel", ".pb")
             and p.name != "paddle_framework_descriptor.pb" or p.name == "model.json"]
    assert len(files) > 150 and any(p.suffix == ".json" for p in files)
    for path in files:  # Paddle 3's PIR .json programs too, as translated to legacy ops
        problems = [str(e) for e in check_program(load_program(str(path)), lenient=True)
                    if "attribute" in str(e)]
        assert problems == [], path


@pytest.mark.parametrize("axis", [-2**31, 2**31 - 1, 3, -4])
def test_an_axis_outside_the_inputs_rank_is_refused_before_running(axis):
    program = _program(("elementwise_add", {"X": ["x"], "Y": ["x"]}, {"Out": ["y"]},
                        {"axis": axis}, {"axis": AttrType.INT}))
    with pytest.raises(CheckError, match=f"'axis' = {axis} is outside the inputs' "
                                         f"dimensions \\(rank 2\\)"):
        check_program(program)


def test_axes_in_range_pass_including_ones_that_add_a_dimension():
    program = _program(("unsqueeze2", {"X": ["x"]}, {"Out": ["y"]}, {"axes": [0, 3]},
                        {"axes": AttrType.INTS}),
                       declare=(("x", "float32", [2, 3]), ("y", "float32", [1, 2, 3, 1])))
    assert check_program(program) == []


def test_a_missing_required_attribute_is_refused():
    program = _program(("conditional_block", {"Cond": ["x"], "Input": []},
                        {"Out": [], "Scope": []}, {"is_scalar_condition": True},
                        {"is_scalar_condition": AttrType.BOOLEAN}))
    with pytest.raises(CheckError, match="op conditional_block needs attribute 'sub_block'"):
        check_program(program)


def test_a_block_attribute_pointing_at_block_zero_is_refused():
    program = _program(("conditional_block", {"Cond": ["x"], "Input": []},
                        {"Out": [], "Scope": []}, {"sub_block": 0},
                        {"sub_block": AttrType.BLOCK}))
    program.create_block()
    program.rollback()
    with pytest.raises(CheckError, match="'sub_block' refers to block 0"):
        check_program(program)


def test_a_block_that_is_its_own_parent_is_refused():
    program = _program()
    program.create_block()
    program.rollback()
    program.blocks[1].parent_idx = 1
    with pytest.raises(CheckError, match="parent_idx 1 is not an earlier block"):
        check_program(program)


def test_a_feed_op_without_its_variable_is_a_one_line_error(tmp_path):
    program = _program(("feed", {"X": ["feed"]}, {}, {"col": 0}, {"col": AttrType.INT}),
                       declare=(("feed", "float32", [1]),))
    path = _write(tmp_path, program)
    assert_one_line_error(cli("run", path), "op #0 feed", "exactly one output variable")


# --- FLOAT64S attributes ------------------------------------------------------------------
def test_float64s_attributes_keep_their_precision_in_the_float64_field(tmp_path):
    values = [0.1, 1e300, -2.5e-310]
    program = Program()
    block = program.global_block()
    block.create_var("v", "float64", [3])
    block.append_op("assign_value", {}, {"Out": ["v"]},
                    {"shape": [3], "dtype": 6, "fp64_values": values},
                    {"shape": AttrType.INTS, "dtype": AttrType.INT,
                     "fp64_values": AttrType.FLOAT64S})
    data = program.serialize_to_string()
    desc = pb.ProgramDesc.FromString(data)
    attr = {a.name: a for a in desc.blocks[0].ops[0].attrs}["fp64_values"]
    assert attr.type == pb.FLOAT64S and list(attr.float64s) == values and not attr.floats
    path = tmp_path / "v.pb"
    path.write_bytes(data)
    loaded = load_program(str(path))
    assert loaded.global_block().ops[0].attrs["fp64_values"] == values
    got = pyir.static.Executor().run(loaded, fetch_list=["v"])[0]
    assert got.dtype == np.float64 and got.tolist() == values


# --- gradients --------------------------------------------------------------------------------
@pytest.mark.parametrize("fn, dx, dy", [
    # Paddle 3.3.1 (legacy static elementwise_max_grad / elementwise_min_grad, and eager):
    # a tie gives each side half of the gradient
    ("maximum", [0.5, 0.0, 1.0], [0.5, 1.0, 0.0]),
    ("minimum", [0.5, 1.0, 0.0], [0.5, 0.0, 1.0]),
])
def test_max_min_gradients_at_ties_follow_paddle(fn, dx, dy):
    x = pyir.static.data("x", [3], "float32")
    y = pyir.static.data("y", [3], "float32")
    x.stop_gradient = y.stop_gradient = False
    out = getattr(pyir, fn)(x, y)
    gx, gy = pyir.static.gradients([pyir.sum(out)], [x, y])
    ops = [op.type for op in pyir.static.default_main_program().global_block().ops]
    assert f"elementwise_{fn[:3]}_grad" in ops
    got = pyir.static.Executor().run(feed={"x": np.array([1, 2, 3], "float32"),
                                           "y": np.array([1, 5, 0], "float32")},
                                     fetch_list=[gx, gy])
    np.testing.assert_array_equal(got[0], dx)
    np.testing.assert_array_equal(got[1], dy)


def test_no_gradient_leaks_through_an_integer_cast():
    x = pyir.static.data("x", [3], "float32")
    w = pyir.static.data("w", [3], "float32")
    x.stop_gradient = w.stop_gradient = False
    through_int = pyir.cast(pyir.cast(x, "int64"), "float32")
    loss = pyir.mean(through_int * w + x * 0)
    gx, gw = pyir.static.gradients([loss], [x, w])
    ops = [op.type for op in pyir.static.default_main_program().global_block().ops]
    assert ops.count("cast") == 2  # forward casts only: no cast back into x's gradient
    got = pyir.static.Executor().run(feed={"x": np.array([1.5, 2.5, -3.7], "float32"),
                                           "w": np.array([1, 2, 3], "float32")},
                                     fetch_list=[gx, gw])
    np.testing.assert_array_equal(got[0], [0, 0, 0])
    np.testing.assert_allclose(got[1], np.array([1, 2, -3]) / 3, rtol=1e-6)


# --- bfloat16 and float16 -------------------------------------------------------------------
# Paddle 3.3.1: paddle.to_tensor(F32).astype("bfloat16") holds these bits, and casting them
# back to float32 gives BACK (round to nearest even; 65504 rounds up to 65536).
F32 = np.array([1.0, 3.14159, -2.5e-3, 65504.0, 1e-40, 3.3895314e38], np.float32)
BITS = np.array([16256, 16457, 47908, 18304, 1, 32639], np.uint16)
BACK = np.array([1.0, 3.140625, -2.5024414e-03, 65536.0, 9.1835496e-41, 3.3895314e38],
                np.float32)


def _bf16_model(tmp_path, param_code=22):
    """A program whose bfloat16 parameter `w` is cast to float32 (`w32`) and whose float32
    input `x` is cast to bfloat16 (`xb`), with its params file."""
    program = Program()
    block = program.global_block()
    w = block.create_var("w", "bfloat16", [6])
    w.persistable = True
    x = block.create_var("x", "float32", [6])
    x.need_check_feed = True
    block.create_var("w32", "float32", [6])
    block.create_var("xb", "bfloat16", [6])
    for src, dst, a, b in (("w", "w32", 22, 5), ("x", "xb", 5, 22)):
        block.append_op("cast", {"X": [src]}, {"Out": [dst]}, {"in_dtype": a, "out_dtype": b},
                        {"in_dtype": AttrType.INT, "out_dtype": AttrType.INT})
    path = _write(tmp_path, program)
    params_mod.write_params(str(tmp_path / "m.pdiparams"), {"w": params_mod.TensorRecord(
        BITS, code=param_code)})
    return path


def test_a_bfloat16_parameter_and_its_casts_match_paddle(tmp_path):
    path = _bf16_model(tmp_path)
    record = params_mod.read_params(str(tmp_path / "m.pdiparams"), ["w"], records=True)["w"]
    assert record.code == 22 and record.array.dtype == np.uint16
    from pyir.files import run_model

    result = run_model(str(path), {"x": F32}, ["w32", "xb"])
    np.testing.assert_array_equal(result.outputs["w32"], BACK)
    assert result.outputs["xb"].dtype == np.uint16
    np.testing.assert_array_equal(result.outputs["xb"], BITS)


def test_bfloat16_nan_and_overflow_round_like_ieee():
    from pyir import dtypes

    bits = dtypes.cast(np.array([np.nan, -np.inf, 3.4028235e38, -0.0], np.float32), 22)
    back = dtypes.cast(bits, "float32")
    assert np.isnan(back[0]) and back[1] == -np.inf and back[2] == np.inf
    assert bits[3] == 0x8000
    assert dtypes.cast(np.array([1, 300], np.int64), 22).tolist() == [16256, 17302]


def test_arithmetic_on_bfloat16_is_refused_not_computed_on_the_bits(tmp_path):
    program = _program(("elementwise_add", {"X": ["w"], "Y": ["w"]}, {"Out": ["y"]}, {}, {}),
                       declare=(("w", "bfloat16", [6]), ("y", "bfloat16", [6])))
    with pytest.raises(CheckError, match="reads bfloat16 variable 'w'.*cast it to float32"):
        check_program(program)


def test_a_float16_parameter_and_arithmetic_round_per_op(tmp_path):
    program = Program()
    block = program.global_block()
    h = block.create_var("h", "float16", [3])
    h.persistable = True
    block.create_var("hh", "float16", [3])
    block.create_var("h32", "float32", [3])
    block.append_op("elementwise_mul", {"X": ["h"], "Y": ["h"]}, {"Out": ["hh"]}, {}, {})
    block.append_op("cast", {"X": ["hh"]}, {"Out": ["h32"]}, {"in_dtype": 4, "out_dtype": 5},
                    {"in_dtype": AttrType.INT, "out_dtype": AttrType.INT})
    path = _write(tmp_path, program)
    values = np.array([3.14159, 300.0, 1e-3], np.float16)
    params_mod.write_params(str(tmp_path / "m.pdiparams"), {"h": values})
    from pyir.files import run_model

    out = run_model(str(path), {}, ["hh", "h32"]).outputs
    assert out["hh"].dtype == np.float16
    # float16 products rounded once to float16 (300*300 overflows float16's 65504)
    with np.errstate(over="ignore"):
        expect = (values.astype(np.float32) ** 2).astype(np.float16)
    np.testing.assert_array_equal(out["hh"], expect)
    assert out["hh"][1] == np.inf
    np.testing.assert_array_equal(out["h32"], expect.astype(np.float32))


# --- feeds, params and memory ---------------------------------------------------------------
def _npy_header(shape, descr="<f4"):
    import io

    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": descr, "fortran_order": False,
                                               "shape": shape})
    return buf.getvalue()


@pytest.mark.parametrize("content, message", [
    (b"", "is empty, not an .npy array"),
    (b"hello world\n1 2 3\n", "is not an .npy array (it starts with b'hello '"),
    (_npy_header((2**40, 16)) + b"\0" * 64, "header declares a [1099511627776, 16] float32 "
                                            "array (64.0 TiB), but it holds only"),
    (_npy_header((4, 16), "|O") + b"\0" * 64, "holds object data"),
    (b"\x93NUMPY\x01\x00\x10\x00{'descr': (\n  ", "has a damaged .npy header"),
])
def test_a_damaged_npy_feed_is_one_line_without_allocating(tmp_path, content, message):
    (tmp_path / "x.npy").write_bytes(content)
    with pytest.raises(FeedError, match="x.npy") as e:
        read_feeds((str(tmp_path / "x.npy"),), ["x"], "m.pb")
    assert message in str(e.value)


def test_feed_headers_are_checked_against_the_declaration_before_reading(tmp_path):
    np.save(tmp_path / "x.npy", np.ones((4, 8), "float64"))
    declared = {"x": (np.dtype("float32"), (-1, 8))}
    with pytest.raises(FeedError, match="fed float64 data to input 'x', which is declared "
                                        "float32"):
        read_feeds((str(tmp_path / "x.npy"),), ["x"], "m.pb", declared=declared)
    np.save(tmp_path / "x.npy", np.ones((4, 7), "float32"))
    with pytest.raises(FeedError, match=r"fed shape \[4, 7\] to input 'x', which is declared "
                                        r"\[-1, 8\]"):
        read_feeds((str(tmp_path / "x.npy"),), ["x"], "m.pb", declared=declared)


def test_a_non_zip_npz_feed_or_params_file_is_one_line(tmp_path):
    (tmp_path / "t.npz").write_text("not a zip")
    with pytest.raises(FeedError, match="t.npz: cannot read it as .npz"):
        read_feeds((str(tmp_path / "t.npz"),), ["x"], "m.pb")
    with pytest.raises(FormatError, match="cannot read it as .npz"):
        params_mod.read_params(str(tmp_path / "t.npz"), ["a"])
    np.save(tmp_path / "a.npy", np.ones(2))
    (tmp_path / "a.npy").rename(tmp_path / "a.npz")
    with pytest.raises(FormatError, match="is an .npy array, not an .npz"):
        params_mod.read_params(str(tmp_path / "a.npz"), ["a"])


def test_a_garbage_npz_member_names_that_member(tmp_path):
    with zipfile.ZipFile(tmp_path / "f.npz", "w") as z:
        z.writestr("x.npy", b"garbage, not an array")
        z.writestr("y.npy", (lambda b: b)(_npy_header((2,)) + b"\0" * 8))
    with pytest.raises(FeedError, match="member 'x'.*not an .npy array"):
        read_feeds((str(tmp_path / "f.npz"),), ["x", "y"], "m.pb")


def _record(dims, version=0, desc_version=0, code=5, body=b""):
    desc = pb.VarType.TensorDesc(data_type=code, dims=dims).SerializeToString()
    return (struct.pack("<I", version) + struct.pack("<Q", 0) + struct.pack("<I", desc_version)
            + struct.pack("<i", len(desc)) + desc + body)


@pytest.mark.parametrize("record, message", [
    (_record([2, 2], version=1, body=b"\0" * 16), "unsupported dense-tensor version 1"),
    (_record([2, 2], desc_version=7, body=b"\0" * 16), "unsupported tensor version 7"),
    (_record([-1, 2], body=b"\0" * 16), "tensor has unknown dims [-1, 2]"),
    (_record([2**62, 2**62]), "more than int64 counts"),
    (_record([2**40, 16]), "needs 70368744177664 bytes"),
    (struct.pack("<IQQ", 0, 1, 5) + b"\0" * 5, "size must be a multiple of 8"),
])
def test_a_damaged_params_record_is_refused(record, message):
    with pytest.raises(FormatError) as e:
        params_mod.decode_params(record, ["w"], "p.pdiparams")
    assert message in str(e.value) and "p.pdiparams" in str(e.value)


def test_max_memory_turns_a_huge_allocation_into_one_line(tmp_path):
    program = Program()
    block = program.global_block()
    block.create_var("y", "float32", [2**16, 2**16])
    block.append_op("fill_constant", {}, {"Out": ["y"]},
                    {"shape": [2**16, 2**16], "dtype": 5, "value": 1.0},
                    {"shape": AttrType.LONGS, "dtype": AttrType.INT, "value": AttrType.FLOAT})
    path = _write(tmp_path, program)
    result = cli("run", path, "--fetch", "y", "-q", "--max-memory", "256M")
    assert_one_line_error(result, "op #0 fill_constant", "out of memory",
                          "--max-memory 256 MiB")


def test_max_memory_refuses_a_feed_larger_than_the_limit(tmp_path):
    np.save(tmp_path / "x.npy", np.zeros((2**18, 8), "float32"))  # 8 MiB
    with memory_limit(2**20), pytest.raises(FeedError, match="more than --max-memory"):
        read_feeds((str(tmp_path / "x.npy"),), ["x"], "m.pb")


@pytest.mark.parametrize("text, value", [("512M", 512 * 2**20), ("2G", 2 * 2**30),
                                         ("1.5GiB", 3 * 2**29), ("1048576", 2**20)])
def test_parse_size(text, value):
    assert parse_size(text) == value


@pytest.mark.parametrize("text", ["zz", "1k", "-5G", ""])
def test_parse_size_refuses_nonsense(text):
    with pytest.raises(PyirError, match="--max-memory"):
        parse_size(text)


# --- callables ------------------------------------------------------------------------------
@pytest.mark.parametrize("reference", ["numpy.f2py.__main__:main", "__main__:f",
                                       "pkg.__main__:x"])
def test_a_main_module_reference_is_refused_by_inspect_check_and_run(tmp_path, reference):
    program = _program(("py_func", {"X": ["x"]}, {"Out": ["y"]},
                        {"forward_callable": reference, "backward_callable": ""},
                        {"forward_callable": AttrType.STRING,
                         "backward_callable": AttrType.STRING}))
    program.global_block().var("x").need_check_feed = True
    path = _write(tmp_path, program)
    assert_one_line_error(cli("inspect", "--check", path), "is a __main__ module")
    np.save(tmp_path / "x.npy", np.ones((2, 3), "float32"))
    import sys

    before = set(sys.modules)
    assert_one_line_error(cli("run", path, "--feed", f"x={tmp_path / 'x.npy'}", "--fetch", "y"),
                          "is a __main__ module")
    assert "numpy.f2py.__main__" not in set(sys.modules) - before


def test_a_callable_attribute_of_the_wrong_type_is_listed_and_refused(tmp_path):
    program = _program(("py_func", {"X": ["x"]}, {"Out": ["y"]},
                        {"forward_callable": "m:f", "backward_callable": ""},
                        {"forward_callable": AttrType.STRING,
                         "backward_callable": AttrType.STRING}))
    desc = pb.ProgramDesc.FromString(program.serialize_to_string())
    attr = {a.name: a for a in desc.blocks[0].ops[0].attrs}["forward_callable"]
    attr.type, attr.i = pb.INT, 7  # a damaged (or hostile) file
    path = tmp_path / "m.pb"
    path.write_bytes(desc.SerializeToString())
    shown = cli("inspect", path)
    assert shown.exit_code == 0 and "<int 7, not a reference>" in shown.output
    assert_one_line_error(cli("inspect", "--check", path), "py_func")


# --- writes ---------------------------------------------------------------------------------
def test_a_program_saved_without_params_takes_the_stale_sidecar_with_it(tmp_path):
    from pyir.files.model import save_training_program

    x = pyir.static.data("x", [2], "float32")
    y = pyir.tanh(x)
    (tmp_path / "g.pdiparams").write_bytes(b"params of an earlier g.pb")
    save_training_program(str(tmp_path / "g.pb"), pyir.static.default_main_program(), ["x"],
                          [y.name], None)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.pb"]


def test_the_paddle_attribute_table_names_only_ops_pyir_has():
    from pyir.op_attrs_paddle import PADDLE_ATTRS
    from pyir.op_index import OP_MODULES

    assert set(PADDLE_ATTRS) <= set(OP_MODULES)
    assert len(PADDLE_ATTRS) > 300  # regenerate with tools/gen_extra_attrs.py after adding ops


@pytest.mark.parametrize("case", ["empty.npy", "text.npy", "rows.npy", "zip.npz", "npy.npz",
                                  "params", "huge-decl"])
def test_the_cases_that_were_internal_errors_are_one_line_user_errors(tmp_path, case):
    x = pyir.static.data("x", [-1, 3], "float32")
    y = pyir.static.nn.fc(x, 2)
    exe = pyir.static.Executor()
    exe.run(pyir.static.default_startup_program())
    model = str(tmp_path / "m.pb")
    from pyir.files import save_model

    save_model(model, pyir.static.default_main_program(), ["x"], [y.name])
    feed = tmp_path / case
    expect = {"empty.npy": "is empty", "text.npy": "is not an .npy array",
              "rows.npy": "header declares", "zip.npz": "cannot read it as .npz",
              "npy.npz": "is an .npy array, not an .npz", "params": "more than int64 counts",
              "huge-decl": "which is declared [-1, 1099511627776]"}[case]
    if case == "empty.npy":
        feed.write_bytes(b"")
    elif case == "text.npy":
        feed.write_text("1 2 3\n")
    elif case == "rows.npy":
        feed.write_bytes(_npy_header((2**40, 3)) + b"\0" * 12)
    elif case == "zip.npz":
        feed.write_text("not a zip")
    elif case == "npy.npz":
        feed.write_bytes(_npy_header((1, 3)) + b"\0" * 12)
    else:
        feed = tmp_path / "x.npy"
        np.save(feed, np.ones((1, 3), "float32"))
        if case == "params":
            sidecar = tmp_path / "m.pdiparams"
            sidecar.write_bytes(_record([2**62, 2**62]) + sidecar.read_bytes())
        else:
            desc = pb.ProgramDesc.FromString((tmp_path / "m.pb").read_bytes())
            for var in desc.blocks[0].vars:
                if var.name == "x":
                    var.type.dense_tensor.tensor.dims[:] = [-1, 2**40]
            (tmp_path / "m.pb").write_bytes(desc.SerializeToString())
    assert_one_line_error(cli("run", model, "--feed", feed), expect)


def test_a_pir_json_op_with_damaged_regions_is_a_format_error(tmp_path):
    import json

    tree = json.loads((ROOT / "tests" / "golden_pir" / "control_flow" / "model.json").read_text())
    ops = tree["program"]["regions"][0]["blocks"][0]["ops"]
    looping = next(op for op in ops if op.get("regions"))
    looping["regions"] = None  # found by tools/fuzz.py (seed 1, case 4510)
    path = tmp_path / "m.json"
    path.write_text(json.dumps(tree))
    with pytest.raises(FormatError, match="malformed operation"):
        load_program(str(path))


@pytest.mark.parametrize("damage, message", [
    (lambda d: d.blocks[0].ops[0].attrs[0].ClearField("type"),
     "an op of type 'scale' lacks the required field attrs[0].type"),
    (lambda d: d.blocks[0].vars[0].type.ClearField("type"),
     "the type of variable 'x' lacks the required field type"),
    (lambda d: d.blocks[0].vars[0].ClearField("type"),  # upb will not even encode this one
     "the type of variable 'x' lacks the required field type"),
])
def test_a_missing_required_proto_field_is_a_format_error(tmp_path, damage, message):
    """Found by tools/fuzz.py: such a message was an EncodeError (an internal error) once
    parsing started caching by the message's bytes; an attribute without its type must not
    read as INT 0 either."""
    desc = pb.ProgramDesc.FromString(_scale(scale=2.0).serialize_to_string())
    damage(desc)
    path = tmp_path / "m.pb"
    path.write_bytes(desc.SerializePartialToString())
    assert_one_line_error(cli("inspect", path), "m.pb", message)
