"""Regenerate tests/golden_zoo/: paddle.vision.models networks and detection/OCR heads saved
by Paddle 3.3.1 in both of its formats, with an input and Paddle's outputs.

Needs PaddlePaddle 3.3.1 (a development oracle only; pyir and its tests never import it):

    /work/paddle-venv/bin/python tools/gen_golden_zoo.py [--only NAME]

The script runs itself twice as a worker, once with FLAGS_enable_pir_api=0 (paddle.jit.save
writes the legacy model.pdmodel) and once in Paddle's default mode (model.json, the PIR
program), then assembles tests/golden_zoo/<net>/:

    model.pdmodel   the legacy program (absent when Paddle 3.3.1 cannot save the net legacy)
    model.json      the PIR program
    model.pdiparams the parameters; both formats wrote the same bytes, so one file serves both
                    (when they differ the PIR pair is pir.json + pir.pdiparams)
    inputs.npz      the feeds, by input name
    expected.npz    Paddle's outputs of the loaded legacy model (else the PIR one), out0, out1...
    meta.json       feeds, fetch names per format, the largest PIR/legacy output difference

Widths are reduced so the directory stays small: the mobilenets by their `scale` argument,
the others by dividing every channel count of Conv2D / Linear / BatchNorm by a factor (the
image's 3 channels and the 10 classes stay), which keeps every concat, split and flatten of
the architecture consistent. Weights are seeded random values (numpy), the same in both runs.
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import zlib

import numpy as np

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "golden_zoo"
CLASSES = 10


# --- reduced widths ---------------------------------------------------------------------------
def _divider(factor):
    def ch(c):
        if not isinstance(c, int) or c <= 3 or c == CLASSES or factor == 1:
            return c
        if c % factor:
            raise ValueError(f"channel count {c} is not a multiple of {factor}")
        return c // factor
    return ch


@contextlib.contextmanager
def reduced_widths(factor):
    """Divide the channel arguments of the layers the zoo uses by `factor` while building."""
    import paddle.nn as nn

    ch = _divider(factor)
    patched = {nn.Conv2D: ("in_channels", "out_channels"), nn.Linear: ("in_features",
               "out_features"), nn.BatchNorm2D: ("num_features",), nn.BatchNorm: ("num_channels",)}
    saved = {}
    for cls, names in patched.items():
        orig = cls.__init__
        sig = inspect.signature(orig)

        def init(self, *args, __orig=orig, __sig=sig, __names=names, **kwargs):
            bound = __sig.bind(self, *args, **kwargs)
            groups, cin = bound.arguments.get("groups", 1), bound.arguments.get("in_channels")
            for n in __names:
                if n in bound.arguments:
                    bound.arguments[n] = ch(bound.arguments[n])
            if groups != 1 and groups == cin:  # depthwise stays depthwise
                bound.arguments["groups"] = bound.arguments["in_channels"]
            __orig(*bound.args, **bound.kwargs)

        saved[cls] = orig
        cls.__init__ = init
    try:
        yield
    finally:
        for cls, orig in saved.items():
            cls.__init__ = orig


def seed_weights(model, seed):
    """Seeded values for every parameter and buffer: fan-in scaled weights, BN statistics
    away from 0/1 so batch norm is not the identity."""
    import paddle

    rng = np.random.default_rng(seed)
    state = model.state_dict()
    new = {}
    for name, value in state.items():
        shape = list(value.shape)
        if name.endswith("_mean"):
            v = rng.uniform(-0.2, 0.2, shape)
        elif name.endswith("_variance"):
            v = rng.uniform(0.5, 1.5, shape)
        elif len(shape) == 1 and name.endswith("weight"):
            v = rng.uniform(0.5, 1.5, shape)
        elif len(shape) == 1:
            v = rng.uniform(-0.1, 0.1, shape)
        else:
            fan = shape[0] if len(shape) == 2 else int(np.prod(shape[1:]))
            if len(shape) == 2 and "weight_" in name:  # LSTM weight_ih_l0 [4H, in]
                fan = shape[1]
            v = rng.uniform(-1, 1, shape) * np.sqrt(3.0 / fan)
        new[name] = paddle.to_tensor(v.astype(str(value.dtype).split(".")[-1]))
    model.set_state_dict(new)


# --- the networks -----------------------------------------------------------------------------
def image(n, c, h, w, seed):
    """Image-like feeds with few distinct values (k / 32 - 2), so the archive compresses."""
    rng = np.random.default_rng(seed)
    return (rng.integers(0, 128, (n, c, h, w)) / 32.0 - 2.0).astype("float32")


def vision_nets():
    """name -> (builder, width factor, feeds {name: array})."""
    import paddle.vision.models as m

    return {
        "lenet": (lambda: m.LeNet(num_classes=CLASSES), 2, {"x": image(1, 1, 28, 28, 1)}),
        "resnet18": (lambda: m.resnet18(num_classes=CLASSES), 32, {"x": image(1, 3, 32, 32, 2)}),
        "mobilenet_v1": (lambda: m.mobilenet_v1(scale=0.125, num_classes=CLASSES), 2,
                         {"x": image(1, 3, 32, 32, 3)}),
        "mobilenet_v2": (lambda: m.mobilenet_v2(scale=0.25, num_classes=CLASSES), 4,
                         {"x": image(1, 3, 32, 32, 4)}),
        "mobilenet_v3_small": (lambda: m.mobilenet_v3_small(scale=0.5, num_classes=CLASSES), 4,
                               {"x": image(1, 3, 32, 32, 5)}),
        "vgg11": (lambda: m.vgg11(num_classes=CLASSES), 64, {"x": image(1, 3, 32, 32, 6)}),
        "vgg11_bn": (lambda: m.vgg11(batch_norm=True, num_classes=CLASSES), 64,
                     {"x": image(1, 3, 32, 32, 7)}),
        "squeezenet1_0": (lambda: m.squeezenet1_0(num_classes=CLASSES), 8,
                          {"x": image(1, 3, 64, 64, 8)}),
        "shufflenet_v2_x0_25": (lambda: m.shufflenet_v2_x0_25(num_classes=CLASSES), 4,
                                {"x": image(1, 3, 32, 32, 10)}),
        "densenet121": (lambda: m.densenet121(num_classes=CLASSES), 16,
                        {"x": image(1, 3, 32, 32, 12)}),
        "googlenet": (lambda: m.googlenet(num_classes=CLASSES), 8,
                      {"x": image(1, 3, 192, 192, 13)}),
        "alexnet": (lambda: m.alexnet(num_classes=CLASSES), 64, {"x": image(1, 3, 224, 224, 14)}),
        "resnet50": (lambda: m.resnet50(num_classes=CLASSES), 32, {"x": image(1, 3, 32, 32, 15)}),
    }


def multiclass_nms3(bboxes, scores, score_threshold, nms_top_k, keep_top_k, nms_threshold,
                    normalized, nms_eta=1.0, background_label=-1):
    """The op PaddleDetection exports (ppdet/modeling/ops.py does the same)."""
    import paddle
    from paddle.base.layer_helper import LayerHelper

    if paddle.in_dynamic_mode() or paddle.framework.in_pir_mode():
        return paddle._C_ops.multiclass_nms3(bboxes, scores, None, score_threshold, nms_top_k,
                                             keep_top_k, nms_threshold, normalized, nms_eta,
                                             background_label)
    helper = LayerHelper("multiclass_nms3")
    out = helper.create_variable_for_type_inference(bboxes.dtype)
    index = helper.create_variable_for_type_inference("int32")
    num = helper.create_variable_for_type_inference("int32")
    helper.append_op(type="multiclass_nms3", inputs={"BBoxes": bboxes, "Scores": scores},
                     outputs={"Out": out, "Index": index, "NmsRoisNum": num},
                     attrs={"score_threshold": score_threshold, "nms_top_k": nms_top_k,
                            "keep_top_k": keep_top_k, "nms_threshold": nms_threshold,
                            "normalized": normalized, "nms_eta": nms_eta,
                            "background_label": background_label})
    return out, index, num


def grid_sample(x, grid):
    """F.grid_sample (bilinear, zeros, align_corners=False); Paddle 3.3.1's own refuses legacy
    static mode, so there the op is appended as the legacy grid_sampler."""
    import paddle
    import paddle.nn.functional as F
    from paddle.base.layer_helper import LayerHelper

    if paddle.in_dynamic_mode() or paddle.framework.in_pir_mode():
        return F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros",
                             align_corners=False)
    helper = LayerHelper("grid_sampler")
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(type="grid_sampler", inputs={"X": x, "Grid": grid}, outputs={"Output": out},
                     attrs={"mode": "bilinear", "padding_mode": "zeros", "align_corners": False})
    return out


def head_nets():
    import paddle
    import paddle.nn as nn
    import paddle.nn.functional as F
    from paddle.vision import ops as V

    class YoloHead(nn.Layer):
        """A YOLOv3 output layer: 1x1 conv, yolo_box, multiclass_nms3 (PaddleDetection's
        export of PP-YOLO / YOLOv3)."""

        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2D(16, 3 * (5 + 4), 1)

        def forward(self, feat, im_size):
            x = self.conv(feat)
            boxes, scores = V.yolo_box(x, im_size, anchors=[10, 13, 16, 30, 33, 23],
                                       class_num=4, conf_thresh=0.3, downsample_ratio=8,
                                       clip_bbox=True, scale_x_y=1.05)
            scores = paddle.transpose(scores, [0, 2, 1])
            return multiclass_nms3(boxes, scores, score_threshold=0.3, nms_top_k=60,
                                   keep_top_k=20, nms_threshold=0.45, normalized=False)

    class RoiHead(nn.Layer):
        """A two-stage detector's box head: conv features, roi_align and roi_pool over the
        given boxes, a classifier."""

        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2D(8, 8, 3, padding=1)
            self.fc = nn.Linear(8 * 4 * 4 + 8 * 3 * 3, 5)

        def forward(self, feat, boxes, boxes_num):
            x = F.relu(self.conv(feat))
            a = V.roi_align(x, boxes, boxes_num, output_size=4, spatial_scale=0.5,
                            sampling_ratio=2, aligned=True)
            p = V.roi_pool(x, boxes, boxes_num, output_size=3, spatial_scale=0.5)
            y = paddle.concat([paddle.flatten(a, 1), paddle.flatten(p, 1)], 1)
            return F.softmax(self.fc(y))

    class CrnnHead(nn.Layer):
        """A CRNN text recognizer: conv + BN + pool to one row, a bidirectional LSTM over the
        columns, per-column class scores and the greedy CTC labels."""

        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2D(3, 8, 3, padding=1)
            self.bn = nn.BatchNorm2D(8)
            self.conv2 = nn.Conv2D(8, 16, 3, padding=1)
            self.lstm = nn.LSTM(16, 12, direction="bidirect")
            self.fc = nn.Linear(24, 11)

        def forward(self, img):
            x = F.max_pool2d(F.relu(self.bn(self.conv1(img))), 2)
            x = F.max_pool2d(F.relu(self.conv2(x)), kernel_size=(8, 1))
            x = paddle.transpose(paddle.squeeze(x, 2), [0, 2, 1])
            y, _ = self.lstm(x)
            probs = F.softmax(self.fc(y), -1)
            return probs, paddle.argmax(probs, -1)

    class WarpHead(nn.Layer):
        """Spatial transformer + deformable conv + sub-pixel upsampling (affine_grid,
        grid_sampler, deformable_conv v2, pixel_shuffle)."""

        def __init__(self):
            super().__init__()
            self.loc = nn.Linear(4 * 4 * 4, 6)
            self.offset = nn.Conv2D(4, 2 * 9, 3, padding=1)
            self.mask = nn.Conv2D(4, 9, 3, padding=1)
            self.deform = V.DeformConv2D(4, 8, 3, padding=1)

        def forward(self, x):
            theta = self.loc(paddle.flatten(F.adaptive_avg_pool2d(x, 4), 1)) * 0.2
            theta = theta + paddle.to_tensor([1.0, 0, 0, 0, 1.0, 0])
            grid = F.affine_grid(paddle.reshape(theta, [-1, 2, 3]), [1, 4, 8, 8],
                                 align_corners=False)
            y = grid_sample(x, grid)
            mask = F.hardsigmoid(self.mask(y))
            z = self.deform(y, self.offset(y), mask)
            return F.pixel_shuffle(z, 2)

    class SsdHead(nn.Layer):
        """An SSD output layer: location and confidence convs, prior_box, box_coder decoding,
        softmax and multiclass_nms3 with class 0 as background."""

        def __init__(self):
            super().__init__()
            self.loc = nn.Conv2D(8, 4 * 4, 3, padding=1)
            self.conf = nn.Conv2D(8, 4 * 3, 3, padding=1)

        def forward(self, feat, image):
            priors, var = V.prior_box(feat, image, min_sizes=[8.0], max_sizes=[16.0],
                                      aspect_ratios=[2.0], flip=True, clip=True)
            priors, var = paddle.reshape(priors, [-1, 4]), paddle.reshape(var, [-1, 4])
            loc = paddle.reshape(paddle.transpose(self.loc(feat), [0, 2, 3, 1]), [1, -1, 4])
            conf = paddle.reshape(paddle.transpose(self.conf(feat), [0, 2, 3, 1]), [1, -1, 3])
            boxes = V.box_coder(priors, var, loc * 0.5, code_type="decode_center_size",
                                box_normalized=True)
            scores = paddle.transpose(F.softmax(conf * 3.0), [0, 2, 1])
            return multiclass_nms3(boxes, scores, score_threshold=0.2, nms_top_k=40,
                                   keep_top_k=12, nms_threshold=0.45, normalized=True,
                                   background_label=0)

    class RpnHead(nn.Layer):
        """A Faster R-CNN / FPN second stage: RPN convs, generate_proposals_v2, the proposals
        distributed over two FPN levels, roi_align on each, restored to proposal order."""

        def __init__(self):
            super().__init__()
            self.score = nn.Conv2D(8, 3, 1)
            self.delta = nn.Conv2D(8, 12, 1)
            self.fc = nn.Linear(8 * 2 * 2, 4)

        def forward(self, feat, im_shape, anchors, variances):
            rois, probs, num = V.generate_proposals(
                self.score(feat), self.delta(feat) * 0.3, im_shape, anchors, variances,
                pre_nms_top_n=60, post_nms_top_n=16, nms_thresh=0.6, min_size=2.0,
                pixel_offset=True, return_rois_num=True)
            multi, restore, nums = V.distribute_fpn_proposals(
                rois, 2, 3, 2, 8, pixel_offset=True, rois_num=num)
            coarse = F.max_pool2d(feat, 2)
            a = V.roi_align(feat, multi[0], nums[0], 2, spatial_scale=0.25, sampling_ratio=2)
            b = V.roi_align(coarse, multi[1], nums[1], 2, spatial_scale=0.125,
                            sampling_ratio=2)
            y = paddle.gather(paddle.concat([a, b]), paddle.squeeze(restore, 1))
            return F.softmax(self.fc(paddle.flatten(y, 1))), rois, probs, num

    class MatrixNmsHead(nn.Layer):
        """A SOLOv2-style decoder: per-cell boxes and class scores, matrix_nms (gaussian)."""

        def __init__(self):
            super().__init__()
            self.box = nn.Conv2D(8, 4, 3, padding=1)
            self.cls = nn.Conv2D(8, 3, 3, padding=1)

        def forward(self, feat):
            raw = paddle.reshape(paddle.transpose(self.box(feat), [0, 2, 3, 1]), [1, -1, 4])
            xy = raw[:, :, :2] * 4.0 + 8.0
            boxes = paddle.concat([xy, xy + F.relu(raw[:, :, 2:]) * 6.0 + 1.0], -1)
            scores = F.softmax(paddle.reshape(self.cls(feat), [1, 3, -1]) * 2.0, 1)
            out, index, num = V.matrix_nms(boxes, scores, score_threshold=0.3,
                                           post_threshold=0.2, nms_top_k=12, keep_top_k=8,
                                           use_gaussian=True, background_label=0,
                                           normalized=False, return_index=True)
            return out, index, num

    rng = np.random.default_rng(99)
    ys, xs = np.meshgrid(np.arange(6) * 4.0, np.arange(6) * 4.0, indexing="ij")
    base = np.array([[-6, -6, 6, 6], [-9, -4, 9, 4], [-4, -9, 4, 9]], np.float32)
    anchors = (np.stack([xs, ys, xs, ys], -1)[:, :, None, :] + base[None, None]).astype("float32")
    boxes = np.array([[1, 2, 12, 14], [0, 0, 31, 31], [4.5, 3.2, 9.7, 20.1], [20, 18, 31, 30],
                      [30, 30, 34, 36]], np.float32)
    return {
        "head_yolo_nms": (YoloHead, 1, {"feat": rng.uniform(-2, 2, (1, 16, 8, 8))
                                        .astype("float32"),
                                        "im_size": np.array([[64, 64]], np.int32)}),
        "head_roi": (RoiHead, 1, {"feat": rng.uniform(-1, 1, (1, 8, 16, 16)).astype("float32"),
                                  "boxes": boxes, "boxes_num": np.array([5], np.int32)}),
        "head_crnn": (CrnnHead, 1, {"img": image(1, 3, 16, 64, 21)}),
        "head_warp": (WarpHead, 1, {"x": rng.uniform(-1, 1, (1, 4, 8, 8)).astype("float32")}),
        "head_ssd": (SsdHead, 1, {"feat": rng.uniform(-1, 1, (1, 8, 4, 4)).astype("float32"),
                                  "image": np.zeros((1, 3, 32, 32), np.float32)}),
        "head_rpn_fpn": (RpnHead, 1, {"feat": rng.uniform(-1, 1, (1, 8, 6, 6)).astype("float32"),
                                      "im_shape": np.array([[24, 24]], np.float32),
                                      "anchors": anchors,
                                      "variances": np.ones(anchors.shape, np.float32)}),
        "head_matrix_nms": (MatrixNmsHead, 1,
                            {"feat": rng.uniform(-1, 1, (1, 8, 4, 4)).astype("float32")}),
    }


# --- the worker (one Paddle mode) -------------------------------------------------------------
def _name(value):
    """A fetch target's name (PIR values of most ops have none)."""
    try:
        return value.name
    except ValueError:
        return None


