"""Regenerate tests/golden_cnn/: one small Paddle legacy program per CNN op / attribute mix.

Needs PaddlePaddle 3.3.1 (a development oracle only; pyir and its tests never import it):

    FLAGS_enable_pir_api=0 /work/paddle-venv/bin/python tools/gen_golden_cnn.py [--only NAME]

Each case builds one op with `block.append_op` (so every attribute is exactly the case's),
seeded inputs and parameters, and writes tests/golden_cnn/<case>/:

    kind "inference"  model.pdmodel + model.pdiparams (save_inference_model; is_test is set)
    kind "program"    program.pb (the forward program as built, e.g. batch_norm in training)
    kind "grad"       program.pb after append_backward(mean(Out * G)) with G fed as `gw`
    all kinds         params.npz, inputs.npz, expected.npz and meta.json (feeds, fetches)
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil

os.environ.setdefault("FLAGS_enable_pir_api", "0")

import numpy as np  # noqa: E402
import paddle  # noqa: E402
from paddle.base.layer_helper import LayerHelper  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "golden_cnn"
RNG = np.random.default_rng(20261122)


def case(name, op, inputs, attrs=None, outputs=("Out",), kind="inference", fetch=None):
    """inputs: slot -> ("x" | "param" | "const", array); outputs: output slots to create."""
    return dict(name=name, op=op, inputs=inputs, attrs=attrs or {}, outputs=outputs, kind=kind,
                fetch=fetch)


def r(*shape, low=-1.0, high=1.0):
    return RNG.uniform(low, high, size=shape).astype("float32")


def pos(*shape):
    return RNG.uniform(0.5, 2.0, size=shape).astype("float32")


def x(*shape, scale=1.0):
    return ("x", r(*shape) * np.float32(scale))


def p(array):
    return ("param", array)


# --- the cases --------------------------------------------------------------------------------
def conv_cases():
    cs = []
    conv = [
        ("basic", x(2, 3, 7, 7), r(4, 3, 3, 3), {"paddings": [1, 1]}),
        ("stride_pad4", x(2, 3, 7, 8), r(4, 3, 3, 3), {"strides": [2, 2],
                                                       "paddings": [1, 0, 2, 1]}),
        ("groups_dilation", x(1, 4, 9, 9), r(6, 2, 3, 3), {"groups": 2, "dilations": [2, 2],
                                                           "paddings": [1, 1]}),
        ("same", x(2, 3, 7, 8), r(4, 3, 3, 3), {"strides": [2, 2], "padding_algorithm": "SAME",
                                                "dilations": [2, 2]}),
        ("valid", x(2, 3, 7, 8), r(4, 3, 3, 2), {"padding_algorithm": "VALID",
                                                 "paddings": [3, 3], "strides": [2, 1]}),
        ("nhwc", x(2, 6, 5, 3), r(4, 3, 3, 3), {"data_format": "NHWC", "paddings": [1, 1]}),
    ]
    for tag, xi, w, attrs in conv:
        cs.append(case(f"conv2d_{tag}", "conv2d", {"Input": xi, "Filter": p(w)}, attrs,
                       ("Output",)))
    cs.append(case("depthwise_conv2d_s2", "depthwise_conv2d",
                   {"Input": x(2, 4, 6, 6), "Filter": p(r(4, 1, 3, 3))},
                   {"groups": 4, "strides": [2, 2], "paddings": [1, 1]}, ("Output",)))
    cs.append(case("depthwise_conv2d_multiplier", "depthwise_conv2d",
                   {"Input": x(2, 4, 6, 6), "Filter": p(r(8, 1, 3, 3))},
                   {"groups": 4, "paddings": [1, 1]}, ("Output",)))
    convt = [
        ("basic", x(2, 3, 4, 4), r(3, 2, 3, 3), {"strides": [2, 2], "paddings": [1, 1]}),
        ("output_padding", x(2, 3, 4, 4), r(3, 2, 3, 3), {"strides": [2, 2],
                                                          "paddings": [1, 1],
                                                          "output_padding": [1, 1]}),
        ("groups", x(1, 4, 3, 3), r(4, 3, 3, 3), {"groups": 2, "dilations": [2, 1]}),
        ("same", x(1, 3, 4, 5), r(3, 2, 3, 3), {"strides": [2, 2],
                                                "padding_algorithm": "SAME"}),
        ("output_size", x(1, 3, 4, 4), r(3, 2, 3, 3), {"strides": [2, 2], "paddings": [1, 1],
                                                       "output_size": [8, 8]}),
        ("nhwc", x(1, 4, 4, 3), r(3, 2, 2, 2), {"strides": [2, 2], "data_format": "NHWC"}),
    ]
    for tag, xi, w, attrs in convt:
        cs.append(case(f"conv2d_transpose_{tag}", "conv2d_transpose",
                       {"Input": xi, "Filter": p(w)}, attrs, ("Output",)))
    return cs


def pool_cases():
    pools = [
        ("max_2x2", (2, 3, 6, 6), {"pooling_type": "max", "ksize": [2, 2], "strides": [2, 2]}),
        ("avg_pad_exclusive", (1, 2, 5, 5), {"pooling_type": "avg", "ksize": [3, 3],
                                             "strides": [2, 2], "paddings": [1, 1]}),
        ("avg_pad_inclusive", (1, 2, 5, 5), {"pooling_type": "avg", "ksize": [3, 3],
                                             "strides": [2, 2], "paddings": [1, 1],
                                             "exclusive": False}),
        ("max_ceil", (1, 2, 6, 7), {"pooling_type": "max", "ksize": [3, 3], "strides": [2, 2],
                                    "ceil_mode": True}),
        ("avg_ceil_inclusive", (1, 2, 6, 7), {"pooling_type": "avg", "ksize": [3, 3],
                                              "strides": [2, 2], "paddings": [1, 1],
                                              "ceil_mode": True, "exclusive": False}),
        ("avg_ceil_exclusive", (1, 2, 6, 7), {"pooling_type": "avg", "ksize": [3, 3],
                                              "strides": [2, 2], "ceil_mode": True}),
        ("avg_pad4", (1, 2, 6, 6), {"pooling_type": "avg", "ksize": [3, 2], "strides": [2, 2],
                                    "paddings": [0, 1, 1, 0], "exclusive": False}),
        ("max_same", (1, 2, 7, 6), {"pooling_type": "max", "ksize": [3, 3], "strides": [2, 2],
                                    "padding_algorithm": "SAME"}),
        ("avg_same", (1, 2, 7, 6), {"pooling_type": "avg", "ksize": [3, 3], "strides": [2, 2],
                                    "padding_algorithm": "SAME"}),
        ("avg_valid", (1, 2, 7, 6), {"pooling_type": "avg", "ksize": [3, 3], "strides": [2, 2],
                                     "padding_algorithm": "VALID", "paddings": [2, 2]}),
        ("global_max", (2, 3, 5, 4), {"pooling_type": "max", "ksize": [1, 1],
                                      "global_pooling": True}),
        ("global_avg", (2, 3, 5, 4), {"pooling_type": "avg", "ksize": [1, 1],
                                      "global_pooling": True}),
        ("adaptive_avg", (1, 2, 7, 7), {"pooling_type": "avg", "ksize": [3, 3],
                                        "adaptive": True}),
        ("adaptive_max", (1, 2, 5, 7), {"pooling_type": "max", "ksize": [2, 3],
                                        "adaptive": True}),
        ("max_nhwc", (1, 6, 6, 3), {"pooling_type": "max", "ksize": [3, 3], "strides": [2, 2],
                                    "paddings": [1, 1], "data_format": "NHWC"}),
        ("avg_nhwc_adaptive", (1, 5, 6, 3), {"pooling_type": "avg", "ksize": [2, 4],
                                             "adaptive": True, "data_format": "NHWC"}),
    ]
    return [case(f"pool2d_{tag}", "pool2d", {"X": x(*shape)}, attrs) for tag, shape, attrs in pools]


def norm_cases():
    def bn_inputs(shape, c):
        return {"X": x(*shape), "Scale": p(pos(c)), "Bias": p(r(c)), "Mean": p(r(c)),
                "Variance": p(pos(c))}

    bn_out = ("Y", "MeanOut", "VarianceOut", "SavedMean", "SavedVariance")
    cs = [
        case("batch_norm_infer", "batch_norm", bn_inputs((2, 3, 4, 4), 3), {"is_test": True},
             bn_out, fetch=["Y"]),
        case("batch_norm_infer_nhwc", "batch_norm", bn_inputs((2, 4, 4, 3), 3),
             {"is_test": True, "data_layout": "NHWC", "epsilon": 1e-3}, bn_out, fetch=["Y"]),
        case("batch_norm_train", "batch_norm", bn_inputs((4, 3, 3, 3), 3), {"momentum": 0.8},
             bn_out, kind="program"),
        case("layer_norm_axis1", "layer_norm", {"X": x(3, 4, 5), "Scale": p(pos(20)),
                                                "Bias": p(r(20))},
             {"begin_norm_axis": 1}, ("Y", "Mean", "Variance"), kind="program"),
        case("layer_norm_axis2", "layer_norm", {"X": x(3, 4, 5), "Scale": p(pos(5)),
                                                "Bias": p(r(5))},
             {"begin_norm_axis": 2, "epsilon": 1e-3}, ("Y", "Mean", "Variance"),
             kind="program"),
        case("instance_norm", "instance_norm", {"X": x(2, 3, 4, 4), "Scale": p(pos(3)),
                                                "Bias": p(r(3))},
             {}, ("Y", "SavedMean", "SavedVariance"), kind="program"),
        case("group_norm", "group_norm", {"X": x(2, 6, 3, 3), "Scale": p(pos(6)),
                                          "Bias": p(r(6))},
             {"groups": 3}, ("Y", "Mean", "Variance"), kind="program"),
        case("group_norm_nhwc", "group_norm", {"X": x(2, 3, 3, 4), "Scale": p(pos(4)),
                                               "Bias": p(r(4))},
             {"groups": 2, "data_layout": "NHWC"}, ("Y", "Mean", "Variance"), kind="program"),
    ]
    for impl in ("downgrade_in_infer", "upscale_in_train"):
        cs.append(case(f"dropout_infer_{impl}", "dropout", {"X": x(3, 4)},
                       {"dropout_prob": 0.3, "dropout_implementation": impl, "is_test": True},
                       ("Out", "Mask"), kind="program", fetch=["Out"]))
    cs.append(case("dropout_saved_default", "dropout", {"X": x(3, 4)}, {"dropout_prob": 0.25},
                   ("Out", "Mask"), fetch=["Out"]))
    return cs


def activation_cases():
    acts = [
        ("relu6", {}, 8.0), ("hard_swish", {}, 4.5),
        ("hard_swish", {"threshold": 4.0, "scale": 5.0, "offset": 2.0}, 4.5),
        ("hard_sigmoid", {}, 4.0), ("hard_sigmoid", {"slope": 0.1666667, "offset": 0.5}, 4.0),
        ("swish", {}, 3.0), ("silu", {}, 3.0), ("gelu", {}, 3.0),
        ("gelu", {"approximate": True}, 3.0), ("leaky_relu", {}, 1.0),
        ("leaky_relu", {"alpha": 0.3}, 1.0), ("elu", {"alpha": 0.5}, 2.0), ("selu", {}, 2.0),
        ("softplus", {}, 3.0), ("softplus", {"beta": 2.0, "threshold": 3.0}, 3.0),
        ("softsign", {}, 3.0), ("mish", {}, 3.0), ("mish", {"threshold": 1.0}, 3.0),
    ]
    cs = []
    for i, (op, attrs, scale) in enumerate(acts):
        tag = "_".join(f"{k}{v}" for k, v in attrs.items())
        cs.append(case(f"{op}_{tag}" if tag else op, op, {"X": x(3, 5, scale=scale)}, attrs))
    for mode, xs, alpha, fmt in (("all", (2, 3, 2, 2), (1,), "NCHW"),
                                 ("channel", (2, 3, 2, 2), (3,), "NCHW"),
                                 ("channel", (2, 2, 2, 3), (3,), "NHWC"),
                                 ("element", (2, 3, 2, 2), (1, 3, 2, 2), "NCHW")):
        cs.append(case(f"prelu_{mode}_{fmt.lower()}", "prelu",
                       {"X": x(*xs), "Alpha": p(r(*alpha))},
                       {"mode": mode, "data_format": fmt}))
    return cs


def shape_cases():
    cs = [
        case("flatten_1_2", "flatten_contiguous_range", {"X": x(2, 3, 4, 5)},
             {"start_axis": 1, "stop_axis": 2}, ("Out", "XShape"), fetch=["Out"]),
        case("flatten_0_-1", "flatten_contiguous_range", {"X": x(2, 3, 4)},
             {"start_axis": 0, "stop_axis": -1}, ("Out", "XShape"), fetch=["Out"]),
        case("pad", "pad", {"X": x(2, 3)}, {"paddings": [1, 0, 2, 1], "pad_value": 0.5}),
    ]
    for mode in ("constant", "reflect", "replicate", "circular"):
        cs.append(case(f"pad3d_{mode}", "pad3d", {"X": x(1, 2, 2, 3, 4)},
                       {"paddings": [1, 2, 2, 1, 1, 0], "mode": mode, "value": 0.25}))
    cs.append(case("pad3d_ndhwc_reflect", "pad3d", {"X": x(1, 3, 3, 4, 2)},
                   {"paddings": [1, 1, 2, 0, 0, 1], "mode": "reflect",
                    "data_format": "NDHWC"}))
    interp = [
        ("nearest", "scale2", {"scale": [2.0, 2.0], "align_corners": False}),
        ("nearest", "size_5x7", {"out_h": 5, "out_w": 7, "align_corners": False}),
        ("nearest", "size_5x7_corners", {"out_h": 5, "out_w": 7, "align_corners": True}),
        ("nearest", "scale1.7", {"scale": [1.7, 1.7], "align_corners": False}),
        ("nearest", "nhwc", {"out_h": 6, "out_w": 5, "align_corners": False,
                             "data_layout": "NHWC"}),
        ("bilinear", "corners", {"out_h": 5, "out_w": 7, "align_corners": True}),
        ("bilinear", "mode0", {"out_h": 5, "out_w": 7, "align_corners": False,
                               "align_mode": 0}),
        ("bilinear", "mode1", {"out_h": 5, "out_w": 7, "align_corners": False,
                               "align_mode": 1}),
        ("bilinear", "down", {"out_h": 2, "out_w": 3, "align_corners": False,
                              "align_mode": 0}),
        ("bilinear", "scale1.5", {"scale": [1.5, 1.5], "align_corners": False,
                                  "align_mode": 0}),
        ("bilinear", "nhwc", {"out_h": 6, "out_w": 5, "align_corners": False,
                              "align_mode": 0, "data_layout": "NHWC"}),
    ]
    for method, tag, attrs in interp:
        attrs = {"interp_method": method, "align_mode": 1, **attrs}
        cs.append(case(f"{method}_interp_v2_{tag}", f"{method}_interp_v2",
                       {"X": x(1, 2, 3, 4)}, attrs))
    return cs


def grad_cases():
    def g(c):
        return dict(c, kind="grad", name=c["name"] + "_grad")

    tied = ("x", (np.round(r(1, 2, 6, 6) * 2) / 2).astype("float32"))  # ties in max windows
    return [
        g(case("conv2d_groups", "conv2d", {"Input": x(2, 4, 6, 6), "Filter": p(r(6, 2, 3, 3))},
               {"groups": 2, "strides": [2, 1], "paddings": [1, 0, 1, 2]}, ("Output",))),
        g(case("depthwise_conv2d", "depthwise_conv2d",
               {"Input": x(1, 3, 5, 5), "Filter": p(r(3, 1, 3, 3))},
               {"groups": 3, "paddings": [1, 1]}, ("Output",))),
        g(case("conv2d_transpose", "conv2d_transpose",
               {"Input": x(1, 3, 3, 3), "Filter": p(r(3, 2, 3, 3))},
               {"strides": [2, 2], "paddings": [1, 1], "output_padding": [1, 1]}, ("Output",))),
        g(case("pool2d_max_ties", "pool2d", {"X": tied},
               {"pooling_type": "max", "ksize": [3, 3], "strides": [2, 2], "paddings": [1, 1],
                "ceil_mode": True})),
        g(case("pool2d_avg_ceil_inclusive", "pool2d", {"X": x(1, 2, 6, 7)},
               {"pooling_type": "avg", "ksize": [3, 3], "strides": [2, 2], "paddings": [1, 1],
                "ceil_mode": True, "exclusive": False})),
        g(case("pool2d_adaptive_max", "pool2d", {"X": x(1, 2, 5, 7)},
               {"pooling_type": "max", "ksize": [2, 3], "adaptive": True})),
        g(case("batch_norm_train", "batch_norm",
               {"X": x(4, 3, 2, 2), "Scale": p(pos(3)), "Bias": p(r(3)), "Mean": p(r(3)),
                "Variance": p(pos(3))}, {},
               ("Y", "MeanOut", "VarianceOut", "SavedMean", "SavedVariance"), fetch=["Y"])),
        g(case("batch_norm_global_stats", "batch_norm",
               {"X": x(4, 3, 2, 2), "Scale": p(pos(3)), "Bias": p(r(3)), "Mean": p(r(3)),
                "Variance": p(pos(3))}, {"use_global_stats": True},
               ("Y", "MeanOut", "VarianceOut", "SavedMean", "SavedVariance"), fetch=["Y"])),
        g(case("layer_norm", "layer_norm", {"X": x(3, 2, 4), "Scale": p(pos(8)),
                                            "Bias": p(r(8))},
               {"begin_norm_axis": 1}, ("Y", "Mean", "Variance"), fetch=["Y"])),
        g(case("instance_norm", "instance_norm", {"X": x(2, 3, 3, 3), "Scale": p(pos(3)),
                                                  "Bias": p(r(3))},
               {}, ("Y", "SavedMean", "SavedVariance"), fetch=["Y"])),
        g(case("group_norm", "group_norm", {"X": x(2, 4, 3, 3), "Scale": p(pos(4)),
                                            "Bias": p(r(4))},
               {"groups": 2}, ("Y", "Mean", "Variance"), fetch=["Y"])),
        g(case("hard_swish_attrs", "hard_swish", {"X": x(3, 5, scale=4.5)},
               {"threshold": 4.0, "scale": 5.0, "offset": 2.0})),
        g(case("gelu", "gelu", {"X": x(3, 5, scale=3.0)}, {})),
        g(case("gelu_tanh", "gelu", {"X": x(3, 5, scale=3.0)}, {"approximate": True})),
        g(case("mish", "mish", {"X": x(3, 5, scale=3.0)}, {})),
        g(case("selu", "selu", {"X": x(3, 5, scale=2.0)}, {})),
        g(case("softplus", "softplus", {"X": x(3, 5, scale=3.0)},
               {"beta": 2.0, "threshold": 3.0})),
        g(case("prelu_channel", "prelu", {"X": x(2, 3, 2, 2), "Alpha": p(r(3))},
               {"mode": "channel"})),
        g(case("bilinear_interp_v2", "bilinear_interp_v2", {"X": x(1, 2, 3, 4)},
               {"out_h": 5, "out_w": 7, "align_corners": False, "align_mode": 0,
                "interp_method": "bilinear"})),
        g(case("nearest_interp_v2", "nearest_interp_v2", {"X": x(1, 2, 3, 4)},
               {"out_h": 5, "out_w": 7, "align_corners": False, "interp_method": "nearest"})),
        g(case("pad3d_reflect", "pad3d", {"X": x(1, 2, 2, 3, 4)},
               {"paddings": [1, 2, 2, 1, 1, 0], "mode": "reflect"})),
        g(case("pad", "pad", {"X": x(2, 3)}, {"paddings": [1, 0, 2, 1]})),
    ]


# --- building and writing ---------------------------------------------------------------------
def build(c):
    """(main, startup, feeds {name: array}, params {name: array}, fetch names, grad names)."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    feeds, params = {}, {}
    with paddle.static.program_guard(main, startup):
        helper = LayerHelper(c["op"])
        ins = {}
        for slot, (kind, value) in c["inputs"].items():
            if kind == "x":
                var = paddle.static.data(f"x_{slot.lower()}", list(value.shape), "float32")
                var.stop_gradient = False
                feeds[var.name] = value
            else:
                var = paddle.static.create_parameter(
                    list(value.shape), "float32",
                    default_initializer=paddle.nn.initializer.Assign(value))
                params[var.name] = value
            ins[slot] = [var]
        outs = {s: [helper.create_variable_for_type_inference("float32")] for s in c["outputs"]}
        if "Mask" in outs:
            outs["Mask"] = [helper.create_variable_for_type_inference("uint8")]
        if c["op"] == "batch_norm":  # running statistics are updated in place
            outs["MeanOut"], outs["VarianceOut"] = ins["Mean"], ins["Variance"]
            outs["ReserveSpace"] = [helper.create_variable_for_type_inference("float32")]
        main.global_block().append_op(type=c["op"], inputs=ins, outputs=outs,
                                      attrs=dict(c["attrs"]))
        fetch_slots = c["fetch"] or c["outputs"]
        fetch = [outs[s][0] for s in fetch_slots]
        grads = []
        if c["kind"] == "grad":
            y = fetch[0]
            gw = paddle.static.data("gw", list(y.shape), "float32")
            feeds["gw"] = r(*y.shape)
            loss = paddle.mean(y * gw)
            paddle.static.append_backward(loss)
            grads = [n + "@GRAD" for n in list(feeds)[:-1] + list(params)
                     if main.global_block().has_var(n + "@GRAD")]
    return main, startup, feeds, params, [v.name for v in fetch], grads


