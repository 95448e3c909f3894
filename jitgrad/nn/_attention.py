"""Attention, composed from differentiable ops (``matmul``, ``softmax``, views):
``scaled_dot_product_attention`` and the multi-head attention that ``nn.MultiheadAttention``
runs.

Masks: a bool mask says which positions *take part* in ``scaled_dot_product_attention`` but
which are *left out* in ``MultiheadAttention`` (PyTorch's two conventions); both become an
additive float mask (``-inf`` where left out) before the softmax.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from .. import creation, dtypes
from ..ops.softmax import softmax
from ..ops.stacking import cat
from ..tensor import Tensor
from ._activations import dropout as _dropout

__all__ = ["scaled_dot_product_attention"]


def _additive(mask: Tensor, dtype: Any, keep_where_true: bool) -> Tensor:
    """A float mask as it is; a bool mask as ``0`` / ``-inf`` (``-inf`` where False with
    ``keep_where_true``, where True otherwise)."""
    if mask.dtype != dtypes.bool_:
        return mask
    drop = mask.logical_not() if keep_where_true else mask  # type: ignore[attr-defined]
    return creation.zeros(tuple(mask.shape), dtype=dtype).masked_fill(drop, float("-inf"))  # type: ignore[attr-defined]


def _masked_softmax(scores: Tensor, mask: Tensor) -> Tensor:
    """Softmax over the last dim of ``scores + mask``; a row that ``mask`` leaves all
    ``-inf`` gives zeros (and passes no gradient), as PyTorch's attention does, not NaN.
    (Computed with ops, not by reading the mask, so ``jitgrad.compile`` traces it.)"""
    dead = (mask == float("-inf")).all(-1, keepdim=True)  # type: ignore[attr-defined]
    return softmax((scores + mask).masked_fill(dead, 0.0), -1).masked_fill(dead, 0.0)  # type: ignore[attr-defined]


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """``softmax(q k^T * scale + mask) v`` over the last two dims (``(..., L, E)`` queries,
    ``(..., S, E)`` keys, ``(..., S, Ev)`` values). ``attn_mask``: bool (True takes part) or
    float (added), broadcast to ``(..., L, S)``; ``is_causal`` (without ``attn_mask``) masks
    the keys after the query's position; ``enable_gqa`` repeats each key/value head for its group of query
    heads (dim -3). Dropout applies whenever ``dropout_p > 0``."""
    if not query.dtype == key.dtype == value.dtype:
        raise RuntimeError("scaled_dot_product_attention: expected query, key and value to have the same "
                           f"dtype, but got query.dtype: {query.dtype} key.dtype: {key.dtype} and "
                           f"value.dtype: {value.dtype} instead.")
    if attn_mask is not None and attn_mask.dtype != dtypes.bool_ and attn_mask.dtype != query.dtype:
        raise RuntimeError("scaled_dot_product_attention: expected attn_mask dtype to be bool or float or to "
                           f"match query dtype, but got attn_mask.dtype: {attn_mask.dtype} and query.dtype: "
                           f"{query.dtype} instead.")
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if query.shape[-1] != key.shape[-1]:
        raise RuntimeError(f"scaled_dot_product_attention: query and key must have the same last dimension, "
                           f"got {query.shape[-1]} and {key.shape[-1]}")
    if enable_gqa and key.dim() >= 3 and key.shape[-3] != query.shape[-3]:
        groups = query.shape[-3] // key.shape[-3]
        key = key.repeat_interleave(groups, -3)  # type: ignore[attr-defined]
        value = value.repeat_interleave(groups, -3)  # type: ignore[attr-defined]
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    scores = query.matmul(key.transpose(-2, -1)) * scale  # type: ignore[attr-defined]
    if is_causal:  # (the first key is always kept: no row is all -inf)
        L, S = query.shape[-2], key.shape[-2]
        causal = creation.ones((L, S), dtype=dtypes.bool_).tril()  # type: ignore[attr-defined]
        weights = softmax(scores + _additive(causal, query.dtype, True), -1)
    elif attn_mask is not None:
        weights = _masked_softmax(scores, _additive(attn_mask, query.dtype, True))
    else:
        weights = softmax(scores, -1)
    if dropout_p > 0.0:
        weights = _dropout(weights, dropout_p, True)
    return weights.matmul(value)  # type: ignore[attr-defined,no-any-return]


def canonical_mask(mask: Tensor | None, name: str, other: Tensor | None, other_name: str, dtype: Any) -> Tensor | None:
    """A ``MultiheadAttention`` mask (bool: True is left out) as an additive float mask,
    with PyTorch's checks and its warning when the two masks' dtypes differ."""
    if mask is None:
        return None
    if mask.dtype != dtypes.bool_ and mask.dtype not in dtypes.FLOATING:
        raise AssertionError(f"only bool and floating types of {name} are supported")
    if other is not None and other.dtype != mask.dtype:
        warnings.warn(f"Support for mismatched {name} and {other_name} is deprecated. Use same type "
                      "for both instead.", stacklevel=3)
    return _additive(mask, dtype, keep_where_true=False)


def heads_attn_mask(attn_mask: Tensor | None, batch: int, heads: int, tgt_len: int, src_len: int) -> Tensor | None:
    """``MultiheadAttention``'s float ``attn_mask`` (``(L, S)`` or ``(N * heads, L, S)``,
    PyTorch's shape checks) broadcastable to ``(N, heads, L, S)``."""
    if attn_mask is None or attn_mask.dim() == 2:
        if attn_mask is not None and tuple(attn_mask.shape) != (tgt_len, src_len):
            raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                               f"{(tgt_len, src_len)}.")
        return attn_mask
    if attn_mask.dim() != 3:
        raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")
    if tuple(attn_mask.shape) != (batch * heads, tgt_len, src_len):
        raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                           f"{(batch * heads, tgt_len, src_len)}.")
    return attn_mask.view(batch, heads, tgt_len, src_len)  # type: ignore[attr-defined,no-any-return]


def with_padding_mask(mask: Tensor | None, key_padding_mask: Tensor | None, batch: int, src_len: int) -> Tensor | None:
    """``mask`` plus the float ``key_padding_mask`` ``(N, S)`` as ``(N, 1, 1, S)``."""
    if key_padding_mask is None:
        return mask
    if key_padding_mask.shape[0] != batch:
        raise AssertionError(f"Expected key_padded_mask.shape[0] to be {batch}, but got {key_padding_mask.shape[0]}")
    if key_padding_mask.shape[1] != src_len:
        raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got {key_padding_mask.shape[1]}")
    padding = key_padding_mask.view(batch, 1, 1, src_len)  # type: ignore[attr-defined]
    return padding if mask is None else mask + padding


def append_key(k: Tensor, v: Tensor, extra_k: Tensor, extra_v: Tensor, dim: int,
               masks: list[Tensor | None]) -> tuple[Any, ...]:
    """Keys and values with one more position ``extra_k``/``extra_v`` along ``dim``, and
    each mask given one more column of zeros (that position takes part)."""
    k, v = cat([k, extra_k], dim), cat([v, extra_v], dim)
    out = []
    for m in masks:
        if m is not None:
            m = cat([m, creation.zeros(tuple(m.shape[:-1]) + (1,), dtype=m.dtype)], -1)
        out.append(m)
    return (k, v, *out)
