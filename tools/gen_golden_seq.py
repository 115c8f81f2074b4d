"""Regenerate tests/golden_seq/: small legacy Paddle programs for the sequence/tensor ops.

Each case is a static program built in Paddle's legacy mode, saved with
`save_inference_model` as tests/golden_seq/<case>/model.{pdmodel,pdiparams}, with
`inputs.npz` (feed name -> array), `expected.npz` (fetch name -> Paddle's result) and
`meta.json` (feed and fetch names in order, and a label per fetch saying what it checks).
tests/test_ops_seq.py runs every case with pyir; it never imports Paddle.

Run (Paddle 3.3.1 as the oracle, in its own venv):
    FLAGS_enable_pir_api=0 /work/paddle-venv/bin/python tools/gen_golden_seq.py [CASE ...]

Op-level cases append legacy ops directly (`_op`), so every attribute is explicit; the
model cases use paddle.nn layers. Paddle 3.3.1 replaces several public functions
(paddle.matmul, paddle.sum, F.gelu, ...) by wrappers that only accept PIR values;
`_restore_legacy_apis` puts the original legacy-capable functions back.
"""

from __future__ import annotations

import importlib
import json
import os
import pathlib
import shutil
import sys

os.environ.setdefault("FLAGS_enable_pir_api", "0")

import numpy as np
import paddle
from paddle.base.layer_helper import LayerHelper

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "golden_seq"
CASES = {}


def _restore_legacy_apis() -> None:
    """Undo Paddle 3.3.1's PIR-only replacements of public functions (see module doc)."""
    from paddle.base.dygraph import generated_tensor_methods_patch as patch

    tensor_mods = [importlib.import_module(f"paddle.tensor.{m}") for m in
                   ("math", "linalg", "manipulation", "logic", "search", "stat", "creation",
                    "ops", "attribute")]
    nn_mods = [importlib.import_module(f"paddle.nn.functional.{m}") for m in
               ("activation", "vision")]
    for table, target, mods in ((patch.funcs_map, paddle, tensor_mods),
                                (patch.nn_funcs_map, paddle.nn.functional, nn_mods)):
        for name, wrapper in table:
            for mod in mods:
                original = getattr(mod, name, None)
                if original is not None and original is not wrapper:
                    setattr(target, name, original)
                    break
    # 3.3.1 has no legacy Python path for these at all; nn layers reach matmul two ways.
    paddle.matmul = sys.modules["paddle.tensor"].matmul = _legacy_matmul
    paddle.nn.functional.gelu = _legacy_gelu


def _legacy_matmul(x, y, transpose_x=False, transpose_y=False, name=None):
    """paddle.matmul as Paddle 2.x built it in static mode: one matmul_v2 op."""
    return _op("matmul_v2", {"X": x, "Y": y}, {"trans_x": transpose_x, "trans_y": transpose_y})


def _legacy_gelu(x, approximate=False, name=None):
    return _op("gelu", {"X": x}, {"approximate": approximate})


class Case:
    """What a case builder records: feeds (name -> array) and labelled fetch variables."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng
        self.feeds: dict[str, np.ndarray] = {}
        self.feed_vars = []
        self.fetches: list[tuple[str, object]] = []
        self.grad_inputs: list[tuple[str, object]] = []
        self.terms: list = []

    def data(self, name: str, value) -> object:
        value = np.asarray(value)
        var = paddle.static.data(name, list(value.shape), str(value.dtype))
        self.feeds[name] = value
        self.feed_vars.append(var)
        return var

    def uniform(self, name, shape, low=-1.0, high=1.0, dtype="float32"):
        return self.data(name, self.rng.uniform(low, high, shape).astype(dtype))

    def fetch(self, label: str, var) -> None:
        self.fetches.append((label, var))

    def grad_input(self, label: str, name: str, value) -> object:
        """A fed float input that gets a gradient; `label` names the op it checks."""
        var = self.data(name, np.asarray(value, np.float32))
        var.stop_gradient = False
        self.grad_inputs.append((label, var))
        return var

    def term(self, out, shape=None) -> None:
        """Add mean(out * w) to the loss, w a fed random weight (so every dOut differs);
        `shape` is out's runtime shape where Paddle cannot infer it."""
        w = self.uniform(f"w{len(self.terms)}", shape or list(out.shape))
        self.terms.append(_op("mean", {"X": _op("elementwise_mul", {"X": out, "Y": w})}))


def _op(op_type: str, inputs: dict, attrs: dict | None = None, outs=None, dtype=None):
    """Append one legacy op. outs: slot -> dtype, or (dtype, count) for duplicable slots.

    Returns the single output variable, or a dict slot -> variable(s).
    """
    helper = LayerHelper(op_type)
    if outs is None and dtype is None:  # default: Out with the first input's dtype
        first = next(v for v in inputs.values() if v is not None)
        dtype = (first[0] if isinstance(first, list) else first).dtype
    outs = outs or {"Out": dtype}
    made = {}
    for slot, spec in outs.items():
        if isinstance(spec, tuple):
            made[slot] = [helper.create_variable_for_type_inference(spec[0])
                          for _ in range(spec[1])]
        else:
            made[slot] = helper.create_variable_for_type_inference(spec)
    helper.append_op(type=op_type, inputs={k: v for k, v in inputs.items() if v is not None},
                     outputs=made, attrs=attrs or {})
    return made["Out"] if list(made) == ["Out"] else made


def case(fn):
    CASES[fn.__name__] = fn
    return fn


