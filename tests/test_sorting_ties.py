"""Ties in PyTorch's CPU order, side by side: ``sort``/``argsort``/``msort`` without
``stable`` (the C++ library's introsort; a stable radix sort for long 1-D integers ascending),
``topk`` (partial sort, or nth_element then sort, by ``k`` against the length, with
``largest`` and ``sorted``), ``kthvalue`` (PyTorch's quickselect) and ``mode`` (the library's
sort, then runs): indices equal bit for bit, over lines with many ties, nan, several dims and
dtypes (Hypothesis)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from jitgrad.kernels import _select_jit

_DTYPES = ["float64", "float32", "int64", "int32", "int16", "uint8"]


def _data(seed: int, shape: tuple[int, ...], distinct: int, dtype: str, nan: bool) -> np.ndarray:
    rng = np.random.default_rng(seed)
    data = rng.integers(0, distinct, shape).astype(np.float64)
    if nan and dtype.startswith("float"):
        data[rng.random(shape) < 0.15] = np.nan
    return data.astype(dtype)


def _same(program: Callable[[Any, Any], Any], data: np.ndarray) -> None:
    theirs = program(torch, torch.from_numpy(data.copy()))
    ours = program(jitgrad, jitgrad.tensor(data))
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]


_SHAPES = st.sampled_from([(1, 5), (3, 17), (2, 40), (4, 130), (2, 3, 70), (700,), (5, 9, 3)])


@settings(max_examples=80, deadline=None)
@given(shape=_SHAPES, distinct=st.integers(1, 6), dtype=st.sampled_from(_DTYPES), nan=st.booleans(),
       seed=st.integers(0, 2**32 - 1), descending=st.booleans(), data=st.data())
def test_sort_and_argsort_order_ties_as_pytorch(shape, distinct, dtype, nan, seed, descending, data):
    x = _data(seed, shape, distinct, dtype, nan)
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    _same(lambda L, t: tuple(t.sort(dim=dim, descending=descending)), x)
    _same(lambda L, t: (L.argsort(t, dim, descending=descending),), x)
    _same(lambda L, t: (t.sort(dim=dim, descending=descending, stable=True).indices,), x)
    _same(lambda L, t: (L.msort(t),), x)


@settings(max_examples=80, deadline=None)
@given(shape=_SHAPES, distinct=st.integers(1, 6), dtype=st.sampled_from(_DTYPES), nan=st.booleans(),
       seed=st.integers(0, 2**32 - 1), largest=st.booleans(), ordered=st.booleans(), data=st.data())
def test_topk_picks_and_orders_ties_as_pytorch(shape, distinct, dtype, nan, seed, largest, ordered, data):
    x = _data(seed, shape, distinct, dtype, nan)
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    n = shape[dim]
    k = data.draw(st.sampled_from(sorted({0, 1, 2, n // 64, n // 3, n - 1, n} - {-1})))
    _same(lambda L, t: tuple(t.topk(k, dim, largest=largest, sorted=ordered)), x)


@settings(max_examples=60, deadline=None)
@given(shape=_SHAPES, distinct=st.integers(1, 6), dtype=st.sampled_from(_DTYPES), nan=st.booleans(),
       seed=st.integers(0, 2**32 - 1), data=st.data())
def test_kthvalue_and_mode_pick_ties_as_pytorch(shape, distinct, dtype, nan, seed, data):
    x = _data(seed, shape, distinct, dtype, nan)
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    k = data.draw(st.integers(1, shape[dim]))
    _same(lambda L, t: tuple(t.kthvalue(k, dim)), x)
    if not nan:  # (mode with nan: a deliberate difference, tests/test_mode_histogram.py)
        _same(lambda L, t: tuple(t.mode(dim)), x)


@pytest.mark.parametrize("dtype", ["int64", "int16", "float64"])
@pytest.mark.parametrize("descending", [False, True])
def test_long_one_d_sorts(dtype: str, descending: bool) -> None:
    """40000 elements: PyTorch's 1-D integer sort ascending is then a stable radix sort."""
    x = _data(9, (40000,), 50, dtype, False)
    _same(lambda L, t: tuple(t.sort(descending=descending)), x)


def test_gradients_follow_the_picked_ties() -> None:
    x = _data(3, (2, 90), 3, "float64", False)
    out = []
    for lib in (torch, jitgrad):
        t = lib.tensor(x, requires_grad=True)
        w = lib.arange(1.0, 4.0, dtype=lib.float64)
        (t.topk(3, 1, largest=False, sorted=False).values * w).sum().backward()
        (t.sort(1).values[:, :3] * w).sum().backward()
        t.kthvalue(40, 1).values.sum().backward()
        out.append(t.grad.numpy().copy())
    np.testing.assert_array_equal(out[0], out[1])


def test_kernel_sort_against_a_plain_reference() -> None:
    """The library's introsort, its heap-sort fallback and its insertion sort, checked against
    NumPy: the values come out sorted and the indices are a permutation."""
    rng = np.random.default_rng(11)
    for n in (1, 2, 16, 17, 100, 3000):
        rows = rng.integers(0, 4, (3, n)).astype(np.float64)
        out = np.zeros((3, n), np.int64)
        _select_jit.sort_rows(rows, False, out)
        np.testing.assert_array_equal(np.take_along_axis(rows, out, 1), np.sort(rows, 1))
        assert (np.sort(out, 1) == np.arange(n)).all()
