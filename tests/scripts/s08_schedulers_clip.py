"""Learning-rate schedules and gradient clipping: LinearWarmup around StepDecay with
Momentum and L2 weight decay, CosineAnnealingDecay with AdamW, ClipGradByGlobalNorm on both."""

import numpy as np

import pyir as paddle
import pyir.nn as nn

rng = np.random.default_rng(9)
x = paddle.to_tensor(rng.standard_normal((32, 6)).astype("float32"))
y = paddle.to_tensor(rng.integers(0, 4, size=(32,)).astype("int64"))


def mlp(seed):
    net = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Dropout(p=0.0), nn.Linear(12, 4))
    r = np.random.default_rng(seed)
    for _, p in net.named_parameters():
        p.set_value((r.standard_normal(p.shape) * 0.5).astype("float32"))
    return net


def run(net, opt, sched, steps=8):
    losses, lrs = [], []
    for _ in range(steps):
        loss = nn.functional.cross_entropy(net(x), y)
        loss.backward()
        lrs.append(opt.get_lr())
        opt.step()
        opt.clear_grad()
        sched.step()
        losses.append(float(loss))
    return np.array(losses), np.array(lrs)


net_a = mlp(1)
step_decay = paddle.optimizer.lr.StepDecay(learning_rate=0.2, step_size=3, gamma=0.5)
warmup = paddle.optimizer.lr.LinearWarmup(step_decay, warmup_steps=3, start_lr=0.0, end_lr=0.2)
opt_a = paddle.optimizer.Momentum(learning_rate=warmup, momentum=0.9,
                                  parameters=net_a.parameters(),
                                  weight_decay=paddle.regularizer.L2Decay(1e-3),
                                  grad_clip=nn.ClipGradByGlobalNorm(clip_norm=1.0))
loss_a, lr_a = run(net_a, opt_a, warmup)

net_b = mlp(2)
cosine = paddle.optimizer.lr.CosineAnnealingDecay(learning_rate=0.05, T_max=5)
opt_b = paddle.optimizer.AdamW(learning_rate=cosine, parameters=net_b.parameters(),
                               weight_decay=0.05, grad_clip=nn.ClipGradByGlobalNorm(0.5))
loss_b, lr_b = run(net_b, opt_b, cosine)

print(loss_a, lr_a)
print(loss_b, lr_b)
results = {"loss_a": loss_a, "lr_a": lr_a, "loss_b": loss_b, "lr_b": lr_b,
           "w_a": net_a[0].weight.numpy(), "w_b": net_b[3].weight.numpy()}
