"""flip/fliplr/flipud, roll, rot90, repeat, tile, tril/triu (and in place), diag, diag_embed,
diagflat, trace, diff, narrow_copy against PyTorch: values, gradients, second derivatives,
errors, numerical checks, Hypothesis."""

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

RNG = np.random.default_rng(9)
X = RNG.standard_normal((3, 4))
X3 = RNG.standard_normal((2, 3, 4))
V = RNG.standard_normal(4)
A0 = np.array(1.5)
E = np.zeros((0, 3))
IX = np.arange(12).reshape(3, 4) - 4
B = np.array([True, False, False, True, True])
INF = np.array([[1.0, np.inf], [-np.inf, 2.0]])

CASES = {
    "flip": (lambda L, x: x.flip(0), X),
    "flip_dims": (lambda L, x: L.flip(x, (0, 2)), X3),
    "flip_varargs": (lambda L, x: x.flip(-1, 0), X3),
    "flip_empty_dims": (lambda L, x: L.flip(x, ()), X),
    "flip_int": (lambda L, x: x.flip(1), IX),
    "fliplr": (lambda L, x: x.fliplr(), X),
    "flipud": (lambda L, x: L.flipud(x), X3),
    "roll": (lambda L, x: x.roll(1, 0), X),
    "roll_flat": (lambda L, x: L.roll(x, 5), X),
    "roll_multi": (lambda L, x: x.roll((1, -2), (0, 2)), X3),
    "roll_negative_big": (lambda L, x: x.roll(-7, 1), X),
    "rot90": (lambda L, x: x.rot90(), X),
    "rot90_k2": (lambda L, x: L.rot90(x, 2, (1, 2)), X3),
    "rot90_k3": (lambda L, x: x.rot90(3, (0, 1)), X),
    "rot90_k_neg": (lambda L, x: x.rot90(-1, (1, 0)), X),
    "rot90_k0": (lambda L, x: x.rot90(0), X),
    "repeat": (lambda L, x: x.repeat(2, 3), X),
    "repeat_new_dims": (lambda L, x: x.repeat(2, 1, 2), X),
    "repeat_tuple": (lambda L, x: x.repeat((1, 1)), X),
    "repeat_zero": (lambda L, x: x.repeat(0, 2), X),
    "repeat_0d": (lambda L, x: x.repeat(3), A0),
    "repeat_int": (lambda L, x: x.repeat(2, 1), IX),
    "tile": (lambda L, x: x.tile(2), X),
    "tile_more": (lambda L, x: L.tile(x, (2, 1, 2)), X),
    "tril": (lambda L, x: x.tril(), X),
    "tril_k": (lambda L, x: L.tril(x, -1), X3),
    "triu": (lambda L, x: x.triu(1), X),
    "triu_neg": (lambda L, x: L.triu(x, -2), X3),
    "triu_inf": (lambda L, x: x.triu(), INF),
    "tril_int": (lambda L, x: x.tril(), IX),
    "tril_": (lambda L, x: (x * 1).tril_(), X),
    "triu_view": (lambda L, x: _through_view(x, lambda v: v.triu_(1)), X3),
    "diag_1d": (lambda L, x: x.diag(), V),
    "diag_1d_offset": (lambda L, x: L.diag(x, -2), V),
    "diag_2d": (lambda L, x: x.diag(), X),
    "diag_2d_offset": (lambda L, x: x.diag(2), X),
    "diag_2d_neg": (lambda L, x: L.diag(x, -1), X),
    "diag_embed": (lambda L, x: x.diag_embed(), X),
    "diag_embed_dims": (lambda L, x: L.diag_embed(x, 1, 0, 2), X),
    "diagflat": (lambda L, x: x.diagflat(), X),
    "diagflat_offset": (lambda L, x: L.diagflat(x, -1), V),
    "trace": (lambda L, x: x.trace(), X),
    "trace_int": (lambda L, x: L.trace(x), IX),
    "diff": (lambda L, x: x.diff(), X),
    "diff_n2_dim0": (lambda L, x: L.diff(x, 2, 0), X3),
    "diff_prepend_append": (lambda L, x, p: x.diff(dim=1, prepend=p, append=p * 2), X, X[:, :2].copy()),
    "diff_big_n": (lambda L, x: x.diff(5), X),
    "diff_bool": (lambda L, x: x.diff(), B),
    "diff_int": (lambda L, x: x.diff(dim=0), IX),
    "narrow_copy": (lambda L, x: x.narrow_copy(1, 1, 2), X),
    "flip_roll_chain": (lambda L, x: x.t().flip(0).roll(1, 1).repeat(1, 2).tril(), X),
}


