"""``linalg.matrix_exp`` against PyTorch (float64): values over small and large norms,
batches and empty matrices, gradients and second gradients (PyTorch's block-matrix rule),
the saved name, and the argument errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import jitgrad

RNG = np.random.default_rng(5)
MATRICES = {
    "2x2": np.array([[0.0, 1.0], [-2.0, -3.0]]),
    "small_norm": RNG.standard_normal((3, 3)) * 1e-3,
    "large_norm": RNG.standard_normal((4, 4)) * 6,
    "batch": RNG.standard_normal((2, 3, 3)),
    "1x1": np.array([[1.0]]),
    "nilpotent": np.array([[0.0, 1.0, 2.0], [0.0, 0.0, 3.0], [0.0, 0.0, 0.0]]),
}


@pytest.mark.parametrize("case", sorted(MATRICES))
def test_values_and_gradients(case: str) -> None:
    a = MATRICES[case]
    got = []
    for lib in (jitgrad, torch):
        A = lib.tensor(a, requires_grad=True)
        E = lib.linalg.matrix_exp(A)
        w = lib.tensor(np.linspace(-1, 1, E.numel()).reshape(tuple(E.shape)))
        (g,) = lib.autograd.grad((E * w).sum(), A, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), A)
        got.append((E.detach().numpy(), g.detach().numpy(), gg.detach().numpy(), E.grad_fn.name(),
                    E.grad_fn._saved_self.shape))
    (e, g, gg, name, saved), (we, wg, wgg, wname, wsaved) = got
    assert (name, tuple(saved)) == (wname, tuple(wsaved))
    scale = max(1.0, float(np.abs(we).max()))
    np.testing.assert_allclose(e, we, rtol=1e-12, atol=1e-13 * scale)
    np.testing.assert_allclose(g, wg, rtol=1e-10, atol=1e-11 * scale)
    np.testing.assert_allclose(gg, wgg, rtol=1e-8, atol=1e-9 * scale * scale)


def test_forms_and_errors() -> None:
    for lib in (jitgrad, torch):
        A = lib.tensor([[0.0, 1.0], [-2.0, -3.0]], dtype=lib.float64)
        assert lib.matrix_exp(A).tolist() == A.matrix_exp().tolist() == lib.linalg.matrix_exp(A).tolist()
        assert tuple(lib.linalg.matrix_exp(lib.zeros(0, 0)).shape) == (0, 0)
        with pytest.raises(RuntimeError, match="A must be batches of square matrices, but they are 2 by 3"):
            lib.linalg.matrix_exp(lib.ones(2, 3))
        with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor as input"):
            lib.linalg.matrix_exp(lib.ones(2, 2, dtype=lib.int64))
        with pytest.raises(RuntimeError, match="The input tensor A must have at least 2 dimensions"):
            lib.linalg.matrix_exp(lib.ones(3))
