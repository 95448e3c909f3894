"""strided_add and scatter against the naive reference."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import naive
from conftest import budget
from jitgrad.kernels import scatter, strided_add
from kernel_strategies import (ACCUMULATE_DTYPES, DTYPES, any_strides, buffer_for,
                               nonoverlapping_strides, random_buffer, sizes_st)


@settings(max_examples=budget(300), deadline=None)
@given(data=st.data(), sizes=sizes_st, dst_dtype=st.sampled_from(ACCUMULATE_DTYPES),
       src_dtype=st.sampled_from(DTYPES))
def test_add_matches_naive(data, sizes, dst_dtype, src_dtype):
    dst_strides = data.draw(nonoverlapping_strides(sizes))
    src_strides = data.draw(any_strides(sizes))  # zero strides: broadcast
    src, src_off = data.draw(buffer_for(src_dtype, sizes, src_strides,
                                        nan_ok=dst_dtype != np.int64))
    dst, dst_off = data.draw(buffer_for(dst_dtype, sizes, dst_strides))
    expected = dst.copy()
    naive.strided_add(expected, dst_off, dst_strides, src, src_off, src_strides, sizes)
    strided_add(dst, dst_off, dst_strides, src, src_off, src_strides, sizes)
    np.testing.assert_array_equal(dst, expected)


def test_add_casts_source_to_destination_dtype_first():
    dst = np.array([1.0], np.float32)
    src = np.array([1e-8])  # lost when rounded to float32 first, as torch's add_ does
    strided_add(dst, 0, (1,), src, 0, (1,), (1,))
    assert dst[0] == np.float32(1.0)


@pytest.mark.parametrize("sizes,strides", [((3,), (0,)), ((2, 3), (1, 1)), ((3, 2), (2, 2))])
def test_add_refuses_overlapping_destination(sizes, strides):
    dst = np.zeros(10)
    with pytest.raises(ValueError, match="strided_add: destination has internal overlap"):
        strided_add(dst, 0, strides, np.ones(10), 0, (0,) * len(sizes), sizes)
    assert not dst.any()


def test_add_accepts_exact_nonoverlap_and_rejects_bool():
    dst = np.zeros(8)
    strided_add(dst, 0, (2, 3), np.arange(6.0), 0, (2, 1), (3, 2))  # offsets 0,3,2,5,4,7
    np.testing.assert_array_equal(dst, [0, 0, 2, 1, 4, 3, 0, 5])
    with pytest.raises(TypeError, match="strided_add: destination dtype"):
        strided_add(np.zeros(3, np.bool_), 0, (1,), np.ones(3), 0, (1,), (3,))


@settings(max_examples=budget(300), deadline=None)
@given(data=st.data(), sizes=sizes_st, dst_dtype=st.sampled_from(DTYPES),
       block_dtype=st.sampled_from(DTYPES), accumulate=st.booleans())
def test_scatter_matches_naive(data, sizes, dst_dtype, block_dtype, accumulate):
    if accumulate and dst_dtype == np.bool_:
        accumulate = False
    dst_strides = data.draw(nonoverlapping_strides(sizes))
    dst, dst_off = data.draw(buffer_for(dst_dtype, sizes, dst_strides))
    seed = data.draw(st.integers(0, 2**32 - 1))
    n = int(np.prod(sizes))
    block = random_buffer(block_dtype, n, seed, nan_ok=dst_dtype != np.int64).reshape(sizes)
    expected = dst.copy()
    naive.scatter(expected, dst_off, dst_strides, sizes, block, accumulate)
    scatter(dst, dst_off, dst_strides, sizes, block, accumulate)
    np.testing.assert_array_equal(dst, expected)


def test_scatter_checks_block_and_accumulate():
    dst = np.zeros(6)
    with pytest.raises(ValueError, match=r"scatter: block has shape \(6,\), expected sizes \(2, 3\)"):
        scatter(dst, 0, (3, 1), (2, 3), np.ones(6))
    with pytest.raises(ValueError, match="scatter: block must be C-contiguous"):
        scatter(dst, 0, (1, 3), (3, 2), np.ones((2, 3)).T)
    with pytest.raises(TypeError, match="scatter: accumulating"):
        scatter(np.zeros(3, np.bool_), 0, (1,), (3,), np.ones(3), accumulate=True)
    with pytest.raises(ValueError, match="scatter: destination has internal overlap"):
        scatter(dst, 0, (1, 1), (2, 2), np.ones((2, 2)), accumulate=True)
    assert not dst.any()
