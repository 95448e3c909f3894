"""Margin and count losses of ``nn.functional``: ``margin_ranking_loss``,
``hinge_embedding_loss``, ``soft_margin_loss``, ``cosine_embedding_loss``,
``triplet_margin_loss``, ``poisson_nll_loss``, ``multilabel_soft_margin_loss``.

Each is composed from jitgrad ops in PyTorch's order (so the nodes are PyTorch's), except
``soft_margin_loss``, one node in PyTorch (``SoftMarginLossBackward0``, the reduction
included), whose backward is written in jitgrad ops.
"""

from __future__ import annotations

import math
from typing import Any

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
from ._normalization import pairwise_distance


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


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> Tensor:
    """``max(0, margin + d(a, p) - d(a, n))`` with ``d`` the ``p``-norm distance (``swap``: the
    smaller of ``d(a, n)`` and ``d(p, n)``)."""
    reduction = _reduction(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of dimensions, "
            f"but got: anchor {anchor.ndim}D, positive {positive.ndim}D, and negative {negative.ndim}D inputs"
        )
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
