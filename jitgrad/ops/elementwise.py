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

from .. import _tracing, dtypes
from ..creation import zeros_like
from .._quiet import IGNORE_ALL, QUIET, QUIET_RUN, quiet_call
from ..autograd.grad_mode import _state as _grad_state
from ..autograd.graph import needs_grad, record
from ..autograd.input_buffer import HandedGrads
from ..autograd.node import Grads, Node, SavingNode
from ..geometry import numel
from ..tensor import Tensor
from .operands import (
    LEAN_DTYPES, as_array, binary, fresh_result, from_result, lean_binary, lean_data, result_type,
    unary,
)
from .compare import bitwise_and, bitwise_or, bitwise_xor, compare, where
from .declare import NO_BOOL, NOTHING, RESULT, SAME, SELF, Pointwise, call_pointwise, call_pointwise_
from .lean_grads import div_grads, mul_grads, negated, scaled
from .inplace import apply_inplace, check_inplace_operands, compute, lean_inplace, original
from .fused import PRODUCT, QUOTIENT
from .fused_binary import fused_binary
from .out_arg import into_out


def _zero_grad(g: Tensor, *inputs: Any, **params: Any) -> Tensor:
    """The derivative of a piecewise-constant function: zeros, as PyTorch's ``zeros_like(grad)``
    (laid out as ``grad``)."""
    return zeros_like(g)


def _tensors(a: Any, b: Any) -> tuple[Tensor | None, Tensor | None]:
    """The tensor operands (scalars are not differentiable inputs)."""
    return (a if isinstance(a, Tensor) else None, b if isinstance(b, Tensor) else None)


def _needed(node: Node) -> tuple[bool, bool]:
    """``(node.needs_input_grad(0), node.needs_input_grad(1))`` of a two-input node, in one
    call (every add, sub and mul node asks both in backward)."""
    needed = node._needed
    if needed is not None:
        return needed[0], needed[1]
    return node._n0 is not None, node._n1 is not None


# -- add / sub ---------------------------------------------------------------------------------
def _scaled(op: str, other: Any, alpha: Any, dtype: np.dtype) -> Any:
    """``alpha * other`` as data (the scaling is not a separate node, as in PyTorch)."""
    if type(alpha) is int:
        dtypes.check_python_int(op, alpha)
    if isinstance(alpha, bool) and dtype != dtypes.bool_:
        raise RuntimeError(f"{op}: Boolean alpha only supported for Boolean results.")
    if isinstance(alpha, float) and dtype not in dtypes.FLOATING:
        raise RuntimeError(
            f"{op}: For integral input tensors, argument alpha must not be a floating point number."
        )
    dtypes.check_scalar_fits(op, alpha, dtype)
    if alpha == 1:
        return other
    if isinstance(other, Tensor):
        return from_result(compute(np.multiply, other, alpha, dtype=dtype))
    return other * alpha


def _with_alpha(node: Node, alpha: Any) -> Node:
    """``node`` (an add/sub backward) with the op's ``alpha``, when it is not the class
    default 1: the common node is made without an ``__init__`` of its own."""
    if not _unit(alpha):
        node.alpha = alpha  # type: ignore[attr-defined]
    return node


class AddBackward0(Node):
    alpha: Any = 1  # the op's alpha (``_with_alpha``)

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        first, second = _needed(self)
        return (
            g if first else None,
            (g if self.alpha == 1 else mul(g, self.alpha)) if second else None,
        )


def _unit(alpha: Any) -> bool:
    return type(alpha) is int and alpha == 1


def add(input: Any, other: Any, *, alpha: Any = 1, out: Tensor | None = None) -> Tensor:
    if out is not None:
        return into_out("add", out, add, (input, other), {"alpha": alpha})
    if type(alpha) is int and alpha == 1:  # (_unit, inlined)
        return add_operator(input, other)
    return _add(input, other, alpha)


