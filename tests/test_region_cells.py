"""One-element regions of float64 buffers (``regions.add_region``/``copy_region``/
``fill_region`` with sizes ``()``) by Python float arithmetic, against NumPy's ufuncs bit
for bit, special values included; other dtypes and out-of-range offsets keep the slice
path. And ``fill_region``'s row by a buffer slice, ``add_region``'s block from a contiguous
source, each against ``as_array``'s views."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import budget
from jitgrad import regions

SPECIAL = st.sampled_from([0.0, -0.0, np.inf, -np.inf, np.nan, 1e308, -1e308, 5e-324, 1.5])
F64 = st.one_of(st.floats(allow_nan=True, allow_infinity=True), SPECIAL)


@settings(max_examples=budget(300))
@given(F64, F64, st.integers(0, 4), st.integers(0, 2))
def test_one_element_add_and_copy_are_numpys(a: float, b: float, at: int, src_at: int) -> None:
    dst = np.arange(5, dtype=np.float64)
    dst[at] = a
    src = np.full(3, 7.0)
    src[src_at] = b
    expected = dst.copy()
    with np.errstate(all="ignore"):
        np.add(expected[at:at + 1], src[src_at:src_at + 1], out=expected[at:at + 1])
    got = dst.copy()
    regions.add_region(got, at, (), src, src_at, (), ())
    assert got.tobytes() == expected.tobytes()
    copied = dst.copy()
    regions.copy_region(copied, at, (), src, src_at, (), ())
    expected = dst.copy()
    expected[at:at + 1] = src[src_at:src_at + 1]
    assert copied.tobytes() == expected.tobytes()
    filled = dst.copy()
    regions.fill_region(filled, at, (), (), 0)
    expected = dst.copy()
    expected[at:at + 1].fill(0)
    assert filled.tobytes() == expected.tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.complex128])
def test_other_dtypes_take_the_slice_path(dtype: type) -> None:
    dst = np.arange(4).astype(dtype)
    src = np.array([2, 3]).astype(dtype)
    regions.add_region(dst, 1, (), src, 1, (), ())
    regions.copy_region(dst, 3, (), src, 0, (), ())
    regions.fill_region(dst, 0, (), (), 0)
    assert dst.tolist() == np.array([0, 4, 2, 2]).astype(dtype).tolist()


def test_a_float_added_into_float32_is_cast() -> None:
    dst = np.zeros(2, np.float32)
    regions.add_region(dst, 0, (), np.array([0.1]), 0, (), ())  # float64 into float32
    assert dst[0] == np.float32(0.1)


@settings(max_examples=budget(300))
@given(st.integers(1, 6), st.integers(0, 3), st.integers(0, 12), st.integers(8, 14))
def test_row_fill_is_as_array_s(n: int, step: int, offset: int, length: int) -> None:
    """fill_region's row (a buffer slice for a positive step) against as_array's view."""
    got = np.arange(length, dtype=np.float64)
    expected = got.copy()
    try:
        regions.as_array(expected, offset, (step,), (n,)).fill(-1.5)
    except (ValueError, TypeError) as exc:
        with pytest.raises(type(exc)):
            regions.fill_region(got, offset, (step,), (n,), -1.5)
        return
    regions.fill_region(got, offset, (step,), (n,), -1.5)
    assert got.tobytes() == expected.tobytes()


@settings(max_examples=budget(300))
@given(st.integers(1, 5), st.integers(1, 5), st.integers(1, 8), st.integers(0, 20), st.integers(0, 4),
       st.sampled_from([np.float64, np.float32]))
def test_block_add_is_the_general_one(n0: int, n1: int, width: int, offset: int, src_offset: int,
                                      dtype: type) -> None:
    """add_region of a 2-D block from a contiguous source (reshaped rows) against NumPy on
    as_array's views; a region past the buffer raises as before."""
    dst = np.arange(40, dtype=dtype) / 7
    src = (np.arange(40, dtype=dtype) - 3) * np.array(1.5, dtype)
    src[2] = np.inf
    dst[5] = -np.inf
    expected = dst.copy()
    try:
        out = regions.as_array(expected, offset, (width, 1), (n0, n1))
        with np.errstate(all="ignore"):
            np.add(out, regions.as_array(src, src_offset, (n1, 1), (n0, n1)), out=out)
    except (ValueError, TypeError) as exc:
        with pytest.raises(type(exc)):
            regions.add_region(dst.copy(), offset, (width, 1), src, src_offset, (n1, 1), (n0, n1))
        return
    got = dst.copy()
    regions.add_region(got, offset, (width, 1), src, src_offset, (n1, 1), (n0, n1))
    assert got.tobytes() == expected.tobytes()


_NANS = [struct.unpack("d", struct.pack("Q", q))[0] for q in (
    0x7FF8000000000000, 0xFFF8000000000000, 0x7FF8000000000001, 0xFFF8000000000001,
    0x7FF0000000000001, 0x7FF4000000000000)]


def test_one_element_add_of_two_nans_keeps_numpys_payload() -> None:
    """Which nan ``a + b`` returns for two nans depends on the order the machine code adds
    them in, and CPython's float addition is compiled twice (the generic one, and the one
    its specializing interpreter switches to after a few runs of a line): repeated here so
    both run. A nan sum goes to NumPy's loop, as the slice path's."""
    for _ in range(20):
        for a in _NANS:
            for b in _NANS:
                dst, src = np.array([1.0, a]), np.array([b, 2.0])
                expected = dst.copy()
                with np.errstate(all="ignore"):
                    np.add(expected[1:2], src[0:1], out=expected[1:2])
                regions.add_region(dst, 1, (), src, 0, (), ())
                assert dst.tobytes() == expected.tobytes(), (hex(dst.view(np.uint64)[1]), a, b)
