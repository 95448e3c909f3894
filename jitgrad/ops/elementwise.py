"""Elementwise arithmetic with broadcasting and PyTorch's type promotion: ``add``, ``sub``,
``mul``, ``div``, ``neg``, ``reciprocal``, ``maximum``, ``minimum``, their in-place forms (and
the in-place bitwise ops behind ``&=``, ``|=``, ``^=``), and the checks every in-place
elementwise op shares.

Each op's backward node sits next to its forward and returns local gradients (in the broadcast
shape and the result's dtype); the engine sums them back to the inputs' shapes and casts them
to their dtypes. Backward formulas are written with these same ops, so that a backward pass run
with ``create_graph=True`` is itself differentiable.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from .. import dtypes
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, Node, OwnedGrads, SavingNode
from ..copying import check_inplace
from ..geometry import broadcast_shapes, is_non_overlapping_and_dense
from ..tensor import Tensor
from ._common import (
    IGNORE_ALL, QUIET, as_array, binary, check_inplace_dtype, from_result, layout, result_type, unary,
)
from .compare import bitwise_and, bitwise_or, bitwise_xor, compare, where
from .inplace import apply_inplace, check_leaf
from .structure import clone


def _tensors(a: Any, b: Any) -> tuple[Tensor | None, Tensor | None]:
    """The tensor operands (scalars are not differentiable inputs)."""
    return (a if isinstance(a, Tensor) else None, b if isinstance(b, Tensor) else None)


def compute(ufunc: Callable[..., Any], self: Tensor, *others: Any, dtype: np.dtype) -> np.ndarray:
    """``ufunc(self, *others)`` in ``dtype``, into a fresh array of ``self``'s shape (the
    values an in-place op then writes), without NumPy's float warnings."""
    out = np.empty(self._sizes, dtype)
    token = QUIET.set(IGNORE_ALL)
    try:
        ufunc(as_array(self), *(as_array(a) for a in others), out=out, dtype=dtype, casting="unsafe")
    finally:
        QUIET.reset(token)
    return out


# -- in-place checks ----------------------------------------------------------------------------
def check_inplace_operands(op: str, self: Tensor, dtype: np.dtype, *others: Any) -> None:
    """PyTorch's checks before an in-place elementwise op computes anything, in PyTorch's
    order: ``self`` may be written (not a leaf that requires grad, not read-only, no element
    aliasing another), no operand partially overlaps ``self`` in memory, every operand
    broadcasts to ``self``'s shape without growing it, and the result type casts to
    ``self``'s dtype. (``apply_inplace`` repeats the first and last when it writes.)"""
    if self._view_meta is not None or (self._requires_grad and self._grad_fn is None):
        check_leaf(op, self)  # (only a leaf or a view can be refused)
    if self._strides != layout(self._sizes)[0]:  # (a contiguous tensor has no aliased elements)
        check_inplace(self, op)
    tensors = [t for t in others if isinstance(t, Tensor)]
    for other in tensors:
        if other._storage is self._storage and _partial_overlap(self, other):
            raise RuntimeError(
                f"{op}: unsupported operation: some elements of the input tensor and the "
                "written-to tensor refer to a single memory location. Please clone() the tensor "
                "before performing the operation."
            )
    for other in tensors:
        if other._sizes != self._sizes:
            try:
                shape = broadcast_shapes(self._sizes, other._sizes)
            except RuntimeError as exc:
                raise RuntimeError(
                    f"{op}: the operand of shape {list(other._sizes)} does not broadcast to the "
                    f"destination's shape {list(self._sizes)}: {exc}"
                ) from None
            if shape != self._sizes:
                raise RuntimeError(
                    f"{op}: output with shape {list(self._sizes)} doesn't match the broadcast "
                    f"shape {list(shape)}"
                )
    check_inplace_dtype(op, dtype, self)


