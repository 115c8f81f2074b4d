"""Regenerate tests/golden_pir/: small Paddle 3.3.1 models saved in both program formats.

Needs PaddlePaddle 3.3.1 (a development oracle only; pyir and its tests never import it):

    /work/paddle-venv/bin/python tools/gen_golden_pir.py [--only NAME] [--out DIR] [--zoo]

Each model is a seeded `paddle.nn.Layer`, saved with `paddle.jit.save` twice, in two
processes: the default mode writes `model.json` (PIR) and `FLAGS_enable_pir_api=0` writes
`model.pdmodel` (legacy). Both share one `model.pdiparams` (the parameter stream is the same
in both modes; this script checks the two are byte-identical). Each directory holds:

    model.json, model.pdmodel (when Paddle 3.3.1 can still save the model in the legacy
    format; nn.LSTM no longer can), model.pdiparams, inputs.npz (by feed name),
    expected.npz (Paddle's outputs, "out0", "out1", ... in fetch order), meta.json

`--zoo` saves paddle.vision.models networks (reduced widths where the API allows) into
--out (default /tmp/pir_zoo) instead, for the coverage and benchmark scripts; they are not
committed.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "golden_pir"


# --- the models (built inside the worker process) ---------------------------------------------
def build(name):
    import numpy as np
    import paddle
    import paddle.nn as nn
    import paddle.nn.functional as F

    paddle.seed(20261125)
    rng = np.random.default_rng(20261125)

    class MLP(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(8, 16)
            self.fc2 = nn.Linear(16, 4)
            self.drop = nn.Dropout(0.3)

        def forward(self, x):
            h = F.relu(self.fc1(x))
            h = self.drop(h)
            return F.softmax(self.fc2(h) * 2.0 + 1.0, axis=-1)

    class CNN(nn.Layer):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2D(3, 6, 3, padding=1)
            self.bn = nn.BatchNorm2D(6)
            self.conv2 = nn.Conv2D(6, 8, 3, stride=2, groups=2)
            self.pool = nn.MaxPool2D(2, 2)
            self.gap = nn.AdaptiveAvgPool2D(1)
            self.fc = nn.Linear(8, 5)

        def forward(self, x):
            h = self.pool(F.relu(self.bn(self.conv(x))))
            h = F.hardswish(self.conv2(h))
            h = paddle.flatten(self.gap(h), 1)
            return self.fc(h)

    class LSTMNet(nn.Layer):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(20, 6)
            self.lstm = nn.LSTM(6, 5, num_layers=1)
            self.fc = nn.Linear(5, 3)

        def forward(self, ids):
            out, (h, c) = self.lstm(self.emb(ids))
            return self.fc(out[:, -1, :]), h

    class ClipInf(nn.Layer):
        def forward(self, x):
            y = paddle.clip(x, min=float("-inf"), max=0.5)
            z = paddle.clip(x, min=-0.25, max=float("inf"))
            return y + z, paddle.nan_to_num(paddle.log(x), nan=0.0, posinf=1e3, neginf=-1e3)

    class Block(nn.Layer):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(30, 16)
            self.ln1 = nn.LayerNorm(16)
            self.qkv = nn.Linear(16, 48)
            self.proj = nn.Linear(16, 16)
            self.ln2 = nn.LayerNorm(16)
            self.ff1 = nn.Linear(16, 32)
            self.ff2 = nn.Linear(32, 16)

        def forward(self, ids):
            x = self.emb(ids)
            b, t = ids.shape[0], ids.shape[1]
            h = self.ln1(x)
            qkv = paddle.reshape(self.qkv(h), [b, t, 3, 2, 8])
            qkv = paddle.transpose(qkv, [2, 0, 3, 1, 4])
            q, k, v = paddle.split(qkv, 3, axis=0)
            q, k, v = q.squeeze(0), k.squeeze(0), v.squeeze(0)
            att = F.softmax(paddle.matmul(q, k, transpose_y=True) * (8 ** -0.5), axis=-1)
            o = paddle.matmul(att, v).transpose([0, 2, 1, 3]).reshape([b, t, 16])
            x = x + self.proj(o)
            x = x + self.ff2(F.gelu(self.ff1(self.ln2(x))))
            return paddle.mean(x, axis=1), paddle.concat([x[:, 0], x[:, -1]], axis=-1)

    class Misc(nn.Layer):
        """Many ops at once: reductions, indexing, comparisons, shape ops, interpolation."""

        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2D(2, 4, 3, padding=1)
            self.prelu = nn.PReLU(4)
            self.gn = nn.GroupNorm(2, 4)
            self.deconv = nn.Conv2DTranspose(4, 2, 2, stride=2)

        def forward(self, x, idx):
            h = self.gn(self.prelu(self.conv(x)))                       # [b,4,6,6]
            up = F.interpolate(h, scale_factor=2, mode="nearest")       # [b,4,12,12]
            bil = F.interpolate(h, size=[9, 9], mode="bilinear", align_corners=False)
            d = self.deconv(h)                                          # [b,2,12,12]
            p = F.pad(h, [1, 1, 2, 0], mode="reflect")
            f = paddle.flatten(h, 1)                                    # [b,144]
            g = paddle.gather(f, idx, axis=1)                           # [b,k]
            s = paddle.sum(f, axis=-1, keepdim=True) + paddle.max(f, axis=1, keepdim=True)
            m = paddle.min(f) + paddle.prod(f[:, :3], axis=1).sum()
            am = paddle.argmax(f, axis=1)
            tv, ti = paddle.topk(f, 3, axis=-1)
            cs = paddle.cumsum(g, axis=1)
            w = paddle.where(g > 0.1, g, paddle.zeros_like(g))
            e = paddle.expand(paddle.unsqueeze(s, 1), [-1, 3, 2])
            t = paddle.tile(g[:, :2], [1, 2])
            c = paddle.cast(am, "float32") * 0.5
            lg = F.log_softmax(f[:, :10], axis=-1)
            act = F.sigmoid(g) + F.tanh(g) + F.silu(g) + F.leaky_relu(g, 0.1) + F.elu(g) \
                + F.softplus(g) + paddle.exp(-g * g) + paddle.abs(g) - paddle.sqrt(g * g + 1)
            return (up.mean(axis=[2, 3]), bil.sum(axis=[1]), d, p, s, m, am, tv, ti, cs, w, e,
                    t, c, lg, act, paddle.maximum(g, cs) / (paddle.minimum(g, cs) + 3.0))

    class ControlFlow(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, x):
            h = self.fc(x)
            if paddle.mean(h) > 0:
                y = h * 2.0 + 1.0
            else:
                y = paddle.exp(h) - 1.0
            i = paddle.zeros([1], "int64")
            s = paddle.zeros_like(y)
            while i < 3:
                s = s + y * paddle.cast(i, "float32")
                i = i + 1
            return y, s

    if name == "control_flow":
        return ControlFlow(), {"x": rng.uniform(-1, 1, (3, 4)).astype("float32")}
    if name == "control_flow_neg":
        return ControlFlow(), {"x": rng.uniform(-1, 1, (3, 4)).astype("float32") - 3.0}
    class Vision(nn.Layer):
        """Vision and indexing ops pyir's table maps (one output each, checked separately)."""

        def __init__(self):
            super().__init__()
            self.conv3 = nn.Conv3D(2, 3, 3, padding=1)
            self.pool3 = nn.MaxPool3D(2, 2)
            self.deconv3 = nn.Conv3DTranspose(3, 2, 2, stride=2)

        def forward(self, x, v, idx):
            outs = {}
            outs["pixel"] = F.pixel_unshuffle(F.pixel_shuffle(x, 2) * 2.0, 2)
            theta = paddle.to_tensor([[1.0, 0.1, 0.0], [0.05, 0.9, 0.1]], "float32")
            grid = F.affine_grid(paddle.tile(theta.unsqueeze(0), [2, 1, 1]), [2, 4, 5, 5],
                                 align_corners=False)
            outs["grid"] = F.grid_sample(x, grid, align_corners=False)
            outs["bicubic"] = F.interpolate(x, size=[5, 7], mode="bicubic")
            outs["linear"] = F.interpolate(x[:, :, 0, :], size=[11], mode="linear",
                                           data_format="NCW")
            outs["trilinear"] = F.interpolate(v, scale_factor=1.5, mode="trilinear")
            outs["conv3"] = self.deconv3(self.pool3(self.conv3(v)))
            outs["flip_roll"] = paddle.roll(paddle.flip(x, [1, 3]), shifts=2, axis=-1)
            outs["unbind"] = paddle.unbind(x, axis=1)[2]
            outs["along"] = paddle.take_along_axis(x, idx, axis=-1)
            outs["put"] = paddle.put_along_axis(x, idx, 1.0, axis=-1)
            outs["kth"] = paddle.kthvalue(x, 2, axis=-1)[0]
            outs["lse"] = paddle.logsumexp(x, axis=[1, 2])
            outs["anyall"] = paddle.cast(paddle.any(x > 0.5, axis=1), "float32") + \
                paddle.cast(paddle.all(x > -0.9, axis=1), "float32")
            outs["strided"] = x[:, ::2, 1::3, ::-1]
            outs["unfold"] = F.unfold(x, [2, 2], strides=2)
            outs["acts"] = F.selu(x) + F.celu(x) + F.hardshrink(x, 0.3) + F.softshrink(x, 0.2) \
                + F.tanhshrink(x) + F.thresholded_relu(x, 0.1) + paddle.log1p(paddle.abs(x)) \
                + paddle.expm1(x) + paddle.atan2(x, x + 2.0) + paddle.trunc(x * 3.0) \
                + F.hardtanh(x, -0.5, 0.5) + F.mish(x) + paddle.pow(paddle.abs(x), 1.5)
            outs["cumprod"] = paddle.cumprod(x, dim=2)
            outs["expand_as"] = paddle.expand_as(x[:, :1], x)
            outs["amax"] = paddle.amax(x, axis=-1) + paddle.cast(paddle.argmin(x, axis=-1),
                                                                 "float32")
            outs["dot_cross"] = paddle.cross(x[:, :3, 0, :3], x[:, 1:, 1, :3], axis=1)
            outs["eye_diag"] = paddle.diag(x[0, 0, 0]) + paddle.eye(8)
            return tuple(outs.values())

    class TransformerGRU(nn.Layer):
        """An encoder layer with a causal mask, a 2-layer bidirectional GRU, arange/one_hot/
        argsort, and an if nested in a while that runs `n` times."""

        def __init__(self):
            super().__init__()
            self.enc = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.1)
            self.gru = nn.GRU(16, 8, num_layers=2, direction="bidirect")
            self.emb = nn.Embedding(50, 16, padding_idx=0)
            self.ln = nn.LayerNorm(16)

        def forward(self, ids, n):
            x = self.emb(ids)
            t = paddle.shape(ids)[1]
            mask = (1.0 - paddle.tril(paddle.ones([t, t], "float32"))) * -1e4
            h = self.enc(x, src_mask=mask.unsqueeze(0).unsqueeze(0))
            g, _ = self.gru(h)
            oh = F.one_hot(paddle.arange(0, t, dtype="int64"), num_classes=7)
            srt = paddle.argsort(h[:, :, 3], axis=-1, descending=True)
            i = paddle.zeros([1], "int64")
            acc = paddle.zeros_like(h[:, 0])
            while i < n:
                if i % 2 == 0:
                    acc = acc + h[:, 0] * 0.5
                else:
                    acc = acc - 0.25
                i = i + 1
            att = F.scaled_dot_product_attention(h.unsqueeze(2), h.unsqueeze(2), h.unsqueeze(2))
            return g, oh.astype("float32").sum(0), srt, acc, att.squeeze(2), self.ln(h).max(1)

    if name == "transformer_gru":
        return TransformerGRU(), {"ids": rng.integers(1, 50, (2, 6)).astype("int64"),
                                  "n": np.array([3], "int64")}
    if name == "vision":
        return Vision(), {"x": rng.uniform(-1, 1, (2, 4, 8, 8)).astype("float32"),
                          "v": rng.uniform(-1, 1, (2, 2, 4, 6, 6)).astype("float32"),
                          "idx": rng.integers(0, 8, (2, 4, 8, 3)).astype("int64")}
    if name == "misc":
        return Misc(), {"x": rng.uniform(-1, 1, (2, 2, 6, 6)).astype("float32"),
                        "idx": np.array([0, 5, 7, 100, 143, 9], "int64")}
    if name == "mlp":
        return MLP(), {"x": rng.uniform(-1, 1, (3, 8)).astype("float32")}
    if name == "cnn":
        return CNN(), {"x": rng.uniform(-1, 1, (2, 3, 12, 12)).astype("float32")}
    if name == "lstm":
        return LSTMNet(), {"ids": rng.integers(0, 20, (2, 7)).astype("int64")}
    if name == "clip_inf":
        return ClipInf(), {"x": rng.uniform(-1, 1, (4, 5)).astype("float32")}
    if name == "block":
        return Block(), {"ids": rng.integers(0, 30, (2, 5)).astype("int64")}
    raise SystemExit(f"unknown model {name}")


