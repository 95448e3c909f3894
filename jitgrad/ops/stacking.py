"""Joins along a dim: ``cat`` and ``stack`` with their nodes (``CatBackward0``,
``StackBackward0``), each with its lean path for the small joins of a DP cell or a stepper
(see the comment over ``stack``)."""
from __future__ import annotations

import weakref
from typing import Any, Sequence

import numpy as np

from .. import _tracing
from ..autograd import anomaly_mode
from ..autograd.grad_mode import _state as _grad_state
from ..autograd.graph import _RUNS_FIRST, AccumulateGrad, input_numbers, needs_grad, record, single_metadata
from ..autograd.node import ZERO_NRS, Grads, Node, _next_sequence_nr, set_next
from ..geometry.strided import wrap_dim
from ..storage import INFERENCE, Storage
from ..tensor import Tensor
from . import operands
from .fused import _PLANS, _plan
from .out_arg import into_out
from .operands import _LAYOUTS, array_of, fresh_result, layout, new_tensor, promote_types
from .view_meta import NO_GRAD_MODE, ViewMeta
from .view_ops import narrow, select

_new = object.__new__
_weak = weakref.ref
# ``np.concatenate`` without its ``__array_function__`` dispatch (~0.1 us of ~0.5): a
# Storage's buffer is exactly ``np.ndarray`` (``Storage``), whose dispatch calls this function
_concatenate = getattr(np.concatenate, "__wrapped__", np.concatenate)



class CatBackward0(Node):
    """Each input's gradient is its slice of the output's (a differentiable ``narrow``)."""

    __slots__ = ("sizes",)  # every input's sizes
    # the join's dim and which inputs were skipped (legacy empty 1-D ones), set on the node
    # only when not these defaults: the common node is made without an __init__ of its own
    dim: int = 0
    skipped: tuple[bool, ...] | None = None

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        assert g is not None
        out: list[Tensor | None] = []
        start = 0
        dim = self.dim
        if self.skipped is None and _data_only(g, dim):
            # ``narrow``'s data (no graph to build): each input's slice, a view of ``g`` made
            # as ``narrow`` makes it in no_grad mode
            storage, sizes, strides = g._storage, g._sizes, g._strides
            base = g if g._base is None else g._base
            head, tail, step, offset = sizes[:dim], sizes[dim + 1:], strides[dim], g._offset
            needed = self._needed
            nexts = self._next
            for i, input_sizes in enumerate(self.sizes):
                length = input_sizes[dim]
                if needed[i] if needed is not None else nexts[i] is not None:
                    view = Tensor._make(storage, head + (length,) + tail, strides, offset + start * step, base)
                    view._view_meta = ViewMeta(base, None, (narrow, (dim, start, length)), NO_GRAD_MODE)
                    out.append(view)
                else:
                    out.append(None)
                start += length
            return tuple(out)
        skipped = self.skipped or (False,) * len(self.sizes)
        for i, (sizes, skip) in enumerate(zip(self.sizes, skipped)):
            if skip:  # a legacy empty 1-D input: an empty gradient
                out.append(new_tensor((0,), g.dtype)[0] if self.needs_input_grad(i) else None)
                continue
            length = sizes[self.dim]
            out.append(narrow(g, self.dim, start, length) if self.needs_input_grad(i) else None)
            start += length
        return tuple(out)


class StackBackward0(Node):
    """Input ``i``'s gradient is ``grad.select(dim, i)``."""

    dim: int = 0  # set on the node when the join was along another dim (no __init__ call)

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        assert g is not None
        nexts = self._next
        n = len(nexts)
        dim = self.dim
        if _data_only(g, dim):
            # ``select``'s data (no graph to build): each input's slice, a view of ``g`` made
            # as ``select`` makes it in no_grad mode
            storage, sizes, strides = g._storage, g._sizes, g._strides
            base = g if g._base is None else g._base
            view_sizes, view_strides = sizes[:dim] + sizes[dim + 1:], strides[:dim] + strides[dim + 1:]
            step, offset = strides[dim], g._offset
            needed = self._needed
            out: list[Tensor | None] = []
            for i in range(n):
                if needed[i] if needed is not None else nexts[i] is not None:
                    view = Tensor._make(storage, view_sizes, view_strides, offset + i * step, base)
                    view._view_meta = ViewMeta(base, None, (select, (dim, i)), NO_GRAD_MODE)
                    out.append(view)
                else:
                    out.append(None)
            return tuple(out)
        return tuple(select(g, dim, i) if self.needs_input_grad(i) else None for i in range(n))