def _through_view(x, write):
    b = x * 1.0
    write(b[:, 1:])
    return b


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_pytorch(name):
    program, *arrays = CASES[name]
    check(program, *arrays)


def test_results_are_copies():
    x = jitgrad.from_numpy(X.copy())
    for y in (x.repeat(1, 1), x.tile(1), x.flip(()), x.rot90(0), x.diff(0), x.narrow_copy(0, 0, 3)):
        assert y._storage is not x._storage


ERRORS = {
    "flip_dup": (lambda L, x: x.flip(0, -2), X),
    "flip_bad_dim": (lambda L, x: x.flip(2), X),
    "fliplr_1d": (lambda L, x: x.fliplr(), V),
    "roll_mismatch": (lambda L, x: x.roll((1, 2), 0), X),
    "roll_bad_dim": (lambda L, x: x.roll(1, 3), X),
    "rot90_same_dims": (lambda L, x: x.rot90(1, (0, 0)), X),
    "rot90_1d": (lambda L, x: x.rot90(), V),
    "repeat_too_few": (lambda L, x: x.repeat(2), X),
    "repeat_negative": (lambda L, x: x.repeat(-1, 2), X),
    "tril_1d": (lambda L, x: x.tril(), V),
    "triu_leaf_inplace": (lambda L, x: x.triu_(), X),
    "diag_3d": (lambda L, x: x.diag(), X3),
    "diag_embed_same_dims": (lambda L, x: x.diag_embed(0, 1, 1), X),
    "trace_3d": (lambda L, x: x.trace(), X3),
    "diff_0d": (lambda L, x: x.diff(), A0),
    "diff_negative_n": (lambda L, x: x.diff(-1), X),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name):
    program, *arrays = ERRORS[name]
    exc = check_error(program, *arrays)
    assert name.split("_")[0] in str(exc), exc


NUMERICAL = {
    "flip": lambda x: x.flip(1) * x,
    "roll": lambda x: x.roll(2, 1) * x,
    "repeat": lambda x: x.repeat(2, 2) ** 2,
    "tril": lambda x: x.tril(1) * x,
    "diag": lambda x: x.diag().diag() * x[:3, :3],
    "trace": lambda x: (x[:, :3] * x[:, :3]).trace(),
    "diff": lambda x: x.diff(2) ** 2,
}


@pytest.mark.parametrize("name", sorted(NUMERICAL))
def test_gradcheck(name):
    x = jitgrad.from_numpy(X.copy()).requires_grad_(True)
    assert gradcheck(NUMERICAL[name], (x,))
    assert gradgradcheck(NUMERICAL[name], (x,))


@settings(max_examples=budget(30), deadline=None)
@given(st.lists(st.integers(0, 4), min_size=2, max_size=3), st.integers(0, 2**16), st.data())
def test_shape_ops_hypothesis(shape, seed, data):
    x = np.random.default_rng(seed).standard_normal(shape)
    nd = len(shape)
    dims = data.draw(st.lists(st.integers(0, nd - 1), unique=True, max_size=nd))
    shift = data.draw(st.integers(-5, 5))
    reps = data.draw(st.lists(st.integers(0, 3), min_size=nd, max_size=nd + 1))
    k = data.draw(st.integers(-3, 3))
    check(lambda L, a: a.flip(dims).roll(shift, nd - 1), x)
    check(lambda L, a: a.repeat(*reps), x)
    check(lambda L, a: a.tril(k) + a.triu(-k), x)
