"""The fused per-op path's reduction template, ``fused_total`` (sum and mean of every element
or over one dim, max and min of every element); ``fused.py``'s docstring says what the
fused path is and the rules its templates keep."""

from __future__ import annotations

import inspect
from typing import Any, Callable

import numpy as np

from .. import _tracing
from .._quiet import QUIET_RUN, quiet_call
from ..autograd import anomaly_mode
from ..autograd.grad_mode import _state as _grad_state
from ..autograd.graph import _RUNS_FIRST, AccumulateGrad, needs_grad, record
from ..autograd.node import ZERO_NRS, Node, _next_sequence_nr
from ..storage import INFERENCE, Storage
from ..tensor import Tensor
from . import operands
from .fused import Fused, _new, _no_gradient, _plan, _PLANS, _weak, own_code

_divide = np.true_divide

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
    compact form of an input and a fresh result, ``MaxBackward1.save_input_result``)."""
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
        recording = _grad_state.recording  # (grad mode on, inference mode off)
        storage.inference = False if recording else INFERENCE.enabled
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
        if not recording:
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
                    node.save_input_result(input, out)  # type: ignore[attr-defined]
                    return out
                record(node_class(sizes) if dim is None else by_dim(sizes, dims, keepdim),  # type: ignore[misc]
                       (input,), (out,))
            return out
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
                acc.input_metadata = in_meta
                if anomaly_mode.enabled:
                    anomaly_mode.record_creation(acc.metadata)
                if input._hooks is not None:
                    acc._tensor_pre_hooks = {0: input._hooks}
                input._grad_accumulator = _weak(acc)
            first, nr = acc, 0
        else:
            return out
        node = _new(node_class if dim is None else by_dim)
        node.sequence_nr = _next_sequence_nr()
        if anomaly_mode.enabled:  # where the user's code created this node (debugging only)
            anomaly_mode.record_creation(node.metadata)
        node._n0 = first
        node._nrs = ZERO_NRS[1] if nr == 0 else (nr,)
        node.input_metadata = meta
        out._grad_fn = node
        if extreme is not None:
            node.save_input_result(input, out)  # type: ignore[attr-defined]
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
        signature = inspect.signature(otherwise)  # (without the function's ``out``: the method takes none)
        fused.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=[p for p in signature.parameters.values() if p.name != "out"])
    return own_code(fused)

