"""Building the graph: edges to inputs, ``AccumulateGrad`` for leaves, and ``record``.

The engine needs a few *differentiable* operations (add, sum_to, dtype conversion, copy)
so that ``create_graph=True`` can differentiate through gradient accumulation too. They live
in the ops layer above; ``jitgrad/ops/__init__.py`` installs them in ``OPS`` at import time,
which keeps imports one-way (autograd never imports ops).
"""

from __future__ import annotations

import sys
import weakref
from types import SimpleNamespace
from typing import Any, Sequence

import numpy as np

from .. import regions
from ..geometry.strided import is_contiguous, is_non_overlapping_and_dense, numel
from ..storage import allocate
from ..tensor import Tensor
from .grad_mode import _state as _grad_state
from .grad_mode import is_grad_enabled
from . import anomaly_mode
from .node import ZERO_NRS, Edge, Grads, Node, edge_numbers, set_next

# ``rebase_history(tensor, node, base_edge, op)``: make ``node`` the history of an input a custom
# Function modified in place (``ctx.mark_dirty``); ops install it with the view machinery
# (CopySlices for views). Until then ``function.py`` sets ``grad_fn`` directly.
# ``current_grad_fn(view)``: a view's ``grad_fn``, regenerated first when its storage was
# written since (ops/view_meta.py). Every read of a tensor's history goes through
# ``grad_fn_of`` below so that a stale view is never wired into a new graph.
# ``custom_function_output_view(view, multi_output)``: a view a custom Function returned now
# has that node as its history; writing into it in place is refused.
OPS = SimpleNamespace(
    add=None, sum_to=None, to_dtype=None, clone_obey_contract=None, rebase_history=None, current_grad_fn=None,
    custom_function_view=None, custom_function_output_view=None,
)

_NO_EDGE: Edge = (None, 0)


def needs_grad(*tensors: Any) -> bool:
    """Whether an operation on ``tensors`` must be recorded (called by every op: kept cheap).
    Nothing is recorded in inference mode, even with grad mode turned on inside it (as in
    PyTorch, whose inference mode skips the autograd kernels)."""
    if not _grad_state.recording:
        return False
    for t in tensors:
        if isinstance(t, Tensor):
            vm = t._view_meta
            if vm is None:
                if t._requires_grad or t._grad_fn is not None:
                    return True
            else:
                # a view: its history, if up to date (``current_grad_fn``'s test, inlined),
                # says yes; else ``requires_grad`` brings a stale view up to date first
                counter = t._storage._counter
                if t._grad_fn is not None and vm.attr_version == (0 if counter is None else counter.value):
                    return True
                if requires_grad(t):
                    return True
    return False


def requires_grad(t: Tensor) -> bool:
    """PyTorch's ``requires_grad``: a leaf flag, a history, or — for a view — a base that
    requires grad (a view made under no_grad has no history but still requires grad)."""
    vm = t._view_meta
    if vm is None:
        return t._requires_grad or t._grad_fn is not None
    current = OPS.current_grad_fn  # grad_fn_of, inlined: every op on a view asks
    fn = t._grad_fn if current is None else current(t)
    return fn is not None or t._requires_grad or requires_grad(vm.base)


def grad_fn_of(t: Tensor) -> Node | None:
    """``t``'s history: its ``grad_fn``, brought up to date first if ``t`` is a view."""
    if t._view_meta is None or OPS.current_grad_fn is None:
        return t._grad_fn
    return OPS.current_grad_fn(t)  # type: ignore[no-any-return]


def gradient_edge(t: Tensor | None) -> Edge:
    """Where the gradient for ``t`` goes: its ``grad_fn``, its ``AccumulateGrad``, or nowhere."""
    if t is None:
        return _NO_EDGE
    fn = t._grad_fn if t._view_meta is None else grad_fn_of(t)
    if fn is not None:
        return (fn, t._output_nr)
    if t._requires_grad:
        return (grad_accumulator(t), 0)
    return _NO_EDGE


