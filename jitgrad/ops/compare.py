"""Comparisons, logical and bitwise operations, and ``where``.

Comparisons compare in the promoted dtype of their operands (as PyTorch: ``float32_tensor ==
float64_0d_tensor`` compares in float32) and return bool tensors, which never require grad.
``where`` is differentiable in its two value operands; its backward routes the gradient by the
saved condition, and the backward formulas of the other elementwise ops are built from it.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import _tracing, dtypes
from .._quiet import quiet_call
from ..autograd import anomaly_mode
from ..autograd.grad_mode import _state as _grad_state
from ..autograd.graph import grad_accumulator, input_numbers, needs_grad, record
from ..autograd.node import CODE_TUPLES, INLINE, SAVED_HOOKS, ZERO_NRS, Grads, Node, SavingNode, _next_sequence_nr
from ..geometry import broadcast_shapes
from ..storage import INFERENCE, Storage
from ..tensor import Tensor
from . import operands
from .fused import _PLANS, _plan
from .out_arg import into_out
from .operands import (
    array_of, as_array, binary, broadcast_shape, fresh_result, lean_data, new_output, new_tensor, result_type,
    shape_of, wrapped_operand,
)

_BOOL = dtypes.bool_
_BOOL_DTYPE = np.dtype(np.bool_)
_new = object.__new__
try:  # NumPy's C ``where`` itself: ``np.where`` first calls its ``__array_function__``
    # dispatcher, a Python function (~0.3 us of a small ``where``)
    from numpy._core._multiarray_umath import where as _np_where
except ImportError:  # pragma: no cover - another NumPy
    _np_where = np.where


def compare(ufunc: np.ufunc, a: Any, b: Any) -> Tensor:
    """``ufunc(a, b)`` as a bool tensor, comparing in the promoted dtype of ``a`` and ``b``."""
    x = lean_data(a)
    if x is not None:  # Note [Lean paths] in operands.py: flat buffers
        y = _lean_operand(b, a._sizes, x.dtype)
        if y is not None:
            return fresh_result(ufunc(x, y), a._sizes, a._strides)
    dtype = result_type(a, b, op=ufunc.__name__)
    out, view = new_output(broadcast_shape(a, b), _BOOL, (a, b))  # laid out as its operands
    try:  # (quietly: a Python float beyond float32's range becomes inf, silently as PyTorch)
        quiet_call(ufunc, as_array(a), as_array(b), out=view, signature=(dtype, dtype, _BOOL), casting="unsafe")
    except OverflowError:  # a Python int beyond an integer dtype's range: PyTorch wraps it
        op = ufunc.__name__
        quiet_call(ufunc, wrapped_operand(a, dtype, op), wrapped_operand(b, dtype, op), out=view,
                   signature=(dtype, dtype, _BOOL), casting="unsafe")
    return out


_FLOAT32_MAX = float(np.finfo(np.float32).max)


def _lean_operand(b: Any, sizes: tuple[int, ...], dtype: np.dtype) -> Any:
    """The other operand of a lean comparison or ``where`` with a tensor on the lean path of
    ``sizes`` and ``dtype``: a tensor of those (its flat buffer), a float within float32's
    range (``where`` checks that it fits) or an int up to 2**24 (exact in either dtype:
    NumPy converts a Python number to the loop's dtype, as the general path's ``dtype``
    does); else None."""
    kind = b.__class__
    if kind is Tensor:
        if b._sizes == sizes and b._storage.buffer.dtype is dtype:
            return lean_data(b)
        return None
    if kind is float and -_FLOAT32_MAX <= b <= _FLOAT32_MAX or kind is int and -(2**24) <= b <= 2**24:
        return b
    return None


def _operand(op: str, x: Any) -> None:
    """Refuse operands that are neither tensors nor Python numbers (for the named function;
    the Python operators return NotImplemented instead)."""
    if not _is_operand(x):
        raise TypeError(f"{op}(): expected a Tensor or a number, got {type(x).__name__}")


def eq(input: Any, other: Any) -> Tensor:
    _operand("eq", other)
    return compare(np.equal, input, other)


def ne(input: Any, other: Any) -> Tensor:
    _operand("ne", other)
    return compare(np.not_equal, input, other)


def lt(input: Any, other: Any) -> Tensor:
    _operand("lt", other)
    return compare(np.less, input, other)


def le(input: Any, other: Any) -> Tensor:
    _operand("le", other)
    return compare(np.less_equal, input, other)


def gt(input: Any, other: Any) -> Tensor:
    _operand("gt", other)
    return compare(np.greater, input, other)


def ge(input: Any, other: Any) -> Tensor:
    _operand("ge", other)
    return compare(np.greater_equal, input, other)


def _is_operand(x: Any) -> bool:
    return isinstance(x, (Tensor, bool, int, float, np.bool_, np.integer, np.floating))


def operator(ufunc: np.ufunc) -> Any:
    """A Python comparison operator: NotImplemented for foreign operands, so that
    ``tensor == None`` is False (Python's fallback), as in PyTorch. (``2 < t`` needs no
    reflected form: Python calls ``t > 2``.)"""

    def method(self: Tensor, other: Any) -> Any:
        # the fused per-op path (``fused.py``): a lean tensor (Note [Lean paths] in
        # ``operands.py``) and a tensor of its dtype, sizes and strides or a number that
        # ``_lean_operand`` takes, compared on the flat buffers, the result written out
        if self.__class__ is Tensor and _tracing.ACTIVE is None:
            buffer = self._storage.buffer
            dtype = buffer.dtype
            if dtype in operands.LEAN_DTYPES:
                sizes = self._sizes
                strides, n = (_PLANS[dtype].get(sizes) or _plan(sizes, dtype))[:2]
                kind = other.__class__
                if self._strides == strides and n and (
                        kind is Tensor and other._sizes == sizes and other._strides == strides
                        and other._storage.buffer.dtype is dtype
                        or kind is float and -_FLOAT32_MAX <= other <= _FLOAT32_MAX
                        or kind is int and -(2**24) <= other <= 2**24):
                    start = self._offset
                    x = buffer if start == 0 and len(buffer) == n else buffer[start:start + n]
                    if kind is Tensor:
                        data = other._storage.buffer
                        start = other._offset
                        y = data if start == 0 and len(data) == n else data[start:start + n]
                    else:
                        y = other
                    # ``Storage._fresh`` and ``Tensor._make``, written out (every slot set)
                    storage = _new(Storage)
                    storage.buffer = ufunc(x, y)
                    storage._counter = None
                    storage.inference = INFERENCE.enabled
                    storage.resizable = True
                    out = _new(Tensor)
                    out._storage = storage
                    out._sizes = sizes
                    out._strides = strides
                    out._offset = 0
                    out._base = None
                    out._requires_grad = False
                    out._grad = None
                    out._grad_fn = None
                    out._output_nr = 0
                    out._grad_accumulator = None
                    out._hooks = None
                    out._retains_grad = False
                    out._view_meta = None
                    return out
        if not _is_operand(other):
            return NotImplemented
        return compare(ufunc, self, other)

    method.__name__ = ufunc.__name__
    return method


eq_operator = operator(np.equal)  # Tensor.__eq__, ...
ne_operator = operator(np.not_equal)
lt_operator = operator(np.less)
le_operator = operator(np.less_equal)
gt_operator = operator(np.greater)
ge_operator = operator(np.greater_equal)


# -- logical (any dtype in, bool out) ---------------------------------------------------------
def _logical(ufunc: np.ufunc) -> tuple[Callable[[Tensor, Any], Tensor], Callable[[Tensor, Any], Tensor]]:
    """``torch.logical_<op>(input, other)`` and ``Tensor.logical_<op>(other)``: tensors only
    (PyTorch refuses a number), the error naming the argument's position in each form."""
    name = f"logical_{ufunc.__name__.split('_')[1]}"

    def check(other: Any, position: int) -> None:
        if not isinstance(other, Tensor):
            raise TypeError(f"{name}(): argument 'other' (position {position}) must be Tensor, not "
                            f"{type(other).__name__}")

    def function(input: Tensor, other: Any) -> Tensor:
        check(other, 2)
        return binary(ufunc, input, other, _BOOL)

    def method(self: Tensor, other: Any) -> Tensor:
        check(other, 1)
        return binary(ufunc, self, other, _BOOL)

    function.__name__ = method.__name__ = name
    return function, method


