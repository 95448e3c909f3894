"""A deliberate difference (README): ops that jitgrad composes save what their gradient
needs rather than their input, so writing the input in place after the op does not make
backward refuse; the gradient is that of the values the op read. PyTorch's fused nodes save
the input and refuse. A write into what a node did save is refused by both."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
import torch

import jitgrad

_X = [[1.0, 2.0, 4.0], [3.0, -1.0, 0.5]]
_W = [[0.3, -1.2, 2.0], [1.5, 0.7, -0.4]]


def _ops(lib: Any) -> dict[str, Callable[[Any, Any], tuple[Any, Any]]]:
    """name -> f(x, t): (the op's output, the tensor then written in place)."""
    F = lib.nn.functional
    return {
        "layer_norm": lambda x, t: (F.layer_norm(t, (3,)), t),
        "batch_norm": lambda x, t: (F.batch_norm(t, None, None, training=True), t),
        "nll_loss": lambda x, t: (F.nll_loss(t, lib.tensor([0, 2])), t),
        "huber_loss": lambda x, t: (F.huber_loss(t, lib.zeros(2, 3, dtype=lib.float64)), t),
        "mse_loss target": lambda x, t: ((lambda target: (F.mse_loss(x * 1.0, target), target))(x * 2.0)),
        "max_pool1d": lambda x, t: (F.max_pool1d(t.unsqueeze(0), 2), t),
        "avg_pool1d": lambda x, t: (F.avg_pool1d(t.unsqueeze(0), 2), t),
    }


def _run(lib: Any, name: str, write: bool) -> list[list[float]]:
    x = lib.tensor(_X, dtype=lib.float64, requires_grad=True)
    y, written = _ops(lib)[name](x, x * 1.0)
    if write:
        with lib.no_grad():
            written.mul_(2.0)
    w = lib.tensor(_W, dtype=lib.float64)
    (y * (w if tuple(y.shape) == (2, 3) else 1.0)).sum().backward()
    return x.grad.tolist()


NAMES = list(_ops(torch))


@pytest.mark.parametrize("name", NAMES)
def test_pytorch_refuses_backward_after_the_input_was_written(name: str) -> None:
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        _run(torch, name, write=True)


@pytest.mark.parametrize("name", NAMES)
def test_jitgrad_differentiates_the_values_the_op_read(name: str) -> None:
    """The gradient equals PyTorch's for the same program without the write."""
    np.testing.assert_allclose(_run(jitgrad, name, write=True), _run(torch, name, write=False),
                               rtol=1e-12, atol=1e-15)


def test_a_write_into_what_a_node_saved_is_refused_by_both() -> None:
    for lib in (jitgrad, torch):
        x = lib.tensor(_X, dtype=lib.float64, requires_grad=True)
        t = x * 1.0
        y = t.exp()  # (saves its result)
        with lib.no_grad():
            y.mul_(2.0)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()
