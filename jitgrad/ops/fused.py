"""The fused per-op path of the commonest elementwise ops and full sums: one function per op
that does the whole op — operand checks, the NumPy call, the result's Storage and Tensor, the
node, its edges and what it saves — with no intermediate calls. One of the lean paths:
Note [Lean paths] in ``operands.py`` (its rules hold here; what follows is this path's own
design).

In a small-op loop (a DP table, a time stepper) the arithmetic itself is ~0.3 us of NumPy;
the rest of an op was Python glue between small helpers (``lean_data``, ``fresh_result``,
``Storage._fresh``, ``Tensor._make``, ``needs_grad``, ``Node.__init__``, ``record``,
``grad_accumulator``, ``SavingNode.save``), each a frame. Three templates, one per kind
of op — ``fused_binary`` (add, sub, rsub, mul, div; and the declared ufunc ops of two
tensors whose node saves both, with no number branch: maximum, minimum, atan2, logaddexp),
``fused_unary`` (the declared unary ops without parameters: neg, exp, sin, ... with a ufunc
as forward, sigmoid, relu, ... with a function of a ufunc's ``out=``/``dtype=`` convention,
as softmax and log_softmax of a 1-D tensor; and ops of one tensor and numbers that become
its node's fields, the numbers checked by the op's function before the call: ``tensor **
number``, ``clamp`` with number bounds) and ``fused_total`` (sum and mean of every element,
or over one int dim: ``m.sum(1)``, ``x.mean(0, keepdim=True)``; max and min of every
element) — make
one function per op from its declaration (the ufunc, the node class, what the node saves)
that writes those helpers' bodies out for the common case of Note [Lean paths]: the operand exactly ``Tensor``,
float32/float64 (``operands.LEAN_DTYPES``: the tests' ``general()`` switch turns this path
off with the lean one), contiguous from its offset, not empty, nothing traced; for a binary
op the other operand a Python float, an int in int64's range, or a tensor of the same dtype
that has the same sizes and strides or is one element (0-d, or (1,) with a 1-D tensor, as
``lean_binary``'s flat-buffer case; the one element goes to NumPy as a 0-d view,
``buffer[offset, ...]``, which it broadcasts ~0.2 us faster than a (1,) slice, and which
is the general path's operand too). A binary op has one branch per kind of other operand
(a tensor, a number), each ending in the one NumPy call: no sentinels to test on the way.
The commonest other operands of the lean path (a strided column or block ``u[2:, 1:-1]``
with a number or a tensor, broadcasting ``v[:, None] + m``) are written out too: ``lean_strided``'s NumPy views (``operands.strided_rule``,
memoised per geometry; for two tensors one plan per pair of geometries, ``_pair_plan``)
and ``_lean_strided_binary``/``_lean_broadcast``'s call; the rest (a reflected op of a
strided tensor, an operand ``lean_strided`` declines) is computed by ``lean_binary``
itself, and the node is still made here. An operand that is a view whose history is up to
date (``current_grad_fn``'s test) takes the written-out edges too, and so does one without
history whose base (not a view) has none and does not require a gradient, nor does the view
(``_no_gradient``: ``requires_grad``'s test; ``randn(8)[:, None]``, a row of a detached
table): it has no edge. A stale view, or one without history of a base that requires a
gradient, goes through ``needs_grad``/``record``, which regenerate its history or look at
its base. For anything else the function calls its op's lean and general paths
(``otherwise``); when this path has run ``lean_binary`` and it declined, or the operands
are ones it declines (another dtype, another kind of number), only the general path
(``otherwise(..., lean=False)``, tests/test_fused_ops.py counts the calls). Both give the
same values, dtype, strides, node, edges and saved values: tests/test_fused_ops.py compares
every slot of the results, nodes, AccumulateGrads and saved values with the general
path's, and the values and gradients with PyTorch's. If you add a slot to Tensor or Storage, a field to
``Node.__init__`` or ``AccumulateGrad.__init__``, or change ``record``/``SavingNode.save``,
change the written-out copies here too (each template has its own: a shared helper is a
frame, ~5% of an op): that test fails until you do.

The dunders (``Tensor.__mul__``, ...), the declared unary ops (``jitgrad.exp``,
``Tensor.sigmoid``) and ``Tensor.sum``/``Tensor.mean`` are these functions themselves (each
hands any other argument to its op's function, which raises that function's errors); the
public binary functions (``add`` with its ``alpha``, ``div`` with its ``rounding_mode``),
``jitgrad.sum``/``mean``, ``max``/``min``, ``softmax``/``log_softmax`` (a 1-D tensor, no
``dtype``), ``pow`` (``__pow__``, ``square``) and ``clamp`` (``clamp_min``, ``clip``) call
them, ``pow`` for an int or float exponent (an int in int32's range), ``clamp`` for bounds
that are None, floats within float32's range (no overflow error) or ints up to 2**24
(exact in either dtype); on None they go on to their general path.

NumPy's floating-point warnings are silenced around the call, as everywhere: the call
runs in a context where ``QUIET`` is set (``_quiet.QUIET_RUN``, ~0.2 us less than setting
and resetting it, and no objects), or, when another thread is in that context, between
``QUIET.set`` and ``reset`` (``quiet_call``); except for ``negative`` and ``absolute``,
which never raise a floating-point flag (they only touch the sign bit), so NumPy cannot
warn whatever its error state.
"""

