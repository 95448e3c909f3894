"""The Hurwitz zeta function and the Bessel functions of ``torch.special`` as NumPy ufuncs
(NumPy has none; scipy is not a dependency), built with Numba ``@vectorize`` on first use
(cached on disk). float32 computes in float64 and rounds once.

``zeta(x, q) = sum_k (q + k)^-x``: the first terms summed directly until ``q + k >= 12``
(and at least 9 of them), the rest by Euler-Maclaurin: ``a^(1-x) / (x - 1) + a^-x / 2 +
sum_j B_2j / (2j)! x (x+1) ... (x+2j-2) a^(-x-2j+1)`` (12 terms: below float64 round-off at
``a = 12``). Domain as PyTorch: ``x = 1`` gives inf, ``x < 1`` nan; ``q`` a non-positive
integer inf; a negative non-integer ``q`` needs an integer ``x``.

Bessel functions of the first and second kind, orders 0 and 1: the power series (DLMF
10.2.2, 10.8.1) for ``|x| <= 1``; Miller's backward recurrence ``J_(n-1) = (2n/x) J_n -
J_(n+1)`` from ``n = x + 16 + 4 sqrt(x)`` down, normalised by ``J_0 + 2 sum J_2k = 1``, up to
``x = 25``, where Neumann's series give
``Y_0 = (2/pi) [(log(x/2) + gamma) J_0 - 2 sum (-1)^k J_2k / k]`` and its derivative ``Y_1``
from the same ``J_n``; Hankel's asymptotic expansion above (``cos(x - pi/4)`` and its kin
from ``cos x`` and ``sin x``, so the phase is exact however large ``x``). Errors are
float64 round-off of the larger terms: relative, except near a zero of the function, where
they are absolute (a few 1e-17 of the envelope ``min(1, sqrt(2 / (pi x)))``).

``K_0``, ``K_1`` (and ``e^x K``): the power series for ``x <= 1``; above, the trapezoid rule
on ``K_n(x) = int_0^inf exp(-x cosh t) cosh(n t) dt`` with step ``h = min(1/5, 0.6 / sqrt(x))``
(its error falls like ``exp(-2 pi d / h)`` for the strip half-width ``d`` near pi/2, and like
``exp(-2 pi^2 / (h^2 x))`` for large ``x``: round-off either way), all terms positive.

Self-contained (see ``_policy.py``): the ufuncs call only ``math`` and jitted helpers of
this file.
"""
from __future__ import annotations

import math
from typing import Any

import numba
import numpy as np

_built: dict[str, Any] = {}

_EULER_GAMMA = 0.57721566490153286061
_TWO_OVER_PI = 0.63661977236758134308


@numba.njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _bernoulli_2j(j: int) -> float:  # pragma: no cover - runs compiled
    """``B_2j`` for ``j = 1 .. 12``."""
    table = (1.0 / 6.0, -1.0 / 30.0, 1.0 / 42.0, -1.0 / 30.0, 5.0 / 66.0, -691.0 / 2730.0, 7.0 / 6.0,
             -3617.0 / 510.0, 43867.0 / 798.0, -174611.0 / 330.0, 854513.0 / 138.0, -236364091.0 / 2730.0)
    return table[j - 1]


