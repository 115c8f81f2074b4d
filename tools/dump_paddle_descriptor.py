"""Regenerate tests/paddle_golden/paddle_framework_descriptor.pb from an installed Paddle.

Development oracle only (pyir and its tests never import Paddle):
    FLAGS_enable_pir_api=0 /path/to/paddle-venv/bin/python tools/dump_paddle_descriptor.py
"""

import pathlib

from paddle.base.proto import framework_pb2

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "paddle_golden" / \
    "paddle_framework_descriptor.pb"
OUT.write_bytes(framework_pb2.DESCRIPTOR.serialized_pb)
print(f"wrote {OUT}")
