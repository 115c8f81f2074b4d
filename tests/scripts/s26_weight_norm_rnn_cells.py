"""Recurrent cells stepped by hand and wrapped in nn.RNN / nn.BiRNN, with weight_norm on the
output layer and nn.utils.clip_grad_value_; SimpleRNN with time_major inputs."""

import numpy as np

import pyir as paddle
import pyir.nn as nn

rng = np.random.default_rng(8)
B, T, I, H = 3, 4, 5, 6
x = paddle.to_tensor(rng.standard_normal((B, T, I)).astype("float32"))


def fill(layer, scale=0.3):
    for _, p in layer.named_parameters():
        p.set_value((rng.standard_normal(p.shape) * scale).astype("float32"))
    return layer


lstm_cell = fill(nn.LSTMCell(I, H))
gru_cell = fill(nn.GRUCell(I, H))
rnn_cell = fill(nn.SimpleRNNCell(I, H, activation="relu"))

# stepping a cell by hand
h, c = paddle.zeros([B, H]), paddle.zeros([B, H])
outs = []
for t in range(T):
    y, (h, c) = lstm_cell(x[:, t], (h, c))
    outs.append(y)
manual = paddle.stack(outs, axis=1)
wrapped, (h_w, c_w) = nn.RNN(lstm_cell)(x)

gru_out, gru_h = nn.RNN(gru_cell, is_reverse=True)(x)
bi = nn.BiRNN(fill(nn.GRUCell(I, H)), fill(nn.GRUCell(I, H)))
bi_out, (bi_fw, bi_bw) = bi(x)
simple = fill(nn.SimpleRNN(I, H, num_layers=2, time_major=True, activation="tanh"))
simple_out, simple_h = simple(paddle.transpose(x, [1, 0, 2]))
rnn_out, rnn_h = nn.RNN(rnn_cell)(x)

head = nn.utils.weight_norm(fill(nn.Linear(2 * H, 2)), dim=1)
opt = paddle.optimizer.Adam(learning_rate=0.05,
                            parameters=bi.parameters() + head.parameters())
losses = []
for _ in range(3):
    out, _ = bi(x)
    loss = head(out[:, -1]).pow(2).mean()
    loss.backward()
    nn.utils.clip_grad_value_(bi.parameters() + head.parameters(), 0.05)
    opt.step()
    opt.clear_grad()
    losses.append(float(loss))

results = {
    "manual": manual.numpy(), "wrapped": wrapped.numpy(), "h_w": h_w.numpy(),
    "c_w": c_w.numpy(), "gru_out": gru_out.numpy(), "gru_h": gru_h.numpy(),
    "bi_out": bi_out.numpy(), "bi_bw": bi_bw.numpy(), "simple_out": simple_out.numpy(),
    "simple_h": simple_h.numpy(), "rnn_out": rnn_out.numpy(), "losses": np.array(losses),
    "head_g": head.weight_g.numpy(), "head_keys": np.array(list(head.state_dict().keys())),
}
print(losses)
