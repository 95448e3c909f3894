"""``allclose``: whether two tensors are elementwise equal within tolerances (NumPy's rule,
``|a - b| <= atol + rtol * |b|``, which is also PyTorch's), after broadcasting."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensor import Tensor


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:
    a, b = _broadcastable("allclose", input, other)
    if a.dtype == b.dtype == np.float16:  # (PyTorch's float16 roundings: see _allowed_error)
        return bool(isclose(input, other, rtol, atol, equal_nan).numpy().all())
    return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def _values(t: Tensor) -> Any:
    return t.numpy()


def _pair(op: str, input: Any, other: Any) -> tuple[np.ndarray, np.ndarray]:
    for name, t in (("input", input), ("other", other)):
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}(): argument '{name}' must be a Tensor, got {type(t).__name__}")
    return _values(input), _values(other)


def _broadcastable(op: str, input: Any, other: Any) -> tuple[np.ndarray, np.ndarray]:
    a, b = _pair(op, input, other)
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise RuntimeError(
            f"{op}(): the shapes {list(a.shape)} and {list(b.shape)} are not broadcastable"
        ) from None
    return a, b


def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Tensor:
    """Elementwise ``input == other or |input - other| <= atol + |rtol * other|`` (a bool
    tensor, broadcast), NaNs equal when ``equal_nan``; both must have one dtype, as in PyTorch."""
    from .operands import from_result

    _pair("isclose", input, other)
    if input.dtype != other.dtype:
        raise RuntimeError(
            f"isclose(): input and other must have the same dtype, got {input.dtype.name} and "
            f"{other.dtype.name}"
        )
    if rtol < 0:
        raise RuntimeError(f"isclose(): rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"isclose(): atol must be greater than or equal to zero, but got {atol}")
    a, b = _broadcastable("isclose", input, other)
    with np.errstate(all="ignore"):
        close = a == b
        floating = np.issubdtype(a.dtype, np.floating)
        if equal_nan and floating:
            close = close | (np.isnan(a) & np.isnan(b))
        if rtol != 0 or atol != 0:
            fa, fb = (a, b) if floating else (a.astype(np.float64), b.astype(np.float64))
            error = np.abs(fa - fb)
            close = close | (np.isfinite(error) & (error <= _allowed_error(fb, rtol, atol)))
    return from_result(np.asarray(close, dtype=np.bool_), np.dtype(np.bool_))


def _allowed_error(other: np.ndarray, rtol: float, atol: float) -> np.ndarray:
    """``atol + |rtol * other|`` rounded as PyTorch rounds it: for float16, the product is
    rounded to float16, then ``atol`` (itself rounded to float16) added and rounded again;
    NumPy would round ``rtol`` first, and differ at the boundary."""
    if other.dtype != np.float16:
        return atol + np.abs(rtol * other)
    product = np.abs(np.float32(rtol) * other.astype(np.float32)).astype(np.float16)
    return (np.float32(np.float16(atol)) + product.astype(np.float32)).astype(np.float16)


def equal(input: Tensor, other: Tensor) -> bool:
    """True when both have the same shape and the same values (NaN is never equal);
    different dtypes compare by value, as in PyTorch."""
    a, b = _pair("equal", input, other)
    return a.shape == b.shape and bool(np.all(a == b))
