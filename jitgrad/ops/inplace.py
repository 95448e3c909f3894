"""The one path every differentiable in-place operation takes, and the checks and helpers
every in-place elementwise op shares (``check_inplace_operands``, ``compute``, ``original``).

``x.op_(...)``: refuse what autograd cannot allow (in-place on a leaf that requires grad,
on a view of one, on views whose creation forbids it — Note [Views and in-place writes] in
``view_meta.py``), refuse what memory cannot allow (read-only, self-overlap when the result
would depend on write order), build the backward node (saving what it needs of the *old*
values), write, bump the version once, then rebase the history: a non-view ``x`` gets the
node as its ``grad_fn``; for a view, its base gets ``CopySlices`` wrapping the node (Note
[CopySlices rebasing] in ``copy_slices.py``). A write that raises has written nothing.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from .. import _tracing
from ..autograd import anomaly_mode
from ..autograd.grad_mode import _state as _grad_state
from ..autograd.graph import _SINGLE_METADATA, gradient_edge, single_metadata
from ..autograd.node import ZERO_NRS, Node, _next_sequence_nr, edge_numbers
from ..autograd.variable import requires_grad as requires_grad_flag
from ..autograd.view_mode import _mode as _VIEW_MODE
from ..copying import check_inplace
from ..geometry import Geometry, broadcast_shapes, is_non_overlapping_and_dense
from ..regions import has_overlap
from ..storage import WRITE_HOOKS
from ..tensor import Tensor
from . import view_meta
from .as_strided import AsStridedBackward0
from .copy_slices import CopySlices
from .._quiet import IGNORE_ALL, QUIET, QUIET_RUN, quiet_call
from .operands import (
    _LAYOUTS, LEAN_DTYPES, array_of, as_array, check_inplace_dtype, layout, strided_data,
    wrapped_operand,
)
from .structure import clone

_new = object.__new__
_node_init = Node.__init__


def check_autograd_inplace(op: str, self: Tensor, inputs: Sequence[Tensor | None]) -> bool:
    """PyTorch's ``check_inplace``; returns whether the write must be recorded (never in
    inference mode: ``needs_grad``)."""
    if not _grad_state.recording:
        return False
    self_requires_grad = None
    for t in inputs:
        if t is not None:
            # (requires_grad, inlined for a tensor that is not a view; for a view, the flag
            # without regenerating a stale history: as in PyTorch, a write into a view that
            # refuses writes says so before what a write elsewhere did is looked at)
            if t._view_meta is None:
                needed = t._requires_grad or t._grad_fn is not None
            else:
                needed = requires_grad_flag(t)
            if t is self:
                self_requires_grad = needed
            if needed:
                break
    else:
        return False
    vm = self._view_meta
    if vm is not None:
        if vm.creation != view_meta.DEFAULT:
            view_meta.handle_view_on_rebase(self, indirect=False)
        if self_requires_grad is None:
            self_requires_grad = requires_grad_flag(self)
        if self_requires_grad and vm.base._grad_fn is None:
            raise RuntimeError(
                f"{op}: a view of a leaf Variable that requires grad is being used in an "
                "in-place operation."
            )
    elif self._requires_grad and self._grad_fn is None:
        raise RuntimeError(
            f"{op}: a leaf Variable that requires grad is being used in an in-place operation."
        )
    return True


def check_leaf(op: str, self: Tensor) -> None:
    check_autograd_inplace(op, self, (self,))


def inplace_write(
    op: str,
    self: Tensor,
    inputs: Sequence[Tensor | None],
    write: Callable[[], None],
    make_node: Callable[[], Node] | None,
    save_output: Callable[[Node], None] | None = None,
    order_dependent: bool = True,
    write_bumps: bool = False,
) -> Tensor:
    """Check, build the node, ``write()`` the data, bump the version (unless ``write`` does,
    ``write_bumps``), rebase the history."""
    record = check_autograd_inplace(op, self, inputs) and make_node is not None
    check_inplace(self, op, order_dependent)
    node = None
    if record:
        node = make_node()  # type: ignore[misc]
        vm = self._view_meta
        base_edge = gradient_edge(vm.base) if vm is not None else None
        first = gradient_edge(self) if save_output is not None else _first_edge(self, base_edge)
        node._set_edges((first,) + tuple([gradient_edge(t) for t in inputs[1:]]))
        node.input_metadata = single_metadata(self._sizes, self._storage.buffer.dtype)
    write()
    if not write_bumps:
        self._storage.bump(op)
    if node is not None:
        rebase_history(self, node, base_edge)
        if save_output is not None:
            save_output(node)
    return self


def _first_edge(self: Tensor, base_edge: Any) -> Any:
    """The edge of an in-place node for ``self``'s old value. Through a view it is never
    followed: ``CopySlices`` wraps the node and takes the base's edge in its place (Note
    [CopySlices rebasing]). The node holds that edge (shared with ``CopySlices``), not the
    view's old history, which would stay alive, unused, as long as the graph. (Not for a
    node that saves its result: the saved result is unpacked with the node as its
    ``grad_fn``, and a backward through it follows the node's own edges.)"""
    return gradient_edge(self) if base_edge is None else base_edge