def _data_only(g: Tensor, dim: int) -> bool:
    """Whether a join's backward may make its inputs' slices of ``g`` (along ``dim``) as
    views in its own frame, as ``narrow``/``select`` make them in no_grad mode: no graph
    to build (grad mode off), ``g`` a plain Tensor that is not a view, not inference.
    tests/test_lean_view_backward.py compares every slot with the ops'."""
    return not _grad_state.enabled and g.__class__ is Tensor and g._view_meta is None and \
        not g._storage.inference and not INFERENCE.enabled and 0 <= dim < len(g._sizes)


def _cat_node(dim: int, sizes: tuple[tuple[int, ...], ...]) -> CatBackward0:
    node = CatBackward0()
    node.sizes = sizes
    if dim:
        node.dim = dim
    if (0,) in sizes:
        node.skipped = tuple([s == (0,) for s in sizes])
    return node


def _tensor_list(op: str, tensors: Any) -> list[Tensor]:
    if isinstance(tensors, Tensor):
        raise TypeError(f"{op}(): argument 'tensors' must be a sequence of Tensors, not Tensor")
    tensors = list(tensors)
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"{op}(): expected Tensor as element {i} of 'tensors', but got {type(t).__name__}"
            )
    return tensors


def _result_dtype(tensors: Sequence[Tensor]) -> Any:
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = promote_types(dtype, t.dtype)
    return dtype


