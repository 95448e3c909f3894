"""Loss functions of ``nn.functional``: regression losses and the log-likelihood family.

``nll_loss`` picks ``input[i, target[i]]`` with advanced indexing (whose backward
scatter-adds), so class weights, ``ignore_index`` and every reduction are plain arithmetic
on the picked values, with PyTorch's weighted mean ``sum(w_i l_i) / sum(w_i)``.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from .. import creation, dtypes, ranges
from ..autograd.grad_mode import no_grad
from ..ops.binary_math import xlogy
from ..ops.compare import where
from ..ops.softmax import log_softmax
from ..ops.pointwise import abs as _abs, exp, log
from ..tensor import Tensor
from ._activations import softplus

_REDUCTIONS = ("none", "mean", "sum")


def legacy_reduction(size_average: Any, reduce: Any, reduction: str) -> str:
    """The ``reduction`` string the deprecated ``size_average``/``reduce`` pair means."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    return "none" if not reduce else ("mean" if size_average else "sum")


def apply_reduction(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()  # type: ignore[attr-defined]
    if reduction == "sum":
        return loss.sum()  # type: ignore[attr-defined]
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _check_reduction(reduction: str) -> None:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _pointwise_loss(op: str, input: Tensor, target: Tensor) -> Tensor:
    if not isinstance(input, Tensor) or not isinstance(target, Tensor):
        raise TypeError(
            f"{op}(): expected input and target to be Tensors, got {type(input).__name__} and "
            f"{type(target).__name__}"
        )
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.",
            stacklevel=3,
        )
    return input - target


def mse_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
             reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    diff = _pointwise_loss("mse_loss", input, target)
    loss = diff * diff
    return apply_reduction(loss if weight is None else loss * weight, reduction)


def l1_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
            reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    loss = _abs(_pointwise_loss("l1_loss", input, target))
    return apply_reduction(loss if weight is None else loss * weight, reduction)


def _class_last(input: Tensor) -> Tensor:
    """(N, C, d1, ...) -> (N * d1 * ..., C); (C,) -> (1, C); (N, C) unchanged."""
    if input.dim() == 1:
        return input.unsqueeze(0)  # type: ignore[attr-defined]
    if input.dim() == 2:
        return input
    return input.movedim(1, -1).reshape(-1, input.shape[1])  # type: ignore[attr-defined]


def _check_targets(op: str, input: Tensor, target: Tensor, weight: Tensor | None) -> None:
    if target.dtype != dtypes.int64:
        raise RuntimeError(f"{op}: expected target dtype to be Long (int64), but got {target.dtype.name}")
    if input.dim() < 1:
        raise ValueError(f"{op}: expected input with at least 1 dimension, got a 0-d tensor")
    expected = input.shape[:1] + input.shape[2:] if input.dim() >= 2 else ()
    if input.dim() >= 2 and target.dim() >= 1 and target.shape[0] != input.shape[0]:
        raise ValueError(
            f"Expected input batch_size ({input.shape[0]}) to match target batch_size ({target.shape[0]})."
        )
    if tuple(target.shape) != tuple(expected):
        raise RuntimeError(f"{op}: expected target of shape {list(expected)}, got {list(target.shape)}")
    n_classes = input.shape[1] if input.dim() >= 2 else input.shape[0]
    if weight is not None and tuple(weight.shape) != (n_classes,):
        raise RuntimeError(
            f"weight tensor should be defined either for all {n_classes} classes or no classes "
            f"but got weight tensor of shape: {list(weight.shape)}"
        )


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: Any = None,
             ignore_index: int = -100, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """``-w[t_i] * input[i, t_i]`` per sample (class dim 1), skipping ``ignore_index``."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    _check_targets("nll_loss", input, target, weight)
    flat = _class_last(input)
    t = target.reshape(-1).numpy()  # type: ignore[attr-defined]
    n_classes = flat.shape[1]
    keep = t != ignore_index
    bad = t[keep & ((t < 0) | (t >= n_classes))]
    if bad.size:
        raise IndexError(f"Target {int(bad[0])} is out of bounds.")
    safe = creation.tensor(np.where(keep, t, 0).astype(np.int64))
    picked = flat[ranges.arange(flat.shape[0]), safe]
    w = creation.tensor(keep.astype(input.dtype))
    if weight is not None:
        w = weight.to(input.dtype)[safe] * w  # type: ignore[attr-defined]
    losses = -(picked * w)
    if reduction == "none":
        return losses.reshape(target.shape)  # type: ignore[attr-defined]
    if reduction == "sum":
        return losses.sum()  # type: ignore[attr-defined]
    return losses.sum() / w.sum()  # type: ignore[attr-defined]


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: Any = None,
                  ignore_index: int = -100, reduce: Any = None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """``nll_loss(log_softmax(input, 1), target)`` for class indices; ``-sum(p log q)`` for
    class probabilities (a floating ``target`` shaped like ``input``); optional label smoothing."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    class_dim = 0 if input.dim() == 1 else 1
    logp = log_softmax(input, class_dim)
    n_classes = input.shape[class_dim]
    if target.is_floating_point() and target.shape == input.shape:
        return _cross_entropy_probs(logp, target, weight, reduction, label_smoothing, class_dim)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing == 0.0:
        return nll
    shape = [1] * input.dim()
    shape[class_dim] = n_classes
    weighted = logp if weight is None else logp * weight.reshape(shape)  # type: ignore[attr-defined]
    ignored = creation.tensor(target.numpy() == ignore_index)  # type: ignore[attr-defined]
    smooth = where(ignored, 0.0, -weighted.sum(class_dim))  # type: ignore[attr-defined]
    if reduction == "sum":
        smooth = smooth.sum()  # type: ignore[attr-defined]
    elif reduction == "mean":
        kept = target.numpy()[~ignored.numpy()]  # type: ignore[attr-defined]
        denom = float(len(kept)) if weight is None else weight.to(input.dtype)[creation.tensor(kept)].sum()  # type: ignore[attr-defined]
        smooth = smooth.sum() / denom  # type: ignore[attr-defined]
    return nll * (1 - label_smoothing) + smooth * (label_smoothing / n_classes)


