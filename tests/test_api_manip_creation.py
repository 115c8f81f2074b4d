"""The creation, random and attribute families (pyir/tensor/creation.py, random.py,
attribute.py): ops and attributes as Paddle 3.3.1's legacy static mode emits them, values
against numpy in static and eager mode, random draws checked statistically (bounds, dtype,
shape, mean / std within tolerance) and for repeatability under pyir.seed."""

import numpy as np
import pytest
from helpers_api_manip import as_list, assert_values, check_eager_grad, eager_run, static_run

import pyir
from pyir.errors import PyirError
from pyir.unsupported import UnsupportedError

V = np.array([0.5, -1.0, 2.0])
M = np.arange(12.0).reshape(3, 4) - 5


def _arange_ops(n):
    return ["fill_constant"] * n


# (id, build(**tensors), inputs, numpy reference, ops emitted, attrs of the last op)
CASES = [
    ("arange_int", lambda: pyir.arange(0, 10, 3), {}, lambda: np.arange(0, 10, 3),
     _arange_ops(3) + ["range"], {}),
    ("arange_one", lambda: pyir.arange(5), {}, lambda: np.arange(5), _arange_ops(3) + ["range"],
     {}),
    ("arange_float", lambda: pyir.arange(0.5, 3.0, 0.5), {},
     lambda: np.arange(0.5, 3.0, 0.5, dtype=np.float32), _arange_ops(3) + ["range"], {}),
    ("arange_down", lambda: pyir.arange(3, -3, -2, dtype="float64"), {},
     lambda: np.arange(3, -3, -2, dtype=np.float64), _arange_ops(3) + ["range"], {}),
    ("range_alias", lambda: pyir.range(2, 6), {}, lambda: np.arange(2, 6),
     _arange_ops(3) + ["range"], {}),
    ("linspace", lambda: pyir.linspace(0, 1, 5), {},
     lambda: np.linspace(0, 1, 5, dtype=np.float32), _arange_ops(3) + ["linspace"],
     {"dtype": 5}),
    ("linspace_one", lambda: pyir.linspace(2, 9, 1, dtype="float64"), {},
     lambda: np.array([2.0]), _arange_ops(3) + ["linspace"], {"dtype": 6}),
    ("logspace", lambda: pyir.logspace(0, 2, 3, base=2.0), {},
     lambda: np.array([1, 2, 4], np.float32), _arange_ops(4) + ["logspace"], {"dtype": 5}),
    ("eye", lambda: pyir.eye(3, 4), {}, lambda: np.eye(3, 4, dtype=np.float32), ["eye"],
     {"num_rows": 3, "num_columns": 4, "dtype": 5}),
    ("eye_square", lambda: pyir.eye(2, dtype="int64"), {}, lambda: np.eye(2, dtype=np.int64),
     ["eye"], {"num_columns": 2}),
    ("full", lambda: pyir.full([2, 3], 1.5, "float64"), {}, lambda: np.full((2, 3), 1.5),
     ["fill_constant"], {"shape": [2, 3], "str_value": "1.5", "dtype": 6}),
    ("full_inf", lambda: pyir.full([2], "inf"), {}, lambda: np.full(2, np.inf, np.float32),
     ["fill_constant"], {"str_value": "inf"}),
    ("full_bool", lambda: pyir.full([2], True, "bool"), {}, lambda: np.ones(2, bool),
     ["fill_constant"], {"str_value": "true", "dtype": 0}),
    ("full_tensor_dim", lambda: pyir.full([2, pyir.full([1], 3, "int32")], 1.0), {},
     lambda: np.ones((2, 3), np.float32), ["fill_constant"] * 3, {"shape": [2, -1]}),
    ("ones", lambda: pyir.ones([2], "int32"), {}, lambda: np.ones(2, np.int32),
     ["fill_constant"], {"str_value": "1"}),
    ("zeros", lambda: pyir.zeros([0, 2]), {}, lambda: np.zeros((0, 2), np.float32),
     ["fill_constant"], {}),
    ("full_like", lambda m: pyir.full_like(m, 7, "int64"), {"m": M},
     lambda m: np.full(m.shape, 7, np.int64), ["fill_any_like"], {"value": 7.0, "dtype": 3}),
    ("ones_like", lambda m: pyir.ones_like(m), {"m": M}, lambda m: np.ones_like(m),
     ["fill_any_like"], {}),
    ("zeros_like", lambda m: pyir.zeros_like(m), {"m": M}, lambda m: np.zeros_like(m),
     ["fill_any_like"], {}),
    ("empty", lambda: pyir.empty([2, 3], "int32"), {}, lambda: np.zeros((2, 3), np.int32),
     ["empty"], {"shape": [2, 3], "dtype": 2}),
    ("empty_like", lambda m: pyir.empty_like(m), {"m": M}, lambda m: np.zeros_like(m),
     ["shape", "empty"], {"shape": [], "dtype": 6}),
    ("diag_vector", lambda v: pyir.diag(v, 1), {"v": V}, lambda v: np.diag(v, 1), ["diag_v2"],
     {"offset": 1, "padding_value": 0.0}),
    ("diag_padding", lambda v: pyir.diag(v, -1, padding_value=9), {"v": V},
     lambda v: np.diag(v, -1) + 9 * (1 - np.eye(4, k=-1)), ["diag_v2"], {"padding_value": 9.0}),
    ("diag_matrix", lambda m: pyir.diag(m, 1), {"m": M}, lambda m: np.diag(m, 1), ["diag_v2"],
     {}),
    ("diagflat", lambda m: pyir.diagflat(m[:2, :2]), {"m": M},
     lambda m: np.diagflat(m[:2, :2]), ["slice", "flatten_contiguous_range", "diag_v2"],
     {"offset": 0}),
    ("diagflat_vector", lambda v: pyir.diagflat(v, -1), {"v": V}, lambda v: np.diagflat(v, -1),
     ["diag_v2"], {"offset": -1}),
    ("diag_embed", lambda m: pyir.diag_embed(m), {"m": M},
     lambda m: np.stack([np.diag(r) for r in m]), ["diag_embed"],
     {"offset": 0, "dim1": -2, "dim2": -1}),
    ("diag_embed_dims", lambda m: pyir.diag_embed(m, 1, 0, 2), {"m": M},
     lambda m: np.stack([np.diag(r, 1) for r in m]).transpose(1, 0, 2), ["diag_embed"],
     {"offset": 1, "dim1": 0, "dim2": 2}),
    ("meshgrid", lambda v, m: pyir.meshgrid(v, m[0]), {"v": V, "m": M},
     lambda v, m: list(np.meshgrid(v, m[0], indexing="ij")), ["slice", "meshgrid"], {}),
    ("meshgrid_list", lambda v: pyir.meshgrid([v, v * 2.0]), {"v": V},
     lambda v: list(np.meshgrid(v, v * 2, indexing="ij")), ["scale", "meshgrid"], {}),
    ("tril", lambda m: pyir.tril(m, 1), {"m": M}, lambda m: np.tril(m, 1), ["tril_triu"],
     {"diagonal": 1, "lower": True}),
    ("triu", lambda m: pyir.triu(m, -1), {"m": M}, lambda m: np.triu(m, -1), ["tril_triu"],
     {"diagonal": -1, "lower": False}),
    ("tril_indices", lambda: pyir.tril_indices(4, 3, 0), {},
     lambda: np.stack(np.tril_indices(4, 0, 3)), ["tril_indices"],
     {"rows": 4, "cols": 3, "offset": 0, "dtype": 3}),
    ("triu_indices", lambda: pyir.triu_indices(4, 3, 1, "int32"), {},
     lambda: np.stack(np.triu_indices(4, 1, 3)).astype(np.int32), ["triu_indices"],
     {"row": 4, "col": 3, "offset": 1, "dtype": 2}),
    ("triu_indices_square", lambda: pyir.triu_indices(3), {},
     lambda: np.stack(np.triu_indices(3)), ["triu_indices"], {"col": 3}),
    ("vander", lambda v: pyir.vander(v, 4), {"v": V}, lambda v: np.vander(v, 4), None, {}),
    ("vander_inc", lambda v: pyir.vander(v, increasing=True), {"v": V},
     lambda v: np.vander(v, increasing=True), None, {}),
]