# The lean joins (Note [Lean paths] in ``operands.py``): ``cat(tensors, dim)`` and
# ``stack(tensors, dim)`` of an int ``dim`` in range and a list or tuple of tensors of one
# floating dtype, each contiguous, of one shape (``cat``: one number of dimensions, at least
# one, and one shape but along ``dim``). Along the first dim their flat buffers (0-d ones:
# their elements, without an array each), concatenated, are the result's buffer; along
# another NumPy concatenates their N-d forms into a new C-contiguous array, the layout the
# general path gives. Otherwise ``_cat``/``_stack`` (which check, promote and raise as
# PyTorch; their docstrings are the functions'). Each is one frame that writes out
# ``lean_data``, ``fresh_result``, ``needs_grad``, ``Node.__init__``, ``record`` and
# ``grad_accumulator`` for inputs that are not views, or views whose history is up to date;
# other inputs go through ``needs_grad``/``record``. tests/test_fused_join.py compares every
# slot with the general path's.
#
# ``cat`` (the smaller op: each line is a larger part of it) keeps what depends only on the
# inputs' sizes, dtype, number and ``dim`` in a plan (``_cat_plan``: the result's shape,
# strides and metadata, the node's ``sizes``), and checks per input only its sizes and
# strides (by identity first: most results share their input's sizes and the plan's strides;
# an ``==`` of tuples costs more), not its buffer's class (``Storage`` takes exactly
# ``np.ndarray``) nor its dtype: each input's buffer is taken whole from the input's offset,
# and the result's length and dtype, checked once, say whether a buffer was longer than its
# input or the inputs' dtypes differ (then ``_cat_parts``, and ``_cat`` for anything else).
def stack(tensors: Sequence[Tensor], dim: int = 0, *, out: Tensor | None = None) -> Tensor:
    if out is not None:  # (out_arg.py)
        return into_out("stack", out, stack, (tensors, dim))
    if (tensors.__class__ is not list and tensors.__class__ is not tuple) or not tensors \
            or dim.__class__ is not int or _tracing.ACTIVE is not None:
        return _stack(tensors, dim)
    first = tensors[0]
    if first.__class__ is not Tensor:
        return _stack(tensors, dim)
    sizes = first._sizes
    if dim:
        ndim = len(sizes) + 1  # the result's
        if not -ndim <= dim < ndim:
            return _stack(tensors, dim)
        dim %= ndim
    dtype = first._storage.buffer.dtype
    if dtype not in operands.LEAN_DTYPES:
        return _stack(tensors, dim)
    by_sizes = _PLANS.get(dtype)
    scalars = not sizes
    if scalars:  # element by element, without an array each
        values = np.empty(len(tensors), dtype)
        k = 0
    else:
        plan = None if by_sizes is None else by_sizes.get(sizes)
        if plan is None:
            plan = _plan(sizes, dtype)
            by_sizes = _PLANS[dtype]
        strides, n = plan[0], plan[1]
        arrays: list[np.ndarray] = []
    # one loop: each input's ``lean_data`` and (``needs_grad`` and ``record``'s edges,
    # written out) its edge, for inputs that are not views, or views whose history is up to
    # date (``current_grad_fn``'s test); else ``edges`` is None
    recording = _grad_state.recording  # (grad mode on, inference mode off)
    edges: list[Any] | None = [] if recording else None  # (the node's ``_next``)
    numbered = False  # (whether an edge leads to an input other than 0: its ``_nrs``)
    wanted = False
    for t in tensors:
        if t.__class__ is not Tensor:
            return _stack(tensors, dim)
        buffer = t._storage.buffer
        if scalars:
            if t._sizes or buffer.dtype is not dtype:
                return _stack(tensors, dim)
            values[k] = buffer[t._offset]
            k += 1
        else:
            if buffer.dtype is not dtype or t._strides != strides or t._sizes != sizes:
                return _stack(tensors, dim)
            start = t._offset
            arrays.append(buffer if start == 0 and len(buffer) == n else buffer[start:start + n])
        if edges is None:
            continue
        fn = t._grad_fn
        view = t._view_meta
        if view is not None:
            counter = t._storage._counter
            if fn is None or view.attr_version != (0 if counter is None else counter.value):
                edges = None
                wanted = True  # (maybe: ``needs_grad`` says)
                continue
        if fn is not None:
            edges.append(fn)
            if t._output_nr:
                numbered = True
            wanted = True
        elif t._requires_grad:
            ref = t._grad_accumulator
            acc = ref() if ref is not None else None
            if acc is None:  # ``grad_accumulator(t)``, written out: its last graph is gone
                acc = _new(AccumulateGrad)
                acc._nrs = ()  # (no edges)
                acc.variable = t
                acc.sequence_nr = _RUNS_FIRST
                acc.input_metadata = ((by_sizes and by_sizes.get(t._sizes)) or _plan(t._sizes, dtype))[2]
                if anomaly_mode.enabled:
                    anomaly_mode.record_creation(acc.metadata)
                if t._hooks is not None:
                    acc._tensor_pre_hooks = {0: t._hooks}
                t._grad_accumulator = _weak(acc)
            edges.append(acc)
            wanted = True
        else:
            edges.append(None)
    if scalars:
        shape: tuple[int, ...] = (k,)
    else:
        n = len(tensors)
        if not dim:
            shape = (n,) + sizes
            values = _concatenate(arrays)
        else:
            shape = sizes[:dim] + (n,) + sizes[dim:]
            part = sizes[:dim] + (1,) + sizes[dim:]  # each input's place in it
            values = _concatenate([a.reshape(part) for a in arrays], dim).ravel()
    plan = None if by_sizes is None else by_sizes.get(shape)
    if plan is None:
        plan = _plan(shape, dtype)
    # ``Storage._fresh`` and ``Tensor._make``, written out (every slot set)
    storage = _new(Storage)
    storage.buffer = values
    storage._counter = None
    storage.inference = False if recording else INFERENCE.enabled
    storage.resizable = True
    out = _new(Tensor)
    out._storage = storage
    out._sizes = shape
    out._strides = plan[0]
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
    if not wanted:  # (nothing requires grad, or grad mode is off)
        return out
    if edges is None and not needs_grad(*tensors):  # (a stale view, or one without history)
        return out
    node = _new(StackBackward0)
    if dim:
        node.dim = dim
    # ``Node.__init__`` and the rest of ``record``, written out
    node.sequence_nr = _next_sequence_nr()
    if anomaly_mode.enabled:  # where the user's code created this node (debugging only)
        anomaly_mode.record_creation(node.metadata)
    if edges is None:  # the general edges (``record`` regenerates a stale view's history)
        record(node, tensors, (out,))
        return out
    set_next(node, edges)
    node._nrs = input_numbers(tensors, edges) if numbered or len(edges) >= len(ZERO_NRS) \
        else ZERO_NRS[len(edges)]
    node.input_metadata = plan[2]
    out._grad_fn = node
    return out


