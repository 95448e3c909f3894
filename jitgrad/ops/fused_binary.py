"""The fused per-op path's binary template, ``fused_binary`` (add, sub, rsub, mul, div and
the declared binary ops of two tensors); ``fused.py``'s docstring says what the fused path
is and the rules its templates keep.

The other operand is a Python float, an int in int64's range, or a tensor of the input's
dtype that has the same sizes and strides or is one element (0-d, or (1,) with a 1-D
tensor, as ``lean_binary``'s flat-buffer case; the one element goes to NumPy as a 0-d view,
``buffer[offset, ...]``, which it broadcasts ~0.2 us faster than a (1,) slice, and which is
the general path's operand too). A binary op has one branch per kind of other operand (a
tensor, a number), each ending in the one NumPy call: no sentinels to test on the way. The
commonest other operands of the lean path (a strided column or block ``u[2:, 1:-1]`` with a
number or a tensor, broadcasting ``v[:, None] + m``) are written out too:
``lean_strided``'s NumPy views (``operands.strided_rule``, memoised per geometry; for two
tensors one plan per pair of geometries, ``_pair_plan``) and
``_lean_strided_binary``/``_lean_broadcast``'s call; the rest (a reflected op of a strided
tensor, an operand ``lean_strided`` declines) is computed by ``lean_binary`` itself, and
the node is still made here. When this path has run ``lean_binary`` and it declined, or
the operands are ones it declines (another dtype, another kind of number), only the general
path runs (``otherwise(..., lean=False)``; tests/test_fused_ops.py counts the calls).
"""

from __future__ import annotations

import inspect
from typing import Any, Callable

import numpy as np

from .. import _tracing
from .._quiet import QUIET_RUN, quiet_call
from ..autograd import anomaly_mode
from ..autograd.grad_mode import _state as _grad_state
from ..autograd.graph import _RUNS_FIRST, AccumulateGrad, grad_accumulator, needs_grad, record
from ..autograd.node import CODE_TUPLES, INLINE, SAVED_HOOKS, ZERO_NRS, Node, _next_sequence_nr
from ..storage import INFERENCE, Storage
from ..tensor import Tensor
from . import operands
from .out_arg import into_out
from .fused import INPUTS, NOTHING, QUOTIENT, Fused, _declined, _new, _no_gradient, _plan, _PLANS, _weak, own_code
from .operands import _BROADCASTS, STRIDED_RULES as _STRIDED_RULES, broadcast_plan, layout, lean_binary, strided_rule

_ndarray = np.ndarray
_NONE2 = (None, None)


# The last one-element operand's 0-d view, ``(buffer, offset, buffer[offset, ...])``: a
# stepper's ``alpha * lap`` multiplies by one 0-d parameter statement after statement, and
# making the view costs ~0.14 us. It is a view (current values, whatever was written
# since), and the buffer it keeps alive cannot be freed while kept, so identity is a
# sound key (a storage given a new buffer misses). Only small buffers are kept (a
# parameter's own, not an element of a table the user may drop). Replaced as one tuple
# (threads).
_LAST_SCALAR: tuple[Any, int, Any] = (None, -1, None)
_SCALAR_BUFFER_MAX = 16

# Python numbers as read-only float64 0-d arrays, for float64 operands: the same operand to
# NumPy's loop (a Python float is a double; an int below 2**53 converts exactly, as NumPy's
# weak scalar would), which NumPy converts ~0.1 us faster (0.2 us for an int). Not zero (0.0
# and -0.0 are one key) nor nan (no key); bounded.
_FLOAT64 = np.dtype(np.float64)
_NUMBERS: dict[Any, np.ndarray] = {}


def _number(value: Any) -> Any:
    """``value`` as a cached float64 0-d array when it can be one, else ``value`` itself."""
    if value and value == value and (value.__class__ is float or -(2**53) < value < 2**53) \
            and len(_NUMBERS) < 1024:
        array = np.array(float(value))
        array.flags.writeable = False
        _NUMBERS[value] = array
        return array
    return value


