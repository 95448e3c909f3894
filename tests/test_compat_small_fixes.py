"""Small differences from PyTorch, each fixed and checked side by side: the same program runs
with ``lib=torch`` and ``lib=jitgrad`` (``both`` in ``compat_helpers.py``) and what came out,
node names and gradients included, must match."""

from __future__ import annotations

from typing import Any

import pytest

from tests.compat_helpers import both, numbers


def _edges(t: Any) -> list[str | None]:
    return [None if f is None else f.name() for f, _ in t.grad_fn.next_functions]


# -- div with rounding_mode=None given: PyTorch's div.Tensor_mode overload, DivBackward2 ----------
@pytest.mark.parametrize("call", [
    lambda lib, x, y: lib.div(x, y, rounding_mode=None),
    lambda lib, x, y: lib.div(x, 2.5, rounding_mode=None),
    lambda lib, x, y: x.div(y, rounding_mode=None),
    lambda lib, x, y: x.divide(y, rounding_mode=None),
    lambda lib, x, y: lib.divide(x, y, rounding_mode=None),
    lambda lib, x, y: x.__truediv__(y, rounding_mode=None),
    lambda lib, x, y: (x * 1).div_(y, rounding_mode=None),
    lambda lib, x, y: (x * 1)[1:].div_(y[1:], rounding_mode=None),
    lambda lib, x, y: lib.div(x, y),
    lambda lib, x, y: x / y,
    lambda lib, x, y: lib.div(x, y, rounding_mode="floor"),
], ids=["div", "div-number", "method", "divide-method", "divide", "dunder", "in-place", "in-place-view",
        "no-keyword", "operator", "floor"])
def test_div_node_follows_the_rounding_mode_keyword(call: Any) -> None:
    def program(lib: Any) -> Any:
        x, y = numbers(lib, 3, grad=True), numbers(lib, 3, seed=1, grad=True)
        out = call(lib, x, y)
        out.backward(lib.ones_like(out))
        return out, out.grad_fn.name(), _edges(out), x.grad, y.grad

    both(program)


def test_div_rounding_mode_none_of_integers_is_true_division() -> None:
    both(lambda lib: lib.div(lib.tensor([1, 2, -3]), lib.tensor([2, 2, 2]), rounding_mode=None))
