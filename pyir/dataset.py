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

import bisect
import itertools
import math
import numbers
import warnings
from collections.abc import Mapping, Sequence

import numpy as np

from . import framework, random
from .eager import Tensor
from .errors import PyirError


class NoLengthError(PyirError, TypeError):
    """len() of something that streams (a TypeError too, so list() still works on it)."""


# --- datasets -------------------------------------------------------------------------------
class Dataset:
    """A map-style dataset: define `__getitem__(index)` and `__len__()`.

    Example:
        >>> class Squares(Dataset):
        ...     def __len__(self): return 10
        ...     def __getitem__(self, i): return np.float32(i * i)
    """

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")

    def __len__(self) -> int:
        raise NotImplementedError(f"{type(self).__name__} must define __len__")


class IterableDataset(Dataset):
    """A stream dataset: define `__iter__()`; it has no length and no indexing.

    Example:
        >>> class Count(IterableDataset):
        ...     def __iter__(self): yield from (np.array([i]) for i in range(5))
    """

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")

    def __getitem__(self, index):
        raise PyirError(f"{type(self).__name__} is an IterableDataset: iterate it, it has no "
                        f"items by index")

    def __len__(self) -> int:
        raise NoLengthError(f"{type(self).__name__} is an IterableDataset: it has no length")


class TensorDataset(Dataset):
    """Rows of equally long tensors: item i is (t[i] for t in tensors).

    Example:
        >>> ds = TensorDataset([images, labels]); ds[0]
    """

    def __init__(self, tensors) -> None:
        tensors = list(tensors)
        if not tensors:
            raise PyirError("TensorDataset needs at least one tensor")
        rows = {t.shape[0] for t in tensors}
        if len(rows) != 1:
            raise PyirError(f"TensorDataset: tensors must have the same number of rows, got "
                            f"{[t.shape[0] for t in tensors]}")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(_take(t, index) for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].shape[0]


def _take(tensor, index):
    if isinstance(tensor, Tensor):
        return Tensor(np.asarray(tensor.numpy()[index]))
    return np.asarray(tensor)[index]


class ComposeDataset(Dataset):
    """Equally long map-style datasets side by side: item i joins their items i into one
    tuple.

    Example:
        >>> ComposeDataset([images, captions])[0]   # (image fields..., caption fields...)
    """

    def __init__(self, datasets) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise PyirError("ComposeDataset needs at least one dataset")
        for ds in self.datasets:
            if isinstance(ds, IterableDataset):
                raise PyirError("ComposeDataset takes map-style datasets, not IterableDataset")
        if len({len(ds) for ds in self.datasets}) != 1:
            raise PyirError(f"ComposeDataset: datasets must be equally long, got "
                            f"{[len(ds) for ds in self.datasets]}")

    def __len__(self) -> int:
        return len(self.datasets[0])

    def __getitem__(self, index):
        items = []
        for ds in self.datasets:
            item = ds[index]
            items.extend(item if isinstance(item, (list, tuple)) else [item])
        return tuple(items)


class ChainDataset(IterableDataset):
    """Iterable datasets one after another.

    Example:
        >>> ChainDataset([stream_a, stream_b])
    """

    def __init__(self, datasets) -> None:
        self.datasets = list(datasets)
        for ds in self.datasets:
            if not isinstance(ds, IterableDataset):
                raise PyirError(f"ChainDataset takes IterableDatasets, got "
                                f"{type(ds).__name__}")

    def __iter__(self):
        for ds in self.datasets:
            yield from ds


class ConcatDataset(Dataset):
    """Map-style datasets one after another: indices run through the first, then the next.

    Example:
        >>> ConcatDataset([train_a, train_b])[len(train_a)]   # train_b[0]
    """

    def __init__(self, datasets) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise PyirError("ConcatDataset needs at least one dataset")
        for ds in self.datasets:
            if isinstance(ds, IterableDataset):
                raise PyirError("ConcatDataset takes map-style datasets, not IterableDataset")
        self.cumulative_sizes = list(itertools.accumulate(len(ds) for ds in self.datasets))

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, index):
        if index < 0:
            if -index > len(self):
                raise PyirError(f"ConcatDataset: index {index} is out of range for length "
                                f"{len(self)}")
            index += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, index)
        if which >= len(self.datasets):
            raise IndexError(f"ConcatDataset index {index} out of range for length {len(self)}")
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][index - start]