# ``fused_binary``'s plans for two tensor operands of one dtype, not both contiguous of one
# shape (nor one of them one contiguous element): by dtype, then by ``(input's sizes,
# strides, other's sizes, strides)``: None when ``lean_binary``'s strided or broadcast case
# would decline them, else ``(how, form, other's how, other's form, result sizes, its
# contiguous strides, its node metadata)``, where an operand is viewed as ``_FLAT``
# (``buffer[offset:offset + form[0]]``, reshaped to ``form[1]`` unless None), ``_STEP``
# (``buffer[offset:offset + form[1]:form[0]]``) or ``_VIEW`` (``np.ndarray`` of its sizes
# with byte strides ``form``). Bounded.
_FLAT, _STEP, _VIEW = "flat", "step", "view"
_PAIRS: dict[np.dtype, dict[tuple[tuple[int, ...], ...], Any]] = {
    np.dtype(np.float32): {}, np.dtype(np.float64): {}}


def _pair_plan(key: tuple[tuple[int, ...], ...], dtype: np.dtype) -> Any:
    """``_PAIRS``' plan of ``key`` (made and memoised): ``lean_binary``'s decisions for it."""
    sizes, strides, own, own_strides = key
    forms: list[Any] = []
    for shape, steps in ((sizes, strides), (own, own_strides)):
        contiguous, n = layout(shape)
        if steps == contiguous and n:
            forms += [_FLAT, [n, None]]
            continue
        rule = strided_rule(shape, steps, dtype.itemsize)  # (``lean_strided``'s test)
        if rule is None:
            forms = []
            break
        forms += [_STEP, (rule[1], rule[2])] if rule[0] else [_VIEW, rule[1]]
    plan = None
    if forms and (forms[0] is not _FLAT or forms[2] is not _FLAT or sizes != own):
        if sizes == own:  # one flat, the other an N-d view: the flat one as N-d
            result: Any = sizes
            for i in (1, 3):
                if forms[i - 1] is _FLAT and len(sizes) > 1:
                    forms[i][1] = sizes
        else:
            result = _BROADCASTS.get((sizes, own), False)
            if result is False:
                result = broadcast_plan(sizes, own)
            if result is not None and result[2]:
                result = result[0]
                for i, shape in ((1, sizes), (3, own)):  # flat buffers as their N-d sizes
                    if forms[i - 1] is _FLAT and len(shape) > 1:  # (0-d: its (1,) broadcasts as it)
                        forms[i][1] = shape
            else:
                result = None
        if result is not None:
            by_result = _plan(result, dtype)
            plan = (forms[0], tuple(forms[1]) if forms[0] is _FLAT else forms[1],
                    forms[2], tuple(forms[3]) if forms[2] is _FLAT else forms[3],
                    result, by_result[0], by_result[2])
    table = _PAIRS[dtype]
    if len(table) < 4096:
        table[key] = plan
    return plan