MODELS = ["mlp", "cnn", "lstm", "clip_inf", "block", "misc", "control_flow", "control_flow_neg",
          "vision", "transformer_gru"]


def zoo(name):
    import numpy as np
    import paddle
    import paddle.vision.models as M

    paddle.seed(1)
    nets = {
        "resnet18": lambda: M.resnet18(num_classes=10),
        "resnet50": lambda: M.resnet50(num_classes=10),
        "mobilenet_v1": lambda: M.mobilenet_v1(scale=0.25, num_classes=10),
        "mobilenet_v2": lambda: M.mobilenet_v2(scale=0.25, num_classes=10),
        "mobilenet_v3_small": lambda: M.mobilenet_v3_small(scale=0.5, num_classes=10),
        "mobilenet_v3_large": lambda: M.mobilenet_v3_large(scale=0.5, num_classes=10),
        "vgg11": lambda: M.vgg11(num_classes=10),
        "squeezenet1_1": lambda: M.squeezenet1_1(num_classes=10),
        "shufflenet_v2_x0_25": lambda: M.shufflenet_v2_x0_25(num_classes=10),
        "densenet121": lambda: M.densenet121(num_classes=10),
        "googlenet": lambda: M.googlenet(num_classes=10),
        "alexnet": lambda: M.alexnet(num_classes=10),
        "lenet": lambda: M.LeNet(num_classes=10),
    }
    size = 28 if name == "lenet" else 64
    chans = 1 if name == "lenet" else 3
    if name in ("alexnet", "googlenet", "vgg11"):
        size = 224 if name in ("alexnet", "googlenet") else 64
    x = np.random.default_rng(0).uniform(-1, 1, (1, chans, size, size)).astype("float32")
    return nets[name](), {"x": x}


