"""scatter_reduce (sum, prod, mean, amax, amin; include_self) and scatter_reduce_ against
PyTorch: values, gradients, second derivatives (ties share, zeros in prod), errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from conftest import budget
from grad_oracle import check, check_error
from jitgrad.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(21)
X = RNG.standard_normal((3, 4))
S = RNG.standard_normal((2, 4))
I = np.array([[0, 0, 1, 1], [0, 2, 1, 1]])
I1 = np.array([[3, 3, 0], [1, 2, 1], [0, 0, 0]])
S1 = RNG.standard_normal((3, 3))
Z = X.copy()
Z[0, 0] = 0.0
SZ = S.copy()
SZ[0, 2] = 0.0
TIE = X.copy()
TIE[0, 0] = max(S[0, 0], S[1, 0]) + 0.0  # self ties with the largest source at [0, 0]
STIE = S.copy()
STIE[1, 0] = STIE[0, 0]  # two sources tie
IX = np.arange(12).reshape(3, 4) - 5
SIX = np.array([[7, -2, 3, 0], [1, 9, -4, 4]])

REDUCES = ["sum", "prod", "mean", "amax", "amin"]


@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("include_self", [True, False])
def test_against_pytorch(reduce, include_self):
    check(lambda L, x, i, s: x.scatter_reduce(0, i, s, reduce, include_self=include_self), X, I, S)
    check(lambda L, x, i, s: L.scatter_reduce(x, 1, i, s, reduce, include_self=include_self), X, I1, S1)
    check(lambda L, x, i, s: x.scatter_reduce(0, i, s, reduce, include_self=include_self), IX, I, SIX)


def test_max_min_are_not_reductions():
    """PyTorch 2.13's forward takes "max" and "min" (its backward then refuses them);
    jitgrad refuses both up front."""
    x, i, s = jitgrad.from_numpy(X), jitgrad.from_numpy(I), jitgrad.from_numpy(S)
    for bad in ("max", "min"):
        with pytest.raises(RuntimeError, match=f"scatter_reduce.*'{bad}'"):
            x.scatter_reduce(0, i, s, bad)


@pytest.mark.parametrize("include_self", [True, False])
def test_prod_with_zeros(include_self):
    check(lambda L, x, i, s: x.scatter_reduce(0, i, s, "prod", include_self=include_self), Z, I, SZ)


@pytest.mark.parametrize("reduce", ["amax", "amin"])
def test_ties_share_the_gradient(reduce):
    check(lambda L, x, i, s: x.scatter_reduce(0, i, s, reduce), TIE, I, S)
    check(lambda L, x, i, s: x.scatter_reduce(0, i, s, reduce, include_self=False), X, I, STIE)


def test_inplace_through_view():
    def program(L, x, i, s):
        b = x * 1.0
        b[:, 1:].scatter_reduce_(0, i[:, :3], s[:, :3], "amax")
        return b

    check(program, X, I, S)


ERRORS = {
    "scatter_reduce_bad_reduce": (lambda L, x, i, s: x.scatter_reduce(0, i, s, "maximum"), X, I, S),
    "scatter_reduce_0d_index": (lambda L, x, i, s: x.scatter_reduce(0, i, s, "sum"), X, np.array(0), S),
    "scatter_reduce_oob": (lambda L, x, i, s: x.scatter_reduce(0, i, s, "sum"), X, I + 3, S),
    "scatter_reduce_dtype": (lambda L, x, i, s: x.scatter_reduce(0, i, s, "sum"), X, I, SIX),
    "scatter_reduce_leaf_inplace": (lambda L, x, i, s: x.scatter_reduce_(0, i, s, "sum"), X, I, S),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name):
    program, *arrays = ERRORS[name]
    exc = check_error(program, *arrays)
    assert "scatter_reduce" in str(exc), exc


@pytest.mark.parametrize("reduce", REDUCES)
def test_gradcheck(reduce):
    x = jitgrad.from_numpy(X.copy()).requires_grad_(True)
    s = jitgrad.from_numpy(S.copy()).requires_grad_(True)
    i = jitgrad.from_numpy(I)
    assert gradcheck(lambda a, b: a.scatter_reduce(0, i, b, reduce), (x, s))
    assert gradgradcheck(lambda a, b: a.scatter_reduce(0, i, b, reduce, include_self=False), (x, s))


@settings(max_examples=budget(30), deadline=None)
@given(st.integers(1, 4), st.integers(1, 4), st.integers(0, 2**16), st.sampled_from(REDUCES), st.booleans())
def test_scatter_reduce_hypothesis(rows, cols, seed, reduce, include_self):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((rows, cols))
    irows = int(rng.integers(0, 4))
    index = rng.integers(0, rows, (irows, cols))
    src = rng.standard_normal((irows, cols))
    check(lambda L, a, i, s: a.scatter_reduce(0, i, s, reduce, include_self=include_self), x, index, src)
