"""trapezoid, cumulative_trapezoid, cartesian_prod, block_diag, cov, corrcoef, dist and
float_power against PyTorch (float64): values and gradients of every input."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
import torch

import jitgrad

RNG = np.random.default_rng(9)
Y, X, V = RNG.standard_normal((2, 4)), np.cumsum(RNG.random(4)), RNG.standard_normal(3)
CASES: dict[str, Callable[[Any, Any, Any, Any], Any]] = {
    "trapezoid": lambda L, y, x, v: L.trapezoid(y),
    "trapezoid_dx_dim0": lambda L, y, x, v: L.trapezoid(y, dx=0.5, dim=0),
    "trapezoid_x": lambda L, y, x, v: L.trapezoid(y, x),
    "trapezoid_x_2d": lambda L, y, x, v: L.trapezoid(y, x.reshape(1, -1).expand(2, 4)),
    "trapezoid_number": lambda L, y, x, v: L.trapezoid(y, 0.25),
    "cumulative_trapezoid": lambda L, y, x, v: L.cumulative_trapezoid(y),
    "cumulative_trapezoid_dx": lambda L, y, x, v: L.cumulative_trapezoid(y, dim=0, dx=2),
    "cumulative_trapezoid_x": lambda L, y, x, v: L.cumulative_trapezoid(y, x),
    "cartesian_prod": lambda L, y, x, v: L.cartesian_prod(v, x[:2]),
    "cartesian_prod_one": lambda L, y, x, v: L.cartesian_prod(v),
    "block_diag": lambda L, y, x, v: L.block_diag(y, v, v[0], y.t()),
    "cov": lambda L, y, x, v: L.cov(y),
    "cov_1d": lambda L, y, x, v: L.cov(x),
    "cov_correction0": lambda L, y, x, v: y.cov(correction=0),
    "cov_weights": lambda L, y, x, v: L.cov(y, fweights=L.tensor([1, 2, 1, 3]), aweights=x.detach()),
    "corrcoef": lambda L, y, x, v: L.corrcoef(y),
    "corrcoef_1d": lambda L, y, x, v: L.corrcoef(x),
    "dist": lambda L, y, x, v: L.dist(y, y.detach().flip(1) * 2),
    "dist_p3": lambda L, y, x, v: y[0].dist(x, 3),
    "float_power": lambda L, y, x, v: L.float_power(x, 2.5),
    "float_power_tensor": lambda L, y, x, v: L.float_power(x, y[0]),
    "float_power_int": lambda L, y, x, v: L.float_power(L.tensor([2, 3]), 0.5),
    "float_power_number_base": lambda L, y, x, v: L.float_power(2, y),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_against_pytorch(case: str) -> None:
    got = []
    for lib in (jitgrad, torch):
        y, x, v = (lib.tensor(a, requires_grad=True) for a in (Y, X, V))
        try:
            out = CASES[case](lib, y, x, v)
        except TypeError:
            got.append(None)
            continue
        grads = [None, None, None]
        if out.requires_grad:
            grads = lib.autograd.grad(out.sum(), (y, x, v), allow_unused=True)
        got.append((out.detach().numpy(), str(out.dtype).split(".")[-1],
                    [None if g is None else g.detach().numpy() for g in grads]))
    if got[1] is None:  # PyTorch refuses it: so does jitgrad
        assert got[0] is None
        return
    (out, dtype, grads), (want, want_dtype, want_grads) = got
    assert out.shape == want.shape and dtype == want_dtype
    np.testing.assert_allclose(out, want, rtol=1e-12, atol=1e-14)
    for g, w in zip(grads, want_grads):
        assert (g is None) == (w is None)
        if w is not None:
            np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-13)
