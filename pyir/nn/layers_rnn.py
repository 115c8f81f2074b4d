"""Recurrent layers: SimpleRNNCell, LSTMCell, GRUCell, the RNN / BiRNN drivers, and the
multi-layer SimpleRNN, LSTM and GRU. Both modes run the cell math step by step (unrolled over
the known sequence length), so eager gradients come from the ops' own rules.

Parameters follow Paddle: a cell has weight_ih [gates*hidden, input], weight_hh
[gates*hidden, hidden], bias_ih, bias_hh, all ~ U(-1/sqrt(hidden), 1/sqrt(hidden)); a
multi-layer RNN registers them again as `weight_ih_l{k}` (`_reverse` for the backward
direction), so its state_dict has both spellings, as Paddle's has.
"""

from __future__ import annotations

import math

from .. import dtypes
from ..dispatch import out
from ..errors import BuildError
from ..initializers import Uniform
from ..tensor import linalg as tlinalg
from ..tensor import manipulation as manip
from ..tensor import math as tmath
from . import _ops
from .layer_base import Layer
from .layers_container import LayerList

__all__ = ["RNNCellBase", "SimpleRNNCell", "LSTMCell", "GRUCell", "RNN", "BiRNN",
           "SimpleRNN", "LSTM", "GRU"]


class RNNCellBase(Layer):
    """Base of cells: `get_initial_states` makes zero states shaped like `state_shape`."""

    def get_initial_states(self, batch_ref, shape=None, dtype=None, init_value=0.0,
                           batch_dim_idx=0):
        shape = shape or self.state_shape
        dtype = dtype or batch_ref.dtype

        def make(s):
            return out("fill_constant_batch_size_like", {"Input": batch_ref},
                       {"shape": [-1] + list(s), "value": float(init_value),
                        "dtype": dtypes.to_code(dtype), "input_dim_idx": batch_dim_idx,
                        "output_dim_idx": 0})

        if isinstance(shape[0], (list, tuple)):
            return tuple(make(s) for s in shape)
        return make(shape)

    def _make_weights(self, gates, input_size, hidden_size, weight_ih_attr, weight_hh_attr,
                      bias_ih_attr, bias_hh_attr):
        who = type(self).__name__
        for what, v in (("input_size", input_size), ("hidden_size", hidden_size)):
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise BuildError(f"{who}: {what} must be a positive int, got {v!r}")
        self.input_size, self.hidden_size = input_size, hidden_size
        std = 1.0 / math.sqrt(hidden_size)
        init = Uniform(-std, std)
        self.weight_ih = self.create_parameter([gates * hidden_size, input_size],
                                               weight_ih_attr, default_initializer=init)
        self.weight_hh = self.create_parameter([gates * hidden_size, hidden_size],
                                               weight_hh_attr, default_initializer=init)
        self.bias_ih = self.create_parameter([gates * hidden_size], bias_ih_attr,
                                             is_bias=True, default_initializer=init)
        self.bias_hh = self.create_parameter([gates * hidden_size], bias_hh_attr,
                                             is_bias=True, default_initializer=init)

    def _gates(self, inputs, states):
        x = tlinalg.matmul(inputs, self.weight_ih, transpose_y=True)
        if self.bias_ih is not None:
            x = x + self.bias_ih
        h = tlinalg.matmul(states, self.weight_hh, transpose_y=True)
        if self.bias_hh is not None:
            h = h + self.bias_hh
        return x, h

    def extra_repr(self):
        return f"{self.input_size}, {self.hidden_size}"


class SimpleRNNCell(RNNCellBase):
    """h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh), act tanh or relu.

    Example:
        >>> y, h = pyir.nn.SimpleRNNCell(16, 32)(x)
    """

    def __init__(self, input_size, hidden_size, activation="tanh", weight_ih_attr=None,
                 weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__()
        if activation not in ("tanh", "relu"):
            raise BuildError(f"SimpleRNNCell: activation must be 'tanh' or 'relu', got "
                             f"{activation!r}")
        self.activation = activation
        self._make_weights(1, input_size, hidden_size, weight_ih_attr, weight_hh_attr,
                           bias_ih_attr, bias_hh_attr)

    @property
    def state_shape(self):
        return (self.hidden_size,)

    def forward(self, inputs, states=None):
        if states is None:
            states = self.get_initial_states(inputs)
        x, h = self._gates(inputs, states)
        new = _ops.unary(self.activation, x + h)
        return new, new


class LSTMCell(RNNCellBase):
    """Gates i, f, g, o = split(x W_ih^T + b_ih + h W_hh^T + b_hh);
    c' = sigmoid(f) c + sigmoid(i) tanh(g); h' = sigmoid(o) tanh(c'). Returns (h', (h', c'))."""

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, proj_size=0, name=None):
        super().__init__()
        if proj_size:
            raise BuildError("LSTMCell: proj_size is not supported")
        self._make_weights(4, input_size, hidden_size, weight_ih_attr, weight_hh_attr,
                           bias_ih_attr, bias_hh_attr)

    @property
    def state_shape(self):
        return ((self.hidden_size,), (self.hidden_size,))

    def forward(self, inputs, states=None):
        if states is None:
            states = self.get_initial_states(inputs)
        h, c = states
        x, hh = self._gates(inputs, h)
        i, f, g, o = manip.split(x + hh, 4, axis=-1)
        c_new = _ops.sigmoid(f) * c + _ops.sigmoid(i) * tmath.tanh(g)
        h_new = _ops.sigmoid(o) * tmath.tanh(c_new)
        return h_new, (h_new, c_new)


