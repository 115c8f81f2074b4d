"""MultiHeadAttention and the Transformer family (encoder/decoder layers and stacks), with
Paddle's sublayer names (q_proj, k_proj, v_proj, out_proj, linear1, linear2, norm1..3) so
state_dict keys match."""

from __future__ import annotations

import copy

import numpy as np

from ..errors import BuildError
from ..eager import Tensor
from ..tensor import linalg as tlinalg
from ..tensor import manipulation as manip
from . import _ops
from .layer_base import Layer
from .layers_common import Dropout, Linear
from .layers_container import LayerList
from .layers_norm import LayerNorm

__all__ = ["MultiHeadAttention", "TransformerEncoderLayer", "TransformerEncoder",
           "TransformerDecoderLayer", "TransformerDecoder", "Transformer"]


def _attention_mask(mask, dtype):
    """Paddle's mask convention: a bool/int mask keeps True/1 (others get -1e9 added); a float
    mask is added as is."""
    if mask is None:
        return None
    kind = np.dtype(mask.dtype).kind
    if kind in "biu":
        return (_ops.cast(mask, dtype) - 1.0) * 1e9
    return mask


def _activation(name: str, x):
    if name not in ("relu", "gelu"):
        raise BuildError(f"Transformer: activation must be 'relu' or 'gelu', got {name!r}")
    return _ops.unary(name, x)


