"""Jitted sigmoid over a flat buffer, forward and backward.

``sigmoid(x) = 1 / (1 + exp(-x))`` in float64 (a float32 ``x`` widened, the result rounded
once), with the C library's ``exp`` (NumPy's SIMD ``exp`` may differ from it in the last
bit: the op takes this kernel on every path and layout, ``ops/pointwise.py``). The
backward ``(g * (1 - r)) * r`` is the general formula's operations in the buffers' dtype,
so the same bits as NumPy's calls.

Self-contained (see ``_policy.py``): calls only ``math``. Every loop stays inside every
buffer whatever ``n`` is.
"""
from __future__ import annotations

import math

import numpy as np

from ._policy import jit_small


@jit_small
def sigmoid_forward(x, out, n):  # pragma: no cover - runs compiled
    """``out[:n] = 1 / (1 + exp(-x[:n]))``, computed in float64."""
    n = min(n, x.shape[0], out.shape[0])
    for i in range(n):
        out[i] = 1.0 / (1.0 + math.exp(-np.float64(x[i])))


@jit_small
def sigmoid_backward(g, r, out, n):  # pragma: no cover - runs compiled
    """``out[:n] = (g * (1 - r)) * r`` in the buffers' dtype."""
    n = min(n, g.shape[0], r.shape[0], out.shape[0])
    one = r.dtype.type(1.0)
    for i in range(n):
        out[i] = (g[i] * (one - r[i])) * r[i]
