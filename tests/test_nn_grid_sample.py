"""``affine_grid`` and ``grid_sample`` against PyTorch (float64): grids and samples for both
``align_corners``, bilinear and nearest, zeros and border padding (grids reaching outside
[-1, 1]); gradients to the input, the grid and theta; node names; errors; Hypothesis over
grids; gradcheck."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import jitgrad
from conftest import budget
from nn_side_by_side import compare, same_error

RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 3, 4, 5))
THETA = np.array([[[0.9, 0.2, 0.1], [-0.1, 1.1, -0.2]], [[1.2, -0.3, 0.05], [0.25, 0.8, 0.1]]])


@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid(align_corners: bool) -> None:
    compare(lambda L, t: L.nn.functional.affine_grid(t, (2, 3, 4, 5), align_corners=align_corners), THETA)
    with warnings.catch_warnings(record=True) as caught:  # (unit-size grids with align_corners: both warn)
        warnings.simplefilter("always")
        compare(lambda L, t: L.nn.functional.affine_grid(t, (2, 1, 1, 3), align_corners=align_corners), THETA)
    assert len([w for w in caught if "unit-size grids" in str(w.message)]) == (2 if align_corners else 0)


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("padding_mode", ["zeros", "border"])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
def test_grid_sample(mode: str, padding_mode: str, align_corners: bool) -> None:
    grid = RNG.uniform(-1.2, 1.2, (2, 3, 6, 2))
    compare(lambda L, a, g: L.nn.functional.grid_sample(a, g, mode=mode, padding_mode=padding_mode,
                                                        align_corners=align_corners), X, grid, second=False)


def test_nearest_gives_the_grid_a_zero_gradient_not_none() -> None:
    """A nearest grid_sample does not depend on the grid smoothly: its gradient is zeros, and
    it is there (grid.grad is a tensor), as PyTorch's kernel returns it."""
    for L in (jitgrad, torch):
        x = L.tensor(X, requires_grad=True)
        grid = L.tensor(RNG.uniform(-1, 1, (2, 3, 6, 2)), requires_grad=True)
        L.nn.functional.grid_sample(x, grid, mode="nearest", align_corners=True).sum().backward()
        assert grid.grad is not None and not grid.grad.any() and x.grad.any()


def test_spatial_transformer_chain() -> None:
    """theta -> affine_grid -> grid_sample, gradients to theta and the image."""
    def program(L: Any, x: Any, t: Any) -> Any:
        grid = L.nn.functional.affine_grid(t, (2, 3, 4, 5), align_corners=False)
        return L.nn.functional.grid_sample(x, grid, align_corners=False)

    compare(program, X, THETA, second=False)


@settings(max_examples=budget(15))
@given(st.integers(1, 4), st.integers(1, 4), st.booleans(), st.sampled_from(["zeros", "border"]))
def test_hypothesis(ho: int, wo: int, align_corners: bool, padding_mode: str) -> None:
    grid = np.round(RNG.uniform(-1.3, 1.3, (2, ho, wo, 2)) * 8) / 8  # (pixel edges and centres included)
    compare(lambda L, a, g: L.nn.functional.grid_sample(a, g, padding_mode=padding_mode, align_corners=align_corners),
            X, grid, second=False)


ERRORS = {
    "affine_size": lambda F, t, x, g: F.affine_grid(t, (2, 3, 4)),
    "affine_theta": lambda F, t, x, g: F.affine_grid(t[:, :1], (2, 3, 4, 5)),
    "affine_batch": lambda F, t, x, g: F.affine_grid(t, (3, 3, 4, 5)),
    "grid_last": lambda F, t, x, g: F.grid_sample(x, g[..., :1], align_corners=False),
    "mode": lambda F, t, x, g: F.grid_sample(x, g, mode="foo"),
    "padding_mode": lambda F, t, x, g: F.grid_sample(x, g, padding_mode="foo"),
    "batch": lambda F, t, x, g: F.grid_sample(x, g[:1], align_corners=False),
}


@pytest.mark.filterwarnings("ignore:Default grid_sample")
@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case: str) -> None:
    def program(L: Any) -> Any:
        t = L.tensor(THETA, requires_grad=True)
        return ERRORS[case](L.nn.functional, t, L.tensor(X), L.tensor(RNG.uniform(-1, 1, (2, 3, 6, 2))))

    if case == "affine_theta":  # (the message prints the theta's Size: torch's or jitgrad's)
        got = []
        for L in (jitgrad, torch):
            with pytest.raises(ValueError) as info:
                program(L)
            got.append(str(info.value).replace("torch.", "").replace("jitgrad.", ""))
        assert got[0] == got[1]
        return
    same_error(program)


def test_default_align_corners_warns() -> None:
    for L in (jitgrad, torch):
        with pytest.warns(UserWarning, match="Default grid_sample and affine_grid behavior has changed"):
            L.nn.functional.grid_sample(L.tensor(X), L.zeros(2, 1, 1, 2, dtype=L.float64))


def test_gradcheck() -> None:
    x = jitgrad.tensor(RNG.standard_normal((1, 2, 3, 3)), requires_grad=True)
    g = jitgrad.tensor(RNG.uniform(-0.9, 0.9, (1, 2, 2, 2)), requires_grad=True)
    assert jitgrad.autograd.gradcheck(lambda a, b: jitgrad.nn.functional.grid_sample(a, b, align_corners=True), (x, g))
    t = jitgrad.tensor(THETA[:1], requires_grad=True)
    assert jitgrad.autograd.gradcheck(lambda u: jitgrad.nn.functional.affine_grid(u, (1, 1, 3, 2), align_corners=False),
                                      (t,))
