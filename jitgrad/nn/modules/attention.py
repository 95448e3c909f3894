"""``MultiheadAttention``: PyTorch's parameters (``in_proj_weight`` or ``q/k/v_proj_weight``,
``in_proj_bias``, ``out_proj``, ``bias_k``/``bias_v``), init, checks and outputs, composed
from ``nn/_attention.py``."""

from __future__ import annotations

import math
from typing import Any

from ... import creation
from ...tensor import Tensor
from .. import functional as F
from .. import init
from .._attention import (
    append_key, canonical_mask, heads_attn_mask, scaled_dot_product_attention, with_padding_mask,
)
from ..parameter import Parameter
from .linear import Linear
from .module import Module


class NonDynamicallyQuantizableLinear(Linear):
    """``MultiheadAttention.out_proj``: a ``Linear`` under PyTorch's class name."""


def _check_shapes(query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None,
                  attn_mask: Tensor | None, num_heads: int) -> bool:
    """PyTorch's rank checks of the inputs; True when batched (3-D query)."""
    if query.dim() not in (2, 3):
        raise AssertionError("query should be unbatched 2D or batched 3D tensor but received "
                             f"{query.dim()}-D query tensor")
    batched = query.dim() == 3
    kind = "batched (3-D)" if batched else "unbatched (2-D)"
    if key.dim() != query.dim() or value.dim() != query.dim():
        raise AssertionError(f"For {kind} `query`, expected `key` and `value` to be {query.dim()}-D but found "
                             f"{key.dim()}-D and {value.dim()}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.dim() != query.dim() - 1:
        raise AssertionError(f"For {kind} `query`, expected `key_padding_mask` to be `None` or "
                             f"{query.dim() - 1}-D but found {key_padding_mask.dim()}-D tensor instead")
    if attn_mask is not None:
        if attn_mask.dim() not in (2, 3):
            raise AssertionError(f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                                 f"found {attn_mask.dim()}-D tensor instead")
        expected = (num_heads, query.shape[0], key.shape[0])
        if not batched and attn_mask.dim() == 3 and tuple(attn_mask.shape) != expected:
            raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}")
    return batched


class MultiheadAttention(Module):
    """Attention over ``num_heads`` heads of ``embed_dim // num_heads`` features, queries
    ``(L, N, E)`` (``(N, L, E)`` with ``batch_first``, ``(L, E)`` unbatched), keys and values
    of ``kdim``/``vdim`` features. Returns the output and, with ``need_weights``, the
    attention weights (averaged over heads with ``average_attn_weights``)."""

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: int | None = None,
                 vdim: int | None = None, batch_first: bool = False, device: Any = None, dtype: Any = None) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} "
                             f"and num_heads={num_heads} instead")
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")

        def empty(*shape: int) -> Parameter:
            return Parameter(creation.empty(shape, dtype=dtype))

        if self._qkv_same_embed_dim:
            self.in_proj_weight = empty(3 * embed_dim, embed_dim)
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:
            self.register_parameter("in_proj_weight", None)
            self.q_proj_weight = empty(embed_dim, embed_dim)
            self.k_proj_weight = empty(embed_dim, self.kdim)
            self.v_proj_weight = empty(embed_dim, self.vdim)
        if bias:
            self.in_proj_bias = empty(3 * embed_dim)
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, dtype=dtype)
        if add_bias_kv:
            self.bias_k, self.bias_v = empty(1, 1, embed_dim), empty(1, 1, embed_dim)
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        """Xavier-uniform projections, zero biases, Xavier-normal ``bias_k``/``bias_v``."""
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            for w in (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
                init.xavier_uniform_(w)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        for b in (self.bias_k, self.bias_v):
            if b is not None:
                init.xavier_normal_(b)

    def _project(self, query: Tensor, key: Tensor, value: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        E = self.embed_dim
        b = self.in_proj_bias
        biases = (None, None, None) if b is None else (b[:E], b[E:2 * E], b[2 * E:])
        if self._qkv_same_embed_dim:
            w = self.in_proj_weight
            weights = (w[:E], w[E:2 * E], w[2 * E:])
        else:
            weights = (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight)
        q, k, v = (F.linear(x, w_, b_) for x, w_, b_ in zip((query, key, value), weights, biases))
        return q, k, v

    def forward(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None = None,
                need_weights: bool = True, attn_mask: Tensor | None = None, average_attn_weights: bool = True,
                is_causal: bool = False) -> tuple[Tensor, Tensor | None]:
        batched = _check_shapes(query, key, value, key_padding_mask, attn_mask, self.num_heads)
        if self.batch_first and batched:
            query, key, value = (x.transpose(1, 0) for x in (query, key, value))  # type: ignore[attr-defined]
        if not batched:
            query, key, value = (x.unsqueeze(1) for x in (query, key, value))  # type: ignore[attr-defined]
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)  # type: ignore[attr-defined]
        L, N, E = query.shape
        H, hd = self.num_heads, self.head_dim
        key_padding_mask = canonical_mask(key_padding_mask, "key_padding_mask", attn_mask, "attn_mask", query.dtype)
        if is_causal and attn_mask is None:
            raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer "
                               "module method `generate_square_subsequent_mask` to create this mask.")
        attn_mask = canonical_mask(attn_mask, "attn_mask", None, "", query.dtype)
        if E != self.embed_dim:
            raise AssertionError(f"was expecting embedding dimension of {self.embed_dim}, but got {E}")
        if self._qkv_same_embed_dim and tuple(key.shape) != tuple(value.shape):
            raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
        if not self._qkv_same_embed_dim and tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                                 f"{value.shape[:2]}")
        q, k, v = self._project(query, key, value)
        attn_mask = heads_attn_mask(attn_mask, N, H, L, key.shape[0])
        if self.bias_k is not None and self.bias_v is not None:
            k, v, attn_mask, key_padding_mask = append_key(
                k, v, self.bias_k.expand(1, N, E), self.bias_v.expand(1, N, E), 0,  # type: ignore[attr-defined]
                [attn_mask, key_padding_mask])
        # (S, N, E) -> (N, H, S, hd)
        q, k, v = (x.reshape(x.shape[0], N, H, hd).permute(1, 2, 0, 3) for x in (q, k, v))  # type: ignore[attr-defined]
        if self.add_zero_attn:
            zeros = creation.zeros((N, H, 1, hd), dtype=k.dtype)
            k, v, attn_mask, key_padding_mask = append_key(k, v, zeros, zeros, 2, [attn_mask, key_padding_mask])
        S = k.shape[2]
        mask = with_padding_mask(attn_mask, key_padding_mask, N, S)
        dropout_p = self.dropout if self.training else 0.0
        weights = None
        if need_weights:
            scores = (q * math.sqrt(1.0 / hd)).matmul(k.transpose(-2, -1))  # type: ignore[attr-defined]
            weights = F.softmax(scores if mask is None else scores + mask, -1)
            if dropout_p > 0.0:
                weights = F.dropout(weights, dropout_p)
            out = weights.matmul(v)  # type: ignore[attr-defined]
            if average_attn_weights:
                weights = weights.mean(1)  # type: ignore[attr-defined]
        else:
            out = scaled_dot_product_attention(q, k, v, mask, dropout_p)
        out = F.linear(out.permute(2, 0, 1, 3).reshape(L, N, E), self.out_proj.weight, self.out_proj.bias)  # type: ignore[attr-defined]
        if not batched:
            return out.squeeze(1), None if weights is None else weights.squeeze(0)  # type: ignore[attr-defined]
        if self.batch_first:
            out = out.transpose(1, 0)  # type: ignore[attr-defined]
        return out, weights
