"""Loading a Paddle 3 PIR `.json` vs the same network's legacy `.pdmodel` (issue 15).

    PIR  load_program(model.json) / load_program(model.pdmodel), same network, ~300 ops
         target: <= 1.5x

The network: by default a synthetic one written here in the PIR format (a residual MLP of
linear / add / relu / scale / layer-norm-free blocks, parameters and `full` constants as
Paddle writes them, ~300 pd_op ops); its `.pdmodel` is what `pyir convert` writes from it, so
both files hold the same ops. `--json PATH` takes a real Paddle file instead (e.g.
tests/golden_zoo/resnet50/model.json). A benchmark, not a test: it prints figures and never
fails.

    python benchmarks/bench_pir_load.py [--json PATH] [--calls N] [--blocks N]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile

from common import median_calls, report
from pyir.files.convert import convert_model
from pyir.serialize import load_program


def _tensor(dims, dtype="0.t_f32"):
    return {"#": "0.t_dtensor", "D": [{"#": dtype}, dims, "NCHW", [], 0]}


def _a(name, tag, value):
    return {"N": name, "AT": {"#": tag, "D": value}}


def synthetic(blocks: int) -> dict:
    """A PIR module: data -> blocks x [matmul, add, relu, full, scale, add(residual)] -> fetch."""
    ops, nid = [], [0]

    def new():
        nid[0] += 1
        return nid[0]

    def op(name, inputs, out_type, attrs=()):
        vid = new()
        ops.append({"#": name, "A": list(attrs), "I": [{"%": i} for i in inputs],
                    "O": [{"%": vid, "TT": out_type}]})
        return vid

    width = 16
    params = []
    for b in range(blocks):
        for suffix, dims in (("w_0", [width, width]), ("b_0", [width])):
            vid = new()
            params.append(vid)
            ops.append({"#": "p", "A": [0, 1, 1, f"linear_{b}.{suffix}"], "DA": [],
                        "O": {"%": vid, "TT": _tensor(dims)}, "OA": [1, 0, 1], "QA": []})
    x = op("1.data", [], _tensor([-1, width]),
           [_a("name", "0.a_str", "x"), _a("shape", "1.a_intarray", [-1, width]),
            _a("dtype", "1.a_dtype", "float32"), _a("place", "1.a_place", [0, 0, ""])])
    t = _tensor([-1, width])
    for b in range(blocks):
        w, bias = params[2 * b], params[2 * b + 1]
        h = op("1.matmul", [x, w], t, [_a("transpose_x", "0.a_bool", False),
                                        _a("transpose_y", "0.a_bool", False)])
        h = op("1.add", [h, bias], t)
        h = op("1.relu", [h], t)
        s = op("1.full", [], _tensor([1]),
               [_a("shape", "1.a_intarray", [1]), _a("value", "0.a_f64", 0.5),
                _a("dtype", "1.a_dtype", "float32"), _a("place", "1.a_place", [1, 0, ""])])
        h = op("1.scale", [h, s], t, [_a("bias", "0.a_f32", 0.0),
                                       _a("bias_after_scale", "0.a_bool", True)])
        x = op("1.add", [x, h], t)
    op("1.fetch", [x], t, [_a("name", "0.a_str", "fetch_name_0"), _a("col", "0.a_i32", 0)])
    return {"base_code": {"magic": "pir", "trainable": True, "version": 4},
            "program": {"regions": [{"#": "region_0", "blocks": [
                {"#": "block_0", "args": [], "ops": ops}]}]}}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", help="a real PIR .json (default: the synthetic network)")
    ap.add_argument("--calls", type=int, default=30)
    ap.add_argument("--blocks", type=int, default=50, help="synthetic blocks (6 ops each)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        src = a.json
        if src is None:
            src = os.path.join(tmp, "net.json")
            with open(src, "w") as f:
                json.dump(synthetic(a.blocks), f)
            open(os.path.join(tmp, "net.pdiparams"), "wb").close()
        legacy = os.path.join(tmp, "legacy.pdmodel")
        convert_model(src, legacy, params=os.path.splitext(src)[0] + ".pdiparams")
        n_pir = sum(1 for op in json.load(open(src))["program"]["regions"][0]["blocks"][0][
            "ops"] if op["#"] != "p")
        n_ops = len(load_program(legacy).global_block().ops)
        t = median_calls({"json": lambda: load_program(src),
                          "pdmodel": lambda: load_program(legacy)}, a.calls, warmup=3)
    report("PIR", t["json"] / t["pdmodel"], 1.5, "x",
           f"{n_pir} PIR ops ({n_ops} legacy ops): .json {t['json'] * 1e3:.1f} ms, "
           f".pdmodel {t['pdmodel'] * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
