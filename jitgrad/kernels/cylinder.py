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

``K_0``, ``K_1`` (and ``e^x K``): the power series for ``x <= 1``; above, Chebyshev series of
the smooth ``e^x sqrt(x) K_n(x)`` (near 1.2 everywhere) in ``u = 2x - 3`` on ``(1, 2]`` and in
``u = 4/x - 1`` beyond, summed by Clenshaw's recurrence: 24 and 27 terms, truncated below
1e-18 of the value. The coefficients were computed with mpmath at 40 digits from 40 and 60
Chebyshev nodes (``tests/naive.py``'s ``k_chebyshev_coefficients`` recomputes them; a test
checks the tables against it).

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


# Chebyshev coefficients of e^x sqrt(x) K_n(x) (the first halved; trailing zeros change no sum):
# see the module docstring
_K0_NEAR = (
    1.170501891900209, 0.022389751673488986, -0.003124894650513905, 0.00044735976729161933,
    -6.536752993722751e-05, 9.711987484436033e-06, -1.4629562617446877e-06, 2.2292021451351332e-07,
    -3.429966764430026e-08, 5.321546076744968e-09, -8.315683764241863e-10, 1.3075759917138504e-10,
    -2.0673435291914785e-11, 3.2844221023814395e-12, -5.240517337565646e-13, 8.393867509293146e-14,
    -1.3491352807041505e-14, 2.1752569364590865e-15, -3.5172474656866017e-16, 5.701962082282437e-17,
    -9.265737135000055e-18, 1.508990297327328e-18, -2.4624642999141737e-19, 4.025917598995352e-20,
    0.0, 0.0, 0.0,  # (padded to the far tables' 27)
)
_K0_FAR = (
    1.2201515410329777, -0.0314481013119645, 0.0015698838857300533, -0.00012849549581627802,
    1.39498137188765e-05, -1.8317555227191195e-06, 2.766813639445015e-07, -4.660489897687948e-08,
    8.574034017414225e-09, -1.6975345093890614e-09, 3.5773972814003283e-10, -7.957489244477396e-11,
    1.8559491149549264e-11, -4.514597883374519e-12, 1.1403405882073441e-12, -2.9800969231481784e-13,
    8.032890775068375e-14, -2.2275133267462965e-14, 6.340076476276646e-15, -1.848593377920907e-15,
    5.5120559994043335e-16, -1.6782311257549006e-16, 5.2103917776435543e-17, -1.6475805939842632e-17,
    5.3004337711773354e-18, -1.7331712005821001e-18, 5.755109202882729e-19,
)
_K1_NEAR = (
    1.535381294667647, -0.08518560938903838, 0.013138653434762042, -0.002058930539874094,
    0.00032661033716223326, -5.2307962940945974e-05, 8.441512172160947e-06, -1.370778752091687e-06,
    2.237381431745964e-07, -3.667556080393828e-08, 6.033847744113211e-09, -9.95789377783902e-10,
    1.6478379064487916e-10, -2.7332978446420398e-11, 4.543205020039945e-12, -7.565512251611702e-13,
    1.2619112532852258e-13, -2.1079512563611215e-14, 3.525907563974752e-15, -5.9048089050171e-16,
    9.899617877328782e-17, -1.661375163053535e-17, 2.7907293925171508e-18, -4.691770101271488e-19,
    0.0, 0.0, 0.0,  # (padded to the far tables' 27)
)
_K1_FAR = (
    1.3603130952422213, 0.10392373657681724, -0.002857816859622779, 0.00019521551847135162,
    -1.936197974166083e-05, 2.406484947837217e-06, -3.5019606030878126e-07, 5.7410841254500495e-08,
    -1.0345762465678097e-08, 2.0150497551970347e-09, -4.1903547593419254e-10, 9.218315187605315e-11,
    -2.129967838427791e-11, 5.139639673482343e-12, -1.2891739609498229e-12, 3.348419666052243e-13,
    -8.976705182010146e-14, 2.4771544242195988e-14, -7.0198370892147685e-15, 2.038703166239861e-15,
    -6.057047270643018e-16, 1.8380935752430455e-16, -5.689462849193648e-17, 1.7940510478863572e-17,
    -5.7567444820733025e-18, 1.8778651901623268e-18, -6.22164528735261e-19,
)


@numba.njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _clenshaw(c, u: float) -> float:  # pragma: no cover - runs compiled
    """``c[0] + sum_j c[j] T_j(u)`` (``c[0]`` already halved)."""
    b1 = b2 = 0.0
    for j in range(len(c) - 1, 0, -1):
        b1, b2 = c[j] + 2.0 * u * b1 - b2, b1
    return c[0] + u * b1 - b2


@numba.njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _k_scaled_chebyshev(x: float, order: int) -> float:  # pragma: no cover - runs compiled
    """``e^x K_n(x)`` for ``x > 1`` (see the module docstring)."""
    if x <= 2.0:  # x = (u + 3) / 2
        u = 2.0 * x - 3.0
        c = _K0_NEAR if order == 0 else _K1_NEAR
    else:  # x = 4 / (u + 1)
        u = 4.0 / x - 1.0
        c = _K0_FAR if order == 0 else _K1_FAR
    return _clenshaw(c, u) / math.sqrt(x)


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
    value = _k_scaled_chebyshev(x, order)
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