class MultiHeadAttention(Layer):
    """Scaled dot-product attention over num_heads heads with q/k/v/out projections.

    Example:
        >>> attn = pyir.nn.MultiHeadAttention(64, 8)
        >>> y = attn(q, k, v)
    """

    def __init__(self, embed_dim, num_heads, dropout=0.0, kdim=None, vdim=None,
                 need_weights=False, weight_attr=None, bias_attr=None):
        super().__init__()
        if not isinstance(embed_dim, int) or embed_dim <= 0:
            raise BuildError(f"MultiHeadAttention: embed_dim must be a positive int, got "
                             f"{embed_dim!r}")
        if not isinstance(num_heads, int) or num_heads <= 0:
            raise BuildError(f"MultiHeadAttention: num_heads must be a positive int, got "
                             f"{num_heads!r}")
        if embed_dim % num_heads:
            raise BuildError(f"MultiHeadAttention: embed_dim ({embed_dim}) must be divisible "
                             f"by num_heads ({num_heads})")
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.kdim, self.vdim = kdim or embed_dim, vdim or embed_dim
        self.head_dim = embed_dim // num_heads
        self.dropout, self.need_weights = dropout, need_weights
        self.q_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.k_proj = Linear(self.kdim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.v_proj = Linear(self.vdim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.out_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr=bias_attr)

    def _heads(self, x):
        y = manip.reshape(x, [0, 0, self.num_heads, self.head_dim])
        return manip.transpose(y, [0, 2, 1, 3])

    def forward(self, query, key=None, value=None, attn_mask=None, cache=None):
        if cache is not None:
            raise BuildError("MultiHeadAttention: incremental decoding caches are not "
                             "supported; pass cache=None")
        key = query if key is None else key
        value = query if value is None else value
        q = self._heads(self.q_proj(query))
        k = self._heads(self.k_proj(key))
        v = self._heads(self.v_proj(value))
        product = tlinalg.matmul(q, k, transpose_y=True) * (self.head_dim ** -0.5)
        mask = _attention_mask(attn_mask, product.dtype)
        if mask is not None:
            product = product + mask
        weights = _ops.unary("softmax", product, axis=-1)
        if self.dropout:
            weights = _ops.dropout(weights, self.dropout, self.training)
        y = tlinalg.matmul(weights, v)
        y = manip.transpose(y, [0, 2, 1, 3])
        y = manip.reshape(y, [0, 0, self.embed_dim])
        y = self.out_proj(y)
        return (y, weights) if self.need_weights else y


class TransformerEncoderLayer(Layer):
    """Self attention then a feed-forward block, each with residual, dropout and LayerNorm
    (before: normalize_before=True, else after).

    Example:
        >>> layer = pyir.nn.TransformerEncoderLayer(64, 8, 256)
    """

    def __init__(self, d_model, nhead, dim_feedforward, dropout=0.1, activation="relu",
                 attn_dropout=None, act_dropout=None, normalize_before=False,
                 weight_attr=None, bias_attr=None, layer_norm_eps=1e-5):
        self._config = dict(d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward,
                            dropout=dropout, activation=activation, attn_dropout=attn_dropout,
                            act_dropout=act_dropout, normalize_before=normalize_before,
                            weight_attr=weight_attr, bias_attr=bias_attr,
                            layer_norm_eps=layer_norm_eps)
        super().__init__()
        attn_dropout = dropout if attn_dropout is None else attn_dropout
        act_dropout = dropout if act_dropout is None else act_dropout
        self.normalize_before, self.activation = normalize_before, activation
        if activation not in ("relu", "gelu"):
            raise BuildError(f"TransformerEncoderLayer: activation must be 'relu' or 'gelu', "
                             f"got {activation!r}")
        self.self_attn = MultiHeadAttention(d_model, nhead, attn_dropout, weight_attr=weight_attr,
                                            bias_attr=bias_attr)
        self.linear1 = Linear(d_model, dim_feedforward, weight_attr, bias_attr=bias_attr)
        self.dropout = Dropout(act_dropout, mode="upscale_in_train")
        self.linear2 = Linear(dim_feedforward, d_model, weight_attr, bias_attr=bias_attr)
        self.norm1 = LayerNorm(d_model, layer_norm_eps)
        self.norm2 = LayerNorm(d_model, layer_norm_eps)
        self.dropout1 = Dropout(dropout, mode="upscale_in_train")
        self.dropout2 = Dropout(dropout, mode="upscale_in_train")

    def forward(self, src, src_mask=None, cache=None):
        residual = src
        if self.normalize_before:
            src = self.norm1(src)
        src = residual + self.dropout1(self.self_attn(src, src, src, src_mask, cache))
        if not self.normalize_before:
            src = self.norm1(src)
        residual = src
        if self.normalize_before:
            src = self.norm2(src)
        src = self.linear2(self.dropout(_activation(self.activation, self.linear1(src))))
        src = residual + self.dropout2(src)
        if not self.normalize_before:
            src = self.norm2(src)
        return src


def _clones(layer, num_layers: int) -> list:
    """`layer` then num_layers-1 new layers of the same configuration (own parameters)."""
    if not isinstance(num_layers, int) or num_layers <= 0:
        raise BuildError(f"num_layers must be a positive int, got {num_layers!r}")
    return [layer] + [type(layer)(**copy.copy(layer._config)) for _ in range(num_layers - 1)]


class TransformerEncoder(Layer):
    """num_layers encoder layers (the first is `encoder_layer`, the rest new ones of its
    configuration), then an optional final norm."""

    def __init__(self, encoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = LayerList(_clones(encoder_layer, num_layers))
        self.num_layers, self.norm = num_layers, norm

    def forward(self, src, src_mask=None, cache=None):
        for layer in self.layers:
            src = layer(src, src_mask)
        return src if self.norm is None else self.norm(src)


class TransformerDecoderLayer(Layer):
    """Self attention, cross attention over `memory`, and a feed-forward block."""

    def __init__(self, d_model, nhead, dim_feedforward, dropout=0.1, activation="relu",
                 attn_dropout=None, act_dropout=None, normalize_before=False,
                 weight_attr=None, bias_attr=None, layer_norm_eps=1e-5):
        self._config = dict(d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward,
                            dropout=dropout, activation=activation, attn_dropout=attn_dropout,
                            act_dropout=act_dropout, normalize_before=normalize_before,
                            weight_attr=weight_attr, bias_attr=bias_attr,
                            layer_norm_eps=layer_norm_eps)
        super().__init__()
        attn_dropout = dropout if attn_dropout is None else attn_dropout
        act_dropout = dropout if act_dropout is None else act_dropout
        self.normalize_before, self.activation = normalize_before, activation
        self.self_attn = MultiHeadAttention(d_model, nhead, attn_dropout, weight_attr=weight_attr,
                                            bias_attr=bias_attr)
        self.cross_attn = MultiHeadAttention(d_model, nhead, attn_dropout,
                                             weight_attr=weight_attr, bias_attr=bias_attr)
        self.linear1 = Linear(d_model, dim_feedforward, weight_attr, bias_attr=bias_attr)
        self.dropout = Dropout(act_dropout, mode="upscale_in_train")
        self.linear2 = Linear(dim_feedforward, d_model, weight_attr, bias_attr=bias_attr)
        self.norm1 = LayerNorm(d_model, layer_norm_eps)
        self.norm2 = LayerNorm(d_model, layer_norm_eps)
        self.norm3 = LayerNorm(d_model, layer_norm_eps)
        self.dropout1 = Dropout(dropout, mode="upscale_in_train")
        self.dropout2 = Dropout(dropout, mode="upscale_in_train")
        self.dropout3 = Dropout(dropout, mode="upscale_in_train")

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        residual = tgt
        if self.normalize_before:
            tgt = self.norm1(tgt)
        tgt = residual + self.dropout1(self.self_attn(tgt, tgt, tgt, tgt_mask, cache))
        if not self.normalize_before:
            tgt = self.norm1(tgt)
        residual = tgt
        if self.normalize_before:
            tgt = self.norm2(tgt)
        tgt = residual + self.dropout2(self.cross_attn(tgt, memory, memory, memory_mask))
        if not self.normalize_before:
            tgt = self.norm2(tgt)
        residual = tgt
        if self.normalize_before:
            tgt = self.norm3(tgt)
        tgt = self.linear2(self.dropout(_activation(self.activation, self.linear1(tgt))))
        tgt = residual + self.dropout3(tgt)
        if not self.normalize_before:
            tgt = self.norm3(tgt)
        return tgt


class TransformerDecoder(Layer):
    """num_layers decoder layers, then an optional final norm."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = LayerList(_clones(decoder_layer, num_layers))
        self.num_layers, self.norm = num_layers, norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        for layer in self.layers:
            tgt = layer(tgt, memory, tgt_mask, memory_mask)
        return tgt if self.norm is None else self.norm(tgt)


class Transformer(Layer):
    """Encoder-decoder transformer (each stack ends with a LayerNorm).

    Example:
        >>> model = pyir.nn.Transformer(64, 8, 2, 2, 256)
        >>> y = model(src, tgt)
    """

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation="relu", attn_dropout=None,
                 act_dropout=None, normalize_before=False, weight_attr=None, bias_attr=None,
                 custom_encoder=None, custom_decoder=None):
        super().__init__()
        options = dict(dropout=dropout, activation=activation, attn_dropout=attn_dropout,
                       act_dropout=act_dropout, normalize_before=normalize_before,
                       weight_attr=weight_attr, bias_attr=bias_attr)
        self.encoder = custom_encoder or TransformerEncoder(
            TransformerEncoderLayer(d_model, nhead, dim_feedforward, **options),
            num_encoder_layers, LayerNorm(d_model))
        self.decoder = custom_decoder or TransformerDecoder(
            TransformerDecoderLayer(d_model, nhead, dim_feedforward, **options),
            num_decoder_layers, LayerNorm(d_model))
        self.d_model, self.nhead = d_model, nhead

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None):
        memory = self.encoder(src, src_mask)
        return self.decoder(tgt, memory, tgt_mask, memory_mask)

    def generate_square_subsequent_mask(self, length):
        """A [length, length] float mask: 0 on and below the diagonal, -inf above."""
        mask = np.triu(np.full((length, length), -np.inf, np.float32), 1)
        return Tensor(mask)