# --- op-level cases -------------------------------------------------------------------------------
@case
def linalg(c: Case):
    x, y = c.uniform("x", [2, 3]), c.uniform("y", [3, 4])
    c.fetch("matmul alpha=2", _op("matmul", {"X": x, "Y": y}, {"alpha": 2.0}))
    a, b = c.uniform("a", [2, 3, 4]), c.uniform("b", [2, 5, 4])
    c.fetch("matmul transpose_Y batched", _op("matmul", {"X": a, "Y": b},
                                              {"transpose_Y": True, "alpha": 0.5}))
    p, q = c.uniform("p", [2, 4, 3]), c.uniform("q", [4, 2])
    c.fetch("matmul transpose_X 3-D x 2-D", _op("matmul", {"X": p, "Y": q}, {"transpose_X": True}))
    u, v = c.uniform("u", [3]), c.uniform("v", [3])
    c.fetch("matmul vector x vector", _op("matmul", {"X": u, "Y": v}))
    m, n = c.uniform("m", [2, 3, 4]), c.uniform("n", [2, 4, 5])
    c.fetch("bmm", _op("bmm", {"X": m, "Y": n}))
    z = c.data("z", np.array([[0.0, 0.0, 0.0], [1.0, -2.0, 0.5], [3.0, 0.0, -4.0]], np.float32))
    for attrs in ({"porder": 2.0, "axis": 1}, {"porder": 3.0, "axis": 0, "keepdim": True},
                  {"porder": float("inf"), "axis": -1}, {"porder": float("-inf"), "axis": 1},
                  {"porder": 0.0, "axis": 1}, {"porder": 1.0, "axis": 0},
                  {"porder": 2.0, "axis": 0, "asvector": True}):
        c.fetch(f"p_norm {attrs}", _op("p_norm", {"X": z}, attrs))


@case
def compare(c: Case):
    x, y = c.uniform("x", [2, 3, 4]), c.uniform("y", [4])
    i = c.data("i", np.array([[1], [2], [3]], np.int64))
    j = c.data("j", np.array([[3, 2, 1, 2]], np.int64))
    for op in ("equal", "not_equal", "less_than", "less_equal", "greater_than", "greater_equal"):
        c.fetch(f"{op} float broadcast", _op(op, {"X": x, "Y": y}, dtype="bool"))
        c.fetch(f"{op} int [3,1] vs [1,4]", _op(op, {"X": i, "Y": j}, dtype="bool"))
    # InferShape honours `axis` but the kernel broadcasts numpy-style: Y [3] meets X's last dim.
    sq, row = c.uniform("sq", [3, 3]), c.uniform("row", [3])
    c.fetch("less_than ignores axis=0", _op("less_than", {"X": sq, "Y": row}, {"axis": 0},
                                            dtype="bool"))
    p = c.data("p", np.array([[True, False, True, False]]))
    q = c.data("q", np.array([[True], [False]]))
    for op in ("logical_and", "logical_or", "logical_xor"):
        c.fetch(f"{op} bool broadcast", _op(op, {"X": p, "Y": q}, dtype="bool"))
    c.fetch("logical_not", _op("logical_not", {"X": p}, dtype="bool"))


@case
def unary(c: Case):
    x = c.uniform("x", [3, 4], -0.9, 0.9)
    big = c.uniform("big", [3, 4], 1.2, 3.0)
    pos = c.uniform("pos", [3, 4], 0.3, 2.0)
    for op in ("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "atanh",
               "erf", "floor", "ceil", "sign"):
        c.fetch(op, _op(op, {"X": x}))
    c.fetch("acosh", _op("acosh", {"X": big}))
    c.fetch("reciprocal", _op("reciprocal", {"X": pos}))
    c.fetch("rsqrt", _op("rsqrt", {"X": pos}))
    halves = c.data("halves", np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49, -3.7, 0.0],
                                       np.float32))
    c.fetch("round half to even", _op("round", {"X": halves}))
    c.fetch("sign with zero", _op("sign", {"X": halves}))
    c.fetch("floor halves", _op("floor", {"X": halves}))


@case
def indexing(c: Case):
    w = c.uniform("w", [6, 3])
    ids = c.data("ids", np.array([[1, 2, 0], [5, 2, 2]], np.int64))
    c.fetch("lookup_table_v2", _op("lookup_table_v2", {"Ids": ids, "W": w}, dtype="float32"))
    c.fetch("lookup_table_v2 padding_idx=2",
            _op("lookup_table_v2", {"Ids": ids, "W": w}, {"padding_idx": 2}, dtype="float32"))
    x = c.uniform("x", [3, 4, 2])
    idx = c.data("idx", np.array([[0, 1], [2, 3], [1, 0]], np.int64))
    c.fetch("gather_nd depth 2", _op("gather_nd", {"X": x, "Index": idx}))
    idx1 = c.data("idx1", np.array([[[2]], [[0]]], np.int32))
    c.fetch("gather_nd depth 1", _op("gather_nd", {"X": x, "Index": idx1}))
    sel = c.data("sel", np.array([3, 0, 3], np.int64))
    c.fetch("index_select dim=-2", _op("index_select", {"X": x, "Index": sel}, {"dim": -2}))
    s = c.uniform("s", [4, 6, 3])
    for attrs in ({"axes": [1], "starts": [0], "ends": [5], "strides": [2]},
                  {"axes": [0, 1], "starts": [-1, 5], "ends": [-10, 0], "strides": [-1, -2]},
                  {"axes": [1, 2], "starts": [2, 0], "ends": [3, 100], "strides": [1, 1],
                   "decrease_axis": [1]},
                  {"axes": [2], "starts": [-2], "ends": [3], "strides": [1]}):
        attrs.setdefault("infer_flags", [1] * len(attrs["axes"]))
        c.fetch(f"strided_slice {attrs}", _op("strided_slice", {"Input": s}, attrs))
    parts = _op("unstack", {"X": x}, {"axis": 1, "num": 4}, outs={"Y": ("float32", 4)})
    for k, part in enumerate(parts["Y"]):
        c.fetch(f"unstack axis=1 [{k}]", part)
    e = c.uniform("e", [3, 1])
    c.fetch("expand_v2 with -1", _op("expand_v2", {"X": e}, {"shape": [2, -1, 4]}))
    t = c.uniform("t", [2, 3, 4])
    c.fetch("expand_as_v2", _op("expand_as_v2", {"X": e, "Y": t}, {"target_shape": [2, 3, 4]}))
    c.fetch("tile short repeat_times", _op("tile", {"X": t}, {"repeat_times": [1, 2]}))
    c.fetch("tile long repeat_times", _op("tile", {"X": e}, {"repeat_times": [2, 1, 3]}))
    cond = c.data("cond", c.rng.uniform(size=(2, 3, 4)) > 0.5)
    c.fetch("where", _op("where", {"Condition": cond, "X": t, "Y": -t}))
    labels = c.data("labels", np.array([[1], [0], [3]], np.int64))
    c.fetch("one_hot_v2 depth=5",
            _op("one_hot_v2", {"X": labels}, {"depth": 5, "dtype": 5}, dtype="float32"))
    sq = c.uniform("sq", [2, 3, 4])
    c.fetch("tril diagonal=1", _op("tril_triu", {"X": sq}, {"lower": True, "diagonal": 1}))
    c.fetch("triu diagonal=-1", _op("tril_triu", {"X": sq}, {"lower": False, "diagonal": -1}))
    c.fetch("roll flattened", _op("roll", {"X": sq}, {"shifts": [5], "axis": []}))
    c.fetch("roll two axes", _op("roll", {"X": sq}, {"shifts": [1, -3], "axis": [0, 2]}))
    c.fetch("flip", _op("flip", {"X": sq}, {"axis": [0, -1]}))


