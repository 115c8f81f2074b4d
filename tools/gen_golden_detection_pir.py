"""Write the PIR `.json` twin of every forward in tests/golden_detection/, for the PIR reader.

Needs PaddlePaddle 3.3.1 in its default (PIR) mode, after tools/gen_golden_detection.py:

    /work/paddle-venv/bin/python tools/gen_golden_detection_pir.py

For each case of cases.json (op, input slots, every attribute the legacy op carried) it builds
the same op as a `pd_op` program through `paddle._C_ops` (argument order as in Paddle's
ops.yaml), saves it with `paddle.static.save_inference_model` (tests/golden_detection/pir/
<case>.json), runs the saved program on the case's feeds and checks that Paddle's PIR run gives
the legacy run's outputs (equal for integers, 1e-6 for floats). cases_pir.json lists, per case,
the feed names and the legacy fetch names the PIR program's outputs stand for, in order.
The legacy-only `multiclass_nms` has no PIR op and no twin.
"""

from __future__ import annotations

import json
import os
import pathlib
import tempfile

os.environ.setdefault("FLAGS_enable_pir_api", "1")

import numpy as np  # noqa: E402
import paddle  # noqa: E402
from paddle import _C_ops as C  # noqa: E402

GOLDEN = pathlib.Path(__file__).resolve().parent.parent / "tests" / "golden_detection"
OUT = GOLDEN / "pir"


def _interp(name):
    def build(i, a):
        return getattr(C, name)(i["X"], i.get("OutSize"), i.get("SizeTensor"), i.get("Scale"),
                                a["data_layout"], a["out_d"], a["out_h"], a["out_w"], a["scale"],
                                a["interp_method"], a["align_corners"], a["align_mode"])
    return build


BUILD = {
    "yolo_box": lambda i, a: C.yolo_box(
        i["X"], i["ImgSize"], a["anchors"], a["class_num"], a["conf_thresh"],
        a["downsample_ratio"], a["clip_bbox"], a["scale_x_y"], a["iou_aware"],
        a["iou_aware_factor"]),
    "multiclass_nms3": lambda i, a: C.multiclass_nms3(
        i["BBoxes"], i["Scores"], i.get("RoisNum"), a["score_threshold"], a["nms_top_k"],
        a["keep_top_k"], a["nms_threshold"], a["normalized"], a["nms_eta"],
        a["background_label"]),
    "matrix_nms": lambda i, a: C.matrix_nms(
        i["BBoxes"], i["Scores"], a["score_threshold"], a["nms_top_k"], a["keep_top_k"],
        a["post_threshold"], a["use_gaussian"], a["gaussian_sigma"], a["background_label"],
        a["normalized"]),
    "nms": lambda i, a: C.nms(i["Boxes"], a["iou_threshold"]),
    "roi_align": lambda i, a: C.roi_align(
        i["X"], i["ROIs"], i.get("RoisNum"), a["pooled_height"], a["pooled_width"],
        a["spatial_scale"], a["sampling_ratio"], a["aligned"]),
    "roi_pool": lambda i, a: C.roi_pool(
        i["X"], i["ROIs"], i.get("RoisNum"), a["pooled_height"], a["pooled_width"],
        a["spatial_scale"]),
    "deformable_conv": lambda i, a: C.deformable_conv(
        i["Input"], i["Offset"], i["Filter"], i.get("Mask"), a["strides"], a["paddings"],
        a["dilations"], a["deformable_groups"], a["groups"], a["im2col_step"]),
    "affine_grid": lambda i, a: C.affine_grid(i["Theta"], a["output_shape"],
                                              a["align_corners"]),
    "grid_sampler": lambda i, a: C.grid_sample(i["X"], i["Grid"], a["mode"], a["padding_mode"],
                                               a["align_corners"]),
    "pixel_shuffle": lambda i, a: C.pixel_shuffle(i["X"], a["upscale_factor"],
                                                  a["data_format"]),
    "pixel_unshuffle": lambda i, a: C.pixel_unshuffle(i["X"], a["downscale_factor"],
                                                      a["data_format"]),
    "prior_box": lambda i, a: C.prior_box(
        i["Input"], i["Image"], a["min_sizes"], a.get("max_sizes", []), a["aspect_ratios"],
        a["variances"], a["flip"], a["clip"], a["step_w"], a["step_h"], a["offset"],
        a["min_max_aspect_ratios_order"]),
    "box_coder": lambda i, a: C.box_coder(
        i["PriorBox"], i.get("PriorBoxVar"), i["TargetBox"], a["code_type"],
        a["box_normalized"], a["axis"], a["variance"]),
    "anchor_generator": lambda i, a: C.anchor_generator(
        i["Input"], a["anchor_sizes"], a["aspect_ratios"], a["variances"], a["stride"],
        a["offset"]),
    "generate_proposals_v2": lambda i, a: C.generate_proposals(
        i["Scores"], i["BboxDeltas"], i["ImShape"], i["Anchors"], i["Variances"],
        a["pre_nms_topN"], a["post_nms_topN"], a["nms_thresh"], a["min_size"], a["eta"],
        a["pixel_offset"]),
    # pd_op.distribute_fpn_proposals returns (rois per level, counts per level, restore
    # index); listed here in the legacy op's slot order (rois, RestoreIndex, counts)
    "distribute_fpn_proposals": lambda i, a: (lambda r: (r[0], r[2], r[1]))(
        C.distribute_fpn_proposals(i["FpnRois"], i.get("RoisNum"), a["min_level"],
                                   a["max_level"], a["refer_level"], a["refer_scale"],
                                   a["pixel_offset"])),
    "linear_interp_v2": _interp("linear_interp"),
    "bicubic_interp_v2": _interp("bicubic_interp"),
    "trilinear_interp_v2": _interp("trilinear_interp"),
    "conv3d": lambda i, a: C.conv3d(
        i["Input"], i["Filter"], a["strides"], a["paddings"], a["padding_algorithm"],
        a["groups"], a["dilations"], a["data_format"]),
    "pool3d": lambda i, a: C.pool3d(
        i["X"], a["ksize"], a["strides"], a["paddings"], a["ceil_mode"], a["exclusive"],
        a["data_format"], a["pooling_type"], a["global_pooling"], a["adaptive"],
        a["padding_algorithm"]),
}
BUILD["deformable_conv_v1"] = BUILD["deformable_conv"]
BUILD["conv3d_transpose"] = lambda i, a: C.conv3d_transpose(
    i["Input"], i["Filter"], a["strides"], a["paddings"], a["output_padding"],
    a["output_size"], a["padding_algorithm"], a["groups"], a["dilations"], a["data_format"])
