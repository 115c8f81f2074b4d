"""Random ops used by parameter initializers that the core creation ops lack:
`truncated_gaussian_random` (TruncatedNormal)."""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..registry import Attr, Example, VarSpec, register_op
from ..registry import AttrType as T
from ._helpers import rng_for


def _from_attrs(ctx):
    return {"Out": VarSpec(tuple(ctx.attr("shape")), dtypes.to_numpy(ctx.attr("dtype")))}


@register_op(
    "truncated_gaussian_random", inputs=[], outputs=["Out"],
    attrs=[Attr("shape", T.INTS, []), Attr("mean", T.FLOAT, 0.0), Attr("std", T.FLOAT, 1.0),
           Attr("seed", T.INT, 0), Attr("a", T.FLOAT, -2.0), Attr("b", T.FLOAT, 2.0),
           Attr("dtype", T.INT, 5)],
    infer=_from_attrs,
    doc="Out ~ N(mean, std^2) restricted to [a, b] (a and b are values, not std units)",
    # with bounds far out no value is redrawn: the plain normal draws of the seed
    examples=[Example({}, {"shape": [4, 3], "mean": 1.0, "std": 2.0, "seed": 5, "a": -1e9,
                           "b": 1e9}, lambda **a: {"Out": np.random.default_rng(5).normal(
                               1.0, 2.0, 12).reshape(4, 3).astype(np.float32)})],
)
def truncated_gaussian_random(shape, mean, std, seed, a, b, dtype):
    rng = rng_for(seed)
    size = int(np.prod(shape))
    out = rng.normal(mean, std, size)
    bad = (out < a) | (out > b)
    for _ in range(1000):  # redraw the values outside [a, b]
        if not bad.any():
            break
        out[bad] = rng.normal(mean, std, int(bad.sum()))
        bad = (out < a) | (out > b)
    out = np.clip(out, a, b)
    return {"Out": out.reshape(shape).astype(dtypes.to_numpy(dtype))}
