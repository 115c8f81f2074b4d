"""sgd updates its parameter array in place in a plan (pyir/ops/optimizer.py `in_place`), but
never an array anybody else holds: a kept fetch, a snapshot, a fed parameter."""

from __future__ import annotations

import numpy as np

import pyir
from pyir import framework, static
from pyir.executor import Executor, Scope


def _sgd_program(lr=0.1):
    framework.reset_default_programs()
    pyir.enable_static()
    pyir.seed(0)
    x = static.data("x", [4, 3], "float32")
    y = static.nn.fc(x, 5)
    loss = pyir.mean(y)
    pyir.optimizer.SGD(learning_rate=lr).minimize(loss)
    scope = Scope()
    exe = Executor()
    exe.run(static.default_startup_program(), scope=scope)
    return exe, static.default_main_program(), scope, loss


FEED = {"x": np.arange(12, dtype=np.float32).reshape(4, 3) / 10}


def _expected_w(w, x, lr=0.1):
    # loss = mean(x @ w + b) over 4 x 5 entries: d loss / d w = x.sum(0)[:, None] / 20
    return w - np.float32(lr) * (np.broadcast_to(x.sum(0)[:, None], w.shape) / np.float32(20))


def test_the_scope_array_is_updated_in_place_with_sgds_numbers():
    exe, main, scope, loss = _sgd_program()
    exe.run(main, feed=FEED, fetch_list=[loss], scope=scope)
    array = scope.vars["fc_0.w_0"]
    before = array.copy()  # a copy: holding `array` itself would stop the in-place path
    del array
    exe.run(main, feed=FEED, fetch_list=[loss], scope=scope)
    after = scope.vars["fc_0.w_0"]
    np.testing.assert_allclose(after, _expected_w(before, FEED["x"]), rtol=1e-6)
    ident = id(after)
    del after
    exe.run(main, feed=FEED, fetch_list=[loss], scope=scope)
    assert id(scope.vars["fc_0.w_0"]) == ident  # the same array, written in place


def test_an_array_the_caller_holds_is_never_written():
    exe, main, scope, loss = _sgd_program()
    held = scope.vars["fc_0.w_0"]
    snapshot = np.array(scope.find_var("fc_0.b_0").get_tensor())
    held_before, snap_before = held.copy(), snapshot.copy()
    fetched = exe.run(main, feed=FEED, fetch_list=[loss, "fc_0.w_0"], scope=scope)[1]
    fetched_before = fetched.copy()
    exe.run(main, feed=FEED, fetch_list=[loss], scope=scope)
    np.testing.assert_array_equal(held, held_before)
    np.testing.assert_array_equal(snapshot, snap_before)
    np.testing.assert_array_equal(fetched, fetched_before)
    assert not np.array_equal(scope.vars["fc_0.w_0"], fetched_before)  # it did train


def test_a_fed_parameter_array_is_not_written():
    exe, main, scope, loss = _sgd_program()
    feed = dict(FEED, **{"fc_0.w_0": np.ones((3, 5), np.float32)})
    exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
    np.testing.assert_array_equal(feed["fc_0.w_0"], np.ones((3, 5), np.float32))
    np.testing.assert_allclose(scope.vars["fc_0.w_0"], _expected_w(np.ones((3, 5), np.float32),
                                                                    FEED["x"]), rtol=1e-6)


def test_a_read_only_or_view_parameter_gets_a_new_array():
    exe, main, scope, loss = _sgd_program()
    base = np.zeros((3, 5), np.float32)
    base.flags.writeable = False
    scope.vars["fc_0.w_0"] = base
    del base
    exe.run(main, feed=FEED, fetch_list=[loss], scope=scope)
    np.testing.assert_allclose(scope.vars["fc_0.w_0"], _expected_w(np.zeros((3, 5), np.float32),
                                                                    FEED["x"]), rtol=1e-6)
    whole = np.zeros((6, 5), np.float32)
    scope.vars["fc_0.w_0"] = whole[::2]  # a view, whose base only `whole` names
    exe.run(main, feed=FEED, fetch_list=[loss], scope=scope)
    np.testing.assert_array_equal(whole, 0)
    np.testing.assert_allclose(scope.vars["fc_0.w_0"], _expected_w(np.zeros((3, 5), np.float32),
                                                                    FEED["x"]), rtol=1e-6)


def _train(make_optimizer, hold: bool, steps=3):
    """Parameters and accumulators after `steps` steps; with `hold`, every scope array is
    also held here before each step, which keeps the kernels off the in-place path."""
    framework.reset_default_programs()
    pyir.enable_static()
    pyir.seed(0)
    x = static.data("x", [4, 3], "float32")
    loss = pyir.mean(pyir.tanh(static.nn.fc(x, 5)))
    make_optimizer().minimize(loss)
    scope, exe = Scope(), Executor()
    exe.run(static.default_startup_program(), scope=scope)
    main = static.default_main_program()
    idents, held = set(), []
    for _ in range(steps):
        if hold:
            held.append(list(scope.vars.values()))
        exe.run(main, feed=FEED, fetch_list=[loss], scope=scope)
        idents.add(id(scope.vars["fc_0.w_0"]))
    return {k: v.copy() for k, v in scope.vars.items()}, len(idents), held


def test_in_place_updates_give_the_copying_kernels_numbers_bit_for_bit():
    for make in (lambda: pyir.optimizer.SGD(learning_rate=0.1),
                 lambda: pyir.optimizer.Momentum(learning_rate=0.1, momentum=0.9),
                 lambda: pyir.optimizer.Momentum(learning_rate=0.05, momentum=0.8,
                                                 use_nesterov=True, weight_decay=0.01),
                 lambda: pyir.optimizer.Adam(learning_rate=0.1),
                 lambda: pyir.optimizer.AdamW(learning_rate=0.1, weight_decay=0.05)):
        in_place, n_in_place, _ = _train(make, hold=False)
        copied, n_copied, held = _train(make, hold=True)
        assert n_in_place == 1 and n_copied == 3   # one array throughout / a new one a step
        assert in_place.keys() == copied.keys()
        for name in copied:
            np.testing.assert_array_equal(in_place[name], copied[name], err_msg=name)
        assert len(held) == 3
