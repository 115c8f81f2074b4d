"""Vision and detection ops against Paddle 3.3.1's CPU kernels: every case of
tests/golden_detection/ (tools/gen_golden_detection.py) is Paddle's own one-op program, run in
pyir on the same feeds. Integer and index outputs (NMS indices and counts, roi_pool's Argmax,
FPN levels) must be equal; float outputs and gradients to rtol 1e-4.

The cases pin the edge cases the kernels decide: tied scores (NMS keeps the lower index
first), boxes across the image border, empty results, normalized and pixel (+1) coordinates,
background labels, keep_top_k / nms_top_k, adaptive nms_eta, align_corners / align_mode,
padding modes, grads on Paddle's own grad-op layouts.
"""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

from pyir.executor import Executor, Scope
from pyir.serialize import load_program

GOLDEN = pathlib.Path(__file__).resolve().parent / "golden_detection"
CASES = json.loads((GOLDEN / "cases.json").read_text())
RTOL, ATOL = 1e-4, 1e-5


@pytest.fixture(scope="module")
def golden():
    with np.load(GOLDEN / "golden.npz") as data:
        yield {k: data[k] for k in data.files}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_paddle(name, golden):
    meta = CASES[name]
    program = load_program(str(GOLDEN / f"{name}.pb"))
    assert meta["op"] in {op.type for op in program.global_block().ops}
    feed = {n: golden[f"{name}/{n}"] for n in meta["feeds"]}
    results = Executor().run(program, feed=feed, fetch_list=meta["fetches"], scope=Scope())
    for fetch, actual in zip(meta["fetches"], results):
        want, actual = golden[f"{name}/{fetch}"], np.asarray(actual)
        assert actual.shape == want.shape, (fetch, actual.shape, want.shape)
        declared = program.global_block().find_var(fetch).dtype
        if want.dtype != declared:  # yolov3_loss's GTMatchMask: declared float, filled int32
            assert actual.dtype == declared and want.dtype.kind == "i", (fetch, declared)
            np.testing.assert_array_equal(actual, want.astype(declared), err_msg=fetch)
            continue
        assert actual.dtype == want.dtype, (fetch, actual.dtype, want.dtype)
        if want.dtype.kind in "iub":
            np.testing.assert_array_equal(actual, want, err_msg=fetch)
        else:
            np.testing.assert_allclose(actual, want, rtol=RTOL, atol=ATOL, err_msg=fetch)


def test_the_cases_cover_the_issue_ops():
    ops = {meta["op"] for meta in CASES.values()}
    wanted = {"yolo_box", "multiclass_nms3", "multiclass_nms", "matrix_nms", "nms", "roi_align",
              "roi_pool", "deformable_conv", "deformable_conv_v1", "affine_grid",
              "grid_sampler", "pixel_shuffle", "pixel_unshuffle", "prior_box", "box_coder",
              "anchor_generator", "generate_proposals_v2", "distribute_fpn_proposals",
              "bicubic_interp_v2", "trilinear_interp_v2", "linear_interp_v2", "conv3d",
              "pool3d"}
    assert wanted <= ops, sorted(wanted - ops)
    graded = {meta["op"] for meta in CASES.values() if meta["grad"]}
    assert {"roi_align", "roi_pool", "deformable_conv", "deformable_conv_v1", "affine_grid",
            "grid_sampler", "pixel_shuffle", "pixel_unshuffle", "bicubic_interp_v2",
            "trilinear_interp_v2", "linear_interp_v2", "conv3d", "pool3d"} <= graded


def test_legacy_multiclass_nms_marks_no_detection_with_minus_one():
    """Nothing above the threshold: the legacy op's Out is [[-1]], multiclass_nms3's [0, 6]."""
    from pyir.ops.vision_multiclass_nms import multiclass_nms, multiclass_nms3

    attrs = dict(score_threshold=0.6, nms_top_k=-1, keep_top_k=-1, nms_threshold=0.3,
                 normalized=True, nms_eta=1.0, background_label=-1)
    boxes, scores = np.zeros((1, 2, 4), np.float32), np.full((1, 2, 2), 0.5, np.float32)
    out = multiclass_nms(boxes, scores, **attrs)["Out"]
    assert out.shape == (1, 1) and out[0, 0] == -1 and out.dtype == np.float32
    three = multiclass_nms3(boxes, scores, None, **attrs)
    assert three["Out"].shape == (0, 6) and three["Index"].shape == (0, 1)
    assert three["NmsRoisNum"].tolist() == [0]
