"""Linear algebra API, products / norms / distances: each function built in static mode (the
ops Paddle emits, run by the Executor) and run eagerly, against numpy; tape gradients against
finite differences; every refusal."""

from __future__ import annotations

import numpy as np
import pytest

import pyir
from pyir.errors import BuildError

from linalg_harness import check_both, check_grads, run_eager, static_ops

R = np.random.default_rng(7)


def _m(*shape):
    return R.uniform(-1.0, 1.0, shape).astype(np.float32)


A34, B45, A33, B33 = _m(3, 4), _m(4, 5), _m(3, 3), _m(3, 3)
V3, W3, V4 = _m(3), _m(3), _m(4)
BAT1, BAT2 = _m(2, 3, 4), _m(2, 4, 5)
X234 = _m(2, 3, 4)
INF = float("inf")

# (id, function, inputs, numpy reference, op types built in static mode)
CASES = [
    ("matmul", lambda x, y: pyir.matmul(x, y, transpose_y=True), [A34, _m(5, 4)],
     lambda x, y: x @ y.T, ["matmul_v2"]),
    ("mm", pyir.mm, [A34, B45], lambda x, y: x @ y, ["matmul_v2"]),
    ("bmm", pyir.bmm, [BAT1, BAT2], lambda x, y: np.einsum("bij,bjk->bik", x, y), ["bmm"]),
    ("dot-1d", pyir.dot, [V3, W3], lambda x, y: np.float32(x @ y), ["dot"]),
    ("dot-2d", pyir.dot, [A34, _m(3, 4)], lambda x, y: (x * y).sum(1), ["dot"]),
    ("mv", pyir.mv, [A34, V4], lambda x, v: x @ v, ["mv"]),
    ("addmm", lambda i, x, y: pyir.addmm(i, x, y, beta=0.5, alpha=-2.0), [_m(3, 5), A34, B45],
     lambda i, x, y: 0.5 * i - 2.0 * x @ y, ["addmm"]),
    ("addmm-broadcast", pyir.addmm, [_m(5), A34, B45], lambda i, x, y: i + x @ y, ["addmm"]),
    ("baddbmm", lambda i, x, y: pyir.baddbmm(i, x, y, beta=2.0, alpha=0.5),
     [_m(2, 3, 5), BAT1, BAT2], lambda i, x, y: 2 * i + 0.5 * np.matmul(x, y), ["baddbmm"]),
    ("einsum", lambda x, y: pyir.einsum("bij,bjk->bki", x, y), [BAT1, BAT2],
     lambda x, y: np.einsum("bij,bjk->bki", x, y), ["einsum"]),
    ("einsum-ellipsis-implicit", lambda x: pyir.einsum("...ij", x), [X234],
     lambda x: np.einsum("...ij", x), ["einsum"]),
    ("tensordot-int", lambda x, y: pyir.tensordot(x, y, 1), [X234, B45],
     lambda x, y: np.tensordot(x, y, 1), ["reshape2", "reshape2", "matmul_v2", "reshape2"]),
    ("tensordot-lists", lambda x, y: pyir.tensordot(x, y, [[0, 2], [2, 0]]),
     [X234, _m(4, 5, 2)], lambda x, y: np.tensordot(x, y, [[0, 2], [2, 0]]),
     ["transpose2", "transpose2", "reshape2", "reshape2", "matmul_v2", "reshape2"]),
    ("tensordot-one-list", lambda x, y: pyir.tensordot(x, y, [1]), [X234, X234],
     lambda x, y: np.tensordot(x, y, [[1], [1]]), None),
    ("tensordot-0", lambda x, y: pyir.tensordot(x, y, 0), [V3, V4],
     lambda x, y: np.multiply.outer(x, y), None),
    ("kron", pyir.kron, [_m(2, 3), _m(3, 2)], np.kron, ["kron"]),
    ("outer", pyir.outer, [_m(2, 3), V4], lambda x, y: np.outer(x, y),
     ["reshape2", "reshape2", "matmul_v2"]),
    ("inner", pyir.inner, [X234, A34], np.inner,
     ["reshape2", "reshape2", "transpose2", "matmul_v2", "reshape2"]),
    ("inner-1d", pyir.inner, [V3, W3], lambda x, y: np.float32(np.inner(x, y)), None),
    ("cross-default", pyir.cross, [_m(2, 3), _m(2, 3)], lambda x, y: np.cross(x, y, axis=1),
     ["cross"]),
    ("cross-axis0", lambda x, y: pyir.cross(x, y, axis=0), [_m(3, 3), _m(3, 3)],
     lambda x, y: np.cross(x, y, axis=0), ["cross"]),
    ("trace", lambda x: pyir.trace(x, offset=-1, axis1=1, axis2=2), [X234],
     lambda x: np.trace(x, -1, 1, 2), ["trace"]),
    ("matrix_transpose", pyir.linalg.matrix_transpose, [X234],
     lambda x: np.swapaxes(x, -1, -2), ["transpose2"]),
    ("vecdot", lambda x, y: pyir.linalg.vecdot(x, y, axis=1), [X234, X234[:1]],
     lambda x, y: (x * y).sum(1), ["elementwise_mul", "reduce_sum"]),
    ("multi_dot", lambda *m: pyir.linalg.multi_dot(list(m)), [V3, A34, B45, _m(5)],
     lambda a, b, c, d: np.float32(np.linalg.multi_dot([a, b, c, d])), ["multi_dot"]),
    ("multi_dot-matrices", lambda a, b, c: pyir.linalg.multi_dot([a, b, c]), [A34, B45, _m(5, 2)],
     lambda a, b, c: a @ b @ c, ["multi_dot"]),
    # norms
    ("norm-default", pyir.norm, [X234], lambda x: np.float32(np.linalg.norm(x)), ["p_norm"]),
    ("norm-fro-noaxis", lambda x: pyir.norm(x, "fro"), [X234],
     lambda x: np.float32(np.linalg.norm(x)), ["p_norm"]),
    ("norm-p1-all", lambda x: pyir.norm(x, 1), [X234], lambda x: np.abs(x).sum(), ["p_norm"]),
    ("norm-p3-axis", lambda x: pyir.norm(x, 3, axis=-1, keepdim=True), [X234],
     lambda x: np.linalg.norm(x, 3, axis=-1, keepdims=True), ["p_norm"]),
    ("norm-p0-axis", lambda x: pyir.norm(x, 0, axis=1), [np.array([[0.0, 1.0], [0.0, 0.0]])],
     lambda x: np.array([1.0, 0.0]), ["p_norm"]),
    ("norm-inf-axis", lambda x: pyir.norm(x, INF, axis=0), [A34],
     lambda x: np.abs(x).max(0), ["p_norm"]),
    ("norm-neginf-axis", lambda x: pyir.norm(x, -INF, axis=-1), [A34],
     lambda x: np.abs(x).min(-1), ["p_norm"]),
    ("norm-fro-axes", lambda x: pyir.norm(x, "fro", axis=[0, 2]), [X234],
     lambda x: np.linalg.norm(x, axis=(0, 2)), ["frobenius_norm"]),
    ("norm-nuc", lambda x: pyir.norm(x, "nuc", axis=[1, 2]), [X234],
     lambda x: np.linalg.norm(x, "nuc", axis=(1, 2)), ["svd", "reduce_sum"]),
    ("norm-nuc-2d", lambda x: pyir.norm(x, "nuc"), [A34],
     lambda x: np.float32(np.linalg.norm(x, "nuc")), ["svd", "reduce_sum"]),
    ("norm-2-matrix", lambda x: pyir.norm(x, 2, axis=[2, 1]), [X234],
     lambda x: np.linalg.norm(x, 2, axis=(2, 1)), ["transpose2", "svd", "reduce_max"]),
    ("norm-neg2-matrix-keep", lambda x: pyir.norm(x, -2, axis=[1, 2], keepdim=True), [X234],
     lambda x: np.linalg.norm(x, -2, axis=(1, 2), keepdims=True),
     ["svd", "reduce_min", "unsqueeze2"]),
    ("norm-1-matrix", lambda x: pyir.norm(x, 1, axis=[1, 2]), [X234],
     lambda x: np.linalg.norm(x, 1, axis=(1, 2)), ["p_norm", "reduce_max", "squeeze2"]),
    ("norm-inf-matrix", lambda x: pyir.norm(x, INF, axis=[1, 2]), [X234],
     lambda x: np.linalg.norm(x, INF, axis=(1, 2)), None),
    ("norm-neg1-matrix", lambda x: pyir.norm(x, -1, axis=[-2, -1]), [X234],
     lambda x: np.linalg.norm(x, -1, axis=(-2, -1)), None),
    ("norm-neginf-matrix-keep", lambda x: pyir.norm(x, -INF, axis=[0, 1], keepdim=True),
     [X234], lambda x: np.linalg.norm(x, -INF, axis=(0, 1), keepdims=True), None),
    ("norm-dtype", lambda x: pyir.norm(x, dtype="float64"), [A34],
     lambda x: np.linalg.norm(x.astype(np.float64)), ["cast", "p_norm"]),
    ("vector_norm-default", pyir.linalg.vector_norm, [X234],
     lambda x: np.float32(np.linalg.norm(x)), ["p_norm"]),
    ("vector_norm-axes", lambda x: pyir.linalg.vector_norm(x, 3, axis=[0, 1]), [X234],
     lambda x: (np.abs(x) ** 3).sum((0, 1)) ** (1 / 3), ["abs", "pow", "reduce_sum", "pow"]),
    ("vector_norm-inf-axes", lambda x: pyir.linalg.vector_norm(x, INF, axis=[0, 2],
                                                               keepdim=True),
     [X234], lambda x: np.abs(x).max((0, 2), keepdims=True), ["abs", "reduce_max"]),
    ("vector_norm-neginf-axes", lambda x: pyir.linalg.vector_norm(x, -INF, axis=[0, 2]),
     [X234], lambda x: np.abs(x).min((0, 2)), ["abs", "reduce_min"]),
    ("vector_norm-0-axes", lambda x: pyir.linalg.vector_norm(x, 0, axis=[0, 1]),
     [np.array([[[0.0, 1.0]], [[2.0, 0.0]]], np.float32)], lambda x: np.array([1.0, 1.0]),
     None),
    ("matrix_norm-default", pyir.linalg.matrix_norm, [X234],
     lambda x: np.linalg.norm(x, axis=(-2, -1)), ["frobenius_norm"]),
    ("matrix_norm-nuc", lambda x: pyir.linalg.matrix_norm(x, "nuc", axis=[0, 1]), [X234],
     lambda x: np.linalg.norm(x, "nuc", axis=(0, 1)), ["transpose2", "svd", "reduce_sum"]),
    # distances
    ("dist", lambda x, y: pyir.dist(x, y, 3), [A34, V4],
     lambda x, y: np.float32((np.abs(x - y) ** 3).sum() ** (1 / 3)), ["dist"]),
    ("dist-inf", lambda x, y: pyir.dist(x, y, INF), [A34, _m(3, 4)],
     lambda x, y: np.abs(x - y).max(), ["dist"]),
    ("dist-0", lambda x, y: pyir.dist(x, y, 0), [A34, np.zeros((3, 4), np.float32)],
     lambda x, y: np.float32(np.count_nonzero(x)), ["dist"]),
    ("cdist", pyir.cdist, [A34, _m(5, 4)],
     lambda x, y: np.sqrt(((x[:, None] - y[None]) ** 2).sum(-1)),
     ["unsqueeze2", "unsqueeze2", "elementwise_sub", "p_norm"]),
    ("cdist-p1-batched", lambda x, y: pyir.cdist(x, y, p=1.0), [BAT1, _m(2, 5, 4)],
     lambda x, y: np.abs(x[:, :, None] - y[:, None]).sum(-1), None),
    ("pdist", pyir.pdist, [_m(4, 3)],
     lambda x: np.array([np.linalg.norm(x[i] - x[j]) for i in range(4) for j in range(i + 1, 4)],
                        np.float32), ["assign_value", "gather", "assign_value", "gather",
                                      "elementwise_sub", "p_norm"]),
]