def rebase_history(self: Tensor, node: Node, base_edge: Any) -> None:
    vm = self._view_meta
    if vm is None:
        old = self._grad_fn
        self._grad_fn = node
        self._output_nr = 0
        view_meta.move_hooks(self, old, node, keep_tensor_hooks=False)
        return
    replay = vm.view_fn if view_meta.is_view_replay() else None
    view = view_geometry(vm.base, self._sizes, self._strides, self._offset)
    copy_slices = rebase_base(vm.base, view, replay, node, base_edge)
    if replay is not None or vm.parent is not None:
        view_meta.regenerate(self, indirect=False, geometries=(copy_slices.base, view))
        return
    # ``regenerate`` for a view taken from its base in as_strided mode, inlined: the view's
    # grad_fn reads its elements from the base's new history
    old = self._grad_fn
    fn = AsStridedBackward0(copy_slices.base, view)
    fn._n0, fn._nrs = copy_slices, ZERO_NRS[1]  # (gradient_edge(base))
    dtype = self._storage.buffer.dtype
    meta = node.input_metadata  # (the write's node: of this view's sizes and dtype, usually)
    fn.input_metadata = meta if len(meta) == 1 and meta[0][1] is dtype and meta[0][0] == self._sizes \
        else single_metadata(self._sizes, dtype)
    self._grad_fn = fn
    self._output_nr = 0
    vm.attr_version = self._storage.version
    if old is not None and old._retains_grad_hooks:
        view_meta.move_hooks(self, old, fn, keep_tensor_hooks=False)


def view_geometry(base: Tensor, sizes: tuple[int, ...], strides: tuple[int, ...], offset: int) -> Geometry:
    """The geometry of a view of ``base`` being written through: the one of the base's
    last ``CopySlices`` when that wrote through the same place (a stepper's ``u[1:-1] +=``
    writes twice there: ``__iadd__``, then ``__setitem__``), else a new one."""
    previous = base._grad_fn
    if type(previous) is CopySlices:
        view = previous.view
        if view[2] == offset and view[0] == sizes and view[1] == strides:
            return view
    return Geometry(sizes, strides, offset)


def rebase_base(
    base: Tensor, view: Geometry, view_fn: Any, node: Node, base_edge: Any
) -> CopySlices:
    """The base's new history after ``node`` wrote through its view ``view``: ``CopySlices``
    (Note [CopySlices rebasing]), whose edges are the base's old one and ``node``'s others."""

    old = base._grad_fn
    copy_slices = CopySlices(base, view, view_fn, node)
    base_fn, base_nr = base_edge
    nexts, nrs = node._next, node._nrs
    if nexts[0] is base_fn and nrs[0] == base_nr:  # (``_first_edge``'s: the base's, shared)
        copy_slices._next, copy_slices._nrs = nexts, nrs
    else:
        copy_slices._next, copy_slices._nrs = (base_fn,) + nexts[1:], edge_numbers((base_nr,) + nrs[1:])
    dtype = base._storage.buffer.dtype
    # (the base's last CopySlices's metadata, when it took that one's geometry: same sizes)
    meta = old.input_metadata if type(old) is CopySlices and copy_slices.base is old.base else ()
    copy_slices.input_metadata = meta if meta and meta[0][1] is dtype \
        else single_metadata(base._sizes, dtype)
    base._grad_fn = copy_slices
    base._output_nr = 0
    if old is not None and old._retains_grad_hooks:  # (the only hooks that follow the base)
        view_meta.move_hooks(base, old, copy_slices, keep_tensor_hooks=False)
    return copy_slices


