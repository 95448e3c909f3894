"""Jitted window loops of the pools (``jitgrad.nn._pooling``), over 3 spatial dims (a 2-d
pool runs with a depth of 1).

A pool is described per spatial dim by a window table: ``pos[o, k]``, the input index along
that dim of the ``k``-th element of output ``o``'s window, already clipped into the input,
and ``valid[o, k]``, False for an element in the padding or past an adaptive window's end.
``x`` is ``(B, D, H, W)`` C-contiguous. Every read is ``x[b, pos0[i, a], pos1[j, e], pos2[l, f]]``
with the positions inside the input (checked in Python before the call), so no kernel reads
or writes outside its arrays. Windows are walked in row-major order, as PyTorch's CPU
kernels walk them (the same sums, the same first maximum).

Self-contained (see ``_policy.py``): no calls outside this file, no module globals.
"""
from __future__ import annotations

from ._policy import jit


@jit
def _max_windows(x, pos0, valid0, pos1, valid1, pos2, valid2, first, lowest, best, index):
    """``best[b, i, j, l]``: the window's maximum, ``index``: its flat ``(d * H + h) * W + w``.
    A later element wins only when greater or NaN (PyTorch's rule); the index starts at
    ``first``."""
    B, H, W = x.shape[0], x.shape[2], x.shape[3]
    O0, K0 = pos0.shape
    O1, K1 = pos1.shape
    O2, K2 = pos2.shape
    for b in range(B):
        for i in range(O0):
            for j in range(O1):
                for l in range(O2):
                    m = lowest
                    at = first[i, j, l]
                    for a in range(K0):
                        if not valid0[i, a]:
                            continue
                        d = pos0[i, a]
                        for e in range(K1):
                            if not valid1[j, e]:
                                continue
                            h = pos1[j, e]
                            for f in range(K2):
                                if not valid2[l, f]:
                                    continue
                                w = pos2[l, f]
                                v = x[b, d, h, w]
                                if v > m or v != v:
                                    m = v
                                    at = (d * H + h) * W + w
                    best[b, i, j, l] = m
                    index[b, i, j, l] = at


@jit
def _sum_windows(x, pos0, valid0, pos1, valid1, pos2, valid2, total):
    """``total[b, i, j, l]`` (zeros on entry): the sum of the window's in-bounds elements."""
    B = x.shape[0]
    O0, K0 = pos0.shape
    O1, K1 = pos1.shape
    O2, K2 = pos2.shape
    for b in range(B):
        for i in range(O0):
            for j in range(O1):
                for l in range(O2):
                    s = total[b, i, j, l]  # (zero: the caller passes zeros of the dtype)
                    for a in range(K0):
                        if not valid0[i, a]:
                            continue
                        for e in range(K1):
                            if not valid1[j, e]:
                                continue
                            for f in range(K2):
                                if valid2[l, f]:
                                    s += x[b, pos0[i, a], pos1[j, e], pos2[l, f]]
                    total[b, i, j, l] = s


@jit
def _spread_windows(g, divisor, pos0, valid0, pos1, valid1, pos2, valid2, grad):
    """``grad[b, d, h, w] += g[b, i, j, l] / divisor[i, j, l]`` for every window holding
    ``(d, h, w)`` in bounds (``grad`` starts at zero): the average pool's backward."""
    B = g.shape[0]
    O0, K0 = pos0.shape
    O1, K1 = pos1.shape
    O2, K2 = pos2.shape
    for b in range(B):
        for i in range(O0):
            for j in range(O1):
                for l in range(O2):
                    share = g[b, i, j, l] / divisor[i, j, l]
                    for a in range(K0):
                        if not valid0[i, a]:
                            continue
                        for e in range(K1):
                            if not valid1[j, e]:
                                continue
                            for f in range(K2):
                                if valid2[l, f]:
                                    grad[b, pos0[i, a], pos1[j, e], pos2[l, f]] += share
