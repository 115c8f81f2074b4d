"""Layer cases shared by make_golden.py (run under Paddle 3.3.1) and tests/test_api_layers_golden.py
(run under pyir): each case builds a layer from `nn` (paddle.nn or pyir.nn), its inputs are
seeded arrays, and Paddle's state_dict keys, random parameter values and output are stored in
layers.npz / layers.json by make_golden.py."""

import numpy as np

_rng = np.random.default_rng(0)
X4 = _rng.standard_normal((2, 4, 6, 6)).astype("float32")
X3 = _rng.standard_normal((2, 4, 8)).astype("float32")
X2 = _rng.standard_normal((3, 4)).astype("float32")
SEQ = _rng.standard_normal((2, 5, 8)).astype("float32")
P2 = _rng.uniform(0.1, 0.9, (3, 4)).astype("float32")
LAB = (P2 > 0.5).astype("float32")
IDS = np.array([[2, 3], [9, 1]], "int64")
CLS = np.array([0, 3, 1], "int64")
SIGN = np.sign(X2).astype("float32")
FOLD_IN = _rng.standard_normal((2, 12, 12)).astype("float32")
FOLD_IN2 = _rng.standard_normal((1, 8, 9)).astype("float32")
SN_W = _rng.standard_normal((3, 4, 2)).astype("float32")
MULTI = np.array([[3, 0, -1, 1], [1, 2, 3, 0], [-1, 2, 0, 0]], "int64")
X5 = _rng.standard_normal((1, 2, 5, 6, 4)).astype("float32")
H0 = _rng.standard_normal((4, 2, 4)).astype("float32")
CLASS_W = np.array([1.0, 2.0, 3.0, 4.0], "float32")