def fused_binary(ufunc: np.ufunc, node_class: type[Node], saves: int = NOTHING, *,
                 reflected: bool = False, otherwise: Callable[..., Tensor] | None = None,
                 keywords: Callable[..., Tensor] | None = None, tensors_only: bool = False) -> Fused:
    """``op(input, other)``: ``ufunc(input, other)`` with ``node_class`` as its backward (edges
    to both) on the fused path; else ``otherwise(input, other)`` (None: returns None).
    ``reflected``: ``ufunc(other, input)`` for a number ``other``, with one edge, to
    ``input`` (``rsub``). ``keywords``: the public function a call with its keyword
    (``alpha``, ``rounding_mode``) goes to, as PyTorch's ``x.__add__(y, alpha=2)`` does; a
    keyword the op does not take gives ``NotImplemented``, as PyTorch's dunders.
    ``tensors_only``: a number ``other`` goes to ``otherwise`` (which refuses it)."""
    decline = _declined if otherwise is None else otherwise
    pair = not reflected  # (two edges)
    takes = frozenset() if keywords is None else frozenset(inspect.signature(keywords).parameters) - {"out"}

    def general(input: Any, other: Any) -> Tensor | None:
        """``otherwise`` after this path has found that ``lean_binary`` declines the
        operands (its ``lean=False``: not asked twice)."""
        return None if otherwise is None else otherwise(input, other, lean=False)

    def with_keywords(input: Any, other: Any, given: dict[str, Any]) -> Tensor | None:
        """The call with keywords: ``alpha``, ``rounding_mode`` (to ``keywords``) and, for a
        declared function, ``out`` (``out_arg.py``); a dunder gives NotImplemented for any
        other, as PyTorch's."""
        out = given.pop("out", None) if tensors_only else None
        if out is not None:
            return into_out(decline.__name__, out, fused, (input, other), given)
        if not given:
            return fused(input, other)  # type: ignore[no-any-return]
        if keywords is None or not takes.issuperset(given):
            if tensors_only:  # (a declared function, not a dunder: Python's error)
                raise TypeError(f"{decline.__name__}() got an unexpected keyword argument '{min(given)}'")
            return NotImplemented  # type: ignore[no-any-return]
        return keywords(input, other, **given)

    def fused(input: Any, other: Any, **given: Any) -> Tensor | None:
        global _LAST_SCALAR
        if given:  # (keywords in one dict: cheaper per call than keyword-only parameters' defaults)
            return with_keywords(input, other, given)
        if input.__class__ is not Tensor or _tracing.ACTIVE is not None:
            return decline(input, other)
        buffer = input._storage.buffer
        dtype = buffer.dtype
        if dtype not in operands.LEAN_DTYPES:
            return decline(input, other)
        sizes = input._sizes
        by_sizes = _PLANS[dtype]
        plan = by_sizes.get(sizes) or _plan(sizes, dtype)
        strides, n, meta, _ = plan
        operand = other.__class__
        x: Any = None  # (the input's NumPy operand; None when ``lean_binary`` made the result)
        if operand is Tensor:
            data = other._storage.buffer
            if not pair or data.dtype is not dtype:
                return decline(input, other) if reflected else general(input, other)  # (``sub``'s; lean declines)
            own = other._sizes
            if input._strides == strides and n:
                if own == sizes:
                    if other._strides == strides:
                        start = input._offset
                        x = buffer if start == 0 and len(buffer) == n else buffer[start:start + n]
                        start = other._offset
                        y = data if start == 0 and len(data) == n else data[start:start + n]
                elif (not own or own == (1,) and len(sizes) == 1) and other._strides == own:
                    # one element (0-d, or (1,) with a 1-D input; contiguous: its strides are
                    # its sizes), as a 0-d view (NumPy broadcasts it faster than a (1,) one)
                    # over the flat input: the input's geometry
                    start = input._offset
                    x = buffer if start == 0 and len(buffer) == n else buffer[start:start + n]
                    start = other._offset
                    last = _LAST_SCALAR  # (one read: another thread may replace it)
                    if last[0] is data and last[1] == start:
                        y = last[2]
                    else:
                        y = data[start, ...]
                        if len(data) <= _SCALAR_BUFFER_MAX:
                            _LAST_SCALAR = (data, start, y)
                elif not sizes or sizes == (1,) and len(own) == 1:
                    # the input is that one element: the other's geometry (``lean_binary``'s)
                    by_own = by_sizes.get(own) or _plan(own, dtype)  # (``by_sizes``: the input's made it)
                    if other._strides == by_own[0] and by_own[1]:
                        sizes, strides, n, meta = own, by_own[0], by_own[1], by_own[2]
                        start = other._offset
                        last = _LAST_SCALAR
                        if last[0] is buffer and last[1] == input._offset:
                            x = last[2]
                        else:
                            x = buffer[input._offset, ...]
                            if len(buffer) <= _SCALAR_BUFFER_MAX:
                                _LAST_SCALAR = (buffer, input._offset, x)
                        y = data if start == 0 and len(data) == n else data[start:start + n]
            if x is None:
                # the rest of Note [Lean paths] for the commonest operands, written
                # out: ``_lean_strided_binary``'s and ``_lean_broadcast``'s NumPy views and
                # call (a block ``u[2:, 1:-1]`` with a 0-d tensor or another block; a column
                # and a matrix), the result contiguous of the broadcast sizes, from a plan per
                # geometry (``_pair_plan``); anything else is ``lean_binary``'s below.
                key = (sizes, input._strides, own, other._strides)
                both = _PAIRS[dtype].get(key, False)
                if both is False:
                    both = _pair_plan(key, dtype)
                if both is None:
                    out = lean_binary(ufunc, input, other)
                    if out is None:
                        return general(input, other)
                    if out._sizes != sizes:
                        sizes = out._sizes
                        meta = (by_sizes.get(sizes) or _plan(sizes, dtype))[2]
                else:
                    how, form, other_how, other_form, sizes, strides, meta = both
                    start = input._offset
                    if how is _FLAT:
                        x = buffer if start == 0 and len(buffer) == form[0] else buffer[start:start + form[0]]
                        if form[1] is not None:
                            x = x.reshape(form[1])
                    elif how is _STEP:
                        x = buffer[start:start + form[1]:form[0]]
                    else:
                        x = _ndarray(key[0], dtype, buffer, start * buffer.itemsize, form)
                    start = other._offset
                    if other_how is _FLAT:
                        y = data if start == 0 and len(data) == other_form[0] else data[start:start + other_form[0]]
                        if other_form[1] is not None:
                            y = y.reshape(other_form[1])
                    elif other_how is _STEP:
                        y = data[start:start + other_form[1]:other_form[0]]
                    else:
                        y = _ndarray(own, dtype, data, start * data.itemsize, other_form)
        elif (operand is float or operand is int and -(2**63) <= other < 2**63) and not tensors_only:
            y = other
            if dtype is _FLOAT64:  # (NumPy takes a float64 0-d array faster than a Python number)
                y = _NUMBERS.get(other) or _number(other)
            if input._strides == strides and n:
                start = input._offset
                x = buffer if start == 0 and len(buffer) == n else buffer[start:start + n]
            elif reflected:  # (a strided tensor: ``lean_binary`` computes it)
                out = lean_binary(ufunc, other, input)
                if out is None:
                    return general(input, other)
            else:  # a strided tensor (``lean_strided``'s NumPy view) and the result contiguous
                item = buffer.itemsize
                geometry = (sizes, input._strides)
                rule = _STRIDED_RULES[item].get(geometry, False)
                if rule is False:
                    rule = strided_rule(sizes, geometry[1], item)
                if rule is None:
                    return general(input, other)  # (``lean_binary`` declines it too)
                start = input._offset
                x = buffer[start:start + rule[2]:rule[1]] if rule[0] else \
                    _ndarray(sizes, dtype, buffer, start * item, rule[1])
        else:
            return general(input, other)  # (``lean_binary`` takes only tensors and these numbers)
        recording = _grad_state.recording  # (grad mode on, inference mode off)
        if x is not None:
            try:
                try:
                    values = QUIET_RUN(ufunc, x, y) if pair else QUIET_RUN(ufunc, y, x)
                except RuntimeError:  # (another thread is in QUIET_RUN's context: see ``_quiet``)
                    values = quiet_call(ufunc, x, y) if pair else quiet_call(ufunc, y, x)
            except OverflowError:  # a Python int NumPy refuses: the general path's error or wrap
                return general(input, other)
            if values.ndim != 1:
                values = values.ravel()  # (C-ordered: see ``lean_strided``)
            # ``Storage._fresh`` and ``Tensor._make``, written out (every slot set)
            storage = _new(Storage)
            storage.buffer = values
            storage._counter = None
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
        # ``needs_grad``, ``Node.__init__`` and ``record``, written out for operands that are
        # not views, views whose history is up to date (``current_grad_fn``'s test), or
        # views without history of a base that needs no gradient (``requires_grad``'s test)
        fn = input._grad_fn
        view = input._view_meta
        plain = view is None or (view.attr_version == (
            0 if (counter := input._storage._counter) is None else counter.value) and (
            fn is not None or _no_gradient(input, view)))
        if operand is Tensor:
            other_fn = other._grad_fn
            view = other._view_meta
            if plain and view is not None:
                plain = view.attr_version == (0 if (counter := other._storage._counter) is None else counter.value) \
                    and (other_fn is not None or _no_gradient(other, view))
        if plain:
            if fn is not None:
                first, nr = fn, input._output_nr
            elif input._requires_grad:
                ref = input._grad_accumulator
                acc = ref() if ref is not None else None
                if acc is None:  # ``grad_accumulator(input)``, written out: its last graph is gone
                    acc = _new(AccumulateGrad)
                    acc._nrs = ()  # (no edges)
                    acc.variable = input
                    acc.sequence_nr = _RUNS_FIRST
                    acc.input_metadata = plan[2]  # (the input's sizes)
                    if anomaly_mode.enabled:
                        anomaly_mode.record_creation(acc.metadata)
                    if input._hooks is not None:
                        acc._tensor_pre_hooks = {0: input._hooks}
                    input._grad_accumulator = _weak(acc)
                first, nr = acc, 0
            else:
                first, nr = None, 0
            second, other_nr = None, 0
            if operand is Tensor:
                if other_fn is not None:
                    second, other_nr = other_fn, other._output_nr
                elif other._requires_grad:
                    ref = other._grad_accumulator
                    acc = ref() if ref is not None else None
                    second = grad_accumulator(other) if acc is None else acc
                elif first is None:
                    return out
            elif first is None:
                return out
            node = _new(node_class)
            node.sequence_nr = _next_sequence_nr()
            if anomaly_mode.enabled:  # where the user's code created this node (debugging only)
                anomaly_mode.record_creation(node.metadata)
            if pair:
                node._n0 = first
                node._n1 = second
                node._nrs = ZERO_NRS[2] if nr == 0 and other_nr == 0 else (nr, other_nr)
            else:
                node._n0 = first
                node._nrs = ZERO_NRS[1] if nr == 0 else (nr,)
            node.input_metadata = meta
            out._grad_fn = node
        elif needs_grad(input, other):
            node = record(node_class(), (input, other if operand is Tensor else None) if pair else (input,), (out,))
            first = node._next[0]
            second = node._next[1] if pair else None
        else:
            return out
        if not saves:
            return out
        # ``mul``'s ``node.save(input if other needs a gradient, other if input needs one)``
        # and ``div``'s ``node.save(input if other needs a gradient, other)``, in
        # ``SavingNode.save``'s compact form when it would take it
        if operand is not Tensor:  # no tensor: hooks and anomaly mode only concern tensors
            node._saved = None
            node._compact = INLINE
            node._s0 = None
            node._s1 = other if first is not None or saves == QUOTIENT else None
            node._codes = _NONE2
            return out
        a = input if second is not None or saves == INPUTS else None
        b = other if first is not None or saves == QUOTIENT or saves == INPUTS else None
        if anomaly_mode.enabled or SAVED_HOOKS.stack or (a is not None and input._storage.inference) or (
                b is not None and other._storage.inference):
            node.save(a, b)  # (the general form: SavedTensors, packed; refused, or saved as such)
            return out
        if a is None:
            code_a = None
        else:
            counter = input._storage._counter
            code_a = (0 if counter is None else 2 * counter.value) + (input._grad_fn is not None)
        if b is None:
            code_b = None
        else:
            counter = other._storage._counter
            code_b = (0 if counter is None else 2 * counter.value) + (other._grad_fn is not None)
        node._saved = None
        node._compact = INLINE
        node._s0 = a
        node._s1 = b
        codes = (code_a, code_b)
        node._codes = CODE_TUPLES.get(codes, codes)
        return out

    fused.__name__ = fused.__qualname__ = f"fused_{ufunc.__name__}"
    fused.__signature__ = (  # type: ignore[attr-defined]  # (as bound: tensor.pyi)
        _BINARY_SIGNATURE if keywords is None else inspect.signature(keywords))
    return own_code(fused)



_P = inspect.Parameter
_BINARY_SIGNATURE = inspect.Signature(
    [_P("input", _P.POSITIONAL_OR_KEYWORD, annotation="Any"), _P("other", _P.POSITIONAL_OR_KEYWORD, annotation="Any")],
    return_annotation="Tensor")

