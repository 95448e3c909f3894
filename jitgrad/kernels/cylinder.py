"""The Hurwitz zeta function and the Bessel functions of ``torch.special`` as NumPy ufuncs
(NumPy has none; scipy is not a dependency), built with Numba ``@vectorize`` on first use
(cached on disk). float32 computes in float64 and rounds once.

``zeta(x, q) = sum_k (q + k)^-x``: the first terms summed directly until ``q + k >= 12``
(and at least 9 of them), the rest by Euler-Maclaurin: ``a^(1-x) / (x - 1) + a^-x / 2 +
sum_j B_2j / (2j)! x (x+1) ... (x+2j-2) a^(-x-2j+1)`` (12 terms: below float64 round-off at
``a = 12``). Domain as PyTorch: ``x = 1`` gives inf, ``x < 1`` nan; ``q`` a non-positive
integer inf; a negative non-integer ``q`` needs an integer ``x``.

Bessel functions of the first and second kind, orders 0 and 1: the power series (DLMF
10.2.2, 10.8.1) for ``|x| <= 1``; above, Hankel's form ``sqrt(2 / (pi x)) (P cos w - Q sin w)``
(``J_n``; ``P sin w + Q cos w`` for ``Y_n``), ``w = x - (2n + 1) pi / 4``, with the smooth
``P_n(x)`` and ``Q_n(x)`` (DLMF 10.17) as Chebyshev series in ``u = 2/x - 1`` on ``(1, 8]``
(46 terms) and in ``u = 16/x - 1`` beyond (18 terms; both truncated below 1e-18), the two
summed in one loop, and ``cos w``, ``sin w`` from ``cos x`` and ``sin x``, so the phase is
exact however large ``x``. Errors are float64 round-off of the larger terms: relative, except
near a zero of the function, where they are absolute (below 1e-15 of the envelope
``min(1, sqrt(2 / (pi x)))``).

``K_0``, ``K_1`` (and ``e^x K``): the power series for ``x <= 1``; above, Chebyshev series of
the smooth ``e^x sqrt(x) K_n(x)`` (near 1.2 everywhere) in ``u = 2x - 3`` on ``(1, 2]`` and in
``u = 4/x - 1`` beyond, summed by Clenshaw's recurrence: 24 and 27 terms, truncated below
1e-18 of the value.

Every table of Chebyshev coefficients here was computed with mpmath at 40 digits from
Chebyshev nodes (``tests/naive.py``'s ``cylinder_chebyshev`` recomputes each; a test checks
the tables against it) and is summed by Clenshaw's recurrence.

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
def _clenshaw(c, u: float) -> float:  # pragma: no cover - runs compiled
    """``c[0] + sum_j c[j] T_j(u)`` (``c[0]`` already halved)."""
    b1 = b2 = 0.0
    for j in range(len(c) - 1, 0, -1):
        b1, b2 = c[j] + 2.0 * u * b1 - b2, b1
    return c[0] + u * b1 - b2


@numba.njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _clenshaw_pair(a, b, u: float) -> tuple[float, float]:  # pragma: no cover - runs compiled
    """``_clenshaw(a, u)`` and ``_clenshaw(b, u)`` (tables of one length) in one loop: the two
    recurrences' latencies overlap, and ``c[j] - b2`` is off each one's critical path."""
    t = 2.0 * u
    a1 = a2 = b1 = b2 = 0.0
    for j in range(len(a) - 1, 0, -1):
        a1, a2 = (a[j] - a2) + t * a1, a1
        b1, b2 = (b[j] - b2) + t * b1, b1
    return a[0] + u * a1 - a2, b[0] + u * b1 - b2


# Chebyshev coefficients of Hankel's P_n(x) and Q_n(x) (the first halved) in u = 2/x - 1 for
# x in (1, 8] (NEAR), in u = 16/x - 1 beyond (FAR): see the module docstring
_P0_NEAR = (
    0.9833685747692064, -0.020495907642491783, -0.0029658173675118577, 0.0007911369260169572,
    -0.00011382198675498685, 2.456140408115561e-06, 5.456441945566662e-06, -2.476305608766351e-06,
    7.144770622357705e-07, -1.3337945081664764e-07, -1.0448772326777858e-09, 1.549610366661832e-08,
    -9.135952318349099e-09, 3.6904076442531014e-09, -1.131809519655072e-09, 2.21376825273149e-10,
    1.9984153035928084e-11, -4.946077841880153e-11, 3.2605989458672557e-11, -1.5700791196278934e-11,
    6.095079444615295e-12, -1.8225604153076696e-12, 2.786000189834619e-13, 1.3266572377321677e-13,
    -1.6387804311389567e-13, 1.0817632612876216e-13, -5.6197776820185467e-14, 2.4470892944521898e-14,
    -8.708574630341388e-15, 2.0999787998427572e-15, 1.3838454051301618e-16, -6.107472667777938e-16,
    5.16159899535677e-16, -3.21753602582643e-16, 1.6883396952216173e-16, -7.638096253104691e-17,
    2.879640415894044e-17, -7.614983520484422e-18, -2.166423781480822e-19, 2.1967653059216668e-18,
    -2.0547464539843444e-18, 1.4013569828850314e-18, -8.096485203475976e-19, 4.107388419035332e-19,
    -1.815072977613799e-19, 6.546882276256924e-20,
)
_Q0_NEAR = (
    -0.052172641819851054, -0.0480654926339985, 0.004206683108882638, -4.945210983787645e-05,
    -0.00010594515617795858, 3.5602864487259314e-05, -7.363818657546057e-06, 6.669586511935512e-07,
    2.8268873328624897e-07, -2.037457372072304e-07, 8.091421872788294e-08, -2.3326676032636732e-08,
    4.166024049364823e-09, 4.2143649267127983e-10, -8.456572501657447e-10, 5.0461108430497e-10,
    -2.1893871870047807e-10, 7.465094236429805e-11, -1.78567550450891e-11, 3.9686643970240606e-13,
    2.88636839867346e-12, -2.3067682871487036e-12, 1.2695639514956057e-12, -5.669777467469618e-13,
    2.0713210991151157e-13, -5.4679551904625396e-14, 2.2651080771108377e-15, 9.831154935968e-15,
    -8.951371027999446e-15, 5.588571415674562e-15, -2.876346954384385e-15, 1.260809392588459e-15,
    -4.535989745641696e-16, 1.0890657210309851e-16, 1.0866172074102922e-17, -3.700120154057565e-17,
    3.1759919302692744e-17, -2.042648022025757e-17, 1.1154092260679102e-17, -5.307941793183359e-18,
    2.1523086642902273e-18, -6.628779787506027e-19, 6.332436830130852e-20, 1.1938196317002831e-19,
    -1.3541894614928228e-19, 1.0116269612471944e-19,
)
_P1_NEAR = (
    1.0304882828662965, 0.03824510794555729, 0.006428013416890726, -0.0012015197204568106,
    0.0001407104474944734, 1.5744986055025337e-06, -7.785299487694404e-06, 3.1264347990822934e-06,
    -8.362484817712417e-07, 1.4026672802334406e-07, 8.07275507334923e-09, -1.9863395717668984e-08,
    1.0833913162434263e-08, -4.186717995688448e-09, 1.2270965699332553e-09, -2.170664274555523e-10,
    -3.597769489001132e-11, 5.965820512071928e-11, -3.726495014538438e-11, 1.74046389584587e-11,
    -6.569484954831463e-12, 1.8845728613212656e-12, -2.417153393829101e-13, -1.726212517145831e-13,
    1.8846806808506425e-13, -1.201689228965976e-13, 6.108247560746928e-14, -2.606693473765025e-14,
    9.028421645886585e-15, -2.031749630260003e-15, -2.664542320683682e-16, 7.069035872092882e-16,
    -5.717248412848188e-16, 3.4898889102979666e-16, -1.802704710418049e-16, 8.026569123118317e-17,
    -2.958669932235725e-17, 7.392159270401005e-18, 6.200560475086294e-19, -2.5186540379963696e-18,
    2.2557638471934817e-18, -1.5094071899908517e-18, 8.605903529253176e-19, -4.312836393684584e-19,
    1.8781983152754635e-19, -6.607583591211412e-20,
)
_Q1_NEAR = (
    0.1717543570828265, 0.16530649681311788, -0.006746013647554058, -7.830200750880502e-05,
    0.00016436565551720782, -4.704354212765103e-05, 8.674028847847187e-06, -5.570091495824321e-07,
    -4.119759895661991e-07, 2.546109952710353e-07, -9.498038421428565e-08, 2.5882126237880727e-08,
    -4.113186215209655e-09, -7.438233555955738e-10, 1.0361911842151689e-09, -5.834459085111966e-10,
    2.4436630342683186e-10, -8.039596534679562e-11, 1.7980278385728163e-11, 4.2836243330312735e-13,
    -3.509648017777426e-12, 2.630527165600108e-12, -1.405596163478249e-12, 6.132820386356537e-13,
    -2.1806013892527055e-13, 5.448335661079007e-14, 6.513511838734038e-17, -1.1716796922380595e-14,
    1.004565126224388e-14, -6.11578375459144e-15, 3.0914496851736332e-15, -1.3309165104078235e-15,
    4.666407815284154e-16, -1.0437855337791865e-16, -1.7973447685620054e-17, 4.235969053694594e-17,
    -3.494092613917238e-17, 2.2046196038179615e-17, -1.1869392387256194e-17, 5.5702638360385105e-18,
    -2.217472817190221e-18, 6.570658678231068e-19, -4.069865442800268e-20, -1.3967873399470582e-19,
    1.4907763942410215e-19, -1.0902141074407467e-19,
)
_P0_FAR = (
    0.9995950647686729, -0.0005380795613960692, -0.0001317967712336157, 1.5142249704864447e-06,
    1.5846861792063246e-07, -8.560695539457116e-09, -2.95723433548997e-10, 6.573556253702646e-11,
    -2.237497028307757e-12, -4.482114036266459e-13, 6.95482663742999e-14, -1.5133981172201887e-15,
    -9.242215542780063e-16, 1.5557716430252464e-16, -4.757606017491085e-18, -2.7384730066249238e-18,
    6.05056665401149e-19, -4.0889582607196946e-20,
)
_Q0_FAR = (
    -0.007769355694205321, -0.007748032309654477, 2.536541165430796e-05, 3.942735983997114e-06,
    -1.072349829912882e-07, -7.213897993277536e-09, 7.376460289335452e-10, 1.506878108917761e-12,
    -5.7458953731779006e-12, 4.599657420218946e-13, 2.2703231805908186e-14, -8.878901561608626e-15,
    7.449651700780086e-16, 5.847234758993427e-17, -2.4098822024574667e-17, 2.6519552755788034e-18,
    1.2793339310309698e-19, -9.614485964963984e-20,
)
_P1_FAR = (
    1.0006775358659135, 0.0009010072519590819, 0.00022172434918599454, -1.965759463191044e-06,
    -2.0889531143270216e-07, 1.0281443508939733e-08, 3.759705478930489e-10, -7.63889135778614e-11,
    2.3873466989069313e-12, 5.182548873305728e-13, -7.693968937262689e-14, 1.440081073097258e-15,
    1.0329419963766428e-15, -1.6820578397317565e-16, 4.5867767459822516e-18, 3.017526437349789e-18,
    -6.476472759153595e-19, 4.170148060502071e-20,
)
_Q1_FAR = (
    0.023376829986285805, 0.023346801223545575, -3.576010590901382e-05, -5.608631494926272e-06,
    1.327389408433978e-07, 9.169758450664271e-09, -8.683888037072729e-10, -3.7807300514678015e-12,
    6.631455860763736e-12, -5.058439043054705e-13, -2.7207815692154984e-14, 9.853807087854517e-15,
    -7.939764735896268e-16, -6.757329811619097e-17, 2.6249905608278096e-17, -2.7996230871815643e-18,
    -1.5113573335980428e-19, 1.0389103229113852e-19,
)


@numba.njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _jy_modulated(x: float, which: int) -> float:  # pragma: no cover - runs compiled
    """``which``: 0 ``J_0``, 1 ``J_1``, 2 ``Y_0``, 3 ``Y_1`` for ``x > 1``: ``sqrt(2 / (pi x))``
    times ``P cos w - Q sin w`` (J) or ``P sin w + Q cos w`` (Y), ``w = x - (2n + 1) pi / 4``."""
    order = which % 2
    if x > 8.0:  # x = 16 / (u + 1)
        u = 16.0 / x - 1.0
        p, q = _clenshaw_pair(_P0_FAR, _Q0_FAR, u) if order == 0 else _clenshaw_pair(_P1_FAR, _Q1_FAR, u)
    else:  # x = 2 / (u + 1)
        u = 2.0 / x - 1.0
        p, q = _clenshaw_pair(_P0_NEAR, _Q0_NEAR, u) if order == 0 else _clenshaw_pair(_P1_NEAR, _Q1_NEAR, u)
    s, c = math.sin(x), math.cos(x)
    root_half = 0.70710678118654752440
    if order == 0:  # w = x - pi/4
        cos_w, sin_w = (c + s) * root_half, (s - c) * root_half
    else:  # w = x - 3 pi/4
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
    return sign * _jy_modulated(x, which)


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
