"""``true_divide``, ``floor_divide`` (``div`` with its rounding modes) and ``fmax``/``fmin``
(``maximum``/``minimum`` that ignore a NaN when the other side is a number).

``fmax``/``fmin`` are ``where`` over a mask, so the gradient goes wholly to the chosen side,
to ``input`` on ties: PyTorch's rule (``derivatives.yaml``), with double backward for free;
recorded as PyTorch's ``FmaxBackward0``/``FminBackward0`` (``where``'s backward, renamed).
"""

from __future__ import annotations

from typing import Any

from ..autograd.grad_mode import no_grad
from ..autograd.graph import needs_grad, record
from ..tensor import Tensor
from .compare import WhereBackward0, ge, le, logical_or, where
from .elementwise import div, div_
from .pointwise import isnan


def true_divide(input: Any, other: Any, *, out: Tensor | None = None) -> Tensor:
    """Alias of ``div`` (true division: integers give the default float dtype)."""
    return div(input, other, out=out)


def true_divide_(self: Tensor, other: Any) -> Tensor:
    """In-place ``true_divide``: ``div_`` (``DivBackward0``)."""
    return div_(self, other)


def floor_divide(input: Any, other: Any, *, out: None = None) -> Tensor:
    """``div(input, other, rounding_mode='floor')``: rounded towards minus infinity, integer
    dtypes kept; an integer division by zero raises (a RuntimeError, as in PyTorch)."""
    _no_out("floor_divide", out)
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError(f"floor_divide(): expected at least one Tensor, got {type(input).__name__} "
                        f"and {type(other).__name__}")
    return div(input, other, rounding_mode="floor")


def floor_divide_(self: Tensor, other: Any) -> Tensor:
    """In-place ``floor_divide`` (``x //= other``)."""
    return div_(self, other, rounding_mode="floor")


def _no_out(op: str, out: Any) -> None:
    if out is not None:
        raise TypeError(f"{op}(): out= is not supported by jitgrad")


def _nan_ignoring(op: str, input: Any, other: Any, keep_input: Any) -> Tensor:
    for name, t in (("input", input), ("other", other)):
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}(): argument '{name}' must be a Tensor, got {type(t).__name__}")
    if input.dtype == other.dtype and str(input.dtype) == "bool":
        raise RuntimeError(f'{op}(): "{op}_cpu" not implemented for \'Bool\'')
    mask = logical_or(keep_input(input, other), isnan(other))
    with no_grad():
        out = where(mask, input, other)
    if needs_grad(input, other):
        node = (FmaxBackward0 if op == "fmax" else FminBackward0)()
        record(node, (input, other), (out,))
        node.save(mask)
    return out


class FmaxBackward0(WhereBackward0):
    """``fmax``'s backward: the gradient to the side chosen (``input`` on ties)."""


class FminBackward0(WhereBackward0):
    """``fmin``'s backward: the gradient to the side chosen (``input`` on ties)."""


def fmax(input: Tensor, other: Tensor, *, out: None = None) -> Tensor:
    """The larger of each pair; a NaN loses to a number (NaN only where both are NaN)."""
    _no_out("fmax", out)
    return _nan_ignoring("fmax", input, other, ge)


def fmin(input: Tensor, other: Tensor, *, out: None = None) -> Tensor:
    """The smaller of each pair; a NaN loses to a number (NaN only where both are NaN)."""
    _no_out("fmin", out)
    return _nan_ignoring("fmin", input, other, le)
