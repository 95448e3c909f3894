"""``lgamma``, ``digamma`` and ``polygamma`` as NumPy ufuncs (NumPy has none; scipy is not a
dependency), built with Numba ``@vectorize`` on first use (cached on disk).

``lgamma`` is the C library's ``math.lgamma`` (``log|Gamma(x)|``). ``digamma`` shifts ``x``
up by the recurrence ``psi(x) = psi(x + 1) - 1/x`` until ``x >= 10``, then sums the
asymptotic series ``log x - 1/(2x) - sum B_2k / (2k x^2k)`` (seven terms: float64 round-off
at ``x = 10``); negative ``x`` uses the reflection ``psi(x) = psi(1 - x) - pi / tan(pi x)``
on the fractional part of ``x``. ``polygamma(n, x)`` for ``n >= 1`` does the same with
``psi^(n)(x) = psi^(n)(x + 1) - (-1)^n n! / x^(n+1)`` and the series
``(-1)^(n+1) [(n-1)!/x^n + n!/(2 x^(n+1)) + sum B_2k (2k+n-1)! / ((2k)! x^(2k+n))]``;
``trigamma`` of negative ``x`` uses its reflection ``pi^2 / sin^2(pi x) - psi'(1 - x)``.
Poles as PyTorch: ``digamma(+-0) = -+inf``, nan at negative integers; ``polygamma(n >= 1)``
is ``(-1)^(n+1) inf`` at the non-positive integers (PyTorch's
``trigamma`` returns large finite values near the negative ones, and ``polygamma(n >= 2,
inf)`` nan; here they are inf and 0). float32 computes in float64 and rounds once.

Self-contained (see ``_policy.py``): the ufuncs call only ``math`` and jitted helpers of
this file.
"""
from __future__ import annotations

import math
from typing import Any

import numba
import numpy as np

_built: dict[str, Any] = {}



@numba.njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _bernoulli(k: int) -> float:  # pragma: no cover - runs compiled
    if k == 1:
        return 1.0 / 6.0
    if k == 2:
        return -1.0 / 30.0
    if k == 3:
        return 1.0 / 42.0
    if k == 4:
        return -1.0 / 30.0
    if k == 5:
        return 5.0 / 66.0
    if k == 6:
        return -691.0 / 2730.0
    if k == 7:
        return 7.0 / 6.0
    if k == 8:
        return -3617.0 / 510.0
    return 43867.0 / 798.0  # k == 9


@numba.njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _digamma_positive(x: float) -> float:  # pragma: no cover - runs compiled
    result = 0.0
    while x < 10.0:
        result -= 1.0 / x
        x += 1.0
    z = 1.0 / (x * x)
    series = 0.0
    for k in range(7, 0, -1):
        series = series * z + _bernoulli(k) / (2.0 * k)
    return result + math.log(x) - 0.5 / x - series * z


@numba.njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _digamma_scalar(x: float) -> float:  # pragma: no cover - runs compiled
    if math.isnan(x) or x == -math.inf:
        return math.nan
    if x == math.inf:
        return math.inf
    if x == 0.0:
        return -math.inf if math.copysign(1.0, x) > 0 else math.inf
    if x < 0.0:
        whole = math.floor(x)
        if x == whole:
            return math.nan
        frac = x - whole
        return _digamma_positive(1.0 - x) - math.pi / math.tan(math.pi * frac)
    return _digamma_positive(x)


@numba.njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _polygamma_positive(n: int, x: float) -> float:  # pragma: no cover - runs compiled
    """``(-1)^(n+1) psi^(n)(x) / n!``-free form: returns psi^(n)(x) for x > 0, n >= 1."""
    factorial = 1.0
    for j in range(2, n + 1):
        factorial *= j
    shift = 0.0
    threshold = 15.0 + n
    while x < threshold:
        shift += 1.0 / x ** (n + 1)
        x += 1.0
    # (n-1)!/x^n + n!/(2 x^(n+1)) + sum_k B_2k (2k+n-1)!/((2k)! x^(2k+n))
    series = factorial / n / x ** n + factorial / (2.0 * x ** (n + 1))
    for k in range(1, 10):
        coefficient = 1.0  # (2k+n-1)! / (2k)!
        for j in range(2 * k + 1, 2 * k + n):
            coefficient *= j
        term = _bernoulli(k) * coefficient / x ** (2 * k + n)
        series += term
        if abs(term) < 1e-17 * abs(series):
            break
    total = factorial * shift + series
    return total if n % 2 == 1 else -total


@numba.njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _polygamma_scalar(n: int, x: float) -> float:  # pragma: no cover - runs compiled
    if n == 0:
        return _digamma_scalar(x)
    if n < 0 or math.isnan(x) or x == -math.inf:
        return math.nan
    if x == math.inf:
        return 0.0
    if x <= 0.0 and x == math.floor(x):  # a pole: the sign of (-1)^(n+1), as PyTorch
        return math.inf if n % 2 == 1 else -math.inf
    if x > 0.0:
        return _polygamma_positive(n, x)
    if n == 1:  # reflection: psi'(x) + psi'(1 - x) = pi^2 / sin^2(pi x)
        s = math.sin(math.pi * (x - math.floor(x)))
        return math.pi * math.pi / (s * s) - _polygamma_positive(1, 1.0 - x)
    # shift a negative x up to 1 (the recurrence), then the positive branch
    factorial = 1.0
    for j in range(2, n + 1):
        factorial *= j
    steps = int(math.ceil(1.0 - x))
    if steps > 10_000_000:
        return math.nan
    shift = 0.0
    for _ in range(steps):
        shift += 1.0 / x ** (n + 1)
        x += 1.0
    sign = 1.0 if n % 2 == 1 else -1.0
    return _polygamma_positive(n, x) + sign * factorial * shift


def _lgamma(x):  # pragma: no cover - runs compiled
    return math.lgamma(x)


def _digamma(x):  # pragma: no cover - runs compiled
    return _digamma_scalar(np.float64(x))


def _polygamma(n, x):  # pragma: no cover - runs compiled
    return _polygamma_scalar(n, np.float64(x))


def ufunc(name: str) -> np.ufunc:
    """The compiled ufunc ``name``: ``"lgamma"``, ``"digamma"`` (one float argument) or
    ``"polygamma"`` (``n`` as int64, then the float), built once."""
    fn = _built.get(name)
    if fn is None:
        if name == "polygamma":
            fn = numba.vectorize(["float32(int64, float32)", "float64(int64, float64)"],
                                 cache=True, nopython=True)(_polygamma)
        else:
            py = {"lgamma": _lgamma, "digamma": _digamma}[name]
            fn = numba.vectorize(["float32(float32)", "float64(float64)"], cache=True, nopython=True)(py)
        _built[name] = fn
    return fn
