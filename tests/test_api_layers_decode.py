"""BeamSearchDecoder + dynamic_decode against Paddle 3.3.1 (dynamic graph): the same cell,
embedding and projection weights (seeded) and initial states give Paddle's predicted ids,
sequence lengths, final log-probabilities and cell states (literals produced by Paddle 3.3.1)."""

import numpy as np
import pytest

import pyir
from pyir.errors import BuildError

nn = pyir.nn


def _decode(cell_type, end_token, lstm):
    pyir.disable_static()
    rng = np.random.default_rng(3)
    emb, cell, proj = nn.Embedding(6, 5), cell_type(5, 4), nn.Linear(4, 6)
    for layer in (emb, cell, proj):
        layer.set_state_dict({k: rng.standard_normal(v.shape).astype("float32")
                              for k, v in layer.state_dict().items()})
    decoder = nn.BeamSearchDecoder(cell, start_token=0, end_token=end_token, beam_size=3,
                                   embedding_fn=emb, output_fn=proj)
    h0 = pyir.to_tensor(rng.standard_normal((2, 4)).astype("float32"))
    inits = (h0, h0 * 0.5) if lstm else h0
    return nn.dynamic_decode(decoder, inits=inits, max_step_num=6, return_length=True)


def test_gru_beam_search_matches_paddle():
    ids, states, lengths = _decode(nn.GRUCell, 1, lstm=False)
    assert ids.numpy().tolist() == [
        [[5, 5, 5], [3, 5, 3], [5, 3, 5], [3, 5, 3], [5, 3, 5], [3, 5, 5], [5, 3, 3]],
        [[5, 5, 5], [3, 3, 5], [5, 5, 3], [3, 3, 5], [5, 5, 3], [3, 5, 5], [5, 3, 3]]]
    assert lengths.numpy().tolist() == [[7, 7, 7], [7, 7, 7]]
    np.testing.assert_allclose(states.log_probs.numpy(), [[-4.857, -5.3257, -5.4631],
                                                          [-4.2859, -4.9968, -5.1862]],
                               atol=1e-4)
    np.testing.assert_allclose(states.cell_states.numpy().ravel()[:6],
                               [-0.8981, 0.8683, 0.8852, 0.8541, -0.9195, 0.8021], atol=1e-4)


def test_lstm_beam_search_with_finished_beams_matches_paddle():
    ids, states, lengths = _decode(nn.LSTMCell, 3, lstm=True)
    assert ids.numpy().tolist() == [
        [[3, 4, 4], [3, 3, 4], [3, 3, 4], [3, 3, 4], [3, 3, 4], [3, 3, 4], [3, 3, 4]],
        [[3, 4, 4], [3, 3, 4], [3, 3, 4], [3, 3, 4], [3, 3, 4], [3, 3, 4], [3, 3, 4]]]
    assert lengths.numpy().tolist() == [[1, 2, 7], [1, 2, 7]]  # finished beams stop growing
    np.testing.assert_allclose(states.log_probs.numpy(), [[-1.4059, -2.5219, -6.0768],
                                                          [-1.5255, -2.7043, -6.3161]],
                               atol=1e-4)
    np.testing.assert_allclose(states.cell_states[1].numpy().ravel()[:6],
                               [-0.8346, 0.3327, 0.5475, 2.4046, -0.7767, 0.2586], atol=1e-4)


def test_decode_refusals():
    with pytest.raises(BuildError, match="beam_size must be a positive int"):
        nn.BeamSearchDecoder(nn.GRUCell(2, 2), 0, 1, beam_size=0)
    with pytest.raises(BuildError, match="decoder must be a pyir.nn Decoder"):
        nn.dynamic_decode(object())
    main, startup = pyir.static.Program(), pyir.static.Program()
    with pyir.static.program_guard(main, startup):
        decoder = nn.BeamSearchDecoder(nn.GRUCell(2, 2), 0, 1, beam_size=2)
        with pytest.raises(BuildError, match="decodes eagerly"):
            nn.dynamic_decode(decoder, inits=pyir.static.data("h", [2, 2]))