from __future__ import annotations

import inspect
import weakref
from typing import Any, Callable

import numpy as np

from .. import _tracing
from .._quiet import QUIET_RUN, quiet_call
from ..autograd import anomaly_mode
from ..autograd.grad_mode import _state as _grad_state
from ..autograd.graph import (
    _NO_EDGE, _RUNS_FIRST, AccumulateGrad, grad_accumulator, needs_grad, record, single_metadata,
)
from ..autograd.node import _RESULT_CODES, SAVED_HOOKS, Node, _next_sequence_nr
from ..storage import INFERENCE, Storage
from ..tensor import Tensor
from . import operands
from .operands import _BROADCASTS, STRIDED_RULES as _STRIDED_RULES, broadcast_plan, layout, lean_binary, strided_rule

_new = object.__new__
_ndarray = np.ndarray
_divide = np.true_divide

# what a fused op's node saves (``SavingNode.save``'s arguments)
NOTHING = 0
PRODUCT = 1  # mul: (input if other needs a gradient, other if input needs one)
QUOTIENT = 2  # div: (input if other needs a gradient, other)
INPUT = 3  # a unary op reading its input
RESULT = 4  # a unary op reading its result (``SavingNode.save_result``)
INPUTS = 5  # a declared binary op reading both inputs: (input, other)

_NONE2 = (None, None)
_weak = weakref.ref

# What the fused path looks up per op, by dtype (only float32 and float64 get here) and sizes:
# ``(contiguous strides, numel, ((sizes, dtype),), (((), dtype),))``, the metadata of a
# one-output node of these sizes and of a 0-d one (a sum's), shared with ``record``'s
# (``graph.single_metadata``). Bounded, as ``operands.layout``'s cache.
_PLANS: dict[np.dtype, dict[tuple[int, ...], tuple[tuple[int, ...], int, Any, Any]]] = {
    np.dtype(np.float32): {}, np.dtype(np.float64): {}}


def _plan(sizes: tuple[int, ...], dtype: np.dtype) -> tuple[tuple[int, ...], int, Any, Any]:
    by_sizes = _PLANS[dtype]
    plan = (*layout(sizes), single_metadata(sizes, dtype), single_metadata((), dtype))
    if len(by_sizes) < 4096:
        by_sizes[sizes] = plan
    return plan


_NO_OTHER: Any = object()  # (a unary op's second argument: none given)
_UNSET: Any = object()  # (a binary op's keyword: not given)

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

