"""The CTC loss op of paddle.nn.functional.ctc_loss: warpctc (padded batches with
LogitsLength / LabelLength) and warpctc_grad. The loss is computed on softmax(Logits), as
warp-ctc does, with the forward-backward recursion in log space."""

from __future__ import annotations

import itertools

import numpy as np

from ..errors import PyirError
from ..registry import Attr, Example, Slot, VarSpec, register_op
from ..registry import AttrType as T
from ._helpers import default_grad, rand

_ATTRS = [Attr("blank", T.INT, 0), Attr("norm_by_times", T.BOOLEAN, False)]


def _log_softmax(x):
    m = x.max(-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(-1, keepdims=True))


def _lse(a, b):
    m = np.maximum(a, b)
    with np.errstate(invalid="ignore"):
        return np.where(m == -np.inf, -np.inf, m + np.log(np.exp(a - m) + np.exp(b - m)))


def ctc_one(logits, label, blank):
    """(loss, d loss / d logits) for one sequence: logits [T, C], label [L]."""
    t_len, classes = logits.shape
    logp = _log_softmax(logits.astype(np.float64))
    ext = np.full(2 * len(label) + 1, blank, np.int64)
    ext[1::2] = label
    s_len = len(ext)
    skip = np.zeros(s_len, bool)
    skip[2:] = (ext[2:] != blank) & (ext[2:] != ext[:-2])
    alpha = np.full((t_len, s_len), -np.inf)
    if t_len == 0:
        return (0.0 if len(label) == 0 else np.inf), np.zeros_like(logits, np.float64)
    alpha[0, 0] = logp[0, ext[0]]
    if s_len > 1:
        alpha[0, 1] = logp[0, ext[1]]
    for t in range(1, t_len):
        prev = alpha[t - 1]
        acc = prev.copy()
        acc[1:] = _lse(acc[1:], prev[:-1])
        acc[2:] = np.where(skip[2:], _lse(acc[2:], prev[:-2]), acc[2:])
        alpha[t] = acc + logp[t, ext]
    beta = np.full((t_len, s_len), -np.inf)
    beta[-1, -1] = logp[-1, ext[-1]]
    if s_len > 1:
        beta[-1, -2] = logp[-1, ext[-2]]
    for t in range(t_len - 2, -1, -1):
        nxt = beta[t + 1]
        acc = nxt.copy()
        acc[:-1] = _lse(acc[:-1], nxt[1:])
        skip_next = np.zeros(s_len, bool)
        skip_next[:-2] = skip[2:]
        acc[:-2] = np.where(skip_next[:-2], _lse(acc[:-2], nxt[2:]), acc[:-2])
        beta[t] = acc + logp[t, ext]
    log_p = _lse(alpha[-1, -1], alpha[-1, -2]) if s_len > 1 else alpha[-1, -1]
    if log_p == -np.inf:
        return np.inf, np.zeros_like(logits, np.float64)
    # alpha * beta counts logp[t, ext[s]] twice: divide it out once
    occupancy = alpha + beta - logp[:, ext]
    grad = np.exp(logp)
    for s in range(s_len):
        grad[:, ext[s]] -= np.exp(occupancy[:, s] - log_p)
    return -log_p, grad


def _lengths(LogitsLength, LabelLength):
    if LogitsLength is None or LabelLength is None:
        raise PyirError("warpctc: LoD (unpadded) input is not supported; pass LogitsLength and "
                        "LabelLength")
    return np.asarray(LogitsLength).reshape(-1), np.asarray(LabelLength).reshape(-1)


def _warpctc(Logits, Label, LogitsLength, LabelLength, blank, norm_by_times):
    t_lens, l_lens = _lengths(LogitsLength, LabelLength)
    batch = Logits.shape[1]
    loss = np.zeros((batch, 1))
    grad = np.zeros(Logits.shape, np.float64)
    for b in range(batch):
        t, n = int(t_lens[b]), int(l_lens[b])
        value, g = ctc_one(Logits[:t, b], Label[b, :n].astype(np.int64), blank)
        loss[b, 0] = value
        grad[:t, b] = g / t if norm_by_times and t else g
    return loss.astype(Logits.dtype), grad.astype(Logits.dtype)


