"""A small transformer encoder classifier: TransformerEncoder with an attention mask, a
separate MultiHeadAttention layer returning its weights, LayerNorm, trained two steps with SGD."""

import numpy as np

import pyir as paddle
from pyir import nn

paddle.seed(11)
D, HEADS, SEQ, BATCH = 8, 2, 4, 3


class EncoderClassifier(nn.Layer):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d_model=D, nhead=HEADS, dim_feedforward=16,
                                           dropout=0.0, activation="gelu",
                                           normalize_before=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2, norm=nn.LayerNorm(D))
        self.head = nn.Linear(D, 3)

    def forward(self, x, mask):
        h = self.encoder(x, src_mask=mask)
        return self.head(h[:, 0])


model = EncoderClassifier()
rng = np.random.default_rng(5)
model.set_state_dict({k: (rng.standard_normal(v.shape) * 0.2 + (1.0 if "norm" in k and
                                                               k.endswith("weight") else 0.0))
                      .astype("float32") for k, v in model.state_dict().items()})

x = paddle.to_tensor(rng.standard_normal((BATCH, SEQ, D)).astype("float32"))
# the last position of the second sequence is padding
mask_np = np.zeros((BATCH, 1, 1, SEQ), dtype="float32")
mask_np[1, ..., -1] = -1e9
mask = paddle.to_tensor(mask_np)
y = paddle.to_tensor(np.array([0, 2, 1], dtype="int64"))

opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
losses = []
for step in range(3):
    loss = nn.functional.cross_entropy(model(x, mask), y)
    loss.backward()
    opt.step()
    opt.clear_grad()
    losses.append(float(loss))

mha = nn.MultiHeadAttention(D, HEADS, need_weights=True)
mha.set_state_dict({k: (rng.standard_normal(v.shape) * 0.3).astype("float32")
                    for k, v in mha.state_dict().items()})
q = paddle.to_tensor(rng.standard_normal((BATCH, 2, D)).astype("float32"))
out, weights = mha(q, x, x)

results = {
    "n_params": len(model.parameters()),
    "losses": np.array(losses),
    "logits": model(x, mask).numpy(),
    "mha_out": out.numpy(),
    "mha_weights": weights.numpy(),
}
print(results["losses"])
