"""Writes layers.npz / layers.json from PaddlePaddle 3.3.1 (run it with Paddle's Python, from
this directory: `python make_golden.py`). For each case of cases.py: Paddle's state_dict keys,
seeded random values for them (running variances positive), and Paddle's output (and the
running mean after a training-mode batch norm)."""

import json

import numpy as np
import paddle

from cases import CASES, GRAD_CASES, grad_weights, unpack

rng = np.random.default_rng(1)
arrays, meta = {}, {}
for name, case in CASES.items():
    make, inputs, train, kwargs = unpack(case)
    layer = make(paddle.nn, paddle.to_tensor)
    keys = list(layer.state_dict())
    state = {}
    for k, v in layer.state_dict().items():
        value = rng.standard_normal(v.shape).astype("float32") * 0.5
        state[k] = np.abs(value) + 0.5 if k.endswith("_variance") else value
    layer.set_state_dict({k: paddle.to_tensor(v) for k, v in state.items()})
    if not train:
        layer.eval()
    needs_grad = name in GRAD_CASES  # float inputs take gradients (instance_norm wants one)
    out = layer(*[paddle.to_tensor(a, stop_gradient=not (needs_grad and a.dtype.kind == "f"))
                  for a in inputs],
                **{k: tuple(paddle.to_tensor(a) for a in v) if isinstance(v, tuple)
                   else paddle.to_tensor(v) for k, v in kwargs.items()})
    out = out[0] if isinstance(out, (tuple, list)) else out
    arrays[f"{name}/out"] = out.numpy()
    if name in GRAD_CASES:
        (out * paddle.to_tensor(grad_weights(out.shape))).sum().backward()
        for i, k in enumerate(keys):
            param = layer.state_dict()[k]
            if not param.stop_gradient and param.grad is not None:
                arrays[f"{name}/grad{i}"] = param.grad.numpy()
    for i, k in enumerate(keys):
        arrays[f"{name}/state{i}"] = state[k]
    if train and hasattr(layer, "_mean"):
        arrays[f"{name}/mean"] = layer._mean.numpy()
    meta[name] = {"keys": keys}
np.savez_compressed("layers.npz", **arrays)
json.dump(meta, open("layers.json", "w"), indent=0)
print(len(meta), "cases")