def grad_accumulator(t: Tensor) -> AccumulateGrad:
    """The leaf's one ``AccumulateGrad`` (shared by every use, so its gradients are summed).
    The leaf holds it weakly, as PyTorch: it lives as long as a graph that reaches the leaf,
    so an op on a leaf whose last graph is gone makes it again (then cheaply: below)."""
    ref = t._grad_accumulator
    node = ref() if ref is not None else None
    if node is None:
        # ``AccumulateGrad(t)``, written out: a loop over ``leaf * c`` makes one per op
        node = _new(AccumulateGrad)
        node._nrs = ()  # (no edges)
        node.variable = t
        node.sequence_nr = _RUNS_FIRST
        dtype = t._storage.buffer.dtype
        by_sizes = _SINGLE_METADATA.get(dtype.type)  # (single_metadata's cache, read inline)
        meta = None if by_sizes is None else by_sizes.get(t._sizes)
        node.input_metadata = meta if meta is not None and meta[0][1] is dtype \
            else single_metadata(t._sizes, dtype)
        if anomaly_mode.enabled:  # where the user's code created this node (debugging only)
            anomaly_mode.record_creation(node.metadata)
        if t._hooks is not None:  # the leaf's gradient hooks (Tensor.register_hook)
            node._tensor_pre_hooks = {0: t._hooks}
        t._grad_accumulator = _weak(node)
    return node


_new = object.__new__
_weak = weakref.ref
_RUNS_FIRST = sys.maxsize  # an AccumulateGrad's sequence_nr: it runs as soon as it is ready


# One shared ``((sizes, dtype),)`` per shape and dtype: the metadata of a one-output node
# then costs no new objects (fewer objects per op is less work for Python's collector).
# Keyed by the dtype's scalar type, then the sizes: hashing a type is an identity hash,
# while a dtype hashes its whole description every time.
_SINGLE_METADATA: dict[type, dict[tuple[int, ...], tuple[tuple[Any, Any]]]] = {}


def single_metadata(sizes: tuple[int, ...], dtype: Any) -> tuple[tuple[Any, Any]]:
    """``((sizes, dtype),)``, shared (bounded cache)."""
    by_sizes = _SINGLE_METADATA.get(dtype.type)
    if by_sizes is None:
        by_sizes = _SINGLE_METADATA[dtype.type] = {}
    meta = by_sizes.get(sizes)
    if meta is None or meta[0][1] != dtype:
        meta = ((sizes, dtype),)
        if len(by_sizes) < 4096:
            by_sizes[sizes] = meta
    return meta


def input_numbers(inputs: Sequence[Tensor | None], nodes: Sequence[Node | None]) -> tuple[int, ...]:
    """The ``_nrs`` of a node with edges to ``nodes`` for ``inputs`` (``record``'s, and the
    written-out ones', when an edge leads to an input other than 0 of its node)."""
    return edge_numbers(tuple([0 if t is None or fn is None or fn.__class__ is AccumulateGrad else t._output_nr
                               for t, fn in zip(inputs, nodes)]))


def record(node: Node, inputs: Sequence[Tensor | None], outputs: Sequence[Tensor]) -> Node:
    """Make ``node`` the ``grad_fn`` of ``outputs``, with edges to ``inputs``."""
    nodes: list[Node | None] = []
    numbered = False  # whether an edge leads to an input other than 0 of its node
    for t in inputs:  # gradient_edge, inlined: this runs once per recorded op
        if t is None:
            nodes.append(None)
            continue
        fn = t._grad_fn
        vm = t._view_meta
        if vm is not None:  # a view: its history, brought up to date if its storage was written
            counter = t._storage._counter  # (``current_grad_fn``'s test, inlined)
            if vm.attr_version != (0 if counter is None else counter.value) and OPS.current_grad_fn is not None:
                fn = OPS.current_grad_fn(t)
        if fn is not None:
            nodes.append(fn)
            if t._output_nr:
                numbered = True
        elif t._requires_grad:
            ref = t._grad_accumulator  # (grad_accumulator, inlined for a leaf that has one)
            acc = ref() if ref is not None else None
            nodes.append(grad_accumulator(t) if acc is None else acc)
        else:
            nodes.append(None)
    set_next(node, nodes)  # (``node._next = tuple(nodes)``, without the property's call)
    node._nrs = input_numbers(inputs, nodes) if numbered or len(nodes) >= len(ZERO_NRS) else ZERO_NRS[len(nodes)]
    if len(outputs) == 1:  # the common case, without a loop
        out = outputs[0]
        out._grad_fn = node
        out._output_nr = 0
        dtype = out._storage.buffer.dtype
        by_sizes = _SINGLE_METADATA.get(dtype.type)  # (single_metadata's cache, read inline)
        meta = None if by_sizes is None else by_sizes.get(out._sizes)
        node.input_metadata = meta if meta is not None and meta[0][1] is dtype \
            else single_metadata(out._sizes, dtype)
        return node
    meta = []
    for i, out in enumerate(outputs):
        out._grad_fn = node
        out._output_nr = i
        meta.append((out._sizes, out._storage.buffer.dtype))
    node.input_metadata = tuple(meta)
    return node


