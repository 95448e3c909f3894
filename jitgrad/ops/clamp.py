"""``clamp`` (``clip``, ``clamp_min``, ``clamp_max``) with number or tensor bounds, and its
in-place forms. Hand-written rather than declared: the bounds may be numbers or tensors,
which picks PyTorch's node (``ClampBackward1`` or ``ClampBackward0``); the in-place form saves
a copy of the old ``self``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from ..autograd.grad_mode import _state as _grad_state
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, Node, SavingNode
from ..geometry import broadcast_shapes
from ..tensor import Tensor
from .._quiet import QUIET_RUN, quiet_call
from .operands import array_of, as_array, fresh_result, lean_data, new_output, result_type, shape_of, wrapped_operand
from .compare import compare, logical_and, logical_or, where
from .inplace import apply_inplace, check_inplace_operands, original
from .fused import INPUT
from .fused_unary import fused_unary
from .out_arg import into_out


def _saved(node: SavingNode) -> Any:
    (value,) = node.unpack()
    return value


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
    for b in bounds if not tensors else ():
        dtypes.check_scalar_fits(op, b, dtype)
    if dtype == dtypes.bool_ and not (tensors and len(bounds) == 1):  # PyTorch's bool kernels
        raise NotImplementedError(f'"{op}" not implemented for bool (got bool input and bounds)')
    return tensors, dtype


def _bound(b: Any, dtype: np.dtype) -> Any:
    """A bound as data: an int converted as PyTorch does (wrapping a negative one into an
    unsigned dtype, ``clamp(max=-1)`` of uint8 is 255); NumPy refuses it out of range."""
    return wrapped_operand(b, dtype, "clamp") if type(b) is int else as_array(b)


_maximum, _minimum = np.maximum, np.minimum
_greater_equal, _less_equal, _logical_and, _where = np.greater_equal, np.less_equal, np.logical_and, np.where
_FAST_DTYPES = frozenset((np.dtype(np.float32), np.dtype(np.float64)))


def _np_clamp(x: Any, min: Any, max: Any, out: np.ndarray, dtype: Any) -> None:
    """``out = min(max(x, min), max)``: nan stays nan; with min > max every element is max.
    Python number bounds of a float32/float64 ``x`` of ``dtype`` (the fused path's) go to
    NumPy without ``dtype=``/``casting=``: the same loop (a Python number converts to the
    loop's dtype either way), ~0.2 us less."""
    if x.dtype is dtype and out.dtype is dtype and dtype in _FAST_DTYPES and (
            min is None or min.__class__ is float or min.__class__ is int) and (
            max is None or max.__class__ is float or max.__class__ is int):
        if min is not None:
            _maximum(x, min, out=out)
            x = out
        if max is not None:
            _minimum(x, max, out=out)
        return
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

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        x = _saved(self)
        out = _clamp_grad_on_data(g, x, self.min, self.max)
        if out is not None:
            return (out,)
        return (where(_clamp_mask(x, self.min, self.max), g, 0.0),)


class ClampMinBackward0(ClampBackward1):
    """Backward of ``clamp_min`` with a number bound (PyTorch's node for it)."""


class ClampMaxBackward0(ClampBackward1):
    """Backward of ``clamp_max`` with a number bound (PyTorch's node for it)."""


def _clamp_grad_on_data(g: Any, x: Tensor, min: Any, max: Any) -> Tensor | None:
    """``where(min <= x <= max, g, 0.0)`` on data when no graph is recorded and ``g`` and
    ``x`` are lean tensors (Note [Lean paths] in ``operands.py``) of one dtype and sizes:
    the general formula's NumPy calls on the flat buffers (comparisons, ``&``, ``where``:
    the same bits) without a tensor per step. None otherwise."""
    if _grad_state.enabled or g.__class__ is not Tensor or x.__class__ is not Tensor or g._sizes != x._sizes \
            or not (_plain_bound(min) and _plain_bound(max)):
        return None
    gd = lean_data(g)
    if gd is None:
        return None
    xd = lean_data(x)
    if xd is None or xd.dtype is not gd.dtype:
        return None
    mask = None if min is None else _greater_equal(xd, min)
    if max is not None:
        upper = _less_equal(xd, max)
        mask = upper if mask is None else _logical_and(mask, upper, mask)
    return fresh_result(_where(mask, gd, 0.0), g._sizes, g._strides)


def _plain_bound(b: Any) -> bool:
    """Whether a number bound is one the lean comparisons take as it is (``compare``'s
    ``_lean_operand``: a float within float32's range, an int up to 2**24), or None."""
    kind = b.__class__
    return b is None or kind is float and -_FLOAT32_MAX <= b <= _FLOAT32_MAX or kind is int and -_EXACT <= b <= _EXACT


class ClampBackward0(SavingNode):
    """Backward of ``clamp`` with tensor bounds: a bound gets the gradient where it is the
    output (where ``min > max``, ``max`` wins), as PyTorch."""

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
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


class ClampMinBackward1(SavingNode):
    """Backward of ``clamp_min`` with a tensor bound: two edges, ``self`` and ``min``; the
    gradient goes to ``self`` where ``self >= min`` (ties included), to ``min`` where
    ``self < min`` (a nan ``self`` gives neither), as PyTorch."""

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        x, bound = self.unpack()
        return (where(compare(np.greater_equal, x, bound), g, 0.0) if self.needs_input_grad(0) else None,
                where(compare(np.less, x, bound), g, 0.0) if self.needs_input_grad(1) else None)


class ClampMaxBackward1(SavingNode):
    """Backward of ``clamp_max`` with a tensor bound: ``self`` where ``self <= max``, ``max``
    where ``self > max``."""

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        x, bound = self.unpack()
        return (where(compare(np.less_equal, x, bound), g, 0.0) if self.needs_input_grad(0) else None,
                where(compare(np.greater, x, bound), g, 0.0) if self.needs_input_grad(1) else None)


def _tensor_node(tensor_node: type[SavingNode] | None, min: Any, max: Any) -> tuple[SavingNode, tuple[Any, ...]]:
    """The node of tensor bounds and what it is given: ``ClampBackward0`` with both bounds,
    or ``clamp_min``/``clamp_max``'s own node with its one bound."""
    if tensor_node is None:
        return ClampBackward0(), (min, max)
    return tensor_node(), (min if max is None else max,)


def _tensor_or_none(x: Any) -> Tensor | None:
    return x if isinstance(x, Tensor) else None


# the fused per-op path (fused.py): number bounds of a float tensor that fit float32 (no
# overflow error), ints exactly (|b| <= 2**24): NumPy converts them to the loop's dtype
_FUSED = {node: fused_unary(_np_clamp, node, INPUT, None, fields=("min", "max"))
          for node in (ClampBackward1, ClampMinBackward0, ClampMaxBackward0)}
_FLOAT32_MAX = float(np.finfo(np.float32).max)
_EXACT = 2**24


def clamp(input: Tensor, min: Any = None, max: Any = None, *, out: Tensor | None = None) -> Tensor:
    if out is not None:  # (out_arg.py; number bounds: ``out`` of the result's dtype, as PyTorch's)
        return into_out("clamp", out, _clamp, (input, min, max, ClampBackward1),
                        same=not isinstance(min, Tensor) and not isinstance(max, Tensor))
    return _clamp(input, min, max, ClampBackward1)


def _clamp(input: Tensor, min: Any, max: Any, number_node: type[ClampBackward1],
           tensor_node: type[SavingNode] | None = None) -> Tensor:
    """``clamp``; ``number_node``/``tensor_node``: the node for number/tensor bounds
    (``clamp_min``/``clamp_max`` have their own, as in PyTorch; None: ``ClampBackward0``)."""
    lo, hi = min.__class__, max.__class__
    if (min is not None or max is not None) and (
            min is None or lo is float and -_FLOAT32_MAX <= min <= _FLOAT32_MAX
            or lo is int and -_EXACT <= min <= _EXACT) and (
            max is None or hi is float and -_FLOAT32_MAX <= max <= _FLOAT32_MAX
            or hi is int and -_EXACT <= max <= _EXACT):
        out = _FUSED[number_node](input, min, max)
        if out is not None:
            return out
    elif lo is Tensor or hi is Tensor:
        out = _lean_clamp(input, min, max, tensor_node)
        if out is not None:
            return out
    tensors, dtype = _clamp_args("clamp", input, min, max)
    bounds = [b for b in (min, max) if b is not None]
    shape = broadcast_shapes(input._sizes, *map(shape_of, bounds))
    # laid out as PyTorch's TensorIterator would: number bounds are arguments, not operands
    out, view = new_output(shape, dtype, (input, *(b for b in bounds if isinstance(b, Tensor))))
    x, lo, hi = array_of(input), _bound(min, dtype), _bound(max, dtype)
    try:
        QUIET_RUN(_np_clamp, x, lo, hi, view, dtype)
    except RuntimeError:  # (another thread is in QUIET_RUN's context: see ``_quiet``)
        quiet_call(_np_clamp, x, lo, hi, view, dtype)
    if tensors and needs_grad(input, min, max):
        node, given = _tensor_node(tensor_node, min, max)
        record(node, (input, *[_tensor_or_none(b) for b in given]), (out,))
        node.save(input, *given)
    elif not tensors and needs_grad(input):
        node = record(number_node(min, max), (input,), (out,))
        node.save(input)  # type: ignore[attr-defined]
    return out


def _lean_clamp(input: Any, min: Any, max: Any, tensor_node: type[SavingNode] | None) -> Tensor | None:
    """``clamp`` with tensor bounds on the lean path (Note [Lean paths] in ``operands.py``):
    the input and each bound (or None) lean tensors of one dtype, sizes and strides, clamped
    on their flat buffers (``_np_clamp``'s calls, into the result's buffer), recorded as the
    general path records. None otherwise."""
    x = lean_data(input)
    if x is None:
        return None
    sizes, strides = input._sizes, input._strides
    bounds = []
    for bound in (min, max):
        if bound is None:
            bounds.append(None)
            continue
        if bound.__class__ is not Tensor or bound._sizes != sizes or bound._strides != strides:
            return None
        data = lean_data(bound)
        if data is None or data.dtype is not x.dtype:
            return None
        bounds.append(data)
    values = np.empty(len(x), x.dtype)
    try:
        QUIET_RUN(_np_clamp, x, bounds[0], bounds[1], values, x.dtype)
    except RuntimeError:  # (another thread is in QUIET_RUN's context: see ``_quiet``)
        quiet_call(_np_clamp, x, bounds[0], bounds[1], values, x.dtype)
    out = fresh_result(values, sizes, strides)
    if needs_grad(input, min, max):
        node, given = _tensor_node(tensor_node, min, max)
        record(node, (input, *given), (out,))
        node.save(input, *given)
    return out


def clamp_(self: Tensor, min: Any = None, max: Any = None) -> Tensor:
    return _clamp_(self, min, max, ClampBackward1)


def _clamp_(self: Tensor, min: Any, max: Any, number_node: type[ClampBackward1],
            tensor_node: type[SavingNode] | None = None) -> Tensor:
    tensors, dtype = _clamp_args("clamp_", self, min, max)
    check_inplace_operands("clamp_", self, dtype, min, max)
    given = _tensor_node(tensor_node, min, max)[1] if tensors else ()

    def make_node() -> Node:  # runs before the write: a copy of the old self
        node: SavingNode
        if tensors:
            node = _tensor_node(tensor_node, min, max)[0]
            node.save(original(self), *given)
        else:
            node = number_node(min, max)
            node.save(original(self))
        return node

    values = np.empty(self._sizes, dtype)
    x, lo, hi = array_of(self), _bound(min, dtype), _bound(max, dtype)
    try:
        QUIET_RUN(_np_clamp, x, lo, hi, values, dtype)
    except RuntimeError:  # (another thread is in QUIET_RUN's context: see ``_quiet``)
        quiet_call(_np_clamp, x, lo, hi, values, dtype)
    inputs = (self, *[_tensor_or_none(b) for b in given]) if tensors else (self,)
    return apply_inplace("clamp_", self, values, dtype, inputs, make_node)


def clamp_min(input: Tensor, min: Any) -> Tensor:
    return _clamp(input, min, None, ClampMinBackward0, ClampMinBackward1)


def clamp_min_(self: Tensor, min: Any) -> Tensor:
    return _clamp_(self, min, None, ClampMinBackward0, ClampMinBackward1)


def clamp_max(input: Tensor, max: Any) -> Tensor:
    return _clamp(input, None, max, ClampMaxBackward0, ClampMaxBackward1)


def clamp_max_(self: Tensor, max: Any) -> Tensor:
    return _clamp_(self, None, max, ClampMaxBackward0, ClampMaxBackward1)


clip, clip_ = clamp, clamp_  # PyTorch's aliases
