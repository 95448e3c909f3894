"""In-place comparisons (``eq_``, ``lt_``, ...), logical ops (``logical_and_``, ...) and
``bitwise_not_``: the result, 0 or 1, is written into ``self`` in ``self``'s dtype.

PyTorch treats the two families differently, and so does this module:

- a comparison is recorded: ``EqBackward0`` (a number ``other``) or ``EqBackward1`` (a tensor
  ``other``), whose gradients are zeros; the usual in-place checks apply (a leaf that
  requires grad is refused);
- a logical op has no autograd formula at all: nothing is recorded, ``self`` keeps its
  ``grad_fn`` (a backward through it passes the gradient on unchanged) and even a leaf that
  requires grad is written; only the version counter moves.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.node import Grads, Node
from ..creation import zeros
from ..geometry import broadcast_shapes
from ..tensor import Tensor
from . import compare
from .inplace import _partial_overlap, apply_inplace, check_inplace_operands
from .operands import as_array


class _ZeroGradients(Node):
    """A comparison's backward: zeros for each input (PyTorch's ``zeros_like``)."""

    def __init__(self, shapes: tuple[tuple[tuple[int, ...], np.dtype], ...]) -> None:
        super().__init__()
        self.shapes = shapes

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        return tuple(zeros(sizes, dtype=dtype) if self.needs_input_grad(i) else None
                     for i, (sizes, dtype) in enumerate(self.shapes))


def _node_class(stem: str, number: int) -> type[_ZeroGradients]:
    return type(f"{stem}Backward{number}", (_ZeroGradients,), {
        "__module__": __name__, "__doc__": f"Backward of ``{stem.lower()}_`` (zeros)."})


def _comparison_(op: str, ufunc: np.ufunc, stem: str) -> Any:
    nodes = (_node_class(stem, 0), _node_class(stem, 1))

    def method(self: Tensor, other: Any) -> Tensor:
        compare._operand(op, other)  # (PyTorch's TypeError for other operands)
        dtype = self._storage.buffer.dtype
        check_inplace_operands(op, self, dtype, other)
        values = compare.compare(ufunc, self, other)  # (in the promoted dtype of both)
        tensor = isinstance(other, Tensor)
        shapes = ((self._sizes, dtype),) + (((other._sizes, other._storage.buffer.dtype),) if tensor else ())

        def make_node() -> Node:
            return nodes[tensor](shapes)

        inputs = (self, other) if tensor else (self,)
        return apply_inplace(op, self, as_array(values), dtype, inputs, make_node)

    method.__name__ = method.__qualname__ = op
    method.__doc__ = f"In-place ``{op[:-1]}``: 1 where it holds, else 0, in ``self``'s dtype."
    return method


eq_ = _comparison_("eq_", np.equal, "Eq")
ne_ = _comparison_("ne_", np.not_equal, "Ne")
lt_ = _comparison_("lt_", np.less, "Lt")
le_ = _comparison_("le_", np.less_equal, "Le")
gt_ = _comparison_("gt_", np.greater, "Gt")
ge_ = _comparison_("ge_", np.greater_equal, "Ge")


def _unrecorded_write(op: str, self: Tensor, values: Tensor, others: tuple[Tensor, ...]) -> Tensor:
    """Write ``values`` into ``self`` as PyTorch's ops without an autograd formula do:
    the memory checks (overlap, broadcasting), no autograd check, no node, a version bump."""
    for other in others:
        if other._storage is self._storage and _partial_overlap(self, other):
            raise RuntimeError(
                f"{op}: unsupported operation: some elements of the input tensor and the "
                "written-to tensor refer to a single memory location. Please clone() the tensor "
                "before performing the operation.")
        if broadcast_shapes(self._sizes, other._sizes) != self._sizes:
            raise RuntimeError(
                f"{op}: output with shape {list(self._sizes)} doesn't match the broadcast shape "
                f"{list(broadcast_shapes(self._sizes, other._sizes))}")
    return apply_inplace(op, self, as_array(values), self._storage.buffer.dtype, (), None)


def _logical_(op: str, fn: Any) -> Any:
    def method(self: Tensor, other: Tensor) -> Tensor:
        if not isinstance(other, Tensor):
            raise TypeError(f"{op}(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}")
        return _unrecorded_write(op, self, fn(self, other), (other,))

    method.__name__ = method.__qualname__ = op
    method.__doc__ = f"In-place ``{op[:-1]}`` (not differentiable: nothing is recorded)."
    return method


logical_and_ = _logical_("logical_and_", compare.logical_and)
logical_or_ = _logical_("logical_or_", compare.logical_or)
logical_xor_ = _logical_("logical_xor_", compare.logical_xor)


def logical_not_(self: Tensor) -> Tensor:
    """In-place ``logical_not`` (not differentiable: nothing is recorded)."""
    return _unrecorded_write("logical_not_", self, compare.logical_not(self), ())


def bitwise_not_(self: Tensor) -> Tensor:
    """In-place ``bitwise_not`` (bool and integer tensors only)."""
    dtype = self._storage.buffer.dtype
    if dtype.kind == "f":
        raise NotImplementedError(f"\"bitwise_not_cpu\" not implemented for '{_ATEN_NAMES.get(dtype.name, dtype.name)}'")
    check_inplace_operands("bitwise_not_", self, dtype)
    return apply_inplace("bitwise_not_", self, as_array(compare.bitwise_not(self)), dtype, (self,), None)


_ATEN_NAMES = {"float64": "Double", "float32": "Float", "float16": "Half", "bfloat16": "BFloat16"}  # (error messages)

__all__ = ["bitwise_not_", "eq_", "ge_", "gt_", "le_", "logical_and_", "logical_not_", "logical_or_",
           "logical_xor_", "lt_", "ne_"]
