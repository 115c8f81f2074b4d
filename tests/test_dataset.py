"""pyir.io (pyir/io/): datasets, samplers and the in-process DataLoader, against the
behaviour of Paddle 3.3.1 (batch structure, dtypes, lengths, how ranks share indices)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import pyir
from pyir import io
from pyir.errors import PyirError


class Rows(io.Dataset):
    def __init__(self, kind="tuple", n=5):
        self.kind, self.n = kind, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if self.kind == "tuple":
            return np.full([2], i, np.float32), i, float(i) / 2
        if self.kind == "arr":
            return np.full([2], i, np.float32)
        if self.kind == "dict":
            return {"a": np.full([2], i, np.float32), "b": [i, i + 1]}
        return (f"s{i}", i)


class Stream(io.IterableDataset):
    def __iter__(self):
        for i in range(5):
            yield np.array([i])


@pytest.fixture(autouse=True)
def eager():
    pyir.disable_static()


def test_batches_have_paddles_structure_and_dtypes():
    x, i, f = next(iter(io.DataLoader(Rows("tuple"), batch_size=2)))
    assert isinstance(x, pyir.Tensor) and x.shape == [2, 2] and x.dtype == np.float32
    assert i.dtype == np.int64 and i.numpy().tolist() == [0, 1]
    assert f.dtype == np.float64 and f.numpy().tolist() == [0.0, 0.5]
    arr = next(iter(io.DataLoader(Rows("arr"), batch_size=2)))
    assert isinstance(arr, pyir.Tensor) and arr.numpy().tolist() == [[0, 0], [1, 1]]
    d = next(iter(io.DataLoader(Rows("dict"), batch_size=2)))
    assert d["a"].shape == [2, 2] and [t.numpy().tolist() for t in d["b"]] == [[0, 1], [1, 2]]
    s, n = next(iter(io.DataLoader(Rows("str"), batch_size=2)))
    assert s == ["s0", "s1"] and n.numpy().tolist() == [0, 1]


def test_lengths_drop_last_and_unbatched():
    loader = io.DataLoader(Rows("arr"), batch_size=2)
    assert len(loader) == 3 and [b.shape[0] for b in loader] == [2, 2, 1]
    loader = io.DataLoader(Rows("arr"), batch_size=2, drop_last=True)
    assert len(loader) == 2 and [b.shape for b in loader] == [[2, 2], [2, 2]]
    single = next(iter(io.DataLoader(Rows("arr"), batch_size=None)))
    assert single.numpy().tolist() == [0, 0]
    streamed = [b.numpy().tolist() for b in io.DataLoader(Stream(), batch_size=2)]
    assert streamed == [[[0], [1]], [[2], [3]], [[4]]]
    assert len(list(io.DataLoader(Stream(), batch_size=2, drop_last=True))) == 2


def test_shuffle_covers_every_index_once_and_follows_the_seed():
    pyir.seed(3)
    first = np.concatenate([b.numpy()[:, 0] for b in io.DataLoader(Rows("arr", 10),
                                                                  batch_size=3, shuffle=True)])
    pyir.seed(3)
    again = np.concatenate([b.numpy()[:, 0] for b in io.DataLoader(Rows("arr", 10),
                                                                  batch_size=3, shuffle=True)])
    assert sorted(first.tolist()) == list(range(10))
    np.testing.assert_array_equal(first, again)
    assert first.tolist() != list(range(10))


def test_tensor_compose_chain_concat_and_subsets():
    ds = io.TensorDataset([pyir.ones([4, 2]), pyir.to_tensor(np.arange(4))])
    row, label = ds[1]
    assert len(ds) == 4 and row.numpy().tolist() == [1, 1] and int(label) == 1
    xb, yb = next(iter(io.DataLoader(ds, batch_size=4)))
    assert xb.shape == [4, 2] and yb.numpy().tolist() == [0, 1, 2, 3]
    composed = io.ComposeDataset([Rows("arr"), Rows("str")])[1]
    assert composed[0].tolist() == [1, 1] and composed[1:] == ("s1", 1)
    assert [int(a[0]) for a in io.ChainDataset([Stream(), Stream()])] == [0, 1, 2, 3, 4] * 2
    concat = io.ConcatDataset([Rows("arr", 5), Rows("arr", 3)])
    assert len(concat) == 8 and concat[7].tolist() == [2, 2] and concat[-1].tolist() == [2, 2]
    with pytest.raises(IndexError):
        concat[8]
    pyir.seed(0)
    parts = io.random_split(Rows("arr", 10), [0.5, 0.3, 0.2])
    assert [len(p) for p in parts] == [5, 3, 2]
    seen = sorted(int(p[i][0]) for p in parts for i in range(len(p)))
    assert seen == list(range(10))
    odd = io.random_split(Rows("arr", 5), [0.5, 0.5])
    assert [len(p) for p in odd] == [3, 2]  # the leftover goes to the first
    assert io.Subset(Rows("arr"), [4, 0])[0].tolist() == [4, 4]


def test_samplers():
    assert list(io.SequenceSampler(range(4))) == [0, 1, 2, 3]
    assert list(io.BatchSampler(Rows("arr"), batch_size=2)) == [[0, 1], [2, 3], [4]]
    assert len(io.BatchSampler(Rows("arr"), batch_size=2)) == 3
    assert len(io.BatchSampler(sampler=range(5), batch_size=2, drop_last=True)) == 2
    pyir.seed(1)
    drawn = list(io.RandomSampler(range(4), replacement=True, num_samples=50))
    assert len(drawn) == 50 and set(drawn) <= {0, 1, 2, 3}
    assert sorted(io.RandomSampler(range(6))) == list(range(6))
    assert sorted(io.SubsetRandomSampler([3, 9, 5])) == [3, 5, 9]
    weighted = list(io.WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], 400))
    assert set(weighted) == {1, 3} and 0.65 < weighted.count(3) / 400 < 0.85
    assert sorted(io.WeightedRandomSampler([1, 1, 0, 1], 3, replacement=False)) == [0, 1, 3]


def test_distributed_batch_sampler_deals_like_paddle():
    # produced by Paddle 3.3.1 for 5 items, batch size 2
    single = io.DistributedBatchSampler(Rows("arr"), batch_size=2)
    assert list(single) == [[0, 1], [2, 3], [4]] and len(single) == 3
    assert (single.nranks, single.local_rank) == (1, 0)
    assert list(io.DistributedBatchSampler(Rows("arr"), 2, num_replicas=2, rank=1)) == \
        [[2, 3], [0]]
    assert list(io.DistributedBatchSampler(Rows("arr"), 2, num_replicas=2, rank=0)) == \
        [[0, 1], [4]]
    shuffled = io.DistributedBatchSampler(Rows("arr", 8), 4, shuffle=True)
    shuffled.set_epoch(5)
    order = [i for b in shuffled for i in b]
    expected = list(range(8))
    np.random.RandomState(5).shuffle(expected)
    assert order == expected


def test_static_mode_gives_arrays_and_feed_dicts():
    pyir.enable_static()
    x = pyir.static.data("x", [None, 2], "float32")
    n = pyir.static.data("n", [None], "int64")
    batch = next(iter(io.DataLoader(Rows("str"), batch_size=2)))
    assert isinstance(batch[1], np.ndarray)
    feeds = io.DataLoader(io.TensorDataset([np.ones((4, 2), np.float32), np.arange(4)]),
                          feed_list=[x, n], batch_size=2, return_list=False)
    first = next(iter(feeds()))
    assert sorted(first) == ["n", "x"] and first["x"].shape == (2, 2)
    out, = pyir.static.Executor().run(feed=first, fetch_list=[pyir.scale(x, 2.0)])
    np.testing.assert_array_equal(out, np.full((2, 2), 2.0))
    with pytest.raises(PyirError, match="a batch has 3 fields but feed_list has 2 inputs"):
        next(iter(io.DataLoader(Rows("tuple"), feed_list=[x, n], batch_size=2,
                                return_list=False)))


def test_custom_collate_workers_and_worker_info():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loader = io.DataLoader(Rows("arr"), batch_size=2, num_workers=4,
                               collate_fn=lambda samples: len(samples))
    assert list(loader) == [2, 2, 1]
    assert io.get_worker_info() is None
    assert all("num_workers is ignored" in str(w.message) for w in caught)


@pytest.mark.parametrize("make, message", [
    (lambda: io.DataLoader(Rows(), batch_size=0), "batch_size must be a positive int or None"),
    (lambda: io.DataLoader(Stream(), batch_size=2, shuffle=True), "cannot be shuffled"),
    (lambda: io.DataLoader(Rows(), batch_sampler=io.BatchSampler(Rows()), batch_size=4),
     "batch_sampler excludes batch_size"),
    (lambda: len(io.DataLoader(Stream())), "has no length"),
    (lambda: len(Stream()), "it has no length"),
    (lambda: io.TensorDataset([np.ones(3), np.ones(4)]), "same number of rows"),
    (lambda: io.ComposeDataset([Rows(n=2), Rows(n=3)]), "equally long"),
    (lambda: io.ChainDataset([Rows()]), "takes IterableDatasets"),
    (lambda: io.random_split(Rows(), [2, 2]), "add up to 4, but the dataset has 5"),
    (lambda: io.BatchSampler(), "exactly one of dataset and sampler"),
    (lambda: io.BatchSampler(Rows(), batch_size=-1), "batch_size must be a positive int"),
    (lambda: io.RandomSampler(Rows(), num_samples=3), "only used with replacement=True"),
    (lambda: io.WeightedRandomSampler([0, 0], 2), "not all zero"),
    (lambda: io.WeightedRandomSampler([1, 0], 2, replacement=False), "cannot draw 2 samples"),
    (lambda: io.DistributedBatchSampler(Rows(), 2, num_replicas=2, rank=2), "0 <= rank"),
    (lambda: io.default_collate_fn([object(), object()]), "cannot batch samples of type"),
    (lambda: io.DataLoader.from_generator(), "wrap the generator in an IterableDataset"),
])
def test_refusals(make, message):
    with pytest.raises(PyirError, match=message):
        make()
