"""Jitted selection along the rows of a 2-D array, in PyTorch's CPU order among ties.

Which of several equal elements ``topk`` and ``kthvalue`` return is decided by the
algorithm that selects them, so reproducing PyTorch's indices means running the same
algorithm step by step:

``topk_rows``
    PyTorch's CPU ``topk`` puts (value, index) pairs of a row through the C++ standard
    library, comparing values only (nan counts as the largest): ``partial_sort`` of the first
    ``k`` when ``64 * k <= n``, else ``nth_element`` at ``k - 1`` followed, when ``sorted``,
    by ``sort`` of the first ``k - 1``. These are GNU libstdc++'s algorithms (the library
    PyTorch's Linux wheels use), written again here: a heap select and heap sort, an
    introselect (median-of-three pivot, unguarded partition, insertion sort below four
    elements, heap select past its depth limit ``2 * floor(log2 n)``), and an introsort
    (ranges above 16 elements partitioned, then one insertion sort over the whole range).
``kth_rows``
    PyTorch's CPU ``kthvalue`` is its own quickselect (median of three moved to the front,
    Sedgewick's partition), written again here.

Self-contained (see ``_policy.py``): calls only jitted functions of this file. The pairs are
two parallel rows, ``keys`` (the values, in the input's dtype) and ``ids`` (their indices).
Every index stays inside its row: the unguarded loops stop at the pivot or at a sentinel the
algorithm placed, as in the library.
"""
from __future__ import annotations

import numpy as np

from ._policy import jit, jit_inline


@jit_inline
def _before(a, b, largest):  # pragma: no cover - runs compiled
    """The comparator: ``a`` goes before ``b`` (nan is the largest value; ``a != a`` is nan)."""
    if largest:
        return (a != a and b == b) or a > b
    return (a == a and b != b) or a < b


@jit_inline
def _swap(keys, ids, i, j):  # pragma: no cover - runs compiled
    keys[i], keys[j] = keys[j], keys[i]
    ids[i], ids[j] = ids[j], ids[i]