@case
def ordering(c: Case):
    x = c.uniform("x", [3, 4])
    for attrs in ({"axis": 1}, {"axis": 0, "exclusive": True}, {"axis": -1, "reverse": True},
                  {"axis": 1, "exclusive": True, "reverse": True}, {"flatten": True}):
        c.fetch(f"cumsum {attrs}", _op("cumsum", {"X": x}, attrs))
    ties = c.data("ties", np.array([[3.0, 1.0, 3.0, 0.5], [2.0, 2.0, 7.0, 7.0],
                                    [0.0, -1.0, 4.0, 4.0]], np.float32))
    for op in ("arg_max", "arg_min"):
        c.fetch(f"{op} axis=1", _op(op, {"X": ties}, {"axis": 1}, dtype="int64"))
        c.fetch(f"{op} axis=-2 keepdims int32",
                _op(op, {"X": ties}, {"axis": -2, "keepdims": True, "dtype": 2}, dtype="int32"))
        c.fetch(f"{op} flatten", _op(op, {"X": ties}, {"axis": 0, "flatten": True},
                                     dtype="int64"))
    for attrs in ({"axis": -1}, {"axis": 0, "descending": True}):
        r = _op("argsort", {"X": x}, attrs, outs={"Out": "float32", "Indices": "int64"})
        c.fetch(f"argsort {attrs} values", r["Out"])
        c.fetch(f"argsort {attrs} indices", r["Indices"])
    for attrs in ({"k": 2}, {"k": 3, "axis": 0, "largest": False}):
        r = _op("top_k_v2", {"X": x}, attrs, outs={"Out": "float32", "Indices": "int64"})
        c.fetch(f"top_k_v2 {attrs} values", r["Out"])
        c.fetch(f"top_k_v2 {attrs} indices", r["Indices"])
    for name, (start, end, step, dt) in {"int64": (1, 10, 3, "int64"),
                                         "float32 negative step": (1.0, -1.0, -0.3, "float32"),
                                         "int32 empty": (5, 1, 1, "int32")}.items():
        args = {k: c.data(f"range_{k}_{dt}_{i}", np.array([v], dt))
                for i, (k, v) in enumerate((("Start", start), ("End", end), ("Step", step)))}
        c.fetch(f"range {name}", _op("range", args))
    c.fetch("shape", _op("shape", {"Input": x}, dtype="int32"))
    onehot = c.data("onehot", np.eye(4, dtype=np.float32)[[0, 3, 1]])
    c.fetch("label_smooth uniform", _op("label_smooth", {"X": onehot}, {"epsilon": 0.1}))
    prior = c.data("prior", np.array([[0.1, 0.2, 0.3, 0.4]], np.float32))
    c.fetch("label_smooth prior", _op("label_smooth", {"X": onehot, "PriorDist": prior},
                                      {"epsilon": 0.2}))
    for attrs in ({"dim": [1]}, {"dim": [0], "keep_dim": True}, {"dim": [0], "reduce_all": True}):
        c.fetch(f"reduce_prod {attrs}", _op("reduce_prod", {"X": x}, attrs))


@case
def edges(c: Case):
    """Tensor-valued attributes, integer inputs and the less common attribute values."""
    x = c.uniform("x", [3, 5])
    k = c.data("k", np.array([3], np.int32))
    r = _op("top_k_v2", {"X": x, "K": k}, {"k": 1}, outs={"Out": "float32", "Indices": "int64"})
    c.fetch("top_k_v2 K tensor values", r["Out"])
    c.fetch("top_k_v2 K tensor indices", r["Indices"])
    r = _op("top_k_v2", {"X": x}, {"k": 2, "axis": 0, "sorted": False},
            outs={"Out": "float32", "Indices": "int64"})
    c.fetch("top_k_v2 sorted=False values", r["Out"])
    c.fetch("top_k_v2 sorted=False indices", r["Indices"])
    s = c.uniform("s", [6, 4])
    start = c.data("start", np.array([1], np.int64))
    end = c.data("end", np.array([6], np.int32))
    c.fetch("strided_slice StartsTensorList + EndsTensor",
            _op("strided_slice", {"Input": s, "StartsTensorList": [start], "EndsTensor": end},
                {"axes": [0], "starts": [-1], "ends": [-1], "strides": [2],
                 "infer_flags": [-1]}))
    c.fetch("strided_slice decreasing every axis",
            _op("strided_slice", {"Input": s}, {"axes": [0, 1], "starts": [2, -1],
                                                "ends": [3, 4], "strides": [1, 1],
                                                "decrease_axis": [0, 1], "infer_flags": [1, 1]}))
    e = c.uniform("e", [1, 4])
    shape = c.data("shape", np.array([3, 4], np.int32))
    c.fetch("expand_v2 Shape tensor", _op("expand_v2", {"X": e, "Shape": shape},
                                          {"shape": [-1, -1]}))
    reps = c.data("reps", np.array([2], np.int32))
    c.fetch("tile repeat_times_tensor", _op("tile", {"X": e, "repeat_times_tensor": [reps, reps]},
                                             {"repeat_times": [-1, -1]}))
    dec = c.data("dec", np.array([1.25, -2.35, 0.05, 3.14159], np.float32))
    c.fetch("round decimals=2", _op("round", {"X": dec}, {"decimals": 2}))
    a = c.data("a", np.array([[0, 3, -2]], np.int32))
    b = c.data("b", np.array([[1], [0]], np.int32))
    c.fetch("logical_and int inputs", _op("logical_and", {"X": a, "Y": b}, dtype="bool"))
    c.fetch("logical_not int input", _op("logical_not", {"X": a}, dtype="bool"))
    c.fetch("equal int", _op("equal", {"X": a, "Y": b}, dtype="bool"))
    full = c.data("full", np.array([[0, 1, 1], [2, 3, 0]], np.int64))
    t = c.uniform("t", [3, 4, 2])
    c.fetch("gather_nd full depth", _op("gather_nd", {"X": t, "Index": full}))
    ints = c.data("ints", np.array([[4, -1, 7], [2, 2, -5]], np.int64))
    c.fetch("cumsum int64 reverse", _op("cumsum", {"X": ints}, {"axis": 0, "reverse": True}))
    c.fetch("arg_max int64 input", _op("arg_max", {"X": ints}, {"axis": -1}, dtype="int64"))
    c.fetch("reduce_prod int64 keep_dim", _op("reduce_prod", {"X": ints},
                                               {"dim": [-1], "keep_dim": True}))
    # Paddle 3.3.1 rejects out-of-range labels even with allow_out_of_range=True.
    labels = c.data("labels", np.array([0, 3, 2], np.int64))
    depth = c.data("depth", np.array([4], np.int32))
    c.fetch("one_hot_v2 depth_tensor",
            _op("one_hot_v2", {"X": labels, "depth_tensor": depth},
                {"depth": -1}, dtype="float32"))
    args = {k: c.data(f"r64_{k}", np.array([v], np.float64))
            for k, v in (("Start", 0.5), ("End", 2.0), ("Step", 0.5))}
    c.fetch("range float64", _op("range", args))


