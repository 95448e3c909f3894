"""``allclose``: whether two tensors are elementwise equal within tolerances (NumPy's rule,
``|a - b| <= atol + rtol * |b|``, which is also PyTorch's), after broadcasting."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensor import Tensor


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:
    for name, t in (("input", input), ("other", other)):
        if not isinstance(t, Tensor):
            raise TypeError(f"allclose(): argument '{name}' must be a Tensor, got {type(t).__name__}")
    a, b = _values(input), _values(other)
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise RuntimeError(
            f"allclose(): the shapes {list(a.shape)} and {list(b.shape)} are not broadcastable"
        ) from None
    return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def _values(t: Tensor) -> Any:
    return t.numpy()