def _ctc_expect(Logits, Label, LogitsLength, LabelLength, blank=0, norm_by_times=False):
    """Brute force: the probability of every frame path that collapses to the label."""
    losses = []
    for b in range(Logits.shape[1]):
        t, n = int(LogitsLength[b]), int(LabelLength[b])
        p = np.exp(_log_softmax(Logits[:t, b].astype(np.float64)))
        target = list(Label[b, :n])
        total = 0.0
        for path in itertools.product(range(Logits.shape[2]), repeat=t):
            collapsed = [c for i, c in enumerate(path) if (i == 0 or c != path[i - 1])]
            if [c for c in collapsed if c != blank] == target:
                total += np.prod([p[i, c] for i, c in enumerate(path)])
        losses.append([-np.log(total)])
    return {"Loss": np.array(losses, Logits.dtype)}


@register_op(
    "warpctc",
    inputs=["Logits", Slot("Label", no_grad=True), Slot("LogitsLength", dispensable=True,
                                                        no_grad=True),
            Slot("LabelLength", dispensable=True, no_grad=True)],
    outputs=["WarpCTCGrad", "Loss"], attrs=_ATTRS,
    infer=lambda ctx: {"Loss": VarSpec((ctx.input("Logits").shape[1], 1),
                                       ctx.input("Logits").dtype),
                       "WarpCTCGrad": VarSpec(ctx.input("Logits").shape,
                                              ctx.input("Logits").dtype)},
    grad=default_grad("warpctc_grad", uses=["WarpCTCGrad", "Logits", "LogitsLength"],
                      out_grads=["Loss"], in_grads=["Logits"], keep_empty=()),
    doc="Loss[b] = -log P(Label[b] | softmax(Logits[:T_b, b])) summed over CTC alignments "
        "(blank class `blank`); WarpCTCGrad holds d Loss / d Logits (/ T_b when norm_by_times)",
    examples=[
        Example({"Logits": rand(4, 2, 3), "Label": np.array([[1, 2], [1, 1]], np.int32),
                 "LogitsLength": np.array([4, 3]), "LabelLength": np.array([2, 1])}, {},
                _ctc_expect),
        Example({"Logits": rand(5, 1, 3).astype("float64"), "Label": np.array([[2, 2]],
                                                                              np.int32),
                 "LogitsLength": np.array([5]), "LabelLength": np.array([2])},
                {"blank": 1}, _ctc_expect),
    ],
)
def warpctc(Logits, Label, LogitsLength, LabelLength, blank, norm_by_times):
    loss, grad = _warpctc(Logits, Label, LogitsLength, LabelLength, blank, norm_by_times)
    return {"Loss": loss, "WarpCTCGrad": grad}


@register_op("warpctc_grad", inputs=["WarpCTCGrad", "Logits", Slot("LogitsLength",
                                                                    dispensable=True),
                                     "Loss@GRAD"],
             outputs=["Logits@GRAD"], attrs=_ATTRS, grad_of="warpctc",
             infer=lambda ctx: {"Logits@GRAD": VarSpec(ctx.input("Logits").shape,
                                                       ctx.input("Logits").dtype)},
             doc="dLogits[t, b] = WarpCTCGrad[t, b] * dLoss[b]")
def warpctc_grad(WarpCTCGrad, Logits, LogitsLength, Loss_grad, blank, norm_by_times):
    scale = np.asarray(Loss_grad).reshape(1, -1, 1)
    return {"Logits@GRAD": (WarpCTCGrad * scale).astype(Logits.dtype)}


# --- hierarchical_sigmoid (hsigmoid_loss) --------------------------------------------------------
# Paddle keeps its old parameter-server attributes on the op (empty, unused here).
_HS_ATTRS = [Attr("num_classes", T.INT, 2), Attr("is_sparse", T.BOOLEAN, False),
             Attr("table_names", T.STRINGS, []), Attr("epmap", T.STRINGS, []),
             Attr("height_sections", T.INTS, []), Attr("trainer_id", T.INT, 0)]