def _add(input: Any, other: Any, alpha: Any = 1, *, lean: bool = True) -> Tensor:
    """``add``'s lean and general paths (after the fused one; ``lean=False``: the fused
    path found the lean one declines these operands)."""
    unit = _unit(alpha)
    out = lean_binary(np.add, input, other) if unit and lean else None
    if out is None:
        dtype = result_type(input, other, op="add")
        out = binary(np.add, input, other if unit else _scaled("add", other, alpha, dtype), dtype)
    if needs_grad(input, other):
        record(AddBackward0() if unit else _with_alpha(AddBackward0(), alpha), _tensors(input, other), (out,))
    if _tracing.ACTIVE is not None:  # jitgrad.compile records it
        _tracing.ACTIVE.op("add", out, input, other, alpha=alpha)
    return out


def add_(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    if type(alpha) is int and alpha == 1:  # (_unit, inlined)
        out = lean_inplace("add_", np.add, self, other, AddBackward0)
        if out is not None:
            return out
    dtype = result_type(self, other, op="add_")
    check_inplace_operands("add_", self, dtype, other)
    values = compute(np.add, self, _scaled("add_", other, alpha, dtype), dtype=dtype)
    out = apply_inplace("add_", self, values, dtype, _tensors(self, other), lambda: _with_alpha(AddBackward0(), alpha))
    if _tracing.ACTIVE is not None:  # jitgrad.compile records it
        _tracing.ACTIVE.op("add", self, self, other, inplace=True, alpha=alpha)
    return out


def _is_bool(x: Any) -> bool:
    if isinstance(x, Tensor):
        return x._storage.buffer.dtype == dtypes.bool_
    return isinstance(x, (bool, np.bool_))


def _check_sub(a: Any, b: Any) -> None:
    for x in (a, b):  # (PyTorch parses its numbers first)
        if type(x) is int:
            dtypes.check_python_int("sub", x)
    if _is_bool(a) or _is_bool(b):
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )


# ``Tensor.__add__``/``__radd__``: the fused per-op path (``fused.py``) first
add_operator = fused_binary(np.add, AddBackward0, otherwise=_add, keywords=add)


class SubBackward0(Node):
    alpha: Any = 1  # the op's alpha (``_with_alpha``)

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        first, second = _needed(self)
        if second and self.alpha == 1:
            minus = negated(g) if not _grad_state.enabled else None  # (on data when lean)
            return (g if first else None, neg(g) if minus is None else minus)
        return (
            g if first else None,
            mul(g, -self.alpha) if second else None,
        )


def sub(input: Any, other: Any, *, alpha: Any = 1, out: Tensor | None = None) -> Tensor:
    if out is not None:
        return into_out("sub", out, sub, (input, other), {"alpha": alpha})
    if type(alpha) is int and alpha == 1:  # (_unit, inlined)
        return sub_operator(input, other)  # (never bool)
    return _sub(input, other, alpha)


def _sub(input: Any, other: Any, alpha: Any = 1, *, lean: bool = True) -> Tensor:
    """``sub``'s lean and general paths (after the fused one; ``lean``: as ``_add``'s)."""
    unit = _unit(alpha)
    out = lean_binary(np.subtract, input, other) if unit and lean else None  # (never bool)
    if out is None:
        _check_sub(input, other)
        dtype = result_type(input, other, op="sub")
        out = binary(np.subtract, input, other if unit else _scaled("sub", other, alpha, dtype), dtype)
    if needs_grad(input, other):
        record(SubBackward0() if unit else _with_alpha(SubBackward0(), alpha), _tensors(input, other), (out,))
    if _tracing.ACTIVE is not None:  # jitgrad.compile records it
        _tracing.ACTIVE.op("sub", out, input, other, alpha=alpha)
    return out


# ``Tensor.__sub__``: the fused per-op path (``fused.py``) first
sub_operator = fused_binary(np.subtract, SubBackward0, otherwise=_sub, keywords=sub)


