"""Learning-rate schedulers: every scheduler of paddle.optimizer.lr over 13 epochs against
values produced by Paddle 3.3.1, closed forms checked against numpy, `step(epoch)`,
ReduceOnPlateau, state dicts and refusals."""

from __future__ import annotations

import math

import numpy as np
import pytest

import pyir
from pyir.errors import BuildError

L = pyir.optimizer.lr

CASES = {
    "Noam": lambda: L.NoamDecay(64, 4, learning_rate=2.0),
    "Piecewise": lambda: L.PiecewiseDecay([3, 6], [0.1, 0.05, 0.01]),
    "NaturalExp": lambda: L.NaturalExpDecay(0.5, 0.3),
    "InverseTime": lambda: L.InverseTimeDecay(0.5, 0.3),
    "Polynomial": lambda: L.PolynomialDecay(0.5, 5, end_lr=0.01, power=2.0),
    "PolynomialCycle": lambda: L.PolynomialDecay(0.5, 4, cycle=True),
    "LinearWarmup": lambda: L.LinearWarmup(0.5, 4, 0.0, 0.5),
    "LinearWarmupSched": lambda: L.LinearWarmup(L.StepDecay(0.5, 2, 0.5), 3, 0.1, 0.5),
    "Exponential": lambda: L.ExponentialDecay(0.5, 0.8),
    "MultiStep": lambda: L.MultiStepDecay(0.5, [2, 5, 9], 0.5),
    "Step": lambda: L.StepDecay(0.5, 3, 0.3),
    "Lambda": lambda: L.LambdaDecay(0.5, lambda e: 0.9 ** e + 0.01 * e),
    "CosineAnnealing": lambda: L.CosineAnnealingDecay(0.5, 4, eta_min=0.05),
    "Multiplicative": lambda: L.MultiplicativeDecay(0.5, lambda e: 0.9 if e % 2 else 0.95),
    "OneCycle": lambda: L.OneCycleLR(1.0, 13),
    "OneCycleLinear3": lambda: L.OneCycleLR(1.0, 13, divide_factor=10.0, phase_pct=0.4,
                                            anneal_strategy="linear", three_phase=True),
    "Cyclic": lambda: L.CyclicLR(0.1, 1.0, 3),
    "Cyclic2": lambda: L.CyclicLR(0.1, 1.0, 2, 3, mode="triangular2"),
    "CyclicExp": lambda: L.CyclicLR(0.1, 1.0, 2, mode="exp_range", exp_gamma=0.9),
    "LinearLR": lambda: L.LinearLR(0.5, 6, start_factor=0.2, end_factor=0.9),
    "WarmRestarts": lambda: L.CosineAnnealingWarmRestarts(0.5, 3, T_mult=2, eta_min=0.01),
    "WarmRestarts1": lambda: L.CosineAnnealingWarmRestarts(0.5, 4),
}

