"""paddle.static.nn layers: the ops, attributes, parameter names/shapes and initializers
they emit (literals printed by Paddle 3.3.1 in legacy static mode, FLAGS_enable_pir_api=0),
and their results against numpy references after running the startup program."""

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

import pyir
import pyir.static as S
from pyir.errors import BuildError
from pyir.unsupported import UnsupportedError

COMMON = {"op_device", "op_namescope", "op_role", "op_role_var", "with_quant_attr",
          "op_callstack"}


def _norm(value):
    if isinstance(value, float):
        return round(float(np.float32(value)), 6)
    if isinstance(value, list):
        return [_norm(v) for v in value]
    return value


def dump(program):
    """(type, inputs, outputs, attrs) per op, leaving out empty slots and common attrs."""
    return [(op.type, {k: v for k, v in sorted(op.inputs.items()) if v},
             {k: v for k, v in sorted(op.outputs.items()) if v},
             {k: _norm(v) for k, v in sorted(op.attrs.items()) if k not in COMMON})
            for op in program.global_block().ops]


def inits(program):
    """(parameter, initializer op, its key attributes) per startup op."""
    out = []
    for op in program.global_block().ops:
        attrs = {n: round(float(op.attrs[n]), 6) for n in ("value", "mean", "std", "min", "max")
                 if n in op.attrs}
        out.append((op.outputs["Out"][0], op.type, attrs))
    return out


def build(fn):
    main, start = S.Program(), S.Program()
    with S.program_guard(main, start):
        fn()
    params = [(p.name, list(p.shape)) for p in main.all_parameters()]
    return main, start, params


def X(shape=(-1, 3, 8, 8), name="x"):
    return S.data(name, list(shape), "float32")