def _paths(Label, PathTable, PathCode, num_classes):
    """(node index [N, L], bit [N, L], valid [N, L]) of each sample's path: Paddle's simple
    code (c = label + num_classes; node (c >> (j + 1)) - 1, bit (c >> j) & 1) or the given
    table (ended by the first negative node)."""
    label = np.asarray(Label).reshape(-1).astype(np.int64)
    if PathTable is not None:
        table = np.asarray(PathTable).astype(np.int64)
        valid = np.cumprod(table >= 0, axis=1).astype(bool)
        return np.where(valid, table, 0), np.asarray(PathCode).astype(np.int64) * valid, valid
    length = int(num_classes - 1).bit_length()
    code = label + num_classes
    j = np.arange(length)
    valid = j[None, :] < (np.floor(np.log2(code)).astype(np.int64))[:, None]
    index = np.where(valid, (code[:, None] >> (j + 1)) - 1, 0)
    bits = np.where(valid, (code[:, None] >> j) & 1, 0)
    return index, bits, valid


def _hs_pre(X, W, Bias, index, valid):
    pre = np.einsum("nd,nld->nl", X, W[index])
    if Bias is not None:
        pre = pre + Bias.reshape(-1)[index]
    return np.clip(np.where(valid, pre, 0.0), -40.0, 40.0)


def _hs_expect(X, W, Label, PathTable=None, PathCode=None, Bias=None, num_classes=2, **_):
    out = []
    length = W.shape[0] if PathTable is not None else int(num_classes - 1).bit_length()
    for i in range(X.shape[0]):
        nodes = []
        if PathTable is None:
            c = int(np.asarray(Label).reshape(-1)[i]) + num_classes
            j = 0
            while (c >> (j + 1)) > 0:
                nodes.append(((c >> (j + 1)) - 1, (c >> j) & 1))
                j += 1
        else:
            for node, bit in zip(PathTable[i], PathCode[i]):
                if node < 0:
                    break
                nodes.append((int(node), int(bit)))
        length = PathTable.shape[1] if PathTable is not None else length
        total = (length - len(nodes)) * np.log(2.0)  # Paddle counts log(2) per unused slot
        for node, bit in nodes:
            z = float(X[i] @ W[node]) + (0.0 if Bias is None else float(Bias.reshape(-1)[node]))
            total += np.log1p(np.exp(z)) - bit * z
        out.append([total])
    return {"Out": np.array(out, X.dtype)}


@register_op(
    "hierarchical_sigmoid",
    inputs=["X", "W", Slot("Label", no_grad=True), Slot("PathTable", dispensable=True,
                                                        no_grad=True),
            Slot("PathCode", dispensable=True, no_grad=True), Slot("Bias", dispensable=True)],
    outputs=["Out", "PreOut", Slot("W_Out", dispensable=True)],
    attrs=_HS_ATTRS,
    infer=lambda ctx: {"Out": VarSpec((ctx.input("X").shape[0], 1), ctx.input("X").dtype),
                       "PreOut": VarSpec((ctx.input("X").shape[0], -1), ctx.input("X").dtype)},
    grad=default_grad("hierarchical_sigmoid_grad",
                      uses=["X", "W", "Label", "PathTable", "PathCode", "Bias", "PreOut"],
                      out_grads=["Out"], in_grads=["X", "W", "Bias"], keep_empty=()),
    doc="Out[i] = sum over the path of label i of softplus(z) - bit * z, z = W[node] . X[i] + "
        "Bias[node] (clipped to [-40, 40]; unused path slots add log 2, as in Paddle)",
    examples=[
        Example({"X": rand(3, 4), "W": rand(5, 4), "Label": np.array([[0], [5], [3]]),
                 "Bias": rand(5, 1)}, {"num_classes": 6}, _hs_expect),
        Example({"X": rand(2, 3).astype("float64"), "W": rand(4, 3).astype("float64"),
                 "Label": np.array([1, 0]), "PathTable": np.array([[0, 2, -1], [1, 3, 2]]),
                 "PathCode": np.array([[1, 0, 0], [0, 1, 1]])}, {"num_classes": 4},
                _hs_expect),
    ],
)
def hierarchical_sigmoid(X, W, Label, PathTable, PathCode, Bias, num_classes, is_sparse,
                         table_names, epmap, height_sections, trainer_id):
    index, bits, valid = _paths(Label, PathTable, PathCode, num_classes)
    pre = _hs_pre(X, W, Bias, index, valid)
    soft = np.log1p(np.exp(pre))
    out = soft.sum(1, keepdims=True) - (bits * pre * valid).sum(1, keepdims=True)
    return {"Out": out.astype(X.dtype), "PreOut": soft.astype(X.dtype)}


