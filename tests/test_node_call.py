"""Calling a graph node from Python (``y.grad_fn(g)``), as PyTorch's C++ nodes: one
gradient per forward output, the result unwrapped when the forward had one differentiable
input, arity and argument types checked with PyTorch's messages."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
import torch

import jitgrad


def _x(lib: Any) -> Any:
    return lib.tensor([1.0, -2.0, 3.0], dtype=lib.float64, requires_grad=True)


def _ones(lib: Any, *shape: int) -> Any:
    return lib.ones(*shape, dtype=lib.float64)


CASES: dict[str, Callable[[Any], Any]] = {
    "sum": lambda lib: (_x(lib).sum().grad_fn, (lib.tensor(2.0, dtype=lib.float64),)),
    "exp": lambda lib: (_x(lib).exp().grad_fn, (_ones(lib, 3),)),
    "mul_number": lambda lib: ((_x(lib) * 2).grad_fn, (_ones(lib, 3),)),
    "mul_tensors": lambda lib: ((lambda x: (x * (x + 1)).grad_fn)(_x(lib)), (_ones(lib, 3),)),
    "stack": lambda lib: ((lambda x: lib.stack([x, x * 3]).grad_fn)(_x(lib)), (_ones(lib, 2, 3),)),
    "unbind": lambda lib: ((lambda x: (x * 1).unbind()[0].grad_fn)(_x(lib)),
                           (lib.tensor(1.0, dtype=lib.float64), None, None)),
    "none_in": lambda lib: (_x(lib).sum().grad_fn, (None,)),
    "none_in_two": lambda lib: ((_x(lib) * 2).grad_fn, (None,)),
}


def _plain(out: Any) -> Any:
    if isinstance(out, tuple):
        return ("tuple", [_plain(o) for o in out])
    if out is None:
        return None
    return ("tensor", out.detach().numpy().tolist())


@pytest.mark.parametrize("case", sorted(CASES))
def test_node_call_matches_pytorch(case: str) -> None:
    results = []
    for lib in (torch, jitgrad):
        node, grads = CASES[case](lib)
        results.append(_plain(node(*grads)))
    assert results[0] == results[1]


def test_one_output_node_returns_the_tensor_not_a_tuple() -> None:
    x = _x(jitgrad)
    out = x.exp().grad_fn(_ones(jitgrad, 3))
    assert isinstance(out, jitgrad.Tensor)
    np.testing.assert_array_equal(out.detach().numpy(), np.exp([1.0, -2.0, 3.0]))


def test_accumulate_grad_called_accumulates_and_returns_empty_tuple() -> None:
    for lib in (torch, jitgrad):
        x = _x(lib)
        acc = (x * 1).grad_fn.next_functions[0][0]
        assert acc(_ones(lib, 3)) == ()
        assert x.grad.tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("args", [(), ("two", "many")], ids=["none", "two"])
def test_wrong_number_of_gradients_raises_type_error_like_pytorch(args: tuple[Any, ...]) -> None:
    messages = []
    for lib in (torch, jitgrad):
        x = _x(lib)
        node = x.sum().grad_fn
        with pytest.raises(TypeError) as info:
            node(*[lib.tensor(1.0, dtype=lib.float64) for _ in args])
        messages.append(str(info.value))
        assert x.grad is None
    assert messages[0] == messages[1] == f"expected 1 arguments, got {len(args)} instead"


def test_non_tensor_gradient_raises_type_error_naming_the_argument() -> None:
    for lib in (torch, jitgrad):
        x = _x(lib)
        with pytest.raises(TypeError, match="argument 0 is not a Variable"):
            x.sum().grad_fn("a")
        assert x.grad is None