logical_and, logical_and_method = _logical(np.logical_and)
logical_or, logical_or_method = _logical(np.logical_or)
logical_xor, logical_xor_method = _logical(np.logical_xor)


def logical_not(input: Tensor) -> Tensor:
    out, view = new_output(input._sizes, _BOOL, (input,))
    np.logical_not(array_of(input), out=view)
    return out


# -- bitwise (bool and int64 only: ``&``, ``|``, ``^``, ``~``) ----------------------------------
def _bitwise(name: str, ufunc: np.ufunc, a: Any, b: Any) -> Tensor:
    dtype = result_type(a, b, op=name)
    if dtype in dtypes.FLOATING:
        raise NotImplementedError(f'"{name}_cpu" not implemented for {dtype.name} (got a floating '
                                  "point operand; expected bool or int64)")
    return binary(ufunc, a, b, dtype)


def bitwise_and(input: Any, other: Any) -> Tensor:
    return _bitwise("bitwise_and", np.bitwise_and, input, other)


def bitwise_or(input: Any, other: Any) -> Tensor:
    return _bitwise("bitwise_or", np.bitwise_or, input, other)


def bitwise_xor(input: Any, other: Any) -> Tensor:
    return _bitwise("bitwise_xor", np.bitwise_xor, input, other)