@jit
def _adjust_heap(keys, ids, first, hole, length, key, id_, largest):  # pragma: no cover
    """Sift the hole at ``hole`` down to a leaf, then push (key, id_) up from there."""
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if _before(keys[first + child], keys[first + child - 1], largest):
            child -= 1
        keys[first + hole] = keys[first + child]
        ids[first + hole] = ids[first + child]
        hole = child
    if (length & 1) == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        keys[first + hole] = keys[first + child - 1]
        ids[first + hole] = ids[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and _before(keys[first + parent], key, largest):
        keys[first + hole] = keys[first + parent]
        ids[first + hole] = ids[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    keys[first + hole] = key
    ids[first + hole] = id_


@jit
def _make_heap(keys, ids, first, length, largest):  # pragma: no cover - runs compiled
    if length < 2:
        return
    parent = (length - 2) // 2
    while True:
        _adjust_heap(keys, ids, first, parent, length, keys[first + parent], ids[first + parent], largest)
        if parent == 0:
            return
        parent -= 1


@jit
def _pop_heap(keys, ids, first, last, result, largest):  # pragma: no cover - runs compiled
    """The heap [first, last)'s top goes to ``result``, whose pair is sifted into the heap."""
    key, id_ = keys[result], ids[result]
    keys[result] = keys[first]
    ids[result] = ids[first]
    _adjust_heap(keys, ids, first, result - result, last - first, key, id_, largest)  # (hole 0: see topk_rows)


@jit
def _heap_select(keys, ids, first, middle, last, largest):  # pragma: no cover - runs compiled
    _make_heap(keys, ids, first, middle - first, largest)
    for i in range(middle, last):
        if _before(keys[i], keys[first], largest):
            _pop_heap(keys, ids, first, middle, i, largest)


@jit
def _sort_heap(keys, ids, first, last, largest):  # pragma: no cover - runs compiled
    while last - first > 1:
        last -= 1
        _pop_heap(keys, ids, first, last, last, largest)


@jit
def _partial_sort(keys, ids, first, middle, last, largest):  # pragma: no cover - runs compiled
    _heap_select(keys, ids, first, middle, last, largest)
    _sort_heap(keys, ids, first, middle, largest)


@jit
def _median_to_first(keys, ids, result, a, b, c, largest):  # pragma: no cover - runs compiled
    if _before(keys[a], keys[b], largest):
        if _before(keys[b], keys[c], largest):
            _swap(keys, ids, result, b)
        elif _before(keys[a], keys[c], largest):
            _swap(keys, ids, result, c)
        else:
            _swap(keys, ids, result, a)
    elif _before(keys[a], keys[c], largest):
        _swap(keys, ids, result, a)
    elif _before(keys[b], keys[c], largest):
        _swap(keys, ids, result, c)
    else:
        _swap(keys, ids, result, b)


@jit
def _partition_pivot(keys, ids, first, last, largest):  # pragma: no cover - runs compiled
    """The median of three moved to ``first``, then [first + 1, last) partitioned around it;
    returns the cut."""
    _median_to_first(keys, ids, first, first + 1, first + (last - first) // 2, last - 1, largest)
    pivot = first
    lo, hi = first + 1, last
    while True:
        while _before(keys[lo], keys[pivot], largest):
            lo += 1
        hi -= 1
        while _before(keys[pivot], keys[hi], largest):
            hi -= 1
        if not lo < hi:
            return lo
        _swap(keys, ids, lo, hi)
        lo += 1


@jit
def _linear_insert(keys, ids, last, largest):  # pragma: no cover - runs compiled
    """Insert the pair at ``last`` into the sorted run before it (a smaller pair sits before)."""
    key, id_ = keys[last], ids[last]
    prev = last - 1
    while _before(key, keys[prev], largest):
        keys[last] = keys[prev]
        ids[last] = ids[prev]
        last = prev
        prev -= 1
    keys[last] = key
    ids[last] = id_


@jit
def _insertion_sort(keys, ids, first, last, largest):  # pragma: no cover - runs compiled
    if first == last:
        return
    for i in range(first + 1, last):
        if _before(keys[i], keys[first], largest):
            key, id_ = keys[i], ids[i]
            for j in range(i, first, -1):
                keys[j] = keys[j - 1]
                ids[j] = ids[j - 1]
            keys[first] = key
            ids[first] = id_
        else:
            _linear_insert(keys, ids, i, largest)


@jit
def _floor_log2(n):  # pragma: no cover - runs compiled
    r = 0
    while n > 1:
        n >>= 1
        r += 1
    return r


@jit
def _nth_element(keys, ids, first, nth, last, largest):  # pragma: no cover - runs compiled
    if first == last or nth == last:
        return
    depth = 2 * _floor_log2(last - first)
    while last - first > 3:
        if depth == 0:
            _heap_select(keys, ids, first, nth + 1, last, largest)
            _swap(keys, ids, first, nth)
            return
        depth -= 1
        cut = _partition_pivot(keys, ids, first, last, largest)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(keys, ids, first, last, largest)


@jit
def _sort(keys, ids, first, last, largest):  # pragma: no cover - runs compiled
    """Introsort: the library recurses on the right part and loops on the left; the parts are
    disjoint, so a stack of (first, last, depth) does the same work."""
    if first == last:
        return
    stack = np.empty((2 * _floor_log2(last - first) + 4, 3), np.int64)
    stack[0, 0], stack[0, 1], stack[0, 2] = first, last, 2 * _floor_log2(last - first)
    top = 1
    while top:
        top -= 1
        lo, hi, depth = stack[top, 0], stack[top, 1], stack[top, 2]
        while hi - lo > 16:
            if depth == 0:
                _partial_sort(keys, ids, lo, hi, hi, largest)
                break
            depth -= 1
            cut = _partition_pivot(keys, ids, lo, hi, largest)
            stack[top, 0], stack[top, 1], stack[top, 2] = cut, hi, depth
            top += 1
            hi = cut
    if last - first > 16:
        _insertion_sort(keys, ids, first, first + 16, largest)
        for i in range(first + 16, last):
            _linear_insert(keys, ids, i, largest)
    else:
        _insertion_sort(keys, ids, first, last, largest)


@jit
def topk_rows(x, k, largest, ordered, out):  # pragma: no cover - runs compiled
    """``out[r] = `` the indices of row ``r``'s ``k`` largest (smallest) values of ``x``
    (rows, n), as PyTorch's CPU ``topk``; ``ordered``: its ``sorted``."""
    rows, n = x.shape
    k = min(k, n, out.shape[1])
    if k <= 0:
        return
    keys = np.empty(n, x.dtype)
    ids = np.empty(n, np.int64)
    # (a literal 0 passed down would make Numba compile every helper once more for it)
    start = k - k
    for r in range(min(rows, out.shape[0])):
        for j in range(n):
            keys[j] = x[r, j]
            ids[j] = j
        if k * 64 <= n:
            _partial_sort(keys, ids, start, k, n, largest)
        else:
            _nth_element(keys, ids, start, k - 1, n, largest)
            if ordered:
                _sort(keys, ids, start, k - 1, largest)
        for j in range(k):
            out[r, j] = ids[j]


@jit_inline
def _greater(a, b):  # pragma: no cover - runs compiled
    return (a != a and b == b) or a > b


@jit
def kth_rows(x, k, out):  # pragma: no cover - runs compiled
    """``out[r] = `` the index of row ``r``'s ``k``-th smallest value of ``x`` (rows, n), k
    0-based, as PyTorch's CPU ``kthvalue`` (nan the largest)."""
    rows, n = x.shape
    if not 0 <= k < n:
        return
    keys = np.empty(n, x.dtype)
    ids = np.empty(n, np.int64)
    for r in range(min(rows, out.shape[0])):
        for j in range(n):
            keys[j] = x[r, j]
            ids[j] = j
        lo, hi = k - k, n - 1  # (no literal 0: see topk_rows)
        while hi > lo:
            if hi == lo + 1:
                if _greater(keys[lo], keys[hi]):
                    _swap(keys, ids, lo, hi)
                break
            _swap(keys, ids, (lo + hi) >> 1, lo + 1)
            if _greater(keys[lo + 1], keys[hi]):
                _swap(keys, ids, lo + 1, hi)
            if _greater(keys[lo], keys[hi]):
                _swap(keys, ids, lo, hi)
            if _greater(keys[lo + 1], keys[lo]):
                _swap(keys, ids, lo + 1, lo)
            i, j = lo + 1, hi
            pivot = keys[lo]
            while True:
                i += 1
                while _greater(pivot, keys[i]):
                    i += 1
                j -= 1
                while _greater(keys[j], pivot):
                    j -= 1
                if j < i:
                    break
                _swap(keys, ids, i, j)
            _swap(keys, ids, lo, j)
            if j <= k:
                lo = i
            if j >= k:
                hi = j - 1
        out[r] = ids[k]


@jit
def _sorted_row(x, r, keys, ids, descending):  # pragma: no cover - runs compiled
    """Row ``r`` of ``x`` as (value, index) pairs in ``keys``/``ids``, sorted by the library's ``sort``."""
    n = x.shape[1]
    for j in range(n):
        keys[j] = x[r, j]
        ids[j] = j
    _sort(keys, ids, r - r, n, descending)  # (no literal 0: see topk_rows)


@jit
def sort_rows(x, descending, out):  # pragma: no cover - runs compiled
    """``out[r] = `` the permutation that sorts row ``r`` of ``x`` (rows, n), as the C++ library's
    ``sort`` of (value, index) pairs (PyTorch's CPU ``sort`` without ``stable`` where it does
    not use a vectorized sort, and its ``mode``)."""
    rows, n = x.shape
    keys = np.empty(n, x.dtype)
    ids = np.empty(n, np.int64)
    for r in range(min(rows, out.shape[0])):
        _sorted_row(x, r, keys, ids, descending)
        for j in range(min(n, out.shape[1])):
            out[r, j] = ids[j]


@jit
def mode_rows(x, out):  # pragma: no cover - runs compiled
    """``out[r] = `` the index PyTorch's CPU ``mode`` gives for row ``r`` of ``x`` (rows, n; no
    nan): the row's pairs sorted by the library's ``sort``, and of the first longest run of
    equal values, the index its last pair holds."""
    rows, n = x.shape
    keys = np.empty(n, x.dtype)
    ids = np.empty(n, np.int64)
    for r in range(min(rows, out.shape[0])):
        _sorted_row(x, r, keys, ids, False)
        best, most, run = ids[0], 0, 0
        for i in range(n):
            run += 1
            if i == n - 1 or keys[i] != keys[i + 1]:
                if run > most:
                    best, most = ids[i], run
                run = 0
        out[r] = best
