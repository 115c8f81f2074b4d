"""`pyir.Model`: Paddle's high-level trainer (hapi) in eager mode: `prepare` an optimizer,
loss and metrics, then `fit`, `evaluate` and `predict` over datasets, or step with
`train_batch` / `eval_batch` / `predict_batch`; `save` / `load` the weights.

A batch from the data is split as Paddle splits it: the first `len(inputs)` fields feed the
network (inputs defaults to the network's positional forward parameters), the rest are labels.
Mixed precision (`amp_configs`) and distributed training are not part of it.
"""

from __future__ import annotations

import inspect

import numpy as np

from .. import framework
from ..eager import Tensor, no_grad, to_tensor
from ..errors import PyirError
from ..io import DataLoader
from ..optimizer._lr_base import LRScheduler
from ..serialization import load as load_file
from ..serialization import save as save_file
from ..tensor.math import add_n
from .summary import summary as summary_of


def _as_list(value) -> list:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _tensor(value) -> Tensor:
    return value if isinstance(value, Tensor) else to_tensor(np.asarray(value))


def _forward_arity(network) -> int:
    params = inspect.signature(network.forward).parameters.values()
    return sum(1 for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
               and p.default is p.empty)


class Model:
    """Train, evaluate and run a Layer with one object.

    Example:
        >>> model = pyir.Model(net)
        >>> model.prepare(pyir.optimizer.Adam(parameters=net.parameters()),
        ...               pyir.nn.CrossEntropyLoss(), pyir.metric.Accuracy())
        >>> model.fit(train_dataset, epochs=2, batch_size=32)
    """

    def __init__(self, network, inputs=None, labels=None):
        if framework.static_mode[0]:
            raise PyirError("pyir.Model trains eagerly: call pyir.disable_static() first")
        self.network = network
        self._inputs, self._labels = _as_list(inputs), _as_list(labels)
        self._optimizer = self._loss = None
        self._metrics: list = []

    # --- setup --------------------------------------------------------------------------------
    def prepare(self, optimizer=None, loss=None, metrics=None, amp_configs=None) -> None:
        """Set the optimizer, the loss (a callable of outputs + labels) and metrics."""
        if amp_configs not in (None, "O0") and not (isinstance(amp_configs, dict) and
                                                    amp_configs.get("level", "O0") == "O0"):
            raise PyirError("Model.prepare: amp_configs (mixed precision) is not supported "
                            "by pyir; leave it None")
        if loss is not None and not callable(loss):
            raise PyirError(f"Model.prepare: loss must be callable, got {type(loss).__name__}")
        self._optimizer, self._loss = optimizer, loss
        self._metrics = _as_list(metrics)
        for metric in self._metrics:
            if not all(hasattr(metric, m) for m in ("compute", "update", "accumulate",
                                                    "reset", "name")):
                raise PyirError(f"Model.prepare: {type(metric).__name__} is not a "
                                f"pyir.metric.Metric")

    def parameters(self, *args, **kwargs) -> list:
        return self.network.parameters(*args, **kwargs)

    # --- one batch ----------------------------------------------------------------------------
    def _metric_updates(self, outputs: list, labels: list) -> list:
        results = []
        for metric in self._metrics:
            computed = _as_list(metric.compute(*(outputs + labels)))
            results.append(metric.update(*[c.numpy() if isinstance(c, Tensor) else c
                                           for c in computed]))
        return results

    def train_batch(self, inputs, labels=None, update: bool = True):
        """One optimization step; the losses as numpy arrays (and the metrics, if any)."""
        if self._optimizer is None or self._loss is None:
            raise PyirError("Model.train_batch: call model.prepare(optimizer, loss) first")
        self.network.train()
        labels = [_tensor(v) for v in _as_list(labels)]
        outputs = _as_list(self.network(*[_tensor(v) for v in _as_list(inputs)]))
        losses = _as_list(self._loss(*(outputs + labels)))
        final = add_n(losses) if len(losses) > 1 else losses[0]
        final.backward()
        if update:
            self._optimizer.minimize(final)
            self.network.clear_gradients()
        metrics = self._metric_updates(outputs, labels)
        numpy_losses = [loss.numpy() for loss in losses]
        return (numpy_losses, metrics) if metrics else numpy_losses

    def eval_batch(self, inputs, labels=None):
        """Losses (if a loss is set) and metrics of one batch, without updating."""
        self.network.eval()
        labels = [_tensor(v) for v in _as_list(labels)]
        with no_grad():
            outputs = _as_list(self.network(*[_tensor(v) for v in _as_list(inputs)]))
            losses = _as_list(self._loss(*(outputs + labels))) if self._loss else []
        metrics = self._metric_updates(outputs, labels)
        numpy_losses = [loss.numpy() for loss in losses]
        if self._loss and metrics:
            return numpy_losses, metrics
        return numpy_losses if self._loss else metrics

    def predict_batch(self, inputs) -> list:
        """The network's outputs for one batch, as numpy arrays."""
        self.network.eval()
        with no_grad():
            outputs = self.network(*[_tensor(v) for v in _as_list(inputs)])
        return [o.numpy() for o in _as_list(outputs)]

    # --- whole datasets -------------------------------------------------------------------------
    def _loader(self, data, batch_size: int, shuffle: bool, drop_last: bool):
        if data is None:
            return None
        if isinstance(data, DataLoader):
            return data
        return DataLoader(data, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last)

    def _split(self, batch) -> tuple[list, list]:
        fields = _as_list(batch)
        n_inputs = len(self._inputs) or _forward_arity(self.network)
        return fields[:n_inputs], fields[n_inputs:]

    def _reset_metrics(self) -> None:
        for metric in self._metrics:
            metric.reset()

    def _logs(self, losses: list) -> dict:
        logs = {"loss": [float(np.mean(v)) for v in losses]} if losses else {}
        for metric in self._metrics:
            names, values = _as_list(metric.name()), _as_list(metric.accumulate())
            logs.update(zip(names, values))
        return logs

    def fit(self, train_data=None, eval_data=None, batch_size: int = 1, epochs: int = 1,
            eval_freq: int = 1, log_freq: int = 10, save_dir=None, save_freq: int = 1,
            verbose: int = 2, drop_last: bool = False, shuffle: bool = True,
            num_workers: int = 0, callbacks=None, accumulate_grad_batches: int = 1,
            num_iters=None) -> None:
        """Train for `epochs` over train_data (a Dataset or DataLoader); evaluate on
        eval_data every `eval_freq` epochs; save to `save_dir/<epoch>` every `save_freq`."""
        if callbacks:
            raise PyirError("Model.fit: callbacks are not supported by pyir")
        loader = self._loader(train_data, batch_size, shuffle, drop_last)
        if loader is None:
            raise PyirError("Model.fit: give train_data (a Dataset or DataLoader)")
        steps = 0
        for epoch in range(epochs):
            self._reset_metrics()
            losses = []
            for step, batch in enumerate(loader):
                inputs, labels = self._split(batch)
                update = (step + 1) % accumulate_grad_batches == 0
                result = self.train_batch(inputs, labels, update=update)
                self._step_schedule()
                losses = result[0] if isinstance(result, tuple) else result
                steps += 1
                if verbose == 2 and log_freq and (step + 1) % log_freq == 0:
                    print(f"Epoch {epoch + 1}/{epochs} step {step + 1} {self._logs(losses)}")
                if num_iters is not None and steps >= num_iters:
                    break
            if verbose:
                print(f"Epoch {epoch + 1}/{epochs} {self._logs(losses)}")
            if eval_data is not None and (epoch + 1) % eval_freq == 0:
                self.evaluate(eval_data, batch_size=batch_size, verbose=verbose)
            if save_dir is not None and (epoch + 1) % save_freq == 0:
                self.save(f"{save_dir}/{epoch}")
            if num_iters is not None and steps >= num_iters:
                break
        if save_dir is not None:
            self.save(f"{save_dir}/final")

    def _step_schedule(self) -> None:
        """Paddle's fit adds an LRScheduler callback (by_step=True) unless given one: an
        optimizer on a schedule steps it after every training batch."""
        rate = getattr(self._optimizer, "_learning_rate", None)
        if isinstance(rate, LRScheduler):
            rate.step()

    def evaluate(self, eval_data, batch_size: int = 1, log_freq: int = 10, verbose: int = 2,
                 num_workers: int = 0, callbacks=None, num_samples=None) -> dict:
        """{"loss": [each loss output of the last batch], <metric name>: value accumulated
        over eval_data}: Paddle reports the loss of the last batch, not a mean over batches."""
        loader = self._loader(eval_data, batch_size, False, False)
        self._reset_metrics()
        logs = {}
        for batch in loader:
            inputs, labels = self._split(batch)
            result = self.eval_batch(inputs, labels)
            losses = (result[0] if isinstance(result, tuple) else result) if self._loss else []
            if losses:
                logs["loss"] = [float(np.mean(v)) for v in losses]
        for metric in self._metrics:
            logs.update(zip(_as_list(metric.name()), _as_list(metric.accumulate())))
        if verbose:
            print(f"Eval {logs}")
        return logs

    def predict(self, test_data, batch_size: int = 1, num_workers: int = 0,
                stack_outputs: bool = False, verbose: int = 1, callbacks=None) -> list:
        """One list per network output of the per-batch numpy outputs (concatenated when
        stack_outputs)."""
        loader = self._loader(test_data, batch_size, False, False)
        per_output: list = []
        for batch in loader:
            inputs, _ = self._split(batch)
            outputs = self.predict_batch(inputs)
            if not per_output:
                per_output = [[] for _ in outputs]
            for bucket, value in zip(per_output, outputs):
                bucket.append(value)
        if stack_outputs:
            return [np.concatenate(bucket) for bucket in per_output]
        return per_output

    # --- files ------------------------------------------------------------------------------
    def save(self, path: str, training: bool = True) -> None:
        """`path.pdparams` (weights) and, with an optimizer, `path.pdopt`."""
        save_file(self.network.state_dict(), path + ".pdparams")
        if training and self._optimizer is not None:
            state = self._optimizer.state_dict()
            if state:
                save_file(state, path + ".pdopt")

    def load(self, path: str, skip_mismatch: bool = False, reset_optimizer: bool = False):
        """Restore `path.pdparams` (and `path.pdopt` unless reset_optimizer)."""
        self.network.set_state_dict(load_file(path + ".pdparams"))
        if not reset_optimizer and self._optimizer is not None:
            try:
                state = load_file(path + ".pdopt")
            except (FileNotFoundError, PyirError):
                state = None
            if state:
                self._optimizer.set_state_dict(state)

    def summary(self, input_size=None, dtype=None) -> dict:
        """`pyir.summary` of the network."""
        return summary_of(self.network, input_size, dtypes=dtype)


__all__ = ["Model"]
