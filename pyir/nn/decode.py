"""Decoding: `Decoder`, `BeamSearchDecoder` and `dynamic_decode`, run eagerly (a Python loop
over steps, as Paddle's dynamic-graph decoding runs). Beam bookkeeping (top-k, reordering by
parent beam) works on the step values; the cell runs as the layer it is.

    dynamic_decode(decoder, inits)
      +-- decoder.initialize(inits)           inputs, states, finished
      +-- decoder.step(t, inputs, states)     until every beam finished or max_step_num
      +-- decoder.finalize(outputs, ...)      gather_tree: the best sequences back-traced
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..dispatch import out
from ..eager import Tensor
from ..errors import BuildError
from ..framework import Variable

__all__ = ["Decoder", "BeamSearchDecoder", "dynamic_decode"]

_INF = 1e9


def _map(fn, *trees):
    """fn over the leaves of (named)tuples/lists of tensors, keeping the structure."""
    first = trees[0]
    if isinstance(first, tuple) and hasattr(first, "_fields"):
        return type(first)(*[_map(fn, *parts) for parts in zip(*trees)])
    if isinstance(first, (tuple, list)):
        return type(first)(_map(fn, *parts) for parts in zip(*trees))
    return fn(*trees)


def _leaves(tree) -> list:
    if isinstance(tree, (tuple, list)):
        return [leaf for part in tree for leaf in _leaves(part)]
    return [tree]


def _eager(tree, who: str) -> None:
    if any(isinstance(leaf, Variable) for leaf in _leaves(tree)):
        raise BuildError(f"{who} decodes eagerly; call it outside a static program "
                         f"(pyir.disable_static())")


class Decoder:
    """Base of decoders for `dynamic_decode`: initialize, step, finalize."""

    def initialize(self, inits):
        raise NotImplementedError

    def step(self, time, inputs, states, **kwargs):
        raise NotImplementedError

    def finalize(self, outputs, final_states, sequence_lengths):
        raise NotImplementedError

    @property
    def tracks_own_finished(self) -> bool:
        return False


class BeamSearchDecoder(Decoder):
    """Beam search over `cell` (an RNN cell): each step keeps the beam_size best partial
    sequences by total log-probability; finished beams only extend with end_token.

    Example:
        >>> decoder = pyir.nn.BeamSearchDecoder(cell, 0, 1, beam_size=4,
        ...                                     embedding_fn=emb, output_fn=proj)
        >>> ids, states = pyir.nn.dynamic_decode(decoder, inits=h0, max_step_num=10)
    """

    class OutputWrapper(NamedTuple):
        scores: Any
        predicted_ids: Any
        parent_ids: Any

    class StateWrapper(NamedTuple):
        cell_states: Any
        log_probs: Any
        finished: Any
        lengths: Any

    def __init__(self, cell, start_token: int, end_token: int, beam_size: int,
                 embedding_fn=None, output_fn=None):
        if not isinstance(beam_size, int) or beam_size <= 0:
            raise BuildError(f"BeamSearchDecoder: beam_size must be a positive int, got "
                             f"{beam_size!r}")
        self.cell, self.embedding_fn, self.output_fn = cell, embedding_fn, output_fn
        self.start_token, self.end_token, self.beam_size = start_token, end_token, beam_size

    @staticmethod
    def tile_beam_merge_with_batch(x, beam_size: int):
        """[batch, ...] -> [batch * beam_size, ...], each entry repeated beam_size times."""
        return Tensor(np.repeat(np.asarray(x.numpy()), beam_size, axis=0))

    def _expand(self, x):
        value = np.asarray(x.numpy())
        return Tensor(np.repeat(value[:, None], self.beam_size, axis=1))

    def initialize(self, initial_cell_states):
        _eager(initial_cell_states, "BeamSearchDecoder")
        batch = _leaves(initial_cell_states)[0].shape[0]
        cell_states = _map(self._expand, initial_cell_states)
        start = Tensor(np.full((batch, self.beam_size), self.start_token, np.int64))
        log_probs = np.tile(np.array([[0.0] + [-_INF] * (self.beam_size - 1)], np.float32),
                            (batch, 1))
        finished = np.zeros((batch, self.beam_size), bool)
        lengths = np.zeros((batch, self.beam_size), np.int64)
        inputs = self.embedding_fn(start) if self.embedding_fn else start
        state = self.StateWrapper(cell_states, Tensor(log_probs), Tensor(finished),
                                  Tensor(lengths))
        return inputs, state, Tensor(finished)

    def _merge(self, x):
        return x.reshape([-1] + list(x.shape[2:]))

    def _split(self, x):
        return x.reshape([-1, self.beam_size] + list(x.shape[1:]))

    def step(self, time, inputs, states, **kwargs):
        merged_inputs = _map(self._merge, inputs)
        merged_states = _map(self._merge, states.cell_states)
        cell_out, next_states = self.cell(merged_inputs, merged_states, **kwargs)
        cell_out = _map(self._split, cell_out)
        next_states = _map(self._split, next_states)
        if self.output_fn is not None:
            cell_out = self.output_fn(cell_out)
        output, state = self._beam_step(np.asarray(cell_out.numpy()), next_states, states)
        ids = output.predicted_ids
        next_inputs = self.embedding_fn(ids) if self.embedding_fn else ids
        return output, state, next_inputs, state.finished

    def _beam_step(self, logits, next_states, beam):
        batch, beam_size, vocab = logits.shape
        shifted = logits - logits.max(-1, keepdims=True)
        probs = np.exp(shifted) / np.exp(shifted).sum(-1, keepdims=True)
        with np.errstate(divide="ignore"):
            step_log = np.log(probs).astype(logits.dtype)
        finished = beam.finished.numpy().astype(logits.dtype)[:, :, None]
        only_end = np.full(vocab, -_INF, logits.dtype)
        only_end[self.end_token] = 0
        step_log = finished * only_end + step_log * (1 - finished)
        total = (step_log + beam.log_probs.numpy()[:, :, None]).reshape(batch, -1)
        order = np.argsort(-total, axis=1, kind="stable")[:, :beam_size]
        scores = np.take_along_axis(total, order, 1)
        parents, tokens = order // vocab, order % vocab
        rows = np.arange(batch)[:, None]

        def regroup(x):
            return Tensor(np.asarray(x.numpy())[rows, parents])

        was_finished = beam.finished.numpy()[rows, parents]
        lengths = beam.lengths.numpy()[rows, parents] + (~was_finished).astype(np.int64)
        now_finished = was_finished | (tokens == self.end_token)
        output = self.OutputWrapper(Tensor(scores.astype(np.float32)),
                                    Tensor(tokens.astype(np.int64)),
                                    Tensor(parents.astype(np.int64)))
        state = self.StateWrapper(_map(regroup, next_states), Tensor(scores),
                                  Tensor(now_finished), Tensor(lengths))
        return output, state

    def finalize(self, outputs, final_states, sequence_lengths):
        """The best sequences, back-traced through the parent beams (`gather_tree`)."""
        ids = out("gather_tree", {"Ids": outputs.predicted_ids, "Parents": outputs.parent_ids})
        return ids, final_states

    @property
    def tracks_own_finished(self) -> bool:
        return True


def dynamic_decode(decoder, inits=None, max_step_num=None, output_time_major=False,
                   impute_finished=False, is_test=False, return_length=False, **kwargs):
    """Run `decoder` step by step until every sequence finished (or after max_step_num + 1
    steps); returns (outputs, final_states[, sequence_lengths]), batch-major unless
    output_time_major.

    Example:
        >>> ids, states = pyir.nn.dynamic_decode(decoder, inits=h0, max_step_num=20)
    """
    if not isinstance(decoder, Decoder):
        raise BuildError(f"dynamic_decode: decoder must be a pyir.nn Decoder, got "
                         f"{type(decoder).__name__}")
    inputs, states, finished = decoder.initialize(inits)
    lengths = Tensor(np.zeros(finished.shape, np.int64))
    steps, step = [], 0
    while not np.all(finished.numpy()):
        outputs, next_states, next_inputs, next_finished = decoder.step(
            Tensor(np.array([step], np.int64)), inputs, states, **kwargs)
        if decoder.tracks_own_finished:
            lengths = getattr(next_states, "lengths", lengths)
        else:
            done = finished.numpy().astype(bool)
            next_finished = Tensor(next_finished.numpy().astype(bool) | done)
            lengths = Tensor(lengths.numpy() + (~done).astype(np.int64))
            if impute_finished:
                next_states = _map(lambda old, new: _keep_finished(old, new, done), states,
                                   next_states)
        steps.append(outputs)
        inputs, states, finished = next_inputs, next_states, next_finished
        step += 1
        if max_step_num is not None and step > max_step_num:
            break
    if not steps:
        raise BuildError("dynamic_decode: every sequence was finished before the first step")
    stacked = _map(lambda *xs: Tensor(np.stack([np.asarray(x.numpy()) for x in xs])), *steps)
    try:
        stacked, states = decoder.finalize(stacked, states, lengths)
    except NotImplementedError:
        pass
    if not output_time_major:
        stacked = _map(lambda x: Tensor(np.swapaxes(np.asarray(x.numpy()), 0, 1)), stacked)
    return (stacked, states, lengths) if return_length else (stacked, states)


def _keep_finished(old, new, done):
    mask = done.reshape(done.shape + (1,) * (len(new.shape) - done.ndim))
    return Tensor(np.where(mask, old.numpy(), new.numpy()))