def bitwise_not(input: Tensor) -> Tensor:
    if input.dtype in dtypes.FLOATING:
        raise TypeError(
            "~ (operator.invert) is only implemented on integer and Boolean-type tensors, got "
            f"{input.dtype.name}"
        )
    out, view = new_output(input._sizes, input.dtype, (input,))
    np.invert(array_of(input), out=view)
    return out


def bitwise_operator(fn: Any, reflected: bool = False) -> Any:
    """A Python operator (``&``, ``|``, ``^`` and reflected forms) from a bitwise function."""

    def method(self: Tensor, other: Any) -> Any:
        if not _is_operand(other):
            return NotImplemented
        return fn(other, self) if reflected else fn(self, other)

    method.__name__ = fn.__name__
    return method


and_operator = bitwise_operator(bitwise_and)  # Tensor.__and__, ...
rand_operator = bitwise_operator(bitwise_and, reflected=True)
or_operator = bitwise_operator(bitwise_or)
ror_operator = bitwise_operator(bitwise_or, reflected=True)
xor_operator = bitwise_operator(bitwise_xor)
rxor_operator = bitwise_operator(bitwise_xor, reflected=True)


# -- where ----------------------------------------------------------------------------------
class WhereBackward0(SavingNode):
    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        (condition,) = self.unpack()
        return (
            where(condition, g, 0.0) if self.needs_input_grad(0) else None,
            where(condition, 0.0, g) if self.needs_input_grad(1) else None,
        )


_MISSING: Any = object()


