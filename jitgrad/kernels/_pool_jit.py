"""Jitted window loops of the pools (``jitgrad.nn._pooling``).

A pool is described per spatial dim by a window table: ``pos[o, k]``, the input row (or
column) the ``k``-th element of output ``o``'s window reads, already clipped into the input,
and ``valid[o, k]``, False for an element in the padding or past an adaptive window's end.
``x`` is ``(B, H, W)`` C-contiguous. Every read is ``x[b, pos0[i, a], pos1[j, e]]`` with
``b < B`` and the positions inside ``[0, H)`` x ``[0, W)`` (checked in Python before the call),
so no kernel reads or writes outside its arrays. Windows are walked in row-major order, as
PyTorch's CPU kernels walk them (the same sums, the same first maximum).

Self-contained (see ``_policy.py``): no calls outside this file, no module globals.
"""
from __future__ import annotations

from ._policy import jit


@jit
def _max_windows(x, pos0, valid0, pos1, valid1, first, lowest, best, index):
    """``best[b, i, j]``: the window's maximum, ``index``: its flat ``h * W + w``. A later
    element wins only when greater or NaN (PyTorch's rule); the index starts at ``first``."""
    B, W = x.shape[0], x.shape[2]
    O0, K0 = pos0.shape
    O1, K1 = pos1.shape
    for b in range(B):
        for i in range(O0):
            for j in range(O1):
                m = lowest
                at = first[i, j]
                for a in range(K0):
                    if not valid0[i, a]:
                        continue
                    r = pos0[i, a]
                    for e in range(K1):
                        if not valid1[j, e]:
                            continue
                        v = x[b, r, pos1[j, e]]
                        if v > m or v != v:
                            m = v
                            at = r * W + pos1[j, e]
                best[b, i, j] = m
                index[b, i, j] = at


@jit
def _sum_windows(x, pos0, valid0, pos1, valid1, total):
    """``total[b, i, j]`` (zeros on entry): the sum of the window's in-bounds elements."""
    B = x.shape[0]
    O0, K0 = pos0.shape
    O1, K1 = pos1.shape
    for b in range(B):
        for i in range(O0):
            for j in range(O1):
                s = total[b, i, j]  # (zero: the caller passes zeros of the dtype)
                for a in range(K0):
                    if not valid0[i, a]:
                        continue
                    r = pos0[i, a]
                    for e in range(K1):
                        if valid1[j, e]:
                            s += x[b, r, pos1[j, e]]
                total[b, i, j] = s


@jit
def _spread_windows(g, divisor, pos0, valid0, pos1, valid1, grad):
    """``grad[b, h, w] += g[b, i, j] / divisor[i, j]`` for every window ``(i, j)`` holding
    ``(h, w)`` in bounds (``grad`` starts at zero): the average pool's backward."""
    B = g.shape[0]
    O0, K0 = pos0.shape
    O1, K1 = pos1.shape
    for b in range(B):
        for i in range(O0):
            for j in range(O1):
                share = g[b, i, j] / divisor[i, j]
                for a in range(K0):
                    if not valid0[i, a]:
                        continue
                    r = pos0[i, a]
                    for e in range(K1):
                        if valid1[j, e]:
                            grad[b, r, pos1[j, e]] += share
