"""The regularized lower incomplete gamma function ``P(a, x)`` (PyTorch's
``torch.special.gammainc``), for ``Gamma.cdf`` and ``Chi2.cdf``.

Values by the power series for ``x < a + 1`` and by the continued fraction of ``1 - P``
(modified Lentz) elsewhere, both iterated on the unconverged elements only, in float64
(round-off grows slowly with ``a``: ~1e-13 relative at ``a = 1e3``, ~1e-9 at ``a = 1e6``).
The gradient with respect to ``x`` is the Gamma(a, 1) density, written in jitgrad ops; with
respect to ``a`` it is not implemented (as in PyTorch)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.function import Function
from ..creation import tensor, zeros_like
from ..ops.gamma_fns import lgamma
from ..ops.joins import broadcast_tensors
from ..tensor import Tensor

_EPS = np.finfo(np.float64).eps
_TINY = np.finfo(np.float64).tiny


def _max_terms(a: np.ndarray) -> int:
    """Enough terms: near ``x = a`` both expansions need a few times ``sqrt(a)``."""
    return int(20 * np.sqrt(a.max(initial=1.0))) + 200


def _series(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``sum_n x^n / (a (a+1) ... (a+n))``, to round-off."""
    term = 1.0 / a
    total = term.copy()
    active = np.arange(a.size)
    for n in range(1, _max_terms(a)):
        term[active] *= x[active] / (a[active] + n)
        total[active] += term[active]
        active = active[np.abs(term[active]) > np.abs(total[active]) * _EPS]
        if active.size == 0:
            break
    return total


def _continued_fraction(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The continued fraction of ``Q(a, x) e^x x^-a Gamma(a)`` (Lentz's method)."""
    b = x + 1.0 - a
    c = np.full_like(a, 1.0 / _TINY)
    d = 1.0 / np.where(np.abs(b) < _TINY, _TINY, b)
    h = d.copy()
    active = np.arange(a.size)
    for i in range(1, _max_terms(a)):
        an = -i * (i - a[active])
        b[active] += 2.0
        dd = an * d[active] + b[active]
        dd = np.where(np.abs(dd) < _TINY, _TINY, dd)
        cc = b[active] + an / c[active]
        cc = np.where(np.abs(cc) < _TINY, _TINY, cc)
        d[active] = 1.0 / dd
        c[active] = cc
        step = d[active] * c[active]
        h[active] *= step
        active = active[np.abs(step - 1.0) > _EPS]
        if active.size == 0:
            break
    return h


def regularized_gamma_p(a: np.ndarray, x: np.ndarray, log_gamma_a: np.ndarray, upper: bool = False) -> np.ndarray:
    """``P(a, x)`` elementwise (``a > 0``, ``x >= 0``; NaN elsewhere), given ``lgamma(a)``;
    ``upper``: ``Q(a, x) = 1 - P(a, x)``, with full relative accuracy where it is small."""
    a, x, log_gamma_a = (np.asarray(v, dtype=np.float64).ravel() for v in (a, x, log_gamma_a))
    out = np.full(a.shape, np.nan)
    valid = (a > 0) & (x >= 0)
    out[valid & (x == 0)] = 1.0 if upper else 0.0
    out[valid & np.isposinf(x)] = 0.0 if upper else 1.0
    inner = valid & (x > 0) & np.isfinite(x)
    with np.errstate(over="ignore", under="ignore", divide="ignore"):
        front = np.exp(a * np.log(np.where(inner, x, 1.0)) - x - log_gamma_a)
        low = inner & (x < a + 1)
        series = front[low] * _series(a[low], x[low])
        out[low] = 1.0 - series if upper else series
        high = inner & ~low
        fraction = front[high] * _continued_fraction(a[high], x[high])
        out[high] = fraction if upper else 1.0 - fraction
    return out


class _RegularizedGammaP(Function):
    """``P(a, x)`` (``Q(a, x)`` with ``upper``), differentiable in ``x`` (``a`` comes detached)."""

    @staticmethod
    def forward(ctx: Any, a: Tensor, x: Tensor, upper: bool = False) -> Tensor:
        ctx.save_for_backward(a, x)
        ctx.upper = upper
        values = regularized_gamma_p(a._numpy(), x._numpy(), lgamma(a)._numpy(), upper)
        return tensor(values.reshape(tuple(a.shape)), dtype=a.dtype)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[None, Tensor, None]:
        a, x = ctx.saved_tensors
        density = ((a - 1) * x.log() - x - a.lgamma()).exp()  # d P(a, x) / dx
        return None, (-grad if ctx.upper else grad) * density, None


class _NoShapeGradient(Function):
    """Zeros, whose backward raises: ``P(a, x)``'s derivative in ``a`` is not implemented,
    and (as in PyTorch) it is refused only when a backward asks for it."""

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        return zeros_like(a)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        raise NotImplementedError("the derivative for 'igamma: input' is not implemented.")


def gammainc(a: Tensor, x: Tensor, upper: bool = False) -> Tensor:
    """``P(a, x)`` (``Q(a, x)`` with ``upper``), broadcast; differentiable with respect to ``x``."""
    a, x = broadcast_tensors(a, x)
    p = _RegularizedGammaP.apply(a.detach(), x, upper)
    return p + _NoShapeGradient.apply(a) if a.requires_grad else p


def gammaincc(a: Tensor, x: Tensor) -> Tensor:
    """``Q(a, x) = 1 - P(a, x)``, accurate in the upper tail (chi-square p-values)."""
    return gammainc(a, x, upper=True)
