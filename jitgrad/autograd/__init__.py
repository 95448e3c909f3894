"""Reverse-mode automatic differentiation: graph nodes, the engine, grad mode."""

from __future__ import annotations

from .engine import backward, grad
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .node import Node, RemovableHandle, SavedTensor, SavingNode

__all__ = [
    "GradcheckError",
    "gradcheck",
    "gradgradcheck",
    "Node",
    "RemovableHandle",
    "SavedTensor",
    "SavingNode",
    "backward",
    "enable_grad",
    "grad",
    "is_grad_enabled",
    "no_grad",
    "set_grad_enabled",
]
