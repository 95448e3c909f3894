"""``LBFGS`` against ``torch.optim.LBFGS`` in float64: the same iterates on a Rosenbrock
function and a least-squares fit, with and without the strong-Wolfe line search, over
several ``step(closure)`` calls; the state; the errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import jitgrad
import jitgrad.optim


def _rosenbrock(lib, p):
    x, y = p[0], p[1]
    return (1 - x) ** 2 + 100 * (y - x * x) ** 2


def _least_squares(lib, p):
    rng = np.random.default_rng(0)
    A = lib.tensor(rng.standard_normal((8, 3)), dtype=lib.float64)
    b = lib.tensor(rng.standard_normal(8), dtype=lib.float64)
    r = A @ p - b
    return (r * r).sum() + 0.1 * (p ** 4).sum()


def _run(lib, objective, kwargs, steps, start):
    p = lib.tensor(start, dtype=lib.float64, requires_grad=True)
    opt = lib.optim.LBFGS([p], **kwargs)
    losses = []

    def closure():
        opt.zero_grad()
        loss = objective(lib, p)
        loss.backward()
        return loss

    for _ in range(steps):
        losses.append(float(opt.step(closure).detach()))
    state = opt.state[p]
    return p.detach().numpy().copy(), losses, state["func_evals"], state["n_iter"]


@pytest.mark.parametrize("objective,start", [(_rosenbrock, [-1.2, 1.0]), (_least_squares, [0.5, -0.3, 1.0])])
@pytest.mark.parametrize("kwargs", [
    {}, {"line_search_fn": "strong_wolfe"}, {"lr": 0.5, "max_iter": 5, "history_size": 3},
    {"line_search_fn": "strong_wolfe", "history_size": 2, "max_iter": 7},
    {"tolerance_grad": 1e-3, "tolerance_change": 1e-4},
])
def test_lbfgs_matches_torch(objective, start, kwargs):
    ours = _run(jitgrad, objective, kwargs, 4, start)
    theirs = _run(torch, objective, kwargs, 4, start)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-9, atol=1e-12)
    assert ours[2:] == theirs[2:]  # the same numbers of evaluations and iterations
    assert not np.allclose(ours[0], start)


def test_lbfgs_converges_on_rosenbrock():
    p, losses, _, _ = _run(jitgrad, _rosenbrock, {"line_search_fn": "strong_wolfe"}, 10, [-1.2, 1.0])
    np.testing.assert_allclose(p, [1.0, 1.0], atol=1e-4)
    assert losses[-1] < 1e-8 < losses[0]


def test_lbfgs_errors_as_torch():
    for lib in (jitgrad, torch):
        a, b = lib.zeros(1, requires_grad=True), lib.zeros(1, requires_grad=True)
        with pytest.raises(ValueError, match="Invalid learning rate"):
            lib.optim.LBFGS([a], lr=-1)
        with pytest.raises(ValueError, match="parameter groups"):
            lib.optim.LBFGS([{"params": [a]}, {"params": [b]}])
        opt = lib.optim.LBFGS([a], line_search_fn="backtracking")

        def closure():
            opt.zero_grad()
            loss = ((a - 1) ** 2).sum()
            loss.backward()
            return loss

        with pytest.raises(RuntimeError, match="strong_wolfe"):
            opt.step(closure)
    with pytest.raises(RuntimeError, match="closure"):
        jitgrad.optim.LBFGS([jitgrad.zeros(1, requires_grad=True)]).step()


def _state_layout(lib, kwargs):
    """What LBFGS keeps after three steps: each entry's type (and dtype and shape for
    tensors), lists entry by entry; then the parameter after a fourth step taken by a fresh
    optimizer loaded from the state dict."""
    p = lib.tensor([0.5, -0.3, 1.0], dtype=lib.float64, requires_grad=True)
    opt = lib.optim.LBFGS([p], **kwargs)

    def closure():
        opt.zero_grad()
        loss = _least_squares(lib, p)
        loss.backward()
        return loss

    for _ in range(3):
        opt.step(closure)

    def describe(v):
        if isinstance(v, list):
            return [describe(a) for a in v]
        if isinstance(v, lib.Tensor):
            return "tensor", str(v.dtype).split(".")[-1], tuple(v.shape)
        return type(v).__name__

    layout = {k: describe(v) for k, v in opt.state[p].items()}
    again = lib.optim.LBFGS([p], **kwargs)
    again.load_state_dict(opt.state_dict())
    again.step(closure)
    return layout, p.detach().numpy().copy()


@pytest.mark.parametrize("kwargs", [{"history_size": 2, "max_iter": 4}, {"line_search_fn": "strong_wolfe"}])
def test_lbfgs_state_holds_tensors_as_torch(kwargs):
    ours, theirs = _state_layout(jitgrad, kwargs), _state_layout(torch, kwargs)
    assert ours[0] == theirs[0]
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-9, atol=1e-12)
