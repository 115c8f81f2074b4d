"""The legacy `rnn` op that `nn.LSTM`, `nn.GRU` and `nn.SimpleRNN` export to (inference only).

Layout, as Paddle writes it:
- Input is time-major [T, B, I]; Out is [T, B, D*H] with the forward and backward halves
  concatenated (D = 2 when is_bidirec).
- PreState and State hold [h] (LSTM: [h, c]), each [num_layers*D, B, H] ordered
  layer0-forward, layer0-backward, layer1-forward, ...
- WeightList holds every (W_ih, W_hh) pair in that order, then every (b_ih, b_hh) pair.
- Gates are stacked in W's rows: LSTM (i, f, g, o); GRU (r, z, c) with the reset gate applied
  to the hidden projection after its bias.
- SequenceLength [B]: steps at or past a row's length output zeros and leave its state alone,
  so State is the state at the last valid step; the backward direction starts there too.
Dropout between layers only applies in training, which pyir does not run for this op: it
refuses is_test=False with dropout_prob > 0 rather than silently skip the dropout.
"""

from __future__ import annotations

import numpy as np

from ..errors import PyirError
from ..registry import Attr, Example, Slot, VarSpec, register_op
from ..registry import AttrType as T
from ._helpers import rand

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _lstm_cell(xw, h, c, w_hh, b_hh):
    i, f, g, o = np.split(xw + h @ w_hh.T + b_hh, 4, axis=-1)
    c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
    return _sigmoid(o) * np.tanh(c), c


def _gru_cell(xw, h, c, w_hh, b_hh):
    x_r, x_z, x_c = np.split(xw, 3, axis=-1)
    h_r, h_z, h_c = np.split(h @ w_hh.T + b_hh, 3, axis=-1)
    r, z = _sigmoid(x_r + h_r), _sigmoid(x_z + h_z)
    cand = np.tanh(x_c + r * h_c)
    return (h - cand) * z + cand, None


def _tanh_cell(xw, h, c, w_hh, b_hh):
    return np.tanh(xw + h @ w_hh.T + b_hh), None


def _relu_cell(xw, h, c, w_hh, b_hh):
    return np.maximum(xw + h @ w_hh.T + b_hh, 0), None


_CELLS = {"LSTM": _lstm_cell, "GRU": _gru_cell, "RNN_TANH": _tanh_cell, "RNN_RELU": _relu_cell}


def _run_direction(cell, x, mask, h, c, weights, reverse):
    """One direction of one layer over all steps; masked steps keep the state, output 0."""
    w_ih, w_hh, b_ih, b_hh = weights
    xw = x @ w_ih.T + b_ih  # the input projection of every step at once
    out = np.zeros(x.shape[:2] + (h.shape[-1],), x.dtype)
    for t in (range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])):
        new_h, new_c = cell(xw[t], h, c, w_hh, b_hh)
        valid = mask[t]
        h = np.where(valid, new_h, h)
        c = None if c is None else np.where(valid, new_c, c)
        out[t] = np.where(valid, new_h, 0)
    return out, h, c


def _layer_weights(WeightList, k, n):
    """(W_ih, W_hh, b_ih, b_hh) of the k-th of n (layer, direction) pairs."""
    return WeightList[2 * k], WeightList[2 * k + 1], WeightList[2 * n + 2 * k], \
        WeightList[2 * n + 2 * k + 1]


def _check_layout(mode, PreState, WeightList, n, dropout_prob, is_test, num_layers):
    if not is_test and dropout_prob > 0 and num_layers > 1:
        raise PyirError(f"rnn: dropout between layers (dropout_prob={dropout_prob}) in training "
                        f"mode is not supported; pyir runs this op for inference: set "
                        f"is_test=True (a saved inference model already has it)")
    if mode not in _CELLS:
        raise PyirError(f"rnn: unknown mode {mode!r}; expected one of {', '.join(_CELLS)}")
    states = 2 if mode == "LSTM" else 1
    if len(PreState) != states or len(WeightList) != 4 * n:
        raise PyirError(f"rnn {mode} with {n} layer-directions needs {states} PreState tensors "
                        f"and {4 * n} WeightList tensors; got {len(PreState)} and "
                        f"{len(WeightList)}")


def _infer_rnn(ctx):
    x = ctx.input("Input")
    d = 2 if ctx.attr("is_bidirec") else 1
    h = ctx.attr("hidden_size")
    state = VarSpec((ctx.attr("num_layers") * d, x.shape[1], h), x.dtype)
    return {"Out": VarSpec((x.shape[0], x.shape[1], d * h), x.dtype),
            "State": [state] * len(ctx.input_list("PreState")),
            "Reserve": VarSpec((-1,), np.dtype(np.uint8)),
            "DropoutState": VarSpec((-1,), np.dtype(np.uint8))}