def _lean_parts(tensors: Sequence[Any], sizes: tuple[int, ...], dtype: Any, dim: int) -> list[np.ndarray] | None:
    """``lean_data`` of each of ``cat``'s tensors of one shape but along ``dim`` (N-d arrays
    when ``dim`` is not the first)."""
    arrays = []
    ndim = len(sizes)
    before, after = sizes[:dim], sizes[dim + 1:]
    for t in tensors:
        if t.__class__ is not Tensor:
            return None
        buffer = t._storage.buffer
        shape = t._sizes
        if buffer.dtype is not dtype or len(shape) != ndim or shape[dim + 1:] != after or \
                shape[:dim] != before:
            return None
        strides, n = _LAYOUTS.get(shape) or layout(shape)
        if t._strides != strides:
            return None
        start = t._offset
        flat = buffer if start == 0 and buffer.shape[0] == n else buffer[start:start + n]
        arrays.append(flat.reshape(shape) if dim else flat)
    return arrays


def _cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Concatenate along ``dim`` with PyTorch's rules: dtypes are promoted, and (a legacy rule)
    1-D tensors of size 0 are skipped whatever their shape partners are."""
    tensors = _tensor_list("cat", tensors)
    if not tensors:
        raise ValueError("cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if t.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    dtype = _result_dtype(tensors)
    skipped = [t._sizes == (0,) for t in tensors]
    kept = [(i, t) for i, t in enumerate(tensors) if not skipped[i]]
    if not kept:
        out = new_tensor((0,), dtype)[0]
        d = 0
    else:
        ref = kept[0][1]
        d = wrap_dim(dim, ref.ndim, "cat")
        total = 0
        for i, t in kept:
            if t.ndim != ref.ndim:
                raise RuntimeError(
                    f"Tensors must have same number of dimensions: got {ref.ndim} and {t.ndim}"
                )
            for axis, (s, r) in enumerate(zip(t._sizes, ref._sizes)):
                if axis != d and s != r:
                    raise RuntimeError(
                        f"Sizes of tensors must match except in dimension {d}. Expected size "
                        f"{r} but got size {s} for tensor number {i} in the list."
                    )
            total += t._sizes[d]
        out, view = new_tensor(ref._sizes[:d] + (total,) + ref._sizes[d + 1 :], dtype)
        np.concatenate([array_of(t) for _, t in kept], axis=d, out=view)
    if needs_grad(*tensors):
        record(_cat_node(d, tuple([t._sizes for t in tensors])), tensors, (out,))
    if _tracing.ACTIVE is not None:  # jitgrad.compile records it
        _tracing.ACTIVE.join(out, [t for _, t in kept], d, stack=False)
    return out


def _stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Join equally shaped tensors along a new dimension ``dim`` (dtypes are promoted)."""
    tensors = _tensor_list("stack", tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    sizes = tensors[0]._sizes
    d = wrap_dim(dim, len(sizes) + 1, "stack")
    for i, t in enumerate(tensors):
        if t._sizes != sizes:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(sizes)} at entry 0 "
                f"and {list(t._sizes)} at entry {i}"
            )
    out, view = new_tensor(sizes[:d] + (len(tensors),) + sizes[d:], _result_dtype(tensors))
    if sizes:
        np.stack([array_of(t) for t in tensors], axis=d, out=view)
    else:  # scalars: element by element, without an array per input
        for k, t in enumerate(tensors):
            view[k] = t._storage.buffer[t._offset]
    if needs_grad(*tensors):
        node = StackBackward0()
        if d:
            node.dim = d
        record(node, tensors, (out,))
    if _tracing.ACTIVE is not None:  # jitgrad.compile records it
        _tracing.ACTIVE.join(out, tensors, d, stack=True)
    return out

