"""Combined `.pdiparams` files (docs/wire-format.md §1) and `.npz` parameters."""

import json
import pathlib
import struct

import numpy as np
import pytest

from pyir.files import params
from pyir.errors import FormatError, PyirError

GOLDEN = pathlib.Path(__file__).resolve().parent / "paddle_golden"


def _golden_names(case):
    meta = json.loads((GOLDEN / case / "meta.json").read_text())
    return sorted(meta["persistable_vars"])


@pytest.mark.parametrize("case", ["mlp", "lenet"])
def test_golden_pdiparams_round_trips_byte_for_byte(case, tmp_path):
    path = GOLDEN / case / "model.pdiparams"
    names = _golden_names(case)
    recs = params.read_params(str(path), names, records=True)
    out = tmp_path / "p.pdiparams"
    params.write_params(str(out), recs)
    assert out.read_bytes() == path.read_bytes()
    # plain arrays (no record metadata) give the same bytes too
    arrays = params.read_params(str(path), names)
    assert params.encode_params(arrays) == path.read_bytes()


def test_golden_values_match_paddles_npz():
    names = _golden_names("mlp_grad")
    got = params.read_params(str(GOLDEN / "mlp_grad" / "model.pdiparams"), names)
    with np.load(GOLDEN / "mlp_grad" / "params.npz") as ref:
        assert sorted(ref.files) == names
        for n in names:
            assert got[n].dtype == ref[n].dtype and got[n].shape == ref[n].shape
            np.testing.assert_array_equal(got[n], ref[n])


def test_first_record_layout_matches_wire_format():
    data = params.encode_record(np.zeros(32, np.float32))
    head = bytes.fromhex("00000000" "0000000000000000" "00000000" "04000000" "08051020")
    assert data[:len(head)] == head and len(data) == len(head) + 128


def test_two_level_lod_example():
    rec = params.TensorRecord(np.arange(10, dtype=np.float32).reshape(5, 2),
                              lod=[[0, 1, 3], [0, 2, 3, 5]])
    data = params.encode_record(rec)
    u64 = lambda *v: struct.pack(f"<{len(v)}Q", *v)  # noqa: E731
    expect = (b"\0\0\0\0" + u64(2) + u64(24) + u64(0, 1, 3) + u64(32) + u64(0, 2, 3, 5)
              + b"\0\0\0\0" + struct.pack("<i", 6) + bytes.fromhex("080510051002")
              + rec.array.tobytes())
    assert data == expect
    back = params.decode_params(data, ["t"])["t"]
    assert back.lod == [[0, 1, 3], [0, 2, 3, 5]]
    np.testing.assert_array_equal(back.array, rec.array)


def test_dtypes_zero_d_and_empty_round_trip(tmp_path):
    tensors = {
        "zeta": np.array([1.5, -2.0], np.float64),
        "scalar0d": np.array(3.25, np.float32),
        "empty": np.zeros((0, 3), np.float32),
        "bf": np.array([0x3F80, 0xC000], np.uint16),
        "c64": np.array([1 + 2j], np.complex64),
        "a_b": np.array([True, False]),
        "a0": np.array([-7, 8], np.int64),
        "B_upper": np.array([[1, 2]], np.int32),
        "a.b": np.array([250, 3], np.uint8),
        "Z": np.array([-3], np.int8),
    }
    path = tmp_path / "all.pdiparams"
    params.write_params(str(path), tensors)
    names = sorted(tensors)
    assert names[:4] == ["B_upper", "Z", "a.b", "a0"]
    recs = params.read_params(str(path), names, records=True)
    assert recs["bf"].code == params.BF16 and recs["scalar0d"].array.shape == ()
    for n, a in tensors.items():
        assert recs[n].array.dtype == a.dtype and recs[n].array.shape == a.shape
        np.testing.assert_array_equal(recs[n].array, a)
    # 0-d tensors have no dims entry: TensorDesc is just the data type
    zero_d = params.encode_record(np.array(1.0, np.float32))
    assert zero_d[12:22] == b"\0\0\0\0" + struct.pack("<i", 2) + b"\x08\x05"


def test_order_is_python_sorted_not_natural():
    data = params.encode_params({"conv2d_2.w_0": np.ones(1, np.float32),
                                 "conv2d_10.w_0": np.zeros(1, np.float32)})
    recs = params.decode_params(data, ["conv2d_10.w_0", "conv2d_2.w_0"])
    assert recs["conv2d_10.w_0"].array[0] == 0 and recs["conv2d_2.w_0"].array[0] == 1


def test_truncated_file_names_file_and_variable(tmp_path):
    src = (GOLDEN / "mlp" / "model.pdiparams").read_bytes()
    path = tmp_path / "cut.pdiparams"
    path.write_bytes(src[:-10])
    with pytest.raises(FormatError) as e:
        params.read_params(str(path), _golden_names("mlp"))
    msg = str(e.value)
    assert str(path) in msg and "'fc_1.w_0'" in msg and "truncated" in msg


def test_count_mismatch_is_reported(tmp_path):
    names = _golden_names("mlp")
    path = GOLDEN / "mlp" / "model.pdiparams"
    with pytest.raises(FormatError, match=r"holds 4 tensors .* only 3"):
        params.read_params(str(path), names[:3])
    with pytest.raises(FormatError, match=r"ends after 4 tensors.*'zz'"):
        params.read_params(str(path), names + ["zz"])


def test_garbage_is_a_format_error(tmp_path):
    path = tmp_path / "junk.pdiparams"
    path.write_bytes(b"hello world, not params")
    with pytest.raises(FormatError, match="junk.pdiparams"):
        params.read_params(str(path), ["a"])


def test_npz_is_accepted(tmp_path):
    path = tmp_path / "p.npz"
    params.write_params(str(path), {"b": np.ones(2, np.float32), "a": np.zeros(3)})
    got = params.read_params(str(path), ["a"])
    assert list(got) == ["a"] and got["a"].shape == (3,)
    assert sorted(params.read_params(str(path))) == ["a", "b"]
    with pytest.raises(FormatError, match="'c'"):
        params.read_params(str(path), ["a", "c"])


def test_write_is_atomic_on_failure(tmp_path):
    path = tmp_path / "bad.pdiparams"
    with pytest.raises(PyirError, match="dtype object has no Paddle VarType"):
        params.write_params(str(path), {"a": np.array(["str"], dtype=object)})
    assert list(tmp_path.iterdir()) == []