def _partial_overlap(a: Tensor, b: Tensor) -> bool:
    """PyTorch's ``get_overlap_status(a, b) == PARTIAL`` for two tensors on one storage: both
    dense, their memory ranges intersect, and they are not the same elements in the same order.
    (Layouts that are not dense are PyTorch's "too hard" case: allowed. jitgrad computes the
    result out of place before writing it, so those are well defined here.)"""
    if a is b or a.numel() == 0 or b.numel() == 0:
        return False
    if not (is_non_overlapping_and_dense(a._sizes, a._strides)
            and is_non_overlapping_and_dense(b._sizes, b._strides)):
        return False
    a_end, b_end = a._offset + a.numel(), b._offset + b.numel()
    if a._offset == b._offset and a_end == b_end:
        return a._strides != b._strides
    return a._offset < b_end and b._offset < a_end


def original(self: Tensor) -> Tensor:
    """A copy of ``self`` taken before an in-place op overwrites it, for the op's backward
    (differentiable, so a double backward reaches ``self``'s history through it)."""
    return clone(self)


# -- add / sub ---------------------------------------------------------------------------------
def _scaled(op: str, other: Any, alpha: Any, dtype: np.dtype) -> Any:
    """``alpha * other`` as data (the scaling is not a separate node, as in PyTorch)."""
    if isinstance(alpha, bool) and dtype != dtypes.bool_:
        raise RuntimeError(f"{op}: Boolean alpha only supported for Boolean results.")
    if isinstance(alpha, float) and dtype not in dtypes.FLOATING:
        raise RuntimeError(
            f"{op}: For integral input tensors, argument alpha must not be a floating point number."
        )
    if alpha == 1:
        return other
    if isinstance(other, Tensor):
        return from_result(compute(np.multiply, other, alpha, dtype=dtype))
    return other * alpha


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


def _unit(alpha: Any) -> bool:
    return type(alpha) is int and alpha == 1


def add(input: Any, other: Any, *, alpha: Any = 1) -> Tensor:
    dtype = result_type(input, other, op="add")
    out = binary(np.add, input, other if _unit(alpha) else _scaled("add", other, alpha, dtype), dtype)
    if needs_grad(input, other):
        record(AddBackward0(alpha), _tensors(input, other), (out,))
    return out


def add_(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    dtype = result_type(self, other, op="add_")
    check_inplace_operands("add_", self, dtype, other)
    values = compute(np.add, self, _scaled("add_", other, alpha, dtype), dtype=dtype)
    return apply_inplace("add_", self, values, dtype, _tensors(self, other), lambda: AddBackward0(alpha))


def _is_bool(x: Any) -> bool:
    if isinstance(x, Tensor):
        return x._storage.buffer.dtype == dtypes.bool_
    return isinstance(x, (bool, np.bool_))


def _check_sub(a: Any, b: Any) -> None:
    if _is_bool(a) or _is_bool(b):
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )


class SubBackward0(Node):
    def __init__(self, alpha: Any = 1) -> None:
        super().__init__()
        self.alpha = alpha

    def apply(self, grads: Grads, owned: Sequence[bool] = ()) -> tuple[Tensor | None, ...]:
        g = grads[0]
        return (
            g if self.needs_input_grad(0) else None,
            (neg(g) if self.alpha == 1 else mul(g, -self.alpha)) if self.needs_input_grad(1) else None,
        )


def sub(input: Any, other: Any, *, alpha: Any = 1) -> Tensor:
    _check_sub(input, other)
    dtype = result_type(input, other, op="sub")
    out = binary(np.subtract, input, other if _unit(alpha) else _scaled("sub", other, alpha, dtype), dtype)
    if needs_grad(input, other):
        record(SubBackward0(alpha), _tensors(input, other), (out,))
    return out