@case
def more_ops(c: Case):
    """dot, logs, trunc, bitwise and is-nan/inf ops, along-axis gathers, scatters, masks."""
    x, y = c.uniform("x", [3, 4]), c.uniform("y", [3, 4])
    c.fetch("dot 2-D", _op("dot", {"X": x, "Y": y}))
    pos = c.uniform("pos", [3, 4], 0.2, 3.0)
    for op in ("log1p", "log2", "log10", "expm1"):
        c.fetch(op, _op(op, {"X": pos if op != "expm1" else x}))
    c.fetch("trunc", _op("trunc", {"X": c.data("t", np.array([-2.7, -0.5, 0.5, 3.9],
                                                             np.float32))}))
    a = c.data("a", np.array([[12, -3, 7]], np.int32))
    b = c.data("b", np.array([[10], [5]], np.int32))
    for op in ("bitwise_and", "bitwise_or", "bitwise_xor"):
        c.fetch(f"{op} broadcast", _op(op, {"X": a, "Y": b}))
    c.fetch("bitwise_not", _op("bitwise_not", {"X": a}))
    special = c.data("special", np.array([[0.0, np.nan, np.inf], [-np.inf, -2.5, np.nan]],
                                         np.float32))
    for op in ("isnan_v2", "isinf_v2", "isfinite_v2"):
        c.fetch(op, _op(op, {"X": special}, dtype="bool"))
    index = c.data("index", np.array([[3, 0], [1, 1], [2, 0]], np.int64))
    c.fetch("take_along_axis Axis=1", _op("take_along_axis", {"Input": x, "Index": index},
                                          {"Axis": 1}, outs={"Result": "float32"})["Result"])
    c.fetch("index_sample", _op("index_sample", {"X": x, "Index": index}))
    ids = c.data("ids", np.array([2, 0], np.int64))
    upd = c.uniform("upd", [2, 4])
    c.fetch("scatter overwrite", _op("scatter", {"X": x, "Ids": ids, "Updates": upd}))
    dup = c.data("dup", np.array([1, 2, 1], np.int64))
    upd3 = c.uniform("upd3", [3, 4])
    c.fetch("scatter accumulate", _op("scatter", {"X": x, "Ids": dup, "Updates": upd3},
                                      {"overwrite": False}))
    nd = c.data("nd", np.array([[2, 1], [0, 3], [2, 1]], np.int64))
    vals = c.uniform("vals", [3])
    c.fetch("scatter_nd_add repeated", _op("scatter_nd_add", {"X": x, "Index": nd,
                                                              "Updates": vals}))
    cond = c.data("cond", np.array([[True, False, True, False], [False, False, False, True],
                                    [True, True, False, False]]))
    c.fetch("where_index", _op("where_index", {"Condition": cond}, dtype="int64"))
    c.fetch("masked_select", _op("masked_select", {"X": x, "Mask": cond},
                                 outs={"Y": "float32"})["Y"])


@case
def grids(c: Case):
    """linspace, eye, diag_v2 both ways, meshgrid, increment."""
    args = {k: c.data(f"lin_{k}", np.array([v], dt)) for k, v, dt in
            (("Start", 0.0, "float32"), ("Stop", 1.0, "float32"), ("Num", 7, "int32"))}
    c.fetch("linspace float32 7", _op("linspace", args, {"dtype": 5}, dtype="float32"))
    args = {k: c.data(f"lin2_{k}", np.array([v], dt)) for k, v, dt in
            (("Start", 10.0, "float32"), ("Stop", -3.0, "float32"), ("Num", 6, "int32"))}
    c.fetch("linspace descending", _op("linspace", args, {"dtype": 5}, dtype="float32"))
    c.fetch("eye 3x4", _op("eye", {}, {"num_rows": 3, "num_columns": 4, "dtype": 5},
                           dtype="float32"))
    v = c.uniform("v", [3])
    c.fetch("diag_v2 vector offset=-1 padding",
            _op("diag_v2", {"X": v}, {"offset": -1, "padding_value": 2.0}))
    m = c.uniform("m", [3, 5])
    c.fetch("diag_v2 matrix offset=2", _op("diag_v2", {"X": m}, {"offset": 2}))
    grids = _op("meshgrid", {"X": [v, c.uniform("u", [4])]}, outs={"Out": ("float32", 2)})
    c.fetch("meshgrid 0", grids[0])
    c.fetch("meshgrid 1", grids[1])
    counter = c.data("counter", np.array([3], np.int64))
    c.fetch("increment int64", _op("increment", {"X": counter}, {"step": 2.0}))


