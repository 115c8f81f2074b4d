"""Checkpointing: train 3 steps, paddle.save the model and optimizer state_dicts, build a new
model and optimizer, paddle.load them and train 3 more steps; the losses must equal those of
an uninterrupted 6-step run."""

import numpy as np

import pyir as paddle
import pyir.nn as nn

rng = np.random.default_rng(21)
X = rng.standard_normal((20, 4)).astype("float32")
Y = (X @ np.array([[1.0], [-2.0], [0.5], [3.0]], dtype="float32")).astype("float32")
INIT = {}


def make_model():
    model = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
    if not INIT:
        r = np.random.default_rng(0)
        INIT.update({k: (r.standard_normal(v.shape) * 0.3).astype("float32")
                     for k, v in model.state_dict().items()})
    model.set_state_dict(INIT)
    scheduler = paddle.optimizer.lr.ExponentialDecay(learning_rate=0.05, gamma=0.9)
    opt = paddle.optimizer.Adam(learning_rate=scheduler, parameters=model.parameters())
    return model, opt, scheduler


def train(model, opt, scheduler, steps):
    losses = []
    for _ in range(steps):
        loss = nn.functional.mse_loss(model(paddle.to_tensor(X)), paddle.to_tensor(Y))
        loss.backward()
        opt.step()
        opt.clear_grad()
        scheduler.step()
        losses.append(float(loss))
    return losses


# Each run gets a fresh name space, as a new process would: the optimizer's state is keyed by
# parameter and accumulator names.
with paddle.utils.unique_name.guard():
    model, opt, sched = make_model()
    straight = train(model, opt, sched, 6)

with paddle.utils.unique_name.guard():
    model, opt, sched = make_model()
    first = train(model, opt, sched, 3)
    paddle.save(model.state_dict(), "ckpt/model.pdparams")
    paddle.save(opt.state_dict(), "ckpt/model.pdopt")

with paddle.utils.unique_name.guard():
    model2, opt2, sched2 = make_model()
    model2.set_state_dict(paddle.load("ckpt/model.pdparams"))
    opt_state = paddle.load("ckpt/model.pdopt")
    opt2.set_state_dict(opt_state)
    second = train(model2, opt2, sched2, 3)
print(straight)
print(first + second)

results = {
    "straight": np.array(straight),
    "resumed": np.array(first + second),
    "opt_keys": np.array(sorted(opt_state.keys())),
    "lr_after": opt2.get_lr(),
    "final": model2[2].weight.numpy(),
}
