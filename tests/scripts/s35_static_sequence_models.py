"""Sequence layers in a static program: Embedding, a GRU and a TransformerEncoderLayer built
inside program_guard, trained with Adam and gradient clipping by an Executor."""

import numpy as np

import pyir as paddle
import pyir.nn as nn

paddle.enable_static()
rng = np.random.default_rng(35)
ids_np = rng.integers(0, 12, (4, 6)).astype("int64")
y_np = rng.integers(0, 2, (4, 1)).astype("int64")


class Encoder(nn.Layer):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(12, 8)
        self.gru = nn.GRU(8, 8)
        self.attn = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)
        self.fc = nn.Linear(8, 2)

    def forward(self, ids):
        seq, _ = self.gru(self.emb(ids))
        return self.fc(paddle.mean(self.attn(seq), axis=1))


main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    ids = paddle.static.data("ids", [None, 6], "int64")
    y = paddle.static.data("y", [None, 1], "int64")
    net = Encoder()
    logits = net(ids)
    loss = nn.functional.cross_entropy(logits, y)
    paddle.optimizer.Adam(learning_rate=0.01,
                          grad_clip=nn.ClipGradByGlobalNorm(1.0)).minimize(loss)

exe = paddle.static.Executor()
exe.run(startup)
scope = paddle.static.global_scope()
# (Paddle's static RNN also lists an empty cuDNN dropout-state parameter: skip empty ones)
params = sorted((p for p in net.parameters() if np.prod(p.shape) > 0), key=lambda p: p.name)
for p in params:
    value = (rng.standard_normal(p.shape) * 0.3).astype("float32")
    scope.find_var(p.name).get_tensor().set(value, paddle.CPUPlace())

feed = {"ids": ids_np, "y": y_np}
losses, outs = [], []
for _ in range(3):
    l, out = exe.run(main, feed=feed, fetch_list=[loss, logits])
    losses.append(float(l))
    outs.append(out)
results = {"losses": np.array(losses), "logits": np.stack(outs),
           "param_shapes": np.array([np.prod(p.shape) for p in params])}
print(losses)
