"""``torch.nn.utils.stateless``: ``functional_call``, PyTorch's older home of
``torch.func.functional_call`` (same arguments)."""

from __future__ import annotations

import warnings
from typing import Any

from ...func import functional_call as _functional_call

__all__ = ["functional_call"]


def functional_call(module: Any, parameters_and_buffers: Any, args: Any = None, kwargs: Any = None, *,
                    tie_weights: bool = True, strict: bool = False) -> Any:
    """Call ``module`` with some parameters and buffers replaced (``torch.func.functional_call``)."""
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be removed "
                  "in a future version of PyTorch. Please use `torch.func.functional_call` instead which is a "
                  "drop-in replacement.", FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict)
