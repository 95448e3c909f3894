"""Advanced indexing (integer arrays/tensors, boolean masks): a gather whose backward is a
scatter-add (``IndexBackward0``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import indexing
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, Node
from ..tensor import Tensor
from .operands import from_result


class IndexBackward0(Node):
    def __init__(self, input_sizes: tuple[int, ...], np_index: tuple[Any, ...]) -> None:
        super().__init__()
        self.input_sizes = input_sizes
        self.np_index = np_index

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        return (index_put_zeros(grads[0], self.input_sizes, self.np_index),)  # type: ignore[arg-type]


class IndexPutZerosBackward(Node):
    """Backward of the scatter-add: gather the gradient at the same indices."""

    def __init__(self, np_index: tuple[Any, ...]) -> None:
        super().__init__()
        self.np_index = np_index

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        return (gather(grads[0], self.np_index),)  # type: ignore[arg-type]


def gather(self: Tensor, np_index: tuple[Any, ...]) -> Tensor:
    if self.numel() == 0:  # PyTorch checks no index when there is nothing to gather
        values = np.empty(indexing.result_shape(self._sizes, np_index), self.dtype)
    else:
        values = np.asarray(indexing.fancy(self._numpy(), np_index))
    out = from_result(values)
    if needs_grad(self):
        record(IndexBackward0(self._sizes, np_index), (self,), (out,))
    return out


def index_put_zeros(g: Tensor, sizes: tuple[int, ...], np_index: tuple[Any, ...]) -> Tensor:
    """Zeros of ``sizes`` with ``g`` scatter-added at ``np_index`` (repeated indices add up)."""
    values = np.zeros(sizes, g.dtype)
    np.add.at(values, np_index, g._numpy())
    out = from_result(values)
    if needs_grad(g):
        record(IndexPutZerosBackward(np_index), (g,), (out,))
    return out