@numba.njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _zeta_scalar(x: float, q: float) -> float:  # pragma: no cover - runs compiled
    if math.isnan(x) or math.isnan(q):
        return math.nan
    if x == 1.0:
        return math.inf
    if x < 1.0:
        return math.nan
    if q <= 0.0:
        if q == math.floor(q):
            return math.inf
        if x != math.floor(x):
            return math.nan
    if math.isinf(q):
        return math.nan  # (PyTorch's: its sum's stopping test divides 0 by 0)
    if math.isinf(x):  # 1 for q = 1, inf below; PyTorch's nan above (its 0 / 0 again)
        return 1.0 if q == 1.0 else (math.inf if q < 1.0 else math.nan)
    total = 0.0
    a = q
    k = 0
    while k < 9 or a < 12.0:
        term = a ** -x
        total += term
        if term == 0.0 and a > 0.0:
            return total
        a += 1.0
        k += 1
        if k > 100_000_000:  # a q far below zero: the sum would not end in reasonable time
            return math.nan
    tail = a ** (1.0 - x) / (x - 1.0) + 0.5 * a ** -x
    # sum_j B_2j / (2j)! * x (x+1) ... (x+2j-2) * a^(-x-2j+1)
    rising = x  # x (x+1) ... (x+2j-2)
    power = a ** (-x - 1.0)  # a^(-x-2j+1)
    factorial = 2.0  # (2j)!
    for j in range(1, 13):
        term = _bernoulli_2j(j) / factorial * rising * power
        tail += term
        if abs(term) <= 1e-18 * abs(tail + total):
            break
        rising *= (x + 2 * j - 1) * (x + 2 * j)
        power /= a * a
        factorial *= (2 * j + 1) * (2 * j + 2)
    return total + tail


def _zeta(x, q):  # pragma: no cover - runs compiled
    return _zeta_scalar(np.float64(x), np.float64(q))


# -- Bessel functions of the first and second kind -----------------------------------------------
@numba.njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _jy_series(x: float, order: int) -> float:  # pragma: no cover - runs compiled
    """``J_0`` or ``J_1`` by the power series (``|x| <= 1``: no cancellation to speak of)."""
    if x == 0.0:
        return 1.0 if order == 0 else x  # (J_1(-0.0) = -0.0)
    quarter = -0.25 * x * x
    term = 1.0 if order == 0 else 0.5 * x
    total = term
    for k in range(1, 30):
        term *= quarter / (k * (k + order))
        total += term
        if abs(term) < 1e-18 * abs(total):
            break
    return total


@numba.njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _log_series(quarter: float, order: int) -> tuple[float, float]:  # pragma: no cover - runs compiled
    """The two sums of ``Y_n``'s (``quarter = -x^2/4``) and ``K_n``'s (``quarter = x^2/4``)
    power series, ``n`` 0 or 1 (DLMF 10.8.1, 10.31.1-2): ``sum_k q^k / (k! (k+n)!)`` and the
    same sum weighted by ``H_k`` (``n = 0``) or ``psi(k+1) + psi(k+2)`` (``n = 1``)."""
    term = 1.0
    weight = 0.0 if order == 0 else 1.0 - 2.0 * _EULER_GAMMA  # (its value at k = 0)
    total = 1.0
    rest = weight
    for k in range(1, 30):
        term *= quarter / (k * (k + order))
        weight += 1.0 / k if order == 0 else 1.0 / k + 1.0 / (k + 1)
        total += term
        rest += term * weight
        if abs(term) < 1e-18:
            break
    return total, rest


@numba.njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _y_series(x: float, order: int) -> float:  # pragma: no cover - runs compiled
    """``Y_0`` or ``Y_1`` for ``0 < x <= 1`` by their power series (DLMF 10.8.1)."""
    log_half = math.log(0.5 * x)
    j, rest = _log_series(-0.25 * x * x, order)
    if order == 0:
        return _TWO_OVER_PI * ((log_half + _EULER_GAMMA) * j - rest)
    return -_TWO_OVER_PI / x + _TWO_OVER_PI * log_half * (0.5 * x * j) - x / (2.0 * math.pi) * rest