@case
def set_value(c: Case):
    """Static `x[index] = value` (set_value) with scalars, tensors and paddle.assign constants."""
    x = _op("scale", {"X": c.uniform("x", [3, 4, 2])}, {"scale": 1.0})
    y = paddle.static.setitem(x, (slice(1, 3), 0), 5.0)
    y = paddle.static.setitem(y, (0, slice(None, None, 2)), c.uniform("v", [2]))
    const = paddle.assign(np.array([1.5, 2.5, 3.5], np.float32))
    y = paddle.static.setitem(y, (slice(None), -1, 1), const)
    y = paddle.static.setitem(y, (slice(None, None, -2), slice(1, 3)), c.uniform("w", [2, 2, 2]))
    c.fetch("after four set_value ops", y)
    c.fetch("assign_value constant", paddle.assign(np.array([[1, -2], [3, 4]], np.int64)))


@case
def put_and_repeat(c: Case):
    """put_along_axis (assign, add, mul, Include_self=False), index_add, repeat_interleave."""
    x = c.uniform("x", [3, 4])
    index = c.data("index", np.array([[3, 0], [1, 1], [2, 0]], np.int64))
    value = c.uniform("value", [3, 2])
    for attrs in ({"Axis": 1}, {"Axis": 1, "Reduce": "add"}, {"Axis": 1, "Reduce": "mul"},
                  {"Axis": 1, "Reduce": "add", "Include_self": False}):
        c.fetch(f"put_along_axis {attrs}",
                _op("put_along_axis", {"Input": x, "Index": index, "Value": value}, attrs,
                    outs={"Result": "float32"})["Result"])
    rows = c.data("rows", np.array([2, 0, 2], np.int64))
    c.fetch("index_add axis=0 repeated", _op("index_add", {"X": x, "Index": rows,
                                                           "AddValue": c.uniform("add", [3, 4])},
                                             {"axis": 0}))
    c.fetch("repeat_interleave Repeats=2 dim=1",
            _op("repeat_interleave", {"X": x}, {"Repeats": 2, "dim": 1}))
    counts = c.data("counts", np.array([1, 0, 3], np.int64))
    c.fetch("repeat_interleave RepeatsTensor",
            _op("repeat_interleave", {"X": x, "RepeatsTensor": counts}, {"dim": 0}))


@case
def linalg_extra(c: Case):
    """norm (l2 normalize), frobenius_norm, dist, inverse, determinant, matrix_power, cross,
    cholesky, kron is in legacy_and_misc."""
    x = c.uniform("x", [3, 4])
    r = _op("norm", {"X": x}, {"axis": 1, "epsilon": 1e-10}, outs={"Out": "float32",
                                                                  "Norm": "float32"})
    # Norm is an intermediate output: save_inference_model drops it from the saved op.
    c.fetch("norm Out", r["Out"])
    c.fetch("frobenius_norm", _op("frobenius_norm", {"X": x}, {"dim": [0, 1]}))
    c.fetch("frobenius_norm keep_dim", _op("frobenius_norm", {"X": c.uniform("f", [2, 3, 4])},
                                           {"dim": [1, 2], "keep_dim": True}))
    c.fetch("dist p=2", _op("dist", {"X": x, "Y": c.uniform("y", [3, 4])}, {"p": 2.0}))
    c.fetch("dist p=inf broadcast", _op("dist", {"X": x, "Y": c.uniform("row", [4])},
                                        {"p": float("inf")}))
    m = c.data("m", c.rng.uniform(-1, 1, (2, 3, 3)).astype(np.float32) + 3 * np.eye(3,
                                                                                   dtype="f4"))
    c.fetch("inverse", _op("inverse", {"Input": m}, outs={"Output": "float32"})["Output"])
    c.fetch("determinant", _op("determinant", {"Input": m}))
    c.fetch("matrix_power n=3", _op("matrix_power", {"X": m}, {"n": 3}))
    c.fetch("matrix_power n=-2", _op("matrix_power", {"X": m}, {"n": -2}))
    c.fetch("cross dim=1", _op("cross", {"X": c.uniform("a", [2, 3]), "Y": c.uniform("b", [2, 3])},
                               {"dim": 1}))
    spd = np.array([[4.0, 2.0, 0.4], [2.0, 3.0, 0.5], [0.4, 0.5, 2.0]], np.float32)
    c.fetch("cholesky upper", _op("cholesky", {"X": c.data("spd", spd)}, {"upper": True}))


# --- gradient cases: Paddle's append_backward programs and gradients -----------------------
GRAD_CASES = set()


def grad_case(fn):
    GRAD_CASES.add(fn.__name__)
    return case(fn)