Fused = Callable[..., "Tensor | None"]


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
    takes = frozenset() if keywords is None else frozenset(inspect.signature(keywords).parameters)

    def general(input: Any, other: Any) -> Tensor | None:
        """``otherwise`` after this path has found that ``lean_binary`` declines the
        operands (its ``lean=False``: not asked twice)."""
        return None if otherwise is None else otherwise(input, other, lean=False)

    def fused(input: Any, other: Any, *, alpha: Any = _UNSET, rounding_mode: Any = _UNSET) -> Tensor | None:
        if alpha is not _UNSET or rounding_mode is not _UNSET:
            given = {k: v for k, v in (("alpha", alpha), ("rounding_mode", rounding_mode)) if v is not _UNSET}
            if keywords is None or not takes.issuperset(given):
                if tensors_only:  # (a declared function, not a dunder: Python's error)
                    raise TypeError(f"{decline.__name__}() got an unexpected keyword argument '{min(given)}'")
                return NotImplemented  # type: ignore[no-any-return]
            return keywords(input, other, **given)
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
                    y = data[other._offset, ...]
                elif not sizes or sizes == (1,) and len(own) == 1:
                    # the input is that one element: the other's geometry (``lean_binary``'s)
                    by_own = by_sizes.get(own) or _plan(own, dtype)  # (``by_sizes``: the input's made it)
                    if other._strides == by_own[0] and by_own[1]:
                        sizes, strides, n, meta = own, by_own[0], by_own[1], by_own[2]
                        start = other._offset
                        x = buffer[input._offset, ...]
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
        if not _grad_state.enabled:
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
                first = (fn, input._output_nr)
            elif input._requires_grad:
                ref = input._grad_accumulator
                acc = ref() if ref is not None else None
                if acc is None:  # ``grad_accumulator(input)``, written out: its last graph is gone
                    acc = _new(AccumulateGrad)
                    acc.next_functions = ()
                    acc.variable = input
                    acc.sequence_nr = _RUNS_FIRST
                    acc.input_metadata = plan[2]  # (the input's sizes)
                    if anomaly_mode.enabled:
                        anomaly_mode.record_creation(acc.metadata)
                    if input._hooks is not None:
                        acc._tensor_pre_hooks = {0: input._hooks}
                    input._grad_accumulator = _weak(acc)
                first = (acc, 0)
            else:
                first = _NO_EDGE
            second = _NO_EDGE
            if operand is Tensor:
                if other_fn is not None:
                    second = first if other is input else (other_fn, other._output_nr)  # (``x * x``: one edge object)
                elif other._requires_grad:
                    ref = other._grad_accumulator
                    acc = ref() if ref is not None else None
                    second = (grad_accumulator(other) if acc is None else acc, 0)
                elif first is _NO_EDGE:
                    return out
            elif first is _NO_EDGE:
                return out
            node = _new(node_class)
            node.sequence_nr = _next_sequence_nr()
            if anomaly_mode.enabled:  # where the user's code created this node (debugging only)
                anomaly_mode.record_creation(node.metadata)
            node.next_functions = (first, second) if pair else (first,)
            node.input_metadata = meta
            out._grad_fn = node
        elif needs_grad(input, other):
            node = record(node_class(), (input, other if operand is Tensor else None) if pair else (input,), (out,))
            first = node.next_functions[0]
            second = node.next_functions[1] if pair else _NO_EDGE
        else:
            return out
        if not saves:
            return out
        # ``mul``'s ``node.save(input if other needs a gradient, other if input needs one)``
        # and ``div``'s ``node.save(input if other needs a gradient, other)``, in
        # ``SavingNode.save``'s compact form when it would take it
        if operand is not Tensor:  # no tensor: hooks and anomaly mode only concern tensors
            node._saved = None
            node._compact = (None, other if first[0] is not None or saves == QUOTIENT else None)
            node._codes = _NONE2
            return out
        a = input if second[0] is not None or saves == INPUTS else None
        b = other if first[0] is not None or saves == QUOTIENT or saves == INPUTS else None
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
        node._compact = (a, b)
        node._codes = (code_a, code_b)
        return out

    fused.__name__ = fused.__qualname__ = f"fused_{ufunc.__name__}"
    fused.__signature__ = (  # type: ignore[attr-defined]  # (as bound: tensor.pyi)
        _BINARY_SIGNATURE if keywords is None else inspect.signature(keywords))
    return fused


