"""Mask ops: ``masked_fill``, ``masked_select``, ``masked_scatter`` and ``masked_fill_``,
``masked_scatter_``. ``masked_fill`` is a ``where`` with a constant mask; ``masked_select``
a gather at the mask's positions; ``masked_scatter`` writes the leading source elements to
those positions (``MaskedScatterBackward0``: the gradient gathered back from there)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from ..tensor import Tensor
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, SavingNode
from .operands import from_result, new_tensor
from ._index_args import MaskedSelectBackward0, broadcast, fill_value, gather_as, same_dtype, tensor_arg
from .compare import where
from .index_ops import gather as gather_at
from .index_ops import index_put_zeros
from .inplace import apply_inplace
from .inplace_result import write_result
from .reduction import sum as sum_
from .view_ops import expand, reshape


# -- out of place ------------------------------------------------------------------------------
def _mask(op: str, mask: Any) -> Tensor:
    tensor_arg(op, "mask", mask)
    if mask.dtype != dtypes.bool_:
        raise RuntimeError(f"{op}(): expected a boolean mask, but got mask with dtype {mask.dtype.name}")
    return mask


class MaskedFillBackward0(SavingNode):
    """``masked_fill`` with a number: nothing for the filled positions of ``input`` (one edge,
    as PyTorch's)."""

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        mask = self.unpack()[-1]  # (after what the ops made of it save: ``filled``)
        return (where(mask, 0.0, grads[0]),)


class MaskedFillBackward1(SavingNode):
    """``masked_fill`` with a 0-d tensor value: as ``MaskedFillBackward0`` for ``input``; the
    value gets the sum of the filled positions' gradient."""

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        mask = self.unpack()[-1]
        return (
            where(mask, 0.0, g) if self.needs_input_grad(0) else None,
            sum_(where(mask, g, 0.0)) if self.needs_input_grad(1) else None,
        )


def masked_fill(input: Tensor, mask: Tensor, value: Any) -> Tensor:
    """A copy of ``input`` with ``value`` (a number or a 0-d tensor) where ``mask`` holds."""
    return filled(input, mask, value, (MaskedFillBackward0, MaskedFillBackward1), "masked_fill")


def filled(input: Tensor, mask: Tensor, value: Any, nodes: tuple[type[SavingNode], type[SavingNode]],
           op: str, saved: tuple[Any, ...] = ()) -> Tensor:
    """``masked_fill`` recorded with ``nodes``, the node for a number and for a tensor value
    (the ops made of it record PyTorch's names: ``scatter``'s ``ScatterBackward1``, ...),
    which saves ``saved`` (what PyTorch's saves: ``index_fill``'s dim and index) and then the
    mask."""
    tensor_arg(op, "input", input)
    _mask(op, mask)
    value = fill_value(op, input, value)
    shape = broadcast(op, input._sizes, mask._sizes)
    out, view = new_tensor(shape, input.dtype)
    np.copyto(view, input._numpy())
    np.copyto(view, value._numpy() if isinstance(value, Tensor) else value, casting="unsafe", where=mask._numpy())
    tensor_value = value if isinstance(value, Tensor) else None
    if needs_grad(input, tensor_value):
        node: SavingNode = nodes[0]() if tensor_value is None else nodes[1]()
        record(node, (input,) if tensor_value is None else (input, tensor_value), (out,))
        node.save(*saved, mask)
    return out


def masked_select(input: Tensor, mask: Tensor) -> Tensor:
    """The elements of ``input`` where ``mask`` holds (both broadcast), as a 1-D tensor."""
    op = "masked_select"
    tensor_arg(op, "input", input)
    _mask(op, mask)
    shape = broadcast(op, input._sizes, mask._sizes)
    source = expand(input, shape) if input._sizes != shape else input
    m = np.broadcast_to(mask._numpy(), shape)
    if not shape:
        return gather_as(MaskedSelectBackward0, reshape(source, 1), np.nonzero(m.reshape(1)), (input, mask))
    return gather_as(MaskedSelectBackward0, source, np.nonzero(m), (input, mask))


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """A copy of ``input`` with the leading elements of ``source`` written, in order, where
    ``mask`` holds."""
    op = "masked_scatter"
    tensor_arg(op, "input", input)
    _mask(op, mask)
    tensor_arg(op, "source", source)
    same_dtype(op, input, source, "source")
    shape = broadcast(op, input._sizes, mask._sizes)
    m = np.broadcast_to(mask._numpy(), shape)
    k = int(np.count_nonzero(m))
    if source.numel() < k:
        raise RuntimeError(
            f"{op}(): Number of elements of source < number of ones in mask (got {source.numel()} "
            f"and {k})"
        )
    values = np.array(np.broadcast_to(input._numpy(), shape))
    values[m] = source._numpy().reshape(-1)[:k]
    out = from_result(values, input.dtype)
    if needs_grad(input, source):
        node = MaskedScatterBackward0(source._sizes)
        record(node, (input, source), (out,))
        node.save(from_result(np.array(m)), source._sizes)
    return out


class MaskedScatterBackward0(SavingNode):
    """Backward of ``masked_scatter``: nothing for the overwritten positions of ``input``;
    ``source``'s leading elements get the gradient at the mask's positions, in order, the
    others zeros (PyTorch's ``masked_scatter_backward``)."""

    def __init__(self, source_sizes: tuple[int, ...]) -> None:
        super().__init__()
        self.source_sizes = source_sizes

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        mask, _ = self.unpack()
        gsource = None
        if self.needs_input_grad(1):
            n = 1
            for s in self.source_sizes:
                n *= s
            picked = gather_at(reshape(g, 1) if not g.ndim else g, np.nonzero(mask._numpy().reshape(g._sizes or (1,))))
            gsource = reshape(index_put_zeros(picked, (n,), (np.arange(picked.numel()),)), self.source_sizes)
        return (where(mask, 0.0, g) if self.needs_input_grad(0) else None, gsource)



# -- in place ---------------------------------------------------------------------------------
def masked_fill_(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    """``masked_fill`` in place; its node is ``MaskedFillBackward0/1`` itself, as PyTorch's."""
    op = "masked_fill_"
    tensor_arg(op, "self", self)
    _mask(op, mask)
    value = fill_value(op, self, value)
    _broadcast_into(op, self, mask)
    values = self._numpy().copy()
    np.copyto(values, value._numpy() if isinstance(value, Tensor) else value, casting="unsafe",
              where=mask._numpy())
    tensor_value = value if isinstance(value, Tensor) else None

    def make_node() -> SavingNode:
        node: SavingNode = MaskedFillBackward0() if tensor_value is None else MaskedFillBackward1()
        node.save(mask)
        return node

    inputs = (self,) if tensor_value is None else (self, tensor_value)
    return apply_inplace(op, self, values, self.dtype, inputs, make_node)


def masked_scatter_(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    _broadcast_into("masked_scatter_", self, mask)
    return write_result("masked_scatter_", self, masked_scatter(self, mask, source), "MaskedScatterBackward0",
                        (source,))


def _broadcast_into(op: str, self: Tensor, mask: Any) -> None:
    if isinstance(mask, Tensor) and broadcast(op, self._sizes, mask._sizes) != self._sizes:
        raise RuntimeError(
            f"{op}(): mask of shape {list(mask._sizes)} can't be broadcast to the in-place "
            f"tensor's shape {list(self._sizes)}"
        )