@grad_case
def grads_linalg_indexing(c: Case):
    def gi(label, shape, low=-1.0, high=1.0):
        return c.grad_input(label, label.split()[0] + f"_{len(c.grad_inputs)}",
                            c.rng.uniform(low, high, shape))

    x, y = gi("matmul X", [2, 4, 3]), gi("matmul Y", [4, 2])
    c.term(_op("matmul", {"X": x, "Y": y}, {"transpose_X": True, "alpha": 1.5}))
    x, y = gi("bmm X", [2, 2, 3]), gi("bmm Y", [2, 3, 2])
    c.term(_op("bmm", {"X": x, "Y": y}))
    c.term(_op("p_norm", {"X": gi("p_norm p=2", [3, 4])}, {"porder": 2.0, "axis": 1}))
    c.term(_op("p_norm", {"X": gi("p_norm p=3 keepdim", [3, 4])},
               {"porder": 3.0, "axis": 0, "keepdim": True}))
    ids = c.data("ids", np.array([[1, 2, 0], [3, 2, 2]], np.int64))
    c.term(_op("lookup_table_v2", {"Ids": ids, "W": gi("lookup_table_v2 W padding_idx=2",
                                                       [4, 3])}, {"padding_idx": 2}))
    idx = c.data("idx", np.array([[0, 1], [2, 3], [0, 1]], np.int64))
    c.term(_op("gather_nd", {"X": gi("gather_nd X", [3, 4, 2]), "Index": idx}))
    sel = c.data("sel", np.array([3, 0, 3], np.int64))
    c.term(_op("index_select", {"X": gi("index_select X", [2, 4]), "Index": sel}, {"dim": 1}))
    c.term(_op("strided_slice", {"Input": gi("strided_slice Input", [4, 6])},
               {"axes": [0, 1], "starts": [-1, 5], "ends": [-10, 0], "strides": [-2, -2],
                "infer_flags": [1, 1]}))
    parts = _op("unstack", {"X": gi("unstack X", [2, 3])}, {"axis": 1, "num": 3},
                outs={"Y": ("float32", 3)})
    for part in parts["Y"]:
        c.term(part)
    c.term(_op("expand_v2", {"X": gi("expand_v2 X", [3, 1])}, {"shape": [2, 3, 4]}))
    c.term(_op("expand_as_v2", {"X": gi("expand_as_v2 X", [1, 3])}, {"target_shape": [2, 3]}))
    c.term(_op("tile", {"X": gi("tile X", [2, 3])}, {"repeat_times": [2, 1, 2]}))
    cond = c.data("cond", np.array([[True, False, True], [False, False, True]]))
    c.term(_op("where", {"Condition": cond, "X": gi("where X", [2, 3]),
                         "Y": gi("where Y", [2, 3])}))
    c.term(_op("cumsum", {"X": gi("cumsum exclusive reverse", [3, 4])},
               {"axis": 1, "exclusive": True, "reverse": True}))
    c.term(_op("tril_triu", {"X": gi("tril_triu X", [3, 4])}, {"lower": True, "diagonal": 1}))
    c.term(_op("roll", {"X": gi("roll X", [3, 4])}, {"shifts": [1, -1], "axis": [0, 1]}))
    c.term(_op("flip", {"X": gi("flip X", [3, 4])}, {"axis": [1]}))
    c.term(_op("label_smooth", {"X": gi("label_smooth X", [2, 4])}, {"epsilon": 0.1}))
    c.term(_op("reduce_prod", {"X": gi("reduce_prod X", [3, 4])}, {"dim": [1]}))
    c.term(_op("dot", {"X": gi("dot X", [2, 3]), "Y": gi("dot Y", [2, 3])}))
    along = c.data("along", np.array([[2, 0, 2], [1, 1, 0]], np.int64))
    c.term(_op("take_along_axis", {"Input": gi("take_along_axis Input", [2, 4]),
                                   "Index": along}, {"Axis": 1},
               outs={"Result": "float32"})["Result"])
    c.term(_op("index_sample", {"X": gi("index_sample X", [2, 4]), "Index": along}))
    rows = c.data("rows", np.array([2, 0], np.int64))
    c.term(_op("scatter", {"X": gi("scatter X", [3, 2]), "Ids": rows,
                           "Updates": gi("scatter Updates", [2, 2])}))
    nd = c.data("nd", np.array([[1], [0], [1]], np.int64))
    c.term(_op("scatter_nd_add", {"X": gi("scatter_nd_add X", [3, 2]), "Index": nd,
                                  "Updates": gi("scatter_nd_add Updates", [3, 2])}))
    diag = _op("diag_v2", {"X": gi("diag_v2 X", [3, 4])}, {"offset": 1})
    c.term(diag)
    mesh = _op("meshgrid", {"X": [gi("meshgrid X0", [2]), gi("meshgrid X1", [3])]},
               outs={"Out": ("float32", 2)})
    c.term(mesh[0])
    c.term(mesh[1])
    target = _op("scale", {"X": gi("set_value Input", [3, 4])}, {"scale": 1.0})
    c.term(paddle.static.setitem(target, (slice(0, 3, 2), 1), gi("set_value ValueTensor", [2])))
    v1ids = c.data("v1ids", np.array([[1], [3], [1]], np.int64))
    c.term(_op("lookup_table", {"W": gi("lookup_table W", [4, 2]), "Ids": v1ids},
               {"padding_idx": 3}))
    c.term(_op("top_k", {"X": gi("top_k X", [3, 4])}, {"k": 2},
               outs={"Out": "float32", "Indices": "int64"})["Out"])
    c.term(_op("cumprod", {"X": gi("cumprod X", [3, 4])}, {"dim": 1}))
    c.term(_op("cumprod", {"X": gi("cumprod exclusive reverse X", [3, 4])},
               {"dim": 0, "exclusive": True, "reverse": True}))
    c.term(_op("logsumexp", {"X": gi("logsumexp X", [3, 4])}, {"axis": [1]}))
    c.term(_op("kron", {"X": gi("kron X", [2, 2]), "Y": gi("kron Y", [2, 3])}), shape=[4, 6])
    c.term(_op("trace", {"Input": gi("trace Input", [3, 4])}, {"offset": -1}))
    put_index = c.data("put_index", np.array([[1, 3], [0, 2]], np.int64))
    for reduce in ("assign", "add"):
        c.term(_op("put_along_axis", {"Input": gi(f"put_along_axis {reduce} Input", [2, 4]),
                                      "Index": put_index,
                                      "Value": gi(f"put_along_axis {reduce} Value", [2, 2])},
                   {"Axis": 1, "Reduce": reduce}, outs={"Result": "float32"})["Result"])
    c.term(_op("index_add", {"X": gi("index_add X", [3, 2]), "Index": rows,
                             "AddValue": gi("index_add AddValue", [2, 2])}, {"axis": 0}))
    c.term(_op("repeat_interleave", {"X": gi("repeat_interleave X", [2, 3])},
               {"Repeats": 2, "dim": 1}), shape=[2, 6])
    c.term(_op("norm", {"X": gi("norm X", [3, 4])}, {"axis": 1},
               outs={"Out": "float32", "Norm": "float32"})["Out"])
    c.term(_op("frobenius_norm", {"X": gi("frobenius_norm X", [3, 4])}, {"dim": [1]}))
    c.term(_op("dist", {"X": gi("dist X", [2, 3]), "Y": gi("dist Y", [2, 3])}, {"p": 3.0}))
    square = np.eye(3) * 2 + c.rng.uniform(-0.5, 0.5, (3, 3))
    c.term(_op("inverse", {"Input": c.grad_input("inverse Input", "inv_x", square)},
               outs={"Output": "float32"})["Output"])
    c.term(_op("determinant", {"Input": c.grad_input("determinant Input", "det_x", square)}))
    c.term(_op("matrix_power", {"X": c.grad_input("matrix_power X", "mp_x", square)},
               {"n": 3}))
    c.term(_op("cross", {"X": gi("cross X", [2, 3]), "Y": gi("cross Y", [2, 3])}, {"dim": 1}))
    mask = c.data("mask", np.array([[True, False, True], [False, True, True]]))
    c.term(_op("masked_select", {"X": gi("masked_select X", [2, 3]), "Mask": mask},
               outs={"Y": "float32"})["Y"], shape=[4])
    sorted_ = _op("argsort", {"X": gi("argsort X", [3, 4])}, {"axis": 0, "descending": True},
                  outs={"Out": "float32", "Indices": "int64"})
    c.term(sorted_["Out"])
    top = _op("top_k_v2", {"X": gi("top_k_v2 X", [3, 5])}, {"k": 2},
              outs={"Out": "float32", "Indices": "int64"})
    c.term(top["Out"])


