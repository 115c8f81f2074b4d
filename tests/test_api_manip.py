"""The manipulation family (pyir/tensor/manip_*.py): each function built in a static program
(the ops and key attributes Paddle 3.3.1's legacy static mode emits for the same call, then run
and compared with numpy), run eagerly (compared with numpy) and differentiated eagerly
(against finite differences of the numpy reference)."""

import numpy as np
import pytest
from helpers_api_manip import (as_list, assert_values, check_eager_grad, eager_run,
                               static_run)

import pyir

rng = np.random.default_rng(3)
X = rng.uniform(-1, 1, (2, 3, 4))
Y = rng.uniform(-1, 1, (1, 3, 4))
V = rng.uniform(-1, 1, (3,))
M = rng.uniform(-1, 1, (3, 4))
I2 = np.array([2, 0], np.int64)
ID3 = np.array([[[1, 0, 2, 1]], [[0, 2, 2, 1]]], np.int64)  # [2, 1, 4] along axis 1


def _set(a, index, value):
    a = a.copy()
    a[index] = value
    return a


def _put_along(a, idx, vals, axis, add=False):
    a = a.copy()
    for pos in np.ndindex(idx.shape):
        target = list(pos)
        target[axis] = idx[pos]
        a[tuple(target)] = a[tuple(target)] + vals[pos] if add else vals[pos]
    return a


def _diag_scatter(x, y):
    out = x.copy()
    np.fill_diagonal(out, y)
    return out


