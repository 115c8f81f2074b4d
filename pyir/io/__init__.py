"""Data loading (`paddle.io`, exposed as `pyir.io`): datasets, samplers and an in-process
`DataLoader`.

    Dataset / IterableDataset          map-style (len + getitem) and stream datasets
    TensorDataset, ComposeDataset, ChainDataset, ConcatDataset, Subset, random_split
    Sampler, SequenceSampler, RandomSampler, SubsetRandomSampler, WeightedRandomSampler
    BatchSampler, DistributedBatchSampler          lists of indices per batch
    DataLoader                                    batches, collated by default_collate_fn

Everything runs in the calling process: `num_workers` is accepted and ignored (one warning),
so `get_worker_info()` is always None. Randomness (shuffling, random_split, weighted
sampling) follows `pyir.seed`. Batches are Tensors in eager mode; in static mode numpy arrays,
or with `feed_list` and `return_list=False`, feed dicts {input name: array}.

Example:
    >>> loader = pyir.io.DataLoader(TensorDataset([x, y]), batch_size=32, shuffle=True)
    >>> for xb, yb in loader: ...
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Mapping, Sequence

import numpy as np

from .. import framework
from ..eager import Tensor
from ..errors import PyirError
from .datasets import (
    ChainDataset,
    ComposeDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    NoLengthError,
    Subset,
    TensorDataset,
    random_split,
)
from .samplers import (
    BatchSampler,
    DistributedBatchSampler,
    RandomSampler,
    Sampler,
    SequenceSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)


# --- collation and the loader -----------------------------------------------------------------
def default_collate_fn(batch):
    """Stack a list of samples field by field: arrays, Tensors and numbers become one array
    (Tensors in eager mode) with a leading batch dimension; dicts and sequences are collated
    per key / position; strings stay lists.

    Example:
        >>> default_collate_fn([(np.ones(2), 1), (np.zeros(2), 0)])  # [[2, 2] array, [2] array]
    """
    return _to_output(_collate(batch))


def _collate(batch):
    sample = batch[0]
    if isinstance(sample, Tensor):
        return np.stack([s.numpy() for s in batch])
    if isinstance(sample, (np.ndarray, np.generic, bool, numbers.Number)):
        return np.stack([np.asarray(s) for s in batch]) if isinstance(sample, np.ndarray) \
            else np.asarray(batch)
    if isinstance(sample, (str, bytes)):
        return list(batch)
    if isinstance(sample, Mapping):
        return {key: _collate([s[key] for s in batch]) for key in sample}
    if isinstance(sample, Sequence):
        if len({len(s) for s in batch}) != 1:
            raise PyirError("default_collate_fn: samples of one batch must have the same "
                            "number of fields")
        return [_collate(list(fields)) for fields in zip(*batch)]
    raise PyirError(f"default_collate_fn cannot batch samples of type {type(sample).__name__}; "
                    f"pass collate_fn=")


def _to_output(value):
    """numpy arrays -> Tensors in eager mode (arrays in static mode), through containers."""
    if isinstance(value, np.ndarray):
        return value if framework.static_mode[0] else Tensor(value)
    if isinstance(value, dict):
        return {k: _to_output(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_to_output(v) for v in value]
    return value


_warned_workers = [False]


class DataLoader:
    """Iterate a dataset in batches, in this process.

    Args:
        dataset: a Dataset (map-style, batched by `batch_sampler` or batch_size / shuffle /
            drop_last) or an IterableDataset (batched in stream order).
        feed_list: static inputs; with return_list=False each batch is {input name: array}.
        batch_size: samples per batch; None means the dataset already yields batches.
        collate_fn: turns a list of samples into a batch (default: `default_collate_fn`).
        num_workers, use_buffer_reader, use_shared_memory, timeout, worker_init_fn,
        prefetch_factor, persistent_workers, places: accepted; pyir loads in process.

    Example:
        >>> for x, y in DataLoader(dataset, batch_size=64, shuffle=True, drop_last=True): ...
    """

    def __init__(self, dataset, feed_list=None, places=None, return_list: bool = True,
                 batch_sampler=None, batch_size: int | None = 1, shuffle: bool = False,
                 drop_last: bool = False, collate_fn=None, num_workers: int = 0,
                 use_buffer_reader: bool = True, reader_buffer_size: int = 2,
                 prefetch_factor: int = 2, use_shared_memory: bool = True, timeout: int = 0,
                 worker_init_fn=None, persistent_workers: bool = False) -> None:
        if num_workers and not _warned_workers[0]:
            _warned_workers[0] = True
            warnings.warn("pyir.io.DataLoader loads in the calling process; num_workers is "
                          "ignored", stacklevel=2)
        self.dataset, self.feed_list = dataset, list(feed_list or [])
        self.return_list, self.collate_fn = return_list, collate_fn
        self._iterable = isinstance(dataset, IterableDataset)
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or drop_last:
                raise PyirError("DataLoader: batch_sampler excludes batch_size, shuffle and "
                                "drop_last")
            if self._iterable:
                raise PyirError("DataLoader: an IterableDataset takes no batch_sampler")
            self.batch_sampler, self.batch_size = batch_sampler, None
        elif batch_size is None:
            self.batch_sampler, self.batch_size = None, None
        else:
            if isinstance(batch_size, bool) or not isinstance(batch_size, numbers.Integral) or \
                    batch_size <= 0:
                raise PyirError(f"DataLoader: batch_size must be a positive int or None, got "
                                f"{batch_size!r}")
            if self._iterable:
                if shuffle:
                    raise PyirError("DataLoader: an IterableDataset cannot be shuffled")
                self.batch_sampler = None
            else:
                self.batch_sampler = BatchSampler(dataset, shuffle=shuffle,
                                                  batch_size=int(batch_size),
                                                  drop_last=drop_last)
            self.batch_size = int(batch_size)
        self.drop_last = drop_last

    def __len__(self) -> int:
        if self._iterable:
            raise NoLengthError("DataLoader over an IterableDataset has no length")
        if self.batch_sampler is None:
            return len(self.dataset)
        return len(self.batch_sampler)

    def __iter__(self):
        for batch in self._batches():
            yield self._shaped(batch)

    def __call__(self):
        return iter(self)

    def _batches(self):
        collate = self.collate_fn or default_collate_fn
        if self._iterable:
            if self.batch_size is None:
                for sample in self.dataset:
                    yield _to_output(_plain(sample)) if self.collate_fn is None else \
                        self.collate_fn(sample)
                return
            batch = []
            for sample in self.dataset:
                batch.append(sample)
                if len(batch) == self.batch_size:
                    yield collate(batch)
                    batch = []
            if batch and not self.drop_last:
                yield collate(batch)
            return
        if self.batch_sampler is None:
            for i in range(len(self.dataset)):
                sample = self.dataset[i]
                yield _to_output(_plain(sample)) if self.collate_fn is None else \
                    self.collate_fn(sample)
            return
        for indices in self.batch_sampler:
            yield collate([self.dataset[i] for i in indices])

    def _shaped(self, batch):
        if self.feed_list and not self.return_list:
            fields = batch if isinstance(batch, (list, tuple)) else [batch]
            if len(fields) != len(self.feed_list):
                raise PyirError(f"DataLoader: a batch has {len(fields)} fields but feed_list "
                                f"has {len(self.feed_list)} inputs")
            return {getattr(var, "name", var): np.asarray(value)
                    for var, value in zip(self.feed_list, fields)}
        return batch

    @staticmethod
    def from_generator(*args, **kwargs):
        raise PyirError("DataLoader.from_generator is Paddle 1.x API; wrap the generator in an "
                        "IterableDataset and use DataLoader(dataset, batch_size=...)")


def _plain(sample):
    """A sample without batching: Tensors and arrays as arrays, through containers."""
    if isinstance(sample, Tensor):
        return sample.numpy()
    if isinstance(sample, np.ndarray):
        return sample
    if isinstance(sample, Mapping):
        return {k: _plain(v) for k, v in sample.items()}
    if isinstance(sample, (list, tuple)):
        return [_plain(v) for v in sample]
    return sample


class WorkerInfo:
    """What a DataLoader worker knows about itself (never made in pyir: no workers)."""

    def __init__(self, id: int, num_workers: int, dataset) -> None:
        self.id, self.num_workers, self.dataset = id, num_workers, dataset


def get_worker_info():
    """Information about the current DataLoader worker: always None, pyir loads in process.

    Example:
        >>> get_worker_info() is None
    """
    return


__all__ = ["BatchSampler", "ChainDataset", "ComposeDataset", "ConcatDataset", "DataLoader",
           "Dataset", "DistributedBatchSampler", "IterableDataset", "RandomSampler", "Sampler",
           "SequenceSampler", "Subset", "SubsetRandomSampler", "TensorDataset",
           "WeightedRandomSampler", "WorkerInfo", "default_collate_fn", "get_worker_info",
           "random_split"]
