"""prod (with zeros), var/std (correction, unbiased, dims, keepdim), var_mean/std_mean,
argmax/argmin, any/all, count_nonzero, median/nanmedian, kthvalue, nansum/nanmean, aminmax
against PyTorch: values, gradients, second derivatives, errors, numerical checks, Hypothesis."""

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

pytestmark = pytest.mark.filterwarnings("ignore:.*degrees of freedom is <= 0:UserWarning")

RNG = np.random.default_rng(5)
X = RNG.standard_normal((3, 4))
X3 = RNG.standard_normal((2, 3, 4))
X32 = RNG.standard_normal((3, 4)).astype(np.float32)
Z1 = np.array([[2.0, 0.0, 3.0, -1.5], [1.5, -2.0, 0.5, 4.0], [0.0, 1.0, 0.0, 3.0]])
Z2 = np.array([[0.0, 0.0, 3.0], [1.0, 2.0, 3.0]])
CONST = np.array([[2.0, 2.0, 2.0], [1.0, -1.0, 0.5]])
ODD = RNG.permutation(15).reshape(3, 5) / 3.0  # distinct: medians are unambiguous
TIES = np.array([[1.0, 3.0, 3.0, -1.0], [2.0, 2.0, 0.0, 2.0], [5.0, 5.0, 5.0, 5.0]])
NAN = np.array([[1.0, np.nan, 3.0, 0.5], [0.0, 2.0, 2.5, -1.0], [np.nan, np.nan, np.nan, np.nan]])
A0 = np.array(1.5)
E = np.zeros((0, 3))
IX = np.array([[3, 0, -2, 5], [0, 0, 1, 1]])
B = np.array([[True, False], [True, True], [False, False]])

CASES = {
    # prod
    "prod": (lambda L, x: x.prod(), X),
    "prod_dim": (lambda L, x: x.prod(1), X),
    "prod_keepdim": (lambda L, x: L.prod(x, -1, keepdim=True), X3),
    "prod_one_zero": (lambda L, x: x.prod(1), Z1),
    "prod_zeros_dim0": (lambda L, x: x.prod(0), Z1),
    "prod_all_with_zero": (lambda L, x: x.prod(), Z1[:2]),
    "prod_all_two_zeros": (lambda L, x: x.prod(), Z2),
    "prod_two_zeros_dim": (lambda L, x: x.prod(1), Z2),
    "prod_0d": (lambda L, x: x.prod(), A0),
    "prod_0d_dim": (lambda L, x: x.prod(0), A0),
    "prod_empty": (lambda L, x: x.prod(0), E),
    "prod_int": (lambda L, x: x.prod(1), IX),
    "prod_bool": (lambda L, x: x.prod(), B),
    "prod_dtype": (lambda L, x: x.prod(1, dtype=L.float64), X32),
    # var / std
    "var": (lambda L, x: x.var(), X),
    "var_dim": (lambda L, x: x.var(1), X),
    "var_dims_keepdim": (lambda L, x: L.var(x, (0, 2), keepdim=True), X3),
    "var_unbiased_false": (lambda L, x: x.var(0, unbiased=False), X),
    "var_unbiased_positional": (lambda L, x: x.var(1, False, True), X),
    "var_bool_overload": (lambda L, x: x.var(False), X),
    "var_correction": (lambda L, x: x.var(1, correction=2), X),
    "var_correction0": (lambda L, x: L.var(x, correction=0), X3),
    "var_single": (lambda L, x: x.var(0), X[:1]),
    "var_f32": (lambda L, x: x.var(1), X32),
    "std": (lambda L, x: x.std(), X),
    "std_dim": (lambda L, x: L.std(x, -1), X3),
    "std_const_rows": (lambda L, x: x.std(1), CONST),
    "std_correction0_keepdim": (lambda L, x: x.std(0, correction=0, keepdim=True), X),
    "var_mean": (lambda L, x: L.var_mean(x, 1), X),
    "std_mean": (lambda L, x: L.std_mean(x, (0, 1), keepdim=True), X3),
    "std_mean_all": (lambda L, x: L.std_mean(x), X),
    # arg / logical / counts
    "argmax": (lambda L, x: x.argmax(), X),
    "argmax_dim": (lambda L, x: x.argmax(1), TIES),
    "argmin_dim_keepdim": (lambda L, x: L.argmin(x, 0, keepdim=True), TIES),
    "argmax_nan": (lambda L, x: x.argmax(1), NAN),
    "argmin_nan": (lambda L, x: x.argmin(1), NAN),
    "argmax_keepdim_all": (lambda L, x: x.argmax(keepdim=True), X3),
    "argmax_int": (lambda L, x: x.argmax(0), IX),
    "argmax_0d": (lambda L, x: x.argmax(), A0),
    "any": (lambda L, x: x.any(), B),
    "any_dim": (lambda L, x: x.any(1), B),
    "all_dim_keepdim": (lambda L, x: L.all(x, 0, keepdim=True), B),
    "any_float": (lambda L, x: (x * 0).any(), X),
    "all_int_dim": (lambda L, x: x.all(-1), IX),
    "all_empty": (lambda L, x: x.all(), E),
    "any_tuple_dim": (lambda L, x: x.any((0, 2)), X3 > 0),
    "count_nonzero": (lambda L, x: x.count_nonzero(), Z1),
    "count_nonzero_dim": (lambda L, x: L.count_nonzero(x, 0), IX),
    "count_nonzero_dims": (lambda L, x: x.count_nonzero((0, 1)), X3 > 0),
    # median / nanmedian / kthvalue
    "median": (lambda L, x: x.median(), ODD),
    "median_even": (lambda L, x: x.median(), X),
    "median_ties": (lambda L, x: x.median(), TIES),
    "median_nan": (lambda L, x: x.median(), NAN),
    "median_dim": (lambda L, x: x.median(1), ODD),
    "median_dim_even": (lambda L, x: L.median(x, 0, keepdim=True), ODD[:, :4].T.copy()),
    "median_dim_nan": (lambda L, x: x.median(1), NAN[:2]),
    "median_int": (lambda L, x: x.median(), IX),
    "median_0d": (lambda L, x: x.median(0), A0),
    "median_empty": (lambda L, x: x.median(), E),
    "nanmedian": (lambda L, x: x.nanmedian(), NAN),
    "nanmedian_dim": (lambda L, x: L.nanmedian(x, 1), NAN[:2]),
    "kthvalue": (lambda L, x: x.kthvalue(2), ODD),
    "kthvalue_dim0": (lambda L, x: L.kthvalue(x, 3, 0, True), ODD),
    "kthvalue_last": (lambda L, x: x.kthvalue(5, 1), ODD),
    # nan-aware, aminmax
    "nansum": (lambda L, x: x.nansum(), NAN),
    "nansum_dim": (lambda L, x: L.nansum(x, 1), NAN),
    "nanmean": (lambda L, x: x.nanmean(), NAN[:2]),
    "nanmean_dim": (lambda L, x: L.nanmean(x, 0, keepdim=True), NAN[:2]),
    "aminmax": (lambda L, x: L.aminmax(x), X),
    "aminmax_dim": (lambda L, x: x.aminmax(dim=1, keepdim=True), X),
}