# the lean ``cat``'s plans (the comment above ``stack``): by the inputs' sizes, the
# last one asked for each sizes (one dict lookup per call); by their dtype, sizes, number
# and ``dim``, every one made (``_cat_plan``: a program that alternates numbers of inputs or
# dims for one shape pays this second lookup, not a new plan)
_CAT_PLANS: dict[tuple[int, ...], tuple[Any, ...]] = {}
_ALL_CAT_PLANS: dict[tuple[Any, tuple[int, ...], int, int], tuple[Any, ...]] = {}


def _cat_plan(dtype: Any, sizes: tuple[int, ...], n: int, dim: int) -> tuple[Any, ...] | None:
    """What the lean ``cat`` of ``n`` contiguous inputs of shape ``sizes`` along ``dim``
    needs (the inputs' strides and number of elements, the result's shape, number of
    elements, strides and metadata, the node's ``sizes``, an input's metadata, ``dim``
    wrapped), memoised; None when ``cat`` is not lean there: 0-d or legacy empty 1-D
    inputs, ``dim`` out of range."""
    key = (dtype, sizes, n, dim)
    plan = _ALL_CAT_PLANS.get(key)
    if plan is None:
        ndim = len(sizes)
        if not ndim or sizes == (0,) or not -ndim <= dim < ndim:
            return None
        d = dim % ndim
        strides, numel = layout(sizes)
        shape = sizes[:d] + (sizes[d] * n,) + sizes[d + 1:]
        out = _PLANS.get(dtype, {}).get(shape) or _plan(shape, dtype)
        one = _PLANS[dtype].get(sizes) or _plan(sizes, dtype)
        plan = (dtype, n, dim, strides, numel, shape, numel * n, out[0], (sizes,) * n, out[2], one[2], d)
        if len(_ALL_CAT_PLANS) < 4096:
            _ALL_CAT_PLANS[key] = plan
    if len(_CAT_PLANS) < 4096 or sizes in _CAT_PLANS:
        _CAT_PLANS[sizes] = plan
    return plan


