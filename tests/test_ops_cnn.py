"""CNN ops against real Paddle: every case in tests/golden_cnn/ runs in pyir and must give
Paddle's numbers.

The cases were written by Paddle 3.3.1 (tools/gen_golden_cnn.py): one op per program, per
attribute mix (padding modes, groups, dilation, ceil_mode, exclusive, adaptive, NHWC, interp
alignment, gelu approximate, ...). "inference" cases are save_inference_model pairs read with
pyir.files; "program" cases are forward programs as built (batch_norm training, norms' saved
statistics); "grad" cases carry Paddle's append_backward ops, so they check pyir's `_grad`
kernels on Paddle's own grad-op layouts.
"""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

from pyir import files, registry
from pyir.executor import Executor, Scope
from pyir.serialize import load_program

GOLDEN = pathlib.Path(__file__).resolve().parent / "golden_cnn"
CASES = sorted(p.name for p in GOLDEN.iterdir() if (p / "meta.json").is_file())
RTOL, ATOL = 1e-4, 1e-5


def _load(folder: pathlib.Path, meta: dict, scope: Scope):
    """(program, fetch names) with the case's parameters in `scope`."""
    if meta["kind"] == "inference":
        model = files.load_model(str(folder / "model.pdmodel"), str(folder / "model.pdiparams")
                              if (folder / "model.pdiparams").is_file() else None, scope)
        return model.program, model.fetch_names
    with np.load(folder / "params.npz") as params:
        for name in params.files:
            scope[name] = params[name]
    return load_program(str(folder / "program.pb")), meta["fetches"]


@pytest.mark.parametrize("case", CASES)
def test_matches_paddle(case):
    folder = GOLDEN / case
    meta = json.loads((folder / "meta.json").read_text())
    scope = Scope()
    program, fetches = _load(folder, meta, scope)
    assert meta["op"] in {op.type for op in program.global_block().ops}
    with np.load(folder / "inputs.npz") as inputs:
        feed = {name: inputs[name] for name in inputs.files}
    results = Executor().run(program, feed=feed, fetch_list=fetches, scope=scope)
    with np.load(folder / "expected.npz") as expected:
        assert sorted(expected.files) == sorted(fetches)
        for name, actual in zip(fetches, results):
            want = expected[name]
            assert actual.dtype == want.dtype and actual.shape == want.shape, name
            np.testing.assert_allclose(actual, want, rtol=RTOL, atol=ATOL, err_msg=name)


def test_grad_cases_cover_the_grad_ops():
    """Each CNN `_grad` op is exercised on Paddle's layout by at least one grad case."""
    ops = set()
    for case in CASES:
        meta = json.loads((GOLDEN / case / "meta.json").read_text())
        if meta["kind"] == "grad":
            ops |= {op.type for op in load_program(str(GOLDEN / case / "program.pb"))
                    .global_block().ops}
    wanted = {"conv2d_grad", "depthwise_conv2d_grad", "conv2d_transpose_grad", "pool2d_grad",
              "batch_norm_grad", "layer_norm_grad", "instance_norm_grad", "group_norm_grad",
              "gelu_grad", "prelu_grad", "bilinear_interp_v2_grad", "pad3d_grad", "pad_grad"}
    assert wanted <= ops, sorted(wanted - ops)
    assert all(op in registry.OPS for op in wanted)


def test_max_pool_grad_goes_to_the_first_maximum_only():
    """Ties inside a window: Paddle gives the whole gradient to the first maximal cell."""
    from pyir.ops.pool import pool2d, pool2d_grad

    x = np.array([[[[1.0, 1.0], [0.0, 1.0]]]], np.float32)
    attrs = dict(pooling_type="max", ksize=[2, 2], global_pooling=False, strides=[2, 2],
                 paddings=[0, 0], exclusive=True, adaptive=False, ceil_mode=False,
                 data_format="NCHW", padding_algorithm="EXPLICIT", use_cudnn=False)
    out = pool2d(x, **attrs)["Out"]
    dx = pool2d_grad(x, out, np.ones_like(out), **attrs)["X@GRAD"]
    np.testing.assert_array_equal(dx, [[[[1.0, 0.0], [0.0, 0.0]]]])


def test_dropout_training_mask_matches_output():
    """Training dropout: Out = X * Mask / (1 - p) (upscale) and about p of the cells drop."""
    from pyir.ops.norm import dropout

    x = np.ones((200, 50), np.float32)
    res = dropout(x, None, 0.3, False, True, 7, "upscale_in_train")
    mask = res["Mask"]
    assert mask.dtype == np.uint8 and 0.25 < 1 - mask.mean() < 0.35
    np.testing.assert_allclose(res["Out"], mask / np.float32(0.7), rtol=1e-6)