class ScatterGrad:
    """A gradient that is zero but in one region: ``values`` at ``region`` (a non-overlapping
    geometry in a contiguous tensor of ``sizes``). A view's backward returns this instead of
    dense zeros plus the slice, and the engine adds it into its input buffer in O(slice):
    a slice's gradient is a scatter into the accumulator (Note [Gradient buffer ownership]).
    Only made without ``create_graph``; the engine materializes it before any node, hook or
    caller sees it."""

    __slots__ = ("values", "sizes", "region")

    def __init__(self, values: Tensor, sizes: tuple[int, ...], region: Any) -> None:
        self.values = values
        self.sizes = sizes
        self.region = region

    @property
    def dtype(self) -> np.dtype:
        return self.values.dtype

    def materialize(self) -> Tensor:
        """A dense tensor of ``sizes`` (zeros outside the region), owned by the caller. The
        values are copied in, not added to the zeros, as PyTorch's ``slice_backward`` does:
        ``0.0 + -0.0`` would turn a gradient's ``-0.0`` into ``+0.0``."""
        out = Tensor._from_buffer(allocate(numel(self.sizes), self.values.dtype, 0), self.sizes)
        r, v = self.region, self.values
        regions.copy_region(
            out._storage.buffer, r.storage_offset, r.strides,
            v._storage.buffer, v._offset, v._strides, r.sizes,
        )
        return out

    def add_into(self, dense: Tensor) -> None:
        """``dense[region] += values`` for a contiguous ``dense`` of ``sizes``."""
        r, v = self.region, self.values
        regions.add_region(
            dense._storage.buffer, dense._offset + r.storage_offset, r.strides,
            v._storage.buffer, v._offset, v._strides, r.sizes,
        )


def add_inplace(dst: Tensor, src: Tensor) -> None:
    """``dst += src`` on data (no graph); ``dst`` is dense and owned, ``src`` any layout."""
    regions.add_region(
        dst._storage.buffer, dst._offset, dst._strides,
        src._storage.buffer, src._offset, src._strides, dst._sizes,
    )


def dense_copy(t: Tensor) -> Tensor:
    """A contiguous copy with its own storage, outside any graph."""
    out = Tensor._from_buffer(allocate(t.numel(), t.dtype), t._sizes)
    regions.copy_region(
        out._storage.buffer, 0, out._strides, t._storage.buffer, t._offset, t._strides, t._sizes
    )
    return out


def is_fresh(t: Tensor, extra_refs: int = 0) -> bool:
    """True when nothing but the caller references ``t`` or its memory (PyTorch's
    ``use_count() <= num_expected_refs``), so it may be taken over without a copy.

    ``sys.getrefcount(t)`` here counts this function's parameter, its own argument and the
    caller's local name (3), plus ``extra_refs`` containers the caller knows about. The
    storage must be referenced only by ``t``, and its NumPy buffer only by the storage (no
    NumPy view of it alive, no base array it borrows from).
    """
    buffer = t._storage.buffer
    return (
        t._base is None
        and sys.getrefcount(t) <= 3 + extra_refs
        and sys.getrefcount(t._storage) <= 2
        and buffer.base is None
        and sys.getrefcount(buffer) <= 3  # the storage, the local name, the argument
        and t.is_contiguous()
        and t._offset == 0
        and t._storage.size() == t.numel()
        and t._grad_fn is None
    )