# (id, build(**tensors), inputs, numpy reference(**arrays), ops emitted, attrs of the last op,
#  differentiable)
CASES = [
    ("reshape", lambda x: pyir.reshape(x, [4, -1]), {"x": X}, lambda x: x.reshape(4, -1),
     ["reshape2"], {"shape": [4, -1]}, True),
    ("reshape_zero", lambda x: pyir.reshape(x, [0, -1]), {"x": X}, lambda x: x.reshape(2, -1),
     ["reshape2"], {"shape": [0, -1]}, True),
    ("view", lambda x: pyir.view(x, [6, 4]), {"x": X}, lambda x: x.reshape(6, 4),
     ["reshape2"], {"shape": [6, 4]}, True),
    ("view_as", lambda x, m: pyir.view_as(m, x[0]), {"x": X, "m": M}, lambda x, m: m,
     ["slice", "reshape2"], {"shape": [3, 4]}, True),
    ("flatten", lambda x: pyir.flatten(x, 1, 2), {"x": X}, lambda x: x.reshape(2, 12),
     ["flatten_contiguous_range"], {"start_axis": 1, "stop_axis": 2}, True),
    ("flatten_neg", lambda x: pyir.flatten(x, -2), {"x": X}, lambda x: x.reshape(2, 12),
     ["flatten_contiguous_range"], {"start_axis": 1, "stop_axis": 2}, True),
    ("ravel", lambda x: pyir.ravel(x), {"x": X}, lambda x: x.ravel(),
     ["flatten_contiguous_range"], {"start_axis": 0, "stop_axis": 2}, True),
    ("unflatten", lambda x: pyir.unflatten(x, 2, [2, -1]), {"x": X},
     lambda x: x.reshape(2, 3, 2, 2), ["reshape2"], {"shape": [2, 3, 2, -1]}, True),
    ("squeeze", lambda y: pyir.squeeze(y, 0), {"y": Y}, lambda y: y[0], ["squeeze2"],
     {"axes": [0]}, True),
    ("squeeze_all", lambda y: pyir.squeeze(y), {"y": Y}, lambda y: y[0], ["squeeze2"],
     {"axes": []}, True),
    ("unsqueeze", lambda v: pyir.unsqueeze(v, [0, -1]), {"v": V}, lambda v: v[None, :, None],
     ["unsqueeze2"], {"axes": [0, -1]}, True),
    ("transpose", lambda x: pyir.transpose(x, [2, 0, 1]), {"x": X},
     lambda x: x.transpose(2, 0, 1), ["transpose2"], {"axis": [2, 0, 1]}, True),
    ("transpose_dims", lambda x: pyir.transpose(x, 0, 2), {"x": X},
     lambda x: x.swapaxes(0, 2), ["transpose2"], {"axis": [2, 1, 0]}, True),
    ("swapaxes", lambda x: pyir.swapaxes(x, 1, -1), {"x": X}, lambda x: x.swapaxes(1, 2),
     ["transpose2"], {"axis": [0, 2, 1]}, True),
    ("permute", lambda x: pyir.permute(x, [1, 2, 0]), {"x": X},
     lambda x: x.transpose(1, 2, 0), ["transpose2"], {"axis": [1, 2, 0]}, True),
    ("t", lambda m: pyir.t(m), {"m": M}, lambda m: m.T, ["transpose2"], {"axis": [1, 0]},
     True),
    ("t_vector", lambda v: pyir.t(v) * 1.0, {"v": V}, lambda v: v, ["scale"], {}, True),
    ("matrix_transpose", lambda x: pyir.matrix_transpose(x), {"x": X},
     lambda x: x.swapaxes(-1, -2), ["transpose2"], {"axis": [0, 2, 1]}, True),
    ("moveaxis", lambda x: pyir.moveaxis(x, 0, 2), {"x": X}, lambda x: np.moveaxis(x, 0, 2),
     ["transpose2"], {"axis": [1, 2, 0]}, True),
    ("moveaxis_multi", lambda x: pyir.moveaxis(x, [0, 1], [-1, 0]), {"x": X},
     lambda x: np.moveaxis(x, [0, 1], [-1, 0]), ["transpose2"], {"axis": [1, 2, 0]}, True),
    ("expand", lambda y: pyir.expand(y, [2, 3, 4]), {"y": Y},
     lambda y: np.broadcast_to(y, (2, 3, 4)), ["expand_v2"], {"shape": [2, 3, 4]}, True),
    ("expand_keep", lambda y: pyir.expand(y, [2, -1, 4]), {"y": Y},
     lambda y: np.broadcast_to(y, (2, 3, 4)), ["expand_v2"], {"shape": [2, -1, 4]}, True),
    ("broadcast_to", lambda v: pyir.broadcast_to(v, [2, 3]), {"v": V},
     lambda v: np.broadcast_to(v, (2, 3)), ["expand_v2"], {"shape": [2, 3]}, True),
    ("expand_as", lambda x, y: pyir.expand_as(y, x), {"x": X, "y": Y},
     lambda x, y: np.broadcast_to(y, x.shape), ["expand_as_v2"], {"target_shape": [2, 3, 4]},
     True),
    ("broadcast_tensors", lambda x, y: pyir.broadcast_tensors([x, y]), {"x": X, "y": Y},
     lambda x, y: list(np.broadcast_arrays(x, y)), ["broadcast_tensors"], {}, True),
    ("tile", lambda x: pyir.tile(x, [1, 2, 1]), {"x": X}, lambda x: np.tile(x, (1, 2, 1)),
     ["tile"], {"repeat_times": [1, 2, 1]}, True),
    ("tile_short", lambda m: pyir.tile(m, [2, 1, 1]), {"m": M}, lambda m: np.tile(m, (2, 1, 1)),
     ["tile"], {"repeat_times": [2, 1, 1]}, True),
    ("flip", lambda x: pyir.flip(x, [0, -1]), {"x": X}, lambda x: x[::-1, :, ::-1],
     ["flip"], {"axis": [0, -1]}, True),
    ("reverse", lambda x: pyir.reverse(x, 0), {"x": X}, lambda x: x[::-1], ["flip"],
     {"axis": [0]}, True),
    ("roll_flat", lambda x: pyir.roll(x, 5), {"x": X}, lambda x: np.roll(x, 5), ["roll"],
     {"shifts": [5], "axis": []}, True),
    ("roll_axes", lambda x: pyir.roll(x, [1, -2], [0, 2]), {"x": X},
     lambda x: np.roll(x, (1, -2), (0, 2)), ["roll"], {"shifts": [1, -2], "axis": [0, 2]},
     True),
    ("rot90", lambda x: pyir.rot90(x, 1, [0, 1]), {"x": X}, lambda x: np.rot90(x, 1, (0, 1)),
     ["flip", "transpose2"], {"axis": [1, 0, 2]}, True),
    ("rot90_2", lambda x: pyir.rot90(x, 2, [1, 2]), {"x": X}, lambda x: np.rot90(x, 2, (1, 2)),
     ["flip", "flip"], {"axis": [2]}, True),
    ("rot90_neg", lambda x: pyir.rot90(x, -1, [1, 2]), {"x": X},
     lambda x: np.rot90(x, -1, (1, 2)), ["transpose2", "flip"], {"axis": [2]}, True),
    ("repeat_interleave", lambda x: pyir.repeat_interleave(x, 2, 1), {"x": X},
     lambda x: np.repeat(x, 2, 1), ["repeat_interleave"], {"Repeats": 2, "dim": 1}, True),
    ("repeat_interleave_flat", lambda x: pyir.repeat_interleave(x, 3), {"x": X},
     lambda x: np.repeat(x, 3), ["flatten_contiguous_range", "repeat_interleave"],
     {"Repeats": 3, "dim": 0}, True),
    ("repeat_interleave_tensor",
     lambda v, r: pyir.repeat_interleave(v, r, 0), {"v": V, "r": np.array([2, 0, 1])},
     lambda v, r: np.repeat(v, r), ["repeat_interleave"], {"dim": 0}, True),
    ("concat", lambda x, y: pyir.concat([x, y], axis=0), {"x": X, "y": Y},
     lambda x, y: np.concatenate([x, y]), ["concat"], {"axis": 0}, True),
    ("cat_neg", lambda x: pyir.cat([x, x], axis=-1), {"x": X},
     lambda x: np.concatenate([x, x], -1), ["concat"], {"axis": -1}, True),
    ("stack", lambda m: pyir.stack([m, m * 2.0], axis=1), {"m": M},
     lambda m: np.stack([m, m * 2], 1), ["scale", "stack"], {"axis": 1}, True),
    ("hstack", lambda x: pyir.hstack([x, x]), {"x": X}, lambda x: np.hstack([x, x]),
     ["concat"], {"axis": 1}, True),
    ("hstack_1d", lambda v: pyir.hstack([v, v]), {"v": V}, lambda v: np.hstack([v, v]),
     ["concat"], {"axis": 0}, True),
    ("vstack_1d", lambda v: pyir.vstack([v, v]), {"v": V}, lambda v: np.vstack([v, v]),
     ["unsqueeze2", "unsqueeze2", "concat"], {"axis": 0}, True),
    ("row_stack", lambda x: pyir.row_stack([x, x]), {"x": X}, lambda x: np.vstack([x, x]),
     ["concat"], {"axis": 0}, True),
    ("dstack", lambda m: pyir.dstack([m, m]), {"m": M}, lambda m: np.dstack([m, m]),
     ["unsqueeze2", "unsqueeze2", "concat"], {"axis": 2}, True),
    ("column_stack", lambda v: pyir.column_stack([v, v]), {"v": V},
     lambda v: np.column_stack([v, v]), ["reshape2", "reshape2", "concat"], {"axis": 1}, True),
    ("split", lambda x: pyir.split(x, 2, axis=2), {"x": X}, lambda x: np.split(x, 2, 2),
     ["split"], {"num": 2, "axis": 2}, True),
    ("split_rest", lambda x: pyir.split(x, [1, -1], axis=2), {"x": X},
     lambda x: np.split(x, [1], 2), ["split"], {"sections": [1, -1], "num": 0}, True),
    ("chunk", lambda x: pyir.chunk(x, 3, axis=1), {"x": X}, lambda x: np.split(x, 3, 1),
     ["split"], {"num": 3, "axis": 1}, True),
    ("tensor_split", lambda x: pyir.tensor_split(x, 3, axis=2), {"x": X},
     lambda x: np.array_split(x, 3, 2), ["split"], {"sections": [2, 1, 1]}, True),
    ("tensor_split_at", lambda x: pyir.tensor_split(x, [1, 3], axis=2), {"x": X},
     lambda x: np.split(x, [1, 3], 2), ["slice", "slice", "slice"],
     {"axes": [2], "starts": [3], "ends": [4]}, True),
    ("hsplit", lambda x: pyir.hsplit(x, 3), {"x": X}, lambda x: np.split(x, 3, 1), ["split"],
     {"axis": 1, "sections": [1, 1, 1]}, True),
    ("vsplit", lambda x: pyir.vsplit(x, [1]), {"x": X}, lambda x: np.split(x, [1], 0),
     ["slice", "slice"], {"axes": [0]}, True),
    ("dsplit", lambda x: pyir.dsplit(x, 2), {"x": X}, lambda x: np.split(x, 2, 2), ["split"],
     {"axis": 2}, True),
    ("unbind", lambda x: pyir.unbind(x, 1), {"x": X}, lambda x: [x[:, i] for i in range(3)],
     ["unbind"], {"axis": 1}, True),
    ("unstack", lambda x: pyir.unstack(x, -1), {"x": X},
     lambda x: [x[..., i] for i in range(4)], ["unstack"], {"axis": -1, "num": 4}, True),
    ("slice", lambda x: pyir.slice(x, [0, 2], [1, -3], [100, -1]), {"x": X},
     lambda x: x[1:, :, -3:-1], ["slice"], {"axes": [0, 2], "starts": [1, -3]}, True),
    ("strided_slice", lambda x: pyir.strided_slice(x, [0, 2], [1, -1], [2, 0], [1, -2]),
     {"x": X}, lambda x: x[1:2, :, -1:0:-2], ["strided_slice"], {"strides": [1, -2]}, True),
    ("narrow", lambda x: pyir.narrow(x, 2, 1, 2), {"x": X}, lambda x: x[:, :, 1:3], ["slice"],
     {"axes": [2], "starts": [1], "ends": [3]}, True),
    ("narrow_neg", lambda x: pyir.narrow(x, -1, -3, 2), {"x": X}, lambda x: x[..., 1:3],
     ["slice"], {"starts": [1], "ends": [3]}, True),
    ("unfold", lambda v: pyir.unfold(v, 0, 2, 1), {"v": V},
     lambda v: np.stack([v[:2], v[1:]]), ["assign_value", "gather", "reshape2", "transpose2"],
     {"axis": [0, 1]}, True),
    ("unfold_mid", lambda x: pyir.unfold(x, 2, 3, 1), {"x": X},
     lambda x: np.stack([x[:, :, 0:3], x[:, :, 1:4]], 2),
     ["assign_value", "gather", "reshape2", "transpose2"], {"axis": [0, 1, 2, 3]}, True),
    ("atleast_1d", lambda v: pyir.atleast_1d(v), {"v": V}, lambda v: v, [], {}, False),
    ("atleast_2d", lambda v: pyir.atleast_2d(v), {"v": V}, lambda v: v[None],
     ["unsqueeze2"], {"axes": [0]}, True),
    ("atleast_3d", lambda m, v: pyir.atleast_3d(m, v), {"m": M, "v": V},
     lambda m, v: [np.atleast_3d(m), np.atleast_3d(v)], ["unsqueeze2", "unsqueeze2"],
     {"axes": [0, 2]}, True),
    ("crop", lambda x: pyir.crop(x, [1, 2, 2], [1, 0, 1]), {"x": X}, lambda x: x[1:, :2, 1:3],
     ["crop_tensor"], {"shape": [1, 2, 2], "offsets": [1, 0, 1]}, True),
    ("crop_rest", lambda x: pyir.crop(x, [-1, 2, -1], [0, 1, 2]), {"x": X},
     lambda x: x[:, 1:3, 2:], ["crop_tensor"], {"shape": [-1, 2, -1]}, True),
    ("crop_default", lambda x: pyir.crop(x, [1, 1, 1]), {"x": X}, lambda x: x[:1, :1, :1],
     ["crop_tensor"], {"offsets": [0, 0, 0]}, True),
    ("cast", lambda x: pyir.cast(x, "float32"), {"x": X}, lambda x: x.astype(np.float32),
     ["cast"], {"in_dtype": 6, "out_dtype": 5}, False),
    ("cast_int", lambda x: pyir.cast(x * 3.0, "int32"), {"x": X},
     lambda x: (x * 3).astype(np.int32), ["scale", "cast"], {"out_dtype": 2}, False),
    ("clone", lambda x: pyir.clone(x), {"x": X}, lambda x: x, ["assign"], {}, True),
    ("assign", lambda x: pyir.assign(x), {"x": X}, lambda x: x, ["assign"], {}, True),
    ("numel", lambda x: pyir.numel(x), {"x": X}, lambda x: np.array(24, np.int64), ["size"],
     {}, False),
    ("rank", lambda x: pyir.rank(x), {"x": X}, lambda x: np.array(3, np.int32),
     ["assign_value"], {"values": [3], "shape": []}, False),
    ("shape", lambda x: pyir.shape(x), {"x": X}, lambda x: np.array([2, 3, 4], np.int32),
     ["shape"], {}, False),
    ("reduce_as", lambda x, y: pyir.reduce_as(x, y), {"x": X, "y": Y},
     lambda x, y: x.sum(0, keepdims=True), ["reduce_as"], {}, True),
    ("shard_index", lambda i: pyir.shard_index(i, 20, 2, 1),
     {"i": np.array([[16], [1], [10], [19]], np.int64)},
     lambda i: np.where(i >= 10, i - 10, -1), ["shard_index"],
     {"index_num": 20, "nshards": 2, "shard_id": 1, "ignore_value": -1}, False),
    ("diagonal", lambda x: pyir.diagonal(x, 1, 1, 2), {"x": X},
     lambda x: np.diagonal(x, 1, 1, 2), ["diagonal"], {"offset": 1, "axis1": 1, "axis2": 2},
     True),
    ("diagonal_neg", lambda x: pyir.diagonal(x, -1, -1, 0), {"x": X},
     lambda x: np.diagonal(x, -1, 2, 0), ["diagonal"], {"axis1": 2, "axis2": 0}, True),
    ("gather", lambda x, i: pyir.gather(x, i, axis=1), {"x": X, "i": I2},
     lambda x, i: x[:, i], ["gather"], {"axis": 1}, True),
    ("gather_nd", lambda x: pyir.gather_nd(x, pyir.assign(np.array([[1, 2], [0, 0]]))),
     {"x": X}, lambda x: x[[1, 0], [2, 0]], ["assign_value", "gather_nd"], {}, True),
    ("take_along_axis", lambda x, i: pyir.take_along_axis(x, i, 1), {"x": X, "i": ID3},
     lambda x, i: np.take_along_axis(x, i, 1), ["expand_v2", "expand_v2", "take_along_axis"],
     {"Axis": 1}, True),
    ("take_along_dim_bcast", lambda x, i: pyir.take_along_dim(x, i, 1),
     {"x": X, "i": ID3[:1, :, :1]}, lambda x, i: np.take_along_axis(
         x, np.broadcast_to(i, (2, 1, 4)), 1),
     ["expand_v2", "expand_v2", "take_along_axis"], {"Axis": 1}, True),
    ("put_along_axis", lambda x, i: pyir.put_along_axis(x, i, 9.0, 1), {"x": X, "i": ID3},
     lambda x, i: _put_along(x, i, np.full(i.shape, 9.0), 1),
     ["assign_value", "expand_v2", "expand_v2", "put_along_axis"],
     {"Axis": 1, "Reduce": "assign", "Include_self": True}, True),
    ("scatter_add", lambda x, i, y: pyir.scatter_add(x, 1, i, y[:, :1] * 1.0),
     {"x": X, "i": ID3, "y": Y * np.ones((2, 1, 1))},
     lambda x, i, y: _put_along(x, i, y[:, :1], 1, add=True),
     ["slice", "scale", "put_along_axis"], {"Reduce": "add"}, True),
    ("scatter_reduce", lambda x, i, y: pyir.scatter_reduce(x, 1, i, y[:, :1] * 1.0, "sum"),
     {"x": X, "i": ID3, "y": Y * np.ones((2, 1, 1))},
     lambda x, i, y: _put_along(x, i, y[:, :1], 1, add=True),
     ["slice", "scale", "put_along_axis"], {"Reduce": "add"}, True),
    ("take", lambda x, i: pyir.take(x, i), {"x": X, "i": np.array([[0, -1], [23, 5]])},
     lambda x, i: x.ravel()[i],
     ["flatten_contiguous_range", "flatten_contiguous_range", "fill_constant", "less_than",
      "scale", "where", "index_select", "reshape2"], {"shape": [2, 2]}, True),
    ("take_wrap", lambda x, i: pyir.take(x, i, mode="wrap"), {"x": X, "i": np.array([25, -2])},
     lambda x, i: x.ravel()[i % 24], None, {}, True),
    ("take_clip", lambda x, i: pyir.take(x, i, mode="clip"), {"x": X, "i": np.array([99, -3])},
     lambda x, i: x.ravel()[[23, 0]], None, {}, True),
    ("scatter", lambda m, u: pyir.scatter(m, pyir.assign(np.array([2, 0])), u),
     {"m": M, "u": M[:2] * 5}, lambda m, u: _set(m, [2, 0], u),
     ["assign_value", "scatter"], {"overwrite": True}, True),
    ("scatter_accumulate", lambda m, u: pyir.scatter(m, pyir.assign(np.array([1, 1])), u,
                                                     overwrite=False),
     {"m": M, "u": M[:2] * 5}, lambda m, u: _set(m, 1, u.sum(0)),
     ["assign_value", "scatter"], {"overwrite": False}, False),
    ("scatter_nd_add", lambda m, u: pyir.scatter_nd_add(m, pyir.assign(np.array([[1], [1]])),
                                                        u),
     {"m": M, "u": M[:2]}, lambda m, u: _set(m, 1, m[1] + u.sum(0)),
     ["assign_value", "scatter_nd_add"], {}, True),
    ("scatter_nd", lambda u: pyir.scatter_nd(pyir.assign(np.array([[2], [0]])), u, [3, 4]),
     {"u": M[:2]}, lambda u: np.stack([u[1], np.zeros(4), u[0]]),
     ["assign_value", "fill_constant", "scatter_nd_add"], {}, True),
    ("index_add", lambda x, i, u: pyir.index_add(x, i, 1, u), {"x": X, "i": I2,
                                                               "u": X[:, :2] * 3},
     lambda x, i, u: _set(x, (slice(None), i), x[:, i] + u), ["index_add"], {"axis": 1},
     True),
    ("index_put", lambda x, j, i, u: pyir.index_put(x, (j, i), u),
     {"x": X, "j": np.array([1, 0]), "i": I2, "u": X[0, :2] * 2},
     lambda x, j, i, u: _set(x, (j, i), u), ["index_put"], {"accumulate": False}, True),
    ("index_put_add", lambda m, i, u: pyir.index_put(m, (i,), u, accumulate=True),
     {"m": M, "i": np.array([1, 1]), "u": M[0] * 1.0}, lambda m, i, u: _set(m, 1, m[1] + 2 * u),
     ["index_put"], {"accumulate": True}, True),
    ("index_fill", lambda x, i: pyir.index_fill(x, i, 1, -2.0), {"x": X, "i": I2},
     lambda x, i: _set(x, (slice(None), i), -2.0),
     ["transpose2", "fill_constant", "index_put", "transpose2"], {"axis": [1, 0, 2]}, True),
    ("masked_fill", lambda x: pyir.masked_fill(x, x > 0.2, 0.5), {"x": X},
     lambda x: np.where(x > 0.2, 0.5, x),
     ["fill_constant", "greater_than", "fill_constant", "cast", "masked_fill"], {}, True),
    ("masked_fill_tensor", lambda x, v: pyir.masked_fill(x, x[:1] > 0.2, v),
     {"x": X, "v": np.array(0.5)}, lambda x, v: np.where(x[:1] > 0.2, v, x), None, {}, True),
    ("masked_scatter", lambda x, s: pyir.masked_scatter(x, x > 0.0, s),
     {"x": X, "s": np.arange(30.0)}, lambda x, s: _set(x, x > 0, s[:int((x > 0).sum())]),
     None, {}, True),
    ("masked_scatter_bcast", lambda x, s: pyir.masked_scatter(x, x[0] > 0.0, s),
     {"x": X, "s": np.arange(30.0)},
     lambda x, s: _set(x, np.broadcast_to(x[0] > 0, x.shape),
                       s[:2 * int((x[0] > 0).sum())]),
     ["slice", "fill_constant", "greater_than", "expand_v2", "cast",
      "flatten_contiguous_range", "cumsum", "flatten_contiguous_range", "gather", "reshape2",
      "where"], {}, True),
    ("slice_scatter", lambda x, u: pyir.slice_scatter(x, u, [2], [0], [4], [2]),
     {"x": X, "u": X[..., :2] * 3}, lambda x, u: _set(x, (..., slice(0, 4, 2)), u),
     ["set_value"], {"axes": [2], "starts": [0], "ends": [4], "steps": [2]}, True),
    ("select_scatter", lambda x, u: pyir.select_scatter(x, u, 1, -1),
     {"x": X, "u": X[:, 0] * 3}, lambda x, u: _set(x, (slice(None), 2), u),
     ["set_value"], {"axes": [1], "starts": [2], "decrease_axes": [1]}, True),
    ("diagonal_scatter", lambda m, d: pyir.diagonal_scatter(m, d), {"m": M, "d": V * 4},
     lambda m, d: _diag_scatter(m, d), ["reshape2", "fill_diagonal_tensor"],
     {"offset": 0, "dim1": 0, "dim2": 1}, True),
]


