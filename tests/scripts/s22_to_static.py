"""paddle.jit.to_static the way deployment code uses it: a decorated forward with an
InputSpec, a to_static-wrapped function, jit.save of the converted layer and jit.load, and
a layer saved with two inputs."""

import numpy as np

import pyir as paddle
import pyir.nn as nn
from pyir.static import InputSpec


class Scorer(nn.Layer):
    def __init__(self):
        super().__init__()
        self.query = nn.Linear(6, 4)
        self.key = nn.Linear(6, 4)

    @paddle.jit.to_static(input_spec=[InputSpec([None, 6], "float32", name="q"),
                                      InputSpec([None, 6], "float32", name="k")])
    def forward(self, q, k):
        scores = paddle.matmul(self.query(q), self.key(k), transpose_y=True)
        return nn.functional.softmax(scores / 2.0, axis=-1)


@paddle.jit.to_static
def normalize(x):
    mean = paddle.mean(x, axis=-1, keepdim=True)
    std = paddle.std(x, axis=-1, keepdim=True)
    return (x - mean) / (std + 1e-5)


rng = np.random.default_rng(17)
net = Scorer()
for _, p in net.named_parameters():
    p.set_value(rng.uniform(-0.5, 0.5, p.shape).astype("float32"))
q = rng.standard_normal((3, 6)).astype("float32")
k = rng.standard_normal((5, 6)).astype("float32")
net.eval()
direct = net(paddle.to_tensor(q), paddle.to_tensor(k))
paddle.jit.save(net, "export/scorer")
loaded = paddle.jit.load("export/scorer")
reloaded = loaded(paddle.to_tensor(q), paddle.to_tensor(k))
np.savez("export/feed.npz", q=q, k=k)

results = {
    "direct": direct.numpy(),
    "reloaded": reloaded.numpy(),
    "normalized": normalize(paddle.to_tensor(q)).numpy(),
}
print(results)
