"""``quantile`` / ``nanquantile`` against PyTorch (float64 and float32): every interpolation
mode, scalar and 1-D ``q``, ``dim`` and ``keepdim``, NaN rows, gradients; argument errors."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
import torch

import jitgrad

RNG = np.random.default_rng(12)
X = RNG.standard_normal((3, 5))
XN = X.copy()
XN[1, 2] = np.nan
XN[2, :] = np.nan

CASES: dict[str, Callable[[Any, Any], Any]] = {
    "scalar": lambda L, x: L.quantile(x, 0.3),
    "dim": lambda L, x: x.quantile(0.75, dim=1),
    "dim_keepdim": lambda L, x: L.quantile(x, 0.5, dim=0, keepdim=True),
    "vector_q": lambda L, x: L.quantile(x, L.tensor([0.0, 0.25, 1.0], dtype=x.dtype), dim=1),
    "vector_q_flat_keepdim": lambda L, x: L.quantile(x, L.tensor([0.1, 0.9], dtype=x.dtype), keepdim=True),
    "lower": lambda L, x: L.quantile(x, 0.3, dim=1, interpolation="lower"),
    "higher": lambda L, x: L.quantile(x, 0.3, dim=1, interpolation="higher"),
    "midpoint": lambda L, x: L.quantile(x, L.tensor([0.3, 0.5], dtype=x.dtype), dim=1, interpolation="midpoint"),
    "nearest": lambda L, x: L.quantile(x, L.tensor([0.125, 0.375, 0.5], dtype=x.dtype), dim=1, interpolation="nearest"),
    "nan_rows": lambda L, x: L.quantile(L.tensor(XN, dtype=x.dtype), 0.4, dim=1),
    "nanquantile": lambda L, x: L.nanquantile(L.tensor(XN, dtype=x.dtype), L.tensor([0.4, 0.8], dtype=x.dtype), dim=1),
    "nanquantile_flat": lambda L, x: L.tensor(XN, dtype=x.dtype).nanquantile(0.6),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_against_pytorch(case: str, dtype: str) -> None:
    got = []
    for lib in (jitgrad, torch):
        x = lib.tensor(X, dtype=getattr(lib, dtype), requires_grad=True)
        out = CASES[case](lib, x)
        grad = None
        if out.requires_grad:
            (grad,) = lib.autograd.grad(out.sum(), x)
        got.append((out.detach().numpy(), None if grad is None else grad.detach().numpy()))
    tol = dict(rtol=1e-12, atol=1e-14) if dtype == "float64" else dict(rtol=1e-5, atol=1e-6)
    (out, grad), (want, want_grad) = got
    assert out.shape == want.shape and out.dtype == want.dtype
    np.testing.assert_allclose(out, want, **tol)
    assert (grad is None) == (want_grad is None)
    if grad is not None:
        np.testing.assert_allclose(grad, want_grad, **tol)


ERRORS = {
    "int_input": lambda L: L.quantile(L.arange(4), 0.5),
    "q_out_of_range": lambda L: L.quantile(L.ones(4), 1.5),
    "q_tensor_out_of_range": lambda L: L.quantile(L.ones(4), L.tensor([0.5, 2.0])),
    "q_2d": lambda L: L.quantile(L.ones(4), L.ones(2, 2) / 2),
    "q_dtype": lambda L: L.quantile(L.ones(4), L.tensor([0.5], dtype=L.float64)),
    "empty": lambda L: L.quantile(L.ones(0), 0.5),
    "interpolation": lambda L: L.quantile(L.ones(4), 0.5, interpolation="cubic"),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case: str) -> None:
    got = []
    for lib in (jitgrad, torch):
        with pytest.raises((RuntimeError, ValueError)) as info:
            ERRORS[case](lib)
        got.append((type(info.value).__name__, str(info.value)))
    assert got[0] == got[1]
