"""Jitted softmax kernels over rows: ``softmax``/``log_softmax`` of each run of ``k``
contiguous elements of a flat float32/float64 buffer, and their backward formulas.

Why a kernel: for a tiny row the NumPy formula is five or six calls of ~0.3 us each; one
call of a kernel is ~0.4 us in all. ``softmax.py`` says when the ops use these kernels.

Forward (``softmax_rows``, ``log_softmax_rows``): the NumPy formula's steps, computed in
float64 and rounded once to the output's dtype: ``m`` the row's max (nan if the row has a
nan, as ``np.maximum.reduce``), ``e = exp(x - m)`` (the C library's ``exp``: NumPy's own
SIMD ``exp`` may differ from it in the last bit, so the ops take these kernels on every
path for the rows they cover, never NumPy's formula for some of them), ``total`` the sum
of ``e`` (float64: in NumPy's pairwise order; float32: in order, in float64), then
``e * (1 / total)`` (``softmax``) or ``(x - m) - log(total)`` (``log_softmax``). Nothing
is allocated: a float64 output holds ``e`` on the way, a float32 one has ``exp`` computed
again.

Backward (``softmax_backward_rows``, ``log_softmax_backward_rows``): the general path's
formula, op for op in the gradient's dtype, with the row sum in ``np.add.reduce``'s
pairwise order (``_pairwise``, the same association as NumPy's ``pairwise_sum``: the
same bits): ``y * (g - sum(g * y))`` and ``g - e * sum(g)`` with ``e = exp(y)`` computed
by NumPy beforehand.

Self-contained (see ``_policy.py``): calls only ``math`` and jitted functions of this file.
Every loop is bounded by the buffers' own lengths: a kernel cannot touch memory outside
them whatever ``k`` is.
"""
from __future__ import annotations

import math

import numpy as np

from ._policy import jit_small as jit  # (tiny rows: see ``jit_small``)