# Each case: the call, then what Paddle 3.3.1 emitted for it (ops, parameters, initializers).
CASES = {
    "conv2d_nhwc_same": (
        lambda: S.nn.conv2d(X([-1, 8, 8, 3]), 6, [3, 2], stride=2, padding="SAME",
                            data_format="NHWC", act="tanh"),
        [("conv2d", {"Filter": ["conv2d_0.w_0"], "Input": ["x"]},
          {"Output": ["conv2d_0.tmp_0"]},
          {"data_format": "NHWC", "dilations": [1, 1], "groups": 1,
           "padding_algorithm": "SAME", "paddings": [0, 0], "strides": [2, 2]}),
         ("elementwise_add", {"X": ["conv2d_0.tmp_0"], "Y": ["conv2d_0.b_0"]},
          {"Out": ["conv2d_0.tmp_1"]}, {"axis": 3}),
         ("tanh", {"X": ["conv2d_0.tmp_1"]}, {"Out": ["conv2d_0.tmp_2"]}, {})],
        [("conv2d_0.w_0", [6, 3, 3, 2]), ("conv2d_0.b_0", [6])],
        [("conv2d_0.w_0", "gaussian_random", {"mean": 0.0, "std": 0.333333}),
         ("conv2d_0.b_0", "fill_constant", {"value": 0.0})]),
    "conv2d_depthwise_no_bias": (
        lambda: S.nn.conv2d(X(), 6, 3, padding=[1, 2], dilation=2, groups=3, use_cudnn=False,
                            bias_attr=False),
        [("depthwise_conv2d", {"Filter": ["depthwise_conv2d_0.w_0"], "Input": ["x"]},
          {"Output": ["depthwise_conv2d_0.tmp_0"]},
          {"data_format": "NCHW", "dilations": [2, 2], "groups": 3,
           "padding_algorithm": "EXPLICIT", "paddings": [1, 2], "strides": [1, 1]})],
        [("depthwise_conv2d_0.w_0", [6, 1, 3, 3])],
        [("depthwise_conv2d_0.w_0", "gaussian_random", {"mean": 0.0, "std": 0.272166})]),
    "conv2d_named_symmetric_pads": (
        lambda: S.nn.conv2d(X(), 3, 3, padding=[1, 1, 2, 2], groups=3, use_cudnn=False,
                            name="dw"),
        [("depthwise_conv2d", {"Filter": ["dw.w_0"], "Input": ["x"]}, {"Output": ["dw.tmp_0"]},
          {"data_format": "NCHW", "dilations": [1, 1], "groups": 3,
           "padding_algorithm": "EXPLICIT", "paddings": [1, 2], "strides": [1, 1]}),
         ("elementwise_add", {"X": ["dw.tmp_0"], "Y": ["dw.b_0"]}, {"Out": ["dw.tmp_1"]},
          {"axis": 1})],
        [("dw.w_0", [3, 1, 3, 3]), ("dw.b_0", [3])],
        [("dw.w_0", "gaussian_random", {"mean": 0.0, "std": 0.272166}),
         ("dw.b_0", "fill_constant", {"value": 0.0})]),
    "conv2d_transpose_output_size": (
        lambda: S.nn.conv2d_transpose(X(), 4, output_size=[17, 17], stride=2,
                                      padding=[0, 0, 1, 1]),
        [("conv2d_transpose", {"Filter": ["conv2d_transpose_0.w_0"], "Input": ["x"]},
          {"Output": ["conv2d_transpose_0.tmp_0"]},
          {"data_format": "NCHW", "dilations": [1, 1], "groups": 1, "output_padding": [],
           "output_size": [17, 17], "padding_algorithm": "EXPLICIT", "paddings": [0, 1],
           "strides": [2, 2]}),
         ("elementwise_add", {"X": ["conv2d_transpose_0.tmp_0"],
                              "Y": ["conv2d_transpose_0.b_0"]},
          {"Out": ["conv2d_transpose_0.tmp_1"]}, {"axis": 1})],
        [("conv2d_transpose_0.w_0", [3, 4, 3, 5]), ("conv2d_transpose_0.b_0", [4])],
        [("conv2d_transpose_0.w_0", "uniform_random", {"min": -0.239046, "max": 0.239046}),
         ("conv2d_transpose_0.b_0", "fill_constant", {"value": 0.0})]),
    "batch_norm_test_named_stats": (
        lambda: S.nn.batch_norm(X(), is_test=True, momentum=0.8, epsilon=1e-3,
                                moving_mean_name="mm", moving_variance_name="mv"),
        [("batch_norm", {"Bias": ["batch_norm_0.b_0"], "Mean": ["mm"],
                         "Scale": ["batch_norm_0.w_0"], "Variance": ["mv"], "X": ["x"]},
          {"MeanOut": ["mm"], "SavedMean": ["batch_norm_0.tmp_0"],
           "SavedVariance": ["batch_norm_0.tmp_1"], "VarianceOut": ["mv"],
           "Y": ["batch_norm_0.tmp_2"]},
          {"data_layout": "NCHW", "epsilon": 0.001, "is_test": True, "momentum": 0.8,
           "trainable_statistics": False, "use_global_stats": False})],
        [("batch_norm_0.w_0", [3]), ("batch_norm_0.b_0", [3]), ("mm", [3]), ("mv", [3])],
        [("batch_norm_0.w_0", "fill_constant", {"value": 1.0}),
         ("batch_norm_0.b_0", "fill_constant", {"value": 0.0}),
         ("mm", "fill_constant", {"value": 0.0}), ("mv", "fill_constant", {"value": 1.0})]),
    "layer_norm_shift_only": (
        lambda: S.nn.layer_norm(X(), scale=False, begin_norm_axis=2, epsilon=1e-3, act="relu"),
        [("layer_norm", {"Bias": ["layer_norm_0.b_0"], "X": ["x"]},
          {"Mean": ["layer_norm_0.tmp_0"], "Variance": ["layer_norm_0.tmp_1"],
           "Y": ["layer_norm_0.tmp_2"]}, {"begin_norm_axis": 2, "epsilon": 0.001}),
         ("relu", {"X": ["layer_norm_0.tmp_2"]}, {"Out": ["layer_norm_0.tmp_3"]}, {})],
        [("layer_norm_0.b_0", [64])],
        [("layer_norm_0.b_0", "fill_constant", {"value": 0.0})]),
    "group_norm_with_params": (
        lambda: S.nn.group_norm(X([-1, 4, 5, 5]), groups=2, param_attr=pyir.ParamAttr(),
                                bias_attr=pyir.ParamAttr(), act="relu"),
        [("group_norm", {"Bias": ["group_norm_0.b_0"], "Scale": ["group_norm_0.w_0"],
                         "X": ["x"]},
          {"Mean": ["_generated_var_0"], "Variance": ["_generated_var_1"],
           "Y": ["_generated_var_2"]},
          {"data_layout": "NCHW", "epsilon": 1e-05, "groups": 2}),
         ("relu", {"X": ["_generated_var_2"]}, {"Out": ["group_norm_0.tmp_0"]}, {})],
        [("group_norm_0.w_0", [4]), ("group_norm_0.b_0", [4])],
        [("group_norm_0.w_0", "fill_constant", {"value": 1.0}),
         ("group_norm_0.b_0", "fill_constant", {"value": 0.0})]),
    "group_norm_default_has_no_params": (
        lambda: S.nn.group_norm(X([-1, 4, 5, 5]), groups=2),
        [("group_norm", {"X": ["x"]},
          {"Mean": ["_generated_var_0"], "Variance": ["_generated_var_1"],
           "Y": ["_generated_var_2"]},
          {"data_layout": "NCHW", "epsilon": 1e-05, "groups": 2})], [], []),
    "instance_norm_with_params": (
        lambda: S.nn.instance_norm(X(), param_attr=pyir.ParamAttr(),
                                   bias_attr=pyir.ParamAttr()),
        [("instance_norm", {"Bias": ["instance_norm_0.b_0"], "Scale": ["instance_norm_0.w_0"],
                            "X": ["x"]},
          {"SavedMean": ["instance_norm_0.tmp_0"], "SavedVariance": ["instance_norm_0.tmp_1"],
           "Y": ["instance_norm_0.tmp_2"]}, {"epsilon": 1e-05})],
        [("instance_norm_0.w_0", [3]), ("instance_norm_0.b_0", [3])],
        [("instance_norm_0.w_0", "fill_constant", {"value": 1.0}),
         ("instance_norm_0.b_0", "fill_constant", {"value": 0.0})]),
    "embedding_negative_padding_idx": (
        lambda: S.nn.embedding(S.data("ids", [-1, 5], "int64"), size=[10, 4], padding_idx=-2),
        [("lookup_table_v2", {"Ids": ["ids"], "W": ["embedding_0.w_0"]},
          {"Out": ["embedding_0.tmp_0"]}, {"padding_idx": 8})],
        [("embedding_0.w_0", [10, 4])],
        [("embedding_0.w_0", "uniform_random", {"min": -0.654654, "max": 0.654654})]),
    "prelu_element": (
        lambda: S.nn.prelu(X([-1, 5, 6]), "element"),
        [("prelu", {"Alpha": ["prelu_0.w_0"], "X": ["x"]}, {"Out": ["prelu_0.tmp_0"]},
          {"data_format": "NCHW", "mode": "element"})],
        [("prelu_0.w_0", [1, 5, 6])],
        [("prelu_0.w_0", "fill_constant", {"value": 0.25})]),
    "prelu_channel_nhwc": (
        lambda: S.nn.prelu(X([-1, 4, 4, 3]), "channel", data_format="NHWC"),
        [("prelu", {"Alpha": ["prelu_0.w_0"], "X": ["x"]}, {"Out": ["prelu_0.tmp_0"]},
          {"data_format": "NHWC", "mode": "channel"})],
        [("prelu_0.w_0", [1, 1, 1, 3])],
        [("prelu_0.w_0", "fill_constant", {"value": 0.25})]),
    "row_conv_relu": (
        lambda: S.nn.row_conv(X([-1, 4, 3]), 2, act="relu"),
        [("row_conv", {"Filter": ["row_conv_0.w_0"], "X": ["x"]}, {"Out": ["row_conv_0.tmp_0"]},
          {}),
         ("relu", {"X": ["row_conv_0.tmp_0"]}, {"Out": ["row_conv_0.tmp_1"]}, {})],
        [("row_conv_0.w_0", [3, 3])],
        [("row_conv_0.w_0", "uniform_random", {"min": -1.0, "max": 1.0})]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_layer_emits_what_paddle_emits(case):
    fn, ops, params, init = CASES[case]
    main, start, got_params = build(fn)
    assert dump(main) == ops
    assert got_params == params
    assert inits(start) == init


# --- numbers --------------------------------------------------------------------------------
def conv2d_ref(x, w, stride, pad, dilation=(1, 1), groups=1):
    """NCHW convolution by sliding windows; pad = (top, bottom, left, right)."""
    x = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[1]), (pad[2], pad[3])))
    kh, kw = w.shape[2:]
    eh, ew = (kh - 1) * dilation[0] + 1, (kw - 1) * dilation[1] + 1
    win = sliding_window_view(x, (eh, ew), axis=(2, 3))[..., ::dilation[0], ::dilation[1]]
    win = win[:, :, ::stride[0], ::stride[1]]
    cin, cout = x.shape[1] // groups, w.shape[0] // groups
    outs = [np.einsum("nchwij,ocij->nohw", win[:, g * cin:(g + 1) * cin],
                      w[g * cout:(g + 1) * cout]) for g in range(groups)]
    return np.concatenate(outs, axis=1)


