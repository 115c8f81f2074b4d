"""Linear regression on a noisy line with several paddle.nn.functional losses (mse, l1,
smooth_l1, huber-like) and plain SGD on parameters created with create_parameter."""

import numpy as np

import pyir as paddle
import pyir.nn.functional as F

rng = np.random.default_rng(100)
x_np = rng.uniform(-2, 2, (50, 1)).astype("float32")
y_np = (3.0 * x_np - 1.0 + rng.normal(0, 0.2, (50, 1))).astype("float32")
x, y = paddle.to_tensor(x_np), paddle.to_tensor(y_np)

results = {}
for loss_name, loss_fn in [("mse", F.mse_loss), ("l1", F.l1_loss),
                           ("smooth_l1", lambda a, b: F.smooth_l1_loss(a, b, delta=0.5)),
                           ("sum_mse", lambda a, b: F.mse_loss(a, b, reduction="sum") / 50)]:
    w = paddle.create_parameter([1, 1], "float32",
                                default_initializer=paddle.nn.initializer.Constant(0.5))
    b = paddle.create_parameter([1], "float32", is_bias=True)
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=[w, b])
    losses = []
    for epoch in range(20):
        pred = paddle.matmul(x, w) + b
        loss = loss_fn(pred, y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(loss.item())
    results[loss_name + "_losses"] = np.array(losses)
    results[loss_name + "_wb"] = np.array([w.item(), b.item()])
    print(loss_name, w.item(), b.item())

pred = paddle.to_tensor(np.array([[0.2, 0.9], [0.7, 0.1]], dtype="float32"))
lbl = paddle.to_tensor(np.array([[0.0, 1.0], [1.0, 0.0]], dtype="float32"))
results["bce"] = F.binary_cross_entropy(pred, lbl).numpy()
results["bce_logits"] = F.binary_cross_entropy_with_logits(pred, lbl, reduction="none").numpy()
results["kl"] = F.kl_div(paddle.log(pred), lbl, reduction="batchmean").numpy()
results["margin"] = F.margin_ranking_loss(pred[:, 0], pred[:, 1], paddle.to_tensor(
    np.array([1.0, -1.0], dtype="float32")), margin=0.1).numpy()
results["cos"] = F.cosine_similarity(pred, lbl, axis=1).numpy()