BUILD["max_pool3d_with_index"] = lambda i, a: C.max_pool3d_with_index(
    i["X"], a["ksize"], a["strides"], a["paddings"], a["global_pooling"], a["adaptive"],
    a["ceil_mode"])
BUILD["psroi_pool"] = lambda i, a: C.psroi_pool(
    i["X"], i["ROIs"], i.get("RoisNum"), a["pooled_height"], a["pooled_width"],
    a["output_channels"], a["spatial_scale"])
BUILD["yolov3_loss"] = lambda i, a: C.yolo_loss(
    i["X"], i["GTBox"], i["GTLabel"], i.get("GTScore"), a["anchors"], a["anchor_mask"],
    a["class_num"], a["ignore_thresh"], a["downsample_ratio"], a["use_label_smooth"],
    a["scale_x_y"])


def _flat(values):
    out = []
    for v in values if isinstance(values, (list, tuple)) else [values]:
        out.extend(_flat(v) if isinstance(v, (list, tuple)) else [v])
    return out


def write(name, meta, golden, exe):
    main, startup = paddle.static.Program(), paddle.static.Program()
    feeds = {}
    with paddle.static.program_guard(main, startup):
        ins = {}
        for slot, feed in meta["inputs"].items():
            value = golden[f"{name}/{feed}"]
            ins[slot] = paddle.static.data(feed, list(value.shape), str(value.dtype))
            feeds[feed] = value
        outs = _flat(BUILD[meta["op"]](ins, meta["attrs"]))
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "m")
        paddle.static.save_inference_model(prefix, list(ins.values()), outs, exe, program=main)
        with paddle.static.scope_guard(paddle.static.Scope()):
            prog, feed_names, fetches = paddle.static.load_inference_model(prefix, exe)
            values = exe.run(prog, feed={n: feeds[n] for n in feed_names}, fetch_list=fetches,
                             return_numpy=False)
            values = [np.array(v) for v in values]  # LoD outputs: the rows only
        (OUT / f"{name}.json").write_bytes(pathlib.Path(prefix + ".json").read_bytes())
    wanted = meta["fetches"][:meta["forward"]]
    if meta["op"] in ("roi_pool", "yolov3_loss"):  # their pd_ops return the first output only
        wanted = wanted[:1]  # (roi_pool's Argmax, yolo_loss's masks are intermediate)
    assert len(values) == len(wanted), (name, len(values), len(wanted))
    for fetch, got in zip(wanted, values):
        want, got = golden[f"{name}/{fetch}"], np.asarray(got)
        assert want.shape == got.shape and want.dtype == got.dtype, (name, fetch)
        if want.dtype.kind in "iub":
            np.testing.assert_array_equal(got, want, err_msg=f"{name} {fetch}")
        else:
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7, err_msg=f"{name} {fetch}")
    return {"feeds": list(feed_names), "fetches": wanted}


def main():
    paddle.enable_static()
    cases = json.loads((GOLDEN / "cases.json").read_text())
    OUT.mkdir(exist_ok=True)
    for old in OUT.glob("*.json"):
        old.unlink()
    exe = paddle.static.Executor(paddle.CPUPlace())
    index = {}
    with np.load(GOLDEN / "golden.npz") as data:
        golden = {k: data[k] for k in data.files}
    for name, meta in sorted(cases.items()):
        if meta["op"] not in BUILD:
            print("no PIR op:", name)
            continue
        try:
            index[name] = write(name, meta, golden, exe)
        except Exception as e:  # report and keep going
            print(f"FAILED {name}: {type(e).__name__}: {str(e)[-400:]}")
            continue
        print("wrote", name)
    (GOLDEN / "cases_pir.json").write_text(json.dumps(index, indent=1) + "\n")


if __name__ == "__main__":
    main()
