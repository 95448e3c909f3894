"""``layer_norm``, ``embedding``, ``one_hot``, ``cosine_similarity``, ``pairwise_distance``:
composed from jitgrad ops."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .. import creation, dtypes
from ..ops.compare import where
from ..tensor import Tensor


def layer_norm(input: Tensor, normalized_shape: Sequence[int], weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Normalise over the last ``len(normalized_shape)`` dims (biased variance), then scale
    and shift."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if tuple(input.shape[input.dim() - len(shape):]) != shape or len(shape) > input.dim():
        raise RuntimeError(
            f"layer_norm: expected input with trailing shape {list(shape)}, got {list(input.shape)}"
        )
    dims = tuple(range(input.dim() - len(shape), input.dim()))
    centered = input - input.mean(dims, keepdim=True)  # type: ignore[attr-defined]
    var = (centered * centered).mean(dims, keepdim=True)  # type: ignore[attr-defined]
    out = centered / (var + eps).sqrt()
    if weight is not None:
        out = out * weight
    return out if bias is None else out + bias


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None, max_norm: Any = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Rows of ``weight`` picked by the integer ``input``; rows at ``padding_idx`` get no gradient."""
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError("embedding: max_norm, scale_grad_by_freq and sparse are not supported")
    if input.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError(
            f"embedding: expected the indices to be int64 or int32, got {input.dtype.name}"
        )
    n = weight.shape[0]
    idx = input._numpy()  # type: ignore[attr-defined]
    if idx.size and (idx.min() < -n or idx.max() >= n):
        raise IndexError(f"embedding: index out of range for {n} embeddings (got {idx.min()}..{idx.max()})")
    rows = weight[input]
    if padding_idx is None:
        return rows
    padding_idx = padding_idx + n if padding_idx < 0 else padding_idx
    mask = creation.tensor(idx == padding_idx).unsqueeze(-1)  # type: ignore[attr-defined]
    return where(mask, rows.detach(), rows)  # type: ignore[attr-defined]


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    if tensor.dtype != dtypes.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    values = tensor._numpy()  # type: ignore[attr-defined]
    if values.size and values.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = int(values.max()) + 1 if values.size else 0
    elif values.size and values.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return creation.from_numpy((values[..., None] == np.arange(num_classes)).astype(np.int64))


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """``sum(x1 * x2) / (max(|x1|, eps) * max(|x2|, eps))`` along ``dim`` (after broadcasting)."""
    n1 = (x1 * x1).sum(dim, keepdim=True).sqrt().clamp(min=eps)  # type: ignore[attr-defined]
    n2 = (x2 * x2).sum(dim, keepdim=True).sqrt().clamp(min=eps)  # type: ignore[attr-defined]
    return ((x1 / n1) * (x2 / n2)).sum(dim)  # type: ignore[attr-defined]


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> Tensor:
    """The ``p``-norm of ``x1 - x2 + eps`` along the last dim of the broadcast (ATen's
    ``pairwise_distance``, whose node is ``at::norm``'s ``NormBackward1``)."""
    from ..ops.composites import shifted
    from ..ops.norms import LinalgVectorNormBackward0, NormBackward1, vector_norm

    out = vector_norm(shifted(x1 - x2, eps), p, -1 if max(x1.ndim, x2.ndim) else None, keepdim)
    if out._grad_fn.__class__ is LinalgVectorNormBackward0:
        out._grad_fn.__class__ = NormBackward1  # the same node under ATen's name
    return out
