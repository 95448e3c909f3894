"""``lgamma``, ``digamma``, ``polygamma`` (and ``special.gammaln``/``digamma``/``psi``/
``polygamma``): values against PyTorch and against mpmath (50 digits), gradients and
gradients of gradients against PyTorch, gradcheck/gradgradcheck, poles, dtypes, errors.

PyTorch's ``trigamma``/``polygamma`` are accurate to ~1e-10 relative only (mpmath shows it),
so comparisons that go through them use rtol 1e-9; ours are checked to 1e-13 against mpmath.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import torch

import jitgrad
from grad_oracle import check, check_error
from jitgrad.autograd import gradcheck, gradgradcheck

mpmath.mp.dps = 50
XS = np.array([1e-8, 1e-3, 0.37, 0.5, 1.0, 1.5, 2.0, 2.2, 5.1, 9.99, 10.0, 12.0, 33.3, 1e3, 1e7,
               -0.7, -2.35, -7.7, -0.001, -10.5, -1e-3 - 3])


POS, NEG = XS[XS > 0], XS[XS < 0]


def _pole_scale(n, x):
    """How large the terms near the closest pole are: the float64 evaluation of a negative
    argument (reflection, recurrence) is good to round-off relative to this, not to the
    value (which may be much smaller: cancellation that any float64 algorithm meets)."""
    distance = np.abs(x - np.round(x))
    return math.factorial(max(n, 1)) / distance ** (n + 1)


def _mp(fn, x):
    return np.array([float(fn(mpmath.mpf(float(v)))) for v in x])


@pytest.mark.parametrize("name,ref", [
    ("lgamma", lambda v: mpmath.log(abs(mpmath.gamma(v)))),
    ("digamma", mpmath.digamma),
])
def test_values_against_mpmath_and_torch(name, ref):
    ours = getattr(jitgrad, name)(jitgrad.tensor(POS, dtype=jitgrad.float64)).detach().numpy()
    np.testing.assert_allclose(ours, _mp(ref, POS), rtol=2e-14, atol=1e-300)
    ours_neg = getattr(jitgrad, name)(jitgrad.tensor(NEG, dtype=jitgrad.float64)).detach().numpy()
    np.testing.assert_allclose(ours_neg, _mp(ref, NEG), rtol=0, atol=2e-13 * _pole_scale(0, NEG).max())
    ours = getattr(jitgrad, name)(jitgrad.tensor(XS, dtype=jitgrad.float64)).detach().numpy()
    theirs = getattr(torch, name)(torch.tensor(XS, dtype=torch.float64)).detach().numpy()
    np.testing.assert_allclose(ours, theirs, rtol=2e-13)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 7])
def test_polygamma_against_mpmath_and_torch(n):
    xs = XS[np.abs(XS) < 1e6]
    ours = jitgrad.polygamma(n, jitgrad.tensor(xs, dtype=jitgrad.float64)).detach().numpy()
    expected = _mp(lambda v: mpmath.polygamma(n, v), xs)
    positive = xs > 0
    np.testing.assert_allclose(ours[positive], expected[positive], rtol=2e-14)
    for o, e, x in zip(ours[~positive], expected[~positive], xs[~positive]):
        assert abs(o - e) <= 2e-13 * _pole_scale(n, x), (n, x, o, e)
    theirs = torch.polygamma(n, torch.tensor(xs, dtype=torch.float64)).detach().numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-8)


def test_polygamma_zero_is_digamma_and_methods():
    x = jitgrad.tensor([0.3, 2.5, -1.5], dtype=jitgrad.float64)
    assert jitgrad.equal(jitgrad.polygamma(0, x), jitgrad.digamma(x))
    assert jitgrad.equal(x.polygamma(2), jitgrad.polygamma(2, x))
    assert jitgrad.equal(x.lgamma(), jitgrad.special.gammaln(x))
    assert jitgrad.equal(x.digamma(), jitgrad.special.psi(x))
    assert jitgrad.equal(jitgrad.special.digamma(x), jitgrad.digamma(x))
    assert jitgrad.equal(jitgrad.special.polygamma(1, x), jitgrad.polygamma(1, x))


def test_poles_and_specials_as_torch():
    special = [0.0, -0.0, -1.0, -2.0, math.inf, -math.inf, math.nan]
    for name in ("lgamma", "digamma"):
        ours = getattr(jitgrad, name)(jitgrad.tensor(special, dtype=jitgrad.float64)).detach().numpy()
        theirs = getattr(torch, name)(torch.tensor(special, dtype=torch.float64)).detach().numpy()
        np.testing.assert_array_equal(ours, theirs)
    for n in (2, 3):  # PyTorch: (-1)^(n+1) inf at the poles
        pts = [0.0, -1.0, -3.0, math.nan]
        ours = jitgrad.polygamma(n, jitgrad.tensor(pts, dtype=jitgrad.float64)).detach().numpy()
        np.testing.assert_array_equal(ours, torch.polygamma(n, torch.tensor(pts, dtype=torch.float64)).detach().numpy())
    assert jitgrad.polygamma(1, jitgrad.tensor([0.0, math.inf])).tolist() == [math.inf, 0.0]


@pytest.mark.parametrize("name", ["lgamma", "digamma"])
def test_dtypes_as_torch(name):
    for values, dtype in (([1, 2, 3], "int64"), ([True, False], "bool"), ([0.5, 2.0], "float32")):
        ours = getattr(jitgrad, name)(jitgrad.tensor(values, dtype=getattr(jitgrad, dtype)))
        theirs = getattr(torch, name)(torch.tensor(values, dtype=getattr(torch, dtype)))
        assert ours.dtype.name == str(theirs.dtype)[6:]
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-6)


def _positive_and_negative():
    rng = np.random.default_rng(3)
    x = rng.uniform(0.2, 4.0, (3, 4))
    x[0, :2] = [-0.6, -2.3]
    return x


def test_lgamma_grads_match_torch():
    # first derivative: digamma (accurate on both sides); second: trigamma (PyTorch ~1e-10)
    check(lambda lib, x: lib.lgamma(x), _positive_and_negative(), double=False, rtol=1e-12)
    check(lambda lib, x: lib.lgamma(x), _positive_and_negative(), rtol=1e-9)
    check(lambda lib, x: lib.special.gammaln(x * 2).sum(), _positive_and_negative(), rtol=1e-9)


def test_digamma_and_polygamma_grads_match_torch():
    check(lambda lib, x: lib.digamma(x), _positive_and_negative(), rtol=1e-9)
    check(lambda lib, x: lib.polygamma(2, x), _positive_and_negative(), rtol=1e-8)


def test_gradcheck_and_gradgradcheck():
    x = jitgrad.tensor(_positive_and_negative(), dtype=jitgrad.float64, requires_grad=True)
    for fn in (jitgrad.lgamma, jitgrad.digamma, lambda t: jitgrad.polygamma(1, t)):
        assert gradcheck(fn, (x,)) and gradgradcheck(fn, (x,))


def test_inplace_variants():
    x = jitgrad.tensor([0.5, 2.5, -1.5], dtype=jitgrad.float64, requires_grad=True)
    y = x * 1
    y.lgamma_()
    assert y._version == 1
    np.testing.assert_allclose(y.detach().numpy(), jitgrad.lgamma(x).detach().numpy())
    y.sum().backward()
    np.testing.assert_allclose(x.grad.detach().numpy(), jitgrad.digamma(x).detach().numpy())
    z = jitgrad.tensor([0.5, 2.5])
    z.digamma_()
    assert z.tolist() == jitgrad.digamma(jitgrad.tensor([0.5, 2.5])).tolist()
    for lib in (jitgrad, torch):
        with pytest.raises(RuntimeError):
            lib.tensor([1, 2]).lgamma_()
        with pytest.raises(RuntimeError, match="leaf"):
            lib.tensor([1.0], requires_grad=True).digamma_()


def test_errors_as_torch():
    assert "polygamma" in str(check_error(lambda lib, x: lib.polygamma(-1, x), np.array([1.0])))
    check_error(lambda lib, x: lib.polygamma(1.5, x), np.array([1.0]))
    check_error(lambda lib, x: lib.lgamma([1.0]), np.array([1.0]))
    check_error(lambda lib, x: lib.digamma(1.0), np.array([1.0]))
