"""The wire schema: generated code is current, equals Paddle's, and round-trips Paddle's files."""

import importlib.util
import pathlib

import pytest
from google.protobuf import descriptor_pb2

from pyir._proto import framework_pb2 as pb
from pyir.framework import Program

ROOT = pathlib.Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "paddle_golden"
PADDLE_FILES = sorted(p for p in GOLDEN.rglob("*") if p.suffix in (".pdmodel", ".pb")
                      and p.name != "paddle_framework_descriptor.pb")


def _regen_module():
    spec = importlib.util.spec_from_file_location("regen", ROOT / "proto" / "regen.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_module_has_no_drift():
    regen = _regen_module()
    assert regen.main(["--check"]) == 0
    assert regen.generate() == regen.TARGET.read_text()


def _paddle_descriptor() -> descriptor_pb2.FileDescriptorProto:
    golden = descriptor_pb2.FileDescriptorProto()
    golden.ParseFromString((GOLDEN / "paddle_framework_descriptor.pb").read_bytes())
    return golden


def test_schema_equals_paddles():
    golden = _paddle_descriptor()
    ours = descriptor_pb2.FileDescriptorProto()
    pb.DESCRIPTOR.CopyToProto(ours)
    assert ours.package == golden.package == "paddle.framework.proto"
    assert ours.syntax == golden.syntax
    assert [m.name for m in ours.message_type] == [m.name for m in golden.message_type]
    for mine, theirs in zip(ours.message_type, golden.message_type):
        assert mine == theirs, f"message {mine.name} differs from Paddle's"
    assert list(ours.enum_type) == list(golden.enum_type)


def test_golden_corpus_is_present():
    names = {p.relative_to(GOLDEN).as_posix() for p in PADDLE_FILES}
    assert {"mlp/model.pdmodel", "lenet/model.pdmodel", "simple_net/model_with_grad.pb",
            "pylayer_grad/model_with_grad.pb"} <= names


@pytest.mark.parametrize("path", PADDLE_FILES, ids=lambda p: p.relative_to(GOLDEN).as_posix())
def test_paddle_file_reserializes_byte_identical(path):
    data = path.read_bytes()
    assert Program.parse_from_string(data).serialize_to_string() == data
