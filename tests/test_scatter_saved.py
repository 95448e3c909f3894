"""The scatter family's nodes save what PyTorch's save, under PyTorch's names, side by side:
``dir(node)``'s ``_saved_*`` / ``_raw_saved_*`` entries, their values (the dim as given, a
negative one read as uint64; the index; alpha; reduce; include_self; sizes), None for what
PyTorch saves only for another input's gradient, and backward refusing after a saved index
or source was written in place (and running where nothing of it was saved). Also the 0-d
forms, which record the same nodes as PyTorch."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
import torch

import jitgrad

_X = np.arange(12.0).reshape(3, 4) / 7.0 - 0.5


def _leaves(lib: Any, src_grad: bool) -> tuple[Any, Any, Any, Any]:
    x = lib.tensor(_X, dtype=lib.float64, requires_grad=True)
    src = lib.tensor(_X[::-1].copy(), dtype=lib.float64, requires_grad=src_grad)
    return x, src, lib.tensor([[0, 1], [2, 0]]), lib.tensor([0, 2])


# name -> f(lib, x, src, index, index1): the op on non-leaf copies (so in-place forms work)
_OPS: dict[str, Callable[..., Any]] = {
    "scatter": lambda L, x, s, i, i1: (x * 1).scatter(0, i, s[:2, :2]),
    "scatter neg dim": lambda L, x, s, i, i1: (x * 1).scatter(-1, i, s[:2, :2] * 1),
    "scatter value": lambda L, x, s, i, i1: (x * 1).scatter(1, i, 2.5),
    "scatter_": lambda L, x, s, i, i1: (x * 1).scatter_(0, i, s[:2, :2] * 1),
    "scatter_add": lambda L, x, s, i, i1: (x * 1).scatter_add(-2, i, s[:2, :2] * 1),
    "scatter_add_": lambda L, x, s, i, i1: (x * 1).scatter_add_(1, i, s[:2, :2] * 1),
    "scatter_reduce": lambda L, x, s, i, i1: (x * 1).scatter_reduce(-2, i, s[:2, :2] * 1, "amax",
                                                                              include_self=False),
    "scatter_reduce_": lambda L, x, s, i, i1: (x * 1).scatter_reduce_(1, i, s[:2, :2] * 1, "prod"),
    "index_add": lambda L, x, s, i, i1: (x * 1).index_add(1, i1, s[:, :2] * 1, alpha=2),
    "index_add float alpha": lambda L, x, s, i, i1: (x * 1).index_add(-1, i1, s[:, :2] * 1, alpha=0.5),
    "index_add_": lambda L, x, s, i, i1: (x * 1).index_add_(0, i1, s[:2] * 1),
    "index_copy": lambda L, x, s, i, i1: (x * 1).index_copy(1, i1, s[:, :2] * 1),
    "index_copy_": lambda L, x, s, i, i1: (x * 1).index_copy_(-2, i1, s[:2] * 1),
    "index_fill": lambda L, x, s, i, i1: (x * 1).index_fill(1, i1, 3.0),
    "index_fill tensor": lambda L, x, s, i, i1: (x * 1).index_fill(-1, i1, s[0, 0] * 1),
    "index_fill_": lambda L, x, s, i, i1: (x * 1).index_fill_(0, i1, -1.0),
    "index_reduce": lambda L, x, s, i, i1: (x * 1).index_reduce(1, i1, s[:, :2] * 1, "mean", include_self=False),
    "masked_fill tensor": lambda L, x, s, i, i1: (x * 1).masked_fill(x > 0, s[0, 0] * 1),
    "masked_scatter": lambda L, x, s, i, i1: (x * 1).masked_scatter(x > 0, s * 1),
    "masked_scatter_": lambda L, x, s, i, i1: (x * 1).masked_scatter_(x > 0, s * 1),
}

pytestmark = pytest.mark.filterwarnings("ignore:index_reduce\\(\\) is in beta")


def _plain(value: Any) -> Any:
    """A saved value in a comparable form."""
    if isinstance(value, (torch.Tensor, jitgrad.Tensor)):
        return ("tensor", str(value.dtype).split(".")[-1], value.detach().tolist())
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    return value if value is None else (type(value).__name__, value)


def _saved(lib: Any, name: str, src_grad: bool) -> tuple[str, dict[str, Any], list[str]]:
    node = _OPS[name](lib, *_leaves(lib, src_grad)).grad_fn
    attrs = sorted(a for a in dir(node) if a.startswith("_saved_"))
    raw = sorted(a for a in dir(node) if a.startswith("_raw_saved_"))
    return node.name(), {a: _plain(getattr(node, a)) for a in attrs}, raw


@pytest.mark.parametrize("src_grad", [True, False])
@pytest.mark.parametrize("name", sorted(_OPS))
def test_saved_names_and_values_as_pytorchs(name: str, src_grad: bool) -> None:
    assert _saved(jitgrad, name, src_grad) == _saved(torch, name, src_grad)


def _backward_after_write(lib: Any, name: str, written: str, src_grad: bool) -> str:
    x, src, index, index1 = _leaves(lib, src_grad)
    y = _OPS[name](lib, x, src, index, index1)
    with lib.no_grad():
        {"index": index, "index1": index1}[written].add_(0)
    try:
        y.sum().backward()
    except RuntimeError as e:
        return "refused" if "modified by an inplace operation" in str(e) else str(e)
    return "ok"


@pytest.mark.parametrize("src_grad", [True, False])
@pytest.mark.parametrize("name", sorted(_OPS))
def test_writing_a_saved_index_refuses_backward_as_pytorch(name: str, src_grad: bool) -> None:
    """(scatter_add and index_add save the index only for src's gradient: PyTorch's runs then.)"""
    for written in ("index", "index1"):
        assert _backward_after_write(jitgrad, name, written, src_grad) == _backward_after_write(
            torch, name, written, src_grad), written


def test_writing_index_adds_saved_source_refuses_backward_as_pytorch() -> None:
    for lib in (torch, jitgrad):
        x, src, _, index1 = _leaves(lib, True)
        source = src[:, :2] * 1
        y = (x * 1).index_add(1, index1, source)
        with lib.no_grad():
            source.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


# -- 0-d forms -------------------------------------------------------------------------------
_ZERO_D = {
    "scatter 0-d src": lambda L, x0, v: L.zeros(3, dtype=L.float64).scatter(0, L.tensor([1]), v),
    "scatter all 0-d": lambda L, x0, v: x0.scatter(0, L.tensor(0), v),
    "scatter_ 0-d src": lambda L, x0, v: L.zeros(3, dtype=L.float64).scatter_(0, L.tensor(1), v),
    "scatter_add all 0-d": lambda L, x0, v: x0.scatter_add(0, L.tensor(0), v),
    "index_add all 0-d": lambda L, x0, v: x0.index_add(0, L.tensor([0]), v, alpha=3),
    "index_add 0-d index": lambda L, x0, v: x0.index_add(0, L.tensor(0), v),
}


@pytest.mark.parametrize("name", sorted(_ZERO_D))
def test_zero_d_forms_record_pytorchs_node(name: str) -> None:
    out = []
    for lib in (torch, jitgrad):
        x0 = lib.tensor(1.5, dtype=lib.float64, requires_grad=True)
        v = lib.tensor(-2.0, dtype=lib.float64, requires_grad=True)
        y = _ZERO_D[name](lib, x0, v)
        names = [y.grad_fn.name()] + [n.name() if n else None for n, _ in y.grad_fn.next_functions]
        (y * y).sum().backward()
        out.append((names, y.tolist(), None if x0.grad is None else x0.grad.item(), v.grad.item()))
    assert out[0] == out[1]


_REFUSED = {
    "scatter 0-d src, 2-d index": (lambda L: L.zeros(3, 4).scatter(0, L.tensor([[0, 1]]), L.tensor(2.0)),
                                   RuntimeError, "Index tensor must have the same number of dimensions as src"),
    "scatter value= a tensor that needs grad": (
        lambda L: L.zeros(3).scatter(0, L.tensor([1]), value=L.tensor(2.0, requires_grad=True)), TypeError, "value"),
    "index_add 1-d source into 0-d": (lambda L: L.tensor(1.0).index_add(0, L.tensor([0]), L.ones(1)),
                                      RuntimeError, "source tensor shape must match self tensor shape"),
    "index_add 0-d source into 1-d": (lambda L: L.zeros(3).index_add(0, L.tensor([0]), L.tensor(1.0)),
                                      RuntimeError, "source tensor shape must match self tensor shape"),
}


def test_value_may_be_a_0_d_tensor_that_needs_no_grad() -> None:
    for lib in (torch, jitgrad):
        x = lib.zeros(3, dtype=lib.float64, requires_grad=True)
        y = x.scatter(0, lib.tensor([1]), value=lib.tensor(2.0))
        assert y.tolist() == [0.0, 2.0, 0.0] and y.grad_fn.name() == "ScatterBackward1"


@pytest.mark.parametrize("name", sorted(_REFUSED))
def test_refused_as_pytorch(name: str) -> None:
    program, error, fragment = _REFUSED[name]
    for lib in (torch, jitgrad):
        with pytest.raises(error, match=fragment):
            program(lib)