@pytest.mark.parametrize("build, inputs, reference, op_types, attrs",
                         [c[1:6] for c in CASES], ids=[c[0] for c in CASES])
def test_static_builds_paddles_ops_and_matches_numpy(build, inputs, reference, op_types,
                                                    attrs):
    outs, values, ops = static_run(build, inputs)
    if op_types is not None:
        assert ops == op_types
    if attrs:
        last = pyir.static.default_main_program().global_block().ops[-1]
        assert {k: last.attrs[k] for k in attrs} == attrs
    want = as_list(reference(**inputs))
    assert_values(values, want, "static")
    for var, w in zip(outs, want):
        assert len(var.shape) == np.ndim(w) and all(
            d in (-1, s) for d, s in zip(var.shape, np.shape(w))), (var.shape, np.shape(w))


@pytest.mark.parametrize("build, inputs, reference", [c[1:4] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_eager_matches_numpy(build, inputs, reference):
    outs, _ = eager_run(build, inputs)
    assert_values([o.numpy() for o in outs], as_list(reference(**inputs)), "eager")


@pytest.mark.parametrize("build, inputs, reference", [c[1:4] for c in CASES if c[6]],
                         ids=[c[0] for c in CASES if c[6]])
def test_eager_gradient_matches_finite_differences(build, inputs, reference):
    check_eager_grad(build, reference, inputs)
