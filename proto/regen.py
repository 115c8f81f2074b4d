"""Regenerate pyir/_proto/framework_pb2.py from proto/framework.proto.

Usage: python proto/regen.py [--check]

Needs grpcio-tools (the `test` extra pins the version whose output is checked in).
With --check, writes nothing and exits 1 when the checked-in module differs.
"""

import pathlib
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROTO = ROOT / "proto" / "framework.proto"
TARGET = ROOT / "pyir" / "_proto" / "framework_pb2.py"


def generate() -> str:
    """Return the generated module text for the current framework.proto."""
    from grpc_tools import protoc

    with tempfile.TemporaryDirectory() as out:
        rc = protoc.main(["protoc", f"-I{PROTO.parent}", f"--python_out={out}", PROTO.name])
        if rc != 0:
            raise SystemExit(f"protoc failed with exit code {rc}")
        return (pathlib.Path(out) / "framework_pb2.py").read_text()


def main(argv: list[str]) -> int:
    text = generate()
    if "--check" in argv:
        if TARGET.read_text() != text:
            print(f"{TARGET} is out of date: run python proto/regen.py", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(text)
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
