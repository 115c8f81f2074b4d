"""Eager and static optimizers against Paddle 3.3.1: four updates of w [3, 2] and b [2] with
fixed gradients (loss = sum(w * gw) + sum(b * gb)); the same table checks the eager `step()`
and the static program, so both modes run the same update kernels. Plus the layout of the
new update ops, state dicts, learning-rate handling and refusals."""

from __future__ import annotations

import numpy as np
import pytest

import pyir
from pyir import static
from pyir.errors import BuildError
from pyir.executor import Executor, Scope
from pyir.optimizer import lr as sched

O = pyir.optimizer
RNG = np.random.default_rng(0)
W0 = RNG.standard_normal((3, 2)).astype(np.float32)
B0 = RNG.standard_normal((2,)).astype(np.float32)
GRADS = [(RNG.standard_normal((3, 2)).astype(np.float32),
          RNG.standard_normal(2).astype(np.float32)) for _ in range(4)]

CASES = {
    "SGD": lambda p: O.SGD(0.1, parameters=p),
    "Momentum": lambda p: O.Momentum(0.1, 0.9, parameters=p, use_nesterov=True),
    "Adam": lambda p: O.Adam(0.1, parameters=p),
    "AdamW": lambda p: O.AdamW(0.1, parameters=p, weight_decay=0.1),
    "Adagrad": lambda p: O.Adagrad(0.1, parameters=p),
    "RMSProp": lambda p: O.RMSProp(0.1, parameters=p),
    "RMSPropC": lambda p: O.RMSProp(0.1, parameters=p, centered=True, momentum=0.5),
    "Adadelta": lambda p: O.Adadelta(0.5, parameters=p),
    "Adamax": lambda p: O.Adamax(0.1, parameters=p),
    "Lamb": lambda p: O.Lamb(0.1, parameters=p),
    "NAdam": lambda p: O.NAdam(0.1, parameters=p),
    "RAdam": lambda p: O.RAdam(0.1, parameters=p),
    "Rprop": lambda p: O.Rprop(0.1, parameters=p),
    "ASGD": lambda p: O.ASGD(0.1, batch_num=2, parameters=p),
    "SGD_l2": lambda p: O.SGD(0.1, parameters=p, weight_decay=0.1),
    "Adam_l1": lambda p: O.Adam(0.1, parameters=p, weight_decay=pyir.regularizer.L1Decay(0.1)),
    "Mom_l2": lambda p: O.Momentum(0.1, parameters=p, weight_decay=0.1),
    "SGD_gclip": lambda p: O.SGD(0.1, parameters=p, grad_clip=pyir.nn.ClipGradByGlobalNorm(0.5)),
    "Adam_sched": lambda p: O.Adam(sched.StepDecay(0.1, 1, 0.5), parameters=p),
}

