"""Matrix functions, solvers and decompositions of `pyir.linalg`: static (ops Paddle emits, run
by the Executor) and eager against numpy; decompositions by their defining properties;
gradients against finite differences; refusals."""

from __future__ import annotations

import numpy as np
import pytest

import pyir
from pyir import framework
from pyir.errors import BuildError
from pyir.executor import Executor

from linalg_harness import check_both, check_grads, run_eager, run_static, static_ops

R = np.random.default_rng(5)
L = pyir.linalg


def _m(*shape, dtype=np.float64):
    return R.uniform(-1.0, 1.0, shape).astype(dtype)


def _spd(n, *batch):
    a = _m(*batch, n, n)
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


A, B = _m(3, 3) + 2 * np.eye(3), _m(3, 2)
SPD, SPD_B = _spd(3), _spd(3, 2)
BATCH = _m(2, 3, 3) + 2 * np.eye(3)
T = np.swapaxes


def _tri_solve(x, y, upper=True, transpose=False, unit=False):
    t = np.triu(x) if upper else np.tril(x)
    if unit:
        t = t - np.diag(np.diag(t)) + np.eye(len(t))
    return np.linalg.solve(t.T if transpose else t, y)


def _householder(x, tau):
    """Q = prod_i (I - tau_i v_i v_i^T) from its definition."""
    m = x.shape[0]
    q = np.eye(m)
    for i in range(len(tau)):
        v = np.zeros(m)
        v[i] = 1.0
        v[i + 1:] = x[i + 1:, i]
        q = q @ (np.eye(m) - tau[i] * np.outer(v, v))
    return q