FIRST_ORDER_ONLY = {"prod_all_two_zeros", "prod_two_zeros_dim"}  # see test below


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_pytorch(name):
    program, *arrays = CASES[name]
    check(program, *arrays, double=name not in FIRST_ORDER_ONLY)


def test_prod_two_zeros_second_derivative():
    """With two zeros the first gradient is zero but the second is not (the product of the
    others, pairwise): PyTorch gets it from its differentiable path; so does jitgrad."""
    check(lambda L, x: x.prod(), Z2[:1].copy())
    check(lambda L, x: x.prod(1), Z2)


def test_median_dim_named_tuple():
    r = jitgrad.tensor([[3.0, 1.0, 2.0]]).median(1)
    assert r.values.tolist() == [2.0] and r.indices.tolist() == [2]
    assert type(r).__name__ == "median"


ERRORS = {
    "prod_bad_dim": (lambda L, x: x.prod(2), X),
    "var_int": (lambda L, x: x.var(), IX),
    "std_bad_dim": (lambda L, x: x.std(3), X),
    "var_dup_dim": (lambda L, x: x.var((0, 0)), X),
    "argmax_empty": (lambda L, x: x.argmax(), E),
    "argmax_empty_dim": (lambda L, x: x.argmax(0), E),
    "argmin_bad_dim": (lambda L, x: x.argmin(2), X),
    "any_bad_dim": (lambda L, x: x.any(2), B),
    "median_empty_dim": (lambda L, x: x.median(0), E),
    "median_bad_dim": (lambda L, x: x.median(2), X),
    "kthvalue_k_too_big": (lambda L, x: x.kthvalue(5), X),
    "kthvalue_k_zero": (lambda L, x: x.kthvalue(0), X),
    "nanmean_int": (lambda L, x: x.nanmean(), IX),
    "count_nonzero_bad_dim": (lambda L, x: x.count_nonzero(4), X),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name):
    program, *arrays = ERRORS[name]
    exc = check_error(program, *arrays)
    assert name.split("_")[0] in str(exc), exc


NUMERICAL = {
    "prod": lambda x: x.prod(1),
    "prod_all": lambda x: x.prod(),
    "var": lambda x: x.var(0),
    "std": lambda x: x.std(1, correction=0),
    "median_dim": lambda x: x.median(1).values,
    "kthvalue": lambda x: x.kthvalue(2, 0).values,
    "nanmean": lambda x: x.nanmean(1),
}


@pytest.mark.parametrize("name", sorted(NUMERICAL))
def test_gradcheck(name):
    x = jitgrad.from_numpy(ODD[:, :4].copy()).requires_grad_(True)
    assert gradcheck(NUMERICAL[name], (x,))
    assert gradgradcheck(NUMERICAL[name], (x,))


@settings(max_examples=budget(30), deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.integers(0, 2**16), st.data())
def test_reductions_hypothesis(shape, seed, data):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    x[rng.random(shape) < 0.2] = 0.0
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    keepdim = data.draw(st.booleans())
    correction = data.draw(st.sampled_from([0, 1, 2]))
    check(lambda L, a: a.prod(dim, keepdim=keepdim), x)
    check(lambda L, a: a.var(dim, keepdim=keepdim, correction=correction), x)
    check(lambda L, a: (a.argmax(dim), a.any(dim), a.count_nonzero(dim)), x)