@grad_case
def grads_unary(c: Case):
    domains = {"asin": (-0.8, 0.8), "acos": (-0.8, 0.8), "atanh": (-0.8, 0.8),
               "acosh": (1.2, 3.0), "reciprocal": (0.5, 2.0), "rsqrt": (0.5, 2.0)}
    domains.update({"log1p": (-0.5, 1.0), "log2": (0.5, 2.0), "log10": (0.5, 2.0)})
    for op in ("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh",
               "atanh", "erf", "reciprocal", "rsqrt", "floor", "ceil", "round", "sign",
               "log1p", "log2", "log10", "expm1", "trunc"):
        low, high = domains.get(op, (-1.0, 1.0))
        x = c.grad_input(op, f"{op}_x", c.rng.uniform(low, high, [2, 3]))
        c.term(_op(op, {"X": x}))


# --- model cases ----------------------------------------------------------------------------------
@case
def transformer_encoder(c: Case):
    """Embedding (padding_idx 0) + one nn.TransformerEncoderLayer with an additive mask."""
    tokens = np.array([[5, 3, 9, 0, 0], [7, 1, 2, 4, 6]], np.int64)
    ids = c.data("tokens", tokens)
    mask = np.where(tokens == 0, -1e4, 0.0).astype(np.float32)[:, None, None, :]
    m = c.data("mask", np.broadcast_to(mask, (2, 1, 5, 5)).copy())
    emb = paddle.nn.Embedding(12, 8, padding_idx=0)
    layer = paddle.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.1)
    layer.eval()
    c.fetch("encoder output", layer(emb(ids), src_mask=m))


@case
def transformer_encoder_prenorm(c: Case):
    """Two pre-norm nn.TransformerEncoder layers with gelu and a boolean padding mask."""
    x = c.uniform("x", [2, 4, 8])
    keep = np.array([[True, True, True, False], [True, True, True, True]])
    m = c.data("mask", np.broadcast_to(keep[:, None, None, :], (2, 1, 4, 4)).copy())
    layer = paddle.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation="gelu",
                                              normalize_before=True)
    encoder = paddle.nn.TransformerEncoder(layer, 2, norm=paddle.nn.LayerNorm(8))
    encoder.eval()
    c.fetch("encoder output", encoder(x, src_mask=m))


@case
def text_classifier(c: Case):
    """ERNIE-shaped: token + position (range, expand_as) embeddings, pad mask from `equal`,
    a TransformerEncoder, the first token through tanh pooling, then softmax."""
    tokens = np.array([[2, 7, 9, 4, 0, 0], [5, 3, 3, 8, 1, 6]], np.int64)
    ids = c.data("tokens", tokens)
    words = paddle.nn.Embedding(10, 8, padding_idx=0)
    places = paddle.nn.Embedding(6, 8)
    start, end, step = (paddle.full([1], v, "int64") for v in (0, 6, 1))
    positions = _op("expand_as_v2", {"X": _op("range", {"Start": start, "End": end,
                                                        "Step": step}), "Y": ids},
                    {"target_shape": [2, 6]})
    pad = _op("equal", {"X": ids, "Y": paddle.full([1], 0, "int64")}, dtype="bool")
    mask = _op("scale", {"X": paddle.cast(pad, "float32")}, {"scale": -1e4})
    mask = paddle.unsqueeze(mask, [1, 2])
    layer = paddle.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)
    encoded = paddle.nn.TransformerEncoder(layer, 2)(words(ids) + places(positions), mask)
    first = _op("strided_slice", {"Input": encoded},
                {"axes": [1], "starts": [0], "ends": [1], "strides": [1],
                 "decrease_axis": [1], "infer_flags": [1]})
    pooled = _op("tanh", {"X": paddle.nn.Linear(8, 8)(first)})
    c.fetch("class probabilities", paddle.nn.functional.softmax(paddle.nn.Linear(8, 3)(pooled)))


@case
def seq2seq_transformer(c: Case):
    """nn.Transformer (encoder-decoder) with a causal target mask from tril_triu."""
    src = c.uniform("src", [2, 5, 8])
    tgt = c.uniform("tgt", [2, 4, 8])
    causal = _op("tril_triu", {"X": paddle.full([4, 4], -1e4, "float32")},
                 {"lower": False, "diagonal": 1})
    model = paddle.nn.Transformer(8, 2, 1, 1, 16, dropout=0.0)
    c.fetch("decoder output", model(src, tgt, tgt_mask=causal))


def _rnn_case(c: Case, cls, **kwargs):
    x = c.uniform("x", [3, 5, 4])
    lengths = c.data("lengths", np.array([5, 2, 4], np.int64))
    net = cls(4, 3, **kwargs)
    out, state = net(x, sequence_length=lengths)
    c.fetch("output", out)
    for k, s in enumerate(state if isinstance(state, (list, tuple)) else [state]):
        c.fetch(f"final state {k}", s)


@case
def lstm(c: Case):
    _rnn_case(c, paddle.nn.LSTM, num_layers=2, direction="bidirect")


@case
def gru(c: Case):
    _rnn_case(c, paddle.nn.GRU, num_layers=2, direction="bidirect")


@case
def simple_rnn(c: Case):
    _rnn_case(c, paddle.nn.SimpleRNN, num_layers=1, direction="bidirect")


