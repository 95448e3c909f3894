"""``ctc_loss``: the Connectionist Temporal Classification loss, as PyTorch's CPU one.

``log_probs`` is (T, N, C) (or (T, C) for one unbatched sequence), normally a
``log_softmax`` output; ``targets`` is (N, S) padded or 1-D with the N targets one after
the other (any dtype: cast to int64 as PyTorch does); the lengths are tensors or sequences
of ints. The per-sequence negative log likelihood comes from ``kernels/_ctc_jit.py`` with a
``CtcLossBackward0`` node (its gradient is PyTorch's, see there); then, as ATen's
``ctc_loss`` does with ordinary ops: infinite losses become 0 with ``zero_infinity``
(``where``), ``'mean'`` divides each loss by its target length (at least 1) and averages,
``'sum'`` sums, ``'none'`` keeps them (squeezed for an unbatched input).

Arguments are checked before the kernels run, with PyTorch's messages; jitgrad also refuses
target labels outside ``[0, C)`` (PyTorch reads past its buffer there).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import creation, dtypes
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, SavingNode
from ..kernels import ctc as _kernels
from ..ops.compare import where
from ..ops.gather_scatter import NotImplementedBackward
from ..ops.operands import from_result
from ..tensor import Tensor
from ._losses import _check_reduction

_WHERE = " (while checking arguments for ctc_loss_allocate_outputs)"


class CtcLossBackward0(SavingNode):
    """Gradient of the per-sequence losses with respect to ``log_probs`` (PyTorch's; its own
    derivative is not implemented, as in PyTorch)."""

    def __init__(self, targets: np.ndarray, input_lengths: np.ndarray, target_lengths: np.ndarray,
                 blank: int, zero_infinity: bool, alpha: np.ndarray) -> None:
        super().__init__()
        self.targets = targets
        self.input_lengths = input_lengths
        self.target_lengths = target_lengths
        self.blank = blank
        self.zero_infinity = zero_infinity
        self.alpha = alpha

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        log_probs, nll = self.unpack()
        lp = np.ascontiguousarray(log_probs._numpy())
        grad_out = np.ascontiguousarray(grads[0]._numpy(), dtype=lp.dtype)  # type: ignore[union-attr]
        grad = np.empty_like(lp)
        _kernels.grad(lp, self.targets, self.input_lengths, self.target_lengths, self.blank, self.alpha,
                      np.ascontiguousarray(nll._numpy()), grad_out, self.zero_infinity,
                      np.empty_like(self.alpha), grad)
        out = from_result(grad)
        if needs_grad(grads[0], log_probs):  # create_graph: backward through this raises
            record(NotImplementedBackward("_ctc_loss_backward"), (grads[0], log_probs), (out,))
        return (out,)


def _lengths(name: str, value: Any, batch: int) -> np.ndarray:
    if isinstance(value, Tensor):
        if value.dtype not in dtypes.INTEGRAL:
            raise RuntimeError(f"{name} must be integral")
        array = value._numpy().astype(np.int64).reshape(-1)  # type: ignore[attr-defined]
    else:
        array = np.asarray([int(v) for v in value], dtype=np.int64)
    if array.shape[0] != batch:
        raise RuntimeError(f"{name} must be of size batch_size")
    return array


def _padded_targets(targets: Tensor, target_lengths: np.ndarray, batch: int) -> np.ndarray:
    """The targets as an (N, longest) int64 array, checked as PyTorch checks them."""
    values = targets._numpy().astype(np.int64)  # type: ignore[attr-defined]
    for length in target_lengths:
        if length < 0:
            raise RuntimeError(f"Expected target_lengths to have value at least 0, but got value {length}{_WHERE}")
    longest = int(target_lengths.max()) if batch else 0
    if values.ndim == 1:
        total = int(target_lengths.sum())
        if values.shape[0] != total:
            raise RuntimeError(f"Expected tensor to have size {total} at dimension 0, but got size "
                               f"{values.shape[0]} for argument #2 'targets'{_WHERE}")
        padded = np.zeros((batch, longest), np.int64)
        starts = np.concatenate([[0], np.cumsum(target_lengths)[:-1]])
        for b, (start, length) in enumerate(zip(starts, target_lengths)):
            padded[b, :length] = values[start:start + length]
        return padded
    if values.ndim != 2:
        raise RuntimeError(f"Expected 1 to 2 dimensions, but got {values.ndim}-dimensional tensor for "
                           f"argument #2 'targets'{_WHERE}")
    if values.shape[0] != batch:
        raise RuntimeError(f"Expected tensor to have size {batch} at dimension 0, but got size "
                           f"{values.shape[0]} for argument #2 'targets'{_WHERE}")
    if values.shape[1] < longest:
        raise RuntimeError(f"Expected tensor to have size at least {longest} at dimension 1, but got size "
                           f"{values.shape[1]} for argument #2 'targets'{_WHERE}")
    return np.ascontiguousarray(values[:, :longest])


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """The CTC loss of ``log_probs`` (T, N, C) against ``targets`` (see the module docstring)."""
    _check_reduction(reduction)
    if isinstance(input_lengths, Tensor) != isinstance(target_lengths, Tensor):
        raise TypeError("ctc_loss(): input_lengths and target_lengths must both be tensors or both "
                        "sequences of ints")
    batched = log_probs.dim() == 3
    lp = log_probs if batched else log_probs.unsqueeze(1)  # type: ignore[attr-defined]
    if lp.dim() != 3:
        raise RuntimeError(f"Expected 3-dimensional tensor, but got {lp.dim()}-dimensional tensor for "
                           f"argument #1 'log_probs'{_WHERE}")
    if lp.dtype not in (dtypes.float32, dtypes.float64):
        raise NotImplementedError(f"\"ctc_loss_cpu\" not implemented for '{lp.dtype.name}'")
    steps, batch, classes = lp.shape
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    inputs = _lengths("input_lengths", input_lengths, batch)
    lengths = _lengths("target_lengths", target_lengths, batch)
    padded = _padded_targets(targets, lengths, batch)
    for length in inputs:
        if length < 0:
            raise RuntimeError(f"Expected input_lengths to have value at least 0, but got value {length}{_WHERE}")
        if length > steps:
            raise RuntimeError(f"Expected input_lengths to have value at most {steps}, but got value {length}{_WHERE}")
    if lp.numel() == 0:
        raise RuntimeError("log_probs tensor must not be empty")
    used = np.arange(padded.shape[1]) < lengths[:, None]
    if used.any() and (padded[used].min() < 0 or padded[used].max() >= classes):
        raise RuntimeError(f"ctc_loss: target labels must be in [0, {classes}), got labels from "
                           f"{padded[used].min()} to {padded[used].max()}")

    values = np.ascontiguousarray(lp._numpy())  # type: ignore[attr-defined]
    alpha = np.empty((batch, steps, 2 * (int(lengths.max()) if batch else 0) + 1), values.dtype)
    nll = np.empty(batch, values.dtype)
    _kernels.alpha(values, padded, inputs, lengths, blank, alpha, nll)
    res = from_result(nll)
    if needs_grad(lp):
        node = CtcLossBackward0(padded, inputs, lengths, blank, bool(zero_infinity), alpha)
        record(node, (lp,), (res,))
        node.save(lp, res, outputs=(res,))
    if zero_infinity:
        res = where(res == float("inf"), creation.zeros((), dtype=res.dtype), res)  # type: ignore[operator]
    if reduction == "mean":
        clamped = creation.tensor(lengths.astype(values.dtype)).clamp_min(1)  # type: ignore[attr-defined]
        return (res / clamped).mean()  # type: ignore[attr-defined]
    if reduction == "sum":
        return res.sum()  # type: ignore[attr-defined]
    return res if batched else res.squeeze(0)  # type: ignore[attr-defined]