class AccumulateGrad(Node):
    """The gradient sink of a leaf: adds the incoming gradient into ``variable.grad``."""

    __slots__ = ("variable",)

    def __init__(self, variable: Tensor) -> None:
        # Node.__init__ written out (``grad_accumulator`` writes this out again)
        self._nrs = ()  # (no edges yet: the node slots stay unset)
        self.variable = variable
        self.sequence_nr = _RUNS_FIRST  # runs as soon as it is ready, as in PyTorch
        self.input_metadata = single_metadata(variable._sizes, variable._storage.buffer.dtype)
        if anomaly_mode.enabled:  # where the user's code created this node (debugging only)
            anomaly_mode.record_creation(self.metadata)

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"  # PyTorch's name() (its C++ class name)

    takes_owned = True

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        return self.apply_owned(grads, ())

    def apply_owned(self, grads: Grads, owned: Sequence[bool]) -> tuple[Tensor | None, ...]:
        grad = grads[0]
        if grad is not None:
            accumulate_grad(self.variable, grad, bool(owned and owned[0]), is_grad_enabled())
        return ()


def accumulate_grad(variable: Tensor, new: Tensor, owned: bool, create_graph: bool) -> None:
    """PyTorch's AccumulateGrad rules: steal an unreferenced buffer, else copy; later
    gradients add in place, or out of place when building a graph (``create_graph``). A
    leaf that stopped requiring grad after the graph was built (``detach_()``,
    ``requires_grad_(False)``) gets nothing, as in PyTorch; its hooks still run."""
    if not (variable._requires_grad or variable.requires_grad):
        return
    old = variable._grad
    if old is None:
        if create_graph:
            variable._grad = OPS.clone_obey_contract(new, variable)
        elif new._sizes != variable._sizes or not is_contiguous(variable._sizes, variable._strides):
            # PyTorch's layout contract: the gradient has the leaf's strides (a transposed
            # leaf's too), and its sizes should an in-place view op under no_grad have changed
            # them since the graph was built (the gradient is broadcast into them)
            stolen = owned and obeys_layout_contract(new, variable)
            variable._grad = new if stolen else OPS.clone_obey_contract(new, variable)
        elif owned:
            variable._grad = new
        else:
            variable._grad = dense_copy(new)
    elif create_graph or old._grad_fn is not None or regions.has_overlap(
        old._sizes, old._strides
    ):
        variable._grad = OPS.add(old, new)
    else:
        old._storage.check_writable("AccumulateGrad")
        add_inplace(old, new)
        old._storage.bump("AccumulateGrad")


def obeys_layout_contract(grad: Tensor, variable: Tensor) -> bool:
    """PyTorch's rule for keeping ``grad`` as ``variable.grad`` without a copy: a dense
    ``variable``'s strides (size-1 dimensions aside, but never a stride 0), else contiguous."""
    if not is_non_overlapping_and_dense(variable._sizes, variable._strides):
        return grad.is_contiguous()
    if len(grad._sizes) != len(variable._sizes):
        return False
    for size, stride, wanted in zip(grad._sizes, grad._strides, variable._strides):
        if stride != wanted if size != 1 else stride == 0:
            return False
    return True


# -- saved tensor hooks, increment_version --------------------------------------------------------
class saved_tensors_hooks:
    """Context manager: tensors saved for backward inside are packed with ``pack_hook(t)``
    when saved and restored with ``unpack_hook(packed)`` when backward needs them (PyTorch's
    ``torch.autograd.graph.saved_tensors_hooks``). The innermost pair applies."""

    def __init__(self, pack_hook: Any, unpack_hook: Any) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> saved_tensors_hooks:
        from .node import SAVED_HOOKS

        if SAVED_HOOKS.disabled is not None:
            raise RuntimeError(SAVED_HOOKS.disabled)
        SAVED_HOOKS.stack.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc: object) -> None:
        from .node import SAVED_HOOKS

        SAVED_HOOKS.stack.pop()


class disable_saved_tensors_hooks:
    """Context manager: registering saved tensor hooks inside raises ``error_message``."""

    def __init__(self, error_message: str) -> None:
        self.error_message = error_message

    def __enter__(self) -> None:
        from .node import SAVED_HOOKS

        if SAVED_HOOKS.stack:
            raise RuntimeError(self.error_message)
        self._prev = SAVED_HOOKS.disabled
        SAVED_HOOKS.disabled = self.error_message

    def __exit__(self, *exc: object) -> None:
        from .node import SAVED_HOOKS

        SAVED_HOOKS.disabled = self._prev


