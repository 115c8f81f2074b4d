"""The harness of the test_api_manip* tests: run one API call in static mode (build, run with
Executor) and in eager mode, compare with numpy, check a gradient by finite differences of the
numpy reference, and list the ops a static call emits."""

import numpy as np

import pyir
from pyir import framework
from pyir.executor import Executor


def static_run(build, arrays: dict):
    """(outputs as a list, their values, op types) of build(**Variables) run on arrays."""
    framework.reset_default_programs()
    pyir.enable_static()
    variables = {k: pyir.static.data(k, list(v.shape), str(v.dtype)) for k, v in arrays.items()}
    result = build(**variables)
    outs = list(result) if isinstance(result, (list, tuple)) else [result]
    main = pyir.static.default_main_program()
    values = Executor().run(main, feed=arrays, fetch_list=outs)
    return outs, [np.asarray(v) for v in values], [op.type for op in main.global_block().ops]


def eager_run(build, arrays: dict, grad: bool = False):
    """(outputs, input tensors) of build(**Tensors); float inputs need grads when grad."""
    pyir.disable_static()
    tensors = {k: pyir.to_tensor(v, stop_gradient=not (grad and v.dtype.kind == "f"))
               for k, v in arrays.items()}
    result = build(**tensors)
    outs = list(result) if isinstance(result, (list, tuple)) else [result]
    return outs, tensors


def as_list(value) -> list:
    return [np.asarray(v) for v in value] if isinstance(value, (list, tuple)) else \
        [np.asarray(value)]


def assert_values(got: list, want: list, what: str) -> None:
    assert len(got) == len(want), f"{what}: {len(got)} outputs, numpy has {len(want)}"
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape, f"{what}: shape {g.shape}, numpy {w.shape}"
        if w.dtype.kind == "f":
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-9, err_msg=what)
        else:
            np.testing.assert_array_equal(g, w, err_msg=what)


def numeric_grad(reference, arrays: dict, name: str, weights: list) -> np.ndarray:
    """d/d arrays[name] of sum(reference(**arrays)[i] * weights[i]), central differences."""
    base = arrays[name]
    grad = np.zeros_like(base)
    eps = 1e-6

    def loss(value):
        outs = as_list(reference(**{**arrays, name: value}))
        return sum(float((o * w).sum()) for o, w in zip(outs, weights))

    for idx in np.ndindex(base.shape):
        plus, minus = base.copy(), base.copy()
        plus[idx] += eps
        minus[idx] -= eps
        grad[idx] = (loss(plus) - loss(minus)) / (2 * eps)
    return grad


def check_eager_grad(build, reference, arrays: dict) -> None:
    """Eager backward of sum(out * w) equals the finite difference of the numpy reference."""
    outs, tensors = eager_run(build, arrays, grad=True)
    rng = np.random.default_rng(7)
    weights = [rng.uniform(0.5, 1.5, np.shape(o.numpy())) for o in outs]
    loss = None
    for o, w in zip(outs, weights):
        if o.stop_gradient:
            continue
        term = (o * pyir.to_tensor(w.astype(o.dtype))).sum()
        loss = term if loss is None else loss + term
    assert loss is not None, "no output is differentiable"
    loss.backward()
    for name, t in tensors.items():
        if t.stop_gradient:
            continue
        want = numeric_grad(reference, arrays, name, weights)
        got = np.zeros_like(want) if t.grad is None else t.grad.numpy()
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=f"d/d{name}")
