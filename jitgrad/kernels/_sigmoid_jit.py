"""Jitted sigmoid: the forward as a scalar function for a Numba ``@vectorize`` ufunc, and its
backward formula over a flat buffer.

``sigmoid(x) = 1 / (1 + exp(-x))`` in float64 (a float32 ``x`` widened, the result rounded
once), with the C library's ``exp`` (NumPy's SIMD ``exp`` may differ from it in the last
bit: the op takes this ufunc on every path, ``ops/pointwise.py``). The backward
``(g * (1 - r)) * r`` is the general formula's operations in the buffers' dtype, so the
same bits as NumPy's calls.

Self-contained (see ``_policy.py``): calls only ``math``.
"""
from __future__ import annotations

import math

import numpy as np

from ._policy import jit_small

SIGNATURES = ["float32(float32)", "float64(float64)"]  # float32 first: NumPy takes the first loop that fits


def sigmoid(x):  # pragma: no cover - runs compiled (``sigmoid.py`` vectorizes it)
    return 1.0 / (1.0 + math.exp(-np.float64(x)))


@jit_small
def sigmoid_backward(g, r, out, n):  # pragma: no cover - runs compiled
    """``out[:n] = (g * (1 - r)) * r`` in the buffers' dtype (within every buffer)."""
    n = min(n, g.shape[0], r.shape[0], out.shape[0])
    one = r.dtype.type(1.0)
    for i in range(n):
        out[i] = (g[i] * (one - r[i])) * r[i]
