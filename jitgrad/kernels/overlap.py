"""Exact overlap tests on strided geometries (no buffer involved).

Both functions answer exactly. Common cases are decided in Python; the rest by a jitted
bitmap walk over the (bounded) span, or by sorting the enumerated offsets when the span is
too large for a bitmap but the element count is not. Beyond both limits they raise
ValueError rather than allocate absurd memory.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ._layout import as_index, as_index_tuple, coalesce, dense_no_overlap
from ._lazy import LazyKernel

# loaded (numba imported) on first call: see _lazy.py
_internal_overlap_bitmap = LazyKernel("_overlap_jit", "_internal_overlap_bitmap")
_offsets = LazyKernel("_overlap_jit", "_offsets")
_regions_share_bitmap = LazyKernel("_overlap_jit", "_regions_share_bitmap")

_BITMAP_LIMIT = 2**28  # bytes of bitmap (one np.bool_ per element of the span)
_SORT_LIMIT = 2**25    # offsets enumerated by the sorted method (8 bytes each)
_WALK_LIMIT = 2**36    # elements walked by an exact test
_INT64_SAFE = 2**62


def _parse(kernel: str, role: str, sizes: Sequence[int], strides: Sequence[int]
           ) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    sizes = as_index_tuple(kernel, f"{role}sizes", sizes)
    strides = as_index_tuple(kernel, f"{role}strides", strides)
    if len(sizes) != len(strides):
        raise ValueError(f"{kernel}: got {len(strides)} {role}strides {strides} for "
                         f"{len(sizes)} {role}sizes {sizes}")
    if any(n < 0 for n in sizes) or any(st < 0 for st in strides):
        raise ValueError(f"{kernel}: {role}sizes and {role}strides must be >= 0, "
                         f"got sizes {sizes}, strides {strides}")
    numel = 1
    for n in sizes:
        numel *= n
    return sizes, strides, numel


def _element_set_geometry(sizes: Sequence[int], strides: Sequence[int]
                          ) -> tuple[list[int], list[int]]:
    """A simpler geometry reaching the same set of elements: broadcast (zero-stride) and
    size-1 dims dropped, dims sorted by stride (largest first) and merged."""
    s, (st,) = coalesce(sizes, [strides], drop_broadcast=True)
    return s, st


def _span(sizes: Sequence[int], strides: Sequence[int]) -> int:
    return sum((n - 1) * st for n, st in zip(sizes, strides))


def _too_large(kernel: str, what: str) -> ValueError:
    return ValueError(f"{kernel}: {what} is too large for an exact overlap test "
                      f"(bitmap limit {_BITMAP_LIMIT} elements, sort limit {_SORT_LIMIT})")


def has_internal_overlap(sizes: Sequence[int], strides: Sequence[int]) -> bool:
    """True iff two distinct indices of (sizes, strides) map to the same element."""
    kernel = "has_internal_overlap"
    sizes, strides, numel = _parse(kernel, "", sizes, strides)
    if numel == 0:
        return False
    if any(st == 0 and n > 1 for n, st in zip(sizes, strides)):
        return True
    s, st = _element_set_geometry(sizes, strides)
    return _internal_overlap_exact(kernel, s, st, numel)


def _internal_overlap_exact(kernel: str, s: list[int], st: list[int], numel: int) -> bool:
    """Exact test for a coalesced geometry without zero strides (sizes > 1, sorted)."""
    if dense_no_overlap(s, st):
        return False
    span = _span(s, st) + 1
    if numel > span:  # pigeonhole
        return True
    if span >= _INT64_SAFE:
        raise _too_large(kernel, f"a span of {span} elements")
    geom = np.array([s, st], dtype=np.int64)
    if span <= _BITMAP_LIMIT:
        return bool(_internal_overlap_bitmap(0, geom, span))
    if numel <= _SORT_LIMIT:
        offs = np.sort(_offsets(0, geom))
        return bool(np.any(offs[1:] == offs[:-1]))
    raise _too_large(kernel, f"a span of {span} elements with {numel} elements")


def regions_overlap(a_offset: int, a_sizes: Sequence[int], a_strides: Sequence[int],
                    b_offset: int, b_sizes: Sequence[int], b_strides: Sequence[int]) -> bool:
    """True iff geometries a and b on the same buffer share at least one element."""
    kernel = "regions_overlap"
    a_off = as_index(kernel, "a_offset", a_offset)
    b_off = as_index(kernel, "b_offset", b_offset)
    if a_off < 0 or b_off < 0:
        raise ValueError(f"{kernel}: offsets must be >= 0, got {a_off} and {b_off}")
    a_sizes, a_strides, a_numel = _parse(kernel, "a_", a_sizes, a_strides)
    b_sizes, b_strides, b_numel = _parse(kernel, "b_", b_sizes, b_strides)
    if a_numel == 0 or b_numel == 0:
        return False
    a_s, a_st = _element_set_geometry(a_sizes, a_strides)
    b_s, b_st = _element_set_geometry(b_sizes, b_strides)
    a_hi = a_off + _span(a_s, a_st)
    b_hi = b_off + _span(b_s, b_st)
    lo, hi = max(a_off, b_off), min(a_hi, b_hi)
    if lo > hi:
        return False  # memory ranges are disjoint
    a_dense = a_hi - a_off + 1 == _numel(a_s) and dense_no_overlap(a_s, a_st)
    b_dense = b_hi - b_off + 1 == _numel(b_s) and dense_no_overlap(b_s, b_st)
    if a_dense and b_dense:
        return True  # both cover their whole range, and the ranges meet
    if a_hi >= _INT64_SAFE or b_hi >= _INT64_SAFE:
        raise _too_large(kernel, f"a geometry reaching element {max(a_hi, b_hi)}")
    walk = _numel(a_s) + _numel(b_s)
    if walk <= _WALK_LIMIT:  # every size now fits in int64
        a_geom = np.array([a_s, a_st], dtype=np.int64)
        b_geom = np.array([b_s, b_st], dtype=np.int64)
        if hi - lo + 1 <= _BITMAP_LIMIT:
            return bool(_regions_share_bitmap(a_off, a_geom, b_off, b_geom, lo, hi))
        if walk <= _SORT_LIMIT:
            a_offs = _offsets(a_off, a_geom)
            return np.intersect1d(a_offs, _offsets(b_off, b_geom)).size > 0
    raise _too_large(kernel, f"a window of {hi - lo + 1} elements with {walk} elements")


def shared_only_at_same_index(a_offset: int, a_strides: Sequence[int], b_offset: int,
                              b_strides: Sequence[int], sizes: Sequence[int]) -> bool:
    """For two geometries of one shape on the same buffer: True iff every element they share
    sits at the same index in both (``x[:, 0]`` and ``x[0]`` share only ``x[0, 0]``, index 0
    of each), so a copy from one into the other reads no element another write changes.
    False (the caller refuses) when the geometries are too large to enumerate."""
    kernel = "shared_only_at_same_index"
    sizes, a_strides, numel = _parse(kernel, "a_", sizes, a_strides)
    _, b_strides, _ = _parse(kernel, "b_", sizes, b_strides)
    if numel > _SORT_LIMIT:
        return False
    a = np.asarray(as_index(kernel, "a_offset", a_offset), dtype=np.int64)
    b = np.asarray(as_index(kernel, "b_offset", b_offset), dtype=np.int64)
    for n, sa, sb in zip(sizes, a_strides, b_strides):
        steps = np.arange(n, dtype=np.int64)
        a = a[..., None] + steps * sa
        b = b[..., None] + steps * sb
    a, b = a.reshape(-1), b.reshape(-1)
    order = np.argsort(a, kind="stable")
    found = np.minimum(np.searchsorted(a, b, sorter=order), numel - 1)
    hit = a[order[found]] == b  # b's element j is also one of a's: at index order[found[j]]
    if not hit.any():
        return True
    where_in_a = order[found[hit]]
    if np.unique(a).size != numel:  # (a writes some element twice: never only at its own index)
        return False
    return bool(np.all(where_in_a == np.nonzero(hit)[0]))


def _numel(sizes: Sequence[int]) -> int:
    n = 1
    for s in sizes:
        n *= s
    return n
