# ruff: noqa: E402
"""Train seed 003's network (4 x [fc 200 + py_func tanh with its Python backward] + fc 10
softmax + CrossEntropyLoss) with SGD on a small synthetic classification set.

In process:
    python samples/train_seed003.py                 # prints the loss falling
From files, in a fresh process (the same steps through the CLI):
    python samples/train_seed003.py --save out/      # out/train.pb + .pdiparams + data.npz
    pyir run out/train.pb --path samples --feed out/data.npz --steps 100 --save-params

The callables are seed 003's tanh / tanh_grad, registered in samples/seed_pyfuncs.py so the
saved program can name them. The seed's debug py_func (print every hidden layer) is left out:
it would print four arrays per training step. As in the seed, the loss applies softmax to the
already-softmaxed prediction, so its floor is about 1.46 rather than 0 (log 10 = 2.30 at start).
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pyir as paddle
from pyir.executor import Scope
from pyir.training import run_steps

from seed_pyfuncs import tanh, tanh_grad

CLASSES, FEATURES = 4, 4


def make_data(n: int = 256, seed: int = 0) -> dict:
    """Gaussian blobs: class k is centred on a fixed random point; labels are int64 [n, 1]."""
    rng = np.random.default_rng(seed)
    centres = rng.uniform(-1.0, 1.0, size=(CLASSES, FEATURES))
    y = rng.integers(0, CLASSES, size=(n, 1))
    x = centres[y[:, 0]] + 0.15 * rng.standard_normal((n, FEATURES))
    return {"x": x.astype("float32"), "y": y.astype("int64")}


def simple_net(img, label):
    """Seed 003's network, unchanged but for the debug py_func."""
    hidden = img
    block = paddle.static.default_main_program().current_block()
    for idx in range(4):
        hidden = paddle.static.nn.fc(hidden, size=200)
        new_hidden = block.create_var(name=f"hidden_{idx}", dtype=hidden.dtype,
                                      shape=hidden.shape)
        hidden = paddle.static.py_func(func=tanh, x=hidden, out=new_hidden,
                                       backward_func=tanh_grad,
                                       skip_vars_in_backward_input=hidden)
    prediction = paddle.static.nn.fc(hidden, size=10, activation="softmax")
    return paddle.nn.loss.CrossEntropyLoss()(prediction, label)


def build(learning_rate: float = 0.5):
    """The training program (forward + backward + sgd) and its startup program."""
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data(name="x", shape=[None, FEATURES], dtype="float32")
        y = paddle.static.data(name="y", shape=[None, 1], dtype="int64")
        loss = simple_net(x, y)
        paddle.optimizer.SGD(learning_rate=learning_rate).minimize(loss)
    return main, startup, loss


def train(steps: int = 60, seed: int = 0, batch_size: int = 64):
    """Train in process; returns (losses, program, scope)."""
    paddle.seed(seed)
    main, startup, loss = build()
    scope = Scope()
    paddle.static.Executor().run(startup, scope=scope)
    result = run_steps(main, make_data(seed=seed), steps, scope, loss=loss.name,
                       batch_size=batch_size)
    return result.losses, main, scope, loss


def save(out_dir: str, seed: int = 0) -> None:
    """Write train.pb (+ train.pdiparams, initial parameters) and data.npz to `out_dir`."""
    from pyir.files import save_training_program as save_program

    paddle.seed(seed)
    main, startup, loss = build()
    scope = Scope()
    paddle.static.Executor().run(startup, scope=scope)
    os.makedirs(out_dir, exist_ok=True)
    save_program(os.path.join(out_dir, "train.pb"), main, ["x", "y"], [loss.name], scope)
    np.savez(os.path.join(out_dir, "data.npz"), **make_data(n=64, seed=seed))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--save":
        save(sys.argv[2])
        print(f"wrote {sys.argv[2]}/train.pb, train.pdiparams, data.npz")
    else:
        losses, *_ = train()
        for i in range(0, len(losses), 10):
            print(f"step {i:3d}  loss {losses[i]:.4f}")
        print(f"loss {losses[0]:.4f} -> {losses[-1]:.4f}")