# name: (make(nn, tensor) -> layer, inputs, train mode, keyword inputs)
CASES = {
    "LSTM_bidirect_2": (lambda nn, T: nn.LSTM(8, 4, num_layers=2, direction="bidirect"), [SEQ]),
    "GRU": (lambda nn, T: nn.GRU(8, 4), [SEQ]),
    "SimpleRNN_relu": (lambda nn, T: nn.SimpleRNN(8, 4, activation="relu"), [SEQ]),
    "LSTM_seqlen": (lambda nn, T: nn.LSTM(8, 4, direction="bidirect"), [SEQ], False,
                    {"sequence_length": np.array([5, 2], "int64")}),
    "GRU_seqlen_2": (lambda nn, T: nn.GRU(8, 4, num_layers=2), [SEQ], False,
                     {"sequence_length": np.array([3, 5], "int64")}),
    "GRUCell": (lambda nn, T: nn.GRUCell(8, 4), [SEQ[:, 0]]),
    "LSTMCell": (lambda nn, T: nn.LSTMCell(8, 4), [SEQ[:, 0]]),
    "SimpleRNNCell": (lambda nn, T: nn.SimpleRNNCell(8, 4), [SEQ[:, 0]]),
    "RNN_GRUCell_reverse": (lambda nn, T: nn.RNN(nn.GRUCell(8, 4), is_reverse=True), [SEQ]),
    "RNN_time_major": (lambda nn, T: nn.RNN(nn.SimpleRNNCell(8, 4), time_major=True), [SEQ]),
    "BiRNN": (lambda nn, T: nn.BiRNN(nn.LSTMCell(8, 4), nn.LSTMCell(8, 4)), [SEQ]),
    "LSTM_time_major_2": (lambda nn, T: nn.LSTM(8, 4, num_layers=2, time_major=True), [SEQ]),
    "Transformer_tgt_mask": (lambda nn, T: nn.Transformer(8, 2, 1, 2, 16), [SEQ, SEQ[:, :3]],
                             False, {"tgt_mask": np.triu(np.full((3, 3), -1e9, "float32"), 1)}),
    "Decoder_memory_mask": (lambda nn, T: nn.TransformerDecoderLayer(8, 2, 16,
                                                                     normalize_before=True),
                            [SEQ[:, :3], SEQ], False,
                            {"memory_mask": np.tril(np.ones((3, 5), bool))}),
    "MHA_kdim_vdim": (lambda nn, T: nn.MultiHeadAttention(8, 2, kdim=3, vdim=5),
                      [SEQ, SEQ[:, :, :3], SEQ[:, :, 3:8]]),
    "LSTM_initial_states": (lambda nn, T: nn.LSTM(8, 4, num_layers=2, direction="bidirect"),
                            [SEQ], False, {"initial_states": (H0, H0 * 0.5)}),
    "GRU_initial_states": (lambda nn, T: nn.GRU(8, 4, num_layers=2, direction="bidirect"),
                           [SEQ], False, {"initial_states": H0}),
    "Conv2D_NHWC": (lambda nn, T: nn.Conv2D(6, 4, 3, padding=1, data_format="NHWC"), [X4]),
    "Conv2D_NHWC_reflect": (lambda nn, T: nn.Conv2D(6, 4, 3, padding=1, padding_mode="reflect",
                                                    data_format="NHWC"), [X4]),
    "Conv1D_NLC": (lambda nn, T: nn.Conv1D(8, 3, 3, stride=2, data_format="NLC"), [X3]),
    "Conv2DTranspose_NHWC": (lambda nn, T: nn.Conv2DTranspose(6, 2, 3, stride=2,
                                                              data_format="NHWC"), [X4]),
    "MaxPool2D_NHWC": (lambda nn, T: nn.MaxPool2D(2, data_format="NHWC"), [X4]),
    "AvgPool2D_NHWC": (lambda nn, T: nn.AvgPool2D(3, 2, 1, data_format="NHWC"), [X4]),
    "AdaptiveAvgPool2D_NHWC": (lambda nn, T: nn.AdaptiveAvgPool2D(2, data_format="NHWC"), [X4]),
    "BatchNorm2D_NHWC_train": (lambda nn, T: nn.BatchNorm2D(6, data_format="NHWC"), [X4], True),
    "BatchNorm1D_NLC_train": (lambda nn, T: nn.BatchNorm1D(8, data_format="NLC"), [X3], True),
    "GroupNorm_NHWC": (lambda nn, T: nn.GroupNorm(2, 6, data_format="NHWC"), [X4]),
    "Pad2D_NHWC": (lambda nn, T: nn.Pad2D([1, 0, 2, 1], data_format="NHWC", value=1.5), [X4]),
    "Upsample_NHWC": (lambda nn, T: nn.Upsample(scale_factor=2, data_format="NHWC"), [X4]),
    "Upsample_bilinear_align": (lambda nn, T: nn.Upsample(size=[5, 7], mode="bilinear",
                                                          align_corners=True), [X4]),
    "Upsample_bilinear_mode1": (lambda nn, T: nn.Upsample(scale_factor=1.5, mode="bilinear",
                                                          align_mode=1), [X4]),
    "Embedding_neg_pad": (lambda nn, T: nn.Embedding(10, 3, padding_idx=-1), [IDS]),
    "PReLU_NHWC": (lambda nn, T: nn.PReLU(6, data_format="NHWC"), [X4]),
    "FractionalMaxPool2D": (lambda nn, T: nn.FractionalMaxPool2D([4, 3], random_u=0.7), [X4]),
    "FractionalMaxPool2D_kernel": (lambda nn, T: nn.FractionalMaxPool2D([3, 4], kernel_size=2,
                                                                        random_u=0.4), [X4]),
    "FractionalMaxPool3D": (lambda nn, T: nn.FractionalMaxPool3D([2, 3, 2], random_u=0.9),
                            [X5]),
    "BatchNorm2D_global_stats_train": (lambda nn, T: nn.BatchNorm2D(4, use_global_stats=True),
                                       [X4], True),
    "BatchNorm2D_momentum_train": (lambda nn, T: nn.BatchNorm2D(4, momentum=0.7,
                                                                epsilon=1e-3), [X4], True),
    "BatchNorm3D_train": (lambda nn, T: nn.BatchNorm3D(2), [X5], True),
    "InstanceNorm3D": (lambda nn, T: nn.InstanceNorm3D(2), [X5]),
    "Identity": (lambda nn, T: nn.Identity(3, name="x"), [X2]),
    "Sequential_mixed": (lambda nn, T: nn.Sequential(nn.Conv2D(4, 2, 1), nn.BatchNorm2D(2),
                                                     nn.ReLU(), nn.Flatten(),
                                                     nn.Linear(72, 3)), [X4]),
    "MHA": (lambda nn, T: nn.MultiHeadAttention(8, 2), [SEQ]),
    "MHA_mask": (lambda nn, T: nn.MultiHeadAttention(8, 2),
                 [SEQ, SEQ, SEQ, np.tril(np.ones((5, 5), bool))]),
    "Encoder": (lambda nn, T: nn.TransformerEncoderLayer(8, 2, 16), [SEQ]),
    "Encoder_pre_gelu": (lambda nn, T: nn.TransformerEncoderLayer(
        8, 2, 16, normalize_before=True, activation="gelu"), [SEQ]),
    "Decoder": (lambda nn, T: nn.TransformerDecoderLayer(8, 2, 16), [SEQ[:, :3], SEQ]),
    "Transformer": (lambda nn, T: nn.Transformer(8, 2, 2, 1, 16), [SEQ, SEQ[:, :3]]),
    "Conv2D": (lambda nn, T: nn.Conv2D(4, 6, 3, stride=2, padding=1), [X4]),
    "Conv2D_pad4": (lambda nn, T: nn.Conv2D(4, 6, 3, padding=[1, 0, 2, 1]), [X4]),
    "Conv2D_same": (lambda nn, T: nn.Conv2D(4, 6, 3, stride=2, padding="same"), [X4]),
    "Conv2D_circular": (lambda nn, T: nn.Conv2D(4, 6, 3, padding=1, padding_mode="circular"),
                        [X4]),
    "Conv2D_depthwise": (lambda nn, T: nn.Conv2D(4, 8, 3, groups=4), [X4]),
    "Conv1D": (lambda nn, T: nn.Conv1D(4, 6, 3, padding=2, dilation=2), [X3]),
    "Conv1D_reflect": (lambda nn, T: nn.Conv1D(4, 6, 3, padding=1, padding_mode="reflect"),
                       [X3]),
    "Conv2DTranspose": (lambda nn, T: nn.Conv2DTranspose(4, 6, 3, stride=2, padding=1,
                                                         output_padding=1), [X4]),
    "Conv2DTranspose_groups": (lambda nn, T: nn.Conv2DTranspose(4, 6, 3, groups=2), [X4]),
    "Conv1DTranspose": (lambda nn, T: nn.Conv1DTranspose(4, 6, 3, stride=2), [X3]),
    "BatchNorm2D_train": (lambda nn, T: nn.BatchNorm2D(4), [X4], True),
    "BatchNorm2D_eval": (lambda nn, T: nn.BatchNorm2D(4), [X4]),
    "BatchNorm1D_train3": (lambda nn, T: nn.BatchNorm1D(4), [X3], True),
    "BatchNorm1D_train2": (lambda nn, T: nn.BatchNorm1D(4), [X2], True),
    "BatchNorm_train": (lambda nn, T: nn.BatchNorm(4), [X4], True),
    "LayerNorm": (lambda nn, T: nn.LayerNorm([6, 6]), [X4]),
    "GroupNorm": (lambda nn, T: nn.GroupNorm(2, 4), [X4]),
    "InstanceNorm2D": (lambda nn, T: nn.InstanceNorm2D(4), [X4]),
    "InstanceNorm1D": (lambda nn, T: nn.InstanceNorm1D(4), [X3]),
    "LocalResponseNorm": (lambda nn, T: nn.LocalResponseNorm(3, alpha=0.1), [X4]),
    "LocalResponseNorm_NCL": (lambda nn, T: nn.LocalResponseNorm(2, alpha=0.1,
                                                                 data_format="NCL"), [X3]),
    "Embedding": (lambda nn, T: nn.Embedding(10, 3, padding_idx=2), [IDS]),
    "Bilinear": (lambda nn, T: nn.Bilinear(4, 4, 5), [X2, P2]),
    "PReLU_channels": (lambda nn, T: nn.PReLU(4), [X4]),
    "MaxPool2D": (lambda nn, T: nn.MaxPool2D(3, 2, 1, ceil_mode=True), [X4]),
    "AvgPool2D": (lambda nn, T: nn.AvgPool2D(3, 2, 1, exclusive=False), [X4]),
    "AvgPool1D": (lambda nn, T: nn.AvgPool1D(3, 2, 1), [X3]),
    "MaxPool1D": (lambda nn, T: nn.MaxPool1D(3, 2, 1), [X3]),
    "AdaptiveAvgPool2D": (lambda nn, T: nn.AdaptiveAvgPool2D((4, 5)), [X4]),
    "AdaptiveMaxPool2D": (lambda nn, T: nn.AdaptiveMaxPool2D(4), [X4]),
    "AdaptiveAvgPool1D": (lambda nn, T: nn.AdaptiveAvgPool1D(3), [X3]),
    "AdaptiveMaxPool1D": (lambda nn, T: nn.AdaptiveMaxPool1D(3), [X3]),
    "LPPool2D": (lambda nn, T: nn.LPPool2D(2, 2), [X4]),
    "Pad2D_reflect": (lambda nn, T: nn.Pad2D([1, 2, 0, 1], mode="reflect"), [X4]),
    "Pad1D_replicate": (lambda nn, T: nn.Pad1D([1, 2], mode="replicate"), [X3]),
    "ZeroPad2D": (lambda nn, T: nn.ZeroPad2D([1, 2, 0, 1]), [X4]),
    "Upsample_nearest": (lambda nn, T: nn.Upsample(scale_factor=2), [X4]),
    "Upsample_bilinear": (lambda nn, T: nn.Upsample(size=[9, 7], mode="bilinear"), [X4]),
    "UpsamplingBilinear2D": (lambda nn, T: nn.UpsamplingBilinear2D(scale_factor=2), [X4]),
    "PixelShuffle": (lambda nn, T: nn.PixelShuffle(2), [X4]),
    "PixelUnshuffle": (lambda nn, T: nn.PixelUnshuffle(2), [X4]),
    "ChannelShuffle": (lambda nn, T: nn.ChannelShuffle(2), [X4]),
    "Unflatten": (lambda nn, T: nn.Unflatten(1, [2, 2]), [X2]),
    "Flatten": (lambda nn, T: nn.Flatten(1, 2), [X4]),
    "CosineSimilarity": (lambda nn, T: nn.CosineSimilarity(axis=1), [X2, P2]),
    "PairwiseDistance": (lambda nn, T: nn.PairwiseDistance(3.0), [X2, P2]),
    "GELU_tanh": (lambda nn, T: nn.GELU(True), [X2 * 3]),
    "RReLU_eval": (lambda nn, T: nn.RReLU(0.1, 0.3), [X2]),
    "Maxout": (lambda nn, T: nn.Maxout(2), [X4]),
    "Softmax2D": (lambda nn, T: nn.Softmax2D(), [X4]),
    "NLLLoss_weight_ignore": (lambda nn, T: nn.NLLLoss(weight=T(CLASS_W), ignore_index=3),
                              [X2, CLS]),
    "KLDivLoss_batchmean": (lambda nn, T: nn.KLDivLoss("batchmean"), [X2, P2]),
    "BCEWithLogitsLoss_pos_weight": (lambda nn, T: nn.BCEWithLogitsLoss(pos_weight=T(CLASS_W)),
                                     [X2, LAB]),
    "Unfold": (lambda nn, T: nn.Unfold([2, 3], dilations=[1, 2], paddings=1,
                                       strides=[2, 1]), [X4]),
    "Unfold_pad4": (lambda nn, T: nn.Unfold(2, paddings=[1, 0, 2, 1]), [X4]),
    "Fold": (lambda nn, T: nn.Fold([5, 6], [2, 3], strides=[2, 1], paddings=1,
                                   dilations=[1, 2]), [FOLD_IN]),
    "Fold_plain": (lambda nn, T: nn.Fold([4, 4], 2), [FOLD_IN2]),
    "SpectralNorm": (lambda nn, T: nn.SpectralNorm([3, 4, 2], dim=1, power_iters=3),
                     [SN_W]),
    "spectral_norm_eval": (lambda nn, T: nn.spectral_norm(nn.Linear(4, 3)), [X2]),
    "spectral_norm_train_conv": (lambda nn, T: nn.spectral_norm(nn.Conv2D(4, 2, 3),
                                                                n_power_iterations=2),
                                 [X4], True),
    "MultiLabelMarginLoss_mean": (lambda nn, T: nn.MultiLabelMarginLoss(), [X2, MULTI]),
    "MultiLabelMarginLoss_none": (lambda nn, T: nn.MultiLabelMarginLoss("none"),
                                  [X2, MULTI]),
}