def apply_inplace(
    op: str,
    self: Tensor,
    result: np.ndarray | Any,
    result_dtype: np.dtype,
    inputs: Sequence[Tensor | None],
    make_node: Callable[[], Node] | None,
    save_output: Callable[[Node], None] | None = None,
) -> Tensor:
    """Write an already computed ``result`` (broadcastable to ``self``) into ``self``.

    ``inputs`` are the differentiable inputs, ``self`` first. ``make_node`` runs before the
    write, so it can save (copies of) old values; ``save_output`` runs after it."""
    def write() -> None:
        check_inplace_dtype(op, result_dtype, self)  # after the autograd and overlap checks, as PyTorch
        token = QUIET.set(IGNORE_ALL)  # (a float64 value past float32's range: inf, silently)
        try:
            np.copyto(array_of(self), result, casting="unsafe")
        finally:
            QUIET.reset(token)

    return inplace_write(op, self, inputs, write, make_node, save_output)


# -- the lean path of in-place arithmetic (the in-place side of Note [Lean paths]) --
# ``u[1:-1] += alpha * lap`` in a time stepper: ``add_``/``sub_``/``mul_``/``div_`` of a
# floating tensor (any strides, usually a view) by a Python number or by a tensor of its
# dtype and shape (or 0-d) on another storage. Then no operand can partially overlap
# ``self``, every operand broadcasts to it and the result type is its dtype: of the general
# path's checks (``check_inplace_operands``, then ``inplace_write``'s) only the autograd
# refusal and ``check_inplace`` (read-only memory, self-aliased elements) can fail, and they
# run first, as there. The ufunc then writes straight into ``self``'s memory instead of
# into a fresh array copied in afterwards: its values are the same bits (one elementwise
# loop of the same dtype; NumPy buffers an input that shares memory with the output, as
# ``x.data`` does), and the backward node, which saves what it needs of the old values,
# is made before the write, as on the general path. Views made in no_grad mode and the
# like, other dtypes, broadcasting, ``alpha``, subclasses, tracing: the general path
# (tests/test_lean_inplace.py runs both and PyTorch).
# A view taken straight from its base (``u[1:-1] += ...``, no parent view) whose history is
# current, in as_strided mode, grad mode on, no anomaly mode, no write hooks, writable and
# not self-overlapping, is written in one frame: the checks above are then all that can
# fail, and ``rebase_history`` (``view_geometry``, ``rebase_base`` with ``CopySlices.
# __init__``, the view's ``regenerate`` as ``AsStridedBackward0``) is written out below, the
# nodes numbered in the general path's order. If you add a slot to CopySlices or
# AsStridedBackward0, or a step to those functions, do it there too:
# tests/test_lean_inplace.py compares every slot of the nodes made both ways. A stepper's
# second write through one place takes the last CopySlices's geometries and metadata.
def lean_inplace(
    op: str, ufunc: np.ufunc, self: Tensor, other: Any, make_node: Callable[[], Node],
) -> Tensor | None:
    """``self.<op>(other)`` on the lean path (see the comment above); None, having done
    nothing, when the operands are not its case."""
    if self.__class__ is not Tensor or _tracing.ACTIVE is not None:
        return None
    buffer = self._storage.buffer
    if buffer.dtype not in LEAN_DTYPES:
        return None
    sizes = self._sizes
    strides, n = _LAYOUTS.get(sizes) or layout(sizes)
    flat = self._strides == strides
    if flat:  # (lean_data, inlined)
        start = self._offset
        dst = buffer[start:start + n]
    else:
        dst = strided_data(self)
        if dst is None:
            return None
    kind = other.__class__
    if kind is Tensor:
        if other._storage is self._storage:
            return None  # (the general path's overlap checks)
        other_sizes = other._sizes
        if other_sizes != sizes and other_sizes:
            return None
        # (lean_data, inlined: ``other`` is exactly a Tensor and nothing is traced; a dtype
        # other than ``dst``'s, lean or not, declines below)
        if other_sizes is not sizes:
            strides, n = _LAYOUTS.get(other_sizes) or layout(other_sizes)
        if other._strides == strides and n:
            y = other._storage.buffer
            start = other._offset
            if start or y.shape[0] != n:
                y = y[start:start + n]
            if not flat and len(other_sizes) > 1:
                y = y.reshape(other_sizes)
        else:
            y = strided_data(other)
            if y is None:
                return None
            if flat and len(other_sizes) > 1:
                dst = dst.reshape(other_sizes)
        if y.dtype is not dst.dtype:
            return None
        tensor = other
    elif kind is float or (kind is int and -(2**63) <= other < 2**63):
        y, tensor = other, None
    else:
        return None
    vm = self._view_meta
    if vm is not None:
        if vm.creation != view_meta.DEFAULT:
            return None
        storage = self._storage
        counter = storage._counter
        version = 0 if counter is None else counter.value
        fn = self._grad_fn
        if vm.parent is None and fn is not None and vm.attr_version == version and \
                _grad_state.recording and not _VIEW_MODE["replay"] and not anomaly_mode.enabled \
                and not WRITE_HOOKS and not storage.inference:
            base = vm.base
            base_fn = base._grad_fn
            if base_fn is not None and base._view_meta is None and buffer.flags.writeable and (
                    flat or not has_overlap(self._sizes, self._strides)):
                # a view of the base with current history (see the comment above)
                if make_node.__class__ is type and make_node.__init__ is _node_init:
                    node = _new(make_node)  # (``Node.__init__``: its fields are all set below)
                    node.sequence_nr = _next_sequence_nr()
                else:
                    node = make_node()
                other_fn = None if tensor is None or tensor._view_meta is not None else tensor._grad_fn
                # (gradient_edge, inlined for a tensor that is not a view, with history)
                if other_fn is not None:
                    other_nr = tensor._output_nr
                else:
                    other_fn, other_nr = gradient_edge(tensor)
                node._n0 = base_fn
                node._n1 = other_fn
                base_nr = base._output_nr
                node._nrs = ZERO_NRS[2] if base_nr == 0 and other_nr == 0 else (base_nr, other_nr)
                dtype = dst.dtype
                by_sizes = _SINGLE_METADATA.get(dtype.type)  # (single_metadata's cache)
                meta = None if by_sizes is None else by_sizes.get(sizes)
                node.input_metadata = meta = meta if meta is not None and meta[0][1] is dtype \
                    else single_metadata(sizes, dtype)
                _write(ufunc, dst, y)
                storage.bump(op, skip=3)  # (past this frame and the op's)
                # ``rebase_history``: ``view_geometry``, ``rebase_base`` (``CopySlices.__init__``)
                # and the view's ``regenerate`` in as_strided mode, written out
                strides, offset = self._strides, self._offset
                if type(base_fn) is CopySlices:  # (a stepper's second write: its geometries)
                    view, whole, whole_meta = base_fn.view, base_fn.base, base_fn.input_metadata
                else:
                    view = whole = whole_meta = None
                if view is None or view[2] != offset or view[0] != sizes or view[1] != strides:
                    view = Geometry(sizes, strides, offset)
                copy_slices = _new(CopySlices)
                copy_slices.sequence_nr = _next_sequence_nr()
                if whole is None or whole[2] != base._offset or whole[0] != base._sizes \
                        or whole[1] != base._strides:
                    whole = Geometry(base._sizes, base._strides, base._offset)
                    whole_meta = None
                copy_slices.base = whole
                copy_slices.view = view
                copy_slices.view_fn = None
                copy_slices.fn = node
                copy_slices._n0, copy_slices._n1, copy_slices._nrs = base_fn, other_fn, node._nrs
                # (the base's sizes are the last CopySlices's: its metadata, if of this dtype)
                copy_slices.input_metadata = whole_meta if whole_meta is not None and \
                    whole_meta[0][1] is dtype else single_metadata(base._sizes, dtype)
                base._grad_fn = copy_slices
                base._output_nr = 0
                if base_fn._retains_grad_hooks:
                    view_meta.move_hooks(base, base_fn, copy_slices, keep_tensor_hooks=False)
                regenerated = _new(AsStridedBackward0)
                regenerated.sequence_nr = _next_sequence_nr()
                regenerated.input_geometry = whole
                regenerated.geometry = view
                regenerated._n0 = copy_slices
                regenerated._nrs = ZERO_NRS[1]
                regenerated.input_metadata = meta
                self._grad_fn = regenerated
                self._output_nr = 0
                vm.attr_version = storage._counter.value
                if fn._retains_grad_hooks:
                    view_meta.move_hooks(self, fn, regenerated, keep_tensor_hooks=False)
                return self
    record = check_autograd_inplace(op, self, (self, tensor))
    check_inplace(self, op)
    node = None
    if record:
        node = make_node()
        base_edge = gradient_edge(vm.base) if vm is not None else None
        node._set_edges((_first_edge(self, base_edge), gradient_edge(tensor)))
        node.input_metadata = single_metadata(self._sizes, dst.dtype)
    _write(ufunc, dst, y)
    self._storage.bump(op, skip=3)  # (past this frame and the op's)
    if node is not None:
        rebase_history(self, node, base_edge)
    return self


