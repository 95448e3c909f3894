"""Margin and count losses of ``nn.functional``: ``margin_ranking_loss``,
``hinge_embedding_loss``, ``soft_margin_loss``, ``cosine_embedding_loss``,
``triplet_margin_loss``, ``triplet_margin_with_distance_loss``, ``poisson_nll_loss``,
``multilabel_soft_margin_loss``, ``multi_margin_loss``, ``multilabel_margin_loss``.

Each is composed from jitgrad ops in PyTorch's order (so the nodes are PyTorch's), except
those that are one kernel in PyTorch: ``soft_margin_loss`` (``SoftMarginLossBackward0``,
backward written in jitgrad ops) and the two margin losses over classes (compositions under
one node, ``_composite.py``; unlike PyTorch's, differentiable twice).
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from .. import creation
from .._quiet import quiet
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, SavingNode
from ..ops.compare import where
from ..ops.operands import array_of, from_result
from ..ops.pointwise import exp, log
from ..tensor import Tensor
from ._losses import _check_reduction, apply_reduction, legacy_reduction
from ._more_activations import logsigmoid
from ._composite import MultilabelMarginLossBackward0, MultiMarginLossBackward0, one_node
from ._normalization import pairwise_distance
from ._pooling import _TYPE_NAMES


def _reduction(size_average: Any, reduce: Any, reduction: str) -> str:
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    return reduction


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """``max(0, -target * (input1 - input2) + margin)``."""
    reduction = _reduction(size_average, reduce, reduction)
    if not input1.ndim == input2.ndim == target.ndim:
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: input1: "
            f"{input1.shape}, input2: {input2.shape}, target: {target.shape} "
        )
    return apply_reduction((-target * (input1 - input2) + margin).clamp_min(0), reduction)  # type: ignore[attr-defined]


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, size_average: Any = None,
                         reduce: Any = None, reduction: str = "mean") -> Tensor:
    """``input`` where ``target == 1``, ``max(0, margin - input)`` where ``target == -1``."""
    reduction = _reduction(size_average, reduce, reduction)
    zeros = creation.zeros((), dtype=input.dtype)
    below = where(target != 1, (margin - input).clamp_min(0), zeros)  # type: ignore[attr-defined,operator]
    above = where(target != -1, input, zeros)  # type: ignore[operator]
    return apply_reduction(below + above, reduction)


class SoftMarginLossBackward0(SavingNode):
    def __init__(self, reduction: str) -> None:
        super().__init__()
        self.reduction = reduction

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        x, y = self.unpack()
        g = grads[0]
        z = exp(-(y * x))
        scale = g / x.numel() if self.reduction == "mean" else g  # type: ignore[operator]
        return (-y * z / (z + 1) * scale, None)


def soft_margin_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
                     reduction: str = "mean") -> Tensor:
    """``log(1 + exp(-target * input))``."""
    reduction = _reduction(size_average, reduce, reduction)
    if target.requires_grad:
        raise RuntimeError("The function 'soft_margin_loss' is not differentiable with respect to argument "
                           "'target'. This input cannot have requires_grad True.")
    if target.shape != input.shape:
        target = target.expand_as(input)  # type: ignore[attr-defined]
    x, y = array_of(input), array_of(target)
    with quiet():
        loss = np.log1p(np.exp(-(x * y)))
    value = loss if reduction == "none" else (loss.mean() if reduction == "mean" else loss.sum())
    out = from_result(np.asarray(value), input.dtype)
    if needs_grad(input):
        node = SoftMarginLossBackward0(reduction)
        record(node, (input, None), (out,))
        node.save(input, target, outputs=(out,))
    return out


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """``1 - cos(x1, x2)`` where ``target == 1``, ``max(0, cos(x1, x2) - margin)`` where ``-1``."""
    reduction = _reduction(size_average, reduce, reduction)
    if target.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    want = target.ndim + 1
    if input1.ndim != want or input2.ndim != want:
        raise RuntimeError(
            f"{target.ndim}D target tensor expects {want}D input tensors, but found inputs with sizes "
            f"{list(input1.shape)} and {list(input2.shape)}."
        )
    dim = input1.ndim - 1
    prod = (input1 * input2).sum(dim)  # type: ignore[attr-defined]
    mag1 = (input1 * input1).sum(dim) + 1e-12  # type: ignore[attr-defined]
    mag2 = (input2 * input2).sum(dim) + 1e-12  # type: ignore[attr-defined]
    cos = prod / (mag1 * mag2).sqrt()
    zeros = creation.zeros(tuple(cos.shape), dtype=cos.dtype)
    pos = where(target == 1, 1 - cos, zeros)  # type: ignore[operator]
    neg = where(target == -1, (cos - margin).clamp_min(0), zeros)  # type: ignore[attr-defined,operator]
    return apply_reduction(pos + neg, reduction)


def _check_triplet(anchor: Tensor, positive: Tensor, negative: Tensor) -> None:
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of dimensions, "
            f"but got: anchor {anchor.ndim}D, positive {positive.ndim}D, and negative {negative.ndim}D inputs"
        )


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> Tensor:
    """``max(0, margin + d(a, p) - d(a, n))`` with ``d`` the ``p``-norm distance (``swap``: the
    smaller of ``d(a, n)`` and ``d(p, n)``)."""
    reduction = _reduction(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_triplet(anchor, positive, negative)
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = d_neg.minimum(pairwise_distance(positive, negative, p, eps))  # type: ignore[attr-defined]
    return apply_reduction((margin + d_pos - d_neg).clamp_min(0), reduction)  # type: ignore[attr-defined]


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False,
                     size_average: Any = None, eps: float = 1e-8, reduce: Any = None,
                     reduction: str = "mean") -> Tensor:
    """``exp(input) - target * input`` (``log_input``), else ``input - target * log(input + eps)``;
    ``full`` adds Stirling's ``target log target - target + log(2 pi target) / 2`` where ``target > 1``."""
    reduction = _reduction(size_average, reduce, reduction)
    loss = exp(input) - target * input if log_input else input - target * log(input + eps)
    if full:
        stirling = target * log(target) - target + 0.5 * log(2 * math.pi * target)
        loss = loss + stirling.masked_fill(target <= 1, 0)  # type: ignore[attr-defined,operator]
    return apply_reduction(loss, reduction)


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """The mean over classes (the last dim) of ``-(t log sigmoid(x) + (1 - t) log sigmoid(-x))``."""
    reduction = _reduction(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.ndim - 1
    loss = loss.sum(class_dim) / input.shape[class_dim]  # type: ignore[attr-defined]
    return apply_reduction(loss, reduction)


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *,
                                      distance_function: Callable[[Tensor, Tensor], Tensor] | None = None,
                                      margin: float = 1.0, swap: bool = False, reduction: str = "mean") -> Tensor:
    """``max(0, margin + d(a, p) - d(a, n))`` for any ``distance_function`` (default: the
    pairwise Euclidean distance)."""
    _check_reduction(reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_triplet(anchor, positive, negative)
    distance = pairwise_distance if distance_function is None else distance_function
    d_pos, d_neg = distance(anchor, positive), distance(anchor, negative)
    if swap:
        d_neg = d_neg.minimum(distance(positive, negative))  # type: ignore[attr-defined]
    return apply_reduction((margin + d_pos - d_neg).clamp_min(0), reduction)  # type: ignore[attr-defined]


def _class_targets(target: Tensor) -> None:
    if target.dtype != np.dtype(np.int64):
        raise RuntimeError(f"expected scalar type Long but found {_TYPE_NAMES.get(target.dtype.name, target.dtype.name)}")


def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0, weight: Tensor | None = None,
                      size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """``sum_{i != y} w[y] max(0, margin - x[y] + x[i])^p / C`` per sample (one node,
    ``MultiMarginLossBackward0``)."""
    reduction = _reduction(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    _class_targets(target)
    x = input if input.ndim == 2 else input.reshape(1, -1)  # type: ignore[attr-defined]
    n, c = x.shape
    if target.numel() != n or (input.ndim == 2 and target.ndim != 1):
        raise RuntimeError(
            "multi_margin_loss: target tensor should be 1-D with size equal to the number of input samples (batch "
            f"size). Expected target size [{n}], but got {list(target.shape)}. Input has shape {list(input.shape)}."
        )
    if weight is not None and (weight.ndim != 1 or weight.numel() != c):
        raise RuntimeError(f"inconsistent weight size, expected {c} but got {list(weight.shape)}")
    if weight is not None and weight.requires_grad:
        raise RuntimeError("The function 'multi_margin_loss' is not differentiable with respect to argument "
                           "'weight'. This input cannot have requires_grad True.")
    t = array_of(target).reshape(n)
    if t.size and (t.min() < 0 or t.max() >= c):
        raise RuntimeError("target out of range")

    def compute(input: Tensor) -> Tensor:
        x = input if input.ndim == 2 else input.reshape(1, -1)  # type: ignore[attr-defined]
        idx = from_result(t.reshape(n, 1))
        z = margin - x.gather(1, idx) + x  # type: ignore[attr-defined]
        hinge = where(z > 0, z, 0.0)  # (no gradient at z == 0, as PyTorch's kernel)
        if p == 2:
            hinge = hinge * hinge
        if weight is not None:
            hinge = hinge * weight[from_result(t)].reshape(n, 1)  # type: ignore[attr-defined]
        hinge = where(from_result(t[:, None] == np.arange(c)), 0.0, hinge)
        per_sample = hinge.sum(1) / c  # type: ignore[attr-defined]
        if reduction == "none":
            return per_sample if input.ndim == 2 else per_sample.reshape(())  # type: ignore[attr-defined,no-any-return]
        return apply_reduction(per_sample, reduction)

    return one_node(MultiMarginLossBackward0, compute, (input,), (input, weight))


def multilabel_margin_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
                           reduction: str = "mean") -> Tensor:
    """``sum_{j, i} max(0, 1 - (x[y_j] - x[i])) / C`` over the targets ``y_j`` (the leading
    entries of each row up to the first -1) and the non-targets ``i`` (one node,
    ``MultilabelMarginLossBackward0``)."""
    reduction = _reduction(size_average, reduce, reduction)
    _class_targets(target)
    if tuple(target.shape) != tuple(input.shape) or input.ndim > 2:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}")
    x = input if input.ndim == 2 else input.reshape(1, -1)  # type: ignore[attr-defined]
    n, c = x.shape
    t = array_of(target).reshape(n, c)
    if t.size and (t.min() < -1 or t.max() >= c):
        raise RuntimeError("argument #2 'target' is out of range")
    listed = np.cumprod(t != -1, axis=1).astype(bool)  # (the targets: up to the first -1)
    safe = np.where(listed, t, 0)
    is_target = np.zeros((n, c), bool)
    rows, k = np.nonzero(listed)
    is_target[rows, t[rows, k]] = True
    mask = listed[:, :, None] & ~is_target[:, None, :]

    def compute(input: Tensor) -> Tensor:
        x = input if input.ndim == 2 else input.reshape(1, -1)  # type: ignore[attr-defined]
        chosen = x.gather(1, from_result(safe)).unsqueeze(2)  # type: ignore[attr-defined]
        z = 1 - chosen + x.unsqueeze(1)  # type: ignore[attr-defined]
        hinge = where(from_result(mask) & (z > 0), z, 0.0)  # (no gradient at z == 0, as PyTorch's kernel)
        per_sample = hinge.sum((1, 2)) / c  # type: ignore[attr-defined]
        if reduction == "none":
            return per_sample if input.ndim == 2 else per_sample.reshape(())  # type: ignore[attr-defined,no-any-return]
        return apply_reduction(per_sample, reduction)

    return one_node(MultilabelMarginLossBackward0, compute, (input,), (input,))
