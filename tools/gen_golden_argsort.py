"""Write tests/golden_ordering/argsort.npz: paddle.argsort of tie-heavy inputs (and NaNs) as
Paddle 3.3.1's CPU kernel orders them, stable and not (its std::sort leaves ties in an order of
its own once a row is longer than 16).

    /work/paddle-venv/bin/python tools/gen_golden_argsort.py
"""

import pathlib

import numpy as np
import paddle

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "golden_ordering" / "argsort.npz"
# (shape, values drawn from [0, high), descending, axis, dtype, NaNs, stable)
CASES = [((3, 40), 5, False, -1, "float32", 0, False), ((2, 100), 3, True, -1, "float32", 10, False),
         ((50, 4), 4, False, 0, "int64", 0, False), ((1, 300), 10, True, 1, "int32", 0, False),
         ((2, 3, 33), 2, False, 2, "float64", 0, False), ((2, 60), 4, False, -1, "float32", 8, False),
         ((2, 60), 4, True, -1, "float32", 8, True), ((4, 12), 3, True, -1, "float32", 0, False)]


def main():
    rng = np.random.default_rng(7)
    arrays = {}
    for i, (shape, high, desc, axis, dtype, nans, stable) in enumerate(CASES):
        x = rng.integers(0, high, size=shape).astype(dtype)
        if nans:
            x.reshape(-1)[rng.choice(x.size, nans, replace=False)] = np.nan
        indices = paddle.argsort(paddle.to_tensor(x), axis=axis, descending=desc, stable=stable)
        arrays[f"x{i}"], arrays[f"indices{i}"] = x, indices.numpy()
        arrays[f"args{i}"] = np.array([axis, desc, stable])
    OUT.parent.mkdir(exist_ok=True)
    np.savez_compressed(OUT, **arrays)
    print(f"wrote {OUT} ({len(CASES)} cases)")


if __name__ == "__main__":
    main()
