"""Data loading the ways scripts do it: a map-style Dataset returning dicts, a custom
collate_fn, an IterableDataset, TensorDataset, Subset and ComposeDataset, a BatchSampler over
a SequenceSampler, drop_last, and DataLoader over each; a tiny model trained from the dict
batches."""

import numpy as np

import pyir as paddle
from pyir.io import (BatchSampler, ComposeDataset, DataLoader, Dataset, IterableDataset,
                     SequenceSampler, Subset, TensorDataset)

rng = np.random.default_rng(13)
X = rng.standard_normal((22, 3)).astype("float32")
Y = (X.sum(1) > 0).astype("int64")


class DictDataset(Dataset):
    def __len__(self):
        return len(X)

    def __getitem__(self, i):
        return {"feat": X[i], "label": Y[i], "index": i}


class Stream(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        for i in range(self.n):
            yield X[i], np.array([Y[i]])


def pad_collate(batch):
    # sequences of different lengths padded to the longest, with their lengths
    longest = max(len(s) for s in batch)
    out = np.zeros((len(batch), longest), dtype="float32")
    for row, s in enumerate(batch):
        out[row, :len(s)] = s
    return paddle.to_tensor(out), paddle.to_tensor(np.array([len(s) for s in batch]))


results = {}
# dict samples are collated field by field
batches = list(DataLoader(DictDataset(), batch_size=8, shuffle=False))
results["dict_keys"] = np.array(sorted(batches[0].keys()))
results["dict_shapes"] = np.array([b["feat"].shape[0] for b in batches])
results["dict_index"] = batches[-1]["index"].numpy()

model = paddle.nn.Linear(3, 2)
model.weight.set_value(np.full((3, 2), 0.2, "float32"))
model.bias.set_value(np.zeros(2, "float32"))
opt = paddle.optimizer.SGD(learning_rate=0.5, parameters=model.parameters())
losses = []
for batch in DataLoader(DictDataset(), batch_size=8, shuffle=False, drop_last=True):
    loss = paddle.nn.functional.cross_entropy(model(batch["feat"]), batch["label"])
    loss.backward()
    opt.step()
    opt.clear_grad()
    losses.append(float(loss))
results["losses"] = np.array(losses)

seqs = [np.arange(n, dtype="float32") + 1 for n in (3, 1, 4, 2, 5)]
padded = [(p.numpy(), n.numpy()) for p, n in DataLoader(seqs, batch_size=2,
                                                        collate_fn=pad_collate)]
results["padded_last"] = padded[-1][0]
results["padded_first"] = padded[0][0]
results["lengths"] = np.concatenate([n for _, n in padded])

stream = [batch for batch in DataLoader(Stream(10), batch_size=4)]  # no len()
results["stream_sizes"] = np.array([x.shape[0] for x, _ in stream])
results["stream_label_shape"] = np.array(stream[0][1].shape)

tds = TensorDataset([paddle.to_tensor(X), paddle.to_tensor(Y)])
sub = Subset(tds, indices=[1, 3, 5, 7])
results["subset"] = np.stack([sub[i][0].numpy() for i in range(len(sub))])
both = ComposeDataset([DictDataset(), tds])
results["compose_len"] = len(both)
results["compose_fields"] = len(both[0])

sampler = BatchSampler(sampler=SequenceSampler(tds), batch_size=5, drop_last=False)
results["batch_indices"] = np.concatenate([np.array(b) for b in sampler])
results["n_batches"] = len(sampler)
loader = DataLoader(tds, batch_sampler=BatchSampler(tds, batch_size=6, drop_last=True))
results["sampler_batches"] = np.array([x.shape[0] for x, _ in loader])
results["len_loader"] = len(loader)
print(results)
