"""torch.special's normal-CDF family side by side with PyTorch in float64: ndtr, log_ndtr
(both tails), ndtri (down to 1e-300 and up to 1 - 1e-10), erfcx (across its two methods'
seam at 2 and past exp's overflow), entr, and first and second derivatives."""

from __future__ import annotations

import numpy as np
import pytest

from compat_helpers import both_close


def _d(lib, values):
    return lib.tensor(values, dtype=lib.float64)


def test_values_across_the_range():
    def program(lib):
        s = lib.special
        x = _d(lib, [-40.0, -10.0, -3.0, -1.0, -0.999, -0.5, 0.0, 0.7, 2.0, 5.0, 9.0, 40.0])
        p = _d(lib, [0.0, 1e-300, 1e-100, 1e-20, 1e-10, 0.001, 0.02425, 0.1, 0.3, 0.5, 0.7, 0.97575, 0.999,
                     1 - 1e-10, 1.0, 1.5, -0.1])
        z = _d(lib, [-30.0, -5.0, -1.0, 0.0, 0.5, 1.9, 1.999, 2.0, 2.1, 5.0, 26.0, 27.0, 100.0, 1e10])
        return [s.ndtr(x), s.log_ndtr(x), s.ndtri(p), s.erfcx(z), s.entr(_d(lib, [-1.0, 0.0, 0.5, 2.0])),
                s.multigammaln(_d(lib, [2.5, 3.0]), 2), s.sinc(x), s.round(x / 3)]
    both_close(program, rtol=2e-13, atol=0)


def test_ndtr_of_ndtri_round_trips():
    import jitgrad

    p = jitgrad.tensor([1e-200, 1e-30, 1e-5, 0.2, 0.5, 0.8, 0.99999], dtype=jitgrad.float64)
    back = jitgrad.special.log_ndtr(jitgrad.special.ndtri(p))
    assert jitgrad.allclose(back, p.log(), rtol=1e-13, atol=0)


@pytest.mark.parametrize("order", [1, 2])
def test_gradients(order):
    def program(lib):
        s = lib.special
        x = _d(lib, [-12.0, -3.0, -1.0, -0.2, 0.0, 0.9, 4.0]).requires_grad_()
        p = _d(lib, [1e-12, 0.01, 0.3, 0.5, 0.8, 0.999]).requires_grad_()
        e = _d(lib, [0.2, 1.0, 3.0]).requires_grad_()
        outs = [s.ndtr(x), s.log_ndtr(x), s.erfcx(x), s.ndtri(p), s.entr(e)]
        grads = lib.autograd.grad(sum(o.sum() for o in outs), [x, p, e], create_graph=order == 2)
        if order == 2:
            grads = lib.autograd.grad(sum(g.sum() for g in grads), [x, p, e])
        return [o.grad_fn.name() for o in outs[1:]], grads
    both_close(program, rtol=1e-12, atol=0)


@pytest.mark.parametrize("order", [1, 2])
def test_modified_bessel_functions(order):
    """i0, i0e, i1, i1e across the series / asymptotic seam at |x| = 20 and far out (the
    scaled forms stay finite), and their derivatives (1/2 at 0 for i1 and i1e)."""
    def program(lib):
        s = lib.special
        x = _d(lib, [-800.0, -30.0, -20.0, -19.5, -3.0, -0.5, 0.0, 1e-8, 0.7, 4.0, 19.999, 20.0, 25.0, 700.0])
        values = [lib.i0(x), s.i0e(x), s.i1(x), s.i1e(x), x.i0()]
        y = _d(lib, [-21.0, -2.0, 0.0, 0.3, 3.0, 22.0]).requires_grad_()
        outs = [s.i0(y), s.i0e(y), s.i1(y), s.i1e(y)]
        grads = lib.autograd.grad(sum(o.sum() for o in outs), y, create_graph=order == 2)
        if order == 2:
            grads = lib.autograd.grad(grads[0].sum(), y)
        return values, grads, [o.grad_fn.name() for o in outs]
    both_close(program, rtol=1e-12, atol=0)  # (i0e' = i1e - sign(x) i0e cancels for large |x|)