# Produced by Paddle 3.3.1: the value after construction, then after each of 12 step() calls
# (and for the last four entries, see the tests that use them).
PADDLE = {
    "Noam": [0.0, 0.03125, 0.0625, 0.09375, 0.125, 0.111803398875, 0.102062072616, 0.0944911182523,
        0.0883883476483, 0.0833333333333, 0.0790569415042, 0.0753778361444, 0.0721687836487],
    "Piecewise": [0.1, 0.1, 0.1, 0.05, 0.05, 0.05, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01],
    "NaturalExp": [0.5, 0.370409110341, 0.274405818047, 0.20328482987, 0.150597105956,
        0.111565080074, 0.0826494441108, 0.0612282141265, 0.0453589766447, 0.0336027563699,
        0.0248935341839, 0.0184415837006, 0.0136618612236],
    "InverseTime": [0.5, 0.384615384615, 0.3125, 0.263157894737, 0.227272727273, 0.2,
        0.178571428571, 0.161290322581, 0.147058823529, 0.135135135135, 0.125, 0.116279069767,
        0.108695652174],
    "Polynomial": [0.5, 0.3236, 0.1864, 0.0884, 0.0296, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01,
        0.01],
    "PolynomialCycle": [0.5, 0.375025, 0.25005, 0.125075, 0.0001, 0.1875625, 0.125075, 0.0625875,
        0.0001, 0.125075, 0.0834166666667, 0.0417583333333, 0.0001],
    "LinearWarmup": [0.0, 0.125, 0.25, 0.375, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5],
    "LinearWarmupSched": [0.1, 0.233333333333, 0.366666666667, 0.5, 0.5, 0.25, 0.25, 0.125, 0.125,
        0.0625, 0.0625, 0.03125, 0.03125],
    "Exponential": [0.5, 0.4, 0.32, 0.256, 0.2048, 0.16384, 0.131072, 0.1048576, 0.08388608,
        0.067108864, 0.0536870912, 0.04294967296, 0.034359738368],
    "MultiStep": [0.5, 0.5, 0.25, 0.25, 0.25, 0.125, 0.125, 0.125, 0.125, 0.0625, 0.0625, 0.0625,
        0.0625],
    "Step": [0.5, 0.5, 0.5, 0.15, 0.15, 0.15, 0.045, 0.045, 0.045, 0.0135, 0.0135, 0.0135,
        0.00405],
    "Lambda": [0.5, 0.455, 0.415, 0.3795, 0.34805, 0.320245, 0.2957205, 0.27414845, 0.255233605,
        0.2387102445, 0.22433922005, 0.211905298045, 0.201214768241],
    "CosineAnnealing": [0.5, 0.434099025767, 0.275, 0.115900974233, 0.05, 0.115900974233, 0.275,
        0.434099025767, 0.5, 0.434099025767, 0.275, 0.115900974233, 0.05],
    "Multiplicative": [0.5, 0.45, 0.4275, 0.38475, 0.3655125, 0.32896125, 0.3125131875,
        0.28126186875, 0.267198775312, 0.240478897781, 0.228454952892, 0.205609457603,
        0.195328984723],
    "OneCycle": [0.04, 0.295163948464, 0.789369791374, 0.999702100069, 0.964381682251,
        0.874267948548, 0.739994742106, 0.577406930928, 0.405690639153, 0.245109194435,
        0.114611960261, 0.0295982222016, 0.0001],
    "OneCycleLinear3": [0.1, 0.314285714286, 0.528571428571, 0.742857142857, 0.957142857143,
        0.828571428571, 0.614285714286, 0.4, 0.185714285714, 0.08335, 0.0556, 0.02785, 0.0001],
    "Cyclic": [0.1, 0.4, 0.7, 1.0, 0.7, 0.4, 0.1, 0.4, 0.7, 1.0, 0.7, 0.4, 0.1],
    "Cyclic2": [0.1, 0.55, 1.0, 0.7, 0.4, 0.1, 0.325, 0.55, 0.4, 0.25, 0.1, 0.2125, 0.325],
    "CyclicExp": [0.1, 0.505, 0.829, 0.42805, 0.1, 0.3657205, 0.5782969, 0.315233605, 0.1,
        0.27433922005, 0.41381059609, 0.241214768241, 0.1],
    "LinearLR": [0.1, 0.158333333333, 0.216666666667, 0.275, 0.333333333333, 0.391666666667, 0.45,
        0.45, 0.45, 0.45, 0.45, 0.45, 0.45],
    "WarmRestarts": [0.5, 0.3775, 0.1325, 0.5, 0.467176223927, 0.3775, 0.255, 0.1325,
        0.0428237760728, 0.5, 0.491651827441, 0.467176223927, 0.428241161391],
    "WarmRestarts1": [0.5, 0.426776695297, 0.25, 0.0732233047034, 0.5, 0.426776695297, 0.25,
        0.0732233047034, 0.5, 0.426776695297, 0.25, 0.0732233047034, 0.5],
    "CosineEpochs": [0.115900974233, 0.434099025767, 0.275, 0.275],
    "WarmEpochs": [0.3775, 0.467176223927, 0.491651827441, 0.1325, 0.467176223927],
    "Plateau": [1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.25, 0.125, 0.125, 0.125, 0.1],
    "PlateauMaxAbs": [1.0, 0.1, 0.1, 0.01, 0.01],
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_scheduler_values_match_paddle(case):
    scheduler = CASES[case]()
    values = [scheduler()]
    for _ in range(12):
        scheduler.step()
        values.append(scheduler())
    np.testing.assert_allclose(values, PADDLE[case], rtol=1e-9, atol=1e-12)
    assert scheduler.last_epoch == 12


EPOCHS = np.arange(13)
CLOSED_FORMS = {  # numpy formulas of Paddle's documentation
    "NaturalExp": 0.5 * np.exp(-0.3 * EPOCHS),
    "InverseTime": 0.5 / (1 + 0.3 * EPOCHS),
    "Exponential": 0.5 * 0.8 ** EPOCHS,
    "Step": 0.5 * 0.3 ** (EPOCHS // 3),
    "MultiStep": 0.5 * 0.5 ** np.searchsorted([2, 5, 9], EPOCHS, side="right"),
    "Polynomial": (0.5 - 0.01) * (1 - np.minimum(EPOCHS, 5) / 5) ** 2 + 0.01,
    "LinearWarmup": np.where(EPOCHS < 4, 0.5 * EPOCHS / 4, 0.5),
    "Noam": 2.0 * 64 ** -0.5 * np.minimum(np.where(EPOCHS == 0, 1, np.maximum(EPOCHS, 1)
                                                   ** -0.5), 4 ** -1.5 * EPOCHS),
    "CosineAnnealing": 0.05 + 0.45 * (1 + np.cos(np.pi * EPOCHS / 4)) / 2,  # within T_max..
}


@pytest.mark.parametrize("case", sorted(CLOSED_FORMS))
def test_closed_forms(case):
    scheduler = CASES[case]()
    values = [scheduler()]
    for _ in range(12):
        scheduler.step()
        values.append(scheduler())
    n = 5 if case == "CosineAnnealing" else 13  # ..the recursive form departs after T_max
    np.testing.assert_allclose(values[:n], CLOSED_FORMS[case][:n], rtol=1e-12)


def test_step_with_an_epoch_uses_closed_forms():
    cosine = L.CosineAnnealingDecay(0.5, 4, eta_min=0.05)
    got = []
    for epoch in [3, 7, 2, 10]:
        cosine.step(epoch)
        got.append(cosine())
    np.testing.assert_allclose(got, PADDLE["CosineEpochs"], rtol=1e-9)
    restarts = L.CosineAnnealingWarmRestarts(0.5, 3, T_mult=2, eta_min=0.01)
    got = []
    for epoch in [1, 4, 10, 2, 25]:
        restarts.step(epoch)
        got.append(restarts())
    np.testing.assert_allclose(got, PADDLE["WarmEpochs"], rtol=1e-9)
    step = L.StepDecay(0.5, 3, 0.3)
    step.step(7)
    assert (step.last_epoch, step()) == (7, pytest.approx(0.5 * 0.3 ** 2))


def test_reduce_on_plateau():
    plateau = L.ReduceOnPlateau(1.0, patience=1, factor=0.5, cooldown=1, min_lr=0.1)
    got = []
    for metric in [5, 4, 4.5, 4.2, 4.1, 4.0, 4.05, 3.0, 3.1, 3.2, 3.3, 3.4, 3.5, 3.6]:
        plateau.step(metric)
        got.append(plateau())
    np.testing.assert_allclose(got, PADDLE["Plateau"], rtol=1e-12)
    assert min(got) == 0.1 and plateau.last_epoch == 14  # min_lr holds
    best = L.ReduceOnPlateau(1.0, mode="max", threshold=0.5, threshold_mode="abs", patience=0)
    got = []
    for metric in [1, 1.4, 2.0, 2.2, 3.0]:
        best.step(pyir.to_tensor([metric]))  # one-element tensors are accepted
        got.append(best())
    np.testing.assert_allclose(got, PADDLE["PlateauMaxAbs"], rtol=1e-12)
    with pytest.raises(BuildError, match="metrics must have one element, got shape \\[2\\]"):
        best.step(np.array([1.0, 2.0]))
    with pytest.raises(BuildError, match="metrics must be a number or a one-element tensor"):
        best.step("low")


def test_state_dict_round_trip():
    warm = L.LinearWarmup(L.StepDecay(0.5, 2, 0.5), 3, 0.1, 0.5)
    for _ in range(6):
        warm.step()
    state = warm.state_dict()
    assert state == {"last_epoch": 6, "last_lr": 0.25,
                     "LinearWarmup_LR": {"last_epoch": 3, "last_lr": 0.25}}
    again = L.LinearWarmup(L.StepDecay(0.5, 2, 0.5), 3, 0.1, 0.5)
    again.set_state_dict(state)
    again.step()
    warm.step()
    assert again() == warm() and again.learning_rate.last_epoch == 4
    plateau = L.ReduceOnPlateau(1.0)
    plateau.step(3.0)
    assert plateau.state_dict() == {"cooldown_counter": 0, "best": 3.0, "num_bad_epochs": 0,
                                    "last_epoch": 1, "last_lr": 1.0}
    with pytest.raises(BuildError, match="key 'last_lr' is missing"):
        L.StepDecay(0.5, 2).set_state_dict({"last_epoch": 3})


def test_custom_scheduler_and_verbose(capsys):
    class Halving(L.LRScheduler):
        def get_lr(self):
            return self.base_lr * 0.5 ** self.last_epoch

    halving = Halving(0.8, verbose=True)
    halving.step()
    assert halving() == 0.4
    assert "Epoch 1: Halving set learning rate to 0.4." in capsys.readouterr().out
    with pytest.raises(NotImplementedError, match="LRScheduler must define get_lr"):
        L.LRScheduler(0.1)


def test_function_forms_return_the_matching_scheduler():
    assert isinstance(L.noam_decay(64, 4), L.NoamDecay)
    assert isinstance(L.exponential_decay(0.1, 10, 0.9), L.ExponentialDecay)
    assert isinstance(L.natural_exp_decay(0.1, 10, 0.9), L.NaturalExpDecay)
    assert isinstance(L.inverse_time_decay(0.1, 10, 0.9), L.InverseTimeDecay)
    assert isinstance(L.polynomial_decay(0.1, 10), L.PolynomialDecay)
    assert L.piecewise_decay([2], [0.1, 0.01]).values == [0.1, 0.01]
    assert L.cosine_decay(0.1, 100, 30).T_max == 30
    assert isinstance(L.linear_lr_warmup(0.1, 5, 0.0, 0.1), L.LinearWarmup)
    with pytest.raises(BuildError, match="len\\(values\\) - len\\(boundaries\\) must be 1"):
        L.piecewise_decay([2], [0.1])


@pytest.mark.parametrize("make, message", [
    (lambda: L.StepDecay(0.5, 0), "StepDecay: step_size must be a positive int, got 0"),
    (lambda: L.StepDecay(0.5, 2, gamma=1.5), "StepDecay: gamma must be < 1.0"),
    (lambda: L.ExponentialDecay(0.5, 1.0), "gamma must be in \\(0, 1\\)"),
    (lambda: L.PiecewiseDecay([], [0.1]), "boundaries must not be empty"),
    (lambda: L.PiecewiseDecay([1, 2], [0.1, 0.2]), "values needs one more element"),
    (lambda: L.MultiStepDecay(0.5, [3, 2]), "milestones must increase"),
    (lambda: L.LinearWarmup(0.5, 3, 0.5, 0.1), "end_lr 0.1 must be greater than start_lr 0.5"),
    (lambda: L.LambdaDecay(0.5, 3), "lr_lambda must be a function"),
    (lambda: L.ReduceOnPlateau(0.5, mode="up"), "mode must be 'min' or 'max'"),
    (lambda: L.OneCycleLR(1.0, 10, phase_pct=0.6, three_phase=True), "phase_pct must be < 0.5"),
    (lambda: L.OneCycleLR(1.0, 10, anneal_strategy="exp"), "anneal_strategy must be"),
    (lambda: L.CyclicLR(0.1, 1.0, 2, mode="saw"), "mode must be triangular"),
    (lambda: L.LinearLR(0.5, 5, start_factor=0), "start_factor must be in \\(0, 1\\]"),
    (lambda: L.CosineAnnealingWarmRestarts(0.5, 3, T_mult=0), "T_mult must be an int >= 1"),
    (lambda: L.NoamDecay(0, 10), "d_model must be > 0"),
    (lambda: L.StepDecay(-0.5, 2), "learning_rate must be >= 0"),
    (lambda: L.StepDecay("0.5", 2), "learning_rate must be a number"),
])
def test_refusals(make, message):
    with pytest.raises(BuildError, match=message):
        make()


def test_one_cycle_refuses_stepping_past_its_total():
    cycle = L.OneCycleLR(1.0, 3)
    for _ in range(3):
        cycle.step()
    with pytest.raises(BuildError, match="stepped 4 times, more than total_steps 3"):
        cycle.step()
    assert math.isclose(L.OneCycleLR(1.0, 30)(), 0.04)  # max / divide_factor


def test_step_counter_and_module_helpers():
    from pyir.executor import Executor, Scope

    counter = L.autoincreased_step_counter(begin=1, step=2)
    assert L.autoincreased_step_counter() is counter  # one counter per name
    main = pyir.static.default_main_program()
    assert main.global_block().ops[0].type == "increment"
    scope, exe = Scope(), Executor()
    exe.run(pyir.static.default_startup_program(), scope=scope)
    seen = [int(exe.run(main, fetch_list=[counter], scope=scope)[0][0]) for _ in range(3)]
    assert seen == [2, 4, 6]  # begin - 1, then + step before each run
    assert not L.in_dygraph_mode()
    L.check_type(0.5, "learning_rate", (float,), "cosine_decay")
    with pytest.raises(BuildError, match="cosine_decay: learning_rate must be"):
        L.check_type("0.5", "learning_rate", (float,), "cosine_decay")
    pyir.disable_static()
    assert L.in_dygraph_mode() and pyir.regularizer.in_dynamic_or_pir_mode()
    with pytest.raises(BuildError, match="builds a static counter"):
        L.autoincreased_step_counter()
