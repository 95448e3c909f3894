"""Pointwise functions of one tensor (``exp``, ``log``, ``sqrt``, ``sin``, ``cos``, ``tanh``,
``sigmoid``, ``relu``, ``abs``) and ``clamp``, with their in-place forms.

Floating-point functions of integer or bool tensors compute in the default float dtype, as
PyTorch. Where PyTorch's backward uses the forward's result (exp, sqrt, tanh, sigmoid, relu)
the node saves the output; an in-place op whose backward needs the value it overwrites (log_,
sin_, cos_, abs_, clamp_) saves a copy of it taken before the write.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from .. import dtypes
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, Node, SavingNode
from ..geometry import broadcast_shapes
from ..tensor import Tensor
from ._common import IGNORE_ALL, QUIET, array_of, as_array, new_tensor, result_type, shape_of, unary
from .compare import compare, logical_and, logical_or, where
from .elementwise import check_inplace_operands, compute, div, mul, neg, original, sub
from .inplace import apply_inplace

SELF, RESULT = "self", "result"  # what a unary op's backward needs saved


def float_dtype(x: Tensor) -> np.dtype:
    """The dtype a floating-point function of ``x`` computes in."""
    d = x.dtype
    return d if d in dtypes.FLOATING else dtypes.DEFAULT_FLOAT


def _unary(fn: Callable[..., Any], node_cls: type, saves: str | None, x: Tensor, dtype: np.dtype) -> Tensor:
    out = unary(fn, x, dtype)
    if needs_grad(x):
        node = record(node_cls(), (x,), (out,))
        if saves is RESULT:
            node.save(out, outputs=(out,))  # type: ignore[attr-defined]
        elif saves is SELF:
            node.save(x)  # type: ignore[attr-defined]
    return out


def _unary_(op: str, fn: Callable[..., Any], node_cls: type, saves: str | None, self: Tensor,
            dtype: np.dtype) -> Tensor:
    check_inplace_operands(op, self, dtype)

    def make_node() -> Node:  # runs before the write: a copy of the old self, if needed
        node = node_cls()
        if saves is SELF:
            node.save(original(self))
        return node

    values = compute(fn, self, dtype=dtype)
    save_result = (lambda n: n.save(self, outputs=(self,))) if saves is RESULT else None
    return apply_inplace(op, self, values, dtype, (self,), make_node, save_result)


def _saved(node: SavingNode) -> Any:
    (value,) = node.unpack()
    return value


# -- exp, log, sqrt ----------------------------------------------------------------------------
class ExpBackward0(SavingNode):
    def apply(self, grads: Grads, owned: Sequence[bool] = ()) -> tuple[Tensor | None, ...]:
        return (mul(grads[0], _saved(self)),)


def exp(input: Tensor) -> Tensor:
    return _unary(np.exp, ExpBackward0, RESULT, input, float_dtype(input))


def exp_(self: Tensor) -> Tensor:
    return _unary_("exp_", np.exp, ExpBackward0, RESULT, self, float_dtype(self))


class LogBackward0(SavingNode):
    def apply(self, grads: Grads, owned: Sequence[bool] = ()) -> tuple[Tensor | None, ...]:
        return (div(grads[0], _saved(self)),)


def log(input: Tensor) -> Tensor:
    return _unary(np.log, LogBackward0, SELF, input, float_dtype(input))


def log_(self: Tensor) -> Tensor:
    return _unary_("log_", np.log, LogBackward0, SELF, self, float_dtype(self))


class SqrtBackward0(SavingNode):
    def apply(self, grads: Grads, owned: Sequence[bool] = ()) -> tuple[Tensor | None, ...]:
        return (div(grads[0], mul(_saved(self), 2)),)


def sqrt(input: Tensor) -> Tensor:
    return _unary(np.sqrt, SqrtBackward0, RESULT, input, float_dtype(input))


def sqrt_(self: Tensor) -> Tensor:
    return _unary_("sqrt_", np.sqrt, SqrtBackward0, RESULT, self, float_dtype(self))


# -- sin, cos, tanh, sigmoid -----------------------------------------------------------------
class SinBackward0(SavingNode):
    def apply(self, grads: Grads, owned: Sequence[bool] = ()) -> tuple[Tensor | None, ...]:
        return (mul(grads[0], cos(_saved(self))),)


def sin(input: Tensor) -> Tensor:
    return _unary(np.sin, SinBackward0, SELF, input, float_dtype(input))


def sin_(self: Tensor) -> Tensor:
    return _unary_("sin_", np.sin, SinBackward0, SELF, self, float_dtype(self))


class CosBackward0(SavingNode):
    def apply(self, grads: Grads, owned: Sequence[bool] = ()) -> tuple[Tensor | None, ...]:
        return (mul(grads[0], neg(sin(_saved(self)))),)


def cos(input: Tensor) -> Tensor:
    return _unary(np.cos, CosBackward0, SELF, input, float_dtype(input))


def cos_(self: Tensor) -> Tensor:
    return _unary_("cos_", np.cos, CosBackward0, SELF, self, float_dtype(self))


class TanhBackward0(SavingNode):
    def apply(self, grads: Grads, owned: Sequence[bool] = ()) -> tuple[Tensor | None, ...]:
        result = _saved(self)
        return (mul(grads[0], sub(1, mul(result, result))),)


def tanh(input: Tensor) -> Tensor:
    return _unary(np.tanh, TanhBackward0, RESULT, input, float_dtype(input))


def tanh_(self: Tensor) -> Tensor:
    return _unary_("tanh_", np.tanh, TanhBackward0, RESULT, self, float_dtype(self))


def _np_sigmoid(x: Any, out: np.ndarray, dtype: Any, casting: str = "unsafe") -> np.ndarray:
    """``1 / (1 + exp(-x))``, the way PyTorch computes it."""
    np.negative(x, out=out, dtype=dtype, casting=casting)
    np.exp(out, out=out)
    np.add(out, 1, out=out)
    return np.reciprocal(out, out=out)


class SigmoidBackward0(SavingNode):
    def apply(self, grads: Grads, owned: Sequence[bool] = ()) -> tuple[Tensor | None, ...]:
        result = _saved(self)
        return (mul(mul(grads[0], sub(1, result)), result),)


def sigmoid(input: Tensor) -> Tensor:
    return _unary(_np_sigmoid, SigmoidBackward0, RESULT, input, float_dtype(input))


def sigmoid_(self: Tensor) -> Tensor:
    return _unary_("sigmoid_", _np_sigmoid, SigmoidBackward0, RESULT, self, float_dtype(self))


# -- relu, abs ---------------------------------------------------------------------------------
def _np_relu(x: Any, out: np.ndarray, dtype: Any, casting: str = "unsafe") -> np.ndarray:
    return np.maximum(x, 0, out=out, dtype=dtype, casting=casting)


def _no_bool(op: str, x: Tensor, error: type = RuntimeError) -> None:
    if x.dtype == dtypes.bool_:
        raise error(f"{op}: Boolean inputs not supported (got a bool tensor)")


class ReluBackward0(SavingNode):
    def apply(self, grads: Grads, owned: Sequence[bool] = ()) -> tuple[Tensor | None, ...]:
        return (where(compare(np.less_equal, _saved(self), 0), 0.0, grads[0]),)


def relu(input: Tensor) -> Tensor:
    _no_bool("relu", input)
    return _unary(_np_relu, ReluBackward0, RESULT, input, input.dtype)


def relu_(self: Tensor) -> Tensor:
    _no_bool("relu_", self)
    return _unary_("relu_", _np_relu, ReluBackward0, RESULT, self, self.dtype)


def sign_of(x: Tensor) -> Tensor:
    """``x.sgn()`` as data (its derivative is zero): -1, 0 or 1, and 0 for nan, as PyTorch."""
    out, view = new_tensor(x._sizes, x.dtype)
    np.sign(array_of(x), out=view)
    if x.dtype in dtypes.FLOATING:
        view[np.isnan(view)] = 0
    return out


class AbsBackward0(SavingNode):
    def apply(self, grads: Grads, owned: Sequence[bool] = ()) -> tuple[Tensor | None, ...]:
        return (mul(grads[0], sign_of(_saved(self))),)


def abs(input: Tensor) -> Tensor:
    _no_bool("abs", input, NotImplementedError)
    return _unary(np.absolute, AbsBackward0, SELF, input, input.dtype)


def abs_(self: Tensor) -> Tensor:
    _no_bool("abs_", self, NotImplementedError)
    return _unary_("abs_", np.absolute, AbsBackward0, SELF, self, self.dtype)


# -- clamp ---------------------------------------------------------------------------------
def _clamp_args(op: str, input: Tensor, min: Any, max: Any) -> tuple[bool, np.dtype]:
    """Check the bounds; whether they are tensors (``ClampBackward0``) or numbers, and the
    result dtype."""
    if min is None and max is None:
        raise RuntimeError(f"{op}: At least one of 'min' or 'max' must not be None")
    kinds = {isinstance(b, Tensor) for b in (min, max) if b is not None}
    if len(kinds) > 1:
        raise TypeError(
            f"{op}(): received an invalid combination of arguments: min and max must both be "
            "Tensors (or None) or both be numbers (or None)"
        )
    bounds = [b for b in (min, max) if b is not None]
    dtype = result_type(input, *bounds, op=op)
    tensors = kinds == {True}
    if dtype == dtypes.bool_ and not (tensors and len(bounds) == 1):  # PyTorch's bool kernels
        raise NotImplementedError(f'"{op}" not implemented for bool (got bool input and bounds)')
    return tensors, dtype


def _np_clamp(x: Any, min: Any, max: Any, out: np.ndarray, dtype: Any) -> None:
    """``out = min(max(x, min), max)``: nan stays nan; with min > max every element is max."""
    if min is not None:
        np.maximum(x, min, out=out, dtype=dtype, casting="unsafe")
        x = out
    if max is not None:
        np.minimum(x, max, out=out, dtype=dtype, casting="unsafe")


def _clamp_mask(x: Tensor, min: Any, max: Any) -> Tensor:
    """Where the gradient of ``x`` passes: ``min <= x <= max`` (a nan ``x`` gets none)."""
    lower = None if min is None else compare(np.greater_equal, x, min)
    upper = None if max is None else compare(np.less_equal, x, max)
    if lower is None:
        return upper  # type: ignore[return-value]
    return lower if upper is None else logical_and(lower, upper)


class ClampBackward1(SavingNode):
    """Backward of ``clamp`` with number bounds."""

    def __init__(self, min: Any, max: Any) -> None:
        super().__init__()
        self.min, self.max = min, max

    def apply(self, grads: Grads, owned: Sequence[bool] = ()) -> tuple[Tensor | None, ...]:
        return (where(_clamp_mask(_saved(self), self.min, self.max), grads[0], 0.0),)


class ClampBackward0(SavingNode):
    """Backward of ``clamp`` with tensor bounds: a bound gets the gradient where it is the
    output (where ``min > max``, ``max`` wins), as PyTorch."""

    def apply(self, grads: Grads, owned: Sequence[bool] = ()) -> tuple[Tensor | None, ...]:
        g = grads[0]
        x, lo, hi = self.unpack()
        grad_x = grad_lo = grad_hi = None
        if self.needs_input_grad(0):
            grad_x = where(_clamp_mask(x, lo, hi), g, 0.0)
        if self.needs_input_grad(1):
            below = compare(np.less, x, lo)
            if hi is not None:
                below = logical_and(below, compare(np.less, lo, hi))
            grad_lo = where(below, g, 0.0)
        if self.needs_input_grad(2):
            above = compare(np.greater, x, hi)
            if lo is not None:
                above = logical_or(above, compare(np.less, hi, lo))
            grad_hi = where(above, g, 0.0)
        return (grad_x, grad_lo, grad_hi)


def _tensor_or_none(x: Any) -> Tensor | None:
    return x if isinstance(x, Tensor) else None


def clamp(input: Tensor, min: Any = None, max: Any = None) -> Tensor:
    tensors, dtype = _clamp_args("clamp", input, min, max)
    bounds = [b for b in (min, max) if b is not None]
    out, view = new_tensor(broadcast_shapes(input._sizes, *map(shape_of, bounds)), dtype)
    token = QUIET.set(IGNORE_ALL)
    try:
        _np_clamp(array_of(input), as_array(min), as_array(max), out=view, dtype=dtype)
    finally:
        QUIET.reset(token)
    if tensors and needs_grad(input, min, max):
        node = record(ClampBackward0(), (input, _tensor_or_none(min), _tensor_or_none(max)), (out,))
        node.save(input, min, max)  # type: ignore[attr-defined]
    elif not tensors and needs_grad(input):
        node = record(ClampBackward1(min, max), (input,), (out,))
        node.save(input)  # type: ignore[attr-defined]
    return out


def clamp_(self: Tensor, min: Any = None, max: Any = None) -> Tensor:
    tensors, dtype = _clamp_args("clamp_", self, min, max)
    check_inplace_operands("clamp_", self, dtype, min, max)

    def make_node() -> Node:  # runs before the write: a copy of the old self
        node: SavingNode
        if tensors:
            node = ClampBackward0()
            node.save(original(self), min, max)
        else:
            node = ClampBackward1(min, max)
            node.save(original(self))
        return node

    values = np.empty(self._sizes, dtype)
    token = QUIET.set(IGNORE_ALL)
    try:
        _np_clamp(array_of(self), as_array(min), as_array(max), out=values, dtype=dtype)
    finally:
        QUIET.reset(token)
    inputs = (self, _tensor_or_none(min), _tensor_or_none(max)) if tensors else (self,)
    return apply_inplace("clamp_", self, values, dtype, inputs, make_node)
