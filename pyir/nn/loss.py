"""`pyir.nn.loss`: loss layers (CrossEntropyLoss)."""

from __future__ import annotations

from . import functional as F
from .layer import Layer

__all__ = ["CrossEntropyLoss"]


class CrossEntropyLoss(Layer):
    """Softmax cross entropy as a layer; see `pyir.nn.functional.cross_entropy`.

    Example:
        >>> loss = pyir.nn.loss.CrossEntropyLoss()(prediction, label)
    """

    def __init__(self, weight=None, ignore_index: int = -100, reduction: str = "mean",
                 soft_label: bool = False, axis: int = -1, use_softmax: bool = True,
                 label_smoothing: float = 0.0, name: str | None = None):
        super().__init__("cross_entropy_loss")
        self.weight, self.ignore_index, self.reduction = weight, ignore_index, reduction
        self.soft_label, self.axis, self.use_softmax = soft_label, axis, use_softmax
        self.label_smoothing, self.name = label_smoothing, name

    def forward(self, input, label):
        return F.cross_entropy(input, label, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, soft_label=self.soft_label,
                               axis=self.axis, use_softmax=self.use_softmax,
                               label_smoothing=self.label_smoothing, name=self.name)
