"""Higher-order gradient cases written once against Paddle's API: each takes the module (`paddle`
or `pyir`) and input arrays and returns arrays. tools/gen_golden_double_grad.py runs them in
Paddle 3.3.1 and stores inputs and results in tests/golden_double_grad/; the tests run them on
pyir and compare. So the code under test is user code, identical on both sides.
"""

from __future__ import annotations

import numpy as np


def _t(paddle, a, grad=True):
    return paddle.to_tensor(np.asarray(a), stop_gradient=not grad)


def gp_mlp(paddle, x, w1, b1, w2, b2, w3, b3):
    """WGAN-GP style gradient penalty of a tanh / relu / sigmoid MLP, then backward."""
    x, params = _t(paddle, x), [_t(paddle, a) for a in (w1, b1, w2, b2, w3, b3)]
    w1, b1, w2, b2, w3, b3 = params
    h = paddle.tanh(paddle.matmul(x, w1) + b1)
    h = paddle.nn.functional.relu(paddle.matmul(h, w2) + b2)
    d = paddle.nn.functional.sigmoid(paddle.matmul(h, w3) + b3)
    (gx,) = paddle.grad(d.sum(), x, create_graph=True)
    norm = paddle.sqrt((gx * gx).sum(axis=1))
    gp = ((norm - 1.0) ** 2).mean()
    gp.backward()
    return {"gp": gp.numpy(), "gx": gx.numpy(), "dx": x.grad.numpy(),
            **{f"d{n}": p.grad.numpy() for n, p in zip(["w1", "b1", "w2", "b2", "w3", "b3"],
                                                       params)}}


def gp_activations(paddle, x, w1, b1, w2, b2):
    """A penalty through linear, leaky_relu, elu, softplus, silu, exp, log and division."""
    F = paddle.nn.functional
    x, w1, b1, w2, b2 = [_t(paddle, a) for a in (x, w1, b1, w2, b2)]
    h = F.linear(x, w1, b1)
    h = F.leaky_relu(h, 0.1) + F.elu(h, 0.7) + F.softplus(h) + F.silu(h)
    y = F.linear(h, w2, b2)
    out = (paddle.exp(y * 0.3) / (1.0 + y * y) + paddle.log(1.0 + y * y)).sum()
    (gx, gw1) = paddle.grad(out, [x, w1], create_graph=True)
    penalty = (gx * gx).sum() + (gw1 * gw1).mean()
    dx, dw1, dw2 = paddle.grad(penalty, [x, w1, w2])
    return {"out": out.numpy(), "gx": gx.numpy(), "dx": dx.numpy(), "dw1": dw1.numpy(),
            "dw2": dw2.numpy()}


def hvp(paddle, x, v, a):
    """A Hessian-vector product: grad of (grad(f) . v)."""
    x, v, a = _t(paddle, x), _t(paddle, v, grad=False), _t(paddle, a, grad=False)
    f = (paddle.sin(x) * x ** 2).sum() + (paddle.matmul(a, x) * x).sum() + \
        paddle.exp(x * 0.5).sum() * x.mean()
    (g,) = paddle.grad(f, x, create_graph=True)
    (hv,) = paddle.grad((g * v).sum(), x)
    return {"g": g.numpy(), "hv": hv.numpy()}


def cube(paddle, x):
    """d/dx, d2/dx2 and d3/dx3 of x ** 3, and the third derivative of tanh."""
    x = _t(paddle, x)
    (d1,) = paddle.grad((x ** 3).sum(), x, create_graph=True)
    (d2,) = paddle.grad(d1.sum(), x, create_graph=True)
    (d3,) = paddle.grad(d2.sum(), x)
    (t1,) = paddle.grad(paddle.tanh(x).sum(), x, create_graph=True)
    (t2,) = paddle.grad(t1.sum(), x, create_graph=True)
    (t3,) = paddle.grad(t2.sum(), x)
    return {"d1": d1.numpy(), "d2": d2.numpy(), "d3": d3.numpy(), "t3": t3.numpy()}


def jacobian_hessian(paddle, x, a, xb):
    """paddle.autograd.jacobian and hessian, plain and batched."""
    x, a, xb = _t(paddle, x), _t(paddle, a, grad=False), _t(paddle, xb)
    jac = paddle.autograd.jacobian(paddle.tanh(paddle.matmul(a, x)), x)
    f = paddle.log(1.0 + x * x).sum() + (paddle.matmul(a, x) * x).sum()
    hess = paddle.autograd.hessian(f, x)
    hb = paddle.autograd.hessian((paddle.sin(xb) * xb).sum(axis=1), xb, batch_axis=0)
    return {"jac": jac[:].numpy(), "hess": hess[:].numpy(), "hess_batch": hb[:].numpy()}


def matmul_shapes(paddle, x, y):
    """Second order through matmul with transpose_y, reshape, transpose, concat, slicing,
    expand and mean."""
    x, y = _t(paddle, x), _t(paddle, y)
    z = paddle.tanh(paddle.matmul(x, y, transpose_y=True))          # [2, 3, 4]
    z = paddle.concat([z, z[:, :1, :] * 2.0], axis=1)               # [2, 4, 4]
    z = paddle.transpose(z.reshape([2, 2, 8]), [0, 2, 1])           # [2, 8, 2]
    z = z.unsqueeze(0).expand([3, 2, 8, 2])                          # [3, 2, 8, 2]
    loss = (z * z * z).mean()
    gx, gy = paddle.grad(loss, [x, y], create_graph=True)
    penalty = (gx * gx).sum() + (gx * gy.sum()).sum()
    dx, dy = paddle.grad(penalty, [x, y])
    return {"loss": loss.numpy(), "gx": gx.numpy(), "dx": dx.numpy(), "dy": dy.numpy()}


CASES = {"gp_mlp": gp_mlp, "gp_activations": gp_activations, "hvp": hvp, "cube": cube,
         "jacobian_hessian": jacobian_hessian, "matmul_shapes": matmul_shapes}
