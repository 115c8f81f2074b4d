"""Regenerate pyir/pir/table.py: the one table from a Paddle 3 PIR op (`pd_op.NAME`) to the
legacy op pyir runs, its slots and attribute names (docs/pir-json.md, "The op table").

    .venv/bin/python tools/gen_pir_table.py [--pd-op-h PATH]

Two sources of facts, combined here and checked against pyir's registry:

* the PIR signature of each op (operands, results and attributes, in order, and which
  attributes are *mutable*, i.e. operands fed by `full`/`full_int_array`): parsed from
  `pd_op.h`, the header Paddle generates from `paddle/phi/ops/yaml/ops.yaml` and ships in its
  wheel (`paddle/include/paddle/fluid/pir/dialect/operator/ir/pd_op.h`); the accessors
  `pir::Value x() { return operand_source(0); }` give operand order, the first `Build`
  overload the attributes in YAML order;
* the legacy name of each op and of the arguments whose legacy name is not the CamelCase of
  the PIR name (`x` -> `X`, `mean_out` -> `MeanOut`): `COMPAT` below, the facts of Paddle's
  `paddle/phi/ops/yaml/op_compat.yaml` (`- op : matmul (matmul_v2)`, `inputs : {x : X}`,
  `attrs : {transpose_x : trans_x}`) for the ops pyir covers.

The output is data only: `OPS[pd_op] = (legacy type, operands, results, attrs)` where each
operand is a legacy slot, `"=attr"` (a mutable attribute: the constant value goes to the
legacy attribute), `"=attr|Slot"` (constant -> attribute, otherwise the tensor goes to Slot)
or `""` (dropped); each result a legacy slot or `""`; attrs maps PIR attribute -> legacy
attribute (`""`: dropped).
"""

from __future__ import annotations

import argparse
import pathlib
import pprint
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
_IR = ("/work/paddle-venv/lib/python3.11/site-packages/paddle/include/paddle/fluid/pir/"
       "dialect/operator/ir/")
DEFAULT_H = [_IR + "pd_op.h", _IR + "manual_op.h"]
OUT = ROOT / "pyir" / "pir" / "table.py"

