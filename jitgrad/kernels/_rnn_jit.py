"""Jitted steps of the fused recurrent layers (``nn/_recurrent_fused.py``): the
elementwise part of one step's backward, in one call instead of a dozen NumPy calls on a
few hundred elements, and the forward's parts between its products and ``tanh``s. The
products with ``W_hh`` and the forward's ``tanh`` stay NumPy's (BLAS; NumPy's ``tanh``
differs from the C library's in the last bit, and the forward keeps the composite path's
values). The sigmoids are ``_sigmoid_jit.sigmoid_forward``'s formula (the same bits).

Every buffer is C-contiguous 1-D: a block of ``rows`` rows of a row-major array, ``size``
elements a row (the hidden size), the gates' blocks ``k * size`` a row, gates in PyTorch's
order. ``rows`` is taken from ``tanh``/state blocks (``len // size``) and every loop is
bounded by every buffer's length, so no ``size`` makes a kernel leave a buffer. The
formulas are ``_recurrent_fused.py``'s, operation by operation, in the buffers' dtype.

Self-contained (see ``_policy.py``): calls only ``math``.
"""
from __future__ import annotations

import math

import numpy as np

from ._policy import jit_small


@jit_small
def lstm_backward_step(dh, g_out, dc, acts, tanh_c, c_prev, dg, size):  # pragma: no cover - runs compiled
    """From the gradients of ``h'`` (``dh`` plus ``g_out`` where that is not empty) and of
    ``c'`` (``dc``), the gates' gradient ``dg`` and, in place, ``c``'s (``dc``)."""
    if size <= 0:
        return
    rows = min(dh.shape[0], dc.shape[0], tanh_c.shape[0], c_prev.shape[0]) // size
    rows = min(rows, acts.shape[0] // (4 * size), dg.shape[0] // (4 * size))
    with_out = g_out.shape[0] >= rows * size
    one = acts.dtype.type(1.0)
    for r in range(rows):
        a = r * 4 * size
        for j in range(size):
            k = r * size + j
            d = dh[k] + g_out[k] if with_out else dh[k]
            i, f, g, o = acts[a + j], acts[a + size + j], acts[a + 2 * size + j], acts[a + 3 * size + j]
            tc = tanh_c[k]
            cell = dc[k] + d * o * (one - tc * tc)
            dg[a + j] = cell * g * i * (one - i)
            dg[a + size + j] = cell * c_prev[k] * f * (one - f)
            dg[a + 2 * size + j] = cell * i * (one - g * g)
            dg[a + 3 * size + j] = d * tc * o * (one - o)
            dc[k] = cell * f


@jit_small
def gru_backward_step(dh, g_out, acts, h_n, h_prev, dgi, dhg, size):  # pragma: no cover - runs compiled
    """From the gradient of ``h'`` (``dh`` plus ``g_out`` where that is not empty), the
    gradients of the input gates ``dgi``, of the hidden gates ``dhg``, and, in place, the
    direct part of ``h``'s (``dh = d z``: the caller adds ``dhg W_hh``)."""
    if size <= 0:
        return
    rows = min(dh.shape[0], h_n.shape[0], h_prev.shape[0]) // size
    rows = min(rows, acts.shape[0] // (3 * size), dgi.shape[0] // (3 * size), dhg.shape[0] // (3 * size))
    with_out = g_out.shape[0] >= rows * size
    one = acts.dtype.type(1.0)
    for r in range(rows):
        a = r * 3 * size
        for j in range(size):
            k = r * size + j
            d = dh[k] + g_out[k] if with_out else dh[k]
            rr, z, n = acts[a + j], acts[a + size + j], acts[a + 2 * size + j]
            dn = d * (one - z) * (one - n * n)
            dr = dn * h_n[k] * rr * (one - rr)
            dz = d * (h_prev[k] - n) * z * (one - z)
            dgi[a + j] = dr
            dhg[a + j] = dr
            dgi[a + size + j] = dz
            dhg[a + size + j] = dz
            dgi[a + 2 * size + j] = dn
            dhg[a + 2 * size + j] = dn * rr
            dh[k] = d * z


@jit_small
def tanh_backward_step(dh, g_out, h, da, size):  # pragma: no cover - runs compiled
    """``da = d (1 - h'^2)``, ``d`` the gradient of ``h'`` (``dh`` plus ``g_out`` where that
    is not empty)."""
    if size <= 0:
        return
    n = min(dh.shape[0], h.shape[0], da.shape[0]) // size * size
    with_out = g_out.shape[0] >= n
    one = h.dtype.type(1.0)
    for k in range(n):
        d = dh[k] + g_out[k] if with_out else dh[k]
        da[k] = d * (one - h[k] * h[k])


@jit_small
def relu_backward_step(dh, g_out, h, da, size):  # pragma: no cover - runs compiled
    """``da = d`` where ``h' > 0`` is not false (``threshold_backward``'s mask: a nan passes),
    else 0; ``d`` as ``tanh_backward_step``'s."""
    if size <= 0:
        return
    n = min(dh.shape[0], h.shape[0], da.shape[0]) // size * size
    with_out = g_out.shape[0] >= n
    zero = h.dtype.type(0.0)
    for k in range(n):
        d = dh[k] + g_out[k] if with_out else dh[k]
        da[k] = zero if h[k] <= zero else d


# -- forward: the elementwise parts between NumPy's products and ``tanh``s ---------------------
@jit_small
def lstm_gates_step(gi, hg, acts, size):  # pragma: no cover - runs compiled
    """``x = gi + hg`` (the gates' pre-activations, written back into ``hg``), and the
    sigmoid of the ``i, f, o`` gates into ``acts`` (as ``_sigmoid_jit.sigmoid_forward``
    computes it: in float64, rounded once); ``g``'s ``tanh`` is the caller's (NumPy's)."""
    if size <= 0:
        return
    rows = min(gi.shape[0], hg.shape[0], acts.shape[0]) // (4 * size)
    for r in range(rows):
        a = r * 4 * size
        for k in range(a, a + 4 * size):
            x = gi[k] + hg[k]
            hg[k] = x
            if k - a < 2 * size or k - a >= 3 * size:
                acts[k] = 1.0 / (1.0 + math.exp(-np.float64(x)))


@jit_small
def lstm_cell_step(acts, g, c, c_prev, size):  # pragma: no cover - runs compiled
    """``c' = f c + i g`` into ``c`` (in place), the old ``c`` into ``c_prev`` and ``g``
    (``tanh`` of the ``g`` gate) into its place in ``acts``, where ``c_prev`` is not empty."""
    if size <= 0:
        return
    rows = min(g.shape[0], c.shape[0]) // size
    rows = min(rows, acts.shape[0] // (4 * size))
    keep = c_prev.shape[0] >= rows * size
    for r in range(rows):
        a = r * 4 * size
        for j in range(size):
            k = r * size + j
            cp, gg = c[k], g[k]
            if keep:
                c_prev[k] = cp
                acts[a + 2 * size + j] = gg
            c[k] = acts[a + size + j] * cp + acts[a + j] * gg


@jit_small
def gru_gates_step(gi, hg, b_hh, acts, pre_n, size):  # pragma: no cover - runs compiled
    """``hg + b_hh`` (where ``b_hh`` is not empty) written back into ``hg``, the ``r, z``
    gates' sigmoids (as ``sigmoid_forward``) into ``acts``, and ``gi_n + r hg_n`` (whose
    ``tanh`` is the caller's) into ``pre_n``."""
    if size <= 0:
        return
    rows = min(gi.shape[0], hg.shape[0], acts.shape[0]) // (3 * size)
    rows = min(rows, pre_n.shape[0] // size)
    with_bias = b_hh.shape[0] >= 3 * size
    for r in range(rows):
        a = r * 3 * size
        for j in range(3 * size):
            if with_bias:
                hg[a + j] = hg[a + j] + b_hh[j]
        for j in range(2 * size):
            x = gi[a + j] + hg[a + j]
            acts[a + j] = 1.0 / (1.0 + math.exp(-np.float64(x)))
        for j in range(size):
            pre_n[r * size + j] = gi[a + 2 * size + j] + acts[a + j] * hg[a + 2 * size + j]


@jit_small
def gru_hidden_step(n, acts, h, out, size):  # pragma: no cover - runs compiled
    """``h' = n + z (h - n)`` into ``out`` and, in place, ``h``; ``n`` (the new gate) into
    its place in ``acts``."""
    if size <= 0:
        return
    rows = min(n.shape[0], h.shape[0], out.shape[0]) // size
    rows = min(rows, acts.shape[0] // (3 * size))
    for r in range(rows):
        a = r * 3 * size
        for j in range(size):
            k = r * size + j
            nn = n[k]
            acts[a + 2 * size + j] = nn
            new = nn + acts[a + size + j] * (h[k] - nn)
            out[k] = new
            h[k] = new
