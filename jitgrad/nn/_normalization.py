"""``layer_norm``, ``one_hot``, ``cosine_similarity``, ``pairwise_distance``:
composed from jitgrad ops."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .. import creation, dtypes
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
