"""Jitted accumulation kernels: strided add (gradient accumulation) and slice scatter.

Self-contained: calls only jitted functions and overloads defined in this file (see
``_policy.py``). Geometry arrives validated and coalesced by ``_layout.py``; ``geom`` is an
int64 array of shape (rows, ndim), ndim >= 1, every size >= 1. The destination never has
internal overlap when accumulating (checked in Python), so results are order-independent.
"""
from __future__ import annotations

import numpy as np
from numba import prange, types
from numba.extending import overload

from ._policy import jit, jit_parallel


def _as_dtype_of(arr, x):  # pragma: no cover - only its Numba overload runs
    """``x`` converted to ``arr``'s dtype (NumPy's unsafe cast), before any arithmetic:
    ``float32 += float64`` rounds the source to float32 first, as torch's ``add_`` does."""
    raise NotImplementedError


@overload(_as_dtype_of)
def _as_dtype_of_impl(arr, x):
    dt = arr.dtype
    if isinstance(dt, types.Boolean):
        return lambda arr, x: x != 0
    if dt == types.float32:
        return lambda arr, x: np.float32(x)
    if dt == types.float64:
        return lambda arr, x: np.float64(x)
    if dt == types.int64:
        return lambda arr, x: np.int64(x)
    return None


@jit
def _add_transpose_plane(dst, d, dA, src, s, sB, M, N):
    """dst[d + i*dA + j] += src[s + i + j*sB] for i < M, j < N: ``_transpose_plane`` of
    ``_copy_jit.py`` (the same tiles, measured there) adding instead of storing
    (tests/kernels/test_kernels_accumulate.py checks the two stay the same walk)."""
    for i0 in range(0, M, 256):
        i1 = min(i0 + 256, M)
        for j0 in range(0, N, 256):
            j1 = min(j0 + 256, N)
            i = i0
            while i + 8 <= i1:
                j = j0
                while j + 8 <= j1:
                    dv = dst[d + i * dA + j:]
                    sv = src[s + i + j * sB:]
                    for b in range(8):
                        for a in range(8):
                            dv[a * dA + b] += _as_dtype_of(dst, sv[a + b * sB])
                    j += 8
                for a in range(8):
                    for jj in range(j, j1):
                        dst[d + (i + a) * dA + jj] += _as_dtype_of(dst, src[s + i + a + jj * sB])
                i += 8
            for ii in range(i, i1):
                for jj in range(j0, j1):
                    dst[d + ii * dA + jj] += _as_dtype_of(dst, src[s + ii + jj * sB])


@jit
def _add_strided(dst, dst_offset, src, src_offset, geom):
    """dst-view += src-view. geom rows: sizes, dst strides, src strides. A transpose-like
    layout (``_layout.order_for_transpose``) walks 2-D planes with the tiled path, as
    ``_copy_strided`` does."""
    nd = geom.shape[1]
    last = nd - 1
    tiled = (nd >= 2 and geom[1, last] == 1 and geom[2, last - 1] == 1
             and geom[2, last] > 1 and geom[0, last] >= 8 and geom[0, last - 1] >= 8)
    n_odo = nd - 2 if tiled else last  # dims walked by the odometer
    outer = 1
    for k in range(n_odo):
        outer *= geom[0, k]
    idx = np.zeros(max(n_odo, 1), np.int64)
    n = geom[0, last]
    ds = geom[1, last]
    ss = geom[2, last]
    d = dst_offset
    s = src_offset
    for _ in range(outer):
        if tiled:
            _add_transpose_plane(dst, d, geom[1, last - 1], src, s, ss, geom[0, last - 1], n)
        elif ds == 1 and ss == 1:
            dv = dst[d:d + n]  # slice views vectorise (see _copy_jit)
            sv = src[s:s + n]
            for j in range(n):
                dv[j] += _as_dtype_of(dst, sv[j])
        elif ss == 0:
            v = _as_dtype_of(dst, src[s])
            for j in range(n):
                dst[d + j * ds] += v
        else:
            for j in range(n):
                dst[d + j * ds] += _as_dtype_of(dst, src[s + j * ss])
        k = n_odo - 1
        while k >= 0:  # odometer increment over the outer dims
            idx[k] += 1
            d += geom[1, k]
            s += geom[2, k]
            if idx[k] < geom[0, k]:
                break
            d -= geom[1, k] * geom[0, k]
            s -= geom[2, k] * geom[0, k]
            idx[k] = 0
            k -= 1


@jit
def _scatter_block(dst, dst_offset, block, geom, accumulate):
    """Write (or add) the C-contiguous ``block`` (flat) into dst-view, in C order.
    geom rows: sizes, dst strides (not reordered, so ``block`` is read by a running counter)."""
    nd = geom.shape[1]
    last = nd - 1
    outer = 1
    for k in range(last):
        outer *= geom[0, k]
    idx = np.zeros(max(last, 1), np.int64)
    n = geom[0, last]
    ds = geom[1, last]
    d = dst_offset
    b = 0
    for _ in range(outer):
        bv = block[b:b + n]
        if ds == 1:
            dv = dst[d:d + n]
            if accumulate:
                for j in range(n):
                    dv[j] += _as_dtype_of(dst, bv[j])
            else:
                for j in range(n):
                    dv[j] = bv[j]
        elif accumulate:
            for j in range(n):
                dst[d + j * ds] += _as_dtype_of(dst, bv[j])
        else:
            for j in range(n):
                dst[d + j * ds] = bv[j]
        b += n
        k = last - 1
        while k >= 0:
            idx[k] += 1
            d += geom[1, k]
            if idx[k] < geom[0, k]:
                break
            d -= geom[1, k] * geom[0, k]
            idx[k] = 0
            k -= 1


@jit_parallel
def _add_strided_par(dst, dst_offset, src, src_offset, geom, chunks):
    """``_add_strided`` with geom's outermost dim split into ``chunks`` disjoint ranges,
    one per ``prange`` iteration (see ``jit_parallel`` in ``_policy.py``); each element is
    still one ``dst += cast(src)``, so results equal the serial kernel's bit for bit. The
    caller guarantees geom[0, 0] >= 64 * chunks and a destination without internal overlap."""
    n0 = geom[0, 0]
    for c in prange(chunks):
        lo = (n0 * c // chunks) // 64 * 64
        hi = n0 if c == chunks - 1 else (n0 * (c + 1) // chunks) // 64 * 64
        g = geom.copy()
        g[0, 0] = hi - lo
        _add_strided(dst, dst_offset + lo * geom[1, 0], src, src_offset + lo * geom[2, 0], g)
