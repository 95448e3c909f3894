"""``torch.special``'s normal-distribution functions and relatives: ``ndtr`` (PyTorch's
composite ``(1 + erf(x / sqrt 2)) / 2``), ``log_ndtr``, ``ndtri``, ``erfcx`` and ``entr``.

Forwards in float64 NumPy (then the input's float dtype), backwards written with these
same ops (so gradients of any order follow), under PyTorch's node names:
``log_ndtr' = exp(-x^2/2 - log_ndtr(x)) / sqrt(2 pi)``, ``ndtri' = sqrt(2 pi) exp(ndtri^2/2)``,
``erfcx' = 2 x erfcx(x) - 2 / sqrt(pi)``, ``entr' = -(1 + log x)``.

``erfcx(x) = exp(x^2) erfc(x)`` is computed directly below 2 and by its continued fraction
above (where ``exp(x^2)`` would lose digits or overflow); ``log_ndtr`` uses it below -1, as
PyTorch does; ``ndtri`` solves ``log_ndtr(x) = log p`` by Newton's method (the function is
concave, so the iteration converges from the start ``-sqrt(-2 log p)``), using the symmetry
``ndtri(p) = -ndtri(1 - p)`` above 1/2.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..autograd.node import Grads, SavingNode
from ..tensor import Tensor
from .elementwise import add, mul, sub
from .gamma_fns import _apply
from .pointwise import erf, exp, log

_SQRT_PI = math.sqrt(math.pi)
_SQRT_2PI = math.sqrt(2 * math.pi)
_erfc = np.frompyfunc(math.erfc, 1, 1)


def ndtr(input: Tensor) -> Tensor:
    """The standard normal CDF."""
    return mul(add(erf(mul(input, math.sqrt(0.5))), 1), 0.5)


def _erfcx(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    out = np.empty_like(x)
    near = x < 2.0
    out[near] = np.exp(x[near] ** 2) * _erfc(x[near]).astype(np.float64)
    z = x[~near]
    if z.size:  # erfc(z) = exp(-z^2)/sqrt(pi) / (z + (1/2)/(z + 1/(z + (3/2)/(z + ...))))
        tail = np.zeros_like(z)
        for k in range(120, 0, -1):
            tail = (k / 2) / (z + tail)
        out[~near] = 1.0 / (_SQRT_PI * (z + tail))
    return out


def _log_ndtr(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    t = x * math.sqrt(0.5)
    out = np.empty_like(x)
    low = x < -1.0
    out[low] = np.log(_erfcx(-t[low]) / 2) - t[low] ** 2
    out[~low] = np.log1p(-_erfc(t[~low]).astype(np.float64) / 2)
    return out


def _ndtri(p: np.ndarray) -> np.ndarray:
    p = np.asarray(p, dtype=np.float64)
    upper = p > 0.5
    q = np.where(upper, 1.0 - p, p)  # the lower-tail probability
    inside = (q > 0) & (p < 1) & (p > 0)
    x = np.zeros_like(q)
    target = np.log(q[inside])
    z = -np.sqrt(-2.0 * target)
    for _ in range(100):
        value = _log_ndtr(z)
        slope = np.exp(-0.5 * z * z - value) / _SQRT_2PI
        step = (value - target) / slope
        z = z - step
        if np.all(np.abs(step) <= 4e-16 * np.maximum(np.abs(z), 1e-300)):
            break
    x[inside] = z
    x = np.where(upper, -x, x)
    x[(p == 0)] = -np.inf
    x[(p == 1)] = np.inf
    x[(p < 0) | (p > 1) | np.isnan(p)] = np.nan
    x[(p == 0.5)] = 0.0
    return x


def _entr(x: np.ndarray) -> np.ndarray:
    positive = x > 0
    values = -x * np.log(np.where(positive, x, 1.0))
    return np.where(positive, values, np.where(x == 0, 0.0, np.where(np.isnan(x), np.nan, -np.inf)))


class SpecialLogNdtrBackward0(SavingNode):
    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        (x,) = self.unpack()
        density = exp(sub(mul(mul(x, x), -0.5), log_ndtr(x)))
        return (mul(grads[0], mul(density, 1 / _SQRT_2PI)),)  # type: ignore[arg-type]


class SpecialNdtriBackward0(SavingNode):
    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        (p,) = self.unpack()
        x = ndtri(p)
        return (mul(grads[0], mul(exp(mul(mul(x, x), 0.5)), _SQRT_2PI)),)  # type: ignore[arg-type]


class SpecialErfcxBackward0(SavingNode):
    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        (x,) = self.unpack()
        return (mul(grads[0], sub(mul(mul(x, erfcx(x)), 2), 2 / _SQRT_PI)),)  # type: ignore[arg-type]


class SpecialEntrBackward0(SavingNode):
    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        (x,) = self.unpack()
        return (mul(grads[0], mul(add(log(x), 1), -1)),)  # type: ignore[arg-type]


def log_ndtr(input: Tensor, *, out: Any = None) -> Tensor:
    """``log(ndtr(input))``, accurate far into both tails."""
    return _apply("special.log_ndtr", input, _log_ndtr, SpecialLogNdtrBackward0(), out)


def ndtri(input: Tensor, *, out: Any = None) -> Tensor:
    """The standard normal quantile: ``ndtr(ndtri(p)) == p`` (``-inf`` at 0, ``inf`` at 1)."""
    return _apply("special.ndtri", input, _ndtri, SpecialNdtriBackward0(), out)


def erfcx(input: Tensor, *, out: Any = None) -> Tensor:
    """The scaled complementary error function ``exp(x^2) erfc(x)``."""
    return _apply("special.erfcx", input, _erfcx, SpecialErfcxBackward0(), out)


def entr(input: Tensor, *, out: Any = None) -> Tensor:
    """``-x log x`` (0 at 0, ``-inf`` below)."""
    return _apply("special.entr", input, _entr, SpecialEntrBackward0(), out)
