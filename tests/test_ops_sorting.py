"""sort (stable, descending, ties, nan), argsort, msort, topk, unique, searchsorted,
bucketize, nonzero against PyTorch: values, indices, gradients, second derivatives, errors,
Hypothesis."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from conftest import budget
from grad_oracle import check, check_error
from jitgrad.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(3)
X = RNG.standard_normal((3, 5))
X3 = RNG.standard_normal((2, 3, 4))
TIES = np.array([[1.0, 3.0, 3.0, -1.0, 3.0], [2.0, 2.0, 0.0, 2.0, 0.0]])
NAN = np.array([[1.0, np.nan, 3.0, np.nan, 0.5], [0.0, 2.0, -np.inf, np.inf, -1.0]])
A0 = np.array(1.5)
E = np.zeros((0, 3))
IX = np.array([[3, 0, -2, 5, 0], [0, 0, 1, 1, -7]])
SEQ = np.array([-1.0, 0.0, 0.0, 2.5, 4.0])
VALS = np.array([[-2.0, 0.0, 1.0], [4.0, 5.0, 2.5]])
SEQ2 = np.sort(RNG.standard_normal((2, 4)), axis=1)

CASES = {
    "sort": (lambda L, x: x.sort(), X),
    "sort_dim0": (lambda L, x: L.sort(x, 0), X),
    "sort_desc": (lambda L, x: x.sort(1, descending=True), X),
    "sort_ties": (lambda L, x: x.sort(dim=1, stable=True), TIES),
    "sort_ties_desc": (lambda L, x: x.sort(dim=1, descending=True, stable=True), TIES),
    "sort_nan": (lambda L, x: x.sort(1), NAN),
    "sort_nan_desc": (lambda L, x: x.sort(1, descending=True), NAN),
    "sort_3d": (lambda L, x: x.sort(-2), X3),
    "sort_int": (lambda L, x: x.sort(1), IX),
    "sort_0d": (lambda L, x: x.sort(), A0),
    "sort_empty": (lambda L, x: x.sort(0), E),
    "argsort": (lambda L, x: x.argsort(1), TIES),
    "argsort_desc": (lambda L, x: L.argsort(x, 0, descending=True), TIES),
    "msort": (lambda L, x: L.msort(x), X),
    "topk": (lambda L, x: x.topk(2), X),
    "topk_smallest": (lambda L, x: L.topk(x, 2, 0, largest=False), X3),
    "topk_dim0": (lambda L, x: x.topk(1, dim=0), X),
    "topk_zero": (lambda L, x: x.topk(0), X),
    "topk_nan": (lambda L, x: x.topk(2), NAN),
    "sort_then_sum": (lambda L, x: (x.sort(1).values * L.arange(5.0, dtype=L.float64)).sum(), X),
    "unique": (lambda L, x: L.unique(x), IX),
    "unique_inverse_counts": (lambda L, x: L.unique(x, return_inverse=True, return_counts=True), IX),
    "unique_float": (lambda L, x: x.detach().unique(), TIES),
    "unique_dim": (lambda L, x: L.unique(x, dim=1, return_inverse=True, return_counts=True), np.array([[1, 2, 1, 2], [3, 4, 3, 0]])),
    "searchsorted": (lambda L, s, v: L.searchsorted(s, v), SEQ, VALS),
    "searchsorted_right": (lambda L, s, v: L.searchsorted(s, v, right=True), SEQ, VALS),
    "searchsorted_side": (lambda L, s, v: L.searchsorted(s, v, side="right"), SEQ, VALS),
    "searchsorted_nd": (lambda L, s, v: L.searchsorted(s, v), SEQ2, VALS),
    "bucketize": (lambda L, v, s: L.bucketize(v, s), VALS, SEQ),
    "bucketize_right": (lambda L, v, s: L.bucketize(v, s, right=True), VALS, SEQ),
    "nonzero": (lambda L, x: x.nonzero(), IX),
    "nonzero_tuple": (lambda L, x: L.nonzero(x, as_tuple=True), IX),
    "nonzero_float": (lambda L, x: (x > 0).nonzero(), X3),
    "nonzero_0d": (lambda L, x: x.nonzero(), A0),
    "nonzero_0d_tuple": (lambda L, x: x.nonzero(as_tuple=True), A0),
    "nonzero_empty": (lambda L, x: x.nonzero(), E),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_pytorch(name):
    program, *arrays = CASES[name]
    check(program, *arrays)


def test_sort_named_tuple():
    r = jitgrad.tensor([3.0, 1.0, 2.0], requires_grad=True).sort()
    assert r.values is r[0] and r.indices is r[1]
    assert r.values.grad_fn is not None and r.indices.grad_fn is None
    assert r.indices.dtype == jitgrad.int64


def test_searchsorted_scalar_value():
    s = jitgrad.from_numpy(SEQ)
    assert jitgrad.searchsorted(s, 0.0).item() == torch.searchsorted(torch.from_numpy(SEQ), 0.0).item()


ERRORS = {
    "sort_bad_dim": (lambda L, x: x.sort(2), X),
    "topk_k_too_big": (lambda L, x: x.topk(6), X),
    "topk_bad_dim": (lambda L, x: x.topk(1, 3), X),
    "argsort_bad_dim": (lambda L, x: x.argsort(-3), X),
    "searchsorted_side_conflict": (lambda L, s, v: L.searchsorted(s, v, right=True, side="left"), SEQ, VALS),
    "searchsorted_shape": (lambda L, s, v: L.searchsorted(s, v), SEQ2, VALS[:1]),
    "unique_bad_dim": (lambda L, x: L.unique(x, dim=2), IX),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name):
    program, *arrays = ERRORS[name]
    exc = check_error(program, *arrays)
    assert name.split("_")[0] in str(exc), exc


def test_gradcheck_sort_topk():
    x = jitgrad.from_numpy(X.copy()).requires_grad_(True)
    for f in (lambda a: a.sort(1).values, lambda a: (a * a).topk(2, 0).values, lambda a: a.msort()):
        assert gradcheck(f, (x,))
        assert gradgradcheck(f, (x,))


@settings(max_examples=budget(40), deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=3), st.integers(0, 2**16), st.data())
def test_sort_hypothesis(shape, seed, data):
    rng = np.random.default_rng(seed)
    x = rng.integers(-2, 3, shape).astype(np.float64)  # many ties: the order must be stable
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    descending = data.draw(st.booleans())
    check(lambda L, a: a.sort(dim=dim, descending=descending, stable=True), x)
    k = data.draw(st.integers(0, shape[dim]))
    y = rng.permutation(x.size).reshape(shape).astype(np.float64)  # distinct: topk is unique
    check(lambda L, a: a.topk(k, dim, largest=descending), y)
