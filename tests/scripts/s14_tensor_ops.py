"""Tensor manipulation the way data-processing code uses it: einsum, gather/gather_nd,
scatter, topk, argsort, masked_select, where, cumsum, index_select, split/concat/stack,
boolean and fancy indexing, in-place updates, and a gradient through a few of them."""

import numpy as np

import pyir as paddle

rng = np.random.default_rng(5)
a = paddle.to_tensor(rng.standard_normal((3, 4)).astype("float32"))
b = paddle.to_tensor(rng.standard_normal((4, 5)).astype("float32"))
batch = paddle.to_tensor(rng.standard_normal((2, 3, 4)).astype("float32"))
idx = paddle.to_tensor(np.array([2, 0, 2], dtype="int64"))

r = {}
r["einsum_mm"] = paddle.einsum("ij,jk->ik", a, b)
r["einsum_batch"] = paddle.einsum("bij,kj->bik", batch, a)
r["einsum_trace"] = paddle.einsum("ii->", paddle.matmul(a, a.T))
r["gather"] = paddle.gather(a, idx, axis=0)
r["gather_nd"] = paddle.gather_nd(batch, paddle.to_tensor(np.array([[0, 1], [1, 2]])))
r["scatter"] = paddle.scatter(paddle.zeros([4, 4]), paddle.to_tensor(np.array([1, 3])),
                              a[:2], overwrite=True)
r["scatter_add"] = paddle.scatter(paddle.ones([3, 4]), idx, a, overwrite=False)
vals, inds = paddle.topk(a, k=2, axis=1)
r["topk_v"], r["topk_i"] = vals, inds
r["argsort"] = paddle.argsort(a, axis=-1, descending=True)
r["sort"] = paddle.sort(a, axis=0)
r["masked"] = paddle.masked_select(a, a > 0)
r["where"] = paddle.where(a > 0, a, paddle.zeros_like(a))
r["where_idx"] = paddle.nonzero(a > 0.5)
r["cumsum"] = paddle.cumsum(a, axis=1)
r["cumprod"] = paddle.cumprod(a, dim=0)
r["index_select"] = paddle.index_select(b, idx, axis=1)
parts = paddle.split(b, [2, 3], axis=1)
r["split_cat"] = paddle.concat([parts[1], parts[0]], axis=1)
r["stack"] = paddle.stack([a, a * 2], axis=1)
r["chunk"] = paddle.chunk(batch, 2, axis=-1)[1]
r["fancy"] = a[[0, 2], 1:]
r["bool_idx"] = batch[batch.sum(-1) > 0]
r["take_along"] = paddle.take_along_axis(a, inds, axis=1)
r["put_along"] = paddle.put_along_axis(a, inds, 0.0, axis=1)
r["unique"] = paddle.unique(paddle.to_tensor(np.array([3, 1, 3, 2, 1])))
r["one_hot"] = paddle.nn.functional.one_hot(idx, num_classes=4)
r["tile"] = paddle.tile(a[:1], [2, 1])
r["expand"] = paddle.expand(a[:, :1], [3, 4])
r["flip"] = paddle.flip(a, axis=[0])
r["roll"] = paddle.roll(a, shifts=1, axis=1)
r["clip"] = paddle.clip(a, -0.5, 0.5)
r["amax"] = a.max(axis=0)
r["logsumexp"] = paddle.logsumexp(a, axis=1)
r["std"] = paddle.std(a, axis=1)
r["norm"] = paddle.linalg.norm(a, p=2, axis=1)

c = a.clone()
c[0, :] = 1.0
c[:, 2] += 5.0
r["setitem"] = c

# a gradient through gather, topk values, cumsum and einsum
x = paddle.to_tensor(rng.standard_normal((3, 4)).astype("float32"), stop_gradient=False)
y = paddle.einsum("ij,jk->ik", paddle.cumsum(x, axis=1), b)
loss = paddle.topk(y, k=2, axis=1)[0].sum() + paddle.gather(x, idx).pow(2).sum()
loss.backward()
r["grad"] = x.grad

results = {k: v.numpy() if hasattr(v, "numpy") else v for k, v in r.items()}
for k, v in results.items():
    print(k, np.round(v, 3).tolist() if np.asarray(v).size < 6 else np.asarray(v).shape)