def sub_(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    if type(alpha) is int and alpha == 1:  # (_unit, inlined; never bool)
        out = lean_inplace("sub_", np.subtract, self, other, SubBackward0)
        if out is not None:
            return out
    _check_sub(self, other)
    dtype = result_type(self, other, op="sub_")
    check_inplace_operands("sub_", self, dtype, other)
    values = compute(np.subtract, self, _scaled("sub_", other, alpha, dtype), dtype=dtype)
    out = apply_inplace("sub_", self, values, dtype, _tensors(self, other), lambda: _with_alpha(SubBackward0(), alpha))
    if _tracing.ACTIVE is not None:  # jitgrad.compile records it
        _tracing.ACTIVE.op("sub", self, self, other, inplace=True, alpha=alpha)
    return out


class RsubBackward1(Node):
    """Backward of ``number - tensor`` (PyTorch's ``rsub`` with a Scalar)."""

    alpha: Any = 1  # the op's alpha (``_with_alpha``)

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        return (neg(g) if self.alpha == 1 else mul(g, -self.alpha),)


def rsub(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    """``other - alpha * self`` (``Tensor.__rsub__``: ``other`` is a number)."""
    if type(alpha) is int and alpha == 1:  # (_unit, inlined)
        return rsub_operator(self, other)  # (never bool)
    return _rsub(self, other, alpha)


def _rsub(self: Tensor, other: Any, alpha: Any = 1, *, lean: bool = True) -> Tensor:
    """``rsub``'s lean and general paths (after the fused one; ``lean``: as ``_add``'s)."""
    if isinstance(other, Tensor):
        return sub(other, self, alpha=alpha)
    out = lean_binary(np.subtract, other, self) if _unit(alpha) and lean else None  # (never bool)
    if out is None:
        _check_sub(self, other)
        dtype = result_type(self, other, op="rsub")
        out = binary(np.subtract, other, self if _unit(alpha) else _scaled("rsub", self, alpha, dtype), dtype)
    if needs_grad(self):
        record(_with_alpha(RsubBackward1(), alpha), (self,), (out,))
    if _tracing.ACTIVE is not None:  # jitgrad.compile records it
        _tracing.ACTIVE.op("rsub", out, self, other, alpha=alpha)
    return out


# ``Tensor.__rsub__``: the fused per-op path (``fused.py``) first
rsub_operator = fused_binary(np.subtract, RsubBackward1, reflected=True, otherwise=_rsub)


# -- mul / div / neg / reciprocal -----------------------------------------------------------
class MulBackward0(SavingNode):
    takes_owned = True
    writes_strided = True  # (``_by_number`` scales in place; the other formulas allocate)
    saves_wrapped_numbers = True

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        return self.apply_owned(grads, ())

    def apply_owned(self, grads: Grads, owned: Sequence[bool]) -> tuple[Tensor | None, ...]:
        g = grads[0]
        a, b = self.unpack()
        if not _grad_state.enabled:  # (no graph of the backward to build)
            first, second = _needed(self)
            if b.__class__ is Tensor or b is None:  # two tensors: on data when lean
                lean = mul_grads(self, g, a, b, first, second, bool(owned and owned[0]))
                if lean is not None:
                    return lean
            elif first and not second and not isinstance(b, Tensor):  # times a number
                return self._by_number(g, b, owned)
        return (
            mul(g, b) if self.needs_input_grad(0) else None,
            mul(g, a) if self.needs_input_grad(1) else None,
        )

    @staticmethod
    def _by_number(g: Tensor, b: Any, owned: Sequence[bool]) -> tuple[Tensor | None, ...]:
        """The input's gradient ``g * b`` for a number ``b``, in place or in O(1) when it can
        be, else ``mul``."""
        if owned and owned[0] and g.is_floating_point():
            # into the buffer the engine hands over (Note [Gradient buffer ownership]): no
            # allocation
            if b != 1:  # g * 1 is g, bit for bit
                data = lean_data(g)  # (flat; a strided region, from CopySlices, as an N-d view)
                if data is None:
                    data = g._numpy()
                try:  # (overflow and nan quietly, as the forward)
                    QUIET_RUN(np.multiply, data, b, data, casting="unsafe")
                except RuntimeError:  # (another thread is in QUIET_RUN's context: see ``_quiet``)
                    quiet_call(np.multiply, data, b, data, casting="unsafe")
            # final flags: ``g`` itself goes on, still owned, as ``handed_over`` would say
            return HandedGrads((g, None), (True, False))
        if not any(g._strides) and numel(g._sizes) > 1:
            # a broadcast constant (the gradient of a sum) times a number is a broadcast
            # constant: O(1), and the buffer it is added into reads it from cache
            # its one value by a single ufunc call, in the dtype ``mul`` would give
            start = g._offset
            one = g._storage.buffer[start:start + 1]
            if b.__class__ is float and one.dtype in LEAN_DTYPES:  # the dtype ``mul`` gives
                try:
                    one = QUIET_RUN(np.multiply, one, b)
                except RuntimeError:  # (another thread is in QUIET_RUN's context: see ``_quiet``)
                    one = quiet_call(np.multiply, one, b)
            else:
                token = QUIET.set(IGNORE_ALL)
                try:
                    one = np.multiply(one, b, dtype=result_type(g, b, op="multiply"), casting="unsafe")
                finally:
                    QUIET.reset(token)
            return (fresh_result(one, g._sizes, (0,) * len(g._sizes)), None)
        out = scaled(g, b)  # (on data when lean)
        return (mul(g, b) if out is None else out, None)


def mul(input: Any, other: Any, *, out: Tensor | None = None) -> Tensor:
    if out is not None:
        return into_out("mul", out, mul_operator, (input, other))
    return mul_operator(input, other)


def _mul(input: Any, other: Any, *, lean: bool = True) -> Tensor:
    """``mul``'s lean and general paths (after the fused one; ``lean``: as ``_add``'s)."""
    out = lean_binary(np.multiply, input, other) if lean else None
    if out is None:
        out = binary(np.multiply, input, other)
    if needs_grad(input, other):
        node = record(MulBackward0(), _tensors(input, other), (out,))
        # d(out)/d(input) needs other and vice versa: save only what will be used
        to_input, to_other = node._next
        node.save(input if to_other is not None else None, other if to_input is not None else None)
    if _tracing.ACTIVE is not None:  # jitgrad.compile records it
        _tracing.ACTIVE.op("mul", out, input, other)
    return out


# ``Tensor.__mul__``/``__rmul__``: the fused per-op path (``fused.py``) first
mul_operator = fused_binary(np.multiply, MulBackward0, PRODUCT, otherwise=_mul)


def mul_(self: Tensor, other: Any) -> Tensor:
    def make_node() -> Node:  # runs before the write: saves the old self, as a copy
        node = MulBackward0()
        node.save(original(self) if needs_grad(other) else None, other if needs_grad(self) else None)
        return node

    out = lean_inplace("mul_", np.multiply, self, other, make_node)
    if out is not None:
        return out
    dtype = result_type(self, other, op="mul_")
    check_inplace_operands("mul_", self, dtype, other)
    values = compute(np.multiply, self, other, dtype=dtype)
    out = apply_inplace("mul_", self, values, dtype, _tensors(self, other), make_node)
    if _tracing.ACTIVE is not None:  # jitgrad.compile records it
        _tracing.ACTIVE.op("mul", self, self, other, inplace=True)
    return out


def _true_div_dtype(a: Any, b: Any) -> np.dtype:
    """True division computes integers in the default float dtype, as PyTorch."""
    dtype = result_type(a, b, op="div")
    return dtype if dtype in dtypes.FLOATING else dtypes.DEFAULT_FLOAT


class DivBackward0(SavingNode):
    saves_wrapped_numbers = True

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        a, b = self.unpack()
        if not _grad_state.enabled and b.__class__ is Tensor:  # on data when lean
            first, second = _needed(self)
            lean = div_grads(self, g, a, b, first, second)
            if lean is not None:
                return lean
        return (
            div(g, b) if self.needs_input_grad(0) else None,
            mul(neg(g), div(div(a, b), b)) if self.needs_input_grad(1) else None,
        )


class DivBackward2(DivBackward0):
    """Backward of ``div(..., rounding_mode=None)`` with the keyword given: PyTorch's
    ``div.Tensor_mode`` overload, whose node is numbered 2 (true division's gradient; the
    rounding modes' zero gradient is ``DIV_ROUNDING``'s node of the same name)."""


class _Unset:
    """The default of ``div``'s ``rounding_mode``: PyTorch picks another overload (and node)
    when the keyword is given, even as None."""

    def __repr__(self) -> str:
        return "None"


_UNSET_MODE: Any = _Unset()


def div(
    input: Any, other: Any, *, rounding_mode: str | None = _UNSET_MODE, out: Tensor | None = None
) -> Tensor:
    if out is not None:
        return into_out("div", out, div, (input, other), {"rounding_mode": rounding_mode})
    if rounding_mode is _UNSET_MODE:
        return div_operator(input, other)
    if rounding_mode is not None:
        return call_pointwise(DIV_ROUNDING, (input, other), {"rounding_mode": rounding_mode})
    return _div(input, other, node_class=DivBackward2)


def _div(input: Any, other: Any, *, lean: bool = True, node_class: type[DivBackward0] = DivBackward0) -> Tensor:
    """``div``'s lean and general paths (after the fused one; ``lean``: as ``_add``'s)."""
    out = lean_binary(np.true_divide, input, other) if lean else None
    if out is None:
        out = binary(np.true_divide, input, other, _true_div_dtype(input, other))
    if needs_grad(input, other):
        node = node_class()
        record(node, _tensors(input, other), (out,))
        node.save(input if node.needs_input_grad(1) else None, other)
    if _tracing.ACTIVE is not None:  # jitgrad.compile records it
        _tracing.ACTIVE.op("div", out, input, other)
    return out


# ``Tensor.__truediv__``: the fused per-op path (``fused.py``) first (floating: true division keeps it)
div_operator = fused_binary(np.true_divide, DivBackward0, QUOTIENT, otherwise=_div, keywords=div)


def div_(self: Tensor, other: Any, *, rounding_mode: str | None = _UNSET_MODE) -> Tensor:
    if rounding_mode is not None and rounding_mode is not _UNSET_MODE:
        return call_pointwise_(DIV_ROUNDING, self, other, rounding_mode=rounding_mode)
    node_class = DivBackward0 if rounding_mode is _UNSET_MODE else DivBackward2

    def make_node() -> Node:  # runs before the write: saves the old self, as a copy
        node = node_class()
        node.save(original(self) if needs_grad(other) else None, other)
        return node

    out = lean_inplace("div_", np.true_divide, self, other, make_node)  # (floating: true division keeps it)
    if out is not None:
        return out
    dtype = _true_div_dtype(self, other)
    check_inplace_operands("div_", self, dtype, other)
    values = compute(np.true_divide, self, other, dtype=dtype)
    return apply_inplace("div_", self, values, dtype, _tensors(self, other), make_node)


def _check_neg(op: str, input: Any) -> None:
    if input.dtype == dtypes.bool_:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
            "to invert a mask, use the `~` or `logical_not()` operator instead."
        )


# declared (``declare.py``): the forward, the derivative in jitgrad ops, what it saves
NEG = Pointwise("neg", np.negative, lambda g, x, r: neg(g), NOTHING, dtype=SAME, check=_check_neg,
                check_dtype_only=True)
RECIPROCAL = Pointwise("reciprocal", np.reciprocal, lambda g, x, r: mul(neg(g), mul(r, r)), RESULT, domain="nonzero")
neg, neg_ = NEG.fn, NEG.fn_
reciprocal, reciprocal_ = RECIPROCAL.fn, RECIPROCAL.fn_


def rtruediv(self: Tensor, other: Any) -> Tensor:
    """``other / self`` (``Tensor.__rtruediv__``): ``self.reciprocal() * other``, as PyTorch."""
    return mul(reciprocal(self), other)


# -- maximum / minimum: the gradient goes to the larger (smaller) input; ties split it evenly,
#    as PyTorch ----------------------------------------------------------------------------
def _extremum_grads(a_loses: np.ufunc, b_loses: np.ufunc) -> Any:
    """``g`` to the input that wins, ``g / 2`` to both on ties (a joint formula: the tie
    split is computed once)."""
    def grads(g: Tensor, a: Tensor, b: Tensor, r: Any, needs: tuple[bool, ...]) -> tuple[Tensor | None, ...]:
        shared = where(compare(np.equal, a, b), div(g, 2), g)
        return (where(compare(a_loses, a, b), 0.0, shared) if needs[0] else None,
                where(compare(b_loses, a, b), 0.0, shared) if needs[1] else None)
    return grads


MAXIMUM = Pointwise("maximum", np.maximum, _extremum_grads(np.less, np.greater), SELF, dtype=SAME, arity=2,
                    tensors_only=True, inplace=False, joint=True, domain="ties")
MINIMUM = Pointwise("minimum", np.minimum, _extremum_grads(np.greater, np.less), SELF, dtype=SAME, arity=2,
                    tensors_only=True, inplace=False, joint=True, domain="ties")
maximum = MAXIMUM.fn
minimum = MINIMUM.fn


# -- division with rounding (``div(..., rounding_mode=)``): piecewise constant, zero gradient
def _np_div_rounding(a: Any, b: Any, out: np.ndarray, dtype: Any, casting: str = "unsafe",
                     rounding_mode: str = "trunc") -> np.ndarray:
    """C's truncating or Python's flooring division (NumPy's ``floor_divide`` is CPython's
    algorithm, as PyTorch's ``div_floor``)."""
    if rounding_mode == "floor":
        return np.floor_divide(a, b, out=out, dtype=dtype, casting=casting)  # type: ignore[no-any-return]
    if out.dtype.kind == "f":
        np.true_divide(a, b, out=out, dtype=dtype, casting=casting)
        return np.trunc(out, out=out)  # type: ignore[no-any-return]
    a, b = np.asarray(a, dtype=dtype), np.asarray(b, dtype=dtype)
    np.floor_divide(a, b, out=out, dtype=dtype, casting=casting)
    inexact = np.not_equal(np.remainder(a, b), 0) & np.not_equal(np.less(a, 0), np.less(b, 0))
    return np.add(out, inexact, out=out, casting="unsafe")  # type: ignore[no-any-return]


def check_integer_division(op: str, a: Any, b: Any, **params: Any) -> None:
    """Integer division (or remainder) by zero raises, as PyTorch ("ZeroDivisionError")."""
    if params.get("rounding_mode", "trunc") not in ("trunc", "floor"):
        raise RuntimeError(
            f"{op}: expected rounding_mode to be one of None, 'trunc' or 'floor' (got "
            f"{params.get('rounding_mode')!r})")
    if result_type(a, b, op=op) not in dtypes.FLOATING and not np.all(as_array(b)):
        raise RuntimeError(f"{op}: ZeroDivisionError (an integer divisor is zero)")


DIV_ROUNDING = Pointwise(
    "div", _np_div_rounding, (_zero_grad, _zero_grad), NOTHING, dtype=SAME, arity=2, refuse=NO_BOOL,
    params={"rounding_mode": "trunc"}, check=check_integer_division, node_name="DivBackward",
    variant=lambda *args, **params: 2, method=False, export=False, domain="away-nonzero")  # (via ``div``)


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