def where(condition: Tensor, input: Any = _MISSING, other: Any = _MISSING, *, out: Tensor | None = None) -> Any:
    """``input`` where ``condition`` holds, else ``other`` (tensors or Python scalars).
    ``where(condition)`` alone is ``nonzero(condition, as_tuple=True)``: one int64 index
    tensor per dimension."""
    if out is not None:  # (out_arg.py; tensors only, as PyTorch's ``where.self_out``)
        for k, x in ((2, input), (3, other)):
            if not isinstance(x, Tensor):
                raise TypeError(f"where(): argument '{('input', 'other')[k - 2]}' (position {k}) must be "
                                f"Tensor, not {'nothing' if x is _MISSING else type(x).__name__}")
        return into_out("where", out, where, (condition, input, other))
    if not isinstance(condition, Tensor):
        raise TypeError(f"where(): argument 'condition' must be a Tensor, got {type(condition).__name__}")
    if input is _MISSING and other is _MISSING:
        return tuple(_index_tensor(ix) for ix in np.nonzero(np.atleast_1d(array_of(condition))))
    if input is _MISSING or other is _MISSING:
        raise TypeError("where(): expected a condition alone or with both input and other (got only one of them)")
    out = _fused_where(condition, input, other)
    if out is not None:
        return out
    if condition.dtype != _BOOL:
        raise RuntimeError(
            "where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{condition.dtype.name}"
        )
    out = _lean_where(condition, input, other)
    if out is None:
        _operand("where", input)
        _operand("where", other)
        dtype = result_type(input, other, op="where")
        for x in (input, other) if dtype != dtypes.float16 else ():  # (PyTorch's Half: unchecked)
            if not isinstance(x, Tensor):
                dtypes.check_scalar_fits("where", x, dtype)
        shape = broadcast_shapes(condition._sizes, shape_of(input), shape_of(other))
        out, view = new_output(shape, dtype, (condition, input, other))
        np.copyto(view, wrapped_operand(other, dtype, "where"), casting="unsafe")  # (uint8: -1 is 255)
        np.copyto(view, wrapped_operand(input, dtype, "where"), casting="unsafe", where=array_of(condition))
    if needs_grad(input, other):
        node = WhereBackward0()
        record(node, (_tensor(input), _tensor(other)), (out,))
        node.save(condition)
    return out