ACTIVATIONS = ["ReLU", "ReLU6", "Sigmoid", "Tanh", "Silu", "Swish", "Mish", "Softsign",
               "Hardswish", "Hardsigmoid", "GELU", "LeakyReLU", "ELU", "SELU", "Softplus", "CELU",
               "Softshrink", "Hardshrink", "Tanhshrink", "ThresholdedReLU", "LogSigmoid",
               "Hardtanh", "Softmax", "LogSoftmax", "PReLU", "GLU"]
for _act in ACTIVATIONS:
    CASES["act_" + _act] = (lambda nn, T, _a=_act: getattr(nn, _a)(), [X2 * 3])

LOSSES = {"MSELoss": [X2, P2], "L1Loss": [X2, P2], "SmoothL1Loss": [X2, P2],
          "HuberLoss": [X2, P2 * 4], "BCELoss": [P2, LAB], "BCEWithLogitsLoss": [X2, LAB],
          "NLLLoss": [X2, CLS], "KLDivLoss": [X2, P2], "MarginRankingLoss": [X2, P2, SIGN],
          "HingeEmbeddingLoss": [X2, SIGN], "SoftMarginLoss": [X2, SIGN],
          "CosineEmbeddingLoss": [X2, P2, np.array([1, -1, 1], "float32")],
          "MultiLabelSoftMarginLoss": [X2, LAB], "TripletMarginLoss": [X2, P2, P2 * 2],
          "PoissonNLLLoss": [X2, P2], "GaussianNLLLoss": [X2, P2, P2],
          "MultiMarginLoss": [X2, CLS], "CrossEntropyLoss": [X2, CLS]}
