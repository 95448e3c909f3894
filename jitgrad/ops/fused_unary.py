"""The fused per-op path's unary template, ``fused_unary`` (the declared unary ops, softmax
and log_softmax of a 1-D tensor, ``tensor ** number``, ``clamp`` with number bounds);
``fused.py``'s docstring says what the fused path is and the rules its templates keep."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import _tracing
from ..kernels._lazy import LazyKernel
from .._quiet import QUIET_RUN, quiet_call
from ..autograd import anomaly_mode
from ..autograd.grad_mode import _state as _grad_state
from ..autograd.graph import _RUNS_FIRST, AccumulateGrad, needs_grad, record
from ..autograd.node import _RESULT_CODES, CODE_TUPLES, INLINE, SAVED_HOOKS, ZERO_NRS, Node, _next_sequence_nr
from ..storage import INFERENCE, Storage
from ..tensor import Tensor
from . import operands
from .out_arg import into_out
from .fused import _NO_OTHER, RESULT, Fused, _new, _no_gradient, _plan, _PLANS, _weak, own_code


def fused_unary(forward: Any, node_class: type[Node] | None, saves: int,
                dtypes_of: dict[Any, Any] | None, otherwise: Callable[..., Tensor] | None = None, *,
                fields: tuple[str, ...] = (), max_numel: int = 0) -> Fused:
    """``op(input)``: ``forward(input)`` with ``node_class`` as its backward (None: not
    differentiable) on the fused path; else ``otherwise(input)`` (None: returns None).
    ``forward``: a ufunc, or a function with a ufunc's ``out=``/``dtype=`` convention (a
    declared op's: ``forward(x, out=, dtype=, casting="unsafe")`` into a new buffer, as
    ``call_pointwise``'s lean path). ``dtypes_of``: the op's memoised dtype rule
    (``Pointwise._unary_dtypes``); the path is taken for an input dtype it keeps.
    ``fields``: ``op(input, a[, b])`` with numbers the caller has checked (the result has the
    input's dtype; ``dtypes_of`` None): ``forward(x, a[, b], out, dtype)``, and the node gets
    them as its ``fields`` (``pow``'s ``exponent``, ``clamp``'s ``min`` and ``max``), as its
    ``__init__`` sets them. ``forward`` may also be a kernel over rows, ``forward(x, out,
    k)`` (a ``LazyKernel``: ``kernels/softmax.py``'s), which never raises a floating-point
    flag: called on the flat buffer as one row, for inputs of up to ``max_numel`` elements
    (larger ones go to ``otherwise``); or a function whose ``flat`` attribute is such a
    kernel of an elementwise op computing what it computes for its input's dtype
    (``pointwise._np_sigmoid``): that kernel is called instead, on any size. ``out``
    (``jitgrad.exp(x, out=y)``): the result written into it by ``out_arg.into_out``, named
    as ``otherwise``; a positional parameter (see ``out_arg.py``)."""
    # a forward with a kernel for flat buffers of its input's dtype (``_np_sigmoid``'s
    # ``flat``) is that kernel here, on inputs of any size
    flat = getattr(forward, "flat", None)
    rows = isinstance(forward, LazyKernel) or flat is not None
    kernel = forward if flat is None else flat
    entries = kernel._entries if rows else None  # (``LazyKernel.entry``'s, by dtype)
    if flat is not None:
        max_numel = 1 << 62
    silent = forward is np.negative or forward is np.absolute  # (never raise a floating-point flag)
    ufunc = isinstance(forward, np.ufunc) and not fields
    numbers = len(fields)
    first_field = fields[0] if fields else ""
    second_field = fields[1] if numbers > 1 else ""
    empty = np.empty
    name = getattr(otherwise, "__name__", "")

    def decline(input: Any, other: Any, third: Any = _NO_OTHER) -> Tensor | None:
        if otherwise is None:
            return None
        if third is not _NO_OTHER:
            return otherwise(input, other, third)
        return otherwise(input) if other is _NO_OTHER else otherwise(input, other)  # (its error)

    def fused(input: Any, other: Any = _NO_OTHER, third: Any = _NO_OTHER, out: Any = None) -> Tensor | None:
        if out is not None:  # (``jitgrad.exp(x, out=y)``; see ``out_arg.py``)
            return into_out(name, out, fused, (input, other, third))
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
        if rows:
            if n > max_numel:
                return decline(input, other, third)
            values = empty(n, dtype)
            (entries.get(dtype) or kernel.entry(dtype))(x, values, n)  # (x: C-contiguous)
        elif silent:
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
        if node_class is None or not recording:
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
                first, nr = fn, input._output_nr
            elif input._requires_grad:
                ref = input._grad_accumulator
                acc = ref() if ref is not None else None
                if acc is None:  # ``grad_accumulator(input)``, written out: its last graph is gone
                    acc = _new(AccumulateGrad)
                    acc._nrs = ()  # (no edges)
                    acc.variable = input
                    acc.sequence_nr = _RUNS_FIRST
                    acc.input_metadata = meta
                    if anomaly_mode.enabled:
                        anomaly_mode.record_creation(acc.metadata)
                    if input._hooks is not None:
                        acc._tensor_pre_hooks = {0: input._hooks}
                    input._grad_accumulator = _weak(acc)
                first, nr = acc, 0
            else:
                return out
            node = _new(node_class)
            node.sequence_nr = _next_sequence_nr()
            if anomaly_mode.enabled:  # where the user's code created this node (debugging only)
                anomaly_mode.record_creation(node.metadata)
            node._n0 = first
            node._nrs = ZERO_NRS[1] if nr == 0 else (nr,)
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
            node._compact = INLINE  # type: ignore[attr-defined]
            node._s0 = input  # type: ignore[attr-defined]
            codes = ((0 if counter is None else 2 * counter.value) + (input._grad_fn is not None),)
            node._codes = CODE_TUPLES.get(codes, codes)  # type: ignore[attr-defined]
        return out

    fused.__name__ = fused.__qualname__ = f"fused_{forward.name if isinstance(forward, LazyKernel) else forward.__name__}"
    return own_code(fused)


