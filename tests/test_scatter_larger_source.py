"""A deliberate difference (README): a scatter whose ``src`` is larger than its ``index``
reads only ``src``'s leading index-shaped corner, and jitgrad gives the rest of ``src`` a zero
gradient. PyTorch 2.13 computes the same forward but its backward returns an index-shaped
gradient for ``src`` and its engine refuses it ("returned an invalid gradient"; for ``prod``,
``amax`` and ``amin`` a broadcast error), out of place and in place alike
(pytorch/pytorch#27614). The oracle for jitgrad's gradient is PyTorch's gradient of the same
program given only the corner (``src[:r, :c]``), which it differentiates."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import jitgrad
from compat_helpers import same
from jitgrad.autograd import gradcheck, gradgradcheck

_RNG = np.random.default_rng(5)
_X = _RNG.standard_normal((3, 4))
_SRC = _RNG.standard_normal((4, 6))
_INDEX = {0: [[0, 2, 1], [2, 2, 0]], 1: [[3, 0], [1, 1], [0, 3]]}  # (duplicates: reductions meet)

# op name -> f(x, dim, index, src); each reads src[:r, :c] for an index of shape (r, c)
_OPS = {
    "scatter": lambda x, d, i, s: x.scatter(d, i, s),
    "scatter_": lambda x, d, i, s: x.clone().scatter_(d, i, s),
    "scatter_add": lambda x, d, i, s: x.scatter_add(d, i, s),
    "scatter_add_": lambda x, d, i, s: x.clone().scatter_add_(d, i, s),
    **{f"scatter_reduce {r}{'' if own else ' without self'}": (
        lambda x, d, i, s, r=r, own=own: x.scatter_reduce(d, i, s, r, include_self=own))
       for r in ("sum", "prod", "mean", "amax", "amin") for own in (True, False)},
    "scatter_reduce_ prod": lambda x, d, i, s: x.clone().scatter_reduce_(d, i, s, "prod"),
}


def _inputs(lib: Any, dim: int, corner: bool) -> tuple[Any, Any, Any]:
    index = np.array(_INDEX[dim])
    src = _SRC[: index.shape[0], : index.shape[1]] if corner else _SRC
    return (lib.tensor(_X, dtype=lib.float64, requires_grad=True), lib.tensor(index),
            lib.tensor(src, dtype=lib.float64, requires_grad=True))


def _grads(lib: Any, name: str, dim: int, corner: bool) -> tuple[Any, Any, Any]:
    """(the output, x's gradient, src's gradient) of a weighted sum of the scatter."""
    x, index, src = _inputs(lib, dim, corner)
    y = _OPS[name](x, dim, index, src)
    w = lib.tensor(np.arange(12.0).reshape(3, 4) - 5.0, dtype=lib.float64)
    (y * y * w).sum().backward()
    return y, x.grad, src.grad


@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("name", sorted(_OPS))
def test_pytorch_refuses_the_larger_sources_gradient(name: str, dim: int) -> None:
    with pytest.raises(RuntimeError, match="invalid gradient|must match the size"):
        _grads(torch, name, dim, corner=False)


@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("name", sorted(_OPS))
def test_jitgrad_gives_the_unread_part_of_src_zero_gradient(name: str, dim: int) -> None:
    y, gx, gsrc = _grads(jitgrad, name, dim, corner=False)
    ty, tgx, tgcorner = _grads(torch, name, dim, corner=True)
    same(y, ty)
    np.testing.assert_allclose(gx.numpy(), tgx.numpy(), rtol=1e-14, atol=0)
    r, c = np.array(_INDEX[dim]).shape
    assert tuple(gsrc.shape) == _SRC.shape
    np.testing.assert_allclose(gsrc.numpy()[:r, :c], tgcorner.numpy(), rtol=1e-14, atol=0)
    assert not gsrc.numpy()[r:].any() and not gsrc.numpy()[:, c:].any()


@pytest.mark.parametrize("name", ["scatter", "scatter_", "scatter_add", "scatter_reduce_ prod"])
def test_the_node_takes_src_itself_as_pytorchs(name: str) -> None:
    """The node's second edge is ``src``'s own (AccumulateGrad), not a slice of it."""
    names = []
    for lib in (torch, jitgrad):
        x, index, src = _inputs(lib, 1, corner=False)
        y = _OPS[name](x, 1, index, src)
        names.append([n.name() for n, _ in y.grad_fn.next_functions])
    assert names[0] == names[1]
    assert names[0][1] == "torch::autograd::AccumulateGrad"


def test_numerical_first_and_second_derivatives() -> None:
    x, _, src = _inputs(jitgrad, 1, corner=False)
    index = jitgrad.tensor([[3, 0], [1, 2], [0, 3]])  # (no repeats in a row: scatter's last write is defined)
    for name in ("scatter", "scatter_add", "scatter_reduce prod", "scatter_reduce mean without self"):
        def f(a: Any, b: Any, name: str = name) -> Any:
            return _OPS[name](a, 1, index, b)

        assert gradcheck(f, (x, src))
        assert gradgradcheck(f, (x, src))