def test_von_mises():
    """log_prob and its gradients (PyTorch's log normaliser is a polynomial approximation
    good to ~6e-7 relative: agreement to 1e-6), mean, variance; samples in [-pi, pi) whose
    circular mean and concentration match the parameters."""
    import math

    import jitgrad

    def program(lib):
        d = lib.distributions
        loc = _d(lib, [0.5, -2.0, 3.0]).requires_grad_()
        kappa = _d(lib, [0.01, 2.0, 40.0]).requires_grad_()
        vm = d.VonMises(loc, kappa)
        x = _d(lib, [[0.3], [-1.0], [3.1]]).expand(3, 3)
        lp = vm.log_prob(x)
        lp.sum().backward()
        return lp, loc.grad, kappa.grad, vm.mean, tuple(vm.expand((2, 3)).batch_shape)
    both_close(program, rtol=1e-6, atol=1e-9)
    import torch

    k = [0.01, 2.0, 40.0]  # (PyTorch's circular variance errs by 3e-5 relative at kappa 40)
    theirs = torch.distributions.VonMises(torch.zeros(3, dtype=torch.float64), torch.tensor(k, dtype=torch.float64)).variance
    ours = jitgrad.distributions.VonMises(jitgrad.zeros(3, dtype=jitgrad.float64), jitgrad.tensor(k, dtype=jitgrad.float64)).variance
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-4)

    jitgrad.manual_seed(3)
    vm = jitgrad.distributions.VonMises(jitgrad.tensor([1.0, -3.0], dtype=jitgrad.float64),
                                        jitgrad.tensor([4.0, 0.5], dtype=jitgrad.float64))
    s = vm.sample((20000,))
    assert s.shape == (20000, 2) and bool(((s >= -math.pi) & (s < math.pi)).all())
    mean_angle = jitgrad.atan2(s.sin().mean(0), s.cos().mean(0))
    assert jitgrad.allclose(mean_angle, vm.mean, atol=0.05)
    resultant = (s.sin().mean(0) ** 2 + s.cos().mean(0) ** 2).sqrt()
    assert jitgrad.allclose(1 - resultant, vm.variance, atol=0.02)


def test_gammainc_and_gammaincc():
    """PyTorch's igamma is accurate to ~1e-9 relative (jitgrad's to ~1e-13); gammaincc keeps
    its relative accuracy far into the upper tail (chi-square p-values)."""
    import torch

    import jitgrad

    def program(lib):
        a = _d(lib, [0.5, 2.0, 10.0, 3.0, 50.0])
        x = _d(lib, [0.3, 2.5, 8.0, 40.0, 20.0]).requires_grad_()
        p, q = lib.special.gammainc(a, x), lib.special.gammaincc(a, x)
        (p * _d(lib, [1.0, 2.0, 3.0, 4.0, 5.0]) + q).sum().backward()
        return p, q, x.grad
    both_close(program, rtol=1e-8, atol=1e-12)
    tail = jitgrad.special.gammaincc(jitgrad.tensor([2.0], dtype=jitgrad.float64),
                                     jitgrad.tensor([60.0], dtype=jitgrad.float64))
    # Q(2, 60) = (1 + 60) e^-60 exactly
    assert abs(tail.item() / (61 * np.exp(-60.0)) - 1) < 1e-13
    with pytest.raises(NotImplementedError, match="igamma"):
        a = jitgrad.tensor([2.0], dtype=jitgrad.float64, requires_grad=True)
        jitgrad.special.gammainc(a, jitgrad.tensor([1.0], dtype=jitgrad.float64)).sum().backward()
    assert torch.special.gammaincc(torch.tensor([2.0], dtype=torch.float64),
                                   torch.tensor([60.0], dtype=torch.float64)).item() > 0