def _write(ufunc: np.ufunc, dst: np.ndarray, y: Any) -> None:
    """``ufunc(dst, y, out=dst)``, quietly (``QUIET_RUN``: no context variable set per write).
    Its fallback runs when another thread is in QUIET_RUN's context, refused before the
    call: the ufuncs of the in-place arithmetic raise no RuntimeError of their own, so
    nothing is written twice."""
    try:
        QUIET_RUN(ufunc, dst, y, out=dst)
    except RuntimeError:
        quiet_call(ufunc, dst, y, out=dst)


# -- what every in-place elementwise op shares ---------------------------------------------
def compute(ufunc: Callable[..., Any], self: Tensor, *others: Any, dtype: np.dtype) -> np.ndarray:
    """``ufunc(self, *others)`` in ``dtype``, into a fresh array of ``self``'s shape (the
    values an in-place op then writes), without NumPy's float warnings."""
    out = np.empty(self._sizes, dtype)
    token = QUIET.set(IGNORE_ALL)
    try:
        ufunc(as_array(self), *(as_array(a) for a in others), out=out, dtype=dtype, casting="unsafe")
    except OverflowError:  # a Python int outside an integer dtype's range: PyTorch wraps it
        name = getattr(ufunc, "__name__", "op")
        ufunc(*(wrapped_operand(a, dtype, name) for a in (self, *others)), out=out, dtype=dtype,
              casting="unsafe")
    finally:
        QUIET.reset(token)
    return out