# pd_op -> (legacy op, {PIR argument or attribute: legacy name}); "" drops the argument.
# Facts from op_compat.yaml; arguments not listed map to their CamelCase (attrs: same name).
_BIN = {}
_UN = {}
COMPAT: dict[str, tuple[str, dict]] = {
    # elementwise binary
    "add": ("elementwise_add", _BIN), "subtract": ("elementwise_sub", _BIN),
    "multiply": ("elementwise_mul", _BIN), "divide": ("elementwise_div", _BIN),
    "maximum": ("elementwise_max", _BIN), "minimum": ("elementwise_min", _BIN),
    "elementwise_pow": ("elementwise_pow", _BIN), "remainder": ("elementwise_mod", _BIN),
    "floor_divide": ("elementwise_floordiv", _BIN),
    "equal": ("equal", _BIN), "not_equal": ("not_equal", _BIN),
    "less_than": ("less_than", _BIN), "less_equal": ("less_equal", _BIN),
    "greater_than": ("greater_than", _BIN), "greater_equal": ("greater_equal", _BIN),
    "logical_and": ("logical_and", _BIN), "logical_or": ("logical_or", _BIN),
    "logical_not": ("logical_not", _UN),
    "matmul": ("matmul_v2", {"transpose_x": "trans_x", "transpose_y": "trans_y"}),
    "bmm": ("bmm", {}),
    "repeat_interleave": ("repeat_interleave", {"repeats": "Repeats", "axis": "dim"}),
    "einsum": ("einsum", {"x": "Operands", "out": "Out", "inner_cache": "",
                          "xshape": ""}),
    # activations and unary math
    **{n: (n, _UN) for n in ("relu", "relu6", "sigmoid", "tanh", "exp", "log", "sqrt",
                             "rsqrt", "abs", "silu", "swish", "elu", "softplus",
                             "square", "floor", "ceil", "erf", "sin", "cos", "reciprocal",
                             "logsigmoid", "sign", "gelu", "assign")},
    "hardswish": ("hard_swish", {}),
    "hardsigmoid": ("hard_sigmoid", {}),
    "leaky_relu": ("leaky_relu", {"negative_slope": "alpha"}),
    "pow": ("pow", {"y": "factor"}),
    "mish": ("mish", {"lambda": "threshold"}),
    "isnan": ("isnan_v2", {}), "isinf": ("isinf_v2", {}),
    "softmax": ("softmax", {}), "log_softmax": ("log_softmax", {}),
    "prelu": ("prelu", {"alpha": "Alpha"}),
    # convolution, pooling, normalization
    "conv2d": ("conv2d", {"out": "Output"}),
    "depthwise_conv2d": ("depthwise_conv2d", {"out": "Output"}),
    "conv2d_transpose": ("conv2d_transpose", {"x": "Input", "out": "Output",
                                              "output_size": "=output_size"}),
    "pool2d": ("pool2d", {"kernel_size": "=ksize"}),
    "batch_norm_": ("batch_norm", {"out": "Y", "data_format": "data_layout",
                                   "mean_out": "MeanOut@Mean", "reserve_space": "",
                                   "variance_out": "VarianceOut@Variance"}),
    "batch_norm": ("batch_norm", {"out": "Y", "data_format": "data_layout",
                                  "mean_out": "MeanOut@Mean", "reserve_space": "",
                                  "variance_out": "VarianceOut@Variance"}),
    "layer_norm": ("layer_norm", {"out": "Y"}),
    "instance_norm": ("instance_norm", {"out": "Y", "saved_variance": "SavedVariance"}),
    "group_norm": ("group_norm", {"out": "Y", "data_format": "data_layout"}),
    "dropout": ("dropout", {"seed_tensor": "Seed", "p": "=dropout_prob",
                            "mode": "dropout_implementation"}),
    "embedding": ("lookup_table_v2", {"x": "Ids", "weight": "W", "sparse": ""}),
    "rnn": ("rnn", {"x": "Input", "dropout_state_in": "", "dropout_state_out": "",
                    "reserve": ""}),
    "p_norm": ("p_norm", {}),
    # shapes and indexing
    "reshape": ("reshape2", {"shape": "=shape|Shape"}),
    "transpose": ("transpose2", {"perm": "axis"}),
    "squeeze": ("squeeze2", {"axis": "=axes"}),
    "unsqueeze": ("unsqueeze2", {"axis": "=axes|AxesTensor"}),
    "flatten": ("flatten_contiguous_range", {}),
    "concat": ("concat", {"axis": "=axis|AxisTensor"}),
    "split": ("split", {"sections": "=sections", "axis": "=axis|AxisTensor"}),
    "split_with_num": ("split", {"axis": "=axis|AxisTensor"}),
    "stack": ("stack", {"out": "Y"}),
    "slice": ("slice", {"starts": "=starts|StartsTensor", "ends": "=ends|EndsTensor"}),
    "gather": ("gather", {"axis": "=axis|Axis"}),
    "gather_nd": ("gather_nd", {}),
    "index_select": ("index_select", {"axis": "dim"}),
    "where": ("where", {}),
    "expand": ("expand_v2", {"shape": "=shape|Shape"}),
    "tile": ("tile", {"repeat_times": "=repeat_times|RepeatTimes"}),
    "shape": ("shape", {"input": "Input"}),
    "shape64": ("shape", {"input": "Input"}),
    "cast": ("cast", {"dtype": "out_dtype"}),
    "scale": ("scale", {"scale": "=scale|ScaleTensor"}),
    "clip": ("clip", {"min": "=min|Min", "max": "=max|Max"}),
    "pad3d": ("pad3d", {"paddings": "=paddings|Paddings", "pad_value": "value"}),
    "tril": ("tril_triu", {}), "triu": ("tril_triu", {}),
    "one_hot": ("one_hot_v2", {"num_classes": "=depth|depth_tensor"}),
    "cumsum": ("cumsum", {"axis": "=axis"}),
    "argmax": ("arg_max", {"axis": "=axis"}),
    "topk": ("top_k_v2", {"k": "=k|K", "indices": "Indices"}),
    "argsort": ("argsort", {}),
    "mean": ("reduce_mean", {"axis": "=dim", "keepdim": "keep_dim"}),
    "sum": ("reduce_sum", {"axis": "=dim", "keepdim": "keep_dim", "dtype": "out_dtype"}),
    "max": ("reduce_max", {"axis": "=dim", "keepdim": "keep_dim"}),
    "min": ("reduce_min", {"axis": "=dim", "keepdim": "keep_dim"}),
    "prod": ("reduce_prod", {"axis": "=dim", "keepdim": "keep_dim"}),
    "arange": ("range", {"start": "Start", "end": "End", "step": "Step", "dtype": "",
                         "place": ""}),
    "full": ("fill_constant", {"place": ""}),
    "full_like": ("fill_any_like", {"value": "=value", "place": ""}),
    "full_with_tensor": ("fill_constant", {"value": "ValueTensor", "shape": "=shape|ShapeTensor"}),
    "meshgrid": ("meshgrid", {"inputs": "X", "out": "Out"}),
    "assign_value": ("assign_value", {"place": ""}),
    "assign_value_": ("assign_value", {"output": "", "place": ""}),
    # more math, activations and reductions
    **{n: (n, _UN) for n in ("log1p", "expm1", "tan", "asin", "acos", "atan", "sinh",
                             "cosh", "asinh", "acosh", "atanh", "lgamma", "digamma",
                             "log2", "log10", "round", "tanh_shrink", "softsign", "erfinv",
                             "selu", "celu", "maxout", "thresholded_relu", "isfinite",
                             "clip_by_norm", "squared_l2_norm", "bitwise_and", "bitwise_or",
                             "bitwise_xor", "bitwise_not", "logical_xor", "flip", "diag",
                             "cumprod", "norm", "dist", "dot", "kron", "temporal_shift",
                             "index_sample", "scatter_nd_add", "kthvalue", "mode",
                             "logsumexp", "trace")},
    "isfinite": ("isfinite_v2", {}),
    "diag": ("diag_v2", {}),
    "trace": ("trace", {"x": "Input"}),
    "trunc": ("trunc", {"input": "X"}),
    "atan2": ("atan2", {"x": "X1", "y": "X2"}),
    "hardshrink": ("hard_shrink", {}),
    "softshrink": ("softshrink", {"threshold": "lambda"}),
    "hardtanh": ("brelu", {}),
    "heaviside": ("elementwise_heaviside", {}),
    "stanh": ("stanh", {}),
    "logit": ("logit", {}),
    "cross": ("cross", {"axis": "dim"}),
    "amax": ("reduce_amax", {"axis": "dim", "keepdim": "keep_dim"}),
    "amin": ("reduce_amin", {"axis": "dim", "keepdim": "keep_dim"}),
    "any": ("reduce_any", {"axis": "dim", "keepdim": "keep_dim"}),
    "all": ("reduce_all", {"axis": "dim", "keepdim": "keep_dim"}),
    "argmin": ("arg_min", {"axis": "=axis"}),
    "frobenius_norm": ("frobenius_norm", {"axis": "=dim", "keepdim": "keep_dim"}),
    "logcumsumexp": ("logcumsumexp", {}),
    "nonzero": ("where_index", {"x": "Condition"}),
    "numel": ("size", {"x": "Input", "size": "Out"}),
    # indexing and shapes
    "roll": ("roll", {"shifts": "=shifts|ShiftsTensor"}),
    "unbind": ("unbind", {"input": "X"}),
    "unstack": ("unstack", {"out": "Y"}),
    "masked_select": ("masked_select", {"out": "Y"}),
    "scatter": ("scatter", {"index": "Ids"}),
    "take_along_axis": ("take_along_axis", {"arr": "Input", "indices": "Index",
                                            "out": "Result", "axis": "Axis"}),
    "put_along_axis": ("put_along_axis", {"arr": "Input", "indices": "Index",
                                          "values": "Value", "out": "Result", "axis": "Axis",
                                          "reduce": "Reduce", "include_self": "Include_self"}),
    "strided_slice": ("strided_slice", {"x": "Input", "starts": "=starts|StartsTensor",
                                        "ends": "=ends|EndsTensor",
                                        "strides": "=strides|StridesTensor"}),
    "crop": ("crop_tensor", {"shape": "=shape|Shape", "offsets": "=offsets|Offsets"}),
    "pad": ("pad", {"pad_value": "=pad_value"}),
    "expand_as": ("expand_as_v2", {}),
    "broadcast_tensors": ("broadcast_tensors", {"input": "X"}),
    "linspace": ("linspace", {"number": "Num", "place": ""}),
    "eye": ("eye", {"num_rows": "=num_rows", "num_columns": "=num_columns", "place": ""}),
    "unique": ("unique", {"inverse": "Index"}),
    "unfold": ("unfold", {"out": "Y"}),
    "fold": ("fold", {"out": "Y"}),
    "sequence_mask": ("sequence_mask", {"max_len": "=maxlen|MaxLenTensor"}),
    "full_batch_size_like": ("fill_constant_batch_size_like", {"place": ""}),
    # losses
    "label_smooth": ("label_smooth", {"label": "X"}),
    "cross_entropy_with_softmax": ("softmax_with_cross_entropy", {"input": "Logits"}),
    "sigmoid_cross_entropy_with_logits": ("sigmoid_cross_entropy_with_logits",
                                          {"pos_weight": "pos_weight"}),
    "kldiv_loss": ("kldiv_loss", {"label": "Target", "out": "Loss"}),
    "huber_loss": ("huber_loss", {"input": "X", "label": "Y"}),
    "bce_loss": ("bce_loss", {"input": "X"}),
    "nll_loss": ("nll_loss", {"input": "X", "total_weight": "Total_weight"}),
    "log_loss": ("log_loss", {"input": "Predicted", "label": "Labels", "out": "Loss"}),
    # vision and detection
    "conv3d": ("conv3d", {"out": "Output"}),
    "conv3d_transpose": ("conv3d_transpose", {"x": "Input", "out": "Output"}),
    "depthwise_conv2d_transpose": ("depthwise_conv2d_transpose",
                                   {"x": "Input", "out": "Output",
                                    "output_size": "=output_size"}),
    "pool3d": ("pool3d", {"kernel_size": "ksize"}),
    "max_pool2d_with_index": ("max_pool2d_with_index", {"kernel_size": "ksize"}),
    "pixel_shuffle": ("pixel_shuffle", {}),
    "pixel_unshuffle": ("pixel_unshuffle", {}),
    "channel_shuffle": ("channel_shuffle", {}),
    "grid_sample": ("grid_sampler", {"out": "Output"}),
    "affine_grid": ("affine_grid", {"input": "Theta", "output_shape": "=output_shape|OutputShape"}),
    "yolo_box": ("yolo_box", {}),
    "roi_align": ("roi_align", {"boxes": "ROIs", "boxes_num": "RoisNum"}),
    "roi_pool": ("roi_pool", {"boxes": "ROIs", "boxes_num": "RoisNum", "arg_max": "Argmax"}),
    "multiclass_nms3": ("multiclass_nms3", {"bboxes": "BBoxes"}),
    "matrix_nms": ("matrix_nms", {"bboxes": "BBoxes", "roisnum": "RoisNum"}),
    "nms": ("nms", {"x": "Boxes", "out": "KeepBoxesIdxs", "threshold": "iou_threshold"}),
    "deformable_conv": ("deformable_conv", {"x": "Input", "out": "Output"}),
    "prior_box": ("prior_box", {"out": "Boxes", "var": "Variances"}),
    "box_coder": ("box_coder", {}),
    "yolo_loss": ("yolov3_loss", {"gt_box": "GTBox", "gt_label": "GTLabel",
                                  "gt_score": "GTScore", "gt_match_mask": "GTMatchMask"}),
    "psroi_pool": ("psroi_pool", {"boxes": "ROIs", "boxes_num": "RoisNum"}),
    "max_pool3d_with_index": ("max_pool3d_with_index", {"kernel_size": "ksize"}),
    "anchor_generator": ("anchor_generator", {"variances_out": "Variances"}),
    "generate_proposals": ("generate_proposals_v2", {"pre_nms_top_n": "pre_nms_topN",
                                                     "post_nms_top_n": "post_nms_topN"}),
    "distribute_fpn_proposals": ("distribute_fpn_proposals",
                                 {"multi_level_rois_num": "MultiLevelRoIsNum"}),
}
# The interpolation ops share one layout: `<kind>_interp` is legacy `<kind>_interp_v2`.
for _kind in ("nearest", "bilinear", "bicubic", "linear", "trilinear"):
    COMPAT[f"{_kind}_interp"] = (f"{_kind}_interp_v2", {
        "data_format": "data_layout", "size_tensor": "SizeTensor", "scale_tensor": "Scale",
        "output": "Out"})

