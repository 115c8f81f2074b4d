"""Refusals of the less common layers (each names the layer and what it expected) and the
statistics of the random layers (dropout family, RReLU)."""

import numpy as np
import pytest

import pyir
from pyir.errors import BuildError

nn = pyir.nn


@pytest.fixture(autouse=True)
def eager():
    pyir.disable_static()


def _t(*shape, dtype="float32"):
    return pyir.to_tensor(np.ones(shape, dtype))


@pytest.mark.parametrize("call,match", [
    (lambda: nn.Softmax2D()(_t(2, 3)), "needs a 3-D or 4-D input"),
    (lambda: nn.CELU(0.0), "alpha must not be 0"),
    (lambda: nn.Softshrink(-1.0), "threshold must be >= 0"),
    (lambda: nn.RReLU(0.5, 0.2), "need 0 <= lower <= upper <= 1"),
    (lambda: nn.Maxout(0), "groups must be a positive int"),
    (lambda: nn.GLU()(_t(2, 3)), "must be even"),
    (lambda: nn.PReLU(0), "num_parameters must be a positive int"),
    (lambda: nn.ReLU(1.0), "takes at most 0 arguments"),
    (lambda: nn.LeakyReLU(slope=0.1), "unexpected argument 'slope'"),
    (lambda: nn.MSELoss()(_t(2, 3), _t(3, 2)), r"input shape \[2, 3\] and label shape"),
    (lambda: nn.NLLLoss()(_t(2, 3), _t(2, 3, dtype="int64")), r"expected input \[N, C, ...\]"),
    (lambda: nn.KLDivLoss("avg"), "'batchmean'"),
    (lambda: nn.CosineEmbeddingLoss(margin=2), r"margin must be in \[-1, 1\]"),
    (lambda: nn.MultiMarginLoss(p=3), "p must be 1 or 2"),
    (lambda: nn.SmoothL1Loss(delta=0), "delta must be positive"),
    (lambda: nn.MultiLabelMarginLoss()(_t(2, 3), _t(2, 2, dtype="int64")),
     "the same 2-D shape"),
    (lambda: nn.Unfold(5)(_t(1, 1, 3, 3)), "does not fit"),
    (lambda: nn.Unfold([2, 2, 2]), "kernel_sizes must be a positive int or 2"),
    (lambda: nn.Unfold(2, paddings=[1, 2, 3]), "paddings must be an int, 2 ints or 4"),
    (lambda: nn.Fold([4, 4], 2)(_t(1, 8, 5)), r"expected input \[N, C\*4, 9\]"),
    (lambda: nn.SpectralNorm([3, 4], dim=2), "dim 2 is out of range"),
    (lambda: nn.SpectralNorm([3, 4], power_iters=0), "power_iters must be a positive int"),
    (lambda: nn.SpectralNorm([3, 4])(_t(4, 3)), r"expected a weight of shape \[3, 4\]"),
    (lambda: nn.spectral_norm(nn.ReLU()), "has no parameter 'weight'"),
    (lambda: nn.spectral_norm(nn.Linear(2, 2), n_power_iterations=-1), "must be an int >= 0"),
    (lambda: nn.Bilinear(0, 2, 3), "in1_features must be a positive int"),
    (lambda: nn.Embedding(3, 0), "embedding_dim must be a positive int"),
    (lambda: nn.Pad2D(1, mode="wrap"), "mode must be constant, reflect, replicate"),
    (lambda: nn.Upsample(size=4, mode="bicubic")(_t(1, 1, 2, 2)), "mode 'bicubic'"),
    (lambda: nn.Upsample(scale_factor=-2)(_t(1, 1, 2, 2)), "scale_factor must be positive"),
    (lambda: nn.PixelUnshuffle(2)(_t(1, 1, 3, 4)), "must be divisible by 2"),
    (lambda: nn.ChannelShuffle(2)(_t(1, 3, 2, 2)), "not divisible by groups"),
    (lambda: nn.PixelShuffle(2, data_format="NHWC"), "only data_format='NCHW'"),
    (lambda: nn.Dropout(0.5, mode="scale"), "mode must be 'upscale_in_train'"),
    (lambda: nn.AlphaDropout(1.0), r"p must be a number in \[0, 1\)"),
    (lambda: nn.AdaptiveAvgPool2D([2, 0]), "output_size must be a positive int"),
    (lambda: nn.MaxPool2D(0), "must be positive"),
    (lambda: nn.LPPool2D(0, 2), "norm_type must be a positive number"),
    (lambda: nn.InstanceNorm2D(3)(_t(1, 3, 4)), "needs a 4-D input"),
    (lambda: nn.LocalResponseNorm(2)(_t(2, 3)), "at least 3 dimensions"),
    (lambda: nn.LocalResponseNorm(2, data_format="NHWC"), "channel-first"),
    (lambda: nn.BatchNorm2D(3, data_format="NCL"), "data_format must be one of"),
    (lambda: nn.BatchNorm(3)(_t(3)), "at least 2 dimensions"),
    (lambda: nn.LayerNorm(0), "normalized_shape must be a positive int"),
    (lambda: nn.MultiHeadAttention(8, 2)(_t(1, 2, 8), cache=object()), "cache"),
    (lambda: nn.TransformerEncoderLayer(8, 2, 16, activation="tanh"), "activation must be"),
    (lambda: nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 0),
     "num_layers must be a positive int"),
    (lambda: nn.RNN(3), "cell must be a Layer"),
    (lambda: nn.BiRNN(nn.GRUCell(2, 2), 3), "cell_fw and cell_bw must be Layers"),
    (lambda: nn.LSTMCell(3, 4, proj_size=2), "proj_size is not supported"),
    (lambda: nn.LSTM(3, 4, dropout=1.0), r"dropout must be in \[0, 1\)"),
    (lambda: nn.Sequential(nn.ReLU())[3], "out of range"),
    (lambda: nn.LayerList([nn.ReLU()])[2], "out of range"),
    (lambda: nn.LayerDict([("a", nn.ReLU(), 1)]), "mapping or"),
    (lambda: nn.Conv2D(2, 2, 3)(_t(1, 2, 4)), "needs a 4-D input"),
    (lambda: nn.Conv2D(2, 4, 3, stride=[1, 2, 3]), "stride must be an int or 2 ints"),
])
def test_refusals(call, match):
    with pytest.raises((BuildError, IndexError), match=match):
        call()


