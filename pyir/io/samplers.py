"""Samplers of `paddle.io` (`pyir.io`): indices one by one
(SequenceSampler, RandomSampler, SubsetRandomSampler, WeightedRandomSampler) or per batch
(BatchSampler, DistributedBatchSampler)."""

from __future__ import annotations

import math
import numbers

import numpy as np

from .. import random
from ..eager import Tensor
from ..errors import PyirError
from .datasets import IterableDataset, _rng


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


__all__ = ["BatchSampler", "DistributedBatchSampler", "RandomSampler", "Sampler",
           "SequenceSampler", "SubsetRandomSampler", "WeightedRandomSampler"]
