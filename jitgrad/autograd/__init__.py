"""Reverse-mode automatic differentiation: graph nodes, the engine, grad mode."""

from __future__ import annotations

from .anomaly_mode import (
    detect_anomaly, is_anomaly_check_nan_enabled, is_anomaly_enabled, set_detect_anomaly,
)
from .engine import backward, grad
from . import forward_ad
from .function import Function, FunctionCtx, once_differentiable
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .grad_mode import (
    enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad,
    set_grad_enabled,
)
from .node import Node, RemovableHandle, SavedTensor, SavingNode
from .view_mode import is_view_replay, set_view_replay, view_replay

__all__ = [
    "Function",
    "FunctionCtx",
    "once_differentiable",
    "GradcheckError",
    "gradcheck",
    "gradgradcheck",
    "Node",
    "RemovableHandle",
    "SavedTensor",
    "SavingNode",
    "backward",
    "forward_ad",
    "detect_anomaly",
    "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled",
    "set_detect_anomaly",
    "enable_grad",
    "inference_mode",
    "is_inference_mode_enabled",
    "grad",
    "is_grad_enabled",
    "no_grad",
    "set_grad_enabled",
    "is_view_replay",
    "set_view_replay",
    "view_replay",
]
