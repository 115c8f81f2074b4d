"""LeNet batch-32 training step (fwd + bwd + SGD) in Paddle's static executor, for
bench_train.py's LENETPD row: the network, loss and optimizer of its LENET row, built with
Paddle's own API. Run by Paddle's Python, never beside pyir (the two register the same
protobuf package); prints {"paddle": CPU seconds per step} (best block of 10 steps).

    /path/to/paddle-venv/bin/python benchmarks/paddle_lenet_train.py [CALLS]
"""

import os, sys, time, json
os.environ.setdefault("FLAGS_enable_pir_api", "0")
for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(v, "1")
import numpy as np
import paddle  # the Paddle venv only: never beside pyir
paddle.enable_static()
B = 32
main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    x = paddle.static.data("x", [B, 1, 28, 28], "float32")
    y = paddle.static.data("y", [B, 1], "int64")
    h = paddle.static.nn.conv2d(x, 6, 3, padding=1, act="relu")
    h = paddle.nn.functional.max_pool2d(h, 2, 2)
    h = paddle.static.nn.conv2d(h, 16, 5, act="relu")
    h = paddle.nn.functional.max_pool2d(h, 2, 2)
    h = paddle.reshape(h, [B, 400])
    for size in (120, 84):
        h = paddle.static.nn.fc(h, size)
    logits = paddle.static.nn.fc(h, 10)
    loss = paddle.nn.functional.cross_entropy(logits, y)
    paddle.optimizer.SGD(learning_rate=0.01).minimize(loss)
exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
rng = np.random.default_rng(0)
feed = {"x": rng.standard_normal((B, 1, 28, 28)).astype(np.float32),
        "y": rng.integers(0, 10, (B, 1)).astype(np.int64)}
calls = int(sys.argv[1]) if len(sys.argv) > 1 else 200
for _ in range(10):
    exe.run(main, feed=feed, fetch_list=[loss])
best = float("inf")
for _ in range(calls // 10):
    t = time.process_time()
    for _ in range(10):
        exe.run(main, feed=feed, fetch_list=[loss])
    best = min(best, (time.process_time() - t) / 10)
print(json.dumps({"paddle": best}))
