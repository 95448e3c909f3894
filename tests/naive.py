"""Slow, obviously-correct references for jitgrad's kernels (stumpy's tests/naive.py style).

Everything iterates over every index with ``itertools.product`` and casts element by
element with NumPy scalar conversion, so there is nothing clever to get wrong.
"""
from __future__ import annotations

import itertools

import numpy as np


def flat_indices(offset, sizes, strides):
    """Buffer index of every element of the geometry, in C order of ``sizes``."""
    return [offset + sum(i * s for i, s in zip(idx, strides))
            for idx in itertools.product(*map(range, sizes))]


def cast(value, dtype):
    """``value`` converted as ``numpy.ndarray.astype(dtype, casting='unsafe')`` would."""
    return np.array([value]).astype(dtype)[0]


def strided_copy(dst, dst_offset, dst_strides, src, src_offset, src_strides, sizes):
    for d, s in zip(flat_indices(dst_offset, sizes, dst_strides),
                    flat_indices(src_offset, sizes, src_strides)):
        dst[d] = cast(src[s], dst.dtype)


def strided_add(dst, dst_offset, dst_strides, src, src_offset, src_strides, sizes):
    for d, s in zip(flat_indices(dst_offset, sizes, dst_strides),
                    flat_indices(src_offset, sizes, src_strides)):
        dst[d] = dst[d] + cast(src[s], dst.dtype)


def scatter(dst, dst_offset, dst_strides, sizes, block, accumulate=False):
    for d, v in zip(flat_indices(dst_offset, sizes, dst_strides), block.reshape(-1)):
        v = cast(v, dst.dtype)
        dst[d] = dst[d] + v if accumulate else v


def fill(dst, dst_offset, dst_strides, sizes, value):
    for d in flat_indices(dst_offset, sizes, dst_strides):
        dst[d] = dst.dtype.type(value)


def has_internal_overlap(sizes, strides):
    offsets = flat_indices(0, sizes, strides)
    return len(set(offsets)) != len(offsets)


def regions_overlap(a_offset, a_sizes, a_strides, b_offset, b_sizes, b_strides):
    a = set(flat_indices(a_offset, a_sizes, a_strides))
    return any(p in a for p in flat_indices(b_offset, b_sizes, b_strides))