def increment_version(tensor: Any) -> None:
    """Bump the version counter of ``tensor`` (or of each tensor in a sequence), as an
    in-place write would: what a custom kernel that writes behind autograd's back calls."""
    tensors = tensor if isinstance(tensor, (tuple, list)) else (tensor,)
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"increment_version(): expected a Tensor, got {type(t).__name__}")
        t._storage.bump("increment_version")


# -- allow_mutation_on_saved_tensors ------------------------------------------------------------
class _Handle:
    """Stands for one saved (tensor, version): kept alive by the saved tensors that packed it."""

    __slots__ = ("__weakref__",)


class _AllowMutationOnSavedContext:
    def __init__(self) -> None:
        self.cloned: weakref.WeakKeyDictionary[_Handle, Tensor] = weakref.WeakKeyDictionary()
        self.original: weakref.WeakKeyDictionary[_Handle, Tensor] = weakref.WeakKeyDictionary()
        self.tid_to_weakhandle: weakref.WeakValueDictionary[Any, _Handle] = weakref.WeakValueDictionary()
        self.sid_to_tid: dict[Any, set[Any]] = {}

    def clear(self) -> None:
        self.cloned.clear()
        self.original.clear()
        self.tid_to_weakhandle.clear()
        self.sid_to_tid.clear()


def _sid(storage: Any) -> tuple[int, int]:
    return (id(storage.buffer), storage.version)


_mutation_context: list[_AllowMutationOnSavedContext] = []


class allow_mutation_on_saved_tensors:
    """Inside, a tensor saved for backward may be written in place: just before the write,
    the saved tensors on that memory (at that version) are cloned, and backward uses the
    clones (PyTorch's ``torch.autograd.graph.allow_mutation_on_saved_tensors``). Backward
    must run inside the same context; contexts do not nest. Yields the context (``cloned``,
    ``original``, ``tid_to_weakhandle``, as PyTorch's)."""

    def __enter__(self) -> _AllowMutationOnSavedContext:
        from ..storage import WRITE_HOOKS

        if _mutation_context:
            raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
        ctx = _AllowMutationOnSavedContext()

        def pack_hook(t: Tensor) -> tuple[_Handle, _AllowMutationOnSavedContext]:
            tid = (id(t), t._storage.buffer.ctypes.data + t._offset, t._storage.version)
            ctx.sid_to_tid.setdefault(_sid(t._storage), set()).add(tid)
            handle = ctx.tid_to_weakhandle.get(tid)
            if handle is None:  # the same tensor at the same version is saved once
                handle = _Handle()
                ctx.tid_to_weakhandle[tid] = handle
                ctx.original[handle] = t
            return handle, ctx

        def unpack_hook(packed: tuple[_Handle, _AllowMutationOnSavedContext]) -> Tensor:
            handle, owner = packed
            if owner is not ctx or not _mutation_context or _mutation_context[0] is not ctx:
                raise AssertionError(
                    "Trying to backward outside of the 'allow_mutation_on_saved_tensors' context "
                    "in which the graph was originally recorded."
                )
            return ctx.cloned[handle] if handle in ctx.cloned else ctx.original[handle]

        def before_write(storage: Any) -> None:
            for tid in ctx.sid_to_tid.get(_sid(storage), ()):
                handle = ctx.tid_to_weakhandle.get(tid)
                if handle is None or handle in ctx.cloned:
                    continue  # no longer saved (its backward ran), or cloned already
                ctx.cloned[handle] = dense_copy(ctx.original[handle])
                del ctx.original[handle]

        self._ctx = ctx
        self._hooks = saved_tensors_hooks(pack_hook, unpack_hook)
        self._before_write = before_write
        self._hooks.__enter__()
        WRITE_HOOKS.append(before_write)
        _mutation_context.append(ctx)
        return ctx

    def __exit__(self, *exc: object) -> None:
        from ..storage import WRITE_HOOKS

        _mutation_context.pop()
        WRITE_HOOKS.remove(self._before_write)
        self._hooks.__exit__()
        self._ctx.clear()