def write(c):
    main, startup, feeds, params, fetch, grads = build(c)
    folder = OUT / c["name"]
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        if startup.global_block().ops:
            exe.run(startup)
        block = main.global_block()
        if c["kind"] == "inference":
            feed_vars = [block.var(n) for n in feeds]
            fetch_vars = [block.var(n) for n in fetch]
            paddle.static.save_inference_model(str(folder / "model"), feed_vars, fetch_vars,
                                               exe, program=main)
            prog, feed_names, fetch_vars = paddle.static.load_inference_model(
                str(folder / "model"), exe)
            values = exe.run(prog, feed=feeds, fetch_list=fetch_vars)
            fetch = [v.name for v in fetch_vars]
        else:
            (folder / "program.pb").write_bytes(main.desc.serialize_to_string())
            params_now = {n: np.array(scope.find_var(n).get_tensor()) for n in params}
            values = exe.run(main, feed=feeds, fetch_list=fetch + grads)
            params = params_now  # values before the run (batch_norm updates its statistics)
            fetch = fetch + grads
    np.savez(folder / "inputs.npz", **feeds)
    np.savez(folder / "params.npz", **params)
    np.savez(folder / "expected.npz", **{n: np.asarray(v) for n, v in zip(fetch, values)})
    meta = {"op": c["op"], "kind": c["kind"], "attrs": c["attrs"], "feeds": list(feeds),
            "fetches": fetch}
    (folder / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="regenerate the cases whose name contains this")
    args = parser.parse_args()
    paddle.enable_static()
    cases = conv_cases() + pool_cases() + norm_cases() + activation_cases() + shape_cases() \
        + grad_cases()
    names = [c["name"] for c in cases]
    assert len(names) == len(set(names)), "case names must be unique"
    for c in cases:
        if args.only and args.only not in c["name"]:
            continue
        try:
            write(c)
        except Exception as e:  # report and keep going: one odd case should not stop the rest
            print(f"FAILED {c['name']}: {type(e).__name__}: {str(e)[-600:]}")
            if args.only:
                raise
        else:
            print("wrote", c["name"])


if __name__ == "__main__":
    main()
