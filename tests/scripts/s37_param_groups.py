"""Per-parameter optimisation settings: optimizer parameter groups with their own
learning_rate and weight_decay, ParamAttr(learning_rate=..., trainable=False,
need_clip=False, regularizer=...), a frozen sublayer, and a
DistributedBatchSampler in a single process."""

import numpy as np

import pyir as paddle
import pyir.nn as nn
from pyir.io import DataLoader, DistributedBatchSampler, TensorDataset

rng = np.random.default_rng(37)
X = rng.standard_normal((12, 4)).astype("float32")
Y = rng.standard_normal((12, 1)).astype("float32")


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 6, weight_attr=paddle.ParamAttr(learning_rate=0.5),
                              bias_attr=paddle.ParamAttr(need_clip=False))
        self.frozen = nn.Linear(6, 6, weight_attr=paddle.ParamAttr(trainable=False))
        self.head = nn.Linear(6, 1, weight_attr=paddle.ParamAttr(
            regularizer=paddle.regularizer.L1Decay(0.05)))

    def forward(self, x):
        return self.head(nn.functional.relu(self.frozen(nn.functional.relu(self.body(x)))))


net = Net()
for _, p in net.named_parameters():
    p.set_value((rng.standard_normal(p.shape) * 0.4).astype("float32"))

opt = paddle.optimizer.Momentum(
    learning_rate=0.1, momentum=0.5,
    parameters=[{"params": net.body.parameters(), "learning_rate": 0.2,
                 "weight_decay": 0.01},
                {"params": net.head.parameters()}],
    weight_decay=paddle.regularizer.L2Decay(0.001),
    grad_clip=nn.ClipGradByGlobalNorm(0.5))

dataset = TensorDataset([paddle.to_tensor(X), paddle.to_tensor(Y)])
sampler = DistributedBatchSampler(dataset, batch_size=4, shuffle=False, drop_last=False)
loader = DataLoader(dataset, batch_sampler=sampler)
losses = []
for epoch in range(2):
    sampler.set_epoch(epoch)
    for x, y in loader:
        loss = nn.functional.mse_loss(net(x), y)
        loss.backward()
        opt.step()
        net.clear_gradients()
        losses.append(float(loss))

results = {
    "losses": np.array(losses), "body_w": net.body.weight.numpy(),
    "body_b": net.body.bias.numpy(), "frozen_w": net.frozen.weight.numpy(),
    "head_w": net.head.weight.numpy(), "frozen_stop": net.frozen.weight.stop_gradient,
    "n_batches": len(sampler),
}
print(losses)
