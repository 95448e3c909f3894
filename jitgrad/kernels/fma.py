"""Fused multiply-add ``a * b + c`` rounded once, in NumPy (which has no ``fma``).

PyTorch's CPU kernels are compiled per CPU capability (AVX2, AVX-512) with the compiler free
to contract ``x + y * z`` into one FMA instruction; ``linspace``'s kernel is, so its values
are ``fma(step, i, start)``, not ``start + step * i`` (they differ by an ulp now and then).

The emulation: Boldo and Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms using
rounding to odd" (IEEE Trans. Computers, 2008): with ``a * b = uh + ul`` exactly (Dekker's
product) and ``c + uh = th + tl`` exactly (Knuth's TwoSum), ``RN(th + RO(tl + ul))`` is
``RN(a * b + c)``, where RO rounds to odd (the neighbour with an odd last bit unless exact).
Float32 needs less: ``a * b`` of two float32 is exact in float64, and rounding the exact sum
to odd in float64 and then to nearest in float32 is rounding to nearest once (53 >= 24 + 2).
Dekker's product is exact only away from overflow and underflow, so ``fma`` falls back to
exact rational arithmetic per element when a factor is huge or tiny (float32 never needs to).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

_SPLIT = np.float64(2.0**27 + 1.0)
_SAFE_HIGH = 2.0**500
_SAFE_LOW = 2.0**-400


def _two_sum(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = x + y
    v = s - x
    return s, (x - (s - v)) + (y - v)


def _split(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    t = _SPLIT * x
    high = t - (t - x)
    return high, x - high


def _two_product(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    p = x * y
    xh, xl = _split(x)
    yh, yl = _split(y)
    return p, ((xh * yh - p) + xh * yl + xl * yh) + xl * yl


def _round_to_odd_sum(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    s, err = _two_sum(x, y)
    even = (s.view(np.int64) & 1) == 0
    move = (err != 0) & even & np.isfinite(err)  # an infinite sum stays as it is
    if move.any():
        s = np.where(move, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)
    return s


def _exact(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> list[float]:
    return [float(Fraction(x) * Fraction(y) + Fraction(z)) for x, y, z in zip(a.tolist(), b.tolist(), c.tolist())]


def fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``a * b + c`` rounded once, elementwise, for float64 or float32 arrays of one dtype
    (broadcast to one shape). Infinities and NaN come out as in ``a * b + c``."""
    a, b, c = np.broadcast_arrays(a, b, c)
    dtype = a.dtype
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        if dtype == np.float32:
            a64, b64, c64 = (x.astype(np.float64) for x in (a, b, c))
            return _round_to_odd_sum(a64 * b64, c64).astype(np.float32)
        plain = a * b + c
        safe = np.isfinite(plain) & _in_safe_range(a) & _in_safe_range(b) & (np.abs(c) < _SAFE_HIGH)
        uh, ul = _two_product(a, b)
        th, tl = _two_sum(c, uh)
        out = th + _round_to_odd_sum(tl, ul)
        out = np.where(safe, out, plain)
    risky = ~safe & np.isfinite(a) & np.isfinite(b) & np.isfinite(c)
    if risky.any():
        idx = np.nonzero(risky)
        out[idx] = _exact(a[idx], b[idx], c[idx])
    return out


def _in_safe_range(x: np.ndarray) -> np.ndarray:
    ax = np.abs(x)
    return (ax == 0) | ((ax > _SAFE_LOW) & (ax < _SAFE_HIGH))
