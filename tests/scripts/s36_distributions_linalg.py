"""Probability and linear algebra used by scientific scripts: Normal / Categorical /
Bernoulli / Uniform log_prob, entropy and KL divergence; solve, inv, cholesky, det,
slogdet, qr (via the reconstruction), eigh eigenvalues, svd singular values, lstsq, pinv,
matrix_power, norms and a gradient through an inverse."""

import numpy as np

import pyir as paddle
from pyir.distribution import Bernoulli, Categorical, Normal, Uniform, kl_divergence

rng = np.random.default_rng(36)
mu = paddle.to_tensor(np.array([0.0, 1.0, -1.0], "float32"))
sigma = paddle.to_tensor(np.array([1.0, 0.5, 2.0], "float32"))
value = paddle.to_tensor(np.array([0.3, 0.8, -2.0], "float32"))
n1, n2 = Normal(mu, sigma), Normal(paddle.zeros([3]), paddle.ones([3]))
cat = Categorical(paddle.to_tensor(np.array([0.1, 0.6, 0.3], "float32")))
bern = Bernoulli(paddle.to_tensor(np.array([0.2, 0.7], "float32")))
uni = Uniform(paddle.to_tensor(-1.0), paddle.to_tensor(3.0))

A_np = rng.standard_normal((4, 4)).astype("float32")
A_np = A_np @ A_np.T + 4 * np.eye(4, dtype="float32")
b_np = rng.standard_normal((4, 2)).astype("float32")
A, b = paddle.to_tensor(A_np), paddle.to_tensor(b_np)
M = paddle.to_tensor(rng.standard_normal((5, 3)).astype("float32"))
q, r = paddle.linalg.qr(M)

At = paddle.to_tensor(A_np, stop_gradient=False)
# (Paddle 3.3.1's CPU solve backward crashes the process; differentiate through inv instead)
(paddle.linalg.inv(At) @ b).sum().backward()

results = {
    "normal_logp": n1.log_prob(value).numpy(), "normal_entropy": n1.entropy().numpy(),
    "normal_kl": kl_divergence(n1, n2).numpy(),
    "normal_mean": n1.mean.numpy(), "normal_var": n1.variance.numpy(),
    "cat_logp": cat.log_prob(paddle.to_tensor(np.array([1, 2]))).numpy(),
    "cat_entropy": cat.entropy().numpy(), "cat_probs": cat.probs(paddle.to_tensor(
        np.array([0, 1]))).numpy(),
    "bern_logp": bern.log_prob(paddle.to_tensor(np.array([1.0, 0.0], "float32"))).numpy(),
    "bern_entropy": bern.entropy().numpy(),
    "uni_logp": uni.log_prob(paddle.to_tensor(np.array([0.5, 4.0], "float32"))).numpy(),
    "uni_entropy": uni.entropy().numpy(),
    "solve": paddle.linalg.solve(A, b).numpy(), "inv": paddle.linalg.inv(A).numpy(),
    "cholesky": paddle.linalg.cholesky(A).numpy(), "det": paddle.linalg.det(A).numpy(),
    "slogdet": paddle.linalg.slogdet(A).numpy(), "qr_rec": (q @ r).numpy(),
    "r_abs_diag": paddle.abs(paddle.diagonal(r)).numpy(),
    "eigh_w": paddle.linalg.eigh(A)[0].numpy(),
    "svd_s": paddle.linalg.svd(M, full_matrices=False)[1].numpy(),
    "lstsq": paddle.linalg.lstsq(M, paddle.ones([5, 1]))[0].numpy(),
    "pinv": paddle.linalg.pinv(M).numpy(), "mpow": paddle.linalg.matrix_power(A, 3).numpy(),
    "fro": paddle.linalg.norm(A).numpy(), "nuc": paddle.linalg.norm(M, p="nuc").numpy(),
    "inf_norm": paddle.linalg.norm(M, p=np.inf, axis=[0, 1]).numpy(),
    "cond": paddle.linalg.cond(A).numpy(), "rank": paddle.linalg.matrix_rank(M).numpy(),
    "solve_grad": At.grad.numpy(),
    "cross": paddle.cross(M[:2], M[2:4], axis=1).numpy(),
    "kron": paddle.kron(M[:2, :2], paddle.eye(2)).numpy(),
    "outer": paddle.outer(mu, sigma).numpy(), "trace": paddle.trace(A).numpy(),
    "triangular": paddle.linalg.triangular_solve(paddle.linalg.cholesky(A), b,
                                                 upper=False).numpy(),
}
print({k: np.round(v, 3).tolist() for k, v in results.items() if v.size < 5})
