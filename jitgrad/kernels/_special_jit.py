"""``erf``, ``erfc`` and ``erfinv`` as NumPy ufuncs (NumPy has none; scipy is not a dependency).

Numba ``@vectorize`` ufuncs on ``math.erf`` / ``math.erfc`` (the C library's, correctly
rounded to within an ulp in float64). ``erfinv`` starts from Giles' single-precision rational
approximation ("Approximating the erfinv function", GPU Computing Gems, 2011) and polishes it
with Halley steps on ``math.erf`` — or, in the tails where ``erf(x) - y`` would cancel, with
Newton steps on ``log(erfc(x)) = log(1 - y)`` (``1 - y`` is exact for ``y >= 0.5``) — which
converge to float64 round-off. float32 computes in float64 and rounds once.

Self-contained (see ``_policy.py``): the ufuncs call only ``math`` and a jitted helper of this
file. Imported (with numba) only when ``special.ufunc`` first builds one.
"""
from __future__ import annotations

import math
import numba
import numpy as np

SIGNATURES = ["float32(float32)", "float64(float64)"]  # float32 first: NumPy takes the first loop that fits


@numba.njit(cache=True, nogil=True, fastmath=False, error_model="numpy")
def _erfinv_scalar(y: float) -> float:  # pragma: no cover - runs compiled
    if math.isnan(y) or y < -1.0 or y > 1.0:
        return math.nan
    if y == 1.0:
        return math.inf
    if y == -1.0:
        return -math.inf
    if y == 0.0:
        return y  # keeps the sign of zero
    a = abs(y)
    w = -math.log((1.0 - a) * (1.0 + a))
    if w < 5.0:
        w -= 2.5
        p = 2.81022636e-08
        p = 3.43273939e-07 + p * w
        p = -3.5233877e-06 + p * w
        p = -4.39150654e-06 + p * w
        p = 0.00021858087 + p * w
        p = -0.00125372503 + p * w
        p = -0.00417768164 + p * w
        p = 0.246640727 + p * w
        p = 1.50140941 + p * w
    else:
        w = math.sqrt(w) - 3.0
        p = -0.000200214257
        p = 0.000100950558 + p * w
        p = 0.00134934322 + p * w
        p = -0.00367342844 + p * w
        p = 0.00573950773 + p * w
        p = -0.0076224613 + p * w
        p = 0.00943887047 + p * w
        p = 1.00167406 + p * w
        p = 2.83297682 + p * w
    x = p * a
    if a < 0.5:
        for _ in range(4):  # Halley on erf(x) = a: cubic convergence from ~1e-7 relative
            step = (math.erf(x) - a) / (1.1283791670955126 * math.exp(-x * x))  # f / f'
            x_new = x - step / (1.0 + x * step)
            if x_new == x:
                break
            x = x_new
    else:
        # Newton on log(erfc(x)) = log(1 - a): well conditioned however far in the tail
        log_c = math.log(1.0 - a)  # 1 - a is exact for a >= 0.5 (Sterbenz)
        for _ in range(50):
            e = math.erfc(x)
            if e == 0.0:
                break
            slope = -1.1283791670955126 * math.exp(-x * x) / e
            x_new = x - (math.log(e) - log_c) / slope
            if x_new == x or abs(x_new - x) <= 1e-17 * x:
                x = x_new
                break
            x = x_new
    return x if y > 0 else -x


def erf(x):  # pragma: no cover - runs compiled
    return math.erf(x)


def erfc(x):  # pragma: no cover - runs compiled
    return math.erfc(x)


def erfinv(y):  # pragma: no cover - runs compiled
    return _erfinv_scalar(np.float64(y))
