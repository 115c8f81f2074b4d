"""A static CNN built from pyir.nn layers and trained with Adam gives Paddle's losses: the
same program under Paddle 3.3.1 (legacy static mode, same parameter values, same data)
produced the literal trajectory below."""

import numpy as np

import pyir
from pyir.executor import Executor

nn = pyir.nn

# Paddle 3.3.1: the loss of each of 20 Adam steps, rounded to 5 decimals
PADDLE_LOSSES = [1.43053, 1.30633, 1.22033, 1.16615, 1.12479, 1.08879, 1.05603, 1.02612,
                 0.99866, 0.97327, 0.94971, 0.92783, 0.90754, 0.88873, 0.87132, 0.85522,
                 0.84034, 0.8266, 0.81393, 0.80226]


def test_static_cnn_training_matches_paddle():
    main, startup = pyir.static.Program(), pyir.static.Program()
    with pyir.static.program_guard(main, startup):
        x = pyir.static.data("x", [-1, 1, 8, 8])
        y = pyir.static.data("y", [-1, 1], "int64")
        model = nn.Sequential(nn.Conv2D(1, 4, 3, padding=1), nn.BatchNorm2D(4), nn.ReLU(),
                              nn.MaxPool2D(2), nn.Flatten(), nn.Linear(64, 8), nn.ReLU(),
                              nn.LayerNorm(8), nn.Dropout(0.0), nn.Linear(8, 3))
        loss = nn.CrossEntropyLoss()(model(x), y)
        pyir.optimizer.Adam(learning_rate=0.01).minimize(loss)
    exe = Executor()
    exe.run(startup)
    rng = np.random.default_rng(0)
    state = {k: (rng.standard_normal(v.shape) * 0.3).astype("float32")
             for k, v in model.state_dict().items()}
    for k in state:
        if k.endswith("_variance"):
            state[k] = np.abs(state[k]) + 1
    model.set_state_dict(state)
    data = rng.standard_normal((16, 1, 8, 8)).astype("float32")
    labels = (data.mean((1, 2, 3)) > 0).astype("int64")[:, None]
    losses = [float(np.asarray(exe.run(main, feed={"x": data, "y": labels},
                                       fetch_list=[loss])[0]).ravel()[0]) for _ in range(20)]
    np.testing.assert_allclose(losses, PADDLE_LOSSES, atol=2e-5)