def _declined(input: Any, other: Any = None) -> None:
    return None


def _no_gradient(t: Tensor, view: Any) -> bool:
    """Whether ``t``, a view whose history is up to date and empty, needs no gradient: it
    does not require one itself, and its base (not a view) has no history and does not
    require one (``requires_grad``'s test, for a view made under no_grad). Then ``t`` has
    no edge; else ``needs_grad``/``record`` decide."""
    base = view.base
    return not t._requires_grad and base._view_meta is None and base._grad_fn is None \
        and not base._requires_grad


_P = inspect.Parameter
_BINARY_SIGNATURE = inspect.Signature(
    [_P("input", _P.POSITIONAL_OR_KEYWORD, annotation="Any"), _P("other", _P.POSITIONAL_OR_KEYWORD, annotation="Any")],
    return_annotation="Tensor")


def fused_unary(forward: Any, node_class: type[Node] | None, saves: int,
                dtypes_of: dict[Any, Any] | None, otherwise: Callable[..., Tensor] | None = None, *,
                fields: tuple[str, ...] = ()) -> Fused:
    """``op(input)``: ``forward(input)`` with ``node_class`` as its backward (None: not
    differentiable) on the fused path; else ``otherwise(input)`` (None: returns None).
    ``forward``: a ufunc, or a function with a ufunc's ``out=``/``dtype=`` convention (a
    declared op's: ``forward(x, out=, dtype=, casting="unsafe")`` into a new buffer, as
    ``call_pointwise``'s lean path). ``dtypes_of``: the op's memoised dtype rule
    (``Pointwise._unary_dtypes``); the path is taken for an input dtype it keeps.
    ``fields``: ``op(input, a[, b])`` with numbers the caller has checked (the result has the
    input's dtype; ``dtypes_of`` None): ``forward(x, a[, b], out, dtype)``, and the node gets
    them as its ``fields`` (``pow``'s ``exponent``, ``clamp``'s ``min`` and ``max``), as its
    ``__init__`` sets them."""
    silent = forward is np.negative or forward is np.absolute  # (never raise a floating-point flag)
    ufunc = isinstance(forward, np.ufunc) and not fields
    numbers = len(fields)
    first_field = fields[0] if fields else ""
    second_field = fields[1] if numbers > 1 else ""
    empty = np.empty

    def decline(input: Any, other: Any, third: Any = _NO_OTHER) -> Tensor | None:
        if otherwise is None:
            return None
        if third is not _NO_OTHER:
            return otherwise(input, other, third)
        return otherwise(input) if other is _NO_OTHER else otherwise(input, other)  # (its error)

    def fused(input: Any, other: Any = _NO_OTHER, third: Any = _NO_OTHER) -> Tensor | None:
        if input.__class__ is not Tensor or _tracing.ACTIVE is not None or (
                other is not _NO_OTHER or third is not _NO_OTHER) is not bool(numbers):
            return decline(input, other, third)
        buffer = input._storage.buffer
        dtype = buffer.dtype
        if dtype not in operands.LEAN_DTYPES:
            return decline(input, other, third)
        if dtypes_of is not None:
            rule = dtypes_of.get(dtype)  # (compute dtype, result dtype)
            if rule is None or rule[0] is not dtype or rule[1] is not dtype:
                return decline(input, other, third)
        sizes = input._sizes
        by_sizes = _PLANS.get(dtype)
        plan = None if by_sizes is None else by_sizes.get(sizes)
        if plan is None:
            plan = _plan(sizes, dtype)
        strides, n, meta, _ = plan
        if input._strides != strides or not n:
            return decline(input, other, third)
        start = input._offset
        x = buffer if start == 0 and len(buffer) == n else buffer[start:start + n]
        if silent:
            values = forward(x)
        elif ufunc:
            try:
                values = QUIET_RUN(forward, x)
            except RuntimeError:  # (another thread is in QUIET_RUN's context: see ``_quiet``)
                values = quiet_call(forward, x)
        elif not numbers:
            values = empty(n, dtype)
            try:
                QUIET_RUN(forward, x, out=values, dtype=dtype, casting="unsafe")
            except RuntimeError:
                quiet_call(forward, x, out=values, dtype=dtype, casting="unsafe")
        else:
            values = empty(n, dtype)
            args = (x, other, values, dtype) if numbers == 1 else (x, other, third, values, dtype)
            try:
                QUIET_RUN(forward, *args)
            except RuntimeError:
                quiet_call(forward, *args)
        # ``Storage._fresh`` and ``Tensor._make``, written out (every slot set)
        storage = _new(Storage)
        storage.buffer = values
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
        if node_class is None or not _grad_state.enabled:
            return out
        # ``needs_grad``, ``Node.__init__`` and ``record``, written out for an input that is
        # not a view or whose history is up to date (``current_grad_fn``'s test)
        view = input._view_meta
        fn = input._grad_fn
        if view is not None and (fn is None or view.attr_version != (
                0 if (counter := input._storage._counter) is None else counter.value)):
            if fn is None and _no_gradient(input, view) and view.attr_version == (
                    0 if (counter := input._storage._counter) is None else counter.value):
                return out  # (a view without history needing no gradient: as ``fused_binary``)
            if not needs_grad(input):
                return out
            node = record(node_class(*(other, third)[:numbers]), (input,), (out,))
        else:
            if fn is not None:
                first = (fn, input._output_nr)
            elif input._requires_grad:
                ref = input._grad_accumulator
                acc = ref() if ref is not None else None
                if acc is None:  # ``grad_accumulator(input)``, written out: its last graph is gone
                    acc = _new(AccumulateGrad)
                    acc.next_functions = ()
                    acc.variable = input
                    acc.sequence_nr = _RUNS_FIRST
                    acc.input_metadata = meta
                    if anomaly_mode.enabled:
                        anomaly_mode.record_creation(acc.metadata)
                    if input._hooks is not None:
                        acc._tensor_pre_hooks = {0: input._hooks}
                    input._grad_accumulator = _weak(acc)
                first = (acc, 0)
            else:
                return out
            node = _new(node_class)
            node.sequence_nr = _next_sequence_nr()
            if anomaly_mode.enabled:  # where the user's code created this node (debugging only)
                anomaly_mode.record_creation(node.metadata)
            node.next_functions = (first,)
            node.input_metadata = meta
            out._grad_fn = node
            if numbers:  # (the node's ``__init__``'s fields: after ``record`` on the general path)
                setattr(node, first_field, other)
                if numbers > 1:
                    setattr(node, second_field, third)
        if not saves:
            return out
        if saves == RESULT:  # ``SavingNode.save_result``, written out
            if anomaly_mode.enabled or SAVED_HOOKS.stack or storage.inference:
                node.save_result(out)  # type: ignore[attr-defined]  # (the general form)
                return out
            node._saved = None  # type: ignore[attr-defined]
            node._compact = (storage, sizes, strides)  # type: ignore[attr-defined]
            node._codes = _RESULT_CODES  # type: ignore[attr-defined]
        else:  # ``SavingNode.save(input)``'s compact form, written out
            if anomaly_mode.enabled or SAVED_HOOKS.stack or input._storage.inference:
                node.save(input)  # type: ignore[attr-defined]
                return out
            counter = input._storage._counter
            node._saved = None  # type: ignore[attr-defined]
            node._compact = (input,)  # type: ignore[attr-defined]
            node._codes = ((0 if counter is None else 2 * counter.value) + (input._grad_fn is not None),)  # type: ignore[attr-defined]
        return out

    fused.__name__ = fused.__qualname__ = f"fused_{forward.__name__}"
    return fused


