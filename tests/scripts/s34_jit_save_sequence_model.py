"""Export a sequence model: a Conv1D + attention-pooling classifier saved with
paddle.jit.save and an InputSpec with a free batch size, then paddle.jit.load and compare;
the file also runs under `pyir run`. (Paddle 3.3.1's legacy jit.save fails on its own LSTM
and TransformerEncoderLayer, so those are not exported here.)"""

import numpy as np

import pyir as paddle
import pyir.nn as nn
from pyir.static import InputSpec


class ConvPool(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1D(4, 12, kernel_size=3, padding=1, data_format="NLC")
        self.score = nn.Linear(12, 1)
        self.out = nn.Linear(12, 3)

    def forward(self, x):
        seq = nn.functional.relu(self.conv(x))
        weights = nn.functional.softmax(self.score(seq), axis=1)
        return self.out(paddle.mean(seq * weights, axis=1))


rng = np.random.default_rng(34)
x = rng.standard_normal((3, 5, 4)).astype("float32")
results = {}
for name, net in [("conv", ConvPool())]:
    net.set_state_dict({k: (rng.standard_normal(v.shape) * 0.3).astype("float32")
                        for k, v in net.state_dict().items()})
    net.eval()
    expected = net(paddle.to_tensor(x)).numpy()
    paddle.jit.save(net, f"export/{name}", input_spec=[InputSpec([None, 5, 4], "float32", "x")])
    loaded = paddle.jit.load(f"export/{name}")
    results[name + "_expected"] = expected
    results[name + "_loaded"] = loaded(paddle.to_tensor(x)).numpy()
np.save("export/x.npy", x)
print({k: v.shape for k, v in results.items()})
