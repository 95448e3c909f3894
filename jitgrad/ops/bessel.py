"""Modified Bessel functions of the first kind: ``i0``, ``i1`` and their exponentially
scaled forms ``i0e = exp(-|x|) i0``, ``i1e = exp(-|x|) i1`` (``torch.special``, and
``torch.i0``).

Computed in float64: the power series ``sum (x/2)^(2k+n) / (k! (k+n)!)`` below |x| = 20
(all terms positive, so no cancellation) and the asymptotic expansion
``e^x / sqrt(2 pi x) * sum_k a_k``, ``a_k = -a_{k-1} (4n^2 - (2k-1)^2) / (8 k x)``, above
(its terms shrink far past double precision before they turn); the scaled forms use the
expansion without ``e^x``, so they stay finite for large |x|. Derivatives as PyTorch's
(``i0' = i1``, ``i1' = i0 - i1 / x`` with 1/2 at 0, and the scaled variants), written with
these ops, under PyTorch's node names.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..autograd.node import Grads, SavingNode
from ..tensor import Tensor
from .elementwise import add, div, mul, sub
from .gamma_fns import _apply
from .pointwise import sign

_SWITCH = 20.0


def _series(x: np.ndarray, n: int) -> np.ndarray:
    half = x / 2
    term = half**n / math.factorial(n)
    total = term.copy()
    for k in range(1, 120):
        term = term * half * half / (k * (k + n))
        total = total + term
    return total


def _asymptotic_scaled(ax: np.ndarray, n: int) -> np.ndarray:
    """``exp(-x) I_n(x)`` for large positive ``x``."""
    mu = 4 * n * n
    term = np.ones_like(ax)
    total = term.copy()
    for k in range(1, 30):
        term = -term * (mu - (2 * k - 1) ** 2) / (k * 8 * ax)
        total = total + term
    return total / np.sqrt(2 * math.pi * ax)


def _bessel(x: np.ndarray, n: int, scaled: bool) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    ax = np.abs(x)
    out = np.empty_like(x)
    small = ax < _SWITCH
    values = _series(ax[small], n)
    out[small] = values * np.exp(-ax[small]) if scaled else values
    big = ~small & np.isfinite(ax)
    with np.errstate(over="ignore"):
        scaled_big = _asymptotic_scaled(ax[big], n)
        out[big] = scaled_big if scaled else scaled_big * np.exp(ax[big])
    out[np.isinf(ax)] = 0.0 if scaled else np.inf
    out[np.isnan(x)] = np.nan
    if n == 1:
        out = np.where(x < 0, -out, out)
    return out


class I0Backward0(SavingNode):
    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        (x,) = self.unpack()
        return (mul(grads[0], i1(x)),)  # type: ignore[arg-type]


class SpecialI0EBackward0(SavingNode):
    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        (x,) = self.unpack()
        return (mul(grads[0], sub(i1e(x), mul(sign(x), i0e(x)))),)  # type: ignore[arg-type]


def _over_x(x: Tensor, values: Tensor) -> Tensor:
    """``values / x`` with the limit 1/2 at 0 (``I_1(x) / x`` and ``I_1e(x) / x`` there)."""
    safe = add(x, mul(x.eq(0), 1.0))  # type: ignore[attr-defined]
    return add(mul(div(values, safe), x.ne(0)), mul(x.eq(0), 0.5))  # type: ignore[attr-defined]


class SpecialI1Backward0(SavingNode):
    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        (x,) = self.unpack()
        return (mul(grads[0], sub(i0(x), _over_x(x, i1(x)))),)  # type: ignore[arg-type]


class SpecialI1EBackward0(SavingNode):
    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        (x,) = self.unpack()
        value = i1e(x)
        return (mul(grads[0], sub(sub(i0e(x), mul(sign(x), value)), _over_x(x, value))),)  # type: ignore[arg-type]


def i0(input: Tensor, *, out: Any = None) -> Tensor:
    """The modified Bessel function of the first kind, order 0."""
    return _apply("i0", input, lambda a: _bessel(a, 0, False), I0Backward0(), out)


def i0e(input: Tensor, *, out: Any = None) -> Tensor:
    """``exp(-|x|) i0(x)``."""
    return _apply("special.i0e", input, lambda a: _bessel(a, 0, True), SpecialI0EBackward0(), out)


def i1(input: Tensor, *, out: Any = None) -> Tensor:
    """The modified Bessel function of the first kind, order 1."""
    return _apply("special.i1", input, lambda a: _bessel(a, 1, False), SpecialI1Backward0(), out)


def i1e(input: Tensor, *, out: Any = None) -> Tensor:
    """``exp(-|x|) i1(x)``."""
    return _apply("special.i1e", input, lambda a: _bessel(a, 1, True), SpecialI1EBackward0(), out)