@register_op(
    "hierarchical_sigmoid_grad",
    inputs=["X", "W", "Label", Slot("PathTable", dispensable=True),
            Slot("PathCode", dispensable=True), Slot("Bias", dispensable=True), "PreOut",
            "Out@GRAD"],
    outputs=["X@GRAD", "W@GRAD", Slot("Bias@GRAD", dispensable=True)], attrs=_HS_ATTRS,
    grad_of="hierarchical_sigmoid",
    doc="g = (sigmoid(z) - bit) * dOut on the path; dX = sum g W[node], dW[node] += g X, "
        "dBias[node] += g")
def hierarchical_sigmoid_grad(X, W, Label, PathTable, PathCode, Bias, PreOut, Out_grad,
                              num_classes, is_sparse, table_names, epmap, height_sections,
                              trainer_id):
    index, bits, valid = _paths(Label, PathTable, PathCode, num_classes)
    g = ((1.0 - np.exp(-PreOut)) - bits) * np.asarray(Out_grad).reshape(-1, 1) * valid
    dw = np.zeros(W.shape, np.float64)
    np.add.at(dw, index, g[..., None] * X[:, None, :])
    result = {"X@GRAD": np.einsum("nl,nld->nd", g, W[index]).astype(X.dtype),
              "W@GRAD": dw.astype(W.dtype)}
    if Bias is not None:
        db = np.zeros(Bias.size, np.float64)
        np.add.at(db, index, g)
        result["Bias@GRAD"] = db.reshape(Bias.shape).astype(Bias.dtype)
    return result


# --- warprnnt (rnnt_loss) ------------------------------------------------------------------------
_RNNT_ATTRS = [Attr("blank", T.INT, 0), Attr("fastemit_lambda", T.FLOAT, 0.0)]


def _lse2(a, b):
    m = max(a, b)
    return m if m == -np.inf else m + np.log(np.exp(a - m) + np.exp(b - m))


def rnnt_one(lp, label, blank, fastemit_lambda):
    """(loss, d loss / d lp) of one sequence; lp [T, U + 1, V] are log-probabilities taken
    as given (Paddle's warprnnt does not normalize them); FastEmit scales the label-emission
    gradients by 1 + lambda and leaves the loss unchanged, as warp-transducer does."""
    t_len, u_len, _ = lp.shape
    lp = lp.astype(np.float64)
    blank_lp = lp[:, :, blank]
    emit_lp = np.stack([lp[:, u, label[u]] for u in range(u_len - 1)], 1) if u_len > 1 else \
        np.zeros((t_len, 0))
    alpha = np.full((t_len, u_len), -np.inf)
    for t in range(t_len):
        for u in range(u_len):
            if t == 0 and u == 0:
                alpha[t, u] = 0.0
                continue
            stay = alpha[t - 1, u] + blank_lp[t - 1, u] if t else -np.inf
            move = alpha[t, u - 1] + emit_lp[t, u - 1] if u else -np.inf
            alpha[t, u] = _lse2(stay, move)
    beta = np.full((t_len, u_len), -np.inf)
    for t in range(t_len - 1, -1, -1):
        for u in range(u_len - 1, -1, -1):
            if t == t_len - 1 and u == u_len - 1:
                beta[t, u] = blank_lp[t, u]
                continue
            stay = beta[t + 1, u] + blank_lp[t, u] if t < t_len - 1 else -np.inf
            move = beta[t, u + 1] + emit_lp[t, u] if u < u_len - 1 else -np.inf
            beta[t, u] = _lse2(stay, move)
    loglike = beta[0, 0]
    grad = np.zeros(lp.shape)
    grad[:-1, :, blank] = -np.exp(alpha[:-1] + blank_lp[:-1] + beta[1:] - loglike)
    grad[-1, -1, blank] = -np.exp(alpha[-1, -1] + blank_lp[-1, -1] - loglike)
    for u in range(u_len - 1):
        grad[:, u, label[u]] = -(1.0 + fastemit_lambda) * np.exp(
            alpha[:, u] + emit_lp[:, u] + beta[:, u + 1] - loglike)
    return -loglike, grad


