"""The high-level API: paddle.Model wrapping a network, prepare() with an optimizer, a loss
and Accuracy, then fit / evaluate / predict over TensorDataset-style datasets."""

import numpy as np

import pyir as paddle
import pyir.nn as nn
from pyir.io import TensorDataset

rng = np.random.default_rng(55)
features = rng.standard_normal((40, 5)).astype("float32")
labels = (features[:, :1] + features[:, 1:2] > 0).astype("int64")

train_set = TensorDataset([paddle.to_tensor(features[:32]), paddle.to_tensor(labels[:32])])
eval_set = TensorDataset([paddle.to_tensor(features[32:]), paddle.to_tensor(labels[32:])])

net = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 2))
for _, p in net.named_parameters():
    p.set_value((rng.standard_normal(p.shape) * 0.3).astype("float32"))

model = paddle.Model(net, inputs=[paddle.static.InputSpec([None, 5], "float32", "x")],
                     labels=[paddle.static.InputSpec([None, 1], "int64", "label")])
model.prepare(optimizer=paddle.optimizer.Adam(learning_rate=0.01,
                                              parameters=model.parameters()),
              loss=nn.CrossEntropyLoss(),
              metrics=paddle.metric.Accuracy())
model.fit(train_set, epochs=3, batch_size=8, shuffle=False, verbose=0)
eval_result = model.evaluate(eval_set, batch_size=4, verbose=0)
pred = model.predict(eval_set, batch_size=4, stack_outputs=True, verbose=0)
batch_loss = model.train_batch([features[:8]], [labels[:8]])
print(eval_result)
results = {"eval_loss": np.array(eval_result["loss"]).ravel(), "eval_acc": eval_result["acc"],
           "pred": pred[0], "batch_loss": np.array(batch_loss).ravel(),
           "w": net[0].weight.numpy()}
