"""An ordinary eager training loop: DataLoader over a TensorDataset, AdamW with a cosine
schedule and gradient clipping, cross-entropy, an Accuracy metric per epoch; the losses,
accuracies and final parameters are those Paddle 3.3.1 gives for the same script."""

from __future__ import annotations

import numpy as np

import pyir as paddle
from pyir import metric
from pyir.io import DataLoader, TensorDataset

# Produced by Paddle 3.3.1 running this loop: the loss of each batch and, after each epoch,
# the epoch's accuracy; then the final parameters.
HISTORY = [1.2455912828445435, 1.0136958360671997, 1.0657835006713867, 0.25,
           0.4672982096672058, 0.5566960573196411, 0.6678318977355957, 0.7916666666666666,
           0.30526840686798096, 0.4128759503364563, 0.5114606022834778, 0.9166666666666666]
FINAL_W = [[-0.6716972589492798, 0.4579352140426636, 0.6862133741378784],
           [0.5307120084762573, -0.8771992325782776, 0.7715907692909241],
           [0.526351809501648, -0.32570746541023254, -0.21165335178375244],
           [-0.8216792941093445, 0.16422979533672333, 1.039426565170288]]
FINAL_B = [0.27810055017471313, -0.7827215790748596, 0.20375266671180725]


def test_dataloader_adamw_cosine_metric_loop_matches_paddle():
    paddle.disable_static()
    rng = np.random.default_rng(11)
    x = rng.standard_normal((24, 4)).astype(np.float32)
    y = (x @ rng.standard_normal((4, 3))).argmax(1).astype(np.int64).reshape(-1, 1)
    w = paddle.to_tensor(rng.standard_normal((4, 3)).astype(np.float32) * 0.1,
                         stop_gradient=False)
    b = paddle.to_tensor(np.zeros(3, np.float32), stop_gradient=False)
    w.name, b.name = "w", "b"
    scheduler = paddle.optimizer.lr.CosineAnnealingDecay(0.2, T_max=3)
    opt = paddle.optimizer.AdamW(scheduler, parameters=[w, b], weight_decay=0.05,
                                 grad_clip=paddle.nn.ClipGradByNorm(1.0))
    loader = DataLoader(TensorDataset([paddle.to_tensor(x), paddle.to_tensor(y)]), batch_size=8)
    accuracy = metric.Accuracy()
    history = []
    for _ in range(3):
        accuracy.reset()
        for xb, yb in loader:
            logits = paddle.matmul(xb, w) + b
            loss = paddle.nn.functional.cross_entropy(logits, yb)
            loss.backward()
            opt.step()
            opt.clear_grad()
            accuracy.update(accuracy.compute(logits, yb))
            history.append(float(loss))
        scheduler.step()
        history.append(accuracy.accumulate())
    np.testing.assert_allclose(history, HISTORY, rtol=1e-5)
    np.testing.assert_allclose(w.numpy(), FINAL_W, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b.numpy(), FINAL_B, rtol=1e-5, atol=1e-6)
