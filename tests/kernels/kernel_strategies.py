"""Hypothesis strategies for kernel geometries and buffers."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

DTYPES = [np.dtype(t) for t in (np.float32, np.float64, np.int64, np.bool_)]
ACCUMULATE_DTYPES = DTYPES[:3]

sizes_st = st.lists(st.integers(0, 5), min_size=0, max_size=4).map(tuple)


def numel(sizes):
    n = 1
    for s in sizes:
        n *= s
    return n


def reach(offset, sizes, strides):
    return offset + sum((n - 1) * s for n, s in zip(sizes, strides))


@st.composite
def any_strides(draw, sizes, max_stride=7):
    """Arbitrary strides 0..max_stride (overlap and broadcast allowed)."""
    return tuple(draw(st.integers(0, max_stride)) for _ in sizes)


@st.composite
def nonoverlapping_strides(draw, sizes):
    """Strides of a random dim permutation, each exceeding the span of the inner ones."""
    perm = draw(st.permutations(range(len(sizes))))
    strides = [0] * len(sizes)
    stride = draw(st.integers(1, 3))
    for k in reversed(perm):
        strides[k] = stride
        stride = stride * max(sizes[k], 1) + draw(st.integers(0, 2))
    return tuple(strides)


@st.composite
def buffer_for(draw, dtype, sizes, strides, nan_ok=True):
    """(buffer, offset): a buffer that fits the geometry exactly or with slack."""
    offset = draw(st.integers(0, 4))
    length = (reach(offset, sizes, strides) + 1 if numel(sizes) else offset)
    length += draw(st.integers(0, 3))
    seed = draw(st.integers(0, 2**32 - 1))
    return random_buffer(dtype, length, seed, nan_ok), offset


def random_buffer(dtype, length, seed, nan_ok=True):
    rng = np.random.default_rng(seed)
    vals = rng.integers(-6, 7, size=length) * 0.5
    if nan_ok and np.dtype(dtype) != np.int64 and length and rng.random() < 0.3:
        vals[rng.integers(length)] = np.nan
    with np.errstate(invalid="ignore"):
        return vals.astype(dtype)