def work(fmt, stage, only):
    import paddle

    nets = {**vision_nets(), **head_nets()}
    for name, (build, factor, feeds) in sorted(nets.items()):
        index = zlib.crc32(name.encode()) % 100_000  # the net's seed, whatever else is listed
        if only and only not in name:
            continue
        folder = stage / fmt / name
        folder.mkdir(parents=True, exist_ok=True)
        info = {}
        try:
            paddle.disable_static()
            paddle.seed(index)
            with reduced_widths(factor):
                model = build()
            seed_weights(model, 1000 + index)
            model.eval()
            specs = [paddle.static.InputSpec(list(v.shape), str(v.dtype), n)
                     for n, v in feeds.items()]
            eager = model(*[paddle.to_tensor(v) for v in feeds.values()])
            eager = [eager] if isinstance(eager, paddle.Tensor) else list(eager)
            static = paddle.jit.to_static(model, input_spec=specs, full_graph=True)
            paddle.jit.save(static, str(folder / "model"))
            paddle.enable_static()
            exe = paddle.static.Executor(paddle.CPUPlace())
            with paddle.static.scope_guard(paddle.static.Scope()):
                prog, feed_names, fetches = paddle.static.load_inference_model(
                    str(folder / "model"), exe)
                outs = exe.run(prog, feed={n: feeds[n] for n in feed_names},
                               fetch_list=fetches)
            paddle.disable_static()
            info["feed_names"] = list(feed_names)
            info["fetch_names"] = [_name(v) for v in fetches]
            info["eager_max_diff"] = max(
                float(np.max(np.abs(np.asarray(o, np.float64) - e.numpy()), initial=0))
                for o, e in zip(outs, eager))
            info["params"] = int(sum(int(np.prod(p.shape)) for p in model.parameters()))
            np.savez_compressed(folder / "outputs.npz", **{f"out{i}": np.asarray(o)
                                                for i, o in enumerate(outs)})
            np.savez_compressed(folder / "inputs.npz", **feeds)
            info["ok"] = True
        except Exception as exc:  # record and keep going: Paddle cannot save some nets legacy
            info = {"ok": False, "error": f"{type(exc).__name__}: {str(exc)[-800:]}"}
            paddle.disable_static()
        (folder / "info.json").write_text(json.dumps(info, indent=1))
        print(fmt, name, "ok" if info["ok"] else info["error"][:200], flush=True)