# w and b after the four updates, produced by Paddle 3.3.1 (eager mode, same inputs).
PADDLE = {
    "SGD": ([[0.17610513, -0.037418477], [0.7144711, 0.053151447], [-0.17915738, 0.23776972]],
            [1.5176749, 0.85673106]),
    "Momentum": ([[0.38649979, 0.3666355], [0.91480315, -0.088276863],
                  [0.70892811, -0.053780593]], [2.1676245, 0.89900213]),
    "Adam": ([[0.34579781, 0.13313909], [0.83965743, -0.090608783], [-0.23073792, 0.29865947]],
             [1.6425228, 1.0764664]),
    "AdamW": ([[0.33583385, 0.1331272], [0.81062365, -0.090216763], [-0.21467564, 0.28327313]],
              [1.5853325, 1.0352463]),
    "Adagrad": ([[0.22811325, -0.053262137], [0.73590237, -0.05354435],
                 [-0.38430029, 0.35634887]], [1.4680963, 0.94155449]),
    "RMSProp": ([[0.58409083, 0.21031219], [1.0656947, -0.60107338], [0.15477309, 0.33809152]],
                [2.0413375, 0.91707635]),
    "RMSPropC": ([[1.0679276, 0.69415087], [1.4599506, -1.2186481], [0.64508843, 0.36787742]],
                 [2.7924805, 1.2371421]),
    "Adadelta": ([[0.12783793, -0.13062426], [0.64255804, 0.1011489], [-0.53172296, 0.36042011]],
                 [1.3081108, 0.94572216]),
    "Adamax": ([[0.32994303, 0.076750837], [0.81914192, -0.062571108],
                [-0.31033599, 0.36048117]], [1.5940152, 1.0731815]),
    "Lamb": ([[0.23585851, 0.01982281], [0.75755537, 0.0073942542], [-0.33842447, 0.2775709]],
             [1.9348801, 1.0467339]),
    "NAdam": ([[0.24310359, -0.035210196], [0.75643694, -0.067257673],
               [-0.34815449, 0.34513506]], [1.4980283, 0.93844926]),
    "RAdam": ([[0.27257732, 0.13197076], [0.75973576, 0.030453034], [-0.012311302, 0.24541196]],
              [1.6649081, 1.0237164]),
    "Rprop": ([[0.40573022, 0.027895145], [0.79042268, -0.17509989], [0.0011306405, 0.41159505]],
              [1.6680001, 1.0970809]),
    "ASGD": ([[0.20333064, 0.052894879], [0.75636774, 0.068853788], [-0.095597282, 0.24222863]],
             [1.6191691, 0.96801603]),
    "SGD_l2": ([[0.16888109, -0.036506861], [0.6874603, 0.050293583], [-0.16566896, 0.22581109]],
               [1.4602581, 0.81772774]),
    "Adam_l1": ([[0.31592283, 0.12988782], [0.78923434, -0.095774412],
                 [-0.22063899, 0.27478093]], [1.6323111, 1.0300403]),
    "Mom_l2": ([[0.34082386, 0.31615686], [0.80116725, -0.058190282], [0.47702023, 0.008863017]],
               [1.8952516, 0.90420306]),
    "SGD_gclip": ([[0.13039152, -0.12072268], [0.65431529, 0.09383712],
                   [-0.46682227, 0.3288056]], [1.3467274, 0.91710752]),
    "Adam_sched": ([[0.27867347, 0.02712707], [0.76506168, -0.036203347],
                    [-0.37514895, 0.41038781]], [1.4811726, 1.065954]),
}


def _eager_params():
    w = pyir.to_tensor(W0, stop_gradient=False)
    b = pyir.to_tensor(B0, stop_gradient=False)
    w.name, b.name = "linear_0.w_0", "linear_0.b_0"
    return w, b


def _eager_loss(w, b, gw, gb):
    return (w * pyir.to_tensor(gw)).sum() + (b * pyir.to_tensor(gb)).sum()


def _train_eager(case, steps=GRADS):
    pyir.disable_static()
    w, b = _eager_params()
    opt = CASES[case]([w, b])
    for gw, gb in steps:
        _eager_loss(w, b, gw, gb).backward()
        opt.step()
        opt.clear_grad()
        if isinstance(opt._learning_rate, sched.LRScheduler):
            opt._learning_rate.step()
    return w, b, opt


