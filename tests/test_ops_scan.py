"""Scans (cumsum, cumprod with zeros, cummax/cummin ties and nan, logcumsumexp) and
cumsum_/cumprod_ against PyTorch: values, gradients, second derivatives, errors, numerical
checks, Hypothesis."""

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

RNG = np.random.default_rng(11)
X = RNG.standard_normal((3, 5))
X3 = RNG.standard_normal((2, 3, 4))
X32 = RNG.standard_normal((4, 3)).astype(np.float32)
Z1 = np.array([[2.0, 0.0, 3.0, -1.5, 0.5], [1.5, -2.0, 0.0, 0.0, 4.0], [0.0, 1.0, 2.0, 3.0, 0.5]])
Z0 = np.array([0.0, 2.0, -1.0])
TIES = np.array([[1.0, 3.0, 2.0, 3.0, 5.0], [2.0, 2.0, 2.0, 1.0, 1.0]])
NAN = np.array([[1.0, np.nan, 3.0, 0.0], [4.0, 2.0, np.nan, 9.0]])
BIG = np.array([[1000.0, 999.0, -1000.0, 2.0], [-np.inf, 0.0, 1.0, -np.inf]])
A0 = np.array(1.5)
E = np.zeros((0, 3))
IX = (np.arange(12).reshape(3, 4) % 5) - 2
B = np.array([True, False, True, True])

CASES = {
    "cumsum": (lambda L, x: x.cumsum(1), X),
    "cumsum_dim0": (lambda L, x: L.cumsum(x, 0), X),
    "cumsum_neg": (lambda L, x: x.cumsum(-2), X3),
    "cumsum_0d": (lambda L, x: x.cumsum(0), A0),
    "cumsum_empty": (lambda L, x: x.cumsum(0), E),
    "cumsum_int": (lambda L, x: x.cumsum(1), IX),
    "cumsum_bool": (lambda L, x: x.cumsum(0), B),
    "cumsum_dtype": (lambda L, x: x.cumsum(0, dtype=L.float64), X32),
    "cumsum_f32": (lambda L, x: x.cumsum(0), X32),
    "cumprod": (lambda L, x: x.cumprod(1), X),
    "cumprod_dim0": (lambda L, x: L.cumprod(x, 0), X3),
    "cumprod_zeros": (lambda L, x: x.cumprod(1), Z1),
    "cumprod_zeros_dim0": (lambda L, x: x.cumprod(0), Z1),
    "cumprod_leading_zero": (lambda L, x: x.cumprod(0), Z0),
    "cumprod_0d": (lambda L, x: x.cumprod(0), A0),
    "cumprod_int": (lambda L, x: x.cumprod(1), IX),
    "cummax": (lambda L, x: x.cummax(1), X),
    "cummax_ties": (lambda L, x: L.cummax(x, 1), TIES),
    "cummin_ties": (lambda L, x: x.cummin(1), TIES),
    "cummax_nan": (lambda L, x: x.cummax(1), NAN),
    "cummin_nan": (lambda L, x: x.cummin(1), NAN),
    "cummax_dim0": (lambda L, x: x.cummax(0), X3),
    "cummax_0d": (lambda L, x: x.cummax(0), A0),
    "cummax_int": (lambda L, x: x.cummax(1), IX),
    "cummax_empty": (lambda L, x: x.cummax(0), E),
    "logcumsumexp": (lambda L, x: x.logcumsumexp(1), X),
    "logcumsumexp_big": (lambda L, x: L.logcumsumexp(x, 1), BIG[:1]),
    "logcumsumexp_dim0": (lambda L, x: x.logcumsumexp(0), X3),
    # in place
    "cumsum_": (lambda L, x: (x * 1).cumsum_(1), X),
    "cumsum_view": (lambda L, x: _through_view(x, lambda v: v.cumsum_(1)), X),
    "cumprod_": (lambda L, x: (x * 1).cumprod_(1), Z1),
    "cumprod_view": (lambda L, x: _through_view(x, lambda v: v.cumprod_(0)), Z1),
    # compositions
    "cumsum_of_transpose": (lambda L, x: x.t().cumsum(1).cumprod(0), X),
}


def _through_view(x, write):
    b = x * 1.0
    write(b[:, 1:4])
    return b


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_pytorch(name):
    program, *arrays = CASES[name]
    # float32 gradients summed into float64 ones: one float32 rounding apart from PyTorch
    check(program, *arrays, rtol=1e-6 if name == "cumsum_dtype" else None)


def test_cummax_returns_named_tuple_of_last_tie():
    x = jitgrad.tensor([1.0, 3.0, 3.0, 2.0])
    r = x.cummax(0)
    assert r.values.tolist() == [1.0, 3.0, 3.0, 3.0]
    assert r.indices.tolist() == [0, 1, 2, 2] == torch.tensor([1.0, 3.0, 3.0, 2.0]).cummax(0).indices.tolist()


def test_cumprod_with_two_zeros_second_derivative_is_finite():
    x = jitgrad.tensor([2.0, 0.0, 3.0, 0.0, 5.0], dtype=jitgrad.float64, requires_grad=True)
    (g,) = jitgrad.autograd.grad(x.cumprod(0).sum(), (x,), create_graph=True)
    (gg,) = jitgrad.autograd.grad(g.sum(), (x,))
    assert np.isfinite(gg.detach().numpy()).all()


ERRORS = {
    "cumsum_bad_dim": (lambda L, x: x.cumsum(2), X),
    "cumsum_no_dim": (lambda L, x: x.cumsum(), X),
    "cumprod_bad_dim": (lambda L, x: x.cumprod(-3), X),
    "cummax_bad_dim": (lambda L, x: x.cummax(5), X),
    "logcumsumexp_bad_dim": (lambda L, x: x.logcumsumexp(2), X),
    "cumsum_leaf_inplace": (lambda L, x: x.cumsum_(0), X),
    "cumprod_leaf_inplace": (lambda L, x: x.cumprod_(0), X),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name):
    program, *arrays = ERRORS[name]
    exc = check_error(program, *arrays)
    if "no_dim" not in name:
        assert name.split("_")[0] in str(exc), exc


NUMERICAL = {
    "cumsum": lambda x: x.cumsum(1),
    "cumprod": lambda x: x.cumprod(1),
    "cumprod_zeros": lambda x: (x * jitgrad.from_numpy((Z1 != 0).astype(np.float64))).cumprod(1),
    "cummax": lambda x: x.cummax(0).values,
    "cummin": lambda x: x.cummin(1).values * x,
    "logcumsumexp": lambda x: x.logcumsumexp(1),
}


@pytest.mark.parametrize("name", sorted(NUMERICAL))
def test_gradcheck(name):
    x = jitgrad.from_numpy(X.copy()).requires_grad_(True)
    assert gradcheck(NUMERICAL[name], (x,))
    assert gradgradcheck(NUMERICAL[name], (x,))


@settings(max_examples=budget(30), deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=3), st.integers(0, 2**16), st.data())
def test_scans_hypothesis(shape, seed, data):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    x[rng.random(shape) < 0.25] = 0.0  # zeros stress cumprod's backward
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    check(lambda L, a: a.cumsum(dim) + a.cumprod(dim), x)
    if x.size:
        check(lambda L, a: a.cummax(dim).values * a.logcumsumexp(dim), x)