# Facts beyond the signatures, written to the table as they are:
# the legacy op to use when an optional operand is absent (op_compat.yaml: deformable_conv
# without a mask is the legacy deformable_conv_v1, which has no Mask slot);
VARIANTS = {"deformable_conv": ("Mask", "deformable_conv_v1")}
# results whose dtype Paddle's PIR InferMeta declares wrongly (generate_proposals declares
# rpn_rois_num float32; its kernel, like the legacy op's, writes int32).
RESULT_DTYPES = {"generate_proposals": {2: "int32"}}


def camel(name: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in name.split("_"))


def _split_params(text: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "{(<":
            depth += 1
        elif ch in "})>":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def parse_header(paths: list[str]) -> dict[str, dict]:
    """{pd_op name: {operands, results, attrs, mutable}} from pd_op.h (and manual_op.h)."""
    text = "\n".join(pathlib.Path(p).read_text() for p in paths)
    sigs = {}
    for m in re.finditer(r'static const char \*name\(\) \{ return "pd_op\.(\w+)"; \}', text):
        name = m.group(1)
        end = text.find("\n};", m.end())
        body = re.sub(r"\s+", " ", re.sub(r"//[^\n]*", "", text[m.end():end]))
        operands = [(int(i), n) for n, i in
                    re.findall(r"pir::Value (\w+)\(\) \{ return operand_source\((\d+)\); \}",
                               body)]
        results = [(int(i), n) for n, i in
                   re.findall(r"pir::Value (\w+)\(\) \{ return result\((\d+)\); \}", body)]
        builds = re.findall(r"static void Build\(pir::Builder &builder, ?pir::OperationArgument"
                            r" &argument ?(?:, ?)?(.*?)\);", body)
        first = next((b for b in builds if "AttributeMap" not in b), "")
        values, attrs, kinds = [], [], {}
        for p in _split_params(first):
            decl, _, default = p.partition("=")
            decl = decl.strip()
            pname = re.sub(r"_$", "", decl.split()[-1].lstrip("&*"))
            if decl.startswith("pir::Value"):
                values.append(pname)
            else:
                attrs.append(pname)
                kinds[pname] = (decl.rsplit(None, 1)[0].replace("const ", "").rstrip("&"),
                                default.strip() or None)
        mutable = [n for _, n in sorted(operands) if n not in values and n in attrs]
        sigs.setdefault(name, None)
        sigs[name] = sigs[name] or dict(operands=[n for _, n in sorted(operands)],
                                        results=[n for _, n in sorted(results)],
                                        attrs=[a for a in attrs if a not in mutable],
                                        mutable=mutable, kinds=kinds)
    return sigs


# C++ attribute types of pd_op.h -> the JSON attribute kind a PIR file writes for them
# (docs/pir-json.md, "Attribute values"); vectors are `0.a_array` of the element kind.
_KIND = {"bool": "0.a_bool", "int": "0.a_i32", "int64_t": "0.a_i64", "float": "0.a_f32",
         "double": "0.a_f64", "std::string": "0.a_str", "phi::DataType": "1.a_dtype",
         "phi::Place": "1.a_place", "phi::IntArray": "1.a_intarray",
         "phi::Scalar": "1.a_scalar", "std::vector<int>": "0.a_array/0.a_i32",
         "std::vector<int64_t>": "0.a_array/0.a_i64", "std::vector<float>": "0.a_array/0.a_f32",
         "std::vector<double>": "0.a_array/0.a_f64",
         "std::vector<std::string>": "0.a_array/0.a_str", "std::vector<bool>": "0.a_array/0.a_bool",
         "std::vector<phi::Scalar>": "0.a_array/1.a_scalar"}
# The constant op (and dtype) Paddle writes for a mutable attribute of each C++ type.
_MUTABLE = {"int": "full:int32", "int64_t": "full:int64", "float": "full:float32",
            "double": "full:float64", "phi::Scalar": "full:float32",
            "std::vector<int64_t>": "full_int_array:int64",
            "std::vector<int>": "full_int_array:int64", "phi::IntArray": "full_int_array:int64"}


def _default(cpp: str, text: str | None):
    """A C++ default argument as a JSON value (None when there is none)."""
    if text is None:
        return None
    if text.startswith("{") and text.endswith("}"):
        inner = text[1:-1].strip()
        return [_default(cpp.split("<", 1)[-1].rstrip(">"), v.strip())
                for v in inner.split(",")] if inner else []
    if text in ("true", "false"):
        return text == "true"
    if text.startswith('"'):
        return text.strip('"')
    if text.startswith("phi::DataType::"):
        return text.split("::")[-1].lower()
    if "Place" in text:
        return [1, 0, ""] if "CPU" in text else [0, 0, ""]
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text.rstrip("f"))
    except ValueError:
        return None