def check_inplace_operands(op: str, self: Tensor, dtype: np.dtype, *others: Any) -> None:
    """PyTorch's checks before an in-place elementwise op computes anything, in PyTorch's
    order: ``self`` may be written (not a leaf that requires grad, not read-only, no element
    aliasing another), no operand partially overlaps ``self`` in memory, every operand
    broadcasts to ``self``'s shape without growing it, and the result type casts to
    ``self``'s dtype. (``apply_inplace`` repeats the first and last when it writes.)"""
    if self._view_meta is not None or (self._requires_grad and self._grad_fn is None):
        check_leaf(op, self)  # (only a leaf or a view can be refused)
    if self._strides != layout(self._sizes)[0]:  # (a contiguous tensor has no aliased elements)
        check_inplace(self, op)
    tensors = [t for t in others if isinstance(t, Tensor)]
    for other in tensors:
        if other._storage is self._storage and _partial_overlap(self, other):
            raise RuntimeError(
                f"{op}: unsupported operation: some elements of the input tensor and the "
                "written-to tensor refer to a single memory location. Please clone() the tensor "
                "before performing the operation."
            )
    for other in tensors:
        if other._sizes != self._sizes:
            try:
                shape = broadcast_shapes(self._sizes, other._sizes)
            except RuntimeError as exc:
                raise RuntimeError(
                    f"{op}: the operand of shape {list(other._sizes)} does not broadcast to the "
                    f"destination's shape {list(self._sizes)}: {exc}"
                ) from None
            if shape != self._sizes:
                raise RuntimeError(
                    f"{op}: output with shape {list(self._sizes)} doesn't match the broadcast "
                    f"shape {list(shape)}"
                )
    check_inplace_dtype(op, dtype, self)


def _partial_overlap(a: Tensor, b: Tensor) -> bool:
    """PyTorch's ``get_overlap_status(a, b) == PARTIAL`` for two tensors on one storage: both
    dense, their memory ranges intersect, and they are not the same elements in the same order.
    (Layouts that are not dense are PyTorch's "too hard" case: allowed. jitgrad computes the
    result out of place before writing it, so those are well defined here.)"""
    if a is b or a.numel() == 0 or b.numel() == 0:
        return False
    if not (is_non_overlapping_and_dense(a._sizes, a._strides)
            and is_non_overlapping_and_dense(b._sizes, b._strides)):
        return False
    a_end, b_end = a._offset + a.numel(), b._offset + b.numel()
    if a._offset == b._offset and a_end == b_end:
        return a._strides != b._strides
    return a._offset < b_end and b._offset < a_end


def original(self: Tensor) -> Tensor:
    """A copy of ``self`` taken before an in-place op overwrites it, for the op's backward
    (differentiable, so a double backward reaches ``self``'s history through it)."""
    return clone(self)