CASES = [
    ("cholesky", L.cholesky, [SPD_B], np.linalg.cholesky, ["cholesky"]),
    ("cholesky-upper", lambda x: pyir.cholesky(x, upper=True), [SPD],
     lambda x: np.linalg.cholesky(x).T, ["cholesky"]),
    ("inverse", pyir.inverse, [BATCH], np.linalg.inv, ["inverse"]),
    ("inv", L.inv, [A], np.linalg.inv, ["inverse"]),
    ("det", L.det, [BATCH], np.linalg.det, ["determinant"]),
    ("slogdet", L.slogdet, [BATCH - 3 * np.eye(3)],
     lambda x: np.stack(np.linalg.slogdet(x)), ["slogdeterminant"]),
    ("matrix_power", lambda x: L.matrix_power(x, 3), [A],
     lambda x: np.linalg.matrix_power(x, 3), ["matrix_power"]),
    ("matrix_power-neg", lambda x: L.matrix_power(x, -2), [BATCH],
     lambda x: np.linalg.matrix_power(x, -2), ["matrix_power"]),
    ("matrix_power-0", lambda x: L.matrix_power(x, 0), [A], lambda x: np.eye(3),
     ["matrix_power"]),
    ("cholesky_solve", L.cholesky_solve, [B, np.linalg.cholesky(SPD)],
     lambda b, f: np.linalg.solve(f @ f.T, b), ["cholesky_solve"]),
    ("cholesky_solve-upper-batched", lambda b, f: L.cholesky_solve(b, f, upper=True),
     [_m(2, 3, 1), T(np.linalg.cholesky(SPD_B), -1, -2).copy()],
     lambda b, f: np.linalg.solve(T(f, -1, -2) @ f, b), ["cholesky_solve"]),
    ("cholesky_inverse", L.cholesky_inverse, [np.linalg.cholesky(SPD)],
     lambda f: np.linalg.inv(f @ f.T), ["transpose2", "matmul_v2", "inverse"]),
    ("cholesky_inverse-upper", lambda f: L.cholesky_inverse(f, upper=True),
     [np.linalg.cholesky(SPD).T.copy()], lambda f: np.linalg.inv(f.T @ f), None),
    ("solve", L.solve, [A, B], np.linalg.solve, ["solve"]),
    ("solve-vector", L.solve, [A, B[:, 0].copy()], np.linalg.solve, ["solve"]),
    ("solve-batched-vectors", L.solve, [BATCH, _m(2, 3)],
     lambda x, y: np.einsum("bij,bj->bi", np.linalg.inv(x), y), ["solve"]),
    ("solve-broadcast", L.solve, [BATCH, B], lambda x, y: np.linalg.inv(x) @ y, ["solve"]),
    ("solve-right", lambda x, y: L.solve(x, y, left=False), [A, B.T.copy()],
     lambda x, y: y @ np.linalg.inv(x), ["transpose2", "transpose2", "solve", "transpose2"]),
    ("triangular_solve", L.triangular_solve, [A, B], _tri_solve, ["triangular_solve"]),
    ("triangular_solve-lower-t-unit",
     lambda x, y: L.triangular_solve(x, y, upper=False, transpose=True, unitriangular=True),
     [A, B], lambda x, y: _tri_solve(x, y, False, True, True), ["triangular_solve"]),
    ("svdvals", L.svdvals, [_m(2, 4, 3)], lambda x: np.linalg.svd(x, compute_uv=False),
     ["svdvals"]),
    ("eigvalsh", L.eigvalsh, [_m(2, 3, 3)], lambda x: np.linalg.eigvalsh(x), ["eigvalsh"]),
    ("eigvalsh-U", lambda x: pyir.eigvalsh(x, "U"), [_m(3, 3)],
     lambda x: np.linalg.eigvalsh(x, "U"), ["eigvalsh"]),
    ("eigvals", L.eigvals, [np.array([[2.0, 1.0], [0.0, 3.0]])],
     lambda x: np.array([2.0, 3.0], np.complex128), ["eigvals"]),
    ("matrix_rank", L.matrix_rank, [np.array([[1.0, 2.0], [2.0, 4.0]])],
     lambda x: np.int64(1), ["matrix_rank"]),
    ("matrix_rank-batched", L.matrix_rank, [_m(2, 3, 4)],
     lambda x: np.linalg.matrix_rank(x).astype(np.int64), ["matrix_rank"]),
    ("matrix_rank-tol", lambda x: L.matrix_rank(x, tol=0.2), [np.diag([3.0, 0.5, 0.1])],
     lambda x: np.int64(2), ["matrix_rank"]),
    ("matrix_rank-tol-tensor", lambda x, t: L.matrix_rank(x, tol=t),
     [np.stack([np.diag([3.0, 0.5, 0.1])] * 2), np.array([0.05, 1.0])],
     lambda x, t: np.array([3, 1]), ["matrix_rank"]),
    ("matrix_rank-hermitian", lambda x: L.matrix_rank(x, hermitian=True),
     [np.diag([-3.0, 0.0, 1.0])], lambda x: np.int64(2), ["matrix_rank"]),
    ("matrix_rank-atol-rtol", lambda x: L.matrix_rank(x, atol=0.2, rtol=0.1),
     [np.diag([3.0, 0.5, 0.25, 0.1])], lambda x: np.int64(2), None),
    ("matrix_rank-rtol", lambda x: L.matrix_rank(x, rtol=0.1), [np.diag([3.0, 0.5, 0.25])],
     lambda x: np.int64(2), None),
    ("pinv", L.pinv, [_m(3, 4)], np.linalg.pinv, None),
    ("pinv-rank-deficient", lambda x: L.pinv(x, rcond=1e-6),
     [np.array([[1.0, 2.0], [2.0, 4.0]])], np.linalg.pinv, None),
    ("pinv-hermitian", lambda x: L.pinv(x, hermitian=True), [SPD_B - 3 * np.eye(3)],
     lambda x: np.linalg.pinv(x, hermitian=True), None),
    ("cond", L.cond, [_m(3, 4)], np.linalg.cond, None),
    ("cond-neg2", lambda x: L.cond(x, -2), [BATCH], lambda x: np.linalg.cond(x, -2), None),
    ("cond-fro", lambda x: L.cond(x, "fro"), [BATCH], lambda x: np.linalg.cond(x, "fro"), None),
    ("cond-nuc", lambda x: L.cond(x, "nuc"), [A], lambda x: np.linalg.cond(x, "nuc"), None),
    ("cond-1", lambda x: L.cond(x, 1), [A], lambda x: np.linalg.cond(x, 1), None),
    ("cond-inf", lambda x: L.cond(x, float("inf")), [A],
     lambda x: np.linalg.cond(x, np.inf), None),
    ("matrix_exp", L.matrix_exp, [_m(2, 3, 3) * 3],
     lambda x: np.stack([_expm_series(m) for m in x]), ["matrix_exp"]),
    ("householder_product", L.householder_product, [_m(4, 2), np.array([0.5, 1.2])],
     lambda x, t: _householder(x, t)[:, :2], None),
    ("ormqr", L.ormqr, [_m(4, 2), np.array([0.5, 1.2]), _m(2, 3)],
     lambda x, t, y: _householder(x, t)[:, :2] @ y, None),
    ("ormqr-transpose", lambda x, t, y: L.ormqr(x, t, y, transpose=True),
     [_m(4, 2), np.array([0.5, 1.2]), _m(4, 3)],
     lambda x, t, y: _householder(x, t)[:, :2].T @ y, None),
    ("ormqr-right", lambda x, t, y: L.ormqr(x, t, y, left=False),
     [_m(3, 3), np.array([1.5, 0.2, 0.0]), _m(2, 3)],
     lambda x, t, y: y @ _householder(x, t), None),
    ("ormqr-right-transpose", lambda x, t, y: L.ormqr(x, t, y, left=False, transpose=True),
     [_m(3, 3), np.array([1.5, 0.2, 0.0]), _m(2, 3)],
     lambda x, t, y: y @ _householder(x, t).T, None),
    ("cov", L.cov, [_m(3, 5)], np.cov, None),
    ("cov-cols-biased", lambda x: L.cov(x, rowvar=False, ddof=False), [_m(5, 2)],
     lambda x: np.cov(x, rowvar=False, ddof=0), None),
    ("cov-weights", lambda x, f, a: L.cov(x, fweights=f, aweights=a),
     [_m(3, 5), np.array([1, 2, 1, 1, 3]), np.array([0.5, 1.0, 1.0, 2.0, 1.0])],
     lambda x, f, a: np.cov(x, fweights=f, aweights=a), None),
    ("cov-fweights-biased", lambda x, f: L.cov(x, ddof=False, fweights=f),
     [_m(2, 4), np.array([1, 2, 1, 3])], lambda x, f: np.cov(x, ddof=0, fweights=f), None),
    ("cov-1d", L.cov, [_m(5)], lambda x: np.cov(x), None),
    ("corrcoef", L.corrcoef, [_m(3, 5)], np.corrcoef, None),
    ("corrcoef-cols", lambda x: L.corrcoef(x, rowvar=False), [_m(5, 3)],
     lambda x: np.corrcoef(x, rowvar=False), None),
]


