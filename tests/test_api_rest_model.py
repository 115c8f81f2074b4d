"""pyir.Model (Paddle's hapi trainer, eager): prepare, train/eval/predict batches, fit,
evaluate, predict, save/load, and its refusals."""

import numpy as np
import pytest

import pyir
from pyir.errors import PyirError


@pytest.fixture
def eager():
    pyir.disable_static()
    yield
    pyir.enable_static()


class _Pairs(pyir.io.Dataset):
    """y = 2 x0 - x1 + 0.5, as (features, target) pairs."""

    def __init__(self, n=32):
        rng = np.random.default_rng(0)
        self.x = rng.normal(size=(n, 2)).astype(np.float32)
        self.y = (self.x @ np.array([[2.0], [-1.0]], np.float32) + 0.5).astype(np.float32)

    def __getitem__(self, i):
        return self.x[i], self.y[i]

    def __len__(self):
        return len(self.x)


def _model(lr=0.1):
    pyir.seed(0)
    net = pyir.nn.Linear(2, 1)
    model = pyir.Model(net)
    model.prepare(pyir.optimizer.SGD(learning_rate=lr, parameters=net.parameters()),
                  pyir.nn.MSELoss())
    return net, model


def test_train_batch_is_one_sgd_step(eager):
    net, model = _model(lr=0.1)
    w, b = net.weight.numpy().copy(), net.bias.numpy().copy()
    x = np.array([[1.0, 2.0], [3.0, -1.0]], np.float32)
    y = np.array([[1.0], [0.0]], np.float32)
    (loss,) = model.train_batch([x], [y])
    pred = x @ w + b
    np.testing.assert_allclose(loss, np.mean((pred - y) ** 2), rtol=1e-5)
    grad_pred = 2 * (pred - y) / len(y)
    np.testing.assert_allclose(net.weight.numpy(), w - 0.1 * x.T @ grad_pred, rtol=1e-5)
    np.testing.assert_allclose(net.bias.numpy(), b - 0.1 * grad_pred.sum(0), rtol=1e-5)
    assert net.weight.grad is None or not np.any(net.weight.grad.numpy())
    # update=False computes the loss without moving the weights
    w_after = net.weight.numpy().copy()
    model.train_batch([x], [y], update=False)
    np.testing.assert_array_equal(net.weight.numpy(), w_after)


def test_fit_learns_and_evaluate_predict(eager, capsys):
    net, model = _model(lr=0.1)
    data = _Pairs()
    before = model.evaluate(data, batch_size=8, verbose=0)["loss"][0]
    model.fit(data, epochs=30, batch_size=8, verbose=0)
    after = model.evaluate(data, batch_size=8, verbose=0)["loss"][0]
    assert after < 1e-3 < before
    np.testing.assert_allclose(net.weight.numpy().ravel(), [2.0, -1.0], atol=0.05)
    outs = model.predict(data, batch_size=8, stack_outputs=True)
    assert len(outs) == 1 and outs[0].shape == (32, 1)
    np.testing.assert_allclose(outs[0], data.y, atol=0.1)
    per_batch = model.predict(data, batch_size=8)
    assert len(per_batch[0]) == 4
    model.fit(data, epochs=1, batch_size=8, verbose=1)
    assert "Epoch 1/1" in capsys.readouterr().out


def test_metrics_in_eval_batch(eager):
    pyir.seed(0)
    net = pyir.nn.Linear(3, 2)
    model = pyir.Model(net)
    model.prepare(metrics=pyir.metric.Accuracy())
    x = np.eye(3, dtype=np.float32)
    labels = np.array([[0], [1], [0]], np.int64)
    (acc,) = model.eval_batch([x], [labels])
    pred = (x @ net.weight.numpy() + net.bias.numpy()).argmax(1)
    np.testing.assert_allclose(acc, np.mean(pred == labels.ravel()))


def test_save_and_load(eager, tmp_path):
    net, model = _model()
    model.train_batch([np.ones((1, 2), np.float32)], [np.zeros((1, 1), np.float32)])
    model.save(str(tmp_path / "ckpt"))
    assert (tmp_path / "ckpt.pdparams").exists()
    _, other = _model()
    other.load(str(tmp_path / "ckpt"))
    np.testing.assert_array_equal(other.network.weight.numpy(), net.weight.numpy())


def test_model_refusals(eager):
    net = pyir.nn.Linear(2, 1)
    model = pyir.Model(net)
    with pytest.raises(PyirError, match="prepare"):
        model.train_batch([np.ones((1, 2), np.float32)], [np.ones((1, 1), np.float32)])
    with pytest.raises(PyirError, match="mixed precision"):
        model.prepare(amp_configs="O1")
    with pytest.raises(PyirError, match="loss must be callable"):
        model.prepare(loss="mse")
    with pytest.raises(PyirError, match="not a pyir.metric.Metric"):
        model.prepare(metrics=[object()])
    model.prepare(pyir.optimizer.SGD(parameters=net.parameters()), pyir.nn.MSELoss())
    with pytest.raises(PyirError, match="callbacks"):
        model.fit(_Pairs(), callbacks=[object()])
    with pytest.raises(PyirError, match="train_data"):
        model.fit(None)
    pyir.enable_static()
    with pytest.raises(PyirError, match="disable_static"):
        pyir.Model(net)
