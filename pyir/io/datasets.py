"""Datasets of `paddle.io` (`pyir.io`): Dataset, IterableDataset,
TensorDataset, ComposeDataset, ChainDataset, ConcatDataset, Subset and random_split."""

from __future__ import annotations

import bisect
import itertools
import math
import numbers

import numpy as np

from .. import random
from ..eager import Tensor
from ..errors import PyirError


class NoLengthError(PyirError, TypeError):
    """len() of something that streams (a TypeError too, so list() still works on it)."""


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


__all__ = ["ChainDataset", "ComposeDataset", "ConcatDataset", "Dataset", "IterableDataset",
           "NoLengthError", "Subset", "TensorDataset", "random_split"]
