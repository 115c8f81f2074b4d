"""A sequence tagger: Embedding, a 2-layer LSTM with an initial state, a per-token Linear and
a token-level cross entropy that ignores padding (ignore_index), trained with Adam and a
PiecewiseDecay schedule; the LSTM gets each sentence's length."""

import numpy as np

import pyir as paddle
import pyir.nn as nn
import pyir.nn.functional as F

VOCAB, TAGS, EMB, HID = 20, 5, 6, 8
rng = np.random.default_rng(19)
tokens = rng.integers(1, VOCAB, size=(4, 7)).astype("int64")
tags = (tokens % TAGS).astype("int64")
tags[:, 5:] = -100  # padding positions are ignored
lengths = np.array([7, 6, 5, 5], dtype="int64")


class Tagger(nn.Layer):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, EMB)
        self.lstm = nn.LSTM(EMB, HID, num_layers=2)
        self.out = nn.Linear(HID, TAGS)

    def forward(self, ids, h0, c0, lengths):
        seq, (h, c) = self.lstm(self.emb(ids), (h0, c0), sequence_length=lengths)
        return self.out(seq), h, c


tagger = Tagger()
tagger.set_state_dict({k: rng.uniform(-0.3, 0.3, v.shape).astype("float32")
                       for k, v in tagger.state_dict().items()})
h0 = paddle.to_tensor(rng.standard_normal((2, 4, HID)).astype("float32") * 0.1)
c0 = paddle.zeros([2, 4, HID])

sched = paddle.optimizer.lr.PiecewiseDecay(boundaries=[3], values=[0.02, 0.005])
opt = paddle.optimizer.Adam(learning_rate=sched, parameters=tagger.parameters())
losses = []
for step in range(5):
    logits, h, c = tagger(paddle.to_tensor(tokens), h0, c0, paddle.to_tensor(lengths))
    loss = F.cross_entropy(logits.reshape([-1, TAGS]), paddle.to_tensor(tags.reshape([-1, 1])),
                           ignore_index=-100)
    loss.backward()
    opt.step()
    opt.clear_grad()
    sched.step()
    losses.append(float(loss))

with paddle.no_grad():
    logits, h, c = tagger(paddle.to_tensor(tokens), h0, c0, paddle.to_tensor(lengths))
pred = logits.argmax(axis=-1)
print(losses)
results = {"losses": np.array(losses), "pred": pred.numpy(), "h": h.numpy(), "c": c.numpy(),
           "keys": np.array(list(tagger.state_dict().keys()))}