def _rnnt_expect(input, label, input_lengths, label_lengths, blank=0, fastemit_lambda=0.0):
    """Brute force: the log-sum over every path of blank / label moves through the lattice."""
    losses = []
    for b in range(input.shape[0]):
        t_len, n = int(input_lengths[b]), int(label_lengths[b])
        lp = input[b].astype(np.float64)
        total = -np.inf
        for moves in set(itertools.permutations("b" * (t_len - 1) + "e" * n)):
            t = u = 0
            score = 0.0
            for m in moves:
                if m == "b":
                    score, t = score + lp[t, u, blank], t + 1
                else:
                    score, u = score + lp[t, u, label[b, u]], u + 1
            total = _lse2(total, score + lp[t, u, blank])
        losses.append(-total)
    return {"loss": np.array(losses, input.dtype)}


@register_op(
    "warprnnt",
    inputs=["input", Slot("label", no_grad=True), Slot("input_lengths", no_grad=True),
            Slot("label_lengths", no_grad=True)],
    outputs=["loss", "warprnntgrad"], attrs=_RNNT_ATTRS,
    infer=lambda ctx: {"loss": VarSpec((ctx.input("input").shape[0],),
                                       ctx.input("input").dtype),
                       "warprnntgrad": VarSpec(ctx.input("input").shape,
                                               ctx.input("input").dtype)},
    grad=default_grad("warprnnt_grad", uses=["input", "input_lengths", "warprnntgrad"],
                      out_grads=["loss"], in_grads=["input"]),
    doc="loss[b] = -log of the summed probability of the RNN-T lattice paths of label[b] "
        "(input holds log-probabilities [B, T, U + 1, V]); warprnntgrad its gradient (label "
        "emissions scaled by 1 + fastemit_lambda)",
    examples=[
        Example({"input": rand(2, 3, 3, 4, low=-2.0, high=-0.1),
                 "label": np.array([[1, 2], [3, 0]], np.int32),
                 "input_lengths": np.array([3, 2], np.int32),
                 "label_lengths": np.array([2, 1], np.int32)}, {}, _rnnt_expect),
        Example({"input": rand(1, 4, 2, 3, low=-2.0, high=-0.1).astype("float64"),
                 "label": np.array([[2]], np.int32), "input_lengths": np.array([4], np.int32),
                 "label_lengths": np.array([1], np.int32)}, {"blank": 1}, _rnnt_expect),
    ],
)
def warprnnt(input, label, input_lengths, label_lengths, blank, fastemit_lambda):
    loss = np.zeros(input.shape[0])
    grad = np.zeros(input.shape)
    for b in range(input.shape[0]):
        t_len, n = int(input_lengths[b]), int(label_lengths[b])
        value, g = rnnt_one(input[b, :t_len, :n + 1], label[b, :n].astype(np.int64), blank,
                            fastemit_lambda)
        loss[b] = value
        grad[b, :t_len, :n + 1] = g
    return {"loss": loss.astype(input.dtype), "warprnntgrad": grad.astype(input.dtype)}


@register_op("warprnnt_grad", inputs=["input", "input_lengths", "warprnntgrad", "loss@GRAD"],
             outputs=["input@GRAD"], attrs=_RNNT_ATTRS, grad_of="warprnnt",
             infer=lambda ctx: {"input@GRAD": VarSpec(ctx.input("input").shape,
                                                      ctx.input("input").dtype)},
             doc="d input[b] = warprnntgrad[b] * d loss[b]")
def warprnnt_grad(input, input_lengths, warprnntgrad, loss_grad, blank, fastemit_lambda):
    scale = np.asarray(loss_grad).reshape(-1, 1, 1, 1)
    return {"input@GRAD": (warprnntgrad * scale).astype(input.dtype)}
