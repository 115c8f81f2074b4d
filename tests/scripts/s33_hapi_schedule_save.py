"""paddle.Model with an optimizer on a learning-rate schedule (fit steps it every batch),
fit with eval_data, Model.save / Model.load for training, save(training=False) for
inference, and train_batch / eval_batch / predict_batch by hand."""

import numpy as np

import pyir as paddle
import pyir.nn as nn
from pyir.static import InputSpec

rng = np.random.default_rng(123)
X = rng.standard_normal((24, 4)).astype("float32")
Y = (X[:, :2].sum(1, keepdims=True) > 0).astype("int64")


class Pairs(paddle.io.Dataset):
    def __init__(self, lo, hi):
        self.lo, self.hi = lo, hi

    def __getitem__(self, i):
        return X[self.lo + i], Y[self.lo + i]

    def __len__(self):
        return self.hi - self.lo


def build():
    net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
    r = np.random.default_rng(5)
    net.set_state_dict({k: (r.standard_normal(v.shape) * 0.4).astype("float32")
                        for k, v in net.state_dict().items()})
    model = paddle.Model(net, inputs=[InputSpec([None, 4], "float32", "x")],
                         labels=[InputSpec([None, 1], "int64", "y")])
    sched = paddle.optimizer.lr.StepDecay(learning_rate=0.1, step_size=2, gamma=0.5)
    opt = paddle.optimizer.Momentum(learning_rate=sched, momentum=0.9,
                                    parameters=model.parameters())
    model.prepare(opt, nn.CrossEntropyLoss(), paddle.metric.Accuracy())
    return model, sched, net


model, sched, net = build()
model.fit(Pairs(0, 16), eval_data=Pairs(16, 24), batch_size=4, epochs=2, shuffle=False,
          verbose=0)
lr_after_fit = sched.get_lr()
last_epoch = sched.last_epoch
model.save("ckpt/final")
model.save("infer/net", training=False)
ev = model.evaluate(Pairs(16, 24), batch_size=8, verbose=0)

model2, sched2, net2 = build()
model2.load("ckpt/final", reset_optimizer=True)  # weights only: fresh momentum
same_weights = np.allclose(net2[0].weight.numpy(), net[0].weight.numpy())
loss_a = model.train_batch([X[:4]], [Y[:4]])
loss_b = model2.train_batch([X[:4]], [Y[:4]])
eval_b = model2.eval_batch([X[4:8]], [Y[4:8]])
pred_b = model2.predict_batch([X[:3]])

results = {
    "lr_after_fit": lr_after_fit, "last_epoch": last_epoch, "eval_loss": np.array(ev["loss"]),
    "eval_acc": ev["acc"], "same_weights": same_weights,
    "loss_a": np.array(loss_a[0]).ravel(), "loss_b": np.array(loss_b[0]).ravel(),
    "eval_b": np.array(eval_b[0]).ravel(), "pred_b": pred_b[0],
    "w": net[0].weight.numpy(),
}
print(results)
