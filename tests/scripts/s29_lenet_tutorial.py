"""The MNIST tutorial shape with fake data: a Dataset applying vision transforms
(Normalize on CHW uint8 images, then ToTensor on HWC ones), paddle.vision.models.LeNet,
and the high-level Model with Adam, CrossEntropyLoss and Accuracy(topk=(1, 2))."""

import numpy as np

import pyir as paddle
from pyir.io import Dataset
from pyir.vision.models import LeNet
from pyir.vision.transforms import Compose, Normalize, ToTensor

rng = np.random.default_rng(28)
N = 48
labels = rng.integers(0, 10, N).astype("int64")
images = rng.integers(0, 60, (N, 1, 28, 28)).astype("uint8")
for i, c in enumerate(labels):  # each class lights up its own band of rows
    images[i, 0, 2 * c:2 * c + 4, :] += 180


class FakeMNIST(Dataset):
    def __init__(self, start, stop, transform):
        self.idx = list(range(start, stop))
        self.transform = transform

    def __getitem__(self, i):
        k = self.idx[i]
        return self.transform(images[k]).astype("float32"), labels[k:k + 1]

    def __len__(self):
        return len(self.idx)


transform = Normalize(mean=[127.5], std=[127.5], data_format="CHW")
train_set, test_set = FakeMNIST(0, 40, transform), FakeMNIST(40, N, transform)

lenet = LeNet(num_classes=10)
lenet.set_state_dict({k: (rng.standard_normal(v.shape) * 0.1).astype("float32")
                      for k, v in lenet.state_dict().items()})
model = paddle.Model(lenet)
model.prepare(paddle.optimizer.Adam(learning_rate=0.002, parameters=model.parameters()),
              paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy(topk=(1, 2)))
model.fit(train_set, epochs=2, batch_size=10, shuffle=False, verbose=0)
result = model.evaluate(test_set, batch_size=4, verbose=0)
probs = model.predict(test_set, batch_size=8, stack_outputs=True, verbose=0)[0]

hwc = Compose([ToTensor(), Normalize(mean=0.5, std=0.5)])
sample = hwc(images[0].transpose(1, 2, 0))
results = {
    "eval_loss": np.array(result["loss"]), "acc_top1": result["acc_top1"],
    "acc_top2": result["acc_top2"], "probs": probs,
    "keys": np.array(list(lenet.state_dict().keys())),
    "hwc_sample": sample.numpy()[:, 10:14, :4], "hwc_shape": np.array(sample.shape),
    "fc_w": lenet.fc[2].weight.numpy(),
}
print(result)
