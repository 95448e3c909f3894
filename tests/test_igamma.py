"""``igamma``/``igammac`` (and ``special.gammainc``/``gammaincc``, their aliases) side by side
with PyTorch: the nodes ``IgammaBackward0``/``IgammacBackward0`` with ``_saved_self`` and
``_saved_other``, the gradient in ``other`` (first and second derivatives), PyTorch's
``NotImplementedError`` when a backward needs the one in ``self``, the in-place forms,
broadcasting, dtypes, the limits at ``a = 0`` and ``a = inf``, and refusals."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import jitgrad
from compat_helpers import both

_A = [0.5, 2.0, 3.0, 10.0]
_X = [1.0, 1.5, 4.0, 8.0]


def _pair(lib: Any, a_grad: bool = False, x_grad: bool = True) -> tuple[Any, Any]:
    return (lib.tensor(_A, dtype=lib.float64, requires_grad=a_grad),
            lib.tensor(_X, dtype=lib.float64, requires_grad=x_grad))


def _names(fn: Any) -> list[str]:
    return [] if fn is None else [fn.name()] + [m for n, _ in fn.next_functions for m in _names(n)]


_CALLS = {
    "igamma": lambda L, a, x: L.igamma(a, x),
    "igammac": lambda L, a, x: L.igammac(a, x),
    "special.gammainc": lambda L, a, x: L.special.gammainc(a, x),
    "special.gammaincc": lambda L, a, x: L.special.gammaincc(a, x),
    "method": lambda L, a, x: a.igammac(x),
    "igamma_": lambda L, a, x: (a * 1).igamma_(x),
    "igammac_": lambda L, a, x: (a * 1).igammac_(x),
    "broadcast": lambda L, a, x: L.igamma(a.reshape(4, 1), x),
}


@pytest.mark.parametrize("name", sorted(_CALLS))
def test_nodes_values_and_gradients_as_pytorchs(name: str) -> None:
    def program(lib: Any) -> Any:
        a, x = _pair(lib)
        y = _CALLS[name](lib, a, x)
        node = y.grad_fn
        saved = sorted(n for n in dir(node) if n.startswith("_saved_"))
        names, other = _names(node), node._saved_other
        (g,) = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        return names, saved, other, y, g, gg
    ours, theirs = program(jitgrad), program(torch)
    assert ours[:2] == theirs[:2]
    for a, b in zip(ours[2:], theirs[2:]):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-8, atol=1e-14)


@pytest.mark.parametrize("name", sorted(_CALLS))
def test_the_derivative_in_a_is_not_implemented(name: str) -> None:
    def program(lib: Any) -> Any:
        a, x = _pair(lib, a_grad=True)
        _CALLS[name](lib, a, x).sum().backward()
    both(program)


def test_limits_and_nan_as_pytorch() -> None:
    a = [0.0, 0.0, 0.0, -1.0, 1.0, 1.0, 1.0, np.inf, 2.0, np.nan, 3.0]
    x = [1.0, 0.0, -1.0, 1.0, 0.0, -1.0, np.inf, 2.0, np.inf, 1.0, np.nan]
    for op in ("igamma", "igammac"):
        ours = getattr(jitgrad, op)(jitgrad.tensor(a, dtype=jitgrad.float64), jitgrad.tensor(x, dtype=jitgrad.float64))
        theirs = getattr(torch, op)(torch.tensor(a, dtype=torch.float64), torch.tensor(x, dtype=torch.float64))
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-10, atol=0)


@pytest.mark.parametrize("dtypes", [("float32", "float32"), ("float32", "float64"), ("int64", "float32"),
                                    ("bool", "float64"), ("int32", "int32"), ("bool", "bool")])
def test_dtypes_as_pytorch(dtypes: tuple[str, str]) -> None:
    def program(lib: Any) -> Any:
        y = lib.igamma(lib.tensor([1, 2]).to(getattr(lib, dtypes[0])), lib.tensor([1, 3]).to(getattr(lib, dtypes[1])))
        return str(y.dtype).split(".")[-1], y.tolist()
    theirs_kind = None
    try:
        theirs = program(torch)
    except NotImplementedError as e:
        theirs_kind = str(e)
    if theirs_kind is not None:
        with pytest.raises(NotImplementedError, match="igamma_cpu. not implemented for"):
            program(jitgrad)
        return
    ours = program(jitgrad)
    assert ours[0] == theirs[0]
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-6)


def test_a_number_is_refused_as_pytorch() -> None:
    for lib in (torch, jitgrad):
        with pytest.raises(TypeError, match="must be Tensor"):
            lib.igamma(lib.tensor([1.0]), 2.0)


def test_gamma_cdf_records_igamma() -> None:
    def program(lib: Any) -> Any:
        rate = lib.tensor([1.5, 0.5], dtype=lib.float64, requires_grad=True)
        cdf = lib.distributions.Gamma(lib.tensor([2.0, 3.0], dtype=lib.float64), rate).cdf(
            lib.tensor([1.0, 4.0], dtype=lib.float64))
        cdf.sum().backward()
        return _names(cdf.grad_fn)[0], cdf, rate.grad
    ours, theirs = program(jitgrad), program(torch)
    assert ours[0] == theirs[0] == "IgammaBackward0"
    np.testing.assert_allclose(ours[1].detach().numpy(), theirs[1].detach().numpy(), rtol=1e-9)
    np.testing.assert_allclose(ours[2].numpy(), theirs[2].numpy(), rtol=1e-9)
