"""Elementwise arithmetic with broadcasting and PyTorch's type promotion.

Each op's backward node sits next to its forward and returns local gradients; the engine
sums gradients of broadcast inputs back to their shapes and casts them to their dtypes.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, Node, SavingNode
from ..tensor import Tensor
from ._common import binary, result_type
from .inplace import apply_inplace


def _tensors(*xs: Any) -> tuple[Tensor | None, ...]:
    """The tensor operands (scalars are not differentiable inputs)."""
    return tuple(x if isinstance(x, Tensor) else None for x in xs)


class AddBackward0(Node):
    def __init__(self, alpha: Any = 1) -> None:
        super().__init__()
        self.alpha = alpha

    def apply(self, grads: Grads, owned: Sequence[bool] = ()) -> tuple[Tensor | None, ...]:
        g = grads[0]
        return (
            g if self.needs_input_grad(0) else None,
            (g if self.alpha == 1 else mul(g, self.alpha)) if self.needs_input_grad(1) else None,
        )


def add(input: Any, other: Any, *, alpha: Any = 1) -> Tensor:
    scaled = other if alpha == 1 else mul(other, alpha) if isinstance(other, Tensor) else other * alpha
    out = binary(np.add, input, scaled, result_type(input, other))
    if needs_grad(input, other):
        record(AddBackward0(alpha), _tensors(input, other), (out,))
    return out


def add_(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    dtype = result_type(self, other)
    scaled = other if alpha == 1 else (other.numpy() * alpha if isinstance(other, Tensor) else other * alpha)
    values = np.add(self.numpy(), scaled.numpy() if isinstance(scaled, Tensor) else scaled, dtype=dtype)
    return apply_inplace("add_", self, values, dtype, _tensors(self, other), lambda: AddBackward0(alpha))


class MulBackward0(SavingNode):
    def apply(self, grads: Grads, owned: Sequence[bool] = ()) -> tuple[Tensor | None, ...]:
        g = grads[0]
        a, b = self.unpack()
        return (
            mul(g, b) if self.needs_input_grad(0) else None,
            mul(g, a) if self.needs_input_grad(1) else None,
        )


def mul(input: Any, other: Any) -> Tensor:
    out = binary(np.multiply, input, other)
    if needs_grad(input, other):
        node = MulBackward0()
        record(node, _tensors(input, other), (out,))
        # d(out)/d(input) needs other and vice versa: save only what will be used
        node.save(
            input if node.needs_input_grad(1) else None,
            other if node.needs_input_grad(0) else None,
        )
    return out
