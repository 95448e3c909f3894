"""The fused per-op path of the commonest elementwise ops and reductions: one function per
op that does the whole op — operand checks, the NumPy call, the result's Storage and
Tensor, the node, its edges and what it saves — with no intermediate calls. One of the lean
paths: Note [Lean paths] in ``operands.py`` (its rules hold here; what follows is this
path's own design). This module holds what the templates share (what a node saves, the
per-sizes plans, the test for a view without history); one module per template makes the
functions: ``fused_binary.py``, ``fused_unary.py``, ``fused_total.py``.

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
element) — make one function per op from its declaration (the ufunc, the node class, what
the node saves) that writes those helpers' bodies out for the common case of Note [Lean
paths]: the operand exactly ``Tensor``, float32/float64 (``operands.LEAN_DTYPES``: the
tests' ``general()`` switch turns this path off with the lean one), contiguous from its
offset, not empty, nothing traced. An operand that is a view whose history is up to date
(``current_grad_fn``'s test) takes the written-out edges too, and so does one without
history whose base (not a view) has none and does not require a gradient, nor does the view
(``_no_gradient``: ``requires_grad``'s test; ``randn(8)[:, None]``, a row of a detached
table): it has no edge. A stale view, or one without history of a base that requires a
gradient, goes through ``needs_grad``/``record``, which regenerate its history or look at
its base. For anything else the function calls its op's lean and general paths
(``otherwise``). Both give the same values, dtype, strides, node, edges and saved values:
tests/test_fused_ops.py compares every slot of the results, nodes, AccumulateGrads and
saved values with the general path's, and the values and gradients with PyTorch's. If you
add a slot to Tensor or Storage, a field to ``Node.__init__`` or
``AccumulateGrad.__init__``, or change ``record``/``SavingNode.save``, change the
written-out copies in each template's module too (each has its own: a shared helper is a
frame, ~5% of an op): that test fails until you do.

Each op's function runs a copy of its template's code object (``own_code``): CPython's
specialising interpreter keeps its caches per code object, and an op sharing them with the
others would meet every node class at its stores.

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

import types
import weakref
from typing import Any, Callable, TypeVar

import numpy as np

from ..autograd.graph import single_metadata
from ..tensor import Tensor
from .operands import layout

_new = object.__new__
_weak = weakref.ref

F = TypeVar("F", bound=Callable[..., Any])


def own_code(fn: F) -> F:
    """``fn`` (a template's closure for one op) with a copy of its code object of its own.
    CPython's specialising interpreter keeps its inline caches in the code object, so the
    closures one template makes share them: every op's node class, operand kinds and
    branches meet at the same instructions, which then stay generic (a store into a node's
    slot ~13 ns slower; ~65 ns an op for a node's five stores). With its own code each op's
    sites see one node class and stay specialised. The copy is the same bytecode, names and
    line table (tracebacks, coverage and profilers see the template's lines)."""
    copy = types.FunctionType(fn.__code__.replace(), fn.__globals__, fn.__name__, fn.__defaults__,
                              fn.__closure__)
    copy.__kwdefaults__ = fn.__kwdefaults__
    copy.__qualname__ = fn.__qualname__
    copy.__doc__ = fn.__doc__
    copy.__annotations__ = fn.__annotations__
    copy.__dict__.update(fn.__dict__)
    return copy  # type: ignore[return-value]

# what a fused op's node saves (``SavingNode.save``'s arguments)
NOTHING = 0
PRODUCT = 1  # mul: (input if other needs a gradient, other if input needs one)
QUOTIENT = 2  # div: (input if other needs a gradient, other)
INPUT = 3  # a unary op reading its input
RESULT = 4  # a unary op reading its result (``SavingNode.save_result``)
INPUTS = 5  # a declared binary op reading both inputs: (input, other)

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



Fused = Callable[..., "Tensor | None"]