GRAD = {"diag_vector", "diag_padding", "diag_matrix", "diagflat", "diagflat_vector",
        "diag_embed", "diag_embed_dims", "meshgrid", "meshgrid_list", "tril", "triu",
        "vander", "vander_inc"}


@pytest.mark.parametrize("build, inputs, reference, op_types, attrs",
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_static_creation_emits_paddles_ops_and_matches_numpy(build, inputs, reference,
                                                             op_types, attrs):
    outs, values, ops = static_run(build, inputs)
    if op_types is not None:
        assert ops == op_types
    if attrs:
        last = pyir.static.default_main_program().global_block().ops[-1]
        assert {k: last.attrs[k] for k in attrs} == attrs
    assert_values(values, as_list(reference(**inputs)), "static")
    assert all(v.stop_gradient for v in outs if not inputs)


@pytest.mark.parametrize("build, inputs, reference", [c[1:4] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_eager_creation_matches_numpy(build, inputs, reference):
    outs, _ = eager_run(build, inputs)
    assert_values([o.numpy() for o in outs], as_list(reference(**inputs)), "eager")


@pytest.mark.parametrize("build, inputs, reference", [c[1:4] for c in CASES if c[0] in GRAD],
                         ids=[c[0] for c in CASES if c[0] in GRAD])
def test_eager_creation_gradients(build, inputs, reference):
    check_eager_grad(build, reference, inputs)


def test_range_from_tensors_and_in_place_triangles():
    pyir.disable_static()
    end = pyir.to_tensor(np.array([4], np.int64))
    np.testing.assert_array_equal(pyir.arange(1, end).numpy(), [1, 2, 3])
    t = pyir.to_tensor(M.copy())
    assert t.tril_(0) is t
    np.testing.assert_array_equal(t.numpy(), np.tril(M))
    np.testing.assert_array_equal(pyir.triu_(pyir.to_tensor(M.copy()), 1).numpy(),
                                  np.triu(M, 1))
    np.testing.assert_array_equal(pyir.as_tensor([1, 2]).numpy(), [1, 2])
    assert not pyir.as_tensor([1.0], requires_grad=True).stop_gradient
    a = np.arange(3.0)
    t = pyir.tensor.creation.tensor(a)
    a[0] = 9
    assert t.numpy()[0] == 0 and pyir.asarray(a, dtype="float32").dtype == np.float32
    np.testing.assert_array_equal(pyir.from_numpy(a).numpy(), a)


@pytest.mark.parametrize("call, message", [
    (lambda: pyir.arange(0, 5, 0), "step must not be 0"),
    (lambda: pyir.linspace(0, 1, 0), "num must be positive"),
    (lambda: pyir.logspace(0, 1, -1), "num must be positive"),
    (lambda: pyir.eye(-1), "non-negative ints"),
    (lambda: pyir.diag(pyir.ones([2, 2, 2])), "1-D or 2-D"),
    (lambda: pyir.diag_embed(pyir.ones([2]), 0, 0, -2), "dim1 and dim2 must (differ|be in)"),
    (lambda: pyir.meshgrid(pyir.ones([2, 2])), "1-D tensors"),
    (lambda: pyir.tril(pyir.ones([3])), "at least 2-D"),
    (lambda: pyir.tril_indices(3, 3, 0, "float32"), "int32 or int64"),
    (lambda: pyir.vander(pyir.ones([2, 2])), "1-D"),
    (lambda: pyir.from_numpy([1, 2]), "numpy array"),
    (lambda: pyir.full([2], pyir.ones([1]), "float32"), "tensor fill_value"),
])
def test_creation_refusals(call, message):
    with pytest.raises(PyirError, match=message):
        call()


@pytest.mark.parametrize("name", ["complex", "polar", "real", "imag", "as_strided"])
def test_left_out_names_refuse_with_a_reason(name):
    with pytest.raises(UnsupportedError, match=f"paddle.{name}"):
        getattr(pyir, name)()


def test_attribute_family():
    pyir.disable_static()
    f, i, b = pyir.ones([2]), pyir.arange(3), pyir.ones([1], "bool")
    assert pyir.is_floating_point(f) and not pyir.is_floating_point(i)
    assert pyir.is_integer(i) and not pyir.is_integer(b) and not pyir.is_integer(f)
    assert not pyir.is_complex(f) and f.is_floating_point()
    with pytest.raises(PyirError, match="expects a Tensor"):
        pyir.is_integer(3)


# --- random ------------------------------------------------------------------------------------
N = 20000


def _static_draw(build):
    outs, values, ops = static_run(build, {})
    op = pyir.static.default_main_program().global_block().ops[-1]
    return values[0], ops, op


RANDOM = [
    # (id, build, ops, attrs, check(value))
    ("rand", lambda: pyir.rand([N]), ["uniform_random"],
     {"min": 0.0, "max": 1.0, "seed": 0, "shape": [N], "dtype": 5},
     lambda v: v.dtype == np.float32 and v.min() >= 0 and v.max() < 1 and
     abs(v.mean() - 0.5) < 0.02),
    ("uniform", lambda: pyir.uniform([N], "float64", -2.0, 4.0, seed=3), ["uniform_random"],
     {"min": -2.0, "max": 4.0, "seed": 3, "dtype": 6},
     lambda v: v.dtype == np.float64 and v.min() >= -2 and v.max() < 4 and
     abs(v.mean() - 1) < 0.1 and abs(v.std() - 6 / 12 ** 0.5) < 0.05),
    ("randn", lambda: pyir.randn([N]), ["gaussian_random"], {"mean": 0.0, "std": 1.0},
     lambda v: abs(v.mean()) < 0.05 and abs(v.std() - 1) < 0.05),
    ("standard_normal", lambda: pyir.standard_normal([N], "float64"), ["gaussian_random"],
     {"dtype": 6}, lambda v: v.dtype == np.float64 and abs(v.std() - 1) < 0.05),
    ("normal", lambda: pyir.normal(3.0, 2.0, [N]), ["gaussian_random"],
     {"mean": 3.0, "std": 2.0}, lambda v: abs(v.mean() - 3) < 0.1 and abs(v.std() - 2) < 0.1),
    ("log_normal", lambda: pyir.log_normal(0.0, 0.5, [N]), ["gaussian_random", "exp"], {},
     lambda v: v.min() > 0 and abs(np.log(v).mean()) < 0.03 and abs(np.log(v).std() - 0.5)
     < 0.03),
    ("randint", lambda: pyir.randint(-3, 4, [N]), ["randint"],
     {"low": -3, "high": 4, "dtype": 3, "shape": [N]},
     lambda v: v.dtype == np.int64 and v.min() == -3 and v.max() == 3 and
     abs(v.mean()) < 0.1),
    ("randint_one", lambda: pyir.randint(5, shape=[N], dtype="int32"), ["randint"],
     {"low": 0, "high": 5, "dtype": 2}, lambda v: v.dtype == np.int32 and set(v) == set(range(5))),
    ("randperm", lambda: pyir.randperm(50), ["randperm"], {"n": 50, "dtype": 3},
     lambda v: sorted(v) == list(range(50)) and list(v) != list(range(50))),
    ("bernoulli", lambda: pyir.bernoulli(pyir.full([N], 0.3)), ["fill_constant", "bernoulli"],
     {}, lambda v: set(np.unique(v)) == {0.0, 1.0} and abs(v.mean() - 0.3) < 0.02),
    ("bernoulli_p", lambda: pyir.bernoulli(pyir.zeros([N]), 0.8),
     ["fill_constant", "fill_any_like", "bernoulli"], {}, lambda v: abs(v.mean() - 0.8) < 0.02),
    ("multinomial", lambda: pyir.multinomial(pyir.assign(np.array([1.0, 0.0, 3.0], "float32")),
                                             N, True),
     ["assign_value", "multinomial"], {"num_samples": N, "replacement": True},
     lambda v: v.dtype == np.int64 and 1 not in v and abs((v == 2).mean() - 0.75) < 0.02),
    ("multinomial_distinct", lambda: pyir.multinomial(pyir.ones([2, 5]), 5),
     ["fill_constant", "multinomial"], {"replacement": False},
     lambda v: v.shape == (2, 5) and all(sorted(r) == list(range(5)) for r in v)),
    ("poisson", lambda: pyir.poisson(pyir.full([N], 4.0)), ["fill_constant", "poisson"], {},
     lambda v: v.dtype == np.float32 and abs(v.mean() - 4) < 0.1 and abs(v.var() - 4) < 0.3),
    ("binomial", lambda: pyir.binomial(pyir.full([N], 10, "int64"), pyir.full([N], 0.2)),
     ["fill_constant", "fill_constant", "cast", "broadcast_tensors", "binomial"], {},
     lambda v: v.dtype == np.int64 and v.max() <= 10 and abs(v.mean() - 2) < 0.1),
    ("standard_gamma", lambda: pyir.standard_gamma(pyir.full([N], 3.0)),
     ["fill_constant", "standard_gamma"], {},
     lambda v: v.min() > 0 and abs(v.mean() - 3) < 0.1 and abs(v.var() - 3) < 0.3),
]


@pytest.mark.parametrize("build, op_types, attrs, check", [r[1:] for r in RANDOM],
                         ids=[r[0] for r in RANDOM])
def test_static_random_ops_and_statistics(build, op_types, attrs, check):
    pyir.seed(11)
    value, ops, op = _static_draw(build)
    assert ops == op_types
    assert {k: op.attrs[k] for k in attrs} == attrs
    assert check(value)
    pyir.seed(11)
    again, _, _ = _static_draw(build)
    np.testing.assert_array_equal(again, value)


@pytest.mark.parametrize("build, check", [(r[1], r[4]) for r in RANDOM],
                         ids=[r[0] for r in RANDOM])
def test_eager_random_statistics_and_seed(build, check):
    pyir.disable_static()
    pyir.seed(5)
    first = build().numpy()
    assert check(first)
    pyir.seed(5)
    np.testing.assert_array_equal(build().numpy(), first)


def test_random_like_functions_and_state():
    pyir.disable_static()
    x = pyir.zeros([200, 100], "float64")
    u, z = pyir.rand_like(x), pyir.randn_like(x, dtype="float32")
    assert u.dtype == np.float64 and u.shape == [200, 100] and 0 <= u.numpy().min()
    assert z.dtype == np.float32 and abs(z.numpy().std() - 1) < 0.05
    k = pyir.randint_like(x, 2, 5)
    assert k.dtype == np.float64 and set(np.unique(k.numpy())) == {2.0, 3.0, 4.0}
    state = pyir.get_rng_state()
    a = pyir.rand([5]).numpy()
    pyir.set_rng_state(state)
    np.testing.assert_array_equal(pyir.rand([5]).numpy(), a)
    _, _, ops = static_run(lambda x: pyir.randint_like(x, 0, 3), {"x": M})
    assert ops == ["shape", "randint", "cast"]
    _, values, ops = static_run(lambda x: pyir.normal(x, 0.001), {"x": M})
    assert ops == ["shape", "gaussian_random", "scale", "elementwise_add"]
    np.testing.assert_allclose(values[0], M, atol=0.01)


@pytest.mark.parametrize("method, args, check", [
    ("exponential_", (2.0,), lambda v: v.min() >= 0 and abs(v.mean() - 0.5) < 0.02),
    ("normal_", (1.0, 3.0), lambda v: abs(v.mean() - 1) < 0.1 and abs(v.std() - 3) < 0.1),
    ("uniform_", (-1.0, 3.0), lambda v: v.min() >= -1 and v.max() < 3 and abs(v.mean() - 1)
     < 0.05),
    ("bernoulli_", (0.25,), lambda v: abs(v.mean() - 0.25) < 0.02),
    ("cauchy_", (2.0, 1.0), lambda v: abs(np.median(v) - 2) < 0.05 and
     abs(np.percentile(v, 75) - 3) < 0.1),
    ("geometric_", (0.5,), lambda v: v.min() >= 1 and abs(v.mean() - 2) < 0.05),
    ("log_normal_", (0.0, 0.5), lambda v: abs(np.log(v).std() - 0.5) < 0.03),
])
def test_in_place_random_fills(method, args, check):
    pyir.disable_static()
    x = pyir.zeros([N])
    assert getattr(x, method)(*args) is x
    assert x.dtype == np.float32 and check(x.numpy().astype(np.float64))
    needs_grad = pyir.zeros([3])
    needs_grad.stop_gradient = False
    with pytest.raises(PyirError, match="in-place update of a tensor that needs a gradient"):
        getattr(needs_grad, method)(*args)


def test_static_in_place_fill_writes_into_x():
    _, _, ops = static_run(lambda x: x.exponential_(1.0) * 1.0, {"x": M})
    assert ops == ["exponential", "assign", "scale"]
    op = pyir.static.default_main_program().global_block().ops[1]
    assert op.output("Out") == ["x"]


@pytest.mark.parametrize("call, message", [
    (lambda: pyir.uniform([2], min=1.0, max=0.0), "must not be below min"),
    (lambda: pyir.rand([2], "int32"), "float type"),
    (lambda: pyir.randn([-2]), "non-negative"),
    (lambda: pyir.normal(0.0, 1.0), "give a shape"),
    (lambda: pyir.normal(0.0, -1.0, [2]), "std must not be negative"),
    (lambda: pyir.randint(3, 3, [2]), "greater than low"),
    (lambda: pyir.randint_like(pyir.ones([2]), 5, 1), "greater than low"),
    (lambda: pyir.randperm(0), "positive int"),
    (lambda: pyir.bernoulli(pyir.ones([2]), 1.5), r"\[0, 1\]"),
    (lambda: pyir.bernoulli(pyir.full([2], 2.0)), r"\[0, 1\]"),
    (lambda: pyir.multinomial(pyir.ones([2, 2, 2])), "1-D or 2-D"),
    (lambda: pyir.multinomial(pyir.ones([3]), 4), "replacement=True"),
    (lambda: pyir.multinomial(pyir.ones([3]), 0), "num_samples must be positive"),
    (lambda: pyir.multinomial(pyir.full([3], -1.0)), "must not be negative"),
    (lambda: pyir.standard_gamma(pyir.zeros([2])), "must be positive"),
    (lambda: pyir.zeros([2]).exponential_(0.0), "lam must be positive"),
    (lambda: pyir.zeros([2]).geometric_(1.0), r"\(0, 1\)"),
    (lambda: pyir.set_rng_state([1]), "get_rng_state"),
])
def test_random_refusals(call, message):
    pyir.disable_static()
    with pytest.raises(PyirError, match=message):
        call()