@pytest.mark.parametrize("case", sorted(CASES))
def test_eager_step_matches_paddle(case):
    w, b, _ = _train_eager(case)
    want_w, want_b = PADDLE[case]
    np.testing.assert_allclose(w.numpy(), want_w, rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(b.numpy(), want_b, rtol=2e-5, atol=1e-6)


def _static_program(case):
    x = static.data("x", [-1, 3], "float32")
    static.nn.fc(x, 2)
    block = static.default_main_program().global_block()
    w, b = block.var("fc_0.w_0"), block.var("fc_0.b_0")
    gw, gb = static.data("gw", [3, 2], "float32"), static.data("gb", [2], "float32")
    loss = pyir.sum(w * gw) + pyir.sum(b * gb)
    opt = CASES[case](None)
    opt.minimize(loss)
    return opt, loss


@pytest.mark.parametrize("case", sorted(set(CASES) - {"ASGD"}))  # ASGD: eager only
def test_static_program_matches_paddle(case):
    opt, loss = _static_program(case)
    main, startup = static.default_main_program(), static.default_startup_program()
    scope, exe = Scope(), Executor()
    exe.run(startup, scope=scope)
    scope["fc_0.w_0"], scope["fc_0.b_0"] = W0.copy(), B0.copy()
    for gw, gb in GRADS:
        exe.run(main, feed={"x": np.zeros((1, 3), np.float32), "gw": gw, "gb": gb},
                fetch_list=[loss], scope=scope)
        if isinstance(opt._learning_rate, sched.LRScheduler):
            opt._learning_rate.step()
            sched.sync_learning_rate(main, scope)
    want_w, want_b = PADDLE[case]
    np.testing.assert_allclose(scope["fc_0.w_0"], want_w, rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(scope["fc_0.b_0"], want_b, rtol=2e-5, atol=1e-6)


# The update op and startup accumulators Paddle 3.3.1's legacy static mode builds for
# fc_0.w_0 (printed from its programs): op type, input slots, accumulator -> initial value.
LAYOUT = {
    "Adagrad": ("adagrad", {"Param", "Grad", "LearningRate", "Moment"},
                {"fc_0.w_0_moment_0": 0.0}),
    "RMSPropC": ("rmsprop", {"Param", "Grad", "LearningRate", "Moment", "MeanSquare", "MeanGrad"},
                 {"fc_0.w_0_momentum_0": 0.0, "fc_0.w_0_mean_square_0": 0.0,
                  "fc_0.w_0_mean_grad_0": 0.0}),
    "Adadelta": ("adadelta", {"Param", "Grad", "LearningRate", "AvgSquaredGrad",
                              "AvgSquaredUpdate"},
                 {"fc_0.w_0__avg_squared_grad_0": 0.0, "fc_0.w_0__avg_squared_update_0": 0.0}),
    "Adamax": ("adamax", {"Param", "Grad", "LearningRate", "Moment", "InfNorm", "Beta1Pow"},
               {"fc_0.w_0_moment_0": 0.0, "fc_0.w_0_inf_norm_0": 0.0,
                "fc_0.w_0_beta1_pow_acc_0": 0.9}),
    "Lamb": ("lamb", {"Param", "Grad", "LearningRate", "Moment1", "Moment2", "Beta1Pow",
                      "Beta2Pow"},
             {"fc_0.w_0_moment1_0": 0.0, "fc_0.w_0_moment2_0": 0.0,
              "fc_0.w_0_beta1_pow_acc_0": 0.9, "fc_0.w_0_beta2_pow_acc_0": 0.999}),
    "NAdam": ("nadam", {"param", "grad", "learning_rate", "momentum_decay_pow", "beta2_pow",
                        "mu_product", "moment1", "moment2"},
              {"fc_0.w_0_momentum_decay_pow_0": 1.0, "fc_0.w_0_beta2_pow_0": 1.0,
               "fc_0.w_0_mu_product_0": 1.0, "fc_0.w_0_moment1_0": 0.0,
               "fc_0.w_0_moment2_0": 0.0}),
    "RAdam": ("radam", {"param", "grad", "learning_rate", "beta1_pow", "beta2_pow", "rho",
                        "moment1", "moment2"},
              {"fc_0.w_0_beta1_pow_0": 1.0, "fc_0.w_0_beta2_pow_0": 1.0, "fc_0.w_0_rho_0": 1.0,
               "fc_0.w_0_moment1_0": 0.0, "fc_0.w_0_moment2_0": 0.0}),
    "Rprop": ("rprop", {"param", "grad", "prev", "learning_rate", "learning_rate_range", "etas"},
              {"fc_0.w_0_prevs_0": 0.0, "fc_0.w_0_learning_rates_0": 0.1}),
}


@pytest.mark.parametrize("case", sorted(LAYOUT))
def test_static_layout_is_paddles(case):
    op_type, slots, accumulators = LAYOUT[case]
    _static_program(case)
    main, startup = static.default_main_program(), static.default_startup_program()
    updates = [op for op in main.global_block().ops if op.type == op_type]
    assert len(updates) == 2  # w and b
    op = next(op for op in updates if "fc_0.w_0" in op.input_arg_names)
    assert {s for s, names in op.inputs.items() if names} == slots
    fills = {op.output_arg_names[0]: op.attrs["value"] for op in startup.global_block().ops
             if op.type == "fill_constant"}
    for name, value in accumulators.items():
        assert fills[name] == pytest.approx(value)
        assert main.global_block().var(name).persistable
    if case == "Adamax":  # the beta1 power is advanced by a scale op after each update
        scales = [op for op in main.global_block().ops if op.type == "scale"
                  and op.input_arg_names == ["fc_0.w_0_beta1_pow_acc_0"]]
        assert scales and scales[0].attrs["scale"] == pytest.approx(0.9)
        assert scales[0].output_arg_names == ["fc_0.w_0_beta1_pow_acc_0"]


def test_state_dict_uses_paddles_names_and_resumes_exactly():
    w, b, opt = _train_eager("Adam", GRADS[:2])
    state = opt.state_dict()
    assert list(state) == [  # Paddle's order: kind by kind over the parameters
        f"linear_0.{p}_{s}_0" for s in ("moment1", "moment2", "beta1_pow_acc", "beta2_pow_acc")
        for p in ("w_0", "b_0")]
    np.testing.assert_allclose(state["linear_0.w_0_beta1_pow_acc_0"].numpy(), [0.9 ** 3],
                               rtol=1e-6)
    saved = {k: v.numpy().copy() for k, v in state.items()}
    # a new optimizer on parameters with the same names continues where the first stopped
    w2, b2 = _eager_params()
    w2._value, b2._value = w.numpy().copy(), b.numpy().copy()
    resumed = O.Adam(0.1, parameters=[w2, b2])
    resumed.set_state_dict(saved)
    for gw, gb in GRADS[2:]:
        _eager_loss(w2, b2, gw, gb).backward()
        resumed.step()
        resumed.clear_grad()
    np.testing.assert_allclose(w2.numpy(), PADDLE["Adam"][0], rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(b2.numpy(), PADDLE["Adam"][1], rtol=2e-5, atol=1e-6)


def test_asgd_keeps_a_window_of_gradients():
    _, _, opt = _train_eager("ASGD", GRADS[:3])
    state = opt.state_dict()
    assert state["linear_0.w_0_m_0"].numpy().tolist() == [3]
    assert state["linear_0.w_0_m_0"].dtype == np.int64
    window = state["linear_0.w_0_y_0"].numpy()
    assert window.shape == (2, 3, 2)
    np.testing.assert_array_equal(window[0], GRADS[2][0])  # step 3 overwrote slot 0
    np.testing.assert_array_equal(window[1], GRADS[1][0])
    np.testing.assert_allclose(state["linear_0.w_0_d_0"].numpy(), GRADS[1][0] + GRADS[2][0],
                               rtol=1e-6)


def test_state_dict_refuses_a_wrong_shape_and_keeps_scheduler_state():
    pyir.disable_static()
    w, b = _eager_params()
    scheduler = sched.StepDecay(0.1, 2)
    opt = O.Momentum(scheduler, parameters=[w, b])
    _eager_loss(w, b, *GRADS[0]).backward()
    opt.step()
    scheduler.step()
    state = opt.state_dict()
    assert state["LR_Scheduler"] == {"last_epoch": 1, "last_lr": 0.1}
    with pytest.raises(BuildError, match=r"'linear_0.w_0_velocity_0' has shape \[2\], expected "
                                         r"\[3, 2\]"):
        opt.set_state_dict({"linear_0.w_0_velocity_0": np.zeros(2, np.float32)})
    fresh = sched.StepDecay(0.1, 2)
    O.Momentum(fresh, parameters=[w, b]).set_state_dict(state)
    assert (fresh.last_epoch, fresh()) == (1, 0.1)


def test_eager_minimize_clear_grad_and_learning_rate():
    pyir.disable_static()
    w, b = _eager_params()
    opt = O.SGD(0.5, parameters=[w, b])
    assert opt.get_lr() == 0.5
    opt.set_lr(0.1)
    loss = _eager_loss(w, b, *GRADS[0])
    loss.backward()
    _, params_grads = opt.minimize(loss)
    assert [p.name for p, _ in params_grads] == ["linear_0.w_0", "linear_0.b_0"]
    np.testing.assert_allclose(w.numpy(), W0 - 0.1 * GRADS[0][0], rtol=1e-6)
    opt.clear_grad()
    np.testing.assert_array_equal(w.grad.numpy(), np.zeros((3, 2)))
    opt.clear_grad(set_to_zero=False)
    assert w.grad is None
    opt.step()  # no gradients: nothing moves
    np.testing.assert_allclose(w.numpy(), W0 - 0.1 * GRADS[0][0], rtol=1e-6)


def test_parameter_groups_take_their_own_weight_decay():
    pyir.disable_static()
    w, b = _eager_params()
    opt = O.SGD(0.1, parameters=[{"params": [w], "weight_decay": 0.5}, {"params": [b]}])
    _eager_loss(w, b, *GRADS[0]).backward()
    opt.step()
    np.testing.assert_allclose(w.numpy(), W0 - 0.1 * (GRADS[0][0] + 0.5 * W0), rtol=1e-6)
    np.testing.assert_allclose(b.numpy(), B0 - 0.1 * GRADS[0][1], rtol=1e-6)


def test_static_scheduler_sets_the_learning_rate_variable():
    opt, _ = _static_program("Adam_sched")
    main, startup = static.default_main_program(), static.default_startup_program()
    fill = next(op for op in startup.global_block().ops
                if op.output_arg_names == ["learning_rate_0"])
    assert fill.attrs["value"] == pytest.approx(0.1)
    assert main.lr_scheduler is opt._learning_rate and main.lr_var.name == "learning_rate_0"
    scope = Scope()
    Executor().run(startup, scope=scope)
    opt._learning_rate.step()
    sched.sync_learning_rate(main, scope)
    assert scope["learning_rate_0"] == pytest.approx(0.05)
    assert scope["learning_rate_0"].dtype == np.float32 and scope["learning_rate_0"].shape == ()


def test_optimizer_refusals():
    with pytest.raises(BuildError, match="SGD: learning_rate must be a positive number or a "
                                         "pyir.optimizer.lr.LRScheduler, got -1"):
        O.SGD(-1)
    with pytest.raises(BuildError, match="Adam.set_lr: the learning rate comes from a scheduler"):
        O.Adam(sched.StepDecay(0.1, 2)).set_lr(0.1)
    with pytest.raises(BuildError, match="SGD: eager updates need the parameters"):
        O.SGD(0.1).step()
    with pytest.raises(BuildError, match="parameter groups support 'params', 'weight_decay' "
                                         "and 'learning_rate'"):
        O.SGD(0.1, parameters=[{"params": [], "beta1": 0.5}])
    with pytest.raises(BuildError, match=r"Rprop: etas must be 0 < etas\[0\] < 1 < etas\[1\]"):
        O.Rprop(0.1, etas=(1.5, 1.2))
    with pytest.raises(BuildError, match=r"NAdam: beta2 must be a number in \[0, 1\)"):
        O.NAdam(beta2=1.0)
    with pytest.raises(BuildError, match="ASGD builds no static program"):
        _static_program("ASGD")
    with pytest.raises(BuildError, match="ASGD: batch_num must be a positive int, got 0"):
        O.ASGD(batch_num=0)
    with pytest.raises(AttributeError, match="module 'paddle.optimizer' has no attribute "
                                             "'Adafactor'"):
        O.Adafactor  # noqa: B018


def test_saved_training_file_with_a_scheduler_runs_with_the_stored_rate(tmp_path):
    from conftest import cli

    from pyir.training import run_steps

    try:  # where the file functions live (pyir.files since the files work)
        from pyir.files import load_model
        from pyir.files import save_training_program as save_program
    except ImportError:
        from pyir.io import load_model
        from pyir.training import save_program

    scheduler = sched.StepDecay(0.2, 1, 0.5)
    scheduler.step()  # 0.1 when the program is built: the value the file stores
    x = static.data("x", [-1, 3], "float32")
    y = static.nn.fc(x, 1)
    loss = pyir.mean(y * y)
    O.SGD(scheduler).minimize(loss)
    main, startup = static.default_main_program(), static.default_startup_program()
    scope = Scope()
    Executor().run(startup, scope=scope)
    save_program(str(tmp_path / "train.pdmodel"), main, ["x"], [loss.name], scope)
    before = {k: np.array(v) for k, v in scope.vars.items()}
    assert before["learning_rate_0"] == np.float32(0.1)
    data = {"x": np.random.default_rng(1).standard_normal((4, 3)).astype(np.float32)}
    np.savez(tmp_path / "data.npz", **data)
    result = cli("run", tmp_path / "train.pdmodel", "--feed", tmp_path / "data.npz",
                 "--steps", "3", "--save-params")
    assert result.exit_code == 0, result.output
    after = Scope()
    load_model(str(tmp_path / "train.pdmodel"), scope=after)
    # the same three steps with a constant 0.1
    model = load_model(str(tmp_path / "train.pdmodel"), params=None, scope=Scope())
    reference = Scope()
    for name, value in before.items():
        reference[name] = value
    run_steps(model.program, data, 3, reference)
    np.testing.assert_allclose(after["fc_0.w_0"], reference["fc_0.w_0"], rtol=1e-6)
    assert after["learning_rate_0"] == np.float32(0.1)
    assert not np.allclose(after["fc_0.w_0"], before["fc_0.w_0"])


def test_a_parameters_own_learning_rate_scales_the_global_one():
    x = static.data("x", [-1, 3], "float32")
    static.nn.fc(x, 2)
    block = static.default_main_program().global_block()
    w, b = block.var("fc_0.w_0"), block.var("fc_0.b_0")
    w.optimize_attr = {"learning_rate": 0.5}  # what ParamAttr(learning_rate=0.5) sets
    gw, gb = static.data("gw", [3, 2], "float32"), static.data("gb", [2], "float32")
    loss = pyir.sum(w * gw) + pyir.sum(b * gb)
    O.SGD(0.1).minimize(loss)
    scales = [op for op in block.ops if op.type == "scale"
              and op.input_arg_names == ["learning_rate_0"]]
    assert len(scales) == 1 and scales[0].attrs["scale"] == 0.5
    sgd_w = next(op for op in block.ops if op.type == "sgd" and op.input("Param") == ["fc_0.w_0"])
    assert sgd_w.input("LearningRate") == scales[0].output_arg_names
    scope, exe = Scope(), Executor()
    exe.run(static.default_startup_program(), scope=scope)
    scope["fc_0.w_0"], scope["fc_0.b_0"] = W0.copy(), B0.copy()
    gw_value, gb_value = GRADS[0]
    exe.run(feed={"x": np.zeros((1, 3), np.float32), "gw": gw_value, "gb": gb_value},
            fetch_list=[loss], scope=scope)
    np.testing.assert_allclose(scope["fc_0.w_0"], W0 - 0.05 * gw_value, rtol=1e-6)
    np.testing.assert_allclose(scope["fc_0.b_0"], B0 - 0.1 * gb_value, rtol=1e-6)
    pyir.disable_static()  # eagerly the same
    w_eager, b_eager = _eager_params()
    w_eager.optimize_attr = {"learning_rate": 0.5}
    opt = O.SGD(0.1, parameters=[w_eager, b_eager])
    _eager_loss(w_eager, b_eager, gw_value, gb_value).backward()
    opt.step()
    np.testing.assert_allclose(w_eager.numpy(), W0 - 0.05 * gw_value, rtol=1e-6)
    np.testing.assert_allclose(b_eager.numpy(), B0 - 0.1 * gb_value, rtol=1e-6)


def _lbfgs_run(line_search, history=2, steps=3, max_iter=6, quartic=0.1):
    pyir.disable_static()
    rng = np.random.default_rng(4)
    a = rng.standard_normal((5, 3)).astype(np.float32)
    t = rng.standard_normal((5, 2)).astype(np.float32)
    w = pyir.to_tensor(np.zeros((3, 2), np.float32), stop_gradient=False)
    w.name = "w"
    opt = O.LBFGS(learning_rate=0.5, max_iter=max_iter, history_size=history,
                  line_search_fn=line_search, parameters=[w])

    def closure():
        opt.clear_grad()
        r = pyir.matmul(pyir.to_tensor(a), w) - pyir.to_tensor(t)
        loss = (r * r).sum() + (w * w * w * w).sum() * quartic
        loss.backward()
        return loss

    losses = [float(opt.step(closure)) for _ in range(steps)]
    return w, losses, opt, a, t


@pytest.mark.parametrize("line_search, evals", [(None, 18), ("strong_wolfe", 20)])
def test_lbfgs_matches_paddle(line_search, evals):
    w, losses, opt, _, _ = _lbfgs_run(line_search)
    # produced by Paddle 3.3.1 (history_size=2, max_iter=6, three steps)
    np.testing.assert_allclose(w.numpy(), [[-0.71355796, 1.4452846], [-0.8842923, 0.81176263],
                                           [0.33015406, -0.27253929]], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(losses, [14.079816, 4.3847141, 4.3390036], rtol=1e-6)
    assert (opt.state["func_evals"], opt.state["n_iter"]) == (evals, 17)
    assert len(opt.state_dict()["state"]["old_yk"]) == 2  # the history is capped


@pytest.mark.parametrize("line_search", [None, "strong_wolfe"])
def test_lbfgs_solves_least_squares(line_search):
    w, _, _, a, t = _lbfgs_run(line_search, history=10, steps=2, max_iter=40, quartic=0.0)
    best = np.linalg.lstsq(a.astype(np.float64), t.astype(np.float64), rcond=None)[0]
    np.testing.assert_allclose(w.numpy(), best, rtol=1e-3, atol=1e-4)


def test_lbfgs_refusals():
    pyir.disable_static()
    w, _ = _eager_params()
    with pytest.raises(BuildError, match="line_search_fn must be None or 'strong_wolfe'"):
        O.LBFGS(line_search_fn="armijo", parameters=[w])
    with pytest.raises(BuildError, match="LBFGS: pass parameters"):
        O.LBFGS()
    opt = O.LBFGS(parameters=[w])
    with pytest.raises(BuildError, match="LBFGS.step needs a closure"):
        opt.step()
    with pytest.raises(BuildError, match="call opt.step\\(closure\\)"):
        opt.minimize(None)


def test_scheduler_steps_reach_a_static_program_in_the_global_scope():
    # Paddle's script shape: exe.run(main) per batch, scheduler.step() per epoch, one scope
    opt, loss = _static_program("Adam_sched")
    main, startup = static.default_main_program(), static.default_startup_program()
    exe, scope = Executor(), static.global_scope()
    exe.run(startup)
    scope["fc_0.w_0"], scope["fc_0.b_0"] = W0.copy(), B0.copy()
    for gw, gb in GRADS:
        exe.run(main, feed={"x": np.zeros((1, 3), np.float32), "gw": gw, "gb": gb},
                fetch_list=[loss])
        opt._learning_rate.step()
    assert scope["learning_rate_0"] == np.float32(0.1 * 0.5 ** 4)
    np.testing.assert_allclose(scope["fc_0.w_0"], PADDLE["Adam_sched"][0], rtol=2e-5, atol=1e-6)
    plateau = sched.ReduceOnPlateau(1.0, patience=0)
    plateau._var_name = "learning_rate_0"
    plateau.step(1.0)
    plateau.step(2.0)
    assert scope["learning_rate_0"] == np.float32(0.1)


def test_tensor_hyperparameters_and_need_clip():
    pyir.disable_static()
    w, b = _eager_params()
    b.need_clip = False  # what ParamAttr(need_clip=False) sets
    opt = O.Adam(pyir.to_tensor(0.1), beta1=pyir.to_tensor(0.5), parameters=[w, b],
                 grad_clip=pyir.nn.ClipGradByValue(0.1))
    assert opt.get_lr() == pytest.approx(0.1) and opt._beta1 == 0.5
    _eager_loss(w, b, *GRADS[0]).backward()
    opt.step()
    # Adam's first step moves each entry by ~lr * sign(grad), whatever its clipped size;
    # the first moment shows the clip: w's gradient was clipped to [-0.1, 0.1], b's was not
    state = opt.state_dict()
    np.testing.assert_allclose(state["linear_0.w_0_moment1_0"].numpy(),
                               0.5 * np.clip(GRADS[0][0], -0.1, 0.1), rtol=1e-6)
    np.testing.assert_allclose(state["linear_0.b_0_moment1_0"].numpy(), 0.5 * GRADS[0][1],
                               rtol=1e-6)


def test_backward_then_apply_gradients():
    x = static.data("x", [-1, 3], "float32")
    loss = pyir.mean(static.nn.fc(x, 2))
    sgd = O.SGD(0.1)
    params_grads = sgd.backward(loss)
    assert sorted(p.name for p, _ in params_grads) == ["fc_0.b_0", "fc_0.w_0"]
    ops = sgd.apply_gradients(params_grads)
    assert [op.type for op in ops] == ["sgd", "sgd"]
    pyir.disable_static()
    w, b = _eager_params()
    eager_sgd = O.SGD(0.1, parameters=[w, b])
    pairs = eager_sgd.backward(_eager_loss(w, b, *GRADS[0]))
    np.testing.assert_array_equal(pairs[0][1].numpy(), GRADS[0][0])
    eager_sgd.apply_gradients(pairs)
    np.testing.assert_allclose(w.numpy(), W0 - 0.1 * GRADS[0][0], rtol=1e-6)