def build_table(sigs: dict) -> dict:
    from pyir import registry

    table, problems = {}, []
    for op, (legacy, renames) in sorted(COMPAT.items()):
        sig = sigs.get(op)
        if sig is None:
            problems.append(f"{op}: not in pd_op.h")
            continue
        opdef = registry.lookup(legacy)
        if opdef is None:
            problems.append(f"{op}: pyir has no legacy op {legacy}")
            continue
        ins = {s.name for s in opdef.inputs}
        outs = {s.name for s in opdef.outputs}
        attr_names = {a.name for a in opdef.attrs} | set(registry.COMMON_ATTRS)
        operands = []
        for n in sig["operands"]:
            legacy_name = renames.get(n, ("=" + n) if n in sig["mutable"] else camel(n))
            for part in legacy_name.lstrip("=").split("|"):
                if part and legacy_name.startswith("=") and part == legacy_name.lstrip(
                        "=").split("|")[0]:
                    if part not in attr_names:
                        problems.append(f"{op}: mutable {n} -> attr {part} not in {legacy}")
                elif part and part not in ins:
                    problems.append(f"{op}: operand {n} -> {part} not a slot of {legacy}")
            operands.append(legacy_name)
        results = []
        for n in sig["results"]:
            legacy_name = renames.get(n, camel(n))

            if legacy_name and legacy_name.split("@")[0] not in outs:
                problems.append(f"{op}: result {n} -> {legacy_name} not a slot of {legacy}")
                legacy_name = ""
            results.append(legacy_name)
        attrs = {}
        for n in sig["attrs"]:
            legacy_name = renames.get(n, n)
            if legacy_name and legacy_name not in attr_names:
                problems.append(f"{op}: attribute {n} -> {legacy_name} not in {legacy} (map "
                                f"it, or to \"\" when legacy Paddle has no such attribute)")
                legacy_name = ""
            cpp, default = sig["kinds"][n]
            if cpp not in _KIND:
                problems.append(f"{op}: attribute {n} has C++ type {cpp}")
            attrs[n] = (legacy_name, _KIND.get(cpp, "?"), _default(cpp, default))
        mutable = {n: _MUTABLE.get(sig["kinds"][n][0], "?") for n in sig["mutable"]}
        for n, kind in mutable.items():
            if kind == "?":
                problems.append(f"{op}: mutable {n} has C++ type {sig['kinds'][n][0]}")
        table[op] = (legacy, tuple(operands), tuple(results), attrs,
                     tuple(mutable.get(n, "") for n in sig["operands"]))
    return table, problems


