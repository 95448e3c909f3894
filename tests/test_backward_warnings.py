"""Backward computes quietly, as the forward does (``_quiet.py``) and as PyTorch does: a
gradient that overflows or is nan raises no NumPy RuntimeWarning, on every route a gradient
takes (declared pointwise formulas, reductions, a number times an owned buffer in
``MulBackward0.apply_owned``, gradient accumulation, CopySlices), and comes out as PyTorch's."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
import pytest
import torch

import jitgrad
from jitgrad.ops.declare import DECLARED

VALUES = [0.0, -0.0, 1.0, -1.0, 1e308, -1e308, 1e-310, float("inf"), -float("inf"), float("nan"), 0.5, 2.0]


def _program_rows() -> dict[str, tuple[Callable[..., Any], int]]:
    rows: dict[str, tuple[Callable[..., Any], int]] = {}
    for d in DECLARED:
        fn = getattr(jitgrad, d.name, None)
        if d.differentiable and fn is not None:
            rows[d.name] = (fn, min(d.arity, 3))
    rows.update({
        "mul_number": (lambda x: x * 1e308, 1), "div_number": (lambda x: x / 1e-308, 1),
        "number_div": (lambda x: 1.0 / x, 1), "pow": (lambda x, y: x ** y, 2),
        "pow_number": (lambda x: x ** 3.0, 1), "number_pow": (lambda x: 3.0 ** x, 1),
        "sum": (lambda x: x.sum(), 1), "mean": (lambda x: x.mean(), 1), "prod": (lambda x: x.prod(), 1),
        "norm": (lambda x: x.norm(), 1), "logsumexp": (lambda x: jitgrad.logsumexp(x, 0), 1),
        "softmax": (lambda x: jitgrad.softmax(x, 0), 1), "log_softmax": (lambda x: jitgrad.log_softmax(x, 0), 1),
        "cumsum": (lambda x: x.cumsum(0), 1), "cumprod": (lambda x: x.cumprod(0), 1),
        "var": (lambda x: x.var(), 1), "std": (lambda x: x.std(), 1), "dot": (lambda x, y: jitgrad.dot(x, y), 2),
        "matmul": (lambda x, y: x.reshape(2, 3) @ y.reshape(3, 2), 2),
        "mul_": (lambda x: (x * 1).mul_(1e308), 1), "div_": (lambda x, y: (x * 1).div_(y), 2),
        "slice_write": (lambda x, y: _slice_write(x, y), 2),
    })
    return rows


def _slice_write(x: Any, y: Any) -> Any:
    z = x * 1.0
    z[1:4] = y[0:3] * 1e300  # CopySlices
    z[2:5] *= 1e300
    return z


PROGRAMS = _program_rows()
ROUTES = {
    "plain": lambda fn, xs: fn(*xs),
    "accumulated": lambda fn, xs: (lambda y: y + y)(fn(*xs)),  # the engine's owned buffer
    "scaled_inputs": lambda fn, xs: fn(*[x * 1e300 for x in xs]),
    "scaled_accumulated": lambda fn, xs: (lambda y: y + y)(fn(*xs) * 1e300),  # MulBackward0.apply_owned
}


@pytest.mark.parametrize("route", sorted(ROUTES))
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_backward_raises_no_numpy_warning(name: str, route: str) -> None:
    fn, n = PROGRAMS[name]
    rng = np.random.default_rng(0)
    for _ in range(8):
        xs = [jitgrad.tensor(rng.choice(VALUES, size=6), dtype=jitgrad.float64, requires_grad=True)
              for _ in range(n)]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # (the forward is not what this test is about)
                y = ROUTES[route](fn, xs)
        except (RuntimeError, ValueError, TypeError):
            continue  # a domain the op refuses
        if not isinstance(y, jitgrad.Tensor) or not y.requires_grad:
            return
        gradient = jitgrad.tensor(rng.choice(VALUES, size=tuple(y.shape)), dtype=jitgrad.float64)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            y.backward(gradient)


def test_number_times_an_owned_gradient_overflows_quietly_as_in_pytorch() -> None:
    """The repro: ``x * 1e300`` used twice; its gradient buffer is the engine's (accumulated),
    which ``MulBackward0.apply_owned`` scales in place."""
    grads = []
    for L in (jitgrad, torch):
        x = L.tensor([1.0, 2.0, 3.0], dtype=L.float64, requires_grad=True)
        w = x * 1e300
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            (w + w).backward(L.tensor([1e300, 1.0, float("nan")], dtype=L.float64))
        grads.append(x.grad)
    np.testing.assert_array_equal(grads[0].detach().numpy(), grads[1].detach().numpy())
