"""``checkpoint(use_reentrant=True)`` refuses to run inside ``autograd.grad`` or
``backward(inputs=...)``, with PyTorch's error (its documented contract: the reentrant
variant supports only ``backward()``), side by side; ``backward()``, the non-reentrant
variant under ``grad``, and a nested plain ``backward`` inside a ``grad`` elsewhere still
work, and the refusal changes no ``.grad``."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import pytest
import torch

import jitgrad
from compat_helpers import both

_MESSAGE = "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad()"


def _f(t: Any) -> Any:
    return (t * t).sin()


def _x(lib: Any) -> Any:
    return lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)


def _cp(lib: Any, reentrant: bool, x: Any) -> Any:
    return lib.utils.checkpoint.checkpoint(_f, x, use_reentrant=reentrant)


_REFUSED: dict[str, Callable[[Any, Any], Any]] = {
    "grad": lambda L, x: L.autograd.grad(_cp(L, True, x).sum(), x),
    "grad, create_graph": lambda L, x: L.autograd.grad(_cp(L, True, x).sum(), x, create_graph=True),
    "backward(inputs=)": lambda L, x: _cp(L, True, x).sum().backward(inputs=[x]),
    "grad of a later op's input": lambda L, x: L.autograd.grad((_cp(L, True, x) * x).sum(), x),
}

_ALLOWED: dict[str, Callable[[Any, Any], Any]] = {
    "backward": lambda L, x: (_cp(L, True, x).sum().backward(), x.grad)[1],
    "backward, create_graph": lambda L, x: (_cp(L, True, x).sum().backward(create_graph=True), x.grad)[1],
    "grad, use_reentrant=False": lambda L, x: L.autograd.grad(_cp(L, False, x).sum(), x),
    "grad past a checkpoint of detached inputs": lambda L, x: L.autograd.grad(
        (_cp(L, True, x.detach()) * x).sum(), x),
}


@pytest.mark.parametrize("name", sorted(_REFUSED))
def test_refused_with_pytorchs_error(name: str) -> None:
    def program(lib: Any) -> Any:
        x = _x(lib)
        try:
            _REFUSED[name](lib, x)
        except RuntimeError as e:
            return str(e).startswith(_MESSAGE), x.grad
        return "ran"
    assert both(program) == (True, None)


@pytest.mark.parametrize("name", sorted(_ALLOWED))
def test_allowed_as_pytorch(name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        both(lambda lib: _ALLOWED[name](lib, _x(lib)))


def test_the_error_does_not_outlive_the_pass() -> None:
    """After a refused grad, a reentrant checkpoint's backward() runs again."""
    x = _x(jitgrad)
    with pytest.raises(RuntimeError, match="use_reentrant=True"):
        jitgrad.autograd.grad(_cp(jitgrad, True, x).sum(), x)
    _cp(jitgrad, True, x).sum().backward()
    assert x.grad is not None
    assert jitgrad.autograd.grad_mode.is_checkpoint_valid()
