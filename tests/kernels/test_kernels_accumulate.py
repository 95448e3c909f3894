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


TRANSPOSE_SHAPES = [(1, 1), (7, 9), (8, 8), (33, 65), (130, 70), (300, 260)]


@pytest.mark.parametrize("shape", TRANSPOSE_SHAPES)
@pytest.mark.parametrize("src_dtype,dst_dtype", [(np.float32, np.float32), (np.float64, np.float64),
                                                 (np.float64, np.float32), (np.float32, np.int64)])
def test_transpose_add(shape, src_dtype, dst_dtype):
    """The tiled path (``_add_transpose_plane``), edges included, against NumPy."""
    m, n = shape
    a = ((np.arange(m * n) % 11 - 5) * 0.37).astype(src_dtype).reshape(m, n)
    dst = (np.arange(m * n + 3) % 7).astype(dst_dtype)
    expected = dst.copy()
    expected[2:-1] += a.T.astype(dst_dtype).reshape(-1)  # (cast first, then add)
    strided_add(dst, 2, (m, 1), a.reshape(-1), 0, (1, n), (n, m))
    np.testing.assert_array_equal(dst, expected)


@pytest.mark.parametrize("axes", [(0, 2, 1), (2, 1, 0), (1, 2, 0), (2, 0, 1)])
def test_batched_transpose_add(axes):
    a = np.arange(3 * 17 * 19, dtype=np.float64).reshape(3, 17, 19) * 0.1
    t = a.transpose(axes)
    src_strides = tuple(s // a.itemsize for s in t.strides)
    dst = np.ones(a.size)
    dst_strides = tuple(s // a.itemsize for s in np.empty(t.shape).strides)
    strided_add(dst, 0, dst_strides, a.reshape(-1), 0, src_strides, t.shape)
    np.testing.assert_array_equal(dst.reshape(t.shape), 1 + t)


def test_transpose_add_walks_as_the_copy():
    """``_add_transpose_plane`` repeats ``_transpose_plane``'s loops (each kernel file is
    self-contained, see ``_policy.py``): the two differ only in their stores."""
    import inspect
    import re

    from jitgrad.kernels import _accumulate_jit, _copy_jit

    def body(fn: object) -> list[str]:
        src = inspect.getsource(fn.py_func)  # type: ignore[attr-defined]
        lines = src.split('"""')[2].strip().splitlines()  # after the docstring
        return [re.sub(r"\+= _as_dtype_of\(dst, (.*)\)$", r"= \1", line) for line in lines]

    assert body(_accumulate_jit._add_transpose_plane) == body(_copy_jit._transpose_plane)


@settings(max_examples=budget(100), deadline=None)
@given(data=st.data(), m=st.integers(1, 40), n=st.integers(1, 40), batch=st.integers(1, 3),
       pad=st.integers(0, 3), step=st.integers(1, 2),
       dtypes=st.sampled_from([(np.float32, np.float32), (np.float64, np.float64),
                               (np.float64, np.float32), (np.float32, np.int64)]))
def test_transposed_add_matches_naive(data, m, n, batch, pad, step, dtypes):
    """Transpose-like layouts large enough for the tiled path: dst (batch, n, m) rows padded
    by ``pad``, src a transposed (and column-stepped) view; against the naive reference."""
    src_dtype, dst_dtype = dtypes
    sizes = (batch, n, m)
    dst_strides = (n * (m + pad), m + pad, 1)
    src_strides = (m * n * step, 1, n * step)  # src element (b, j, i) at b*.. + j + i*n*step
    seed = data.draw(st.integers(0, 2**32 - 1))
    src = random_buffer(src_dtype, batch * m * n * step, seed, nan_ok=dst_dtype != np.int64)
    dst = random_buffer(dst_dtype, batch * n * (m + pad) + 1, seed + 1)
    expected = dst.copy()
    naive.strided_add(expected, 1, dst_strides, src, 0, src_strides, sizes)
    strided_add(dst, 1, dst_strides, src, 0, src_strides, sizes)
    np.testing.assert_array_equal(dst, expected)
