"""Exact overlap tests against enumerating every offset."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import naive
from conftest import budget
from jitgrad.kernels import has_internal_overlap, regions_overlap, shared_only_at_same_index
from jitgrad.kernels import overlap as overlap_mod
from kernel_strategies import any_strides, sizes_st


def test_documented_examples():
    assert not has_internal_overlap((3, 2), (2, 3))  # offsets 0,3,2,5,4,7
    assert not has_internal_overlap((3, 3), (2, 3))
    assert has_internal_overlap((4, 3), (2, 3))      # 3*2 == 2*3
    assert not has_internal_overlap((0, 5), (0, 0))
    assert has_internal_overlap((2,), (0,))
    assert not has_internal_overlap((), ())
    assert not regions_overlap(0, (3,), (2,), 1, (3,), (2,))   # evens vs odds
    assert regions_overlap(0, (3,), (2,), 4, (2,), (1,))
    assert not regions_overlap(0, (4,), (1,), 4, (4,), (1,))   # adjacent ranges


@settings(max_examples=budget(400), deadline=None)
@given(data=st.data(), sizes=sizes_st)
def test_internal_overlap_is_exact(data, sizes):
    strides = data.draw(any_strides(sizes))
    assert has_internal_overlap(sizes, strides) == naive.has_internal_overlap(sizes, strides)


@settings(max_examples=budget(400), deadline=None)
@given(data=st.data(), a_sizes=sizes_st, b_sizes=sizes_st,
       a_off=st.integers(0, 12), b_off=st.integers(0, 12))
def test_regions_overlap_is_exact(data, a_sizes, b_sizes, a_off, b_off):
    a_strides = data.draw(any_strides(a_sizes))
    b_strides = data.draw(any_strides(b_sizes))
    got = regions_overlap(a_off, a_sizes, a_strides, b_off, b_sizes, b_strides)
    assert got == naive.regions_overlap(a_off, a_sizes, a_strides, b_off, b_sizes, b_strides)


def test_shared_only_at_same_index_examples():
    # x (4 x 4): the column x[:, 0] and the row x[0] share x[0, 0], index 0 of both
    assert shared_only_at_same_index(0, (4,), 0, (1,), (4,))
    # x[1:] and x[:-1] of a vector: element 1 is written at index 0 and read at index 1
    assert not shared_only_at_same_index(1, (1,), 0, (1,), (3,))
    assert shared_only_at_same_index(0, (5,), 1, (5,), (3,))            # nothing shared
    assert shared_only_at_same_index(0, (4, 1), 0, (4, 1), (2, 2))      # the same geometry
    assert not shared_only_at_same_index(0, (1, 4), 0, (4, 1), (2, 2))  # a transpose


@settings(max_examples=budget(300), deadline=None)
@given(data=st.data(), sizes=sizes_st, a_off=st.integers(0, 8), b_off=st.integers(0, 8))
def test_shared_only_at_same_index_is_exact(data, sizes, a_off, b_off):
    a_strides = data.draw(any_strides(sizes))
    b_strides = data.draw(any_strides(sizes))
    if has_internal_overlap(sizes, a_strides):
        return  # (a destination never aliases itself here: check_inplace refused it first)
    got = shared_only_at_same_index(a_off, a_strides, b_off, b_strides, sizes)
    assert got == naive.shared_only_at_same_index(a_off, a_strides, b_off, b_strides, sizes)


@pytest.mark.parametrize("bitmap_limit", [4])
def test_sorted_fallback_when_span_exceeds_bitmap(monkeypatch, bitmap_limit):
    monkeypatch.setattr(overlap_mod, "_BITMAP_LIMIT", bitmap_limit)
    assert not has_internal_overlap((3, 2), (2, 3))
    assert has_internal_overlap((4, 3), (2, 3))
    assert not regions_overlap(0, (3, 2), (2, 3), 1, (4,), (5,))  # {0,2,3,4,5,7} vs {1,6,11,16}
    assert regions_overlap(0, (3, 2), (2, 3), 1, (4,), (6,))      # ... vs {1,7,13,19}
    assert not regions_overlap(0, (3,), (2,), 1, (3,), (2,))


def test_absurd_geometries_do_not_allocate():
    assert has_internal_overlap((2**40, 2**40), (1, 1))       # pigeonhole
    assert not has_internal_overlap((2**40, 2), (2**41, 1))    # fast path
    with pytest.raises(ValueError, match="has_internal_overlap: .* too large"):
        has_internal_overlap((2**20, 2**20, 3), (2**21 + 5, 3, 2**41 + 1))
    with pytest.raises(ValueError, match="regions_overlap: .* too large"):
        regions_overlap(0, (2**40,), (3,), 1, (2**40,), (2,))


@pytest.mark.parametrize("args,exc", [
    (((-1,), (1,)), ValueError), (((2,), (-1,)), ValueError), (((2,), (1, 1)), ValueError),
    (((2.0,), (1,)), TypeError), (((True,), (1,)), TypeError), ((None, (1,)), TypeError),
])
def test_internal_overlap_rejects_bad_arguments(args, exc):
    with pytest.raises(exc, match="has_internal_overlap"):
        has_internal_overlap(*args)


def test_regions_overlap_rejects_bad_arguments():
    with pytest.raises(ValueError, match="regions_overlap: offsets"):
        regions_overlap(-1, (2,), (1,), 0, (2,), (1,))
    with pytest.raises(TypeError, match="regions_overlap: a_offset"):
        regions_overlap(1.0, (2,), (1,), 0, (2,), (1,))