def cat(tensors: Sequence[Tensor], dim: int = 0, *, out: Tensor | None = None) -> Tensor:
    if out is not None:  # (out_arg.py)
        return into_out("cat", out, cat, (tensors, dim))
    if (tensors.__class__ is not list and tensors.__class__ is not tuple) or not tensors \
            or dim.__class__ is not int or _tracing.ACTIVE is not None:
        return _cat(tensors, dim)
    first = tensors[0]
    if first.__class__ is not Tensor:
        return _cat(tensors, dim)
    sizes = first._sizes
    dtype = first._storage.buffer.dtype
    if dtype not in operands.LEAN_DTYPES:
        return _cat(tensors, dim)
    plan = _CAT_PLANS.get(sizes)
    n = len(tensors)
    if plan is None or plan[0] is not dtype or plan[1] != n or plan[2] != dim:
        plan = _cat_plan(dtype, sizes, n, dim)
        if plan is None:
            return _cat(tensors, dim)
    _, _, _, strides, numel, shape, total, out_strides, shapes, meta, one, d = plan
    arrays = []
    recording = _grad_state.recording  # (grad mode on, inference mode off)
    edges: list[Any] | None = [] if recording else None  # (the node's ``_next``)
    numbered = False  # (whether an edge leads to an input other than 0: its ``_nrs``)
    wanted = False
    for t in tensors:
        if t.__class__ is not Tensor:
            return _cat(tensors, dim)
        each = t._sizes
        geometry = t._strides
        if (each is not sizes and each != sizes) or (geometry is not strides and geometry != strides):
            return _cat_parts(tensors, sizes, dtype, d)
        buffer = t._storage.buffer
        start = t._offset
        arrays.append(buffer[start:start + numel] if start else buffer)
        if edges is None:
            continue
        fn = t._grad_fn
        view = t._view_meta
        if view is not None:
            counter = t._storage._counter
            if fn is None or view.attr_version != (0 if counter is None else counter.value):
                edges = None
                wanted = True  # (maybe: ``needs_grad`` says)
                continue
        if fn is not None:
            edges.append(fn)
            if t._output_nr:
                numbered = True
            wanted = True
        elif t._requires_grad:
            ref = t._grad_accumulator
            acc = ref() if ref is not None else None
            if acc is None:  # ``grad_accumulator(t)``, written out: its last graph is gone
                acc = _new(AccumulateGrad)
                acc._nrs = ()  # (no edges)
                acc.variable = t
                acc.sequence_nr = _RUNS_FIRST
                acc.input_metadata = one if buffer.dtype is dtype else single_metadata(sizes, buffer.dtype)
                if anomaly_mode.enabled:
                    anomaly_mode.record_creation(acc.metadata)
                if t._hooks is not None:
                    acc._tensor_pre_hooks = {0: t._hooks}
                t._grad_accumulator = _weak(acc)
            edges.append(acc)
            wanted = True
        else:
            edges.append(None)
    # each buffer whole from its start: longer than the input's elements if a buffer is
    # (checked once, on the result's length), of other dtypes if the inputs are
    values = _concatenate(arrays) if not d else _concatenate_along(arrays, sizes, numel, d)
    if values is None or len(values) != total or values.dtype is not dtype:
        return _cat_parts(tensors, sizes, dtype, d)
    # ``Storage._fresh`` and ``Tensor._make``, written out (every slot set)
    storage = _new(Storage)
    storage.buffer = values
    storage._counter = None
    storage.inference = False if recording else INFERENCE.enabled
    storage.resizable = True
    out = _new(Tensor)
    out._storage = storage
    out._sizes = shape
    out._strides = out_strides
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
    if not wanted:  # (nothing requires grad, or grad mode is off)
        return out
    if edges is None and not needs_grad(*tensors):  # (a stale view, or one without history)
        return out
    node = _new(CatBackward0)
    node.sizes = shapes
    if d:
        node.dim = d
    # ``Node.__init__`` and the rest of ``record``, written out
    node.sequence_nr = _next_sequence_nr()
    if anomaly_mode.enabled:  # where the user's code created this node (debugging only)
        anomaly_mode.record_creation(node.metadata)
    if edges is None:  # the general edges (``record`` regenerates a stale view's history)
        record(node, tensors, (out,))
        return out
    set_next(node, edges)
    node._nrs = input_numbers(tensors, edges) if numbered or len(edges) >= len(ZERO_NRS) \
        else ZERO_NRS[len(edges)]
    node.input_metadata = meta
    out._grad_fn = node
    return out


def _concatenate_along(arrays: list[np.ndarray], sizes: tuple[int, ...], numel: int, dim: int) -> np.ndarray | None:
    """The lean ``cat``'s buffer along ``dim``, not the first (their N-d forms concatenated
    into a new C-contiguous array, the layout the general path gives); None if a buffer
    is longer than an input's elements."""
    for a in arrays:
        if len(a) != numel:
            return None
    return _concatenate([a.reshape(sizes) for a in arrays], dim).ravel()


def _cat_parts(tensors: Sequence[Any], sizes: tuple[int, ...], dtype: Any, dim: int) -> Tensor:
    """The lean ``cat`` of inputs of several lengths along ``dim`` (or with a buffer longer
    than the input, or of several dtypes): ``_cat`` when they are not contiguous tensors of
    one dtype and one shape but along ``dim``."""
    arrays = _lean_parts(tensors, sizes, dtype, dim)
    if arrays is None:
        return _cat(tensors, dim)
    shapes = tuple([t._sizes for t in tensors])
    total = 0
    for each in shapes:
        total += each[dim]
    shape = sizes[:dim] + (total,) + sizes[dim + 1:]
    values = _concatenate(arrays, dim).ravel() if dim else _concatenate(arrays)
    out = fresh_result(values, shape, layout(shape)[0])
    if needs_grad(*tensors):
        record(_cat_node(dim, shapes), tensors, (out,))
    return out


cat.__doc__ = _cat.__doc__
stack.__doc__ = _stack.__doc__
