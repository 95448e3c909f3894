"""Public strided kernels: copy, add (gradient accumulation), slice scatter, fill.

Each function validates everything in Python (``_layout.py``) before the jitted kernel
runs, so no call can read or write outside a buffer, then coalesces dimensions and calls
the kernel with a single int64 ``geom`` array (ndim never multiplies signatures).

Overlap contract: the source and destination regions must not *partially* overlap
(identical regions are fine for ``strided_copy``; ``strided_add`` expects disjoint ones).
Checking that on every call would cost more than the copy for small tensors, so it is the
caller's job (see :func:`regions_overlap`). Violating it gives unspecified values but is
still memory-safe.

Read-only source buffers: Numba types a read-only array differently from a writeable one,
so a read-only source compiles (once, then cached on disk) a second signature on first use;
``registry.warmup`` compiles only the writeable-source signatures jitgrad itself produces.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ._layout import (as_index, as_index_tuple, check_buffer, check_geometry, coalesce,
                      dense_no_overlap, order_for_transpose)
from ._parallel import chunks_for, ran_parallel
from ._lazy import LazyKernel
from .overlap import _internal_overlap_exact

# loaded (numba imported) on first call: see _lazy.py
_add_strided = LazyKernel("_accumulate_jit", "_add_strided")
_add_strided_par = LazyKernel("_accumulate_jit", "_add_strided_par")
_scatter_block = LazyKernel("_accumulate_jit", "_scatter_block")
_copy_strided = LazyKernel("_copy_jit", "_copy_strided")
_copy_strided_par = LazyKernel("_copy_jit", "_copy_strided_par")
_fill_strided = LazyKernel("_copy_jit", "_fill_strided")

_ACCUMULATE_DTYPES = frozenset(np.dtype(t) for t in (np.float32, np.float64, np.int64))
# Only these (dst, src) dtypes take the parallel kernels: the large arrays of autograd are
# float; 4 signatures per kernel instead of 16 keep `warmup` (compile time) in check.
_PARALLEL_DTYPES = frozenset(np.dtype(t) for t in (np.float32, np.float64))


def _binary_args(kernel: str, dst: Any, dst_offset: Any, dst_strides: Any, src: Any,
                 src_offset: Any, src_strides: Any, sizes: Any):
    dst = check_buffer(kernel, "destination", dst, writeable=True)
    src = check_buffer(kernel, "source", src)
    sizes = as_index_tuple(kernel, "sizes", sizes)
    dst_strides = as_index_tuple(kernel, "dst_strides", dst_strides)
    src_strides = as_index_tuple(kernel, "src_strides", src_strides)
    dst_offset = as_index(kernel, "dst_offset", dst_offset)
    src_offset = as_index(kernel, "src_offset", src_offset)
    numel = check_geometry(kernel, "destination", dst.shape[0], dst_offset, sizes, dst_strides)
    check_geometry(kernel, "source", src.shape[0], src_offset, sizes, src_strides)
    return dst, dst_offset, dst_strides, src, src_offset, src_strides, sizes, numel


def strided_copy(dst: np.ndarray, dst_offset: int, dst_strides: Sequence[int],
                 src: np.ndarray, src_offset: int, src_strides: Sequence[int],
                 sizes: Sequence[int]) -> None:
    """dst-view[i] = src-view[i] for every index i of ``sizes``, converting dtype as
    ``numpy.copyto(casting='unsafe')`` does (float -> bool is ``x != 0``, NaN -> True).
    ``src_strides`` may contain zeros (broadcast). Regions must not partially overlap."""
    dst, dst_offset, dst_strides, src, src_offset, src_strides, sizes, numel = _binary_args(
        "strided_copy", dst, dst_offset, dst_strides, src, src_offset, src_strides, sizes)
    if numel == 0:
        return
    # Dims where both strides are 0 only rewrite the same value: drop them.
    s, (ds, ss) = coalesce(sizes, [dst_strides, src_strides], drop_broadcast=True)
    chunks = _chunks(dst, src, numel, s, ds)
    order_for_transpose(s, ds, ss)
    geom = np.array([s, ds, ss], dtype=np.int64)
    if chunks > 1 and geom[0, 0] >= 64 * chunks:  # transpose reordering can shrink dim 0
        _copy_strided_par(dst, dst_offset, src, src_offset, geom, chunks)
        ran_parallel(chunks)
    else:
        _copy_strided(dst, dst_offset, src, src_offset, geom)


def strided_add(dst: np.ndarray, dst_offset: int, dst_strides: Sequence[int],
                src: np.ndarray, src_offset: int, src_strides: Sequence[int],
                sizes: Sequence[int]) -> None:
    """dst-view += src-view (gradient accumulation). ``src`` may be broadcast (zero
    strides) and of another dtype: it is cast to dst's dtype before adding. dst must be
    float32, float64 or int64 and free of internal overlap; regions must be disjoint."""
    kernel = "strided_add"
    dst, dst_offset, dst_strides, src, src_offset, src_strides, sizes, numel = _binary_args(
        kernel, dst, dst_offset, dst_strides, src, src_offset, src_strides, sizes)
    if dst.dtype not in _ACCUMULATE_DTYPES:
        raise TypeError(f"{kernel}: destination dtype must be float32, float64 or int64, "
                        f"got {dst.dtype}")
    if numel == 0:
        return
    s, (ds, ss) = coalesce(sizes, [dst_strides, src_strides])
    _refuse_internal_overlap(kernel, s, ds, numel, sizes, dst_strides)
    chunks = _chunks(dst, src, numel, s, ds)
    order_for_transpose(s, ds, ss)
    geom = np.array([s, ds, ss], dtype=np.int64)
    if chunks > 1 and geom[0, 0] >= 64 * chunks:  # transpose reordering can shrink dim 0
        _add_strided_par(dst, dst_offset, src, src_offset, geom, chunks)
        ran_parallel(chunks)
    else:
        _add_strided(dst, dst_offset, src, src_offset, geom)


def scatter(dst: np.ndarray, dst_offset: int, dst_strides: Sequence[int],
            sizes: Sequence[int], block: np.ndarray, accumulate: bool = False) -> None:
    """Slice scatter: write (or add, when ``accumulate``) the dense C-contiguous ``block``
    of shape ``sizes`` into the strided region of dst, casting to dst's dtype."""
    kernel = "scatter"
    dst = check_buffer(kernel, "destination", dst, writeable=True)
    if not isinstance(block, np.ndarray):
        raise TypeError(f"{kernel}: block must be a numpy.ndarray, got {type(block).__name__}")
    sizes = as_index_tuple(kernel, "sizes", sizes)
    dst_strides = as_index_tuple(kernel, "dst_strides", dst_strides)
    dst_offset = as_index(kernel, "dst_offset", dst_offset)
    if type(accumulate) is not bool:
        raise TypeError(f"{kernel}: accumulate must be a bool, got {type(accumulate).__name__}")
    numel = check_geometry(kernel, "destination", dst.shape[0], dst_offset, sizes, dst_strides)
    if block.shape != sizes:
        raise ValueError(f"{kernel}: block has shape {block.shape}, expected sizes {sizes}")
    if not block.flags.c_contiguous:
        raise ValueError(f"{kernel}: block must be C-contiguous, got strides {block.strides}")
    flat = check_buffer(kernel, "block", block.reshape(-1))  # a view: block is C-contiguous
    if accumulate and dst.dtype not in _ACCUMULATE_DTYPES:
        raise TypeError(f"{kernel}: accumulating needs a float32, float64 or int64 "
                        f"destination, got {dst.dtype}")
    if numel == 0:
        return
    # No reordering: the block is read in C order of `sizes` by a running counter.
    s, (ds,) = coalesce(sizes, [dst_strides], reorder=False)
    if accumulate:
        _refuse_internal_overlap(kernel, s, ds, numel, sizes, dst_strides)
    _scatter_block(dst, dst_offset, flat, np.array([s, ds], dtype=np.int64), accumulate)


