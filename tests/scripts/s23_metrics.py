"""paddle.metric over an evaluation loop: Accuracy with topk=(1, 2), Precision, Recall and
Auc updated batch by batch from numpy, plus the functional paddle.metric.accuracy."""

import numpy as np

import pyir as paddle

rng = np.random.default_rng(61)
logits = rng.standard_normal((30, 4)).astype("float32")
labels = rng.integers(0, 4, (30, 1)).astype("int64")
scores = rng.uniform(0, 1, (30,)).astype("float32")
binary = (rng.uniform(0, 1, (30,)) < scores).astype("int64")

acc = paddle.metric.Accuracy(topk=(1, 2), name="acc")
precision = paddle.metric.Precision()
recall = paddle.metric.Recall()
auc = paddle.metric.Auc(num_thresholds=255)
per_batch = []
for start in range(0, 30, 8):
    lo, lb = logits[start:start + 8], labels[start:start + 8]
    correct = acc.compute(paddle.to_tensor(lo), paddle.to_tensor(lb))
    per_batch.append(acc.update(correct))
    s, b = scores[start:start + 8], binary[start:start + 8]
    precision.update(s, b)
    recall.update(s, b)
    auc.update(np.stack([1 - s, s], axis=1), b.reshape(-1, 1))

results = {
    "acc": np.array(acc.accumulate()),
    "acc_names": np.array(acc.name()),
    "per_batch": np.array(per_batch),
    "precision": precision.accumulate(),
    "recall": recall.accumulate(),
    "auc": auc.accumulate(),
    "top1": paddle.metric.accuracy(paddle.to_tensor(logits), paddle.to_tensor(labels)).numpy(),
    "top3": paddle.metric.accuracy(paddle.to_tensor(logits), paddle.to_tensor(labels),
                                   k=3).numpy(),
    "names": np.array([precision.name(), recall.name(), auc.name()]),
}
acc.reset()
results["after_reset"] = np.array(acc.accumulate())
print(results)
