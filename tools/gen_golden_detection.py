"""Regenerate tests/golden_detection/: one tiny Paddle legacy program per vision/detection op
and edge case (ties in scores, boxes across the image border, empty results, normalized and
pixel coordinates, background labels, keep_top_k = -1, align_corners / align_mode, ...).

Needs PaddlePaddle 3.3.1 (a development oracle only; pyir and its tests never import it):

    FLAGS_enable_pir_api=0 /work/paddle-venv/bin/python tools/gen_golden_detection.py [--only S]

Each case appends one op with `block.append_op` (Paddle fills in the attributes the case does
not set), feeds seeded inputs, and for "grad" cases appends the backward of mean(Out * gw)
with gw fed. It writes

    tests/golden_detection/<case>.pb   the program as Paddle built it (forward, or with grads)
    tests/golden_detection/golden.npz  <case>/<feed> inputs and <case>/<fetch> Paddle's outputs
    tests/golden_detection/cases.json  per case: op, feeds (per input slot), fetches (the first
                                       `forward` of them outputs, then gradients), all the
                                       attributes the op carries
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib

os.environ.setdefault("FLAGS_enable_pir_api", "0")

import numpy as np  # noqa: E402
import paddle  # noqa: E402
from paddle.base.layer_helper import LayerHelper  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "golden_detection"
RNG = np.random.default_rng(20261125)
F32, I32, I64 = "float32", "int32", "int64"


def case(name, op, inputs, attrs=None, outputs=None, grad=False, fetch=None, gw=None):
    """inputs: slot -> ("x", array) differentiable feed | ("c", array) feed without gradient |
    list of those (duplicable); outputs: slot -> dtype or [dtypes] (duplicable)."""
    return dict(name=name, op=op, inputs=inputs, attrs=attrs or {}, outputs=outputs or
                {"Out": F32}, grad=grad, fetch=fetch, gw=gw)


def u(*shape, low=-1.0, high=1.0):
    return RNG.uniform(low, high, size=shape).astype(F32)


def boxes(n, size=32.0, low=-4.0):
    """n boxes x1 < x2, y1 < y2, some across the [0, size] border."""
    a = RNG.uniform(low, size, (n, 2))
    wh = RNG.uniform(2.0, size / 2, (n, 2))
    return np.concatenate([a, a + wh], 1).astype(F32)


# --- the cases --------------------------------------------------------------------------------
def yolo_cases():
    cs = []
    img = np.array([[48, 64], [30, 20]], np.int32)
    x = u(2, 2 * 8, 3, 4, low=-3, high=3)
    base = {"anchors": [10, 13, 30, 22], "class_num": 3, "conf_thresh": 0.3,
            "downsample_ratio": 16}
    for tag, extra in [("clip", {}), ("noclip", {"clip_bbox": False}),
                       ("scale_xy", {"scale_x_y": 1.2, "conf_thresh": 0.0}),
                       ("all_below", {"conf_thresh": 0.999})]:
        cs.append(case(f"yolo_box_{tag}", "yolo_box", {"X": ("c", x), "ImgSize": ("c", img)},
                       {**base, **extra}, {"Boxes": F32, "Scores": F32}))
    cs.append(case("yolo_box_iou_aware", "yolo_box",
                   {"X": ("c", u(1, 2 * 9, 2, 3, low=-3, high=3)),
                    "ImgSize": ("c", np.array([[40, 50]], np.int32))},
                   {**base, "iou_aware": True, "iou_aware_factor": 0.4},
                   {"Boxes": F32, "Scores": F32}))
    return cs


def _nms_inputs(n_img=2, m=12, c=3, tie=True, size=32.0):
    bb = np.stack([boxes(m, size) for _ in range(n_img)])
    sc = RNG.uniform(0, 1, (n_img, c, m)).astype(F32)
    if tie:  # equal scores inside a class and across classes, and overlapping tied boxes
        sc[:, 1, 2:6] = 0.5
        sc[:, 2, 0:3] = 0.5
        bb[:, 3] = bb[:, 2] + 0.5
        sc = np.round(sc * 8) / 8
    return bb, sc


def nms_cases():
    cs = []
    bb, sc = _nms_inputs()
    nb, ns = bb / 32.0, sc
    outs3 = {"Out": F32, "Index": I32, "NmsRoisNum": I32}
    variants = [
        ("pixel", bb, {"normalized": False, "nms_threshold": 0.3, "score_threshold": 0.2}),
        ("normalized", nb, {"normalized": True, "nms_threshold": 0.4, "score_threshold": 0.1,
                            "background_label": -1}),
        ("keep_top_k", bb, {"normalized": False, "nms_threshold": 0.5, "score_threshold": 0.1,
                            "keep_top_k": 5, "nms_top_k": 8, "background_label": -1}),
        ("eta", bb, {"normalized": False, "nms_threshold": 0.8, "score_threshold": 0.05,
                     "nms_eta": 0.7, "background_label": 2}),
        ("empty", bb, {"normalized": False, "score_threshold": 1.5}),
    ]
    for tag, b, attrs in variants:
        full = {"nms_top_k": -1, "keep_top_k": -1, "background_label": 0, "nms_eta": 1.0,
                **attrs}
        cs.append(case(f"multiclass_nms3_{tag}", "multiclass_nms3",
                       {"BBoxes": ("c", b), "Scores": ("c", ns)}, full, outs3))
        cs.append(case(f"multiclass_nms_{tag}", "multiclass_nms",
                       {"BBoxes": ("c", b), "Scores": ("c", ns)}, full, {"Out": F32}))
    # per-class boxes [M, C, 4] with RoisNum (a two-stage detector's second stage)
    m, c = 7, 3
    rb = np.stack([boxes(m) for _ in range(c)], 1)
    rs = np.round(RNG.uniform(0, 1, (m, c)) * 6) / 6
    cs.append(case("multiclass_nms3_rois_num", "multiclass_nms3",
                   {"BBoxes": ("c", rb), "Scores": ("c", rs.astype(F32)),
                    "RoisNum": ("c", np.array([4, 3], np.int32))},
                   {"normalized": False, "nms_threshold": 0.3, "score_threshold": 0.1,
                    "nms_top_k": -1, "keep_top_k": 4, "background_label": 0}, outs3))
    cs.append(case("multiclass_nms3_rois_num_empty_image", "multiclass_nms3",
                   {"BBoxes": ("c", rb), "Scores": ("c", rs.astype(F32)),
                    "RoisNum": ("c", np.array([3, 0, 4], np.int32))},
                   {"normalized": True, "nms_threshold": 0.5, "score_threshold": 0.3,
                    "nms_top_k": 2, "keep_top_k": -1, "background_label": -1}, outs3))
    mouts = {"Out": F32, "Index": I32, "RoisNum": I32}
    for tag, b, attrs in [
        ("linear", nb, {"score_threshold": 0.1, "post_threshold": 0.05, "nms_top_k": -1,
                        "keep_top_k": -1, "background_label": 0}),
        ("gaussian", bb, {"score_threshold": 0.1, "post_threshold": 0.2, "nms_top_k": 6,
                          "keep_top_k": 7, "use_gaussian": True, "gaussian_sigma": 2.0,
                          "background_label": -1, "normalized": False}),
        ("empty", nb, {"score_threshold": 0.99, "post_threshold": 0.0, "nms_top_k": -1,
                       "keep_top_k": -1, "background_label": 0}),
        ("keep_top_k", bb, {"score_threshold": 0.0, "post_threshold": 0.0, "nms_top_k": 20,
                            "keep_top_k": 9, "background_label": 1, "normalized": False}),
    ]:
        cs.append(case(f"matrix_nms_{tag}", "matrix_nms",
                       {"BBoxes": ("c", b), "Scores": ("c", ns)}, attrs, mouts))
    dup = bb[:1].copy()
    dup[0, 5] = dup[0, 1]  # exact duplicates: a decay of (1 - 1) / (1 - 1)
    dup[0, 7] = dup[0, 1]
    cs.append(case("matrix_nms_duplicates", "matrix_nms",
                   {"BBoxes": ("c", dup), "Scores": ("c", ns[:1])},
                   {"score_threshold": 0.0, "post_threshold": 0.0, "nms_top_k": -1,
                    "keep_top_k": -1, "background_label": -1, "normalized": False}, mouts))
    nb1 = boxes(10)
    nb1[4] = nb1[3]  # a duplicate box
    for thr in (0.0, 0.3, 0.7):
        cs.append(case(f"nms_{thr}", "nms", {"Boxes": ("c", nb1)}, {"iou_threshold": thr},
                       {"KeepBoxesIdxs": I64}))
    return cs


def roi_cases():
    cs = []
    x = u(2, 3, 8, 10)
    rois = np.concatenate([boxes(3, 16, -3), boxes(2, 16, 2)]).astype(F32)
    num = ("c", np.array([3, 2], np.int32))
    for tag, attrs in [("aligned", {"aligned": True, "sampling_ratio": 2}),
                       ("unaligned_adaptive", {"aligned": False, "sampling_ratio": -1}),
                       ("scale", {"aligned": True, "sampling_ratio": 1,
                                  "spatial_scale": 0.25})]:
        a = {"pooled_height": 3, "pooled_width": 2, "spatial_scale": 0.5, **attrs}
        cs.append(case(f"roi_align_{tag}", "roi_align",
                       {"X": ("x", x), "ROIs": ("c", rois), "RoisNum": num}, a,
                       grad=tag != "scale"))
    one = np.array([[2, 3, 2, 9], [-5, -5, 30, 30], [6.3, 1.2, 7.9, 3.3]], F32)  # zero width
    for op, extra, outs in (("roi_align", {"sampling_ratio": -1, "aligned": False}, None),
                            ("roi_pool", {}, {"Out": F32, "Argmax": I64})):
        # Paddle needs RoisNum (or a LoD) here: without one roi_align refuses, roi_pool crashes
        cs.append(case(f"{op}_single_image", op, {"X": ("x", u(1, 2, 6, 7)), "ROIs": ("c", one),
                                                  "RoisNum": ("c", np.array([3], np.int32))},
                       {"pooled_height": 2, "pooled_width": 2, "spatial_scale": 0.5, **extra},
                       outs, fetch=list(outs) if outs else None))
    for tag, attrs in [("s05", {"spatial_scale": 0.5}), ("s1", {"spatial_scale": 1.0})]:
        a = {"pooled_height": 2, "pooled_width": 3, **attrs}
        cs.append(case(f"roi_pool_{tag}", "roi_pool",
                       {"X": ("x", x), "ROIs": ("c", rois), "RoisNum": num}, a,
                       {"Out": F32, "Argmax": I64}, grad=tag == "s05", fetch=["Out", "Argmax"]))
    cs.append(case("psroi_pool", "psroi_pool",
                   {"X": ("x", u(2, 8, 6, 7)), "ROIs": ("c", rois), "RoisNum": num},
                   {"pooled_height": 2, "pooled_width": 2, "output_channels": 2,
                    "spatial_scale": 0.5}, grad=True))
    gt = np.array([[[0.3, 0.4, 0.4, 0.5], [0.8, 0.2, 0.1, 0.1], [0.5, 0.5, 0.0, 0.0]],
                   [[0.6, 0.7, 0.9, 0.3], [0.1, 0.1, 0.2, 0.6], [0.45, 0.9, 0.2, 0.15]]], F32)
    for tag, extra, score in (("smooth", {}, True),
                              ("scaled", {"use_label_smooth": False, "scale_x_y": 1.1}, False)):
        ins = {"X": ("x", u(2, 2 * 7, 4, 4, low=-2, high=2)), "GTBox": ("c", gt),
               "GTLabel": ("c", np.array([[1, 0, 1], [0, 1, 1]], np.int32))}
        if score:
            ins["GTScore"] = ("c", np.array([[1.0, 0.7, 1.0], [0.5, 1.0, 0.9]], F32))
        cs.append(case(f"yolov3_loss_{tag}", "yolov3_loss", ins,
                       {"anchors": [10, 13, 16, 30, 33, 23, 30, 61], "anchor_mask": [1, 3],
                        "class_num": 2, "ignore_thresh": 0.5, "downsample_ratio": 8, **extra},
                       {"Loss": F32, "ObjectnessMask": F32, "GTMatchMask": I32}, grad=True,
                       fetch=["Loss", "ObjectnessMask", "GTMatchMask"]))
    return cs


def deform_cases():
    cs = []
    x = u(1, 4, 5, 6)
    for tag, groups, dg, attrs in [("basic", 1, 1, {"paddings": [1, 1]}),
                                   ("groups", 2, 2, {"strides": [2, 1], "paddings": [1, 0],
                                                     "dilations": [1, 2]})]:
        w = u(4, 4 // groups, 3, 3)
        ho = (5 + 2 * attrs["paddings"][0] - 3) // attrs.get("strides", [1, 1])[0] + 1
        wo = (6 + 2 * attrs["paddings"][1] - (2 * (3 - 1) * attrs.get("dilations", [1, 1])[1] // 2
                                              + 1)) // 1 + 1
        off = u(1, 2 * dg * 9, ho, wo, low=-1.5, high=1.5)
        mask = u(1, dg * 9, ho, wo, low=0, high=1)
        a = {"groups": groups, "deformable_groups": dg, "im2col_step": 1, **attrs}
        cs.append(case(f"deformable_conv_{tag}", "deformable_conv",
                       {"Input": ("x", x), "Offset": ("x", off), "Filter": ("x", w),
                        "Mask": ("x", mask)}, a, {"Output": F32}, grad=True))
        cs.append(case(f"deformable_conv_v1_{tag}", "deformable_conv_v1",
                       {"Input": ("x", x), "Offset": ("x", off), "Filter": ("x", w)}, a,
                       {"Output": F32}, grad=True))
    xb = u(2, 4, 4, 5)
    offb = u(2, 18, 4, 5, low=-2, high=2)
    cs.append(case("deformable_conv_batch_step2", "deformable_conv",
                   {"Input": ("x", xb), "Offset": ("x", offb), "Filter": ("x", u(3, 4, 3, 3)),
                    "Mask": ("x", u(2, 9, 4, 5, low=0, high=1))},
                   {"paddings": [1, 1], "im2col_step": 2}, {"Output": F32}))
    # (no grad: with im2col_step 2, Paddle 3.3.1's Input@GRAD disagrees with finite differences
    # of its own forward; pyir's agrees, and matches Paddle's at im2col_step 1)
    return cs


def grid_cases():
    cs = []
    theta = u(2, 2, 3)
    for ac in (True, False):
        cs.append(case(f"affine_grid_{'corners' if ac else 'centers'}", "affine_grid",
                       {"Theta": ("x", theta)}, {"output_shape": [2, 3, 4, 5],
                                                 "align_corners": ac}, {"Output": F32},
                       grad=True, gw=(2, 4, 5, 2)))
    x = u(2, 3, 4, 5)
    grid = u(2, 3, 6, 2, low=-1.3, high=1.3)  # some points outside [-1, 1]
    for mode in ("bilinear", "nearest"):
        for pad in ("zeros", "border", "reflection"):
            for ac in (True, False):
                cs.append(case(f"grid_sampler_{mode}_{pad}_{int(ac)}", "grid_sampler",
                               {"X": ("x", x), "Grid": ("x", grid)},
                               {"mode": mode, "padding_mode": pad, "align_corners": ac},
                               {"Output": F32}, grad=mode == "bilinear"))
    for mode in ("bilinear", "nearest"):
        cs.append(case(f"grid_sampler_3d_{mode}", "grid_sampler",
                       {"X": ("x", u(1, 2, 3, 4, 5)), "Grid": ("x", u(1, 2, 3, 2, 3, low=-1.2,
                                                                      high=1.2))},
                       {"mode": mode, "padding_mode": "zeros", "align_corners": False},
                       {"Output": F32}, grad=mode == "bilinear"))
    for fmt in ("NCHW", "NHWC"):
        shape = (2, 8, 3, 2) if fmt == "NCHW" else (2, 3, 2, 8)
        cs.append(case(f"pixel_shuffle_{fmt}", "pixel_shuffle", {"X": ("x", u(*shape))},
                       {"upscale_factor": 2, "data_format": fmt}, grad=True))
        shape = (2, 3, 4, 6) if fmt == "NCHW" else (2, 4, 6, 3)
        cs.append(case(f"pixel_unshuffle_{fmt}", "pixel_unshuffle", {"X": ("x", u(*shape))},
                       {"downscale_factor": 2, "data_format": fmt}, grad=True))
    return cs


def box_cases():
    cs = []
    feat, image = ("c", np.zeros((1, 2, 3, 4), F32)), ("c", np.zeros((1, 3, 30, 40), F32))
    for tag, attrs in [
        ("flip_clip", {"min_sizes": [6.0, 12.0], "max_sizes": [10.0, 20.0],
                       "aspect_ratios": [2.0, 1.0, 3.0], "flip": True, "clip": True}),
        ("order_step", {"min_sizes": [8.0], "max_sizes": [15.0], "aspect_ratios": [2.0],
                        "flip": True, "step_w": 9.0, "step_h": 7.0, "offset": 0.3,
                        "min_max_aspect_ratios_order": True}),
        ("min_only", {"min_sizes": [5.0], "aspect_ratios": [0.5]}),
        ("order_multi", {"min_sizes": [4.0, 9.0], "max_sizes": [8.0, 15.0],
                         "aspect_ratios": [2.0, 3.0], "flip": True,
                         "min_max_aspect_ratios_order": True}),
    ]:
        cs.append(case(f"prior_box_{tag}", "prior_box", {"Input": feat, "Image": image},
                       {"variances": [0.1, 0.1, 0.2, 0.2], **attrs},
                       {"Boxes": F32, "Variances": F32}))
    for tag, attrs in [("basic", {"anchor_sizes": [16.0, 32.0], "aspect_ratios": [0.5, 1.0],
                                  "stride": [8.0, 8.0], "variances": [0.1, 0.1, 0.2, 0.2]}),
                       ("offset", {"anchor_sizes": [20.0], "aspect_ratios": [1.0, 2.0, 0.7],
                                   "stride": [6.0, 10.0], "offset": 0.3,
                                   "variances": [0.1, 0.2, 0.3, 0.4]})]:
        cs.append(case(f"anchor_generator_{tag}", "anchor_generator", {"Input": feat},
                       attrs, {"Anchors": F32, "Variances": F32}))
    prior = boxes(4)
    pvar = u(4, 4, low=0.1, high=0.3)
    target = boxes(3)
    for tag, norm in (("pixel", False), ("normalized", True)):
        pr, tg = (prior / 40, target / 40) if norm else (prior, target)
        cs.append(case(f"box_coder_encode_{tag}", "box_coder",
                       {"PriorBox": ("c", pr), "PriorBoxVar": ("c", pvar),
                        "TargetBox": ("c", tg)},
                       {"code_type": "encode_center_size", "box_normalized": norm},
                       {"OutputBox": F32}))
    deltas = u(3, 4, 4)
    cs.append(case("box_coder_decode_axis0", "box_coder",
                   {"PriorBox": ("c", prior), "PriorBoxVar": ("c", pvar),
                    "TargetBox": ("c", deltas)},
                   {"code_type": "decode_center_size", "box_normalized": False, "axis": 0},
                   {"OutputBox": F32}))
    cs.append(case("box_coder_decode_axis1_attrvar", "box_coder",
                   {"PriorBox": ("c", prior[:3]), "TargetBox": ("c", u(3, 4, 4))},
                   {"code_type": "decode_center_size", "box_normalized": True, "axis": 1,
                    "variance": [0.1, 0.1, 0.2, 0.2]}, {"OutputBox": F32}))
    return cs


def proposal_cases():
    cs = []
    n, a, h, w = 2, 3, 4, 5
    scores = np.round(RNG.uniform(0, 1, (n, a, h, w)) * 10).astype(F32) / 10  # many ties
    deltas = u(n, 4 * a, h, w, low=-0.5, high=0.5)
    base = np.array([[-8, -8, 8, 8], [-12, -6, 12, 6], [-6, -12, 6, 12]], F32)
    ys, xs = np.meshgrid(np.arange(h) * 8.0, np.arange(w) * 8.0, indexing="ij")
    shift = np.stack([xs, ys, xs, ys], -1)[:, :, None, :]
    anchors = (shift + base[None, None]).astype(F32)
    var = np.broadcast_to(np.array([1.0, 1.0, 1.0, 1.0], F32), anchors.shape).copy()
    im = np.array([[30, 38], [25, 40]], F32)
    outs = {"RpnRois": F32, "RpnRoiProbs": F32, "RpnRoisNum": I32}
    for tag, attrs in [("offset", {"pre_nms_topN": 30, "post_nms_topN": 10, "nms_thresh": 0.5,
                                   "min_size": 2.0, "eta": 1.0, "pixel_offset": True}),
                       ("nooffset_eta", {"pre_nms_topN": 50, "post_nms_topN": 20,
                                         "nms_thresh": 0.7, "min_size": 0.5, "eta": 0.8,
                                         "pixel_offset": False})]:
        cs.append(case(f"generate_proposals_v2_{tag}", "generate_proposals_v2",
                       {"Scores": ("c", scores), "BboxDeltas": ("c", deltas),
                        "ImShape": ("c", im), "Anchors": ("c", anchors),
                        "Variances": ("c", var)}, attrs, outs))
    big = {"Scores": ("c", np.round(RNG.uniform(0, 1, (1, 3, 5, 6)) * 4).astype(F32) / 4),
           "BboxDeltas": ("c", u(1, 12, 5, 6, low=-0.3, high=0.3)),
           "ImShape": ("c", np.array([[45, 50]], F32))}
    ys, xs = np.meshgrid(np.arange(5) * 8.0, np.arange(6) * 8.0, indexing="ij")
    big_anchors = (np.stack([xs, ys, xs, ys], -1)[:, :, None, :] + base[None, None]).astype(F32)
    big["Anchors"] = ("c", big_anchors)
    big["Variances"] = ("c", np.full(big_anchors.shape, 0.5, F32))
    cs.append(case("generate_proposals_v2_sort_all", "generate_proposals_v2", big,
                   {"pre_nms_topN": -1, "post_nms_topN": -1, "nms_thresh": 0.6, "min_size": 1.0,
                    "eta": 1.0, "pixel_offset": True}, outs))
    cs.append(case("generate_proposals_v2_none_left", "generate_proposals_v2", big,
                   {"pre_nms_topN": 10, "post_nms_topN": 5, "nms_thresh": 0.6, "min_size": 80.0,
                    "eta": 1.0, "pixel_offset": False}, outs))
    rois = np.concatenate([boxes(6, 300, -10), boxes(4, 60, 0)]).astype(F32)
    for tag, po in (("offset", True), ("nooffset", False)):
        cs.append(case(f"distribute_fpn_proposals_{tag}", "distribute_fpn_proposals",
                       {"FpnRois": ("c", rois), "RoisNum": ("c", np.array([6, 4], np.int32))},
                       {"min_level": 2, "max_level": 5, "refer_level": 4, "refer_scale": 56,
                        "pixel_offset": po},
                       {"MultiFpnRois": [F32] * 4, "RestoreIndex": I32,
                        "MultiLevelRoIsNum": [I32] * 4}))
    cs.append(case("distribute_fpn_proposals_empty_image", "distribute_fpn_proposals",
                   {"FpnRois": ("c", rois), "RoisNum": ("c", np.array([4, 0, 6], np.int32))},
                   {"min_level": 3, "max_level": 4, "refer_level": 3, "refer_scale": 40,
                    "pixel_offset": True},
                   {"MultiFpnRois": [F32] * 2, "RestoreIndex": I32,
                    "MultiLevelRoIsNum": [I32] * 2}))
    return cs


def interp_cases():
    cs = []
    for ac, am in ((True, 1), (False, 0), (False, 1)):
        tag = f"ac{int(ac)}_am{am}"
        common = {"align_corners": ac, "align_mode": am}
        cs.append(case(f"linear_interp_v2_{tag}", "linear_interp_v2", {"X": ("x", u(2, 3, 5))},
                       {**common, "out_w": 8, "interp_method": "linear", "data_layout": "NCHW"},
                       grad=True))
        cs.append(case(f"trilinear_interp_v2_{tag}", "trilinear_interp_v2",
                       {"X": ("x", u(1, 2, 3, 4, 5))},
                       {**common, "out_d": 5, "out_h": 3, "out_w": 7,
                        "interp_method": "trilinear"}, grad=True))
    for ac in (True, False):
        cs.append(case(f"bicubic_interp_v2_ac{int(ac)}", "bicubic_interp_v2",
                       {"X": ("x", u(1, 2, 4, 5))},
                       {"align_corners": ac, "out_h": 7, "out_w": 3,
                        "interp_method": "bicubic"}, grad=True))
    cs.append(case("bicubic_interp_v2_outsize_tensor", "bicubic_interp_v2",
                   {"X": ("x", u(1, 2, 4, 5)), "OutSize": ("c", np.array([6, 9], np.int32))},
                   {"align_corners": True, "out_h": 2, "out_w": 2, "interp_method": "bicubic"}))
    cs.append(case("trilinear_interp_v2_scale_tensor", "trilinear_interp_v2",
                   {"X": ("x", u(1, 2, 3, 4, 3)), "Scale": ("c", np.array([2.0, 1.5, 0.7], F32))},
                   {"align_corners": False, "align_mode": 0, "interp_method": "trilinear"}))
    cs.append(case("bicubic_interp_v2_scale", "bicubic_interp_v2", {"X": ("x", u(1, 2, 4, 5))},
                   {"align_corners": False, "scale": [1.5, 1.7], "interp_method": "bicubic"}))
    cs.append(case("linear_interp_v2_scale_nwc", "linear_interp_v2", {"X": ("x", u(2, 5, 3))},
                   {"align_corners": False, "align_mode": 0, "scale": [1.6],
                    "interp_method": "linear", "data_layout": "NHWC"}))
    cs.append(case("trilinear_interp_v2_ndhwc", "trilinear_interp_v2",
                   {"X": ("x", u(1, 3, 4, 2, 2))},
                   {"align_corners": False, "align_mode": 1, "out_d": 2, "out_h": 5,
                    "out_w": 3, "interp_method": "trilinear", "data_layout": "NDHWC"}))
    return cs


def conv3d_cases():
    cs = []
    for tag, xs, ws, attrs in [
        ("basic", (1, 2, 4, 5, 5), (3, 2, 3, 3, 3), {"paddings": [1, 1, 1]}),
        ("groups_stride", (1, 4, 5, 6, 5), (4, 2, 2, 3, 2),
         {"groups": 2, "strides": [2, 1, 2], "paddings": [0, 1, 1], "dilations": [1, 2, 1]}),
        ("ndhwc_same", (1, 4, 5, 4, 2), (3, 2, 3, 3, 3),
         {"data_format": "NDHWC", "padding_algorithm": "SAME", "strides": [2, 2, 1]}),
        ("valid_dilated", (2, 3, 6, 5, 7), (2, 3, 2, 2, 3),
         {"padding_algorithm": "VALID", "paddings": [1, 1, 1], "dilations": [2, 1, 2]}),
    ]:
        cs.append(case(f"conv3d_{tag}", "conv3d", {"Input": ("x", u(*xs)), "Filter": ("x", u(*ws))},
                       attrs, {"Output": F32}, grad=tag != "ndhwc_same"))
    for tag, xs, ws, attrs in [
        ("basic", (1, 2, 3, 4, 3), (2, 3, 3, 3, 2), {"paddings": [1, 0, 1]}),
        ("groups_stride_outpad", (1, 4, 3, 3, 2), (4, 1, 2, 3, 2),
         {"groups": 2, "strides": [2, 2, 3], "output_padding": [1, 0, 1],
          "dilations": [1, 2, 1]}),
    ]:
        cs.append(case(f"conv3d_transpose_{tag}", "conv3d_transpose",
                       {"Input": ("x", u(*xs)), "Filter": ("x", u(*ws))}, attrs,
                       {"Output": F32}, grad=True))
    x = u(1, 2, 5, 6, 7)
    for tag, attrs in [
        ("max", {"pooling_type": "max", "ksize": [2, 2, 3], "strides": [2, 2, 2]}),
        ("avg_ceil_incl", {"pooling_type": "avg", "ksize": [3, 3, 3], "strides": [2, 2, 2],
                           "paddings": [1, 1, 1], "ceil_mode": True, "exclusive": False}),
        ("avg_excl", {"pooling_type": "avg", "ksize": [3, 2, 3], "strides": [1, 2, 2],
                      "paddings": [1, 0, 1], "exclusive": True}),
        # no ("adaptive_max", adaptive=True with "max"): Paddle 3.3.1's CPU pool3d then gives
        # maxima of windows that are not the adaptive bins (seen for ksize [2, 3, 4] and
        # [3, 2, 2]; paddle.nn.functional.adaptive_max_pool3d uses max_pool3d_with_index)
        ("adaptive_avg", {"pooling_type": "avg", "ksize": [3, 4, 3], "adaptive": True}),
        ("global", {"pooling_type": "avg", "ksize": [1, 1, 1], "global_pooling": True}),
        ("max_ceil_pad", {"pooling_type": "max", "ksize": [2, 3, 2], "strides": [2, 2, 3],
                          "paddings": [1, 0, 1], "ceil_mode": True}),
        ("max_same", {"pooling_type": "max", "ksize": [3, 3, 3], "strides": [2, 2, 2],
                      "padding_algorithm": "SAME"}),
        ("avg_valid", {"pooling_type": "avg", "ksize": [2, 2, 2], "strides": [2, 2, 2],
                       "paddings": [1, 1, 1], "padding_algorithm": "VALID"}),
    ]:
        cs.append(case(f"pool3d_{tag}", "pool3d", {"X": ("x", x)}, attrs,
                       grad=tag in ("max", "avg_ceil_incl", "adaptive_avg", "max_ceil_pad")))
    for tag, attrs in [("plain", {"ksize": [2, 2, 3], "strides": [2, 2, 2], "paddings": [0, 1, 1]}),
                       ("adaptive", {"ksize": [2, 4, 3], "adaptive": True})]:
        cs.append(case(f"max_pool3d_with_index_{tag}", "max_pool3d_with_index", {"X": ("x", x)},
                       attrs, {"Out": F32, "Mask": I32}, grad=True, fetch=["Out", "Mask"]))
    cs.append(case("pool3d_max_ndhwc", "pool3d", {"X": ("x", u(1, 4, 5, 6, 3))},
                   {"pooling_type": "max", "ksize": [2, 2, 2], "strides": [2, 2, 2],
                    "data_format": "NDHWC"}, grad=True))
    return cs


# --- building and running ---------------------------------------------------------------------
def build(c):
    main, startup = paddle.static.Program(), paddle.static.Program()
    feeds = {}
    with paddle.static.program_guard(main, startup):
        helper = LayerHelper(c["op"])
        ins = {}
        for slot, spec in c["inputs"].items():
            kind, value = spec
            var = paddle.static.data(f"{slot.lower()}", list(value.shape), str(value.dtype))
            var.stop_gradient = kind != "x"
            feeds[var.name] = value
            ins[slot] = [var]
        outs = {}
        for slot, dtype in c["outputs"].items():
            dtypes = dtype if isinstance(dtype, list) else [dtype]
            outs[slot] = [helper.create_variable_for_type_inference(d) for d in dtypes]
        op = main.global_block().append_op(type=c["op"], inputs=ins, outputs=outs,
                                           attrs=dict(c["attrs"]))
        c["all_attrs"] = {k: v for k, v in op.all_attrs().items()
                          if isinstance(v, (bool, int, float, str, list)) and
                          not k.startswith(("op_", "with_quant"))}
        fetch = [v for s in (c["fetch"] or c["outputs"]) for v in outs[s]]
        grads = []
        if c["grad"]:
            y = fetch[0]
            shape = c["gw"] or y.shape
            gw = paddle.static.data("gw", list(shape), F32)
            feeds["gw"] = u(*shape)
            paddle.static.append_backward(paddle.mean(y * gw))
            grads = [n + "@GRAD" for n, (k, _) in zip(feeds, c["inputs"].values())
                     if k == "x" and main.global_block().has_var(n + "@GRAD")]
    c["forward"] = len(fetch)
    return main, feeds, [v.name for v in fetch] + grads


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="run only the cases whose name contains this (and "
                        "write nothing)")
    args = parser.parse_args()
    paddle.enable_static()
    cases = yolo_cases() + nms_cases() + roi_cases() + deform_cases() + grid_cases() + \
        box_cases() + proposal_cases() + interp_cases() + conv3d_cases()
    assert len({c["name"] for c in cases}) == len(cases), "case names must be unique"
    OUT.mkdir(parents=True, exist_ok=True)
    arrays, index = {}, {}
    exe = paddle.static.Executor(paddle.CPUPlace())
    for c in cases:
        if args.only and args.only not in c["name"]:
            continue
        try:
            prog, feeds, fetch = build(c)
            with paddle.static.scope_guard(paddle.static.Scope()):
                values = exe.run(prog, feed=feeds, fetch_list=fetch, return_numpy=False)
                values = [np.array(v) for v in values]  # LoD outputs: the rows only
        except Exception as e:  # report and keep going
            print(f"FAILED {c['name']}: {type(e).__name__}: {str(e)[-400:]}")
            continue
        if not args.only:
            for op in prog.global_block().ops:  # (the generator's own stack: noise in the file)
                if op.desc.has_attr("op_callstack"):
                    op.desc.remove_attr("op_callstack")
            (OUT / f"{c['name']}.pb").write_bytes(prog.desc.serialize_to_string())
        for n, v in feeds.items():
            arrays[f"{c['name']}/{n}"] = v
        for n, v in zip(fetch, values):
            arrays[f"{c['name']}/{n}"] = np.asarray(v)
        index[c["name"]] = {"op": c["op"], "feeds": list(feeds), "fetches": fetch,
                            "grad": c["grad"], "forward": c["forward"],
                            "inputs": {slot: slot.lower() for slot in c["inputs"]},
                            "attrs": c["all_attrs"]}
        print("ran", c["name"], [np.asarray(v).shape for v in values])
    if not args.only:
        for old in OUT.glob("*.pb"):
            if old.stem not in index:
                old.unlink()
        np.savez_compressed(OUT / "golden.npz", **arrays)
        (OUT / "cases.json").write_text(json.dumps(index, indent=1) + "\n")


if __name__ == "__main__":
    main()