HEADER = '''"""The op table: Paddle 3 PIR op (`pd_op.NAME`) -> the legacy op pyir runs.

GENERATED by tools/gen_pir_table.py from pd_op.h (Paddle 3.3.1's op signatures, from ops.yaml)
and op_compat.yaml facts; do not edit by hand. docs/pir-json.md, "The op table", explains it.

OPS[pd_op] = (legacy type, operands, results, attrs, constants):
  operand  "Slot"        the value goes to legacy input slot Slot
           "=attr"       a mutable attribute: the constant full/full_int_array value feeding
                         it becomes legacy attribute `attr`
           "=attr|Slot"  as "=attr" when the value is a constant, else the tensor goes to Slot
           ""            dropped (an operand legacy Paddle does not have)
  result   "Slot", "Slot@Input" (in place: the legacy op writes the variable of its
           input slot Input, e.g. batch_norm's MeanOut@Mean) or "" (no legacy output)
  attrs    PIR attribute -> (legacy attribute name or "" (dropped), the JSON kind Paddle
           writes it as, its default in the PIR signature or None)
  constants  per operand: for a mutable attribute, the op and dtype Paddle feeds it with
           ("full_int_array:int64", "full:int32", "full:float32", ...), else ""
"""

OPS = '''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pd-op-h", nargs="+", default=DEFAULT_H)
    a = ap.parse_args()
    table, problems = build_table(parse_header(a.pd_op_h))
    for p in problems:
        print("problem:", p)
    body = pprint.pformat(table, width=100, sort_dicts=False)
    OUT.write_text(
        HEADER + body + "\n\n"
        "# pd_op -> (operand slot, legacy op to use when that operand is absent)\n"
        f"VARIANTS = {pprint.pformat(VARIANTS, width=100)}\n\n"
        "# pd_op -> {result index: the dtype its kernel writes (Paddle declares another)}\n"
        f"RESULT_DTYPES = {pprint.pformat(RESULT_DTYPES, width=100)}\n")
    print(f"wrote {OUT} ({len(table)} ops)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