def _expm_series(m, terms=60):
    out, term = np.eye(len(m)), np.eye(len(m))
    for k in range(1, terms):
        term = term @ m / k
        out = out + term
    return out


@pytest.mark.parametrize("fn, inputs, reference, op_types",
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_static_and_eager_match_numpy(fn, inputs, reference, op_types):
    ops = check_both(fn, inputs, reference, rtol=1e-7, atol=1e-9)
    if op_types is not None:
        assert ops == op_types


def test_float32_inputs_keep_float32():
    x = A.astype(np.float32)
    for fn in (L.inv, L.det, L.slogdet, L.svdvals, L.pinv, L.cond, L.matrix_exp):
        (value,) = run_eager(fn, [x])
        assert value.dtype == np.float32, fn.__name__
        np.testing.assert_allclose(value, run_eager(fn, [A])[0], rtol=2e-4, atol=1e-5)


# --- decompositions, by their properties ----------------------------------------------------------
def _both(fn, inputs):
    static, _ = run_static(fn, inputs)
    return [static, run_eager(fn, inputs)]


@pytest.mark.parametrize("x, full", [(_m(4, 3), False), (_m(2, 3, 5), False), (_m(4, 3), True)])
def test_svd_rebuilds_x(x, full):
    for u, s, vh in _both(lambda t: L.svd(t, full_matrices=full), [x]):
        np.testing.assert_allclose(s, np.linalg.svd(x, compute_uv=False), atol=1e-12)
        k = s.shape[-1]
        np.testing.assert_allclose((u[..., :k] * s[..., None, :]) @ vh[..., :k, :], x,
                                   atol=1e-12)
        assert u.shape[-1] == (x.shape[-2] if full else k)
        np.testing.assert_allclose(T(u, -1, -2) @ u, np.eye(u.shape[-1]) + 0 * u[..., :1, :1],
                                   atol=1e-12)


@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_qr_rebuilds_x(mode):
    x = _m(2, 4, 3)
    for q, r in _both(lambda t: L.qr(t, mode), [x]):
        np.testing.assert_allclose(q @ r, x, atol=1e-12)
        np.testing.assert_allclose(r, np.triu(r), atol=0)
        assert q.shape == ((2, 4, 3) if mode == "reduced" else (2, 4, 4))
    (r,) = run_eager(lambda t: L.qr(t, "r"), [x])
    np.testing.assert_allclose(np.abs(r), np.abs(np.linalg.qr(x)[1]), atol=1e-12)


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_diagonalizes_the_uplo_triangle(uplo):
    x = _m(2, 3, 3)
    tri = np.tril(x) if uplo == "L" else np.triu(x)
    sym = tri + T(tri, -1, -2) - tri * np.eye(3)
    for w, v in _both(lambda t: L.eigh(t, uplo), [x]):
        np.testing.assert_allclose(w, np.linalg.eigvalsh(sym), atol=1e-12)
        np.testing.assert_allclose(sym @ v, v * w[..., None, :], atol=1e-12)


def test_eig_gives_complex_pairs():
    x = np.array([[0.0, -2.0], [2.0, 0.0]], np.float32)
    for w, v in _both(L.eig, [x]):
        assert w.dtype == np.complex64 and v.dtype == np.complex64
        np.testing.assert_allclose(sorted(w, key=lambda c: c.imag), [-2j, 2j], atol=1e-6)
        np.testing.assert_allclose(x @ v, v * w[None, :], atol=1e-6)


def test_lu_factors_with_partial_pivoting():
    x = _m(2, 4, 3)
    for packed, pivots, infos in _both(lambda t: L.lu(t, get_infos=True), [x]):
        assert pivots.dtype == np.int32 and pivots.shape == (2, 3) and infos.shape == (2,)
        assert not infos.any()
        p, lower, upper = run_eager(L.lu_unpack, [packed, pivots])
        np.testing.assert_allclose(p @ lower @ upper, x, atol=1e-12)
        np.testing.assert_allclose(np.abs(np.tril(lower, -1)).max() <= 1.0, True)
    # the Paddle 3.3.1 example: [[1, 2], [3, 4]] -> pivots [2, 2]
    packed, pivots = run_eager(L.lu, [np.array([[1.0, 2.0], [3.0, 4.0]])])
    np.testing.assert_array_equal(pivots, [2, 2])
    np.testing.assert_allclose(packed, [[3.0, 4.0], [1 / 3, 2 / 3]])


def test_lu_reports_singular_matrices():
    _, _, infos = run_eager(lambda t: L.lu(t, get_infos=True), [np.zeros((2, 2))])
    assert infos == 1


@pytest.mark.parametrize("trans", ["N", "T"])
def test_lu_solve(trans):
    a, b = _m(3, 3) + 2 * np.eye(3), _m(3, 2)
    packed, pivots = run_eager(L.lu, [a])
    want = np.linalg.solve(a if trans == "N" else a.T, b)
    for (value,) in _both(lambda b, lu, p: L.lu_solve(b, lu, p, trans), [b, packed, pivots]):
        np.testing.assert_allclose(value, want, atol=1e-12)


@pytest.mark.parametrize("driver", [None, "gels", "gelsd", "gelss"])
def test_lstsq_drivers(driver):
    x, y = _m(5, 3), _m(5, 2)
    solution, residuals, rank, values = run_eager(lambda a, b: L.lstsq(a, b, driver=driver),
                                                  [x, y])
    np.testing.assert_allclose(solution, np.linalg.lstsq(x, y, rcond=None)[0], atol=1e-12)
    # Paddle 3.3.1 on the CPU: gelsy gives no residuals or singular values, gels no rank.
    if driver is None:
        assert residuals.shape == (0,) and values.shape == (0,) and rank == 3
    else:
        np.testing.assert_allclose(residuals, ((x @ solution - y) ** 2).sum(0), atol=1e-12)
    if driver in ("gelsd", "gelss"):
        np.testing.assert_allclose(values, np.linalg.svd(x, compute_uv=False), atol=1e-12)
    if driver == "gels":
        assert rank.shape == (0,)


def test_lstsq_static_attributes():
    op = next(op for op in static_ops(L.lstsq, [_m(3, 3).astype(np.float32),
                                                _m(3, 2).astype(np.float32)])
              if op.type == "lstsq")
    assert op.attrs["driver"] == "gelsy"
    assert op.attrs["rcond"] == pytest.approx(3e-7)


def test_low_rank_approximations_are_exact_for_low_rank_input():
    x = _m(6, 2) @ _m(2, 5)
    u, s, v = run_eager(lambda t: L.svd_lowrank(t, q=2), [x])
    assert u.shape == (6, 2) and s.shape == (2,) and v.shape == (5, 2)
    np.testing.assert_allclose((u * s) @ v.T, x, atol=1e-12)
    centered = x - x.mean(0)
    u, s, v = run_eager(lambda t: L.pca_lowrank(t, q=3), [x])
    np.testing.assert_allclose(s, np.linalg.svd(centered, compute_uv=False)[:3], atol=1e-12)
    m = _m(6, 5)
    u, s, v = run_eager(lambda t, m: L.svd_lowrank(t, q=2, M=m), [x + m, m])
    np.testing.assert_allclose((u * s) @ v.T, x, atol=1e-12)


@pytest.mark.parametrize("fn, inputs, op_type, attrs", [
    (lambda x: L.cholesky(x, upper=True), [SPD], "cholesky", {"upper": True}),
    (lambda x, y: L.cholesky_solve(x, y, upper=True), [B, SPD], "cholesky_solve",
     {"upper": True}),
    (lambda x, y: L.triangular_solve(x, y, False, True, True), [A, B], "triangular_solve",
     {"upper": False, "transpose": True, "unitriangular": True}),
    (lambda x: L.eigh(x, "U"), [A], "eigh", {"UPLO": "U"}),
    (lambda x: L.eigvalsh(x), [A], "eigvalsh", {"UPLO": "L", "is_test": True}),
    (lambda x: L.qr(x, "complete"), [A], "qr", {"mode": "complete"}),
    (lambda x: L.svd(x, True), [A], "svd", {"full_matrices": True}),
    (lambda x: L.lu(x), [A], "lu", {"pivots": True}),
    (lambda x: L.matrix_rank(x), [A], "matrix_rank",
     {"tol": 0.0, "use_default_tol": True, "hermitian": False}),
    (lambda x: L.matrix_rank(x, 0.5, True), [A], "matrix_rank",
     {"tol": 0.5, "use_default_tol": False, "hermitian": True}),
    (lambda x: L.matrix_power(x, -3), [A], "matrix_power", {"n": -3}),
])
def test_static_attributes_are_paddles(fn, inputs, op_type, attrs):
    op = next(op for op in static_ops(fn, inputs) if op.type == op_type)
    assert {k: op.attrs[k] for k in attrs} == attrs


# --- gradients ------------------------------------------------------------------------------------
@pytest.mark.parametrize("fn, inputs, wrt", [
    (pyir.inverse, [A], (0,)),
    (L.det, [BATCH], (0,)),
    (lambda x: L.slogdet(x)[1], [A - 3 * np.eye(3)], (0,)),
    (lambda x: L.matrix_power(x, -2), [A], (0,)),
    (L.solve, [A, B], (0, 1)),
    (L.solve, [BATCH, _m(2, 3)], (0, 1)),
    (lambda x, y: L.solve(x, y, left=False), [A, B.T.copy()], (0, 1)),
    (lambda x, y: L.triangular_solve(x, y, upper=False, transpose=True), [A, B], (0, 1)),
    (lambda x, y: L.triangular_solve(x, y, unitriangular=True), [A, _m(2, 3, 2)], (0, 1)),
    (lambda b, f: L.cholesky_solve(b, f), [B, np.linalg.cholesky(SPD)], (0, 1)),
    (lambda b, f: L.cholesky_solve(b, f, upper=True), [B, np.linalg.cholesky(SPD).T.copy()],
     (0, 1)),
    (L.cholesky_inverse, [np.linalg.cholesky(SPD)], (0,)),
    (L.matrix_exp, [_m(3, 3)], (0,)),
    (L.householder_product, [_m(4, 2), np.array([0.5, 1.2])], (0, 1)),
    (L.cov, [_m(3, 5)], (0,)),
    (lambda x: L.svd(x)[0], [_m(4, 3)], (0,)),
    (lambda x: L.svd(x)[2], [_m(2, 3, 4)], (0,)),
    (lambda x: L.svd(x)[1], [_m(3, 3)], (0,)),
    (L.svdvals, [_m(4, 3)], (0,)),
    (L.pinv, [_m(3, 4)], (0,)),
    (L.cond, [_m(3, 3)], (0,)),
    (lambda x: pyir.norm(x, "nuc"), [_m(3, 4)], (0,)),
    (lambda x: pyir.norm(x, 2, axis=[0, 1]), [_m(3, 4)], (0,)),
    (lambda x: L.svd_lowrank(x, q=2)[1], [_m(4, 3)], (0,)),
    (L.corrcoef, [_m(2, 4)], (0,)),
])
def test_gradients_match_finite_differences(fn, inputs, wrt):
    check_grads(fn, inputs, wrt)


def test_svd_gradient_is_paddles():
    """The gradient of sum(U * w1) + sum(S * w2) + sum(VH * w3)."""
    state = np.random.RandomState(0)
    x = state.rand(4, 3)
    w1, w2, w3 = state.rand(4, 3), state.rand(3), state.rand(3, 3)
    pyir.disable_static()
    t = pyir.to_tensor(x, stop_gradient=False)
    u, s, vh = L.svd(t)
    (pyir.sum(u * pyir.to_tensor(w1)) + pyir.sum(s * pyir.to_tensor(w2))
     + pyir.sum(vh * pyir.to_tensor(w3))).backward()
    grad = t.grad.numpy() if hasattr(t.grad, "numpy") else np.asarray(t.grad)
    # produced by Paddle 3.3.1 for the same x and weights
    paddle_grad = np.array([[-3.6829891, 1.32743547, 0.71047696],
                            [-0.87657804, -1.41734229, 3.16170836],
                            [2.11047131, -1.62684135, 0.88444837],
                            [1.68668016, 1.349012, -3.54963164]])
    np.testing.assert_allclose(grad, paddle_grad, rtol=1e-6)


def _tape_grad(fn, x):
    pyir.disable_static()
    t = pyir.to_tensor(x, stop_gradient=False)
    fn(t).backward()
    return t.grad.numpy() if hasattr(t.grad, "numpy") else np.asarray(t.grad)


def test_qr_gradient_is_paddles():
    state = np.random.RandomState(0)
    x, w1, w2 = state.rand(4, 3), state.rand(4, 3), state.rand(3, 3)

    def loss(t):
        q, r = L.qr(t)
        return pyir.sum(q * pyir.to_tensor(w1)) + pyir.sum(r * pyir.to_tensor(w2))

    # produced by Paddle 3.3.1 for the same x and weights
    paddle_grad = np.array([[-1.6698651, -1.0022446, 1.43885597],
                            [3.51418827, -0.37592937, -1.29272931],
                            [-2.09246292, 0.7105052, 0.18853113],
                            [-0.51430668, -0.45725279, -0.79936782]])
    np.testing.assert_allclose(_tape_grad(loss, x), paddle_grad, rtol=1e-6)


def test_lu_gradient_is_paddles():
    state = np.random.RandomState(0)
    x = state.rand(3, 3) + np.eye(3)
    w = state.rand(3, 3)
    # produced by Paddle 3.3.1 for the same x and w
    paddle_grad = np.array([[0.41293205, 0.48806149, 0.4410378],
                            [0.02333115, 1.09680936, -0.41893293],
                            [-0.13343188, -0.29094721, 0.83261985]])
    grad = _tape_grad(lambda t: pyir.sum(L.lu(t)[0] * pyir.to_tensor(w)), x)
    np.testing.assert_allclose(grad, paddle_grad, rtol=1e-6)
    check_grads(lambda t: L.lu(t)[0], [_m(2, 3, 3) + 2 * np.eye(3)])


def test_cholesky_gradient_value_is_paddles():
    s = np.array([[3.70494382, 0.94242037, 0.66425133], [0.94242037, 4.64592917, 1.05158],
                  [0.66425133, 1.05158, 3.78512178]])
    w = np.array([[0.6976312, 0.06022547, 0.66676672], [0.67063787, 0.21038256, 0.1289263],
                  [0.31542835, 0.36371077, 0.57019677]])
    # produced by Paddle 3.3.1 for the same s and w
    paddle_grad = np.array([[0.13475168, 0.15426587, 0.04031246],
                            [0.15426587, 0.03888272, 0.05606217],
                            [0.04031246, 0.05606217, 0.15262648]])
    grad = _tape_grad(lambda t: pyir.sum(L.cholesky(t) * pyir.to_tensor(w)), s)
    np.testing.assert_allclose(grad, paddle_grad, rtol=1e-6)


@pytest.mark.parametrize("mode, shape", [("reduced", (4, 3)), ("reduced", (2, 3, 5)),
                                         ("complete", (3, 3)), ("r", (4, 3))])
def test_qr_gradients_match_finite_differences(mode, shape):
    check_grads(lambda x: L.qr(x, mode)[1] if mode == "r" else L.qr(x, mode)[0], [_m(*shape)])
    if mode != "r":
        check_grads(lambda x: L.qr(x, mode)[1], [_m(*shape)])


def test_cholesky_gradient_is_paddles_symmetric_one():
    """For symmetric perturbations (the only valid ones) the tape gradient matches finite
    differences, and it is itself symmetric as Paddle's rule makes it."""
    a = SPD
    pyir.disable_static()
    x = pyir.to_tensor(a, stop_gradient=False)
    weights = R.uniform(0.5, 1.5, (3, 3))
    pyir.sum(L.cholesky(x) * pyir.to_tensor(weights)).backward()
    grad = x.grad.numpy() if hasattr(x.grad, "numpy") else np.asarray(x.grad)
    np.testing.assert_allclose(grad, grad.T, atol=1e-12)
    eps = 1e-6
    for i, j in [(0, 0), (1, 0), (2, 1)]:
        d = np.zeros((3, 3))
        d[i, j] = d[j, i] = eps
        plus = (np.linalg.cholesky(a + d) * weights).sum()
        minus = (np.linalg.cholesky(a - d) * weights).sum()
        numeric = (plus - minus) / (2 * eps)
        analytic = (grad * (d / eps)).sum()
        assert analytic == pytest.approx(numeric, rel=1e-5)


# --- refusals -------------------------------------------------------------------------------------
@pytest.mark.parametrize("fn, inputs, match", [
    (L.cholesky, [_m(3, 2)], "square matrices"),
    (pyir.inverse, [_m(3)], "square matrices"),
    (L.inv, [_m(2, 3)], "inv: x must be"),
    (L.det, [_m(2, 3)], "det: x must be"),
    (L.slogdet, [_m(3)], "slogdet"),
    (lambda x: L.matrix_power(x, 1.5), [A], "n must be an int"),
    (L.cholesky_solve, [B, _m(3, 2)], "y must be"),
    (L.cholesky_inverse, [_m(3, 2)], "square"),
    (lambda x, y: L.solve(x, y, out=x), [A, B], "out= is not supported"),
    (lambda x, y: L.solve(x, y, left=False), [A, _m(3)], "left=False needs"),
    (L.triangular_solve, [A, _m(3)], "y must be a"),
    (lambda x: L.lu(x, pivot=False), [A], "GPU-only"),
    (L.lu, [_m(3)], "lu: x must be"),
    (lambda b, lu, p: L.lu_solve(b, lu, p, trans="X"), [B, A, np.array([1, 2, 3], np.int32)],
     "trans must be"),
    (lambda x: L.svd(x, out=(x, x, x)), [A], "out= is not supported"),
    (L.svd, [_m(3)], "svd: x must be"),
    (L.svdvals, [_m(3)], "svdvals"),
    (lambda x: L.qr(x, "economic"), [A], "mode must be"),
    (L.qr, [_m(3)], "qr: x must be"),
    (L.eig, [_m(2, 3)], "eig: x must be"),
    (L.eigvals, [_m(2, 3)], "eigvals"),
    (lambda x: L.eigh(x, "X"), [A], "UPLO must be"),
    (lambda x: L.eigvalsh(x, "lower"), [A], "UPLO must be"),
    (lambda x, y: L.lstsq(x, y, driver="gelsx"), [A, B], "driver must be one of"),
    (L.lstsq, [A, _m(3)], "must be"),
    (L.matrix_rank, [_m(3)], "matrix_rank"),
    (lambda x: L.matrix_rank(x, tol=0.1, atol=0.1), [A], "not both"),
    (L.pinv, [_m(3)], "pinv"),
    (lambda x: L.cond(x, 3), [A], "p must be one of"),
    (lambda x: L.cond(x, 1), [_m(3, 4)], "square"),
    (L.cond, [_m(3)], "cond"),
    (L.matrix_exp, [_m(2, 3)], "square"),
    (L.matrix_exp, [np.eye(2, dtype=np.int64)], "float32 or float64"),
    (L.householder_product, [_m(4, 2), _m(2, 2)], "one dim less"),
    (L.householder_product, [_m(2, 3), _m(2)], "columns"),
    (L.ormqr, [_m(4, 2), _m(2), _m(3, 3)], "must have 2 rows"),
    (lambda x, t, y: L.ormqr(x, t, y, left=False), [_m(4, 2), _m(2), _m(3, 3)],
     "must have 4 columns"),
    (lambda x: L.svd_lowrank(x, q=4), [_m(3, 3)], r"q must be an int in \[0, 3\]"),
    (lambda x: L.pca_lowrank(x, q=-1), [_m(3, 3)], "q must be"),
    (L.cov, [_m(2, 2, 2)], "1-D or 2-D"),
    (lambda x, f: L.cov(x, fweights=f), [_m(2, 3), np.ones(3)], "fweights must be an integer"),
    (lambda x, a: L.cov(x, aweights=a), [_m(2, 3), np.ones(4)], "one entry per observation"),
])
def test_refusals(fn, inputs, match):
    with pytest.raises(BuildError, match=match):
        run_eager(fn, inputs)


@pytest.mark.parametrize("fn, match", [
    (lambda t: L.qr(t, "complete")[0], "no gradient for mode='complete'"),
    (lambda t: L.svd(t, full_matrices=True)[0], "no gradient for full_matrices=True"),
    (lambda t: L.lu(t)[0], "gradient of square factorizations only"),
])
def test_decomposition_gradients_refuse_what_paddle_does_not_define(fn, match):
    pyir.disable_static()
    t = pyir.to_tensor(_m(4, 3), stop_gradient=False)
    with pytest.raises(Exception, match=match):
        pyir.sum(fn(t)).backward()


@pytest.mark.parametrize("fn", [
    lambda x: L.det(x), lambda x: L.pinv(x), lambda x: L.cond(x),
    lambda x: pyir.norm(x, "nuc"), lambda x: L.solve(x, x), lambda x: L.matrix_exp(x),
    lambda x: L.qr(x)[1], lambda x: L.lu(x)[0],
])
def test_static_gradients_agree_with_eager(fn):
    """pyir.static.gradients through the same function gives the tape's gradient."""
    x = A.astype(np.float64)
    eager = _tape_grad(lambda t: pyir.sum(fn(t)), x)
    pyir.enable_static()
    framework.reset_default_programs()
    data = pyir.static.data("x", [3, 3], "float64")
    data.stop_gradient = False
    (grad,) = pyir.static.gradients([pyir.sum(fn(data))], [data])
    (static,) = Executor().run(pyir.static.default_main_program(), feed={"x": x},
                               fetch_list=[grad])
    np.testing.assert_allclose(static, eager, rtol=1e-9, atol=1e-12)