ZOO = ["resnet18", "resnet50", "mobilenet_v1", "mobilenet_v2", "mobilenet_v3_small",
       "mobilenet_v3_large", "vgg11", "squeezenet1_1", "shufflenet_v2_x0_25", "densenet121",
       "googlenet", "alexnet", "lenet"]


def worker(name, out, legacy, is_zoo):
    import numpy as np
    import paddle
    from paddle.static import InputSpec

    layer, feeds = (zoo if is_zoo else build)(name)
    layer.eval()
    specs = [InputSpec([None] * v.ndim if name == "transformer_gru" and k == "ids" else
                       [None] + list(v.shape[1:]) if v.ndim > 1 else list(v.shape),
                       str(v.dtype), k) for k, v in feeds.items()]
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    prefix = str(out / ("legacy" if legacy else "model"))
    paddle.jit.save(layer, prefix, input_spec=specs)
    if legacy:
        return
    res = layer(*[paddle.to_tensor(v) for v in feeds.values()])
    res = res if isinstance(res, (list, tuple)) else [res]
    np.savez(out / "inputs.npz", **feeds)
    np.savez(out / "expected.npz", **{f"out{i}": r.numpy() for i, r in enumerate(res)})


def make(name, out, is_zoo):
    out.mkdir(parents=True, exist_ok=True)
    base = [sys.executable, __file__, "--worker", name, "--out", str(out)]
    if is_zoo:
        base.append("--zoo")
    subprocess.run(base, check=True)
    env = dict(os.environ, FLAGS_enable_pir_api="0")
    legacy = subprocess.run(base + ["--legacy"], env=env, capture_output=True, text=True)
    meta = {"legacy": legacy.returncode == 0}
    if legacy.returncode == 0:
        os.replace(out / "legacy.pdmodel", out / "model.pdmodel")
        same = (out / "legacy.pdiparams").read_bytes() == (out / "model.pdiparams").read_bytes()
        if not same:
            raise SystemExit(f"{name}: the two .pdiparams differ")
    else:
        meta["legacy_error"] = legacy.stderr.strip().splitlines()[-1][:300]
    for f in out.glob("legacy.*"):
        f.unlink()
    for f in out.glob("*.pdiparams.info"):
        f.unlink()
    (out / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    print(name, meta)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only")
    ap.add_argument("--out")
    ap.add_argument("--zoo", action="store_true")
    ap.add_argument("--worker")
    ap.add_argument("--legacy", action="store_true")
    a = ap.parse_args()
    if a.worker:
        return worker(a.worker, a.out, a.legacy, a.zoo)
    root = pathlib.Path(a.out) if a.out else (pathlib.Path("/tmp/pir_zoo") if a.zoo else OUT)
    names = [a.only] if a.only else (ZOO if a.zoo else MODELS)
    for name in names:
        d = root / name
        if d.exists():
            shutil.rmtree(d)
        make(name, d, a.zoo)


if __name__ == "__main__":
    main()