@numba.njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _jy_miller(x: float, which: int) -> float:  # pragma: no cover - runs compiled
    """``which``: 0 ``J_0``, 1 ``J_1``, 2 ``Y_0``, 3 ``Y_1`` for ``0 < x <= 25``, by backward
    recurrence (see the module docstring)."""
    start = 2 * int((x + 16.0 + 4.0 * math.sqrt(x)) / 2.0) + 2  # (J_start(x) far below round-off)
    above = 0.0
    here = 1e-300  # J_start, up to the common scale
    j0 = j1 = 0.0
    norm = 0.0  # J_0 + 2 sum J_2k
    neumann = 0.0  # sum_k (-1)^k J_2k / k
    derived = 0.0  # sum_k (-1)^k (J_(2k-1) - J_(2k+1)) / k
    j_odd_above = 0.0  # J_(2k+1) while J_2k is in hand
    for n in range(start, 0, -1):
        below = 2.0 * n / x * here - above  # J_(n-1)
        above, here = here, below
        m = n - 1  # here = J_m
        if m % 2 == 0 and m > 0:
            k = m // 2
            sign = -1.0 if k % 2 else 1.0
            norm += 2.0 * here
            neumann += sign * here / k
            j_odd_above = above  # J_(2k+1); J_(2k-1) comes next step
        elif m % 2 == 1:
            k = (m + 1) // 2  # here = J_(2k-1)
            sign = -1.0 if k % 2 else 1.0
            derived += sign * (here - j_odd_above) / k
        if abs(here) > 1e250:  # keep the numbers in range: rescale everything so far
            s = 1e-250
            here *= s
            above *= s
            norm *= s
            neumann *= s
            derived *= s
            j_odd_above *= s
    j0 = here
    j1 = above
    norm += j0
    j0 /= norm
    j1 /= norm
    if which == 0:
        return j0
    if which == 1:
        return j1
    log_term = math.log(0.5 * x) + _EULER_GAMMA
    if which == 2:
        return _TWO_OVER_PI * (log_term * j0 - 2.0 * neumann / norm)
    return _TWO_OVER_PI * (log_term * j1 - j0 / x + derived / norm)


@numba.njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _jy_hankel(x: float, which: int) -> float:  # pragma: no cover - runs compiled
    """Hankel's expansion for ``x > 25``."""
    order = which % 2
    mu = 4.0 * order * order
    p = 1.0
    q = 0.0
    term = 1.0
    for k in range(1, 60):
        new = term * (mu - (2 * k - 1) ** 2) / (k * 8.0 * x)
        if abs(new) > abs(term) or new == 0.0:
            break
        term = new
        r = k % 4  # a_k / x^k adds into p (even k) or q (odd k), signs + - - + by k mod 4 ... as below
        if r == 1:
            q += term
        elif r == 2:
            p -= term
        elif r == 3:
            q -= term
        else:
            p += term
        if abs(term) < 1e-18:
            break
    s, c = math.sin(x), math.cos(x)
    root_half = 0.70710678118654752440
    if order == 0:  # omega = x - pi/4
        cos_w, sin_w = (c + s) * root_half, (s - c) * root_half
    else:  # omega = x - 3 pi/4
        cos_w, sin_w = (s - c) * root_half, -(s + c) * root_half
    envelope = math.sqrt(_TWO_OVER_PI / x)
    if which < 2:
        return envelope * (p * cos_w - q * sin_w)
    return envelope * (p * sin_w + q * cos_w)


@numba.njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _jy_scalar(x: float, which: int) -> float:  # pragma: no cover - runs compiled
    if math.isnan(x):
        return math.nan
    if which >= 2:  # Y: real only for x > 0
        if x < 0.0:
            return math.nan
        if x == 0.0:
            return -math.inf
    if abs(x) <= 1.0:
        if which < 2:
            return _jy_series(x, which)  # (odd J_1 keeps the sign of x, -0.0 included)
        return _y_series(x, which - 2)
    sign = 1.0
    if x < 0.0:
        x = -x
        if which == 1:
            sign = -1.0
    if math.isinf(x):
        return 0.0 * sign
    if x <= 25.0:
        return sign * _jy_miller(x, which)
    return sign * _jy_hankel(x, which)


def _bessel_j0(x):  # pragma: no cover - runs compiled
    return _jy_scalar(np.float64(x), 0)


def _bessel_j1(x):  # pragma: no cover - runs compiled
    return _jy_scalar(np.float64(x), 1)


def _bessel_y0(x):  # pragma: no cover - runs compiled
    return _jy_scalar(np.float64(x), 2)