for _loss, _inputs in LOSSES.items():
    for _red in ("mean", "sum", "none"):
        CASES[f"{_loss}_{_red}"] = (lambda nn, T, _l=_loss, _r=_red: getattr(nn, _l)(
            reduction=_r), _inputs)


def unpack(case):
    """(make, inputs, train, kwargs) with defaults filled in."""
    make, inputs, *rest = case
    train = rest[0] if rest else False
    kwargs = rest[1] if len(rest) > 1 else {}
    return make, inputs, train, kwargs

# Cases whose parameter gradients (of sum(output * weights), weights seeded like below) are
# stored too; eager gradients are compared with Paddle's.
GRAD_CASES = ["Conv2D", "Conv2D_depthwise", "Conv1D", "Conv2DTranspose", "BatchNorm2D_train",
              "LayerNorm", "GroupNorm", "InstanceNorm2D", "Embedding", "PReLU_channels",
              "Bilinear", "LSTM_train", "GRU_seqlen_train", "SimpleRNN_train", "MHA_mask",
              "Encoder_pre_gelu", "Decoder", "MHA_kdim_vdim"]
# Paddle's rnn op has no gradient in eval mode: the recurrent gradient cases train (no dropout)
CASES["LSTM_train"] = (lambda nn, T: nn.LSTM(8, 4, num_layers=2, direction="bidirect"), [SEQ],
                       True)
CASES["GRU_seqlen_train"] = (lambda nn, T: nn.GRU(8, 4, num_layers=2), [SEQ], True,
                             {"sequence_length": np.array([3, 5], "int64")})
CASES["SimpleRNN_train"] = (lambda nn, T: nn.SimpleRNN(8, 4, activation="relu"), [SEQ], True)


def grad_weights(shape):
    """The fixed weights of the output in the gradient objective."""
    return np.random.default_rng(5).standard_normal(shape).astype("float32")