def run(main, start, feed, fetch):
    exe = S.Executor(pyir.CPUPlace())
    exe.run(start)
    return exe.run(main, feed=feed, fetch_list=fetch), S.global_scope()


def param(name):
    return np.array(S.global_scope().find_var(name).get_tensor())


def test_conv2d_relu_matches_numpy(rng):
    x = rng.standard_normal((2, 3, 7, 6)).astype("float32")
    main, start = S.Program(), S.Program()
    with S.program_guard(main, start):
        y = S.nn.conv2d(X([-1, 3, 7, 6]), 4, 3, stride=[2, 1], padding=[1, 0], act="relu")
    (got,), _ = run(main, start, {"x": x}, [y])
    w, b = param("conv2d_0.w_0"), param("conv2d_0.b_0")
    expect = np.maximum(conv2d_ref(x, w, (2, 1), (1, 1, 0, 0)) + b[None, :, None, None], 0)
    np.testing.assert_allclose(got, expect, rtol=1e-4, atol=1e-5)
    assert got.shape == (2, 4, 4, 4)
    assert np.std(w) > 0  # the startup program ran the Normal initializer


def test_grouped_conv2d_nhwc_matches_numpy(rng):
    x = rng.standard_normal((2, 5, 5, 4)).astype("float32")
    main, start = S.Program(), S.Program()
    with S.program_guard(main, start):
        y = S.nn.conv2d(X([-1, 5, 5, 4]), 6, 3, padding=1, groups=2, data_format="NHWC",
                        bias_attr=False)
    (got,), _ = run(main, start, {"x": x}, [y])
    expect = conv2d_ref(x.transpose(0, 3, 1, 2), param("conv2d_0.w_0"), (1, 1), (1, 1, 1, 1),
                        groups=2).transpose(0, 2, 3, 1)
    np.testing.assert_allclose(got, expect, rtol=1e-4, atol=1e-5)