class GRUCell(RNNCellBase):
    """r, z from x and h gates; c = tanh(x_c + r * h_c); h' = (h - c) * z + c."""

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__()
        self._make_weights(3, input_size, hidden_size, weight_ih_attr, weight_hh_attr,
                           bias_ih_attr, bias_hh_attr)

    @property
    def state_shape(self):
        return (self.hidden_size,)

    def forward(self, inputs, states=None):
        if states is None:
            states = self.get_initial_states(inputs)
        x, h = self._gates(inputs, states)
        x_r, x_z, x_c = manip.split(x, 3, axis=-1)
        h_r, h_z, h_c = manip.split(h, 3, axis=-1)
        r = _ops.sigmoid(x_r + h_r)
        z = _ops.sigmoid(x_z + h_z)
        c = tmath.tanh(x_c + r * h_c)
        new = (states - c) * z + c
        return new, new


def _map(fn, *trees):
    if isinstance(trees[0], (tuple, list)):
        return tuple(_map(fn, *parts) for parts in zip(*trees))
    return fn(*trees)


class RNN(Layer):
    """Runs `cell` over the time axis; returns (outputs, final_states). With
    sequence_length, states stop changing past each sequence's end.

    Example:
        >>> outputs, h = pyir.nn.RNN(pyir.nn.GRUCell(8, 16))(x)
    """

    def __init__(self, cell, is_reverse=False, time_major=False):
        super().__init__()
        if not isinstance(cell, Layer):
            raise BuildError(f"RNN: cell must be a Layer, got {type(cell).__name__}")
        self.cell, self.is_reverse, self.time_major = cell, is_reverse, time_major
        self._mask_outputs = False

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        axis = 0 if self.time_major else 1
        steps = inputs.shape[axis]
        if steps is None or steps < 0:
            raise BuildError("RNN: the sequence length (time dimension) must be known; pass "
                             "an input with a fixed time dimension")
        batch_axis = 1 if self.time_major else 0
        if initial_states is None:
            initial_states = self.cell.get_initial_states(inputs, batch_dim_idx=batch_axis)
        xs = out("unstack", {"X": inputs}, {"axis": axis, "num": steps}, slot="Y")
        order = list(range(steps))[::-1] if self.is_reverse else list(range(steps))
        states, outputs = initial_states, [None] * steps
        for t in order:
            y, new_states = self.cell(xs[t], states, **kwargs)
            if sequence_length is not None:
                mask = _ops.cast(manip.unsqueeze(_ops.cast(sequence_length, "int64") > t, 1),
                                 y.dtype)
                new_states = _map(lambda old, new: new * mask + old * (1.0 - mask), states,
                                  new_states)
                if self._mask_outputs:
                    y = y * mask
            states, outputs[t] = new_states, y
        return manip.stack(outputs, axis=axis), states


class BiRNN(Layer):
    """A forward and a backward RNN over the same input; outputs concatenated on the last
    axis, final states as (forward, backward)."""

    def __init__(self, cell_fw, cell_bw, time_major=False):
        super().__init__()
        if not isinstance(cell_fw, Layer) or not isinstance(cell_bw, Layer):
            raise BuildError("BiRNN: cell_fw and cell_bw must be Layers")
        self.cell_fw, self.cell_bw, self.time_major = cell_fw, cell_bw, time_major
        self._mask_outputs = False

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        fw_rnn = _Driver(self.cell_fw, False, self.time_major)
        bw_rnn = _Driver(self.cell_bw, True, self.time_major)
        fw_rnn._mask_outputs = bw_rnn._mask_outputs = self._mask_outputs
        if initial_states is None:
            states_fw = states_bw = None
        else:
            states_fw, states_bw = initial_states
        out_fw, final_fw = fw_rnn.forward(inputs, states_fw, sequence_length, **kwargs)
        out_bw, final_bw = bw_rnn.forward(inputs, states_bw, sequence_length, **kwargs)
        return manip.concat([out_fw, out_bw], axis=-1), (final_fw, final_bw)


