"""CTR metrics and features: paddle.static.auc (the ops and state variables Paddle 3.3.1
emits, streaming AUC globally and over a window of batches against a pairwise numpy count)
and static.nn.continuous_value_model (against Paddle 3.3.1's values)."""

import numpy as np
import pytest

import pyir.static as S
from pyir.errors import BuildError


def pairwise_auc(scores, labels, num_thresholds):
    """P(score of a positive > score of a negative) on binned scores, ties counting half."""
    bins = np.floor(np.asarray(scores) * num_thresholds)
    pos, neg = bins[labels > 0], bins[labels <= 0]
    if not len(pos) or not len(neg):
        return 0.0
    wins = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return wins / (len(pos) * len(neg))


def build(num_thresholds=7, slide_steps=1):
    main, start = S.Program(), S.Program()
    with S.program_guard(main, start):
        x = S.data("x", [-1, 2], "float32")
        label = S.data("label", [-1, 1], "int64")
        result = S.auc(x, label, num_thresholds=num_thresholds, slide_steps=slide_steps)
    return main, start, result


def test_auc_emits_paddles_ops_and_state():
    main, start, (global_auc, batch_auc, states) = build()
    ops = main.global_block().ops
    # Paddle 3.3.1: a dead fill_constant [1, 1] (the default ins_tag_weight it does not pass
    # on), the sliding auc into tmp_1 over [17] stats, the global one into tmp_0 over [1, 8].
    assert [op.type for op in ops] == ["fill_constant", "auc", "auc"]
    assert ops[0].attrs["shape"] == [1, 1]
    assert [(op.attrs["slide_steps"], op.attrs["num_thresholds"], op.attrs["curve"])
            for op in ops[1:]] == [(1, 7, "ROC"), (0, 7, "ROC")]
    assert (global_auc.name, batch_auc.name) == ("auc_0.tmp_0", "auc_0.tmp_1")
    assert ops[1].outputs["AUC"] == ["auc_0.tmp_1"] and ops[2].outputs["AUC"] == ["auc_0.tmp_0"]
    assert [list(s.shape) for s in states] == [[17], [17], [1, 8], [1, 8]]
    assert all(s.persistable and s.dtype == np.int64 for s in states)
    assert ops[1].inputs["StatPos"] == ops[1].outputs["StatPosOut"] == [states[0].name]
    assert [op.attrs["dtype"] for op in start.global_block().ops] == [3] * 4


def test_auc_streams_over_batches_and_a_window():
    main, start, (global_auc, batch_auc, states) = build(num_thresholds=9, slide_steps=2)
    exe = S.Executor()
    exe.run(start)
    rng = np.random.default_rng(3)
    seen_scores, seen_labels, window = [], [], []
    for step in range(4):
        scores = rng.random(6).astype("float32")
        labels = (rng.random(6) < 0.5).astype("int64")
        labels[:2] = [0, 1]  # both classes in every batch
        x = np.stack([1 - scores, scores], axis=1)
        got_global, got_batch, stat_pos = exe.run(
            main, feed={"x": x, "label": labels[:, None]},
            fetch_list=[global_auc, batch_auc, states[0]])
        seen_scores.append(scores)
        seen_labels.append(labels)
        window = (window + [(scores, labels)])[-2:]
        np.testing.assert_allclose(got_global, pairwise_auc(np.concatenate(seen_scores),
                                                            np.concatenate(seen_labels), 9))
        np.testing.assert_allclose(got_batch, pairwise_auc(
            np.concatenate([s for s, _ in window]), np.concatenate([l for _, l in window]), 9))
        assert stat_pos[-1] == step + 1  # the step counter
        assert got_global.dtype == np.float64


def test_auc_paddle_values():
    main, start, (global_auc, batch_auc, states) = build()
    exe = S.Executor()
    exe.run(start)
    x = np.array([[0.9, 0.1], [0.2, 0.8], [0.4, 0.6], [0.7, 0.3]], "float32")
    label = np.array([[0], [1], [0], [1]])
    for _ in range(2):
        out = exe.run(main, feed={"x": x, "label": label},
                      fetch_list=[global_auc, batch_auc] + states)
    # Paddle 3.3.1's values after the second run of this batch.
    assert out[0] == 0.75 and out[1] == 0.75
    np.testing.assert_array_equal(out[2], [0, 0, 1, 0, 0, 1, 0, 0] * 2 + [2])
    np.testing.assert_array_equal(out[5], [[2, 0, 0, 0, 2, 0, 0, 0]])


@pytest.mark.parametrize("kwargs, match", [
    ({"curve": "PR"}, "curve='ROC'"), ({"num_thresholds": 0}, "num_thresholds"),
    ({"slide_steps": -1}, "slide_steps"),
])
def test_auc_refusals(kwargs, match):
    with S.program_guard(S.Program(), S.Program()):
        with pytest.raises(BuildError, match=match):
            S.auc(S.data("x", [-1, 2]), S.data("l", [-1, 1], "int64"), **kwargs)


def test_auc_refuses_scores_outside_unit_interval():
    main, start, (global_auc, _, _) = build()
    exe = S.Executor()
    exe.run(start)
    with pytest.raises(Exception, match=r"scores in \[0, 1\]"):
        exe.run(main, feed={"x": np.array([[0.0, 1.5]], "float32"),
                            "label": np.array([[1]])}, fetch_list=[global_auc])


@pytest.mark.parametrize("use_cvm, expect_out, expect_grad", [
    # Paddle 3.3.1's outputs and x@GRAD for mean(y) on these inputs.
    (True, [[1.3862944, -0.6931472, 0.5, -0.5], [0.0, 0.0, 2.0, 1.0]],
     [[1.0, 0.0, 0.125, 0.125], [2.0, 1.0, 0.125, 0.125]]),
    (False, [[0.5, -0.5], [2.0, 1.0]], [[1.0, 0.0, 0.25, 0.25], [2.0, 1.0, 0.25, 0.25]]),
])
def test_continuous_value_model_matches_paddle(use_cvm, expect_out, expect_grad):
    import pyir

    main = S.Program()
    with S.program_guard(main, S.Program()):
        x = S.data("x", [-1, 4], "float32")
        x.stop_gradient = False
        show_click = S.data("c", [-1, 2], "float32")
        y = S.nn.continuous_value_model(x, show_click, use_cvm)
        S.append_backward(pyir.mean(y))
    assert y.name == "_generated_var_0" and main.global_block().ops[0].type == "cvm"
    assert main.global_block().ops[0].attrs["use_cvm"] is use_cvm
    assert main.global_block().ops[-1].type == "cvm_grad"
    out, grad = S.Executor().run(
        main, feed={"x": np.array([[3.0, 1.0, 0.5, -0.5], [0.0, 0.0, 2.0, 1.0]], "float32"),
                    "c": np.array([[1.0, 0.0], [2.0, 1.0]], "float32")},
        fetch_list=[y, "x@GRAD"])
    np.testing.assert_allclose(out, expect_out, rtol=1e-6)
    np.testing.assert_allclose(grad, expect_grad, rtol=1e-6)


def test_continuous_value_model_refuses_narrow_input():
    with S.program_guard(S.Program(), S.Program()):
        with pytest.raises(BuildError, match=r"\[N, D >= 2\]"):
            S.nn.continuous_value_model(S.data("x", [-1, 1]), S.data("c", [-1, 2]))