def _bessel_y1(x):  # pragma: no cover - runs compiled
    return _jy_scalar(np.float64(x), 3)


# -- modified Bessel functions of the second kind ------------------------------------------------
@numba.njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _k_series(x: float, order: int) -> float:  # pragma: no cover - runs compiled
    """``K_0``/``K_1`` for ``0 < x <= 1`` by their power series (DLMF 10.31.1-2)."""
    log_half = math.log(0.5 * x)
    i, rest = _log_series(0.25 * x * x, order)
    if order == 0:
        return -(log_half + _EULER_GAMMA) * i + rest
    return 1.0 / x + log_half * (0.5 * x * i) - 0.25 * x * rest


@numba.njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _k_scaled_integral(x: float, order: int) -> float:  # pragma: no cover - runs compiled
    """``e^x K_n(x)`` for ``x > 1``: the trapezoid rule, ``cosh t - 1 = 2 sinh(t/2)^2``, with a
    step below ``0.6 / sqrt(x)`` (the integrand narrows as ``x`` grows)."""
    h = min(0.2, 0.6 / math.sqrt(x))
    total = 0.5
    k = 1
    while True:
        t = k * h
        half = math.sinh(0.5 * t)
        value = math.exp(-2.0 * x * half * half)
        if order == 1:
            value *= math.cosh(t)
        total += value
        if value < 1e-18 * total:
            break
        k += 1
    return h * total


@numba.njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _k_scalar(x: float, order: int, scaled: bool) -> float:  # pragma: no cover - runs compiled
    if math.isnan(x) or x < 0.0:
        return math.nan
    if x == 0.0:
        return math.inf
    if math.isinf(x):
        return 0.0
    if x <= 1.0:
        value = _k_series(x, order)
        return value * math.exp(x) if scaled else value
    value = _k_scaled_integral(x, order)
    return value if scaled else value * math.exp(-x)


def _modified_bessel_k0(x):  # pragma: no cover - runs compiled
    return _k_scalar(np.float64(x), 0, False)


def _modified_bessel_k1(x):  # pragma: no cover - runs compiled
    return _k_scalar(np.float64(x), 1, False)


def _scaled_modified_bessel_k0(x):  # pragma: no cover - runs compiled
    return _k_scalar(np.float64(x), 0, True)


def _scaled_modified_bessel_k1(x):  # pragma: no cover - runs compiled
    return _k_scalar(np.float64(x), 1, True)


_UNARY = {
    "bessel_j0": _bessel_j0, "bessel_j1": _bessel_j1, "bessel_y0": _bessel_y0, "bessel_y1": _bessel_y1,
    "modified_bessel_k0": _modified_bessel_k0, "modified_bessel_k1": _modified_bessel_k1,
    "scaled_modified_bessel_k0": _scaled_modified_bessel_k0,
    "scaled_modified_bessel_k1": _scaled_modified_bessel_k1,
}


def ufunc(name: str) -> np.ufunc:
    """The compiled ufunc ``name``: ``"zeta"`` (two floats) or one of the Bessel functions
    (``bessel_j0``, ``bessel_j1``, ``bessel_y0``, ``bessel_y1``, ``modified_bessel_k0``,
    ``modified_bessel_k1``, ``scaled_modified_bessel_k0``, ``scaled_modified_bessel_k1``),
    built once."""
    fn = _built.get(name)
    if fn is None:
        if name == "zeta":
            fn = numba.vectorize(["float32(float32, float32)", "float64(float64, float64)"],
                                 cache=True, nopython=True)(_zeta)
        elif name in _UNARY:
            fn = numba.vectorize(["float32(float32)", "float64(float64)"], cache=True,
                                 nopython=True)(_UNARY[name])
        else:
            raise ValueError(f"kernels.cylinder.ufunc: unknown function {name!r}; expected zeta or one of "
                             f"{', '.join(_UNARY)}")
        _built[name] = fn
    return fn