# --- assembling -------------------------------------------------------------------------------
def assemble(stage, only):
    names = sorted({p.name for fmt in ("legacy", "pir") for p in (stage / fmt).iterdir()})
    summary = []
    for name in names:
        if only and only not in name:
            continue
        legacy, pir = stage / "legacy" / name, stage / "pir" / name
        li = json.loads((legacy / "info.json").read_text())
        pi = json.loads((pir / "info.json").read_text())
        folder = OUT / name
        shutil.rmtree(folder, ignore_errors=True)
        if not li["ok"] and not pi["ok"]:
            print("SKIPPED", name, li["error"][:200], "|", pi["error"][:200])
            continue
        folder.mkdir(parents=True)
        meta = {"legacy": None, "pir": None}
        first = legacy if li["ok"] else pir
        shutil.copy(first / "inputs.npz", folder / "inputs.npz")
        shutil.copy(first / "outputs.npz", folder / "expected.npz")
        if li["ok"]:
            shutil.copy(legacy / "model.pdmodel", folder / "model.pdmodel")
            shutil.copy(legacy / "model.pdiparams", folder / "model.pdiparams")
            meta["legacy"] = {"model": "model.pdmodel", "params": "model.pdiparams",
                              "feed_names": li["feed_names"], "fetch_names": li["fetch_names"]}
        else:
            meta["legacy_error"] = li["error"]
        if pi["ok"]:
            same = li["ok"] and (legacy / "model.pdiparams").read_bytes() == \
                (pir / "model.pdiparams").read_bytes()
            stem = "model" if same or not li["ok"] else "pir"
            shutil.copy(pir / "model.json", folder / f"{stem}.json")
            if not same:
                shutil.copy(pir / "model.pdiparams", folder / f"{stem}.pdiparams")
            meta["pir"] = {"model": f"{stem}.json", "params": f"{stem}.pdiparams",
                           "feed_names": pi["feed_names"], "fetch_names": pi["fetch_names"]}
            if li["ok"]:
                with np.load(legacy / "outputs.npz") as a, np.load(pir / "outputs.npz") as b:
                    meta["pir_vs_legacy_max_diff"] = max(
                        float(np.max(np.abs(a[k].astype(np.float64) - b[k]), initial=0))
                        for k in a.files)
        else:
            meta["pir_error"] = pi["error"]
        meta["params"] = (li if li["ok"] else pi)["params"]
        (folder / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
        size = sum(p.stat().st_size for p in folder.iterdir())
        summary.append((name, size, meta["params"]))
        print(f"{name:24s} {size / 1024:8.1f} KB  params {meta['params']:8d}  legacy "
              f"{'ok' if li['ok'] else 'FAILED'}  pir {'ok' if pi['ok'] else 'FAILED'}  "
              f"diff {meta.get('pir_vs_legacy_max_diff')}")
    print(f"total {sum(s for _, s, _ in summary) / 1024:.1f} KB")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="regenerate the nets whose name contains this")
    parser.add_argument("--worker", choices=["legacy", "pir"], help=argparse.SUPPRESS)
    parser.add_argument("--stage", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        work(args.worker, pathlib.Path(args.stage), args.only)
        return
    with tempfile.TemporaryDirectory() as tmp:
        stage = pathlib.Path(tmp)
        for fmt, flag in (("legacy", "0"), ("pir", "1")):
            env = dict(os.environ, FLAGS_enable_pir_api=flag)
            cmd = [sys.executable, __file__, "--worker", fmt, "--stage", tmp]
            subprocess.run(cmd + (["--only", args.only] if args.only else []), env=env,
                           check=True)
        assemble(stage, args.only)


if __name__ == "__main__":
    main()