def _cross_entropy_probs(logp: Tensor, target: Tensor, weight: Tensor | None, reduction: str,
                         label_smoothing: float, class_dim: int) -> Tensor:
    n_classes = logp.shape[class_dim]
    if weight is not None:
        shape = [1] * logp.dim()
        shape[class_dim] = n_classes
        logp = logp * weight.reshape(shape)  # type: ignore[attr-defined]
    if label_smoothing > 0.0:
        target = target * (1 - label_smoothing) + label_smoothing / n_classes
    per_sample = -(logp * target).sum(class_dim)  # type: ignore[attr-defined]
    if reduction == "none":
        return per_sample
    total = per_sample.sum()  # type: ignore[attr-defined]
    return total if reduction == "sum" else total / (logp.numel() / n_classes)


def smooth_l1_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
                   reduction: str = "mean", beta: float = 1.0) -> Tensor:
    """``0.5 d^2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta``."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if beta < 0:
        raise RuntimeError(f"smooth_l1_loss does not support negative values for beta, got {beta}")
    d = _pointwise_loss("smooth_l1_loss", input, target)
    ad = _abs(d)
    if beta == 0.0:
        return apply_reduction(ad, reduction)
    return apply_reduction(where(ad < beta, d * d * (0.5 / beta), ad - 0.5 * beta), reduction)


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Tensor | None = None) -> Tensor:
    """``0.5 d^2`` where ``|d| < delta``, else ``delta (|d| - 0.5 delta)``."""
    _check_reduction(reduction)
    d = _pointwise_loss("huber_loss", input, target)
    ad = _abs(d)
    loss = where(ad < delta, d * d * 0.5, (ad - 0.5 * delta) * delta)
    return apply_reduction(loss if weight is None else loss * weight, reduction)


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                         size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """``-(y log x + (1 - y) log(1 - x))`` with each log clamped at -100, as PyTorch."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if target.shape != input.shape:
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}) is deprecated. Please ensure they have the same size."
        )
    values = input.detach().numpy()  # type: ignore[attr-defined]
    if values.size and ((values < 0) | (values > 1)).any():
        raise RuntimeError("all elements of input should be between 0 and 1")
    log_x = log(input).clamp(min=-100)  # type: ignore[attr-defined]
    log_1mx = log(1 - input).clamp(min=-100)  # type: ignore[attr-defined]
    loss = -(target * log_x + (1 - target) * log_1mx)
    return apply_reduction(loss if weight is None else loss * weight, reduction)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     size_average: Any = None, reduce: Any = None,
                                     reduction: str = "mean", pos_weight: Tensor | None = None) -> Tensor:
    """``(1 - y) x + w_pos(y) softplus(-x)``, ``w_pos(y) = 1 + (pos_weight - 1) y``."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if target.shape != input.shape:
        raise ValueError(
            f"Target size ({target.shape}) must be the same as input size ({input.shape})"
        )
    soft = softplus(-input)
    if pos_weight is not None:
        soft = soft * ((pos_weight - 1) * target + 1)
    loss = (1 - target) * input + soft
    return apply_reduction(loss if weight is None else loss * weight, reduction)


def kl_div(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
           reduction: str = "mean", log_target: bool = False) -> Tensor:
    """The pointwise KL divergence ``target * (log(target) - input)`` (``input`` holds
    log-probabilities; ``target`` too with ``log_target``), as PyTorch's ``kl_div``:
    ``xlogy(target, target) - target * input``; ``'batchmean'`` divides the sum by the batch
    size, ``'mean'`` (with PyTorch's warning) by the number of elements."""
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce, reduction)
    elif reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support size."
            "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
            "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
            stacklevel=2,
        )
    if reduction not in _REDUCTIONS + ("batchmean",):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if log_target:
        loss = exp(target) * (target - input)
    else:
        loss = xlogy(target, target) - target * input
    reduced = apply_reduction(loss, "sum" if reduction == "batchmean" else reduction)
    if reduction == "batchmean" and input.ndim:
        reduced = reduced / input.shape[0]
    return reduced


def gaussian_nll_loss(input: Tensor, target: Tensor, var: Tensor | float, full: bool = False,
                      eps: float = 1e-6, reduction: str = "mean") -> Tensor:
    """The Gaussian negative log-likelihood ``0.5 (log(var) + (input - target)^2 / var)``
    (plus ``0.5 log(2 pi)`` when ``full``), ``var`` clamped to ``eps`` outside the graph:
    PyTorch's ``gaussian_nll_loss``, with its checks of ``var``'s size and sign."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * creation.ones_like(input)
    elif bool((var < 0).any()):  # type: ignore[operator]
        raise ValueError("var has negative entry/entries")
    if var.shape != input.shape:
        if input.shape[:-1] == var.shape:
            var = var.unsqueeze(-1)  # type: ignore[attr-defined]
        elif not (input.ndim == var.ndim
                  and sum(y for x, y in zip(input.shape, var.shape) if x != y) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in _REDUCTIONS:
        raise ValueError(reduction + " is not valid")
    var = var.clone()  # type: ignore[attr-defined]
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (log(var) + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    return apply_reduction(loss, reduction)
