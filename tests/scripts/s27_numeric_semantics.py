"""Numeric corner cases scripts rely on without thinking: integer division and modulo of
negative numbers, rounding halves, casts from float to int, integer powers, clip on ints,
comparisons and isclose, reductions over empty-free axes with keepdim, argmax ties, dtype
promotion of int + float tensors and of tensor + Python scalar."""

import numpy as np

import pyir as paddle

a = paddle.to_tensor(np.array([-7, -3, 3, 7, 0], dtype="int64"))
b = paddle.to_tensor(np.array([2, 2, -2, 3, 5], dtype="int64"))
f = paddle.to_tensor(np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.7, -2.7], dtype="float32"))

r = {
    "floor_divide": paddle.floor_divide(a, b),
    "op_floordiv": a // b,
    "mod": paddle.mod(a, b),
    "op_mod": a % b,
    "remainder_f": paddle.remainder(f, paddle.to_tensor(1.0)),
    "round": paddle.round(f),
    "floor": paddle.floor(f), "ceil": paddle.ceil(f), "trunc": paddle.trunc(f),
    "cast_int": paddle.cast(f, "int32"),
    "astype_int64": f.astype("int64"),
    "pow_int": paddle.pow(a, 2),
    "op_pow_float": f ** 2,
    "clip_int": paddle.clip(a, min=-4, max=4),
    "divide_int": paddle.divide(a.astype("float32"), b.astype("float32")),
    "sign": paddle.sign(f),
    "isclose": paddle.isclose(f, f + 1e-7),
    "allclose": paddle.allclose(f, f * 1.0000001),
    "equal_all": paddle.equal_all(a, a),
    "argmax_tie": paddle.argmax(paddle.to_tensor(np.array([[1, 3, 3], [2, 2, 1]], "float32")),
                                axis=1),
    "argmin_tie": paddle.argmin(paddle.to_tensor(np.array([1, 0, 0], "float32"))),
    "sum_keepdim": paddle.sum(paddle.ones([2, 3]), axis=1, keepdim=True),
    "mean_int_axis": paddle.mean(paddle.arange(6, dtype="float32").reshape([2, 3]), axis=0),
    "prod": paddle.prod(paddle.to_tensor(np.array([1.5, 2.0, -1.0], "float32"))),
    "max_all": paddle.max(a),
    "int_times_float_scalar": (a * 1.5),
    "int_plus_int_scalar": (a + 1),
    "float_div_int_scalar": (f / 2),
    "int_true_div": (a / b),
    "linspace": paddle.linspace(0, 1, 5),
    "arange_float": paddle.arange(0, 1, 0.3),
    "logspace": paddle.logspace(0, 2, 3),
    "meshgrid0": paddle.meshgrid(paddle.arange(3), paddle.arange(2))[0],
    "eye": paddle.eye(2, 3),
    "full_like": paddle.full_like(f, 7),
    "tril": paddle.tril(paddle.ones([3, 3]), diagonal=-1),
    "triu": paddle.triu(paddle.ones([3, 3]), diagonal=1),
    "bitwise_and": paddle.bitwise_and(a, b),
    "logical_xor": paddle.logical_xor(a > 0, b > 0),
    "nan_to_num": paddle.nan_to_num(paddle.to_tensor(np.array([np.nan, np.inf, -1.0],
                                                              "float32"))),
    "isnan": paddle.isnan(paddle.to_tensor(np.array([np.nan, 1.0], "float32"))),
    "std_unbiased": paddle.std(f), "var_biased": paddle.var(f, unbiased=False),
    "median": paddle.median(f), "quantile": paddle.quantile(f, 0.3),
    "kthvalue": paddle.kthvalue(f, k=2)[0],
    "mode": paddle.mode(paddle.to_tensor(np.array([1, 2, 2, 3, 3], "int64")))[0],
    "diff": paddle.diff(f), "cumsum_int": paddle.cumsum(a),
    "bincount": paddle.bincount(paddle.to_tensor(np.array([0, 1, 1, 3], "int64"))),
    "histogram": paddle.histogram(f, bins=4, min=-3, max=3),
    "searchsorted": paddle.searchsorted(paddle.to_tensor(np.array([1.0, 2.0, 3.0], "float32")),
                                        paddle.to_tensor(np.array([2.0, 0.5], "float32"))),
}
dtype_checks = {
    "int_times_float_scalar": r["int_times_float_scalar"].dtype == paddle.float32,
    "int_plus_int_scalar": r["int_plus_int_scalar"].dtype == paddle.int64,
    "int_true_div": r["int_true_div"].dtype == paddle.float32,
    "cast_int": r["cast_int"].dtype == paddle.int32,
    "argmax": r["argmax_tie"].dtype == paddle.int64,
    "linspace": r["linspace"].dtype == paddle.float32,
    "arange_int": paddle.arange(3).dtype == paddle.int64,
    "to_tensor_float": paddle.to_tensor(1.5).dtype == paddle.float32,
    "to_tensor_int": paddle.to_tensor([1, 2]).dtype == paddle.int64,
    "to_tensor_bool": paddle.to_tensor([True]).dtype == paddle.bool,
}
results = {k: v.numpy() if hasattr(v, "numpy") else v for k, v in r.items()}
results.update({"dtype_" + k: v for k, v in dtype_checks.items()})
for k, v in results.items():
    print(k, np.asarray(v).tolist())
