"""``jitgrad.nn.utils``: gradient clipping and flattening parameters into one vector;
``rnn`` (padding sequences) is a submodule, as in PyTorch."""

from __future__ import annotations

import math
from typing import Iterable

from ... import creation
from ...autograd import no_grad
from ...ops.stacking import cat
from ...tensor import Tensor
from . import rnn

__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector", "vector_to_parameters", "rnn"]


def _as_list(parameters: Tensor | Iterable[Tensor]) -> list[Tensor]:
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def clip_grad_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Scale all gradients together so their joint ``norm_type`` norm is at most ``max_norm``;
    returns the norm before clipping (as a 0-d tensor)."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]  # type: ignore[attr-defined]
    if not grads:
        return creation.tensor(0.0)
    with no_grad():
        if norm_type == math.inf:
            total = cat([g.abs().amax().reshape(1) for g in grads]).amax()  # type: ignore[attr-defined]
        else:
            total = cat([((g.abs() ** norm_type).sum() ** (1.0 / norm_type)).reshape(1)  # type: ignore[attr-defined]
                         for g in grads])
            total = (total ** norm_type).sum() ** (1.0 / norm_type)  # type: ignore[attr-defined]
        value = total.item()
        if error_if_nonfinite and not math.isfinite(value):
            raise RuntimeError(
                f"The total norm of order {norm_type} for gradients from `parameters` is "
                "non-finite, so it cannot be clipped. To disable this error and scale the "
                "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"
            )
        coef = min(max_norm / (value + 1e-6), 1.0)
        for g in grads:
            g.mul_(coef)  # type: ignore[attr-defined]
    return total


def clip_grad_value_(parameters: Tensor | Iterable[Tensor], clip_value: float, foreach: bool | None = None) -> None:
    with no_grad():
        for p in _as_list(parameters):
            if p.grad is not None:  # type: ignore[attr-defined]
                p.grad.clamp_(min=-clip_value, max=clip_value)  # type: ignore[attr-defined]


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """All parameters flattened and joined into one 1-D tensor (differentiable)."""
    return cat([p.reshape(-1) for p in parameters])  # type: ignore[attr-defined]


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copy consecutive slices of ``vec`` into the parameters (PyTorch replaces ``.data``)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    offset = 0
    with no_grad():
        for p in parameters:
            n = p.numel()
            p.copy_(vec[offset:offset + n].view_as(p))  # type: ignore[attr-defined]
            offset += n
