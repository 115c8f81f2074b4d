"""Big files are parsed a slice of ops at a time (serialize.SLICED_BYTES, SLICE_ENTRIES): the
Program must be the one the whole-message path gives, and every refusal must stay the same.
Here every file is sliced, into slices of 3 entries."""

import pathlib

import pytest

from pyir import serialize
from pyir._proto import framework_pb2 as pb
from pyir.errors import FormatError

ROOT = pathlib.Path(__file__).resolve().parent
FILES = sorted(p for p in ROOT.rglob("*") if p.suffix in (".pdmodel", ".pb")
               and p.name != "paddle_framework_descriptor.pb")


@pytest.fixture(autouse=True)
def slice_everything(monkeypatch):
    monkeypatch.setattr(serialize, "SLICED_BYTES", 0)
    monkeypatch.setattr(serialize, "SLICE_ENTRIES", 3)


def _whole(data: bytes):
    return serialize.program_from_desc(pb.ProgramDesc.FromString(data))


@pytest.mark.parametrize("path", FILES[::4], ids=lambda p: str(p.relative_to(ROOT)))
def test_a_sliced_parse_gives_the_whole_message_program(path):
    data = path.read_bytes()
    sliced = serialize._parse_sliced(data)
    assert sliced is not None
    assert serialize.program_to_desc(sliced).SerializeToString() == \
        serialize.program_to_desc(_whole(data)).SerializeToString()
    assert [len(b.ops) for b in sliced.blocks] == [len(b.ops) for b in _whole(data).blocks]


def test_a_paddle_file_round_trips_byte_for_byte():
    data = (ROOT / "paddle_golden" / "lenet" / "model.pdmodel").read_bytes()
    assert serialize.parse_program(data).serialize_to_string() == data


def test_unusual_framing_falls_back_to_the_whole_message():
    data = (ROOT / "paddle_golden" / "mlp" / "model.pdmodel").read_bytes()
    odd = data + bytes([9 << 3 | 1]) + bytes(8)  # an unknown fixed64 field at the top
    assert serialize._parse_sliced(odd) is None
    program = serialize.parse_program(odd)
    assert len(program.global_block().ops) == len(_whole(data).global_block().ops)


@pytest.mark.parametrize("cut", [1, 7, 100])
def test_truncated_bytes_give_the_same_error(cut, monkeypatch):
    data = (ROOT / "paddle_golden" / "mlp" / "model.pdmodel").read_bytes()[:-cut]
    with pytest.raises(FormatError) as sliced:
        serialize.parse_program(data, file="m.pdmodel")
    monkeypatch.setattr(serialize, "SLICED_BYTES", 1 << 62)
    with pytest.raises(FormatError) as whole:
        serialize.parse_program(data, file="m.pdmodel")
    assert str(sliced.value) == str(whole.value)


def test_text_that_is_not_utf8_gives_the_same_error(monkeypatch):
    data = (ROOT / "paddle_golden" / "mlp" / "model.pdmodel").read_bytes()
    op_type = pb.ProgramDesc.FromString(data).blocks[0].ops[-1].type.encode()
    bad = data.replace(op_type, b"\xff" * len(op_type))
    assert serialize._parse_sliced(bad) is None
    with pytest.raises(FormatError, match="holds bytes that are not UTF-8") as sliced:
        serialize.parse_program(bad, file="m.pdmodel")
    monkeypatch.setattr(serialize, "SLICED_BYTES", 1 << 62)
    with pytest.raises(FormatError) as whole:
        serialize.parse_program(bad, file="m.pdmodel")
    assert str(sliced.value) == str(whole.value)


def test_a_file_with_no_blocks_is_refused():
    with pytest.raises(FormatError, match="it has no blocks"):
        serialize.parse_program(pb.ProgramDesc(version=pb.Version(version=1))
                                .SerializeToString())