# ``fused_total``'s plans of a reduction over one dim: by dtype, then by ``(sizes, dim,
# keepdim)``: None for a dim out of range (the general path raises), else ``(dims, result
# sizes, their contiguous strides, the shape NumPy writes the flat result buffer as (None:
# the buffer itself), the result's node metadata, the count a mean divides by)``. Bounded.
_REDUCTIONS: dict[np.dtype, dict[tuple[Any, ...], Any]] = {
    np.dtype(np.float32): {}, np.dtype(np.float64): {}}


def _reduction_plan(key: tuple[Any, ...], dtype: np.dtype) -> Any:
    sizes, dim, keepdim = key
    ndim = len(sizes)
    plan = None
    if ndim and -ndim <= dim < ndim:  # (``reduce_dims``' test; a 0-d tensor: the general path)
        dim %= ndim
        kept = sizes[:dim] + (1,) + sizes[dim + 1:]
        result = kept if keepdim else sizes[:dim] + sizes[dim + 1:]
        by_result = _plan(result, dtype)
        plan = ((dim,), result, by_result[0], None if len(kept) == 1 or len(result) == 1 else kept,
                by_result[2], sizes[dim])
    table = _REDUCTIONS[dtype]
    if len(table) < 4096:
        table[key] = plan
    return plan