class Subset(Dataset):
    """The items of `dataset` at `indices`, in that order.

    Example:
        >>> Subset(dataset, [0, 2, 4])
    """

    def __init__(self, dataset, indices) -> None:
        self.dataset, self.indices = dataset, list(indices)

    def __getitem__(self, index):
        return self.dataset[self.indices[index]]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(dataset, lengths, generator=None) -> list[Subset]:
    """Split a dataset into random, non-overlapping Subsets of the given lengths (or
    fractions summing to 1; leftover items go round-robin to the first subsets).

    Example:
        >>> train, val = random_split(dataset, [0.8, 0.2])
    """
    lengths = list(lengths)
    n = len(dataset)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        sizes = []
        for i, fraction in enumerate(lengths):
            if not 0 <= fraction <= 1:
                raise PyirError(f"random_split: fraction at index {i} is not in [0, 1]")
            sizes.append(math.floor(n * fraction))
        for i in range(n - sum(sizes)):
            sizes[i % len(sizes)] += 1
        lengths = sizes
    if sum(lengths) != n:
        raise PyirError(f"random_split: the lengths add up to {sum(lengths)}, but the dataset "
                        f"has {n} items")
    order = _rng(generator).permutation(n).tolist()
    return [Subset(dataset, order[end - size:end])
            for size, end in zip(lengths, itertools.accumulate(lengths))]


def _rng(generator) -> np.random.Generator:
    if generator is None:
        return random.generator()
    if isinstance(generator, np.random.Generator):
        return generator
    if isinstance(generator, numbers.Integral):
        return np.random.default_rng(int(generator))
    raise PyirError(f"generator must be None, an int seed or a numpy Generator, got "
                    f"{type(generator).__name__}")


# --- samplers -------------------------------------------------------------------------------
class Sampler:
    """Yields dataset indices; subclasses define `__iter__` (and `__len__`).

    Example:
        >>> class Evens(Sampler):
        ...     def __iter__(self): return iter(range(0, len(self.data_source), 2))
    """

    def __init__(self, data_source=None) -> None:
        self.data_source = data_source

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")


