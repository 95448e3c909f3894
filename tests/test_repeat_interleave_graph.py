"""``repeat_interleave`` records PyTorch's graph, side by side: with an int, a view chain
(``unsqueeze``, ``expand``, ``clone``, a view merging the dims; a flattening view first without
``dim``), with a tensor of counts one ``IndexSelectBackward0``. Values, first and second
derivatives agree with PyTorch's."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
import torch

import jitgrad
from compat_helpers import same

_X = np.arange(1.0, 7.0).reshape(2, 3) / 3.0

_CALLS: dict[str, Callable[[Any, Any], Any]] = {
    "int, no dim": lambda L, x: x.repeat_interleave(2),
    "int, dim 0": lambda L, x: x.repeat_interleave(2, dim=0),
    "int, dim 1": lambda L, x: L.repeat_interleave(x, 3, 1),
    "int, dim -1, output_size": lambda L, x: x.repeat_interleave(3, dim=-1, output_size=9),
    "zero repeats": lambda L, x: x.repeat_interleave(0, dim=1),
    "1-D": lambda L, x: x[0].repeat_interleave(2),
    "0-d": lambda L, x: x.sum().repeat_interleave(3),
    "counts": lambda L, x: x.repeat_interleave(L.tensor([1, 2]), dim=0),
    "one count": lambda L, x: x.repeat_interleave(L.tensor([2]), dim=1),
}


def _names(fn: Any) -> list[str]:
    """The node names depth-first from ``fn`` down to the leaves."""
    if fn is None:
        return []
    return [fn.name()] + [name for n, _ in fn.next_functions for name in _names(n)]


def _run(lib: Any, name: str) -> tuple[Any, ...]:
    x = lib.tensor(_X, dtype=lib.float64, requires_grad=True)
    y = _CALLS[name](lib, x)
    w = lib.arange(float(y.numel()), dtype=lib.float64).reshape(y.shape)
    (g,) = lib.autograd.grad((y * y * w).sum(), x, create_graph=True)
    (gg,) = lib.autograd.grad((g * g).sum(), x)
    return _names(y.grad_fn), y, g, gg


@pytest.mark.parametrize("name", sorted(_CALLS))
def test_graph_values_and_gradients_as_pytorch(name: str) -> None:
    ours, theirs = _run(jitgrad, name), _run(torch, name)
    assert ours[0] == theirs[0]
    for a, b in zip(ours[1:], theirs[1:]):
        same(a, b)
