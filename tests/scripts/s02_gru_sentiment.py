"""A sentiment-style classifier: Embedding, a bidirectional GRU, mean pooling over the
sequence and a Linear head, trained with AdamW on fixed token ids."""

import numpy as np

import pyir as paddle
import pyir.nn as nn
import pyir.nn.functional as F

paddle.seed(7)
VOCAB, EMB, HID, SEQ, BATCH = 30, 8, 6, 5, 8


class SentimentNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, EMB, padding_idx=0)
        self.gru = nn.GRU(EMB, HID, num_layers=1, direction="bidirect")
        self.fc = nn.Linear(2 * HID, 2)

    def forward(self, ids):
        x = self.embedding(ids)
        out, h = self.gru(x)
        pooled = paddle.mean(out, axis=1)
        return self.fc(pooled), h


model = SentimentNet()
rng = np.random.default_rng(3)
state = {k: (rng.uniform(-0.4, 0.4, v.shape)).astype("float32")
         for k, v in model.state_dict().items()}
model.set_state_dict(state)

ids = rng.integers(1, VOCAB, size=(BATCH, SEQ)).astype("int64")
ids[:, -1] = 0  # one padding token per sentence
labels = (ids[:, 0] > VOCAB // 2).astype("int64")

opt = paddle.optimizer.AdamW(learning_rate=0.02, parameters=model.parameters(),
                             weight_decay=0.01)
losses = []
for step in range(6):
    logits, _ = model(paddle.to_tensor(ids))
    loss = F.cross_entropy(logits, paddle.to_tensor(labels))
    loss.backward()
    opt.step()
    opt.clear_grad()
    losses.append(loss.item())
    print(step, loss.item())

model.eval()
logits, h = model(paddle.to_tensor(ids))
pred = paddle.argmax(logits, axis=-1)
results = {
    "keys": np.array(sorted(model.state_dict().keys())),
    "losses": np.array(losses),
    "logits": logits.numpy(),
    "h": h.numpy(),
    "pred": pred.numpy(),
    "emb_pad_row": model.embedding.weight.numpy()[0],
}
