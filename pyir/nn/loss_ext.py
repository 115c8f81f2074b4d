"""Loss layers whose math lives in `pyir.nn.functional` (ctc_loss, rnnt_loss, hsigmoid_loss,
adaptive_log_softmax_with_loss): the layers own Paddle's parameters and call the functional
form, looked up when called (a clear error names it while it is missing)."""

from __future__ import annotations

from ..errors import BuildError
from . import _ops
from . import functional as F
from .layer_base import Layer

__all__ = ["CTCLoss", "RNNTLoss", "HSigmoidLoss", "AdaptiveLogSoftmaxWithLoss"]


def _functional(name: str, who: str):
    fn = getattr(F, name, None)
    if fn is None:
        raise BuildError(f"{who} needs pyir.nn.functional.{name}, which this build of pyir "
                         f"does not have")
    return fn


class CTCLoss(Layer):
    """Connectionist temporal classification loss; see `functional.ctc_loss`."""

    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False):
        super().__init__()
        self.blank, self.zero_infinity = blank, zero_infinity
        self.reduction = _ops.check_reduction(reduction, "CTCLoss")

    def forward(self, log_probs, labels, input_lengths, label_lengths, norm_by_times=False):
        return _functional("ctc_loss", "CTCLoss")(
            log_probs, labels, input_lengths, label_lengths, self.blank, self.reduction,
            norm_by_times, self.zero_infinity)


class RNNTLoss(Layer):
    """RNN-transducer loss; see `functional.rnnt_loss`."""

    def __init__(self, blank: int = 0, fastemit_lambda: float = 0.001, reduction="mean",
                 name=None):
        super().__init__()
        self.blank, self.fastemit_lambda = blank, fastemit_lambda
        self.reduction = _ops.check_reduction(reduction, "RNNTLoss")

    def forward(self, input, label, input_lengths, label_lengths):
        return _functional("rnnt_loss", "RNNTLoss")(
            input, label, input_lengths, label_lengths, self.blank, self.fastemit_lambda,
            self.reduction)


class HSigmoidLoss(Layer):
    """Hierarchical sigmoid loss. Parameters weight [num_classes - 1, feature_size] (Xavier)
    and bias [num_classes - 1, 1] (zeros); with is_custom, num_classes rows."""

    def __init__(self, feature_size: int, num_classes: int, weight_attr=None, bias_attr=None,
                 is_custom: bool = False, is_sparse: bool = False, name=None):
        super().__init__()
        if not isinstance(feature_size, int) or feature_size <= 0:
            raise BuildError(f"HSigmoidLoss: feature_size must be a positive int, got "
                             f"{feature_size!r}")
        if not is_custom and (not isinstance(num_classes, int) or num_classes < 2):
            raise BuildError(f"HSigmoidLoss: num_classes must be an int >= 2, got "
                             f"{num_classes!r}")
        self._feature_size, self._num_classes = feature_size, num_classes
        self._is_custom, self._is_sparse = is_custom, is_sparse
        rows = num_classes if is_custom else num_classes - 1
        self.weight = self.create_parameter([rows, feature_size], weight_attr)
        self.bias = self.create_parameter([rows, 1], bias_attr, is_bias=True)

    def forward(self, input, label, path_table=None, path_code=None):
        return _functional("hsigmoid_loss", "HSigmoidLoss")(
            input, label, self._num_classes, self.weight, self.bias, path_table, path_code,
            self._is_sparse)


class AdaptiveLogSoftmaxWithLoss(Layer):
    """Adaptive softmax: a head over the shortlist and one cluster per tail, each tail a
    two-matrix projection [in, in // div_value^(i+1)] x [that, cluster size]. Returns
    (output, loss) from `functional.adaptive_log_softmax_with_loss`."""

    def __init__(self, in_features: int, n_classes: int, cutoffs, weight_attr=None,
                 bias_attr=None, div_value: float = 4.0, head_bias: bool = False, name=None):
        super().__init__()
        cutoffs = list(cutoffs)
        if (not cutoffs or cutoffs != sorted(cutoffs) or min(cutoffs) <= 0
                or max(cutoffs) > n_classes - 1 or len(set(cutoffs)) != len(cutoffs)
                or not all(isinstance(c, int) for c in cutoffs)):
            raise BuildError(f"AdaptiveLogSoftmaxWithLoss: cutoffs must be unique, positive, "
                             f"increasing ints below n_classes - 1 ({n_classes - 1}), got "
                             f"{cutoffs}")
        self.in_features, self.n_classes = in_features, n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head_weight = self.create_parameter([in_features, self.head_size], weight_attr)
        self.head_bias = self.create_parameter([self.head_size], bias_attr, is_bias=True) \
            if head_bias else None
        self.tail_weights = []  # plain lists, as Paddle keeps them (not in the state_dict)
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail_weights.append([self.create_parameter([in_features, hidden], weight_attr),
                                      self.create_parameter([hidden, size], weight_attr)])

    def forward(self, input, label):
        return _functional("adaptive_log_softmax_with_loss", "AdaptiveLogSoftmaxWithLoss")(
            input, label, self.head_weight, self.tail_weights, self.cutoffs, self.head_bias)
