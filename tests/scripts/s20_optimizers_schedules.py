"""Every common optimizer on the same small regression (SGD, Momentum, Adagrad, RMSProp,
Adadelta, Adamax, Adam with amsgrad-free defaults, AdamW with lr_ratio-free defaults, Lamb),
and the schedulers users pick (MultiStepDecay, LambdaDecay, PolynomialDecay, NoamDecay,
OneCycleLR, CyclicLR, ReduceOnPlateau, NaturalExpDecay, InverseTimeDecay), stepped per batch
or per epoch; set_lr on a plain float learning rate."""

import numpy as np

import pyir as paddle

rng = np.random.default_rng(31)
X = paddle.to_tensor(rng.standard_normal((16, 4)).astype("float32"))
Y = paddle.to_tensor(rng.standard_normal((16, 2)).astype("float32"))
W0 = rng.standard_normal((4, 2)).astype("float32") * 0.5


def train(make_opt, steps=5, sched=None, plateau=False):
    layer = paddle.nn.Linear(4, 2)
    layer.weight.set_value(W0)
    layer.bias.set_value(np.zeros(2, "float32"))
    opt = make_opt(layer.parameters())
    losses = []
    for _ in range(steps):
        loss = paddle.nn.functional.mse_loss(layer(X), Y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        if sched is not None:
            sched.step(loss) if plateau else sched.step()
        losses.append(float(loss))
    return np.array(losses + [float(layer.weight.sum())])


O = paddle.optimizer
results = {
    "sgd": train(lambda p: O.SGD(0.1, parameters=p)),
    "momentum": train(lambda p: O.Momentum(0.05, momentum=0.9, use_nesterov=True, parameters=p)),
    "adagrad": train(lambda p: O.Adagrad(0.2, parameters=p)),
    "rmsprop": train(lambda p: O.RMSProp(0.02, rho=0.9, momentum=0.1, centered=True,
                                         parameters=p)),
    "adadelta": train(lambda p: O.Adadelta(1.0, rho=0.9, parameters=p)),
    "adamax": train(lambda p: O.Adamax(0.1, parameters=p)),
    "adam": train(lambda p: O.Adam(0.1, beta1=0.8, beta2=0.95, parameters=p)),
    "adamw": train(lambda p: O.AdamW(0.1, weight_decay=0.1, parameters=p)),
    "lamb": train(lambda p: O.Lamb(0.1, lamb_weight_decay=0.01, parameters=p)),
}

lr = O.lr
schedules = {
    "multistep": lambda: lr.MultiStepDecay(0.1, milestones=[2, 4], gamma=0.3),
    "lambda": lambda: lr.LambdaDecay(0.1, lr_lambda=lambda epoch: 0.9 ** epoch),
    "poly": lambda: lr.PolynomialDecay(0.1, decay_steps=4, end_lr=0.01, power=2.0),
    "poly_cycle": lambda: lr.PolynomialDecay(0.1, decay_steps=2, end_lr=0.0, cycle=True),
    "noam": lambda: lr.NoamDecay(d_model=16, warmup_steps=3, learning_rate=1.0),
    "onecycle": lambda: lr.OneCycleLR(max_learning_rate=0.2, total_steps=6),
    "cyclic": lambda: lr.CyclicLR(base_learning_rate=0.01, max_learning_rate=0.1,
                                  step_size_up=2),
    "natural_exp": lambda: lr.NaturalExpDecay(0.1, gamma=0.5),
    "inverse_time": lambda: lr.InverseTimeDecay(0.1, gamma=0.5),
    "plateau": lambda: lr.ReduceOnPlateau(0.1, factor=0.5, patience=0, threshold=0.5),
}
for name, make in schedules.items():
    sched = make()
    results["lr_" + name] = train(lambda p: O.SGD(sched, parameters=p), steps=6, sched=sched,
                                  plateau=name == "plateau")
    results["lrs_" + name] = np.array([sched.last_lr, sched.last_epoch])

opt = O.SGD(0.1, parameters=[paddle.create_parameter([2], "float32")])
opt.set_lr(0.05)
results["set_lr"] = opt.get_lr()
print({k: np.round(v, 4).tolist() for k, v in results.items()})
