"""The loss layers and functions with their options: CrossEntropyLoss with class weights,
soft labels, label_smoothing, ignore_index and reduction='none'; NLLLoss with weights;
BCELoss with weight; focal, triplet, hinge-embedding, multi-label soft margin, Poisson and
Gaussian NLL, CTC, cosine embedding, KLDiv, SmoothL1, and their gradients."""

import numpy as np

import pyir as paddle
import pyir.nn as nn
import pyir.nn.functional as F

rng = np.random.default_rng(44)
logits = paddle.to_tensor(rng.standard_normal((6, 4)).astype("float32"), stop_gradient=False)
labels = paddle.to_tensor(np.array([0, 3, 1, 1, 2, 3], "int64"))
weight = paddle.to_tensor(np.array([1.0, 2.0, 0.5, 1.5], "float32"))
soft = paddle.to_tensor(rng.dirichlet(np.ones(4), 6).astype("float32"))
probs = F.sigmoid(paddle.to_tensor(rng.standard_normal((6, 4)).astype("float32")))
binary = paddle.to_tensor((rng.uniform(size=(6, 4)) > 0.5).astype("float32"))

r = {
    "ce_weight": nn.CrossEntropyLoss(weight=weight)(logits, labels),
    "ce_soft": nn.CrossEntropyLoss(soft_label=True)(logits, soft),
    "ce_smooth": nn.CrossEntropyLoss(label_smoothing=0.1)(logits, labels),
    "ce_ignore": F.cross_entropy(logits, paddle.to_tensor(np.array([0, -100, 1, 1, -100, 3])),
                                 ignore_index=-100),
    "ce_none": F.cross_entropy(logits, labels, reduction="none"),
    "ce_axis0": F.cross_entropy(logits.T, labels, axis=0),
    "ce_no_softmax": F.cross_entropy(F.softmax(logits), labels, use_softmax=False),
    "nll_weight": nn.NLLLoss(weight=weight)(F.log_softmax(logits), labels),
    "bce_weight": nn.BCELoss(weight=weight)(probs, binary),
    "bce_logits_pos": nn.BCEWithLogitsLoss(pos_weight=weight)(logits, binary),
    "focal": F.sigmoid_focal_loss(logits, binary, alpha=0.25, gamma=2.0, reduction="mean"),
    "triplet": F.triplet_margin_loss(logits, logits * 0.5, logits.flip([0]), margin=1.0),
    "hinge_emb": F.hinge_embedding_loss(logits, paddle.sign(binary - 0.5), margin=0.5),
    "multilabel": F.multi_label_soft_margin_loss(logits, binary),
    "poisson": F.poisson_nll_loss(logits, binary, log_input=True),
    "gaussian": F.gaussian_nll_loss(logits, binary, paddle.ones([6, 4]) * 0.5),
    "cos_emb": F.cosine_embedding_loss(logits[:3], logits[3:], paddle.to_tensor(
        np.array([1, -1, 1], "int64")), margin=0.1),
    "kldiv": nn.KLDivLoss(reduction="mean")(F.log_softmax(logits), soft),
    "smooth_l1": nn.SmoothL1Loss(delta=0.3)(logits, soft),
    "soft_margin": F.soft_margin_loss(logits, paddle.sign(binary - 0.5)),
    "mse_sum": nn.MSELoss(reduction="sum")(logits, soft),
}
ctc_logits = paddle.to_tensor(rng.standard_normal((5, 2, 4)).astype("float32"))
r["ctc"] = F.ctc_loss(F.log_softmax(ctc_logits), paddle.to_tensor(np.array([[1, 2], [3, 3]],
                                                                             "int32")),
                      paddle.to_tensor(np.array([5, 4], "int64")),
                      paddle.to_tensor(np.array([2, 1], "int64")), blank=0, reduction="none")

total = sum(v.sum() for k, v in r.items() if k != "ctc")
total.backward()
results = {k: v.numpy() for k, v in r.items()}
results["grad"] = logits.grad.numpy()
for k, v in results.items():
    print(k, np.round(v, 4).tolist() if v.size < 7 else v.shape)