class SequenceSampler(Sampler):
    """0, 1, ..., len(data_source) - 1.

    Example:
        >>> list(SequenceSampler(range(3)))   # [0, 1, 2]
    """

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random permutation of the indices, or `num_samples` draws with replacement.

    Example:
        >>> RandomSampler(dataset, replacement=True, num_samples=100)
    """

    def __init__(self, data_source, replacement: bool = False, num_samples: int | None = None,
                 generator=None) -> None:
        super().__init__(data_source)
        if not isinstance(replacement, bool):
            raise PyirError(f"RandomSampler: replacement must be a bool, got {replacement!r}")
        if num_samples is not None and not replacement:
            raise PyirError("RandomSampler: num_samples is only used with replacement=True")
        self.replacement, self._num_samples, self.generator = replacement, num_samples, generator
        if self.num_samples <= 0:
            raise PyirError(f"RandomSampler: num_samples must be positive, got "
                            f"{self.num_samples}")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        if self.generator is not None and not isinstance(self.generator, (
                np.random.Generator, numbers.Integral)):
            for _ in range(self.num_samples):  # Paddle also takes a generator of indices
                yield next(self.generator)
            return
        rng = _rng(self.generator)
        if self.replacement:
            yield from rng.integers(0, n, self.num_samples).tolist()
        else:
            yield from rng.permutation(n).tolist()

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in random order.

    Example:
        >>> SubsetRandomSampler([0, 5, 7])
    """

    def __init__(self, indices) -> None:
        super().__init__(None)
        self.indices = list(indices)
        if not self.indices:
            raise PyirError("SubsetRandomSampler: indices must not be empty")

    def __iter__(self):
        for i in random.generator().permutation(len(self.indices)).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """`num_samples` indices drawn with probability proportional to `weights`.

    Example:
        >>> WeightedRandomSampler([0.1, 0.9], num_samples=10)
    """

    def __init__(self, weights, num_samples: int, replacement: bool = True) -> None:
        super().__init__(None)
        weights = np.asarray(weights.numpy() if isinstance(weights, Tensor) else weights,
                             dtype=np.float64).reshape(-1)
        if weights.size == 0 or np.any(weights < 0) or not np.isfinite(weights).all() or \
                weights.sum() <= 0:
            raise PyirError("WeightedRandomSampler: weights must be non-negative finite "
                            "numbers, not all zero")
        if isinstance(num_samples, bool) or not isinstance(num_samples, numbers.Integral) or \
                num_samples <= 0:
            raise PyirError(f"WeightedRandomSampler: num_samples must be a positive int, got "
                            f"{num_samples!r}")
        if not replacement and num_samples > np.count_nonzero(weights):
            raise PyirError(f"WeightedRandomSampler: cannot draw {num_samples} samples without "
                            f"replacement from {np.count_nonzero(weights)} non-zero weights")
        self.weights, self.num_samples = weights, int(num_samples)
        self.replacement = bool(replacement)

    def __iter__(self):
        p = self.weights / self.weights.sum()
        draws = random.generator().choice(len(p), self.num_samples, replace=self.replacement,
                                          p=p)
        return iter(draws.tolist())

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Lists of `batch_size` indices from a sampler (or from the dataset, in order or
    shuffled); the last shorter batch is kept unless drop_last.

    Example:
        >>> list(BatchSampler(range(5), batch_size=2))   # [[0, 1], [2, 3], [4]]
    """

    def __init__(self, dataset=None, sampler=None, shuffle: bool = False, batch_size: int = 1,
                 drop_last: bool = False) -> None:
        if (dataset is None) == (sampler is None):
            raise PyirError("BatchSampler: give exactly one of dataset and sampler")
        if sampler is not None and shuffle:
            raise PyirError("BatchSampler: shuffle applies to a dataset; a sampler decides "
                            "its own order")
        if isinstance(batch_size, bool) or not isinstance(batch_size, numbers.Integral) or \
                batch_size <= 0:
            raise PyirError(f"BatchSampler: batch_size must be a positive int, got "
                            f"{batch_size!r}")
        if not isinstance(shuffle, bool) or not isinstance(drop_last, bool):
            raise PyirError("BatchSampler: shuffle and drop_last must be bools")
        if sampler is None:
            if isinstance(dataset, IterableDataset):
                raise PyirError("BatchSampler: an IterableDataset has no indices to batch")
            sampler = RandomSampler(dataset) if shuffle else SequenceSampler(dataset)
        self.sampler, self.shuffle = sampler, shuffle
        self.batch_size, self.drop_last = int(batch_size), drop_last

    def __iter__(self):
        batch = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)


class DistributedBatchSampler(BatchSampler):
    """The batches of one rank out of `num_replicas` (default 1 and rank 0 in pyir, which
    runs one process): the indices are padded to a multiple of num_replicas and dealt out a
    batch at a time, as Paddle does; `set_epoch(e)` reseeds the shuffle.

    Example:
        >>> DistributedBatchSampler(dataset, batch_size=8, num_replicas=2, rank=0)
    """

    def __init__(self, dataset, batch_size: int, num_replicas: int | None = None,
                 rank: int | None = None, shuffle: bool = False, drop_last: bool = False) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, numbers.Integral) or \
                batch_size <= 0:
            raise PyirError(f"DistributedBatchSampler: batch_size must be a positive int, got "
                            f"{batch_size!r}")
        if not isinstance(shuffle, bool) or not isinstance(drop_last, bool):
            raise PyirError("DistributedBatchSampler: shuffle and drop_last must be bools")
        self.nranks = 1 if num_replicas is None else int(num_replicas)
        self.local_rank = 0 if rank is None else int(rank)
        if self.nranks <= 0 or not 0 <= self.local_rank < self.nranks:
            raise PyirError(f"DistributedBatchSampler: need num_replicas > 0 and 0 <= rank < "
                            f"num_replicas, got {num_replicas} and {rank}")
        self.dataset, self.batch_size = dataset, int(batch_size)
        self.shuffle, self.drop_last, self.epoch = shuffle, drop_last, 0
        self.num_samples = math.ceil(len(dataset) / self.nranks)
        self.total_size = self.num_samples * self.nranks

    def __iter__(self):
        n = len(self.dataset)
        indices = list(range(n))
        padding = self.total_size - n
        indices += (indices * math.ceil(padding / n))[:padding] if n else []
        if self.shuffle:
            np.random.RandomState(self.epoch).shuffle(indices)
            self.epoch += 1
        if self.nranks > 1:
            indices = self._deal(indices)
        batch = []
        for index in indices:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def _deal(self, indices: list) -> list:
        """This rank's share: whole batches in turn, then its part of the remainder."""
        step = self.batch_size * self.nranks
        tail = self.total_size % step
        mine = []
        for start in range(self.local_rank * self.batch_size, len(indices) - tail, step):
            mine.extend(indices[start:start + self.batch_size])
        rest, share = indices[len(indices) - tail:], tail // self.nranks
        return mine + rest[self.local_rank * share:(self.local_rank + 1) * share]

    def __len__(self) -> int:
        n = self.num_samples + (0 if self.drop_last else self.batch_size - 1)
        return n // self.batch_size

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch


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