def test_dropout_statistics():
    pyir.seed(0)
    x = _t(200, 100)
    y = nn.Dropout(0.3)(x).numpy()
    assert abs((y == 0).mean() - 0.3) < 0.02
    np.testing.assert_allclose(np.unique(y), [0.0, 1 / 0.7], rtol=1e-6)
    layer = nn.Dropout(0.3, mode="downgrade_in_infer")
    assert set(np.unique(layer(x).numpy())) == {0.0, 1.0}
    np.testing.assert_allclose(layer.eval()(x).numpy(), 0.7)
    d3 = nn.Dropout3D(0.5)(pyir.to_tensor(np.ones((8, 6, 2, 2, 2), "float32"))).numpy()
    per_channel = d3.reshape(8, 6, -1)
    assert np.all(per_channel.min(-1) == per_channel.max(-1))


def test_alpha_dropout_keeps_selu_statistics():
    pyir.seed(1)
    x = np.random.default_rng(0).standard_normal((400, 250)).astype("float32")
    y = nn.AlphaDropout(0.2)(pyir.to_tensor(x)).numpy()
    assert abs(y.mean()) < 0.02 and abs(y.std() - 1) < 0.03
    alpha_p = -1.6732632423543772 * 1.0507009873554805
    a = (0.8 * (1 + 0.2 * alpha_p ** 2)) ** -0.5
    dropped = np.isclose(y, a * alpha_p - a * alpha_p * 0.2, atol=1e-5)
    assert abs(dropped.mean() - 0.2) < 0.01
    np.testing.assert_array_equal(nn.AlphaDropout(0.2).eval()(pyir.to_tensor(x)).numpy(), x)
    f = nn.FeatureAlphaDropout(0.5)(pyir.to_tensor(np.ones((4, 6, 3), "float32"))).numpy()
    assert np.all(f.min(-1) == f.max(-1))  # one draw per channel


def test_rrelu_training_slopes():
    pyir.seed(2)
    x = -np.ones((50, 40), "float32")
    y = nn.RReLU(0.1, 0.3)(pyir.to_tensor(x)).numpy()
    slopes = -y
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3 and slopes.std() > 0.03
    np.testing.assert_array_equal(nn.RReLU()(pyir.to_tensor(-x)).numpy(), -x)
