"""An MNIST-style convolutional classifier, trained eagerly: a Dataset and a DataLoader, a
Sequential of Conv2D / BatchNorm2D / MaxPool2D, Adam, CrossEntropyLoss and an accuracy metric."""

import numpy as np

import pyir as paddle
import pyir.nn as nn
from pyir.io import DataLoader, Dataset

paddle.seed(2024)


class RandomDigits(Dataset):
    """64 fake 1x8x8 'digits' of 4 classes: the class sets the brightness of one quadrant."""

    def __init__(self, n=64):
        rng = np.random.default_rng(0)
        self.labels = rng.integers(0, 4, size=n).astype("int64")
        self.images = rng.normal(0, 0.3, size=(n, 1, 8, 8)).astype("float32")
        for i, c in enumerate(self.labels):
            r, q = divmod(int(c), 2)
            self.images[i, 0, r * 4:r * 4 + 4, q * 4:q * 4 + 4] += 1.0

    def __getitem__(self, idx):
        return self.images[idx], self.labels[idx:idx + 1]

    def __len__(self):
        return len(self.labels)


model = nn.Sequential(
    nn.Conv2D(1, 4, kernel_size=3, padding=1, bias_attr=False),  # BatchNorm follows
    nn.BatchNorm2D(4),
    nn.ReLU(),
    nn.MaxPool2D(kernel_size=2, stride=2),
    nn.Conv2D(4, 8, kernel_size=3, padding=1),
    nn.ReLU(),
    nn.MaxPool2D(2),
    nn.Flatten(),
    nn.Linear(8 * 2 * 2, 4),
)

# deterministic weights, the same in any framework (BatchNorm's running mean and variance
# are parameters too, but they take no gradient: leave them at 0 and 1)
rng = np.random.default_rng(1)
for name, param in model.named_parameters():
    if not param.stop_gradient:
        param.set_value((rng.standard_normal(param.shape) * 0.3).astype("float32"))

loader = DataLoader(RandomDigits(), batch_size=16, shuffle=False, drop_last=True)
optimizer = paddle.optimizer.Adam(learning_rate=0.01, parameters=model.parameters())
loss_fn = nn.CrossEntropyLoss()
metric = paddle.metric.Accuracy()

losses, accs = [], []
for epoch in range(3):
    model.train()
    metric.reset()
    for batch_id, (images, labels) in enumerate(loader):
        logits = model(images)
        loss = loss_fn(logits, labels)
        loss.backward()
        optimizer.step()
        optimizer.clear_grad()
        acc = paddle.metric.accuracy(logits, labels)
        correct = metric.compute(logits, labels)
        metric.update(correct)
        losses.append(float(loss))
        accs.append(float(acc))
    print(f"epoch {epoch}: loss {losses[-1]:.5f} acc {metric.accumulate():.4f}")

model.eval()
with paddle.no_grad():
    probs = nn.functional.softmax(model(paddle.to_tensor(RandomDigits().images[:8])))

results = {
    "losses": np.array(losses),
    "batch_acc": np.array(accs),
    "epoch_acc": metric.accumulate(),
    "bn_mean": model[1]._mean.numpy(),
    "bn_var": model[1]._variance.numpy(),
    "final_weight": model[-1].weight.numpy(),
    "probs": probs.numpy(),
}