def _fused_where(condition: Any, input: Any, other: Any) -> Tensor | None:
    """``where`` on the fused per-op path (``fused.py``): a bool condition and a lean tensor
    (Note [Lean paths] in ``operands.py``) of its sizes and strides, contiguous, and the
    other value a tensor of those and its dtype or a number ``_lean_operand`` takes (either
    way round: the backward's ``where(c, 0.0, g)``), selected by ``np.where`` on the flat
    buffers (``_lean_where``'s call), with the result, the node, its edges and the saved
    condition written out. Operands that are views go through ``needs_grad``/``record``.
    None otherwise (the general path)."""
    if condition.__class__ is not Tensor or _tracing.ACTIVE is not None:
        return None
    t = input if input.__class__ is Tensor else other
    if t.__class__ is not Tensor:
        return None
    buffer = t._storage.buffer
    dtype = buffer.dtype
    if dtype not in operands.LEAN_DTYPES:
        return None
    sizes = t._sizes
    plan = _PLANS[dtype].get(sizes) or _plan(sizes, dtype)
    strides, n = plan[0], plan[1]
    if t._strides != strides or not n or condition._sizes != sizes or condition._strides != strides:
        return None
    mask = condition._storage.buffer
    if mask.dtype is not _BOOL_DTYPE:
        return None  # (the general path's error)
    operands_: list[Any] = []
    for value in (input, other):
        kind = value.__class__
        if kind is Tensor:
            data = value._storage.buffer
            if value._sizes != sizes or value._strides != strides or data.dtype is not dtype:
                return None
            start = value._offset
            operands_.append(data if start == 0 and len(data) == n else data[start:start + n])
        elif kind is float and -_FLOAT32_MAX <= value <= _FLOAT32_MAX or kind is int and -(2**24) <= value <= 2**24:
            operands_.append(value)
        else:
            return None
    start = condition._offset
    if start or len(mask) != n:
        mask = mask[start:start + n]
    # ``Storage._fresh`` and ``Tensor._make``, written out (every slot set)
    storage = _new(Storage)
    storage.buffer = _np_where(mask, operands_[0], operands_[1])
    storage._counter = None
    recording = _grad_state.recording  # (grad mode on, inference mode off)
    storage.inference = False if recording else INFERENCE.enabled
    storage.resizable = True
    out = _new(Tensor)
    out._storage = storage
    out._sizes = sizes
    out._strides = strides
    out._offset = 0
    out._base = None
    out._requires_grad = False
    out._grad = None
    out._grad_fn = None
    out._output_nr = 0
    out._grad_accumulator = None
    out._hooks = None
    out._retains_grad = False
    out._view_meta = None
    if not recording:
        return out
    a = input if input.__class__ is Tensor else None
    b = other if other.__class__ is Tensor else None
    if a is not None and a._view_meta is not None or b is not None and b._view_meta is not None:
        if needs_grad(input, other):  # (views: ``record`` brings their history up to date)
            node = WhereBackward0()
            record(node, (a, b), (out,))
            node.save(condition)
        return out
    # ``needs_grad``, ``Node.__init__`` and ``record``, written out for operands that are not views
    nexts: list[Node | None] = []
    numbered = False  # (whether an edge leads to an input other than 0: its ``_nrs``)
    for value in (a, b):
        if value is None:
            nexts.append(None)
        elif value._grad_fn is not None:
            nexts.append(value._grad_fn)
            numbered = numbered or value._output_nr != 0
        elif value._requires_grad:
            ref = value._grad_accumulator
            acc = ref() if ref is not None else None
            nexts.append(grad_accumulator(value) if acc is None else acc)
        else:
            nexts.append(None)
    if nexts[0] is None and nexts[1] is None:
        return out
    node = _new(WhereBackward0)
    node.sequence_nr = _next_sequence_nr()
    if anomaly_mode.enabled:  # where the user's code created this node (debugging only)
        anomaly_mode.record_creation(node.metadata)
    node._n0 = nexts[0]
    node._n1 = nexts[1]
    node._nrs = input_numbers((a, b), nexts) if numbered else ZERO_NRS[2]
    node.input_metadata = plan[2]
    out._grad_fn = node
    # ``SavingNode.save(condition)``'s compact form, written out
    if anomaly_mode.enabled or SAVED_HOOKS.stack or condition._storage.inference:
        node.save(condition)
        return out
    counter = condition._storage._counter
    node._saved = None
    node._compact = INLINE
    node._s0 = condition
    codes = ((0 if counter is None else 2 * counter.value) + (condition._grad_fn is not None),)
    node._codes = CODE_TUPLES.get(codes, codes)
    return out


def _lean_where(condition: Tensor, input: Any, other: Any) -> Tensor | None:
    """``where`` on the lean path (Note [Lean paths] in ``operands.py``): a
    tensor ``input`` on it, a contiguous condition of its sizes and the other operand of
    ``_lean_operand``, selected by ``np.where`` on their flat buffers (a copy of either's
    elements, as the general path's two ``copyto``); None otherwise."""
    x = lean_data(input)
    if x is None or condition._sizes != input._sizes or condition._strides != input._strides:
        return None
    y = _lean_operand(other, input._sizes, x.dtype)
    if y is None:
        return None
    start = condition._offset
    mask = condition._storage.buffer[start:start + len(x)]
    return fresh_result(np.where(mask, x, y), input._sizes, input._strides)


def where_method(self: Tensor, condition: Tensor, other: Any) -> Tensor:
    """``self.where(condition, other)``: ``where(condition, self, other)``."""
    return where(condition, self, other)


def _tensor(x: Any) -> Tensor | None:
    return x if isinstance(x, Tensor) else None


def _index_tensor(ix: np.ndarray) -> Tensor:
    out, view = new_tensor((len(ix),), dtypes.int64)
    view[...] = ix
    return out
