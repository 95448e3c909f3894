"""``linalg.lstsq`` against PyTorch (float64): solutions (full rank and rank deficient, tall
and wide, batched, vector right-hand sides), residuals, rank and singular values per driver,
gradients of the solution, and the argument errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import jitgrad

RNG = np.random.default_rng(11)
CASES: dict[str, tuple[np.ndarray, np.ndarray]] = {
    "tall": (RNG.standard_normal((5, 3)), RNG.standard_normal((5, 2))),
    "square": (RNG.standard_normal((3, 3)) + 2 * np.eye(3), RNG.standard_normal((3, 2))),
    "wide": (RNG.standard_normal((2, 4)), RNG.standard_normal((2, 3))),
    "deficient": (np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]]), RNG.standard_normal((3, 2))),
    "vector": (RNG.standard_normal((4, 2)), RNG.standard_normal(4)),
    "batch": (RNG.standard_normal((2, 4, 3)), RNG.standard_normal((2, 4, 2))),
}


@pytest.mark.parametrize("driver", ["gelsy", "gelsd", "gelss", "gels"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_against_pytorch(case: str, driver: str) -> None:
    if driver == "gels" and case in ("deficient", "wide"):
        pytest.skip("gels assumes a tall matrix of full rank (its result is undefined otherwise)")
    a, b = CASES[case]
    got = []
    for lib in (jitgrad, torch):
        A, B = lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True)
        r = lib.linalg.lstsq(A, B, driver=driver)
        w = lib.tensor(np.linspace(-1, 1, r.solution.numel()).reshape(tuple(r.solution.shape)))
        grads = lib.autograd.grad((r.solution * w).sum(), (A, B))
        got.append((r.solution.detach().numpy(), r.residuals.detach().numpy(), r.rank.detach().numpy(),
                    r.singular_values.detach().numpy(), [g.detach().numpy() for g in grads], str(r.rank.dtype).split(".")[-1]))
    for ours, theirs in zip(got[0][:4], got[1][:4]):
        assert ours.shape == theirs.shape
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)
    for ours, theirs in zip(got[0][4], got[1][4]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-8, atol=1e-11)
    assert got[0][5] == got[1][5]


@pytest.mark.parametrize("lib", [jitgrad, torch], ids=["jitgrad", "torch"])
def test_errors(lib: Any) -> None:
    A = lib.ones(3, 2, dtype=lib.float64)
    with pytest.raises(RuntimeError, match="input.size\\(-2\\) should match other.size\\(-2\\)"):
        lib.linalg.lstsq(A, lib.ones(2, 1, dtype=lib.float64))
    with pytest.raises(RuntimeError, match="parameter `driver` should be one of \\(gels, gelsy, gelsd, gelss\\)"):
        lib.linalg.lstsq(A, lib.ones(3, 1, dtype=lib.float64), driver="foo")
