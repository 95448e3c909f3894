"""Jitted exact overlap tests (bitmap walks) and offset enumeration.

Self-contained (see ``_policy.py``). ``geom`` is an int64 array of shape (2, ndim),
ndim >= 1: sizes (all >= 1) and strides. The caller bounds the bitmap length.
"""
from __future__ import annotations

import numpy as np

from ._policy import jit


@jit
def _internal_overlap_bitmap(offset, geom, span):
    """True iff two indices of the geometry (offsets relative to ``offset``, all in
    [0, span)) hit the same element; stops at the first repeat."""
    seen = np.zeros(span, np.bool_)
    nd = geom.shape[1]
    idx = np.zeros(nd, np.int64)
    numel = 1
    for k in range(nd):
        numel *= geom[0, k]
    p = offset
    for _ in range(numel):
        if seen[p]:
            return True
        seen[p] = True
        k = nd - 1
        while k >= 0:
            idx[k] += 1
            p += geom[1, k]
            if idx[k] < geom[0, k]:
                break
            p -= geom[1, k] * geom[0, k]
            idx[k] = 0
            k -= 1
    return False


@jit
def _regions_share_bitmap(a_offset, a_geom, b_offset, b_geom, lo, hi):
    """True iff geometries a and b share an element; only elements in [lo, hi] can be
    shared, so the bitmap covers just that window."""
    seen = np.zeros(hi - lo + 1, np.bool_)
    for phase in range(2):
        geom = a_geom if phase == 0 else b_geom
        p = a_offset if phase == 0 else b_offset
        nd = geom.shape[1]
        idx = np.zeros(nd, np.int64)
        numel = 1
        for k in range(nd):
            numel *= geom[0, k]
        for _ in range(numel):
            if lo <= p <= hi:
                if phase == 0:
                    seen[p - lo] = True
                elif seen[p - lo]:
                    return True
            k = nd - 1
            while k >= 0:
                idx[k] += 1
                p += geom[1, k]
                if idx[k] < geom[0, k]:
                    break
                p -= geom[1, k] * geom[0, k]
                idx[k] = 0
                k -= 1
    return False


@jit
def _offsets(offset, geom):
    """Every element offset of the geometry, in C order (for the sorted-offsets method)."""
    nd = geom.shape[1]
    numel = 1
    for k in range(nd):
        numel *= geom[0, k]
    out = np.empty(numel, np.int64)
    idx = np.zeros(nd, np.int64)
    p = offset
    for i in range(numel):
        out[i] = p
        k = nd - 1
        while k >= 0:
            idx[k] += 1
            p += geom[1, k]
            if idx[k] < geom[0, k]:
                break
            p -= geom[1, k] * geom[0, k]
            idx[k] = 0
            k -= 1
    return out