@case
def lstm_time_major_initial_states(c: Case):
    x = c.uniform("x", [5, 2, 4])
    h0, c0 = c.uniform("h0", [2, 2, 3]), c.uniform("c0", [2, 2, 3])
    net = paddle.nn.LSTM(4, 3, num_layers=1, direction="bidirect", time_major=True)
    out, (h, cell) = net(x, (h0, c0))
    c.fetch("output", out)
    c.fetch("final h", h)
    c.fetch("final c", cell)


@case
def simple_rnn_relu(c: Case):
    _rnn_case(c, paddle.nn.SimpleRNN, num_layers=2, activation="relu")


# --- driver ---------------------------------------------------------------------------------------
def build(name: str) -> None:
    paddle.seed(2026)
    main, startup = paddle.static.Program(), paddle.static.Program()
    c = Case(np.random.default_rng(sum(map(ord, name))))
    # Fresh name counters: a case's variable names do not depend on which cases ran before.
    with paddle.utils.unique_name.guard(), paddle.static.program_guard(main, startup):
        CASES[name](c)
        if name in GRAD_CASES:
            return _save_grad_case(name, c, main)
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        values = exe.run(main, feed=c.feeds, fetch_list=[v for _, v in c.fetches])
        target = OUT / name
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        paddle.static.save_inference_model(str(target / "model"), c.feed_vars,
                                           [v for _, v in c.fetches], exe, program=main)
    fetch_names = [v.name for _, v in c.fetches]
    np.savez(target / "inputs.npz", **c.feeds)
    np.savez(target / "expected.npz", **dict(zip(fetch_names, values)))
    meta = {"feeds": list(c.feeds), "fetches": fetch_names,
            "labels": [label for label, _ in c.fetches]}
    (target / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    print(f"{name}: {len(fetch_names)} fetches")


def _without_callstacks(program):
    """Drop the Python stack traces Paddle records per op: they are most of a file's bytes."""
    for op in program.global_block().ops:
        if op.desc.has_attr("op_callstack"):
            op.desc.remove_attr("op_callstack")
    return program


def _save_grad_case(name: str, c: Case, main) -> None:
    """model_forward.pb, model_with_grad.pb (Paddle's append_backward), inputs, loss + grads."""
    loss = _op("sum", {"X": c.terms})
    forward = _without_callstacks(main).desc.serialize_to_string()
    paddle.static.append_backward(loss)
    _without_callstacks(main)
    grads = [var.name + "@GRAD" for _, var in c.grad_inputs]
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(paddle.static.Scope()):
        values = exe.run(main, feed=c.feeds, fetch_list=[loss.name] + grads)
    target = OUT / name
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    (target / "model_forward.pb").write_bytes(forward)
    (target / "model_with_grad.pb").write_bytes(main.desc.serialize_to_string())
    np.savez(target / "inputs.npz", **c.feeds)
    np.savez(target / "expected.npz", **dict(zip([loss.name] + grads, values)))
    meta = {"kind": "grad", "loss": loss.name, "feeds": list(c.feeds), "grads": grads,
            "labels": [label for label, _ in c.grad_inputs]}
    (target / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    print(f"{name}: {len(grads)} gradients")


# The ops whose Paddle definitions (slots, attribute types and defaults) op_protos.json records.
PROTO_OPS = [
    "acos", "acosh", "arg_max", "arg_min", "argsort", "asin", "asinh", "assign_value", "atan",
    "atanh", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "bmm", "ceil",
    "cholesky", "cos", "cosh", "cross", "cumprod", "cumsum", "determinant", "diag_v2", "dist",
    "dot", "equal", "erf", "expand", "expand_as_v2", "expand_v2", "expm1", "eye", "flip",
    "floor", "frobenius_norm", "gather_nd", "gather_tree", "greater_equal", "greater_than",
    "increment", "index_add", "index_sample", "index_select", "inverse", "isfinite_v2",
    "isinf_v2", "isnan_v2", "kron", "label_smooth", "less_equal", "less_than", "linspace",
    "log10", "log1p", "log2", "logical_and", "logical_not", "logical_or", "logical_xor",
    "logsumexp", "lookup_table", "lookup_table_v2", "masked_select", "matmul", "matrix_power",
    "meshgrid", "norm", "not_equal", "one_hot_v2", "p_norm", "put_along_axis", "range",
    "reciprocal", "reduce_prod", "repeat_interleave", "rnn", "roll", "round", "rsqrt",
    "scatter", "scatter_nd_add", "sequence_mask", "set_value", "shape", "sign", "sin", "sinh",
    "strided_slice", "take_along_axis", "tan", "tile", "top_k", "top_k_v2", "trace",
    "tril_triu", "trunc", "unstack", "where", "where_index",
]
_PER_OP_ATTRS = {"op_role", "op_role_var", "op_namescope", "op_device", "op_callstack",
                 "with_quant_attr"}


def save_op_protos() -> None:
    """op_protos.json: Paddle's registered slots, attribute types and defaults per op."""
    from paddle.base import core
    from paddle.base.proto import framework_pb2

    protos = {}
    for blob in core.get_all_op_protos():
        proto = framework_pb2.OpProto.FromString(blob)
        if proto.type not in PROTO_OPS:
            continue
        defaults = core.get_op_attrs_default_value(proto.type.encode())
        protos[proto.type] = {
            "inputs": [[v.name, v.duplicable, v.dispensable] for v in proto.inputs],
            "outputs": [[v.name, v.duplicable, v.dispensable] for v in proto.outputs],
            "attrs": {a.name: [a.type, _jsonable(defaults.get(a.name))]
                      for a in proto.attrs if a.name not in _PER_OP_ATTRS}}
    lines = [f"{json.dumps(k)}: {json.dumps(v, sort_keys=True)}" for k, v in sorted(protos.items())]
    (OUT / "op_protos.json").write_text("{\n" + ",\n".join(lines) + "\n}\n")
    print(f"op_protos.json: {len(protos)} ops")


def _jsonable(value):
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    return repr(value)  # Scalars and other Paddle objects: recorded, not compared


def main(argv: list[str]) -> None:
    paddle.enable_static()
    _restore_legacy_apis()
    for name in argv or list(CASES):
        build(name)
    if not argv:
        save_op_protos()


if __name__ == "__main__":
    main(sys.argv[1:])