@pytest.mark.parametrize("fn, inputs, reference, op_types",
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_static_and_eager_match_numpy(fn, inputs, reference, op_types):
    ops = check_both(fn, inputs, reference, rtol=2e-5, atol=2e-6)
    if op_types is not None:
        assert ops == op_types


def _attrs(fn, inputs, op_type, names):
    op = next(op for op in static_ops(fn, inputs) if op.type == op_type)
    return {n: op.attrs[n] for n in names}


@pytest.mark.parametrize("fn, inputs, op_type, attrs", [
    (lambda x: pyir.norm(x), [X234], "p_norm",
     {"porder": 2.0, "axis": -1, "keepdim": False, "asvector": True}),
    (lambda x: pyir.norm(x, 1, axis=1, keepdim=True), [X234], "p_norm",
     {"porder": 1.0, "axis": 1, "keepdim": True, "asvector": False}),
    (lambda x: pyir.norm(x, "fro", axis=[0, 1]), [X234], "frobenius_norm",
     {"dim": [0, 1], "keep_dim": False, "reduce_all": False}),
    (lambda x: pyir.linalg.matrix_norm(x), [X234], "frobenius_norm", {"dim": [-2, -1]}),
    (lambda i, x, y: pyir.addmm(i, x, y, 0.5, 2.0), [A33, A33, B33], "addmm",
     {"Beta": 0.5, "Alpha": 2.0}),
    (lambda x, y: pyir.cross(x, y), [A33, B33], "cross", {"dim": 9}),
    (lambda x, y: pyir.dist(x, y, 3), [A33, B33], "dist", {"p": 3.0}),
    (lambda x: pyir.trace(x, 1), [A33], "trace", {"offset": 1, "axis1": 0, "axis2": 1}),
    (lambda x, y: pyir.einsum("ij,jk->ik", x, y), [A33, B33], "einsum",
     {"equation": "ij,jk->ik"}),
    (lambda x, y: pyir.einsum("...ij,jk", x, y), [BAT1, B45], "einsum",
     {"equation": "aij,jk->aik"}),
    (lambda x, y: pyir.mm(x, y), [A33, B33], "matmul_v2", {"trans_x": False, "trans_y": False}),
])
def test_static_attributes_are_paddles(fn, inputs, op_type, attrs):
    assert _attrs(fn, inputs, op_type, list(attrs)) == attrs


def test_static_output_names_follow_paddle():
    x = pyir.static.data("x", [3, 3], "float32")
    assert pyir.mm(x, x).name.startswith("mm_0.tmp")
    assert pyir.outer(x, x).name.startswith("outer_0.tmp")
    assert pyir.dot(x, x).name.startswith("dot_0.tmp")


# --- gradients (eager tape against finite differences, float64) ----------------------------------
G33, H33, G34, G45 = (R.uniform(-1, 1, s) for s in [(3, 3), (3, 3), (3, 4), (4, 5)])


@pytest.mark.parametrize("fn, inputs, wrt", [
    (pyir.mm, [G34, G45], (0, 1)),
    (pyir.bmm, [R.uniform(-1, 1, (2, 3, 4)), R.uniform(-1, 1, (2, 4, 2))], (0, 1)),
    (pyir.dot, [G34, R.uniform(-1, 1, (3, 4))], (0, 1)),
    (pyir.mv, [G34, R.uniform(-1, 1, 4)], (0, 1)),
    (lambda i, x, y: pyir.addmm(i, x, y, 0.5, -1.5), [R.uniform(-1, 1, 5), G34, G45], (0, 1, 2)),
    (lambda i, x, y: pyir.baddbmm(i, x, y, 2.0, 0.5),
     [R.uniform(-1, 1, (2, 3, 2)), R.uniform(-1, 1, (2, 3, 4)), R.uniform(-1, 1, (2, 4, 2))],
     (0, 1, 2)),
    (lambda x, y: pyir.einsum("ij,jk->ki", x, y), [G34, G45], (0, 1)),
    (lambda x, y: pyir.einsum("...j,kj", x, y), [R.uniform(-1, 1, (2, 1, 4)),
                                                 R.uniform(-1, 1, (3, 4))], (0, 1)),
    (lambda x, y: pyir.tensordot(x, y, [[0], [1]]), [G34, R.uniform(-1, 1, (2, 3))], (0, 1)),
    (pyir.kron, [R.uniform(-1, 1, (2, 2)), R.uniform(-1, 1, (2, 3))], (0, 1)),
    (pyir.outer, [R.uniform(-1, 1, 3), R.uniform(-1, 1, 2)], (0, 1)),
    (pyir.inner, [G34, R.uniform(-1, 1, (2, 4))], (0, 1)),
    (pyir.cross, [G33, H33], (0, 1)),
    (lambda x: pyir.trace(x, 1), [G34], (0,)),
    (lambda x, y, z: pyir.linalg.multi_dot([x, y, z]), [R.uniform(-1, 1, 3), G34, G45],
     (0, 1, 2)),
    (lambda x: pyir.norm(x, 3, axis=1), [G34], (0,)),
    (lambda x: pyir.norm(x, "fro", axis=[0, 1]), [G34], (0,)),
    (lambda x: pyir.linalg.vector_norm(x, 3, axis=[0, 1]), [G34], (0,)),
    (lambda x: pyir.norm(x, 1, axis=[0, 1]), [G34], (0,)),
    (lambda x, y: pyir.dist(x, y, 2.5), [G34, R.uniform(-1, 1, 4)], (0, 1)),
    (pyir.cdist, [G34, R.uniform(-1, 1, (2, 4))], (0, 1)),
    (pyir.pdist, [G34], (0,)),
    (lambda x, y: pyir.linalg.vecdot(x, y, 0), [G34, R.uniform(-1, 1, (3, 4))], (0, 1)),
])
def test_gradients_match_finite_differences(fn, inputs, wrt):
    check_grads(fn, inputs, wrt)


def test_in_place_addmm_writes_into_input():
    pyir.disable_static()
    base = pyir.to_tensor(np.ones((2, 2)))
    x, y = pyir.to_tensor(np.eye(2)), pyir.to_tensor(np.full((2, 2), 2.0))
    result = base.addmm_(x, y, beta=2.0, alpha=1.0)
    assert result is base
    np.testing.assert_allclose(base.numpy(), 2.0 + 2.0 * np.ones((2, 2)))


def test_empty_operands():
    empty = np.zeros((0, 3), np.float32)
    (value,) = run_eager(pyir.mm, [empty, _m(3, 2)])
    assert value.shape == (0, 2)
    (value,) = run_eager(pyir.mm, [_m(2, 0), _m(0, 3)])
    np.testing.assert_array_equal(value, np.zeros((2, 3)))
    (value,) = run_eager(lambda x: pyir.norm(x, 2, axis=1), [empty])
    assert value.shape == (0,)


# --- refusals ------------------------------------------------------------------------------------
@pytest.mark.parametrize("fn, inputs, match", [
    (pyir.bmm, [A34, B45], "bmm: x must be 3-D"),
    (pyir.bmm, [BAT1, _m(3, 4, 5)], "same batch"),
    (pyir.dot, [X234, X234], "dot: x must be 1-D or 2-D"),
    (pyir.mv, [A34, A34], "mv: vec must be 1-D"),
    (pyir.addmm, [A33, V3, B33], "addmm: x must be 2-D"),
    (pyir.baddbmm, [A33, A33, B33], "baddbmm: x must be 3-D"),
    (lambda x: pyir.einsum(3, x), [A33], "equation must be a string"),
    (lambda x: pyir.einsum("ij,jk", x), [A33], "names 2 operands"),
    (lambda x: pyir.einsum("ijk", x), [A33], "do not match"),
    (lambda x, y: pyir.tensordot(x, y, 5), [A33, B33], r"axes 5 must be in \[0, 2\]"),
    (lambda x, y: pyir.tensordot(x, y, [[0], [0, 1]]), [A33, B33], "as many contracted"),
    (lambda x, y: pyir.tensordot(x, y, [[0]] * 3), [A33, B33], "two lists"),
    (lambda x, y: pyir.tensordot(x, y, [[1], [1]]), [A34, A33], "differ"),
    (pyir.inner, [A34, A33], "the last dims"),
    (pyir.cross, [A33, A34], "same shape"),
    (pyir.cross, [_m(2, 4), _m(2, 4)], "no axis of size 3"),
    (lambda x, y: pyir.cross(x, y, axis=1), [_m(3, 2), _m(3, 2)], "must exist and have size 3"),
    (pyir.trace, [V3], "at least 2-D"),
    (lambda x: pyir.trace(x, axis1=1, axis2=-1), [A33], "must differ"),
    (pyir.linalg.matrix_transpose, [V3], "at least 2-D"),
    (lambda x, y: pyir.linalg.vecdot(x, y, axis=2), [A33, B33], "out of range"),
    (lambda x: pyir.linalg.multi_dot([x]), [A33], "at least 2 tensors"),
    (lambda x, y: pyir.linalg.multi_dot([x, y, y]), [A33, V3], r"x\[1\] must be 2-D"),
    (lambda x: pyir.norm(x, "abc"), [A33], "p must be a number, 'fro' or 'nuc'"),
    (lambda x: pyir.norm(x, [1]), [A33], "p must be a number"),
    (lambda x: pyir.norm(x, "nuc"), [X234], "needs a 2-D x"),
    (lambda x: pyir.norm(x, "nuc", axis=1), [A33], "needs two axes"),
    (lambda x: pyir.norm(x, 3, axis=[0, 1]), [A33], "for a matrix norm"),
    (lambda x: pyir.norm(x, 2, axis=[0, 1, 2]), [X234], "a list of 1 or 2 ints"),
    (lambda x: pyir.norm(x, 2, axis=3), [X234], "out of range"),
    (lambda x: pyir.norm(x, 2, axis=[1, -2]), [X234], "repeats"),
    (lambda x: pyir.norm(x, 2, axis=1.5), [X234], "axis must be an int or a list"),
    (lambda x: pyir.norm(x, out=x), [A33], "out= is not supported"),
    (lambda x: pyir.linalg.vector_norm(x, "fro"), [A33], "p must be a number, got 'fro'"),
    (lambda x: pyir.linalg.matrix_norm(x, axis=[0]), [A33], "needs 2 axes"),
    (lambda x, y: pyir.cdist(x, y, compute_mode="fast"), [A33, B33], "compute_mode"),
    (lambda x, y: pyir.cdist(x, y), [V3, B33], "at least 2-D"),
    (lambda x, y: pyir.cdist(x, y), [A34, A33], "same last dim"),
    (lambda x, y: pyir.cdist(x, y, p=-1.0), [A33, B33], "non-negative"),
    (pyir.pdist, [V3], "pdist: x must be 2-D"),
    (lambda x, y: pyir.matmul(x, y, out=x), [A33, B33], "out= is not supported"),
])
def test_refusals(fn, inputs, match):
    with pytest.raises(BuildError, match=match):
        run_eager(fn, inputs)
