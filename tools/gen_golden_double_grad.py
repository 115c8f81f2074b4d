"""Regenerate tests/golden_double_grad/: higher-order gradients computed by Paddle 3.3.1 eager.

Needs PaddlePaddle 3.3.1 (a development oracle only; pyir and its tests never import it):

    /work/paddle-venv/bin/python tools/gen_golden_double_grad.py

The cases are the functions of tests/double_grad_cases.py (gradient penalties, a
Hessian-vector product, d^3/dx^3, jacobian/hessian, matmul and shape ops), written once
against Paddle's API; tests/test_double_grad_golden.py runs the same functions on pyir. Each
case writes <case>.npz: its float64 inputs as `in:<name>` and Paddle's results as `out:<name>`.
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np
import paddle

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from double_grad_cases import CASES  # noqa: E402

OUT = ROOT / "tests" / "golden_double_grad"
RNG = np.random.default_rng(20261125)


def r(*shape, low=-1.0, high=1.0):
    return RNG.uniform(low, high, shape)


INPUTS = {
    "gp_mlp": dict(x=r(4, 3), w1=r(3, 5), b1=r(5), w2=r(5, 4), b2=r(4, low=0.2, high=0.6),
                   w3=r(4, 1), b3=r(1)),
    "gp_activations": dict(x=r(3, 4), w1=r(4, 5), b1=r(5), w2=r(5, 2), b2=r(2)),
    "hvp": dict(x=r(5), v=r(5), a=r(5, 5)),
    "cube": dict(x=np.array([1.5, -0.5, 2.0, 0.25])),
    "jacobian_hessian": dict(x=r(3), a=r(3, 3), xb=r(2, 3)),
    "matmul_shapes": dict(x=r(2, 3, 5), y=r(2, 4, 5)),
}


def main() -> None:
    paddle.disable_static()
    paddle.set_default_dtype("float64")
    OUT.mkdir(parents=True, exist_ok=True)
    for name, fn in CASES.items():
        inputs = INPUTS[name]
        results = fn(paddle, **inputs)
        arrays = {f"in:{k}": np.asarray(v, np.float64) for k, v in inputs.items()}
        arrays.update({f"out:{k}": np.asarray(v) for k, v in results.items()})
        np.savez(OUT / f"{name}.npz", **arrays)
        print(f"{name}: {', '.join(sorted(results))}")


if __name__ == "__main__":
    main()
