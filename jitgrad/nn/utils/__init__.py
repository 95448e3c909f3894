"""``jitgrad.nn.utils``: gradient clipping and flattening parameters into one vector;
``rnn`` (padding sequences) is a submodule, as in PyTorch."""

from __future__ import annotations

import math
import warnings
from typing import Any, Iterable

from ... import creation
from ...autograd import no_grad
from ...ops.norms import vector_norm
from ...ops.stacking import cat, stack
from ...tensor import Tensor
from . import parametrizations, parametrize, rnn, stateless
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm",
           "parameters_to_vector", "parametrizations", "parametrize", "remove_spectral_norm", "remove_weight_norm",
           "rnn", "skip_init", "spectral_norm", "stateless", "vector_to_parameters", "weight_norm"]


def _as_list(parameters: Tensor | Iterable[Tensor]) -> list[Tensor]:
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def get_total_norm(tensors: Tensor | Iterable[Tensor], norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach: bool | None = None) -> Tensor:
    """The ``norm_type`` norm of the tensors' norms (PyTorch's order: one ``vector_norm``
    per tensor, then one of their stack), a 0-d tensor (``tensor(0.)`` for none)."""
    tensors = _as_list(tensors)
    if not tensors:
        return creation.tensor(0.0)
    norm_type = float(norm_type)
    with no_grad():
        total = vector_norm(stack([vector_norm(t, norm_type) for t in tensors]), norm_type)
    if error_if_nonfinite and not math.isfinite(total.item()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    return total


def clip_grads_with_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float, total_norm: Tensor,
                          foreach: bool | None = None) -> None:
    """Multiply every gradient by ``min(max_norm / (total_norm + 1e-6), 1)``, computed as a
    tensor in ``total_norm``'s dtype (as PyTorch, so float32 gradients round the same)."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]  # type: ignore[attr-defined]
    if not grads:
        return
    with no_grad():
        coef = (float(max_norm) / (total_norm + 1e-6)).clamp(max=1.0)  # type: ignore[attr-defined]
        for g in grads:
            g.mul_(coef)  # type: ignore[attr-defined]


def clip_grad_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Scale all gradients together so their joint ``norm_type`` norm is at most ``max_norm``;
    returns the norm before clipping (as a 0-d tensor)."""
    parameters = _as_list(parameters)
    grads = [p.grad for p in parameters if p.grad is not None]  # type: ignore[attr-defined]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters: Tensor | Iterable[Tensor], max_norm: float, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Deprecated alias of ``clip_grad_norm_`` (PyTorch warns, then clips)."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


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


def skip_init(module_cls: Any, *args: Any, **kwargs: Any) -> Any:
    """``module_cls(*args, **kwargs)`` whose parameters the caller will overwrite: PyTorch
    leaves them uninitialised; jitgrad (without a meta device) runs the usual init."""
    kwargs.pop("device", None)
    return module_cls(*args, **kwargs)
