"""Powers: ``tensor ** number`` (``PowBackward0``), ``tensor ** tensor`` (``PowBackward1``),
``number ** tensor`` (``PowBackward2``), and ``pow_``.

Values follow PyTorch, not C's ``pow``: a number exponent takes ATen's shortcuts (``x * x``
for 2, ``sqrt`` for 0.5, ``1 / sqrt`` for -0.5, ...), which differ from ``pow`` at signed
zeros and infinities; integer powers with negative tensor exponents give 0 (or +-1 for bases
1 and -1) where NumPy would raise. The backward formulas are PyTorch's ``pow_backward*``.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from .. import _tracing, dtypes
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, Node, SavedTensor, SavingNode
from ..tensor import Tensor
from .._quiet import QUIET_RUN, quiet_call
from .operands import as_array, broadcast_shape, new_output, new_tensor, result_type
from .compare import compare, logical_and, where
from .elementwise import check_inplace_operands, compute, mul, original, sub
from .inplace import apply_inplace
from .structure import to_dtype
from .pointwise import log
from .fused import INPUT
from .fused_unary import fused_unary
from .out_arg import into_out

_INT32 = 2**31


def _pow_dtype(base: Any, exponent: Any) -> np.dtype:
    dtype = result_type(base, exponent, op="pow")
    if dtype == dtypes.bool_ and isinstance(exponent, Tensor):  # (``** True`` is a copy)
        raise NotImplementedError('"pow" not implemented for bool (got bool base and exponent)')
    if dtype == dtypes.int64 and not isinstance(exponent, Tensor) and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    return dtype


def _np_power(a: Any, b: Any, out: np.ndarray, dtype: Any, casting: str = "unsafe") -> np.ndarray:
    """``a ** b`` as PyTorch computes it (see the module docstring)."""
    if not isinstance(b, np.ndarray):
        shortcut = _POW_SHORTCUTS.get(b) if dtype in dtypes.FLOATING or b in (0, 1, 2, 3) else None
        if shortcut is not None:
            return shortcut(a, out, dtype)
        return np.power(a, b, out=out, dtype=dtype, casting=casting)
    if dtype != dtypes.int64 or not np.any(np.less(b, 0)):
        return np.power(a, b, out=out, dtype=dtype, casting=casting)
    negative = np.less(b, 0)
    out = np.power(a, np.where(negative, 0, b), out=out, dtype=dtype, casting=casting)
    odd = np.remainder(b, 2) != 0
    small = np.where(np.equal(a, 1), 1, np.where(np.equal(a, -1), np.where(odd, -1, 1), 0))
    np.copyto(out, np.broadcast_to(small, out.shape), where=negative)
    return out


def _pow0(a: Any, out: np.ndarray, dtype: Any) -> np.ndarray:
    out[...] = 1  # (nan ** 0 is 1 too)
    return out


def _pow1(a: Any, out: np.ndarray, dtype: Any) -> np.ndarray:
    np.copyto(out, a, casting="unsafe")
    return out


def _square(a: Any, out: Any, dtype: Any) -> np.ndarray:
    return np.multiply(a, a, out=out, dtype=dtype, casting="unsafe")


def _cube(a: Any, out: Any, dtype: Any) -> np.ndarray:
    return np.multiply(_square(a, out, dtype), a, out=out, dtype=dtype, casting="unsafe")


def _sqrt(a: Any, out: Any, dtype: Any) -> np.ndarray:
    return np.sqrt(a, out=out, dtype=dtype, casting="unsafe")


def _rsqrt(a: Any, out: Any, dtype: Any) -> np.ndarray:
    out = _sqrt(a, out, dtype)
    return np.reciprocal(out, out=out)


def _reciprocal(a: Any, out: Any, dtype: Any) -> np.ndarray:
    return np.reciprocal(a, out=out, dtype=dtype, casting="unsafe")


def _inverse_square(a: Any, out: Any, dtype: Any) -> np.ndarray:
    out = _square(a, out, dtype)
    return np.reciprocal(out, out=out)


# PyTorch's ``pow(tensor, number)`` shortcuts (ATen's ``pow_out`` and ``pow_tensor_scalar_kernel``)
_POW_SHORTCUTS: dict[Any, Callable[[Any, Any, Any], np.ndarray]] = {
    0: _pow0, 1: _pow1, 2: _square, 3: _cube, 0.5: _sqrt, -0.5: _rsqrt, -1: _reciprocal,
    -2: _inverse_square,
}


class PowBackward0(SavingNode):
    """Backward of ``tensor ** number``."""

    def __init__(self, exponent: Any) -> None:
        super().__init__()
        self.exponent = exponent

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        (x,) = self.unpack()
        e = float(self.exponent)
        if e == 0:
            out, view = new_tensor(x._sizes, x.dtype)
            view[...] = 0
            return (out,)
        return (mul(grads[0], mul(pow(x, e - 1), e)),)


class PowBackward1(SavingNode):
    """Backward of ``tensor ** tensor``."""

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        x, e, result = self.unpack()
        grad_x = grad_e = None
        if self.needs_input_grad(0):
            grad_x = where(compare(np.equal, e, 0), 0.0, mul(g, mul(e, pow(x, sub(e, 1)))))
        if self.needs_input_grad(1):
            zero = logical_and(compare(np.equal, x, 0), compare(np.greater_equal, e, 0))
            log_x = log(to_dtype(x, result_type(x, e, op="pow")))
            grad_e = mul(g, where(zero, 0.0, mul(result, log_x)))
        return (grad_x, grad_e)


class PowBackward2(SavingNode):
    """Backward of ``number ** tensor``."""

    def __init__(self, base: Any) -> None:
        super().__init__()
        self.base = base

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        e, result = self.unpack()
        b = float(self.base)
        log_b = math.log(b) if b > 0 else (-math.inf if b == 0 else math.nan)
        scaled = mul(result, log_b)
        if b == 0:
            scaled = where(compare(np.greater_equal, e, 0), 0.0, scaled)
        return (mul(grads[0], scaled),)


# the fused per-op path (fused.py): ``tensor ** number`` of a float tensor (its dtype)
_fused_pow = fused_unary(_np_power, PowBackward0, INPUT, None, fields=("exponent",))


def pow(input: Any, exponent: Any, *, out: Tensor | None = None) -> Tensor:
    if out is not None:  # (out_arg.py)
        return into_out("pow", out, pow, (input, exponent))
    kind = exponent.__class__
    if kind is float or kind is int and -_INT32 < exponent < _INT32:
        out = _fused_pow(input, exponent)
        if out is not None:
            return out
    dtype = _pow_dtype(input, exponent)
    # laid out as PyTorch's TensorIterator would: a number exponent is no operand; a number
    # base makes a contiguous result (``pow(Scalar, Tensor)``)
    operands = tuple(x for x in (input, exponent) if isinstance(x, Tensor)) if isinstance(input, Tensor) else ()
    out, view = new_output(broadcast_shape(input, exponent), dtype, operands)
    a, b = as_array(input), as_array(exponent)
    try:
        QUIET_RUN(_np_power, a, b, view, dtype)
    except RuntimeError:  # (another thread is in QUIET_RUN's context: see ``_quiet``)
        quiet_call(_np_power, a, b, view, dtype)
    if needs_grad(input, exponent):
        if not isinstance(exponent, Tensor):
            node = record(PowBackward0(exponent), (input,), (out,))
            node.save(input)  # type: ignore[attr-defined]
        elif not isinstance(input, Tensor):
            node = record(PowBackward2(input), (exponent,), (out,))
            node.save(exponent, out, outputs=(out,))  # type: ignore[attr-defined]
        else:
            node = record(PowBackward1(), (input, exponent), (out,))
            node.save(input, exponent, out, outputs=(out,))  # type: ignore[attr-defined]
    if _tracing.ACTIVE is not None:  # jitgrad.compile records it
        _tracing.ACTIVE.op("pow", out, input, exponent)
    return out


def pow_(self: Tensor, exponent: Any) -> Tensor:
    dtype = _pow_dtype(self, exponent)
    check_inplace_operands("pow_", self, dtype, exponent)
    tensor_exponent = isinstance(exponent, Tensor)

    def make_node() -> Node:  # runs before the write: a copy of the old self
        if tensor_exponent:
            node: SavingNode = PowBackward1()
            node.save(original(self), exponent)  # the result is added after the write
        else:
            node = PowBackward0(exponent)
            node.save(original(self))
        return node

    values = compute(_np_power, self, exponent, dtype=dtype)
    inputs = (self, exponent) if tensor_exponent else (self,)
    return apply_inplace("pow_", self, values, dtype, inputs, make_node,
                         _append_output(self) if tensor_exponent else None)


def _append_output(written: Tensor) -> Callable[[Node], None]:
    """A ``save_output`` that adds the written tensor (the node's output 0) after what the
    node saved before the write."""

    def save(node: Node) -> None:
        node.saved = node.saved + (SavedTensor(written, node, 0),)  # type: ignore[attr-defined]

    return save


def rpow(self: Tensor, other: Any) -> Tensor:
    """``other ** self`` (``Tensor.__rpow__``)."""
    return pow(other, self)


def square(input: Tensor) -> Tensor:
    """``input ** 2`` (PyTorch's ``square`` is ``pow(input, 2)``: ``PowBackward0``, and bool
    squares to int64)."""
    return pow(input, 2)


def square_(self: Tensor) -> Tensor:
    return pow_(self, 2)