def sub_(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    _check_sub(self, other)
    dtype = result_type(self, other, op="sub_")
    check_inplace_operands("sub_", self, dtype, other)
    values = compute(np.subtract, self, _scaled("sub_", other, alpha, dtype), dtype=dtype)
    return apply_inplace("sub_", self, values, dtype, _tensors(self, other), lambda: SubBackward0(alpha))


class RsubBackward1(Node):
    """Backward of ``number - tensor`` (PyTorch's ``rsub`` with a Scalar)."""

    def __init__(self, alpha: Any = 1) -> None:
        super().__init__()
        self.alpha = alpha

    def apply(self, grads: Grads, owned: Sequence[bool] = ()) -> tuple[Tensor | None, ...]:
        g = grads[0]
        return (neg(g) if self.alpha == 1 else mul(g, -self.alpha),)


def rsub(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    """``other - alpha * self`` (``Tensor.__rsub__``: ``other`` is a number)."""
    if isinstance(other, Tensor):
        return sub(other, self, alpha=alpha)
    _check_sub(self, other)
    dtype = result_type(self, other, op="rsub")
    out = binary(np.subtract, other, self if _unit(alpha) else _scaled("rsub", self, alpha, dtype), dtype)
    if needs_grad(self):
        record(RsubBackward1(alpha), (self,), (out,))
    return out


# -- mul / div / neg / reciprocal -----------------------------------------------------------
class MulBackward0(SavingNode):
    def apply(self, grads: Grads, owned: Sequence[bool] = ()) -> tuple[Tensor | None, ...]:
        g = grads[0]
        a, b = self.unpack()
        if owned and owned[0] and b is not None and not isinstance(b, Tensor) \
                and self.needs_input_grad(0) and not self.needs_input_grad(1) \
                and g.is_floating_point() and not is_grad_enabled():
            # times a number, into the buffer the engine hands over (Note [Gradient buffer
            # ownership]): no allocation
            if b != 1:  # g * 1 is g, bit for bit
                data = g.numpy()
                np.multiply(data, b, out=data, casting="unsafe")
            return OwnedGrads((g, None), (True, False))
        if b is not None and not isinstance(b, Tensor) and self.needs_input_grad(0) \
                and not self.needs_input_grad(1) and not is_grad_enabled() and g.numel() > 1 \
                and not any(g._strides):
            # a broadcast constant (the gradient of a sum) times a number is a broadcast
            # constant: O(1), and the buffer it is added into reads it from cache
            one = mul(Tensor._make(g._storage, (), (), g._offset), b)
            return (Tensor._make(one._storage, g._sizes, (0,) * len(g._sizes), 0), None)
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


def mul_(self: Tensor, other: Any) -> Tensor:
    dtype = result_type(self, other, op="mul_")
    check_inplace_operands("mul_", self, dtype, other)

    def make_node() -> Node:  # runs before the write: saves the old self, as a copy
        node = MulBackward0()
        node.save(original(self) if needs_grad(other) else None, other if needs_grad(self) else None)
        return node

    values = compute(np.multiply, self, other, dtype=dtype)
    return apply_inplace("mul_", self, values, dtype, _tensors(self, other), make_node)


def _true_div_dtype(a: Any, b: Any) -> np.dtype:
    """True division computes integers in the default float dtype, as PyTorch."""
    dtype = result_type(a, b, op="div")
    return dtype if dtype in dtypes.FLOATING else dtypes.DEFAULT_FLOAT


class DivBackward0(SavingNode):
    def apply(self, grads: Grads, owned: Sequence[bool] = ()) -> tuple[Tensor | None, ...]:
        g = grads[0]
        a, b = self.unpack()
        return (
            div(g, b) if self.needs_input_grad(0) else None,
            mul(neg(g), div(div(a, b), b)) if self.needs_input_grad(1) else None,
        )


def div(input: Any, other: Any) -> Tensor:
    out = binary(np.true_divide, input, other, _true_div_dtype(input, other))
    if needs_grad(input, other):
        node = DivBackward0()
        record(node, _tensors(input, other), (out,))
        node.save(input if node.needs_input_grad(1) else None, other)
    return out


def div_(self: Tensor, other: Any) -> Tensor:
    dtype = _true_div_dtype(self, other)
    check_inplace_operands("div_", self, dtype, other)

    def make_node() -> Node:  # runs before the write: saves the old self, as a copy
        node = DivBackward0()
        node.save(original(self) if needs_grad(other) else None, other)
        return node

    values = compute(np.true_divide, self, other, dtype=dtype)
    return apply_inplace("div_", self, values, dtype, _tensors(self, other), make_node)


class NegBackward0(Node):
    def apply(self, grads: Grads, owned: Sequence[bool] = ()) -> tuple[Tensor | None, ...]:
        return (neg(grads[0]),)


def _check_neg(input: Tensor) -> None:
    if input.dtype == dtypes.bool_:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
            "to invert a mask, use the `~` or `logical_not()` operator instead."
        )


def neg(input: Tensor) -> Tensor:
    _check_neg(input)
    out = unary(np.negative, input)
    if needs_grad(input):
        record(NegBackward0(), (input,), (out,))
    return out


def neg_(self: Tensor) -> Tensor:
    _check_neg(self)
    check_inplace_operands("neg_", self, self.dtype)
    values = compute(np.negative, self, dtype=self.dtype)
    return apply_inplace("neg_", self, values, self.dtype, (self,), NegBackward0)


class ReciprocalBackward0(SavingNode):
    def apply(self, grads: Grads, owned: Sequence[bool] = ()) -> tuple[Tensor | None, ...]:
        (result,) = self.unpack()
        return (mul(neg(grads[0]), mul(result, result)),)


def reciprocal(input: Tensor) -> Tensor:
    dtype = input.dtype if input.dtype in dtypes.FLOATING else dtypes.DEFAULT_FLOAT
    out = unary(np.reciprocal, input, dtype)
    if needs_grad(input):
        node = ReciprocalBackward0()
        record(node, (input,), (out,))
        node.save(out, outputs=(out,))
    return out


def rtruediv(self: Tensor, other: Any) -> Tensor:
    """``other / self`` (``Tensor.__rtruediv__``): ``self.reciprocal() * other``, as PyTorch."""
    return mul(reciprocal(self), other)


# -- maximum / minimum -------------------------------------------------------------------------
class MaximumBackward0(SavingNode):
    """The gradient goes to the larger input; ties split it evenly, as PyTorch."""

    a_loses, b_loses = np.less, np.greater  # where input 0 / input 1 gets no gradient

    def apply(self, grads: Grads, owned: Sequence[bool] = ()) -> tuple[Tensor | None, ...]:
        g = grads[0]
        a, b = self.unpack()
        shared = where(compare(np.equal, a, b), div(g, 2), g)
        return (
            where(compare(self.a_loses, a, b), 0.0, shared) if self.needs_input_grad(0) else None,
            where(compare(self.b_loses, a, b), 0.0, shared) if self.needs_input_grad(1) else None,
        )


class MinimumBackward0(MaximumBackward0):
    a_loses, b_loses = np.greater, np.less


def _extremum(op: str, ufunc: np.ufunc, node_cls: type, input: Tensor, other: Tensor) -> Tensor:
    for name, x in (("input", input), ("other", other)):
        if not isinstance(x, Tensor):
            raise TypeError(f"{op}(): argument '{name}' must be Tensor, not {type(x).__name__}")
    out = binary(ufunc, input, other)
    if needs_grad(input, other):
        node = record(node_cls(), (input, other), (out,))
        node.save(input, other)  # type: ignore[attr-defined]
    return out


def maximum(input: Tensor, other: Tensor) -> Tensor:
    return _extremum("maximum", np.maximum, MaximumBackward0, input, other)


def minimum(input: Tensor, other: Tensor) -> Tensor:
    return _extremum("minimum", np.minimum, MinimumBackward0, input, other)


# -- in-place bitwise ops (``&=``, ``|=``, ``^=``; bool and int64, never differentiable) ----------
def _bitwise_(op: str, fn: Callable[[Any, Any], Tensor], ufunc: np.ufunc, self: Tensor, other: Any) -> Tensor:
    dtype = result_type(self, other, op=op)
    if dtype in dtypes.FLOATING:
        fn(self, other)  # raises PyTorch's NotImplementedError
    check_inplace_operands(op, self, dtype, other)
    return apply_inplace(op, self, compute(ufunc, self, other, dtype=dtype), dtype, (self,), None)


def bitwise_and_(self: Tensor, other: Any) -> Tensor:
    return _bitwise_("bitwise_and_", bitwise_and, np.bitwise_and, self, other)


def bitwise_or_(self: Tensor, other: Any) -> Tensor:
    return _bitwise_("bitwise_or_", bitwise_or, np.bitwise_or, self, other)


def bitwise_xor_(self: Tensor, other: Any) -> Tensor:
    return _bitwise_("bitwise_xor_", bitwise_xor, np.bitwise_xor, self, other)