def _reference(Input, PreState, WeightList, SequenceLength=None, is_bidirec=False,
               num_layers=1, mode="LSTM", **_):
    """Per-sequence reference: each row runs over its own valid prefix, then pads with 0."""
    d, T_, B = 2 if is_bidirec else 1, Input.shape[0], Input.shape[1]
    n = num_layers * d
    lengths = [T_] * B if SequenceLength is None else list(SequenceLength)
    states = [np.zeros_like(s) for s in PreState]
    outs = []
    for b in range(B):
        seq = Input[:lengths[b], b]
        for layer in range(num_layers):
            halves = []
            for k in range(layer * d, layer * d + d):
                w_ih, w_hh, b_ih, b_hh = _layer_weights(WeightList, k, n)
                h, c = PreState[0][k, b], PreState[1][k, b] if mode == "LSTM" else None
                steps = seq[::-1] if k % d == 1 else seq
                ys = []
                for x_t in steps:
                    h, c = _CELLS[mode](x_t @ w_ih.T + b_ih, h, c, w_hh, b_hh)
                    ys.append(h)
                states[0][k, b] = h
                if c is not None:
                    states[1][k, b] = c
                ys = np.array(ys).reshape(len(steps), -1)
                halves.append(ys[::-1] if k % d == 1 else ys)
            seq = np.concatenate(halves, -1)
        outs.append(np.concatenate([seq, np.zeros((T_ - len(seq), seq.shape[1]), seq.dtype)]))
    return {"Out": np.stack(outs, 1).astype(Input.dtype), "State": states}


def _example(mode, T_, B, I, H, layers, bidirec, lengths=None):
    d = 2 if bidirec else 1
    g = _GATES[mode] * H
    weights = []
    for layer in range(layers):
        for _ in range(d):
            weights += [rand(g, I if layer == 0 else d * H), rand(g, H)]
    weights += [rand(g) for _ in range(2 * layers * d)]
    states = [rand(layers * d, B, H) for _ in range(2 if mode == "LSTM" else 1)]
    inputs = {"Input": rand(T_, B, I), "PreState": states, "WeightList": weights}
    if lengths is not None:
        inputs["SequenceLength"] = np.array(lengths, np.int32)
    attrs = {"mode": mode, "input_size": I, "hidden_size": H, "num_layers": layers,
             "is_bidirec": bidirec, "is_test": True}
    return Example(inputs, attrs, _reference, grad=False)


@register_op(
    "rnn", no_extra_attrs=True,
    inputs=["Input", Slot("PreState", duplicable=True), Slot("WeightList", duplicable=True),
            Slot("SequenceLength", dispensable=True, no_grad=True)],
    outputs=["Out", Slot("DropoutState", dispensable=True), Slot("State", duplicable=True),
             "Reserve"],
    attrs=[Attr("dropout_prob", T.FLOAT, 0.0), Attr("is_bidirec", T.BOOLEAN, False),
           Attr("input_size", T.INT, 10), Attr("hidden_size", T.INT, 100),
           Attr("num_layers", T.INT, 1), Attr("mode", T.STRING, "RNN_TANH"),
           Attr("seed", T.INT, 0), Attr("is_test", T.BOOLEAN, False)],
    infer=_infer_rnn, differentiable=False,
    doc="Stacked (bi)directional LSTM / GRU / RNN_TANH / RNN_RELU over time-major Input",
    examples=[_example("LSTM", 4, 2, 3, 2, 1, False),
              _example("LSTM", 4, 3, 3, 2, 2, True, lengths=[4, 2, 1]),
              _example("GRU", 3, 2, 2, 3, 2, True, lengths=[3, 1]),
              _example("RNN_TANH", 3, 2, 2, 2, 1, True),
              _example("RNN_RELU", 3, 2, 2, 2, 2, False, lengths=[2, 3])],
)
def rnn(Input, PreState, WeightList, SequenceLength, dropout_prob, is_bidirec, input_size,
        hidden_size, num_layers, mode, seed, is_test):
    d = 2 if is_bidirec else 1
    n = num_layers * d
    _check_layout(mode, PreState, WeightList, n, dropout_prob, is_test, num_layers)
    steps = np.arange(Input.shape[0])[:, None]
    lengths = Input.shape[0] if SequenceLength is None else np.asarray(SequenceLength)[None, :]
    mask = np.broadcast_to(steps < lengths, Input.shape[:2])[..., None]
    x, final = Input, [[] for _ in PreState]
    for layer in range(num_layers):
        halves = []
        for k in range(layer * d, layer * d + d):
            c0 = PreState[1][k] if mode == "LSTM" else None
            out, h, c = _run_direction(_CELLS[mode], x, mask, PreState[0][k], c0,
                                       _layer_weights(WeightList, k, n), reverse=k % d == 1)
            halves.append(out)
            final[0].append(h)
            if c is not None:
                final[1].append(c)
        x = np.concatenate(halves, -1) if d == 2 else halves[0]
    return {"Out": x.astype(Input.dtype, copy=False),
            "State": [np.stack(s).astype(Input.dtype, copy=False) for s in final],
            "Reserve": np.zeros(0, np.uint8), "DropoutState": np.zeros(0, np.uint8)}
