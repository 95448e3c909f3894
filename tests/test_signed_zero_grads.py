"""The sign of zero in gradients that pass through slices, against PyTorch.

A view's gradient reaches its base as a scatter into the base's geometry (``ScatterGrad``).
When it is the first gradient of its slot it is materialized as PyTorch's ``slice_backward``
does — zeros, then the values *copied* in — so a ``-0.0`` gradient stays ``-0.0``. When it
meets a dense gradient already in the slot, jitgrad adds it into the slice only (linear
time); PyTorch adds a whole zero-filled tensor, which also turns a ``-0.0`` outside the
slice into ``+0.0``: the README's deliberate difference, tested at the end."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import jitgrad


def _leaf_grad(lib: Any, program: Callable[[Any, Any], Any], n: int = 4) -> np.ndarray:
    x = lib.tensor([1.0, -2.0, 3.0, 0.5][:n], dtype=lib.float64, requires_grad=True)
    program(lib, x).backward()
    return np.asarray(x.grad.detach().numpy() if lib is torch else x.grad.detach().numpy())


def _same_bits(a: np.ndarray, b: np.ndarray) -> None:
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(np.signbit(a), np.signbit(b))


PROGRAMS = {
    "slice alone": lambda lib, x: (x[0:1] * -0.0).sum(),
    "slice of a result": lambda lib, x: ((x * 1.0)[1:3] * -0.0).sum(),
    "element": lambda lib, x: (x * 1.0)[2] * -0.0,
    "slice first, then dense": lambda lib, x: (
        lambda y: (y * -0.0).sum() + (y[0:1] * -0.0).sum())(x * 1.0),
    "two slices": lambda lib, x: (
        lambda y: (y[0:2] * -0.0).sum() + (y[1:3] * 2.0).sum())(x * 1.0),
    "row written then read": lambda lib, x: (
        lambda b: (b.__setitem__(1, x * 2), (b[1:3] * -0.0).sum())[1])(
            lib.zeros(4, 4, dtype=lib.float64)),
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_signed_zeros_as_pytorch(name: str) -> None:
    program = PROGRAMS[name]
    _same_bits(_leaf_grad(jitgrad, program), _leaf_grad(torch, program))


@given(start=st.integers(0, 3), stop=st.integers(1, 4), scale=st.sampled_from([-0.0, 0.0, -1.5]))
def test_slice_gradient_materialized_by_copy(start: int, stop: int, scale: float) -> None:
    program = lambda lib, x: ((x * 1.0)[start:max(start + 1, stop)] * scale).sum()  # noqa: E731
    _same_bits(_leaf_grad(jitgrad, program), _leaf_grad(torch, program))


def test_dense_then_slice_is_the_documented_difference() -> None:
    """The dense gradient arrives first (it is the later node), then the slice's: jitgrad
    adds into the slice only, so the ``-0.0`` elsewhere stays; PyTorch's dense addition of
    zeros makes them ``+0.0``. The values compare equal."""
    program = lambda lib, x: (lambda y: (y[0:1] * -0.0).sum() + (y * -0.0).sum())(x * 1.0)  # noqa: E731
    ours, theirs = _leaf_grad(jitgrad, program), _leaf_grad(torch, program)
    np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(np.signbit(ours), [True, True, True, True])
    np.testing.assert_array_equal(np.signbit(theirs), [True, False, False, False])