class _Driver:
    """RNN's stepping loop without being a Layer (so it registers nothing)."""

    def __init__(self, cell, is_reverse, time_major):
        self.cell, self.is_reverse, self.time_major = cell, is_reverse, time_major
        self._mask_outputs = False

    forward = RNN.forward


class _RNNBase(LayerList):
    mode = "RNN_TANH"
    cell_type = SimpleRNNCell
    gates = 1

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, cell_options=None):
        super().__init__()
        who = type(self).__name__
        bidirect = direction in ("bidirect", "bidirectional")
        if direction not in ("forward", "bidirect", "bidirectional"):
            raise BuildError(f"{who}: direction must be 'forward' or 'bidirect', got "
                             f"{direction!r}")
        if isinstance(num_layers, bool) or not isinstance(num_layers, int) or num_layers < 1:
            raise BuildError(f"{who}: num_layers must be a positive int, got {num_layers!r}")
        if not 0 <= dropout < 1:
            raise BuildError(f"{who}: dropout must be in [0, 1), got {dropout}")
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.num_directions = 2 if bidirect else 1
        self.time_major, self.dropout, self.direction = time_major, dropout, direction
        attrs = dict(weight_ih_attr=weight_ih_attr, weight_hh_attr=weight_hh_attr,
                     bias_ih_attr=bias_ih_attr, bias_hh_attr=bias_hh_attr, **(cell_options or {}))
        for layer in range(num_layers):
            size = input_size if layer == 0 else hidden_size * self.num_directions
            if bidirect:
                rnn = BiRNN(self.cell_type(size, hidden_size, **attrs),
                            self.cell_type(size, hidden_size, **attrs), time_major)
                rnn._mask_outputs = True
            else:
                rnn = RNN(self.cell_type(size, hidden_size, **attrs), False, time_major)
                rnn._mask_outputs = True
            self.append(rnn)
        for layer, rnn in enumerate(self):
            cells = [rnn.cell_fw, rnn.cell_bw] if bidirect else [rnn.cell]
            for cell, suffix in zip(cells, ["", "_reverse"]):
                for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
                    param = getattr(cell, name)
                    if param is not None:
                        self.add_parameter(f"{name}_l{layer}{suffix}", param)

    def _split_states(self, initial_states, inputs):
        """Per layer (and direction) initial states from [L*D, B, H] tensors, or None."""
        if initial_states is None:
            return [None] * self.num_layers
        lstm = isinstance(initial_states, (tuple, list))
        parts = [out("unstack", {"X": s}, {"axis": 0,
                                           "num": self.num_layers * self.num_directions},
                     slot="Y") for s in (initial_states if lstm else [initial_states])]
        result = []
        for layer in range(self.num_layers):
            per_dir = []
            for d in range(self.num_directions):
                k = layer * self.num_directions + d
                per_dir.append(tuple(p[k] for p in parts) if lstm else parts[0][k])
            result.append(tuple(per_dir) if self.num_directions == 2 else per_dir[0])
        return result

    def forward(self, inputs, initial_states=None, sequence_length=None):
        states = self._split_states(initial_states, inputs)
        finals = []
        x = inputs
        for layer, rnn in enumerate(self):
            if layer > 0 and self.dropout > 0:
                x = _ops.dropout(x, self.dropout, self.training)
            x, final = rnn(x, states[layer], sequence_length)
            finals.extend(final if self.num_directions == 2 else [final])
        if isinstance(finals[0], tuple):  # LSTM: (h, c)
            return x, tuple(manip.stack([f[i] for f in finals], axis=0) for i in range(2))
        return x, manip.stack(finals, axis=0)

    def extra_repr(self):
        text = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            text += f", num_layers={self.num_layers}"
        if self.direction != "forward":
            text += f", direction={self.direction}"
        return text


class SimpleRNN(_RNNBase):
    """Multi-layer Elman RNN (tanh or relu); returns (outputs, h [L*D, B, H]).

    Example:
        >>> y, h = pyir.nn.SimpleRNN(16, 32, num_layers=2)(x)
    """

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, activation="tanh", weight_ih_attr=None,
                 weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__(input_size, hidden_size, num_layers, direction, time_major, dropout,
                         weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr,
                         {"activation": activation})


class LSTM(_RNNBase):
    """Multi-layer LSTM; returns (outputs, (h, c)), each state [L*D, B, H].

    Example:
        >>> y, (h, c) = pyir.nn.LSTM(16, 32, direction="bidirect")(x)
    """

    cell_type, mode = LSTMCell, "LSTM"

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, proj_size=0, name=None):
        if proj_size:
            raise BuildError("LSTM: proj_size is not supported")
        super().__init__(input_size, hidden_size, num_layers, direction, time_major, dropout,
                         weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)


class GRU(_RNNBase):
    """Multi-layer GRU; returns (outputs, h [L*D, B, H])."""

    cell_type, mode = GRUCell, "GRU"

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__(input_size, hidden_size, num_layers, direction, time_major, dropout,
                         weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)

