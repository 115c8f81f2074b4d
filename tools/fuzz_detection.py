"""Fuzz the detection ops against Paddle 3.3.1: random shapes and attributes, tied scores,
duplicate boxes, boxes across the border, for multiclass_nms3 (both layouts), matrix_nms, nms,
generate_proposals_v2, roi_align, roi_pool, yolo_box, distribute_fpn_proposals and box_coder.
Two steps, two Pythons (pyir never imports Paddle):

    /work/paddle-venv/bin/python tools/fuzz_detection.py paddle /tmp/fuzz.npz   # Paddle's outputs
    .venv/bin/python tools/fuzz_detection.py check /tmp/fuzz.npz                 # pyir vs Paddle

`check` calls each op's pyir kernel on the same inputs and attributes and prints, per op, the
cases run and the mismatches (integer outputs must be equal, floats within 1e-4).
"""

from __future__ import annotations

import inspect
import json
import os
import pathlib
import sys

import numpy as np


def paddle_side(out):
    os.environ["FLAGS_enable_pir_api"] = "0"
    import paddle
    from paddle.base.layer_helper import LayerHelper

    paddle.enable_static()
    rng = np.random.default_rng(5)
    exe = paddle.static.Executor(paddle.CPUPlace())
    records = []

    def run(op, inputs, attrs, outs):
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            h = LayerHelper(op)
            ins = {
                s: [paddle.static.data(s.lower(), list(v.shape), str(v.dtype))]
                for s, v in inputs.items()
            }
            o = {
                s: (
                    [h.create_variable_for_type_inference(d) for d in dt]
                    if isinstance(dt, list)
                    else [h.create_variable_for_type_inference(dt)]
                )
                for s, dt in outs.items()
            }
            main.global_block().append_op(type=op, inputs=ins, outputs=o, attrs=attrs)
            fetch = [v for s in outs for v in o[s]]
        vals = exe.run(
            main,
            feed={s.lower(): v for s, v in inputs.items()},
            fetch_list=fetch,
            return_numpy=False,
        )
        records.append((op, inputs, attrs, [np.array(v) for v in vals]))

    def boxes(n, size=20.0):
        a = rng.uniform(-3, size, (n, 2))
        wh = rng.uniform(0.5, size / 2, (n, 2))
        b = np.concatenate([a, a + wh], 1)
        # duplicates and near-duplicates
        k = rng.integers(0, n, n // 4)
        b[k] = b[rng.integers(0, n, len(k))]
        return b.astype("float32")

    for t in range(60):
        n, m, c = int(rng.integers(1, 3)), int(rng.integers(3, 40)), int(rng.integers(2, 5))
        bb = np.stack([boxes(m) for _ in range(n)])
        sc = (np.round(rng.uniform(0, 1, (n, c, m)) * rng.integers(2, 6)) / 5).astype("float32")
        norm = bool(rng.integers(0, 2))
        attrs = {
            "score_threshold": float(rng.choice([0.0, 0.1, 0.3])),
            "nms_top_k": int(rng.choice([-1, 3, 10])),
            "keep_top_k": int(rng.choice([-1, 2, 7])),
            "nms_threshold": float(rng.choice([0.0, 0.3, 0.6])),
            "normalized": norm,
            "nms_eta": float(rng.choice([1.0, 0.8])),
            "background_label": int(rng.choice([-1, 0, 1])),
        }
        run(
            "multiclass_nms3",
            {"BBoxes": bb / (20 if norm else 1), "Scores": sc},
            attrs,
            {"Out": "float32", "Index": "int32", "NmsRoisNum": "int32"},
        )
        mattrs = {
            "score_threshold": float(rng.choice([0.0, 0.1])),
            "post_threshold": float(rng.choice([0.0, 0.1, 0.3])),
            "nms_top_k": int(rng.choice([-1, 4, 12])),
            "keep_top_k": int(rng.choice([-1, 3, 9])),
            "use_gaussian": bool(rng.integers(0, 2)),
            "gaussian_sigma": 2.0,
            "background_label": int(rng.choice([-1, 0])),
            "normalized": norm,
        }
        run(
            "matrix_nms",
            {"BBoxes": bb / (20 if norm else 1), "Scores": sc},
            mattrs,
            {"Out": "float32", "Index": "int32", "RoisNum": "int32"},
        )
        run(
            "nms",
            {"Boxes": bb[0]},
            {"iou_threshold": float(rng.choice([0.0, 0.2, 0.5]))},
            {"KeepBoxesIdxs": "int64"},
        )
        # per-class layout
        cnt = rng.integers(0, 6, 3)
        mm = int(cnt.sum())
        if mm:
            rb = np.stack([boxes(mm) for _ in range(c)], 1)
            rs = (np.round(rng.uniform(0, 1, (mm, c)) * 4) / 4).astype("float32")
            run(
                "multiclass_nms3",
                {"BBoxes": rb, "Scores": rs, "RoisNum": cnt.astype("int32")},
                attrs,
                {"Out": "float32", "Index": "int32", "NmsRoisNum": "int32"},
            )
        # proposals
        a_, h_, w_ = int(rng.integers(1, 4)), int(rng.integers(2, 6)), int(rng.integers(2, 6))
        sc2 = (np.round(rng.uniform(0, 1, (n, a_, h_, w_)) * rng.integers(2, 5)) / 4).astype(
            "float32"
        )
        dl = rng.uniform(-0.4, 0.4, (n, 4 * a_, h_, w_)).astype("float32")
        base = np.array([[-8, -8, 8, 8], [-12, -6, 12, 6], [-6, -12, 6, 12]], "float32")[:a_]
        ys, xs = np.meshgrid(np.arange(h_) * 6.0, np.arange(w_) * 6.0, indexing="ij")
        anc = (np.stack([xs, ys, xs, ys], -1)[:, :, None, :] + base[None, None]).astype("float32")
        var = np.ones_like(anc)
        im = np.tile(np.array([[h_ * 6.0, w_ * 6.0]], "float32"), (n, 1))
        pattrs = {
            "pre_nms_topN": int(rng.choice([-1, 5, 20, 200])),
            "post_nms_topN": int(rng.choice([-1, 3, 8])),
            "nms_thresh": float(rng.choice([0.0, 0.5, 0.7])),
            "min_size": float(rng.choice([0.1, 3.0])),
            "eta": float(rng.choice([1.0, 0.9])),
            "pixel_offset": bool(rng.integers(0, 2)),
        }
        run(
            "generate_proposals_v2",
            {"Scores": sc2, "BboxDeltas": dl, "ImShape": im, "Anchors": anc, "Variances": var},
            pattrs,
            {"RpnRois": "float32", "RpnRoiProbs": "float32", "RpnRoisNum": "int32"},
        )

    for t in range(40):
        n = int(rng.integers(1, 3))
        ch = int(rng.integers(1, 4))
        H, W = int(rng.integers(3, 9)), int(rng.integers(3, 9))
        x = rng.uniform(-1, 1, (n, ch, H, W)).astype("float32")
        cnt = rng.integers(1, 4, n).astype("int32")
        R = int(cnt.sum())
        rois = boxes(R, size=float(max(H, W) * 2))
        ra = {
            "pooled_height": int(rng.integers(1, 4)),
            "pooled_width": int(rng.integers(1, 4)),
            "spatial_scale": float(rng.choice([0.25, 0.5, 1.0])),
            "sampling_ratio": int(rng.choice([-1, 1, 2, 3])),
            "aligned": bool(rng.integers(0, 2)),
        }
        run("roi_align", {"X": x, "ROIs": rois, "RoisNum": cnt}, ra, {"Out": "float32"})
        rp = {k: ra[k] for k in ("pooled_height", "pooled_width", "spatial_scale")}
        run(
            "roi_pool",
            {"X": x, "ROIs": rois, "RoisNum": cnt},
            rp,
            {"Out": "float32", "Argmax": "int64"},
        )
        na, cls = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        iou_aware = bool(rng.integers(0, 2))
        yx = rng.uniform(-4, 4, (n, na * (5 + cls + (1 if iou_aware else 0)), H, W)).astype(
            "float32"
        )
        img = rng.integers(10, 90, (n, 2)).astype("int32")
        ya = {
            "anchors": [int(v) for v in rng.integers(4, 40, 2 * na)],
            "class_num": cls,
            "conf_thresh": float(rng.choice([0.0, 0.3, 0.6])),
            "downsample_ratio": int(rng.choice([8, 16, 32])),
            "clip_bbox": bool(rng.integers(0, 2)),
            "scale_x_y": float(rng.choice([1.0, 1.1, 1.2])),
            "iou_aware": iou_aware,
            "iou_aware_factor": float(rng.choice([0.3, 0.5])),
        }
        run("yolo_box", {"X": yx, "ImgSize": img}, ya, {"Boxes": "float32", "Scores": "float32"})
        fr = boxes(int(rng.integers(1, 12)), size=float(rng.choice([40.0, 300.0])))
        cnt2 = np.array([len(fr)], "int32")
        lv = (int(rng.integers(1, 3)), int(rng.integers(3, 6)))
        fa = {
            "min_level": lv[0],
            "max_level": lv[1],
            "refer_level": int(rng.integers(lv[0], lv[1] + 1)),
            "refer_scale": int(rng.choice([16, 56, 224])),
            "pixel_offset": bool(rng.integers(0, 2)),
        }
        L = lv[1] - lv[0] + 1
        run(
            "distribute_fpn_proposals",
            {"FpnRois": fr, "RoisNum": cnt2},
            fa,
            {
                "MultiFpnRois": ["float32"] * L,
                "RestoreIndex": "int32",
                "MultiLevelRoIsNum": ["int32"] * L,
            },
        )
        pb_ = boxes(int(rng.integers(1, 6)))
        tb = boxes(int(rng.integers(1, 5)))
        norm = bool(rng.integers(0, 2))
        pv = rng.uniform(0.1, 0.5, pb_.shape).astype("float32")
        run(
            "box_coder",
            {
                "PriorBox": pb_ / (30 if norm else 1),
                "PriorBoxVar": pv,
                "TargetBox": tb / (30 if norm else 1),
            },
            {"code_type": "encode_center_size", "box_normalized": norm},
            {"OutputBox": "float32"},
        )
        dl = rng.uniform(-1, 1, (int(rng.integers(1, 4)), len(pb_), 4)).astype("float32")
        run(
            "box_coder",
            {"PriorBox": pb_, "PriorBoxVar": pv, "TargetBox": dl},
            {"code_type": "decode_center_size", "box_normalized": norm, "axis": 0},
            {"OutputBox": "float32"},
        )
    arrays = {}
    meta = []
    for i, (op, inputs, attrs, outs) in enumerate(records):
        for k, v in inputs.items():
            arrays[f"{i}/in/{k}"] = np.asarray(v)
        for j, v in enumerate(outs):
            arrays[f"{i}/out/{j}"] = np.asarray(v)
        meta.append(
            [
                op,
                list(inputs),
                {
                    k: (v.item() if hasattr(v, "item") else v)
                    for k, v in attrs.items()
                    if not k.startswith(("op_", "with_"))
                },
                len(outs),
            ]
        )
    np.savez_compressed(out, **arrays)
    (pathlib.Path(out).with_suffix(".json")).write_text(json.dumps(meta))
    print(len(records), "cases written to", out)


def check(out):
    from pyir import registry

    meta = json.loads(pathlib.Path(out).with_suffix(".json").read_text())
    z = np.load(out)
    records = [
        (op, {k: z[f"{i}/in/{k}"] for k in ins}, attrs, [z[f"{i}/out/{j}"] for j in range(n)])
        for i, (op, ins, attrs, n) in enumerate(meta)
    ]
    bad = {}
    tot = {}
    for op, inputs, attrs, outs in records:
        d = registry.lookup(op)
        fn = d.kernel if hasattr(d, "kernel") else None
        sig = inspect.signature(fn)
        args = {}
        for p in sig.parameters:
            if p in inputs:
                args[p] = inputs[p]
            elif p in attrs:
                args[p] = attrs[p]
            elif any(a.name == p for a in d.attrs):
                args[p] = next(a.default for a in d.attrs if a.name == p)
            else:
                args[p] = None
        res = fn(**args)
        got = [v for s in res for v in (res[s] if isinstance(res[s], list) else [res[s]])]
        ok = len(got) == len(outs)
        for g, w in zip(got, outs):
            g = np.asarray(g)
            if g.shape != w.shape or g.dtype != w.dtype:
                ok = False
                break
            if w.dtype.kind in "iu":
                if not np.array_equal(g, w):
                    ok = False
            elif not np.allclose(g, w, rtol=1e-4, atol=1e-4):
                ok = False
        tot[op] = tot.get(op, 0) + 1
        if not ok:
            bad.setdefault(op, []).append(
                (attrs, [np.asarray(g).shape for g in got], [w.shape for w in outs])
            )
    print({k: (tot[k], len(bad.get(k, []))) for k in tot})
    for k, v in bad.items():
        print(k, v[:2])
    return 1 if bad else 0


if __name__ == "__main__":
    mode, path = sys.argv[1], sys.argv[2]
    if mode == "paddle":
        paddle_side(path)
    else:
        sys.exit(check(path))