def test_conv2d_transpose_matches_numpy(rng):
    x = rng.standard_normal((1, 2, 3, 3)).astype("float32")
    main, start = S.Program(), S.Program()
    with S.program_guard(main, start):
        y = S.nn.conv2d_transpose(X([-1, 2, 3, 3]), 3, filter_size=2, stride=2)
    (got,), _ = run(main, start, {"x": x}, [y])
    w, b = param("conv2d_transpose_0.w_0"), param("conv2d_transpose_0.b_0")
    expect = np.zeros((1, 3, 6, 6), "float32")
    for i in range(3):
        for j in range(3):
            expect[:, :, 2 * i:2 * i + 2, 2 * j:2 * j + 2] += np.einsum("nc,cokl->nokl",
                                                                         x[:, :, i, j], w)
    np.testing.assert_allclose(got, expect + b[None, :, None, None], rtol=1e-4, atol=1e-5)


def test_batch_norm_training_updates_moving_stats(rng):
    x = (rng.standard_normal((4, 3, 2, 2)) * 3 + 1).astype("float32")
    main, start = S.Program(), S.Program()
    with S.program_guard(main, start):
        y = S.nn.batch_norm(X([-1, 3, 2, 2]), momentum=0.8)
    (got,), scope = run(main, start, {"x": x}, [y])
    mean, var = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
    c = (1, 3, 1, 1)
    expect = (x - mean.reshape(c)) / np.sqrt(var.reshape(c) + 1e-5)
    np.testing.assert_allclose(got, expect, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(param("batch_norm_0.w_1"), 0.2 * mean, rtol=1e-5, atol=1e-6)
    assert not main.global_block().var("batch_norm_0.w_1").trainable
    assert main.global_block().var("batch_norm_0.w_0").trainable


def test_batch_norm_is_test_uses_moving_stats(rng):
    x = rng.standard_normal((2, 3, 2, 2)).astype("float32")
    main, start = S.Program(), S.Program()
    with S.program_guard(main, start):
        y = S.nn.batch_norm(X([-1, 3, 2, 2]), is_test=True, act="relu")
    exe = S.Executor()
    exe.run(start)
    S.global_scope().find_var("batch_norm_0.w_1").get_tensor().set(
        np.array([1.0, -1.0, 0.5], "float32"), pyir.CPUPlace())
    (got,) = exe.run(main, feed={"x": x}, fetch_list=[y])
    expect = np.maximum((x - np.array([1.0, -1.0, 0.5]).reshape(1, 3, 1, 1)) / np.sqrt(1 + 1e-5),
                        0)
    np.testing.assert_allclose(got, expect, rtol=1e-5, atol=1e-6)
    assert not main.global_block().ops[0].outputs.get("ReserveSpace")


def test_layer_group_instance_norm_match_numpy(rng):
    x = rng.standard_normal((2, 4, 3, 3)).astype("float32")
    main, start = S.Program(), S.Program()
    with S.program_guard(main, start):
        inp = X([-1, 4, 3, 3])
        ln = S.nn.layer_norm(inp, begin_norm_axis=2)
        gn = S.nn.group_norm(inp, groups=2)
        inn = S.nn.instance_norm(inp)
    (got_ln, got_gn, got_in), _ = run(main, start, {"x": x}, [ln, gn, inn])

    def normed(a, axes):
        return (a - a.mean(axis=axes, keepdims=True)) / np.sqrt(a.var(axis=axes, keepdims=True)
                                                                + 1e-5)
    np.testing.assert_allclose(got_ln, normed(x, (2, 3)), rtol=1e-4, atol=1e-4)
    grouped = normed(x.reshape(2, 2, 2, 3, 3), (2, 3, 4)).reshape(x.shape)
    np.testing.assert_allclose(got_gn, grouped, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got_in, normed(x, (2, 3)), rtol=1e-4, atol=1e-4)


def test_embedding_and_prelu_match_numpy(rng):
    ids = np.array([[0, 3, 8], [8, 1, 9]], "int64")
    x = rng.standard_normal((2, 3, 2)).astype("float32")
    main, start = S.Program(), S.Program()
    with S.program_guard(main, start):
        e = S.nn.embedding(S.data("ids", [-1, 3], "int64"), size=[10, 4], padding_idx=8)
        p = S.nn.prelu(X([-1, 3, 2]), "channel", data_format="NCL")
    (got_e, got_p), _ = run(main, start, {"ids": ids, "x": x}, [e, p])
    w = param("embedding_0.w_0").copy()
    w[8] = 0
    np.testing.assert_allclose(got_e, w[ids])
    np.testing.assert_allclose(got_p, np.where(x > 0, x, 0.25 * x), rtol=1e-6)


def test_row_conv_and_its_gradients_match_numpy(rng):
    x = rng.standard_normal((2, 4, 3)).astype("float32")
    main, start = S.Program(), S.Program()
    with S.program_guard(main, start):
        inp = X([-1, 4, 3])
        inp.stop_gradient = False
        y = S.nn.row_conv(inp, 2)
        S.append_backward(pyir.mean(y * y))
    (out, dx, dw), _ = run(main, start, {"x": x}, [y, "x@GRAD", "row_conv_0.w_0@GRAD"])
    w = param("row_conv_0.w_0")
    expect = np.zeros_like(x)
    for t in range(4):
        for k in range(3):
            if t + k < 4:
                expect[:, t] += x[:, t + k] * w[k]
    np.testing.assert_allclose(out, expect, rtol=1e-5, atol=1e-6)
    dout = 2 * expect / expect.size
    expect_dx, expect_dw = np.zeros_like(x), np.zeros_like(w)
    for t in range(4):
        for k in range(3):
            if t + k < 4:
                expect_dx[:, t + k] += dout[:, t] * w[k]
                expect_dw[k] += (dout[:, t] * x[:, t + k]).sum(axis=0)
    np.testing.assert_allclose(dx, expect_dx, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(dw, expect_dw, rtol=1e-4, atol=1e-6)


def test_spectral_norm_matches_paddle():
    main, start = S.Program(), S.Program()
    with S.program_guard(main, start):
        w = S.data("w", [3, 4], "float32")
        w.stop_gradient = False
        out = S.nn.spectral_norm(w, dim=0, power_iters=1)
        S.append_backward(pyir.mean(out))
    block = main.global_block()
    # Paddle 3.3.1: u `spectral_norm_0.w_0` [3] and v `.w_1` [4], Normal(0, 1), not
    # trainable by gradient; the output is `_generated_var_0`.
    assert [(p.name, list(p.shape), p.stop_gradient) for p in main.all_parameters()] == \
        [("spectral_norm_0.w_0", [3], True), ("spectral_norm_0.w_1", [4], True)]
    assert out.name == "_generated_var_0"
    assert [op.type for op in block.ops][0] == "spectral_norm"
    assert block.ops[0].attrs["power_iters"] == 1 and block.ops[0].attrs["dim"] == 0
    assert inits(start) == [("spectral_norm_0.w_0", "gaussian_random", {"mean": 0.0, "std": 1.0}),
                            ("spectral_norm_0.w_1", "gaussian_random", {"mean": 0.0, "std": 1.0})]
    exe = S.Executor()
    exe.run(start)
    scope = S.global_scope()
    scope.find_var("spectral_norm_0.w_0").get_tensor().set(np.array([1.0, 0.5, -1.0], "float32"))
    scope.find_var("spectral_norm_0.w_1").get_tensor().set(
        np.array([0.3, -0.2, 0.1, 1.0], "float32"))
    weight = (np.arange(12).reshape(3, 4) / 10 - 0.4).astype("float32")
    got, grad = exe.run(main, feed={"w": weight}, fetch_list=[out, "w@GRAD"])
    # Paddle 3.3.1's output and gradient for the same weight, u and v.
    np.testing.assert_allclose(got, [[-0.32542115, -0.24406587, -0.16271058, -0.08135529],
                                     [0.0, 0.08135529, 0.16271058, 0.24406587],
                                     [0.32542115, 0.40677643, 0.48813173, 0.569487]],
                               rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(grad, [[0.09070947, 0.08927739, 0.0878453, 0.08641321],
                                      [0.05527009, 0.05605296, 0.05683583, 0.05761871],
                                      [0.0198307, 0.02282854, 0.02582637, 0.02882421]],
                               rtol=1e-5, atol=1e-7)
    np.testing.assert_array_equal(np.array(scope.find_var("spectral_norm_0.w_0").get_tensor()),
                                  [1.0, 0.5, -1.0])  # u is read, not updated


def test_row_conv_refuses_lod_input():
    with S.program_guard(S.Program(), S.Program()):
        with pytest.raises(UnsupportedError, match="LoD"):
            S.nn.row_conv(S.data("seq", [-1, 3], "float32", lod_level=1), 1)


@pytest.mark.parametrize("call, match", [
    (lambda: S.nn.row_conv(X([-1, 3]), 1), r"\[batch, time, dim\]"),
    (lambda: S.nn.row_conv(X([-1, 4, 3]), -1), "future_context_size"),
    (lambda: S.nn.spectral_norm(X([3, 4]), dim=2), "dim must be 0"),
    (lambda: S.nn.spectral_norm(X([-1, 4]), dim=0), "known, non-zero"),
    (lambda: S.nn.bilinear_tensor_product(X([-1, 3, 2], "a"), X([-1, 4], "b"), 5), "2-D x"),
    (lambda: S.nn.conv2d(X([-1, 3, 8]), 4, 3), "4-D input"),
    (lambda: S.nn.conv2d(X(), 4, 3, groups=2), "divide the 3 input channels"),
    (lambda: S.nn.conv2d(X(), 4, 3, data_format="NCDHW"), "data_format"),
    (lambda: S.nn.conv2d(X(), 4, 3, padding="FULL"), "SAME"),
    (lambda: S.nn.conv2d(X(), 4, 3, param_attr=False), "param_attr cannot be False"),
    (lambda: S.nn.conv2d(X(), 4, 3, use_cudnn=1), "use_cudnn must be True or False"),
    (lambda: S.nn.conv2d(X([-1, -1, 8, 8]), 4, 3), "channel dimension"),
    (lambda: S.nn.conv2d_transpose(X(), 4), "filter_size"),
    (lambda: S.nn.batch_norm(X(), bias_attr=False), "bias_attr cannot be False"),
    (lambda: S.nn.batch_norm(X(), data_layout="NCL"), "data layout"),
    (lambda: S.nn.batch_norm(X([-1]), ), "2-D to 5-D"),
    (lambda: S.nn.layer_norm(X(), begin_norm_axis=4), "begin_norm_axis"),
    (lambda: S.nn.group_norm(X(), groups=2), "positive divisor"),
    (lambda: S.nn.instance_norm(X(), param_attr=False), "False together"),
    (lambda: S.nn.embedding(S.data("i", [-1], "int64"), size=[10]), "vocab_size"),
    (lambda: S.nn.embedding(S.data("i", [-1], "int64"), size=[10, 2], padding_idx=10),
     "padding_idx"),
    (lambda: S.nn.prelu(X(), "row"), "mode"),
    (lambda: S.nn.prelu(X(), "channel", data_format="CHW"), "data_format"),
    (lambda: S.nn.conv2d(X(), 4, 3, act="swishy"), "unknown activation"),
    (lambda: S.nn.conv2d(pyir.to_tensor(np.ones((1, 3, 4, 4), "float32")), 4, 3),
     "static Variable"),
])
def test_layer_refusals(call, match):
    with S.program_guard(S.Program(), S.Program()):
        with pytest.raises(BuildError, match=match):
            call()


def test_distributed_embedding_is_refused():
    with S.program_guard(S.Program(), S.Program()):
        with pytest.raises(UnsupportedError, match="distributed"):
            S.nn.embedding(S.data("i", [-1], "int64"), size=[10, 2], is_distributed=True)


@pytest.mark.parametrize("name, reason", [
    ("sequence_pool", "LoD"),
    ("sparse_embedding", "distributed"), ("nce", "nce"),
    ("deform_conv2d", "deformable_conv"),
])
def test_left_out_layers_refuse_with_reason(name, reason):
    with pytest.raises(UnsupportedError, match=reason):
        getattr(S.nn, name)()
    with pytest.raises(AttributeError, match="no attribute"):
        S.nn.not_a_layer  # noqa: B018


def test_static_nn_create_parameter_names_like_paddle():
    # Paddle 3.3.1: create_parameter_0.w_0 (Xavier, +-0.92582), create_parameter_1.b_0
    # (zeros), and the given name.
    main, start, params = build(lambda: (S.create_parameter([3, 4], "float32"),
                                         S.nn.create_parameter([4], "float32", is_bias=True),
                                         S.create_parameter([4], "float32", name="myp")))
    assert params == [("create_parameter_0.w_0", [3, 4]), ("create_parameter_1.b_0", [4]),
                      ("myp", [4])]
    assert inits(start) == [
        ("create_parameter_0.w_0", "uniform_random", {"min": -0.92582, "max": 0.92582}),
        ("create_parameter_1.b_0", "fill_constant", {"value": 0.0}),
        ("myp", "uniform_random", {"min": -0.866025, "max": 0.866025})]


# Layers over ops another part of pyir provides (conv3d, conv3d_transpose,
# bilinear_tensor_product): without the op they refuse naming it; with it they emit what
# Paddle 3.3.1 emitted for the same calls.
OP_DEPENDENT = {
    "bilinear_tensor_product": (
        lambda: S.nn.bilinear_tensor_product(X([-1, 3], "a"), X([-1, 4], "b"), 5, act="tanh"),
        [("bilinear_tensor_product", {"Bias": ["bilinear_tensor_product_0.b_0"],
                                      "Weight": ["bilinear_tensor_product_0.w_0"],
                                      "X": ["a"], "Y": ["b"]},
          {"Out": ["bilinear_tensor_product_0.tmp_0"]}, {}),
         ("tanh", {"X": ["bilinear_tensor_product_0.tmp_0"]},
          {"Out": ["bilinear_tensor_product_0.tmp_1"]}, {})],
        [("bilinear_tensor_product_0.w_0", [5, 3, 4]), ("bilinear_tensor_product_0.b_0", [1, 5])],
        [("bilinear_tensor_product_0.w_0", "uniform_random", {"min": -0.433013, "max": 0.433013}),
         ("bilinear_tensor_product_0.b_0", "fill_constant", {"value": 0.0})]),
    "conv3d": (
        lambda: S.nn.conv3d(X([-1, 2, 5, 5, 5]), 4, 3, padding=1, act="relu"),
        [("conv3d", {"Filter": ["conv3d_0.w_0"], "Input": ["x"]}, {"Output": ["conv3d_0.tmp_0"]},
          {"data_format": "NCDHW", "dilations": [1, 1, 1], "groups": 1,
           "padding_algorithm": "EXPLICIT", "paddings": [1, 1, 1], "strides": [1, 1, 1]}),
         ("elementwise_add", {"X": ["conv3d_0.tmp_0"], "Y": ["conv3d_0.b_0"]},
          {"Out": ["conv3d_0.tmp_1"]}, {"axis": 1}),
         ("relu", {"X": ["conv3d_0.tmp_1"]}, {"Out": ["conv3d_0.tmp_2"]}, {})],
        [("conv3d_0.w_0", [4, 2, 3, 3, 3]), ("conv3d_0.b_0", [4])],
        [("conv3d_0.w_0", "gaussian_random", {"mean": 0.0, "std": 0.19245}),
         ("conv3d_0.b_0", "fill_constant", {"value": 0.0})]),
    "conv3d_transpose": (
        lambda: S.nn.conv3d_transpose(X([-1, 2, 5, 5, 5]), 3, filter_size=2, stride=2),
        [("conv3d_transpose", {"Filter": ["conv3d_transpose_0.w_0"], "Input": ["x"]},
          {"Output": ["conv3d_transpose_0.tmp_0"]},
          {"data_format": "NCHW", "dilations": [1, 1, 1], "groups": 1, "output_padding": [],
           "output_size": [], "padding_algorithm": "EXPLICIT", "paddings": [0, 0, 0],
           "strides": [2, 2, 2]}),
         ("elementwise_add", {"X": ["conv3d_transpose_0.tmp_0"],
                              "Y": ["conv3d_transpose_0.b_0"]},
          {"Out": ["conv3d_transpose_0.tmp_1"]}, {"axis": 1})],
        [("conv3d_transpose_0.w_0", [2, 3, 2, 2, 2]), ("conv3d_transpose_0.b_0", [3])],
        [("conv3d_transpose_0.w_0", "uniform_random", {"min": -0.387298, "max": 0.387298}),
         ("conv3d_transpose_0.b_0", "fill_constant", {"value": 0.0})]),
}


@pytest.mark.parametrize("op_type", sorted(OP_DEPENDENT))
def test_layer_over_another_parts_op(op_type):
    from pyir import registry

    fn, ops, params, init = OP_DEPENDENT[op_type]
    if op_type not in registry.OPS:
        with pytest.raises(UnsupportedError, match=f"needs the '{op_type}' op"):
            build(fn)
        return
    main, start, got_params = build(fn)
    assert (dump(main), got_params, inits(start)) == (ops, params, init)


def test_static_nn_layers_build_static_parameters_in_eager_mode_too():
    """Paddle 1.x fluid scripts (seed 000) build with static.nn / fluid.layers without
    enable_static(): the layers are static-only, so their parameters are static anyway."""
    from pyir.framework import Parameter
    pyir.disable_static()
    x = pyir.static.data(name="x", shape=[2, 3], dtype="float32")
    y = pyir.static.nn.fc(x, size=4, activation="tanh")
    z = pyir.static.nn.layer_norm(y)
    main = pyir.static.default_main_program()
    params = {v.name for v in main.global_block().vars.values() if isinstance(v, Parameter)}
    assert params == {"fc_0.w_0", "fc_0.b_0", "layer_norm_0.w_0", "layer_norm_0.b_0"}
    exe = pyir.static.Executor()
    exe.run(pyir.static.default_startup_program())
    feed = np.arange(6, dtype="float32").reshape(2, 3) / 6
    (got,) = exe.run(main, feed={"x": feed}, fetch_list=[z])
    scope = pyir.static.global_scope()
    h = np.tanh(feed @ np.asarray(scope["fc_0.w_0"]) + np.asarray(scope["fc_0.b_0"]))
    want = (h - h.mean(1, keepdims=True)) / np.sqrt(h.var(1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