def fill(dst: np.ndarray, dst_offset: int, dst_strides: Sequence[int],
         sizes: Sequence[int], value: bool | int | float) -> None:
    """dst-view = value, converted to dst's dtype (``numpy.dtype.type(value)``)."""
    kernel = "fill"
    dst = check_buffer(kernel, "destination", dst, writeable=True)
    sizes = as_index_tuple(kernel, "sizes", sizes)
    dst_strides = as_index_tuple(kernel, "dst_strides", dst_strides)
    dst_offset = as_index(kernel, "dst_offset", dst_offset)
    if not isinstance(value, (bool, int, float, np.bool_, np.integer, np.floating)):
        raise TypeError(f"{kernel}: value must be a real scalar, got {type(value).__name__}")
    try:
        scalar = dst.dtype.type(value)
    except (ValueError, OverflowError) as exc:
        raise ValueError(f"{kernel}: cannot convert value {value!r} to {dst.dtype}: "
                         f"{exc}") from None
    numel = check_geometry(kernel, "destination", dst.shape[0], dst_offset, sizes, dst_strides)
    if numel == 0:
        return
    s, (ds,) = coalesce(sizes, [dst_strides], drop_broadcast=True)
    _fill_strided(dst, dst_offset, np.array([s, ds], dtype=np.int64), scalar)


def _chunks(dst: np.ndarray, src: np.ndarray, numel: int, s: list[int], ds: list[int]) -> int:
    """How many threads a ``*_par`` kernel may split this copy/add into (1: run serial).
    Only float buffers, and only a destination proven free of internal overlap (dims as
    coalesced, sorted by stride), so each element is written once, by one thread."""
    chunks = chunks_for(numel, s[0])  # 1 below the size threshold: checked first, cheap
    if chunks == 1 or dst.dtype not in _PARALLEL_DTYPES or src.dtype not in _PARALLEL_DTYPES:
        return 1
    return chunks if dense_no_overlap(s, ds) else 1


def _refuse_internal_overlap(kernel: str, s: list[int], ds: list[int], numel: int,
                             sizes: tuple[int, ...], strides: tuple[int, ...]) -> None:
    """Raise ValueError if the (coalesced) destination has internal overlap: accumulating
    into it would make the result depend on the order of the writes."""
    if numel == 1 or (_sorted_desc(ds) and dense_no_overlap(s, ds)):
        return
    if 0 in [st for n, st in zip(s, ds) if n > 1]:
        overlap = True
    else:
        order = sorted(range(len(s)), key=lambda k: -ds[k])
        overlap = _internal_overlap_exact(kernel, [s[k] for k in order],
                                          [ds[k] for k in order], numel)
    if overlap:
        raise ValueError(f"{kernel}: destination has internal overlap (sizes {sizes}, "
                         f"strides {strides}); expected each element reached at most once")


def _sorted_desc(st: list[int]) -> bool:
    return all(st[k] >= st[k + 1] for k in range(len(st) - 1))