def fused_total(node_class: type[Node], mean: bool = False,
                otherwise: Callable[..., Tensor] | None = None, by_dim: type[Node] | None = None,
                extreme: np.ufunc | None = None) -> Fused:
    """``op(self, dim=None, keepdim=False, *, dtype=None)``: without ``dim``, ``keepdim`` and
    ``dtype``, the 0-d sum (``mean``: mean) of every element, summed as ``np.add.reduce``
    sums (the general path's order), with ``node_class(self's sizes)`` as its backward, on
    the fused path; with ``by_dim`` (``SumBackward1``), also over one ``dim`` (an int; a bool
    ``keepdim``), as the general path reduces the N-d array, with ``by_dim(self's sizes,
    (dim,), keepdim)``; else ``otherwise(self, dim, keepdim, ..., dtype=dtype)`` (the op's
    function, named and signed as it: its errors; None: returns None). ``extreme``
    (``np.maximum``, ``np.minimum``): ``max()``/``min()``, that ufunc's reduction of every
    element, with ``node_class()`` saving the input and the result (``SavingNode.save``'s
    general form: a saved output has no compact form)."""
    reduce = np.add.reduce if extreme is None else extreme.reduce
    empty = np.empty

    def decline(input: Any, dim: Any, keepdim: Any, args: tuple[Any, ...], dtype: Any) -> Tensor | None:
        if otherwise is None:
            return None
        return otherwise(input, dim, keepdim, *args) if dtype is None else \
            otherwise(input, dim, keepdim, *args, dtype=dtype)  # (its errors, as called)

    def fused(self: Any, dim: Any = None, keepdim: Any = False, *args: Any, dtype: Any = None) -> Tensor | None:
        input = self
        if input.__class__ is not Tensor or _tracing.ACTIVE is not None or args or dtype is not None or (
                keepdim if dim is None else by_dim is None or dim.__class__ is not int or (
                    keepdim is not False and keepdim is not True)):
            return decline(input, dim, keepdim, args, dtype)
        buffer = input._storage.buffer
        dtype = buffer.dtype
        if dtype not in operands.LEAN_DTYPES:
            return decline(input, dim, keepdim, args, None)
        sizes = input._sizes
        by_sizes = _PLANS.get(dtype)
        plan = None if by_sizes is None else by_sizes.get(sizes)
        if plan is None:
            plan = _plan(sizes, dtype)
        strides, n, in_meta, meta = plan
        if input._strides != strides or not n:
            return decline(input, dim, keepdim, args, None)
        start = input._offset
        x = buffer if start == 0 and len(buffer) == n else buffer[start:start + n]
        if dim is None:
            count = n
            result = result_strides = ()
            try:
                values = QUIET_RUN(reduce, x, 0, None, None, True)  # (keepdims: a 1-element buffer)
            except RuntimeError:  # (another thread is in QUIET_RUN's context: see ``_quiet``)
                values = quiet_call(reduce, x, 0, None, None, True)
        else:
            key = (sizes, dim, keepdim)
            reduction = _REDUCTIONS[dtype].get(key) or _reduction_plan(key, dtype)
            if reduction is None:
                return decline(input, dim, keepdim, args, None)
            dims, result, result_strides, shape, meta, count = reduction
            if len(sizes) == 1:  # (as every element: ``reduce`` of the flat buffer)
                try:
                    values = QUIET_RUN(reduce, x, 0, None, None, True)
                except RuntimeError:
                    values = quiet_call(reduce, x, 0, None, None, True)
            else:  # ``sum``'s ``reduce(array_of(self), dims, ...)``, into a flat buffer
                values = empty(n // count, dtype)
                array = x.reshape(sizes)
                into = values if shape is None else values.reshape(shape)
                try:
                    QUIET_RUN(reduce, array, dims, None, into, shape is not None)
                except RuntimeError:
                    quiet_call(reduce, array, dims, None, into, shape is not None)
        if mean:
            try:
                QUIET_RUN(_divide, values, count, values)  # (in place)
            except RuntimeError:
                quiet_call(_divide, values, count, values)
        # ``Storage._fresh`` and ``Tensor._make``, written out (every slot set)
        storage = _new(Storage)
        storage.buffer = values
        storage._counter = None
        storage.inference = INFERENCE.enabled
        storage.resizable = True
        out = _new(Tensor)
        out._storage = storage
        out._sizes = result
        out._strides = result_strides
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
        if not _grad_state.enabled:
            return out
        # ``needs_grad``, ``SumBackward0.__init__`` and ``record``, written out as in
        # ``fused_unary``
        view = input._view_meta
        fn = input._grad_fn
        if view is not None and (fn is None or view.attr_version != (
                0 if (counter := input._storage._counter) is None else counter.value)):
            if fn is None and _no_gradient(input, view) and view.attr_version == (
                    0 if (counter := input._storage._counter) is None else counter.value):
                return out  # (a view without history needing no gradient: as ``fused_binary``)
            if needs_grad(input):
                if extreme is not None:
                    node = record(node_class(), (input,), (out,))
                    node.save(input, out, outputs=(out,))  # type: ignore[attr-defined]
                    return out
                record(node_class(sizes) if dim is None else by_dim(sizes, dims, keepdim),  # type: ignore[misc]
                       (input,), (out,))
            return out
        if fn is not None:
            first = (fn, input._output_nr)
        elif input._requires_grad:
            ref = input._grad_accumulator
            acc = ref() if ref is not None else None
            if acc is None:  # ``grad_accumulator(input)``, written out: its last graph is gone
                acc = _new(AccumulateGrad)
                acc.next_functions = ()
                acc.variable = input
                acc.sequence_nr = _RUNS_FIRST
                acc.input_metadata = in_meta
                if anomaly_mode.enabled:
                    anomaly_mode.record_creation(acc.metadata)
                if input._hooks is not None:
                    acc._tensor_pre_hooks = {0: input._hooks}
                input._grad_accumulator = _weak(acc)
            first = (acc, 0)
        else:
            return out
        node = _new(node_class if dim is None else by_dim)
        node.sequence_nr = _next_sequence_nr()
        if anomaly_mode.enabled:  # where the user's code created this node (debugging only)
            anomaly_mode.record_creation(node.metadata)
        node.next_functions = (first,)
        node.input_metadata = meta
        out._grad_fn = node
        if extreme is not None:
            node.save(input, out, outputs=(out,))  # type: ignore[attr-defined]
            return out
        node.input_sizes = sizes  # type: ignore[attr-defined]  # (``SumBackward0.__init__``)
        if dim is None:
            node._dims = None  # type: ignore[attr-defined]  # (every dim)
        else:
            node._dims = dims  # type: ignore[attr-defined]
            if keepdim:
                node.keepdim = True  # type: ignore[attr-defined]
        return out

    if otherwise is None:
        fused.__name__ = fused.__qualname__ = "fused_" + (
            "mean" if mean else "sum" if extreme is None else extreme.__name__)
    else:  # (as bound: Tensor.sum, tensor.pyi)
        fused.__name__ = fused.__qualname__ = otherwise.__name__
        fused.__doc__ = otherwise.__doc__
        fused.__signature__ = inspect.signature(otherwise)  # type: ignore[attr-defined]
    return fused
