"""The float64 2-norm over trailing dims of a contiguous tensor is PyTorch's to the bit
(``kernels/_norm_jit.py`` adds the squares in the order of PyTorch's kernel: four partial
sums, then the left-over elements by fused multiply-adds), side by side through every door
that reaches it (``linalg.vector_norm``, ``Tensor.norm``, ``linalg.norm``, the Frobenius
``matrix_norm``, ``F.normalize``, which records PyTorch's graph); the kernel also against a
plain reference with exact arithmetic."""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable

import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from jitgrad.kernels import _norm_jit

_DOORS: dict[str, Callable[[Any, Any], Any]] = {
    "vector_norm": lambda L, x: L.linalg.vector_norm(x),
    "vector_norm dim -1": lambda L, x: L.linalg.vector_norm(x, dim=-1),
    "vector_norm keepdim": lambda L, x: L.linalg.vector_norm(x, 2, dim=-1, keepdim=True),
    "vector_norm trailing dims": lambda L, x: L.linalg.vector_norm(x, dim=tuple(range(1, x.ndim)) or None),
    "Tensor.norm": lambda L, x: x.norm(),
    "Tensor.norm dim": lambda L, x: x.norm(dim=-1),
    "linalg.norm": lambda L, x: L.linalg.norm(x.reshape(-1)),
    "frobenius": lambda L, x: L.linalg.matrix_norm(x.reshape(x.shape[0], -1)),
    "normalize": lambda L, x: L.nn.functional.normalize(x, dim=-1),
}


@settings(max_examples=120, deadline=None)
@given(shape=st.lists(st.integers(1, 40), min_size=1, max_size=3), scale=st.integers(-30, 30),
       seed=st.integers(0, 2**32 - 1), door=st.sampled_from(sorted(_DOORS)))
def test_two_norm_is_pytorchs_to_the_bit(shape: list[int], scale: int, seed: int, door: str) -> None:
    data = np.random.default_rng(seed).standard_normal(shape) * 10.0**scale
    ours = _DOORS[door](jitgrad, jitgrad.tensor(data, requires_grad=True))
    theirs = _DOORS[door](torch, torch.tensor(data, requires_grad=True))
    np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())
    assert ours.grad_fn.name() == theirs.grad_fn.name()


def test_normalize_records_pytorchs_graph_and_gradient() -> None:
    def names(fn: Any) -> list[str]:
        return [] if fn is None else [fn.name()] + [m for n, _ in fn.next_functions for m in names(n)]
    out = []
    for lib in (torch, jitgrad):
        x = lib.tensor(np.random.default_rng(1).standard_normal((4, 7)), requires_grad=True)
        y = lib.nn.functional.normalize(x, p=3.0, dim=0)
        (g,) = lib.autograd.grad((y * y).sum(), x)
        out.append((names(y.grad_fn), g.numpy()))
    assert out[0][0] == out[1][0]
    np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-13)


def _reference(row: np.ndarray) -> float:
    """Four partial sums of squares (each step rounded), added left to right, then the rest by
    exactly rounded ``x * x + s``."""
    n = row.size - row.size % 4
    sums = [0.0] * 4
    for d in range(0, n, 4):
        for j in range(4):
            sums[j] = float(np.float64(sums[j]) + np.float64(row[d + j]) * np.float64(row[d + j]))
    total = ((sums[0] + sums[1]) + sums[2]) + sums[3]
    for v in row[n:].tolist():
        total = float(Fraction(v) * Fraction(v) + Fraction(total))
    return total


def test_kernel_against_the_reference() -> None:
    rng = np.random.default_rng(7)
    for n in (1, 3, 4, 5, 8, 11, 64, 103):
        rows = rng.standard_normal((3, n)) * 10.0 ** rng.integers(-100, 100, (3, 1))
        out = np.zeros(3)
        _norm_jit.sum_squares_rows(rows, out)
        assert out.tolist() == [_reference(r) for r in rows]