@jit
def _block(a, lo, n):  # pragma: no cover - runs compiled
    """``np.add.reduce(a[lo:lo + n])`` for ``n <= 128``, in NumPy's order (``pairwise_sum``'s
    leaf: a plain loop under 8 elements, else 8 running sums then the rest), in ``a``'s
    dtype."""
    if n < 8:
        res = a.dtype.type(-0.0)
        for i in range(lo, lo + n):
            res += a[i]
        return res
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    i = 8
    whole = n - n % 8
    while i < whole:
        j = lo + i
        r0 += a[j]
        r1 += a[j + 1]
        r2 += a[j + 2]
        r3 += a[j + 3]
        r4 += a[j + 4]
        r5 += a[j + 5]
        r6 += a[j + 6]
        r7 += a[j + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


@jit
def _pairwise(a, lo, n):  # pragma: no cover - runs compiled
    """``np.add.reduce(a[lo:lo + n])`` of a contiguous float array in NumPy's order: the
    reduction's identity 0 plus ``pairwise_sum`` (ranges over 128 elements are halved, the
    half rounded down to a multiple of 8, and the halves' sums added), in ``a``'s dtype.
    (The identity only shows in the sign of a zero: a sum of -0.0s is 0.0.)"""
    return a.dtype.type(0.0) + _tree(a, lo, n)


@jit
def _tree(a, lo, n):  # pragma: no cover - runs compiled
    """``pairwise_sum`` of ``a[lo:lo + n]``. The halving walks an explicit stack: a
    recursive function's cached code crashes on load (numba 0.68)."""
    if n <= 128:
        return _block(a, lo, n)
    starts = np.empty(64, np.int64)
    sizes = np.empty(64, np.int64)
    lefts = np.empty(64, a.dtype)  # a range's left half's sum, once known
    done = np.zeros(64, np.bool_)  # whether it is known
    top = 0
    starts[0], sizes[0] = lo, n
    while True:
        m = sizes[top]
        if m > 128:  # split: the left half first
            half = m // 2
            half -= half % 8
            done[top] = False
            starts[top + 1], sizes[top + 1] = starts[top], half
            top += 1
            continue
        value = _block(a, starts[top], m)
        while True:  # hand ``value`` up to the ranges it completes
            if top == 0:
                return value
            top -= 1
            if done[top]:
                value = lefts[top] + value
                continue
            done[top] = True
            lefts[top] = value
            half = sizes[top] // 2
            half -= half % 8
            starts[top + 1], sizes[top + 1] = starts[top] + half, sizes[top] - half
            top += 1
            break


@jit
def _row_max(x, lo, k):  # pragma: no cover - runs compiled
    """The max of ``x[lo:lo + k]`` as a float64; nan if any element is nan."""
    m = np.float64(x[lo])
    for i in range(lo + 1, lo + k):
        v = np.float64(x[i])
        if v > m or v != v:
            m = v
            if v != v:
                break
    return m


@jit
def _exp_total(x, out, lo, k, m):  # pragma: no cover - runs compiled
    """The sum of ``exp(x[lo:lo + k] - m)`` in float64. A float64 ``out`` keeps the
    exponentials (``out[lo:lo + k]``) and sums them in NumPy's order; a float32 one is left
    alone and they are summed as they come, in float64."""
    if out.itemsize == 8:
        for i in range(lo, lo + k):
            out[i] = math.exp(np.float64(x[i]) - m)
        return np.float64(_pairwise(out, lo, k))
    total = 0.0
    for i in range(lo, lo + k):
        total += math.exp(np.float64(x[i]) - m)
    return total


@jit
def softmax_rows(x, out, k):  # pragma: no cover - runs compiled
    """``out[r*k:(r+1)*k] = softmax(x[r*k:(r+1)*k])`` for every whole row of both."""
    n = min(x.shape[0], out.shape[0])
    if k <= 0:
        return
    for lo in range(0, n - k + 1, k):
        m = _row_max(x, lo, k)
        r = 1.0 / _exp_total(x, out, lo, k, m)
        if out.itemsize == 8:
            for i in range(lo, lo + k):
                out[i] = out[i] * r
        else:
            for i in range(lo, lo + k):
                out[i] = math.exp(np.float64(x[i]) - m) * r


@jit
def log_softmax_rows(x, out, k):  # pragma: no cover - runs compiled
    """``out[r*k:(r+1)*k] = log_softmax(x[r*k:(r+1)*k])`` for every whole row of both."""
    n = min(x.shape[0], out.shape[0])
    if k <= 0:
        return
    for lo in range(0, n - k + 1, k):
        m = _row_max(x, lo, k)
        log_total = math.log(_exp_total(x, out, lo, k, m))
        for i in range(lo, lo + k):
            out[i] = (np.float64(x[i]) - m) - log_total


@jit
def softmax_backward_rows(g, y, out, k):  # pragma: no cover - runs compiled
    """``out = y * (g - sum(g * y))`` per row of ``k``, in the buffers' dtype (the products
    go through ``out`` to be summed in NumPy's order)."""
    n = min(g.shape[0], y.shape[0], out.shape[0])
    if k <= 0:
        return
    for lo in range(0, n - k + 1, k):
        for i in range(lo, lo + k):
            out[i] = g[i] * y[i]
        dot = _pairwise(out, lo, k)
        for i in range(lo, lo + k):
            out[i] = y[i] * (g[i] - dot)


@jit
def log_softmax_backward_rows(g, e, out, k):  # pragma: no cover - runs compiled
    """``out = g - e * sum(g)`` per row of ``k``, in the buffers' dtype (``e``: the exp of
    the log-softmax, may be ``out`` itself)."""
    n = min(g.shape[0], e.shape[0], out.shape[0])
    if k <= 0:
        return
    for lo in range(0, n - k + 1, k):
        total = _pairwise(g, lo, k)
        for i in range(lo, lo + k):
            out[i] = g[i] - e[i] * total
