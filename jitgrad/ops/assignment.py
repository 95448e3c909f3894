"""Differentiable writes: ``copy_``, ``fill_``, ``zero_``, ``__setitem__``, ``index_put_``.

Each goes through ``inplace.inplace_write``, so a write through a view rebases its base
onto ``CopySlices`` (``v.copy_(src)`` and ``v[...] = value`` give CopySlices wrapping
CopyBackwards, as in PyTorch). The data movement itself is ``copying.py``'s.
"""

from __future__ import annotations

import numbers
from typing import Any, Sequence

import numpy as np

from .. import _tracing, copying, indexing, regions
from ..creation import zeros_like
from ..autograd.grad_mode import _state as _grad_state
from ..autograd import anomaly_mode
from ..autograd.graph import _SINGLE_METADATA, gradient_edge, requires_grad, single_metadata
from ..autograd.node import ZERO_NRS, Grads, Node, _next_sequence_nr
from ..autograd.view_mode import _mode as _VIEW_MODE, is_view_replay
from ..copying import check_inplace_geometry
from ..geometry import Geometry, numel
from ..regions import has_overlap
from ..storage import INFERENCE, WRITE_HOOKS
from ..tensor import Tensor
from . import view_meta
from .compare import where
from .copy_slices import CopyBackwards, CopySlices, once_per_location
from .index_ops import gather
from .inplace import inplace_write, rebase_base, view_geometry
from .view_ops import basic_step, basic_view

_new = object.__new__
_geometry = tuple.__new__  # (Geometry(...) without its Python-level __new__)


class FillBackward2(Node):
    """Backward of ``fill_(number)`` (PyTorch's ``fill_.Scalar``): the old values do not
    matter."""

    overwrites_view = True  # CopySlices zeroes the slice itself (see its _apply_data)

    @staticmethod
    def zero_overwritten(region: Tensor) -> None:
        """What CopySlices does for a fill through a self-overlapping view: every element
        was overwritten, so the old values get no gradient (see CopySlices.apply)."""
        region.zero_()  # type: ignore[attr-defined]

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        return (_zeros_like(grads[0]),)


class ZeroBackward0(FillBackward2):
    pass


class FillBackward3(Node):
    """Backward of ``fill_(value_tensor)`` (a 0-d tensor; PyTorch's ``fill_.Tensor``, also
    the fill of ``x[index] = number``, which wraps the number): the value receives the
    summed gradient, each storage location once through a self-overlapping view (see
    copy_slices.py)."""

    overwrites_view = True
    _locations: np.ndarray | None = None  # set by CopySlices for a self-overlapping view

    zero_overwritten = staticmethod(FillBackward2.zero_overwritten)

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        assert g is not None
        grad_value = None
        if self.needs_input_grad(1):
            grad_value = (g if self._locations is None else once_per_location(g, self._locations)).sum()  # type: ignore[attr-defined]
        return (_zeros_like(g) if self.needs_input_grad(0) else None, grad_value)


def _zeros_like(g: Tensor | None) -> Tensor:
    """PyTorch's ``zeros_like(grad)``: laid out as ``grad``."""
    assert g is not None
    return zeros_like(g)


def copy_(self: Tensor, src: Tensor | bool | int | float, non_blocking: bool = False) -> Tensor:
    """Copy ``src`` (broadcast to ``self``'s shape, converted to its dtype) into ``self``.
    A Python number is first wrapped as a 0-dim tensor, as PyTorch's argument parser does."""
    if not isinstance(src, Tensor) and isinstance(src, (numbers.Real, np.bool_)):
        src = _wrapped_number("copy_", src, self.dtype)
    return _copy(self, src, "copy_")


def _wrapped_number(op: str, value: bool | int | float, dtype: np.dtype) -> Tensor:
    """PyTorch's wrapped number: a 0-dim bool, int64 or float64 tensor (an int from 2**63
    on is a uint64 one, which wraps into integer dtypes: kept here as the int64 it wraps to,
    or as the float it is for a floating ``dtype``)."""
    scalar = copying.scalar_value(op, value)  # (OverflowError beyond [-2**63, 2**64))
    if isinstance(scalar, bool):
        buffer = np.array([scalar], dtype=np.bool_)
    elif isinstance(scalar, int) and scalar >= 2**63:
        buffer = np.array([float(scalar)]) if dtype.kind == "f" else np.array([scalar - 2**64], dtype=np.int64)
    else:
        buffer = np.array([scalar], dtype=np.int64 if isinstance(scalar, int) else np.float64)
    return Tensor._from_buffer(buffer, ())


def _copy(self: Tensor, src: Tensor, op: str) -> Tensor:
    if not isinstance(src, Tensor):
        raise TypeError(
            f"{op}(): argument 'src' must be a Tensor or a number, got {type(src).__name__}"
        )
    out = inplace_write(
        op, self, (self, src), lambda: copying.copy_into(self, src, op), CopyBackwards,
        order_dependent=src.numel() != 1, write_bumps=True,
    )
    if _tracing.ACTIVE is not None:  # jitgrad.compile records it
        _tracing.ACTIVE.write(self, src)
    return out


def fill_(self: Tensor, value: Any) -> Tensor:
    """Set every element to ``value`` (safe through self-overlapping views)."""
    return _fill(self, value, "fill_")


def zero_(self: Tensor) -> Tensor:
    out = inplace_write(
        "zero_", self, (self,), lambda: copying.fill_into(self, 0, "zero_"), ZeroBackward0,
        order_dependent=False, write_bumps=True,
    )
    if _tracing.ACTIVE is not None:  # jitgrad.compile records it
        _tracing.ACTIVE.write(self, 0.0)
    return out


def _fill(self: Tensor, value: Any, op: str, wrapped: bool = False) -> Tensor:
    """``self.fill_(value)``; ``wrapped``: a number PyTorch wraps as a 0-d tensor first
    (``x[index] = 2.0``), so the node is the tensor form's, its value's edge none."""
    if isinstance(value, Tensor):
        inputs: tuple[Tensor | None, ...] = (self, value)
        node_type: type[Node] = FillBackward3
    elif wrapped:
        inputs, node_type = (self, None), FillBackward3
    else:
        inputs, node_type = (self,), FillBackward2
    out = inplace_write(
        op, self, inputs, lambda: copying.fill_into(self, value, op, wrapped=wrapped), node_type,
        order_dependent=False, write_bumps=True,
    )
    if _tracing.ACTIVE is not None:  # jitgrad.compile records it
        _tracing.ACTIVE.write(self, value)
    return out


def _copy_to(dst: Tensor, value: Any) -> None:
    """``dst`` gets ``value`` as PyTorch's ``copy_to`` gives it (``dst`` is the tensor itself
    for a ``whole_index``, else the view the index selects): a number is a 0-d tensor of
    ``dst``'s dtype, checked as ``fill_`` checks it; ``copy_`` from a source of ``dst``'s
    shape, ``fill_`` from a 0-d one, else ``copy_`` from the source without its leading
    size-1 dims, broadcast."""
    op = "__setitem__"
    if isinstance(value, Tensor):
        src = value
    elif isinstance(value, (numbers.Number, np.bool_)):
        if dst._sizes or _tracing.ACTIVE is not None:  # (jitgrad.compile records the fill:
            _fill(dst, value, op, wrapped=True)         # one element, the same value)
            return
        scalar = copying.fill_scalar(op, value, dst.dtype, 1)
        src = Tensor._from_buffer(np.array([scalar], dtype=dst.dtype), ())
    else:
        src = indexing.value_tensor(value, dst.dtype)
    if src._sizes == dst._sizes:
        _copy(dst, src, op)
    elif not src._sizes:
        _fill(dst, src, op)
    else:
        k = indexing.leading_ones(src)
        _copy(dst, src.view(src._sizes[k:]) if k else src, op)  # type: ignore[attr-defined]


_INT64_END = 2**63


def setitem(self: Tensor, index: Any, value: Any) -> None:
    """``self[index] = value`` as PyTorch's indexing does it: ``copy_to`` the (differentiable)
    view the basic part of the index selects, or — with advanced parts — ``index_put_`` on
    that view. Where the basic part selects all of ``self`` (whole slices and ``...``,
    which PyTorch's slicing skips) the write goes to ``self`` itself, with no view."""
    if value.__class__ is int and not -_INT64_END <= value < _INT64_END:
        raise ValueError(  # (PyTorch reads the number as a C long long: "Overflow when unpacking")
            f"__setitem__: int too big to convert: got {value}, expected a Python int in "
            "[-2**63, 2**63) (use a float for a larger number)"
        )
    if indexing.whole_index(self._sizes, index):
        _copy_to(self, value)
        return
    if _tracing.ACTIVE is None:  # (jitgrad.compile records the general path's write)
        plain = indexing.plain_index(self._sizes, self._strides, self._offset, index)
        if plain is not None and _plain_setitem(self, plain, index, value):
            return
    if indexing.advanced_on_whole(self._sizes, index):
        _, advanced = indexing.split_index(self._geometry, index)
        _index_put(self, indexing.numpy_index(len(self._sizes), advanced), value, False, "__setitem__")
        return
    view, advanced = basic_view(self, index)
    if not advanced:
        _copy_to(view, value)
        return
    np_index = indexing.numpy_index(len(view._sizes), advanced)
    _index_put(view, np_index, value, False, "__setitem__")


def _plain_setitem(self: Tensor, plain: tuple[Any, ...], index: Any, value: Any) -> bool:
    """``self[index] = value`` for a plain ``index`` (ints, int slices and None, whose view
    has geometry ``plain``) and a scalar or tensor ``value``: the general path's checks, write,
    version bump and history (the base's ``CopySlices`` wrapping ``CopyBackwards`` or
    ``FillBackward3``), without the temporary view's autograd state — its ``ViewMeta``,
    its ``SelectBackward0``/``SliceBackward0`` and the ``grad_fn`` regenerated for it after
    the write — which no one can see. Returns False, having done nothing, where the general
    path must run: the refusals of autograd's checks (a view of a leaf that requires grad,
    a view whose creation forbids writes), inference tensors, and values the general path
    converts or reshapes first. A source of the view's shape on other memory (the HMM's
    ``alpha[t] = row``) goes straight to ``regions.copy_region``, as in ``copy_into``."""
    if isinstance(value, Tensor):
        if value._sizes and value._sizes[0] == 1:
            return False  # the leading size-1 dims PyTorch drops (a view of ``value``)
        src: Tensor | None = value
    elif isinstance(value, (numbers.Number, np.bool_)):
        src = None
    else:
        return False
    storage = self._storage
    vm = self._view_meta
    if vm is None:
        if self._base is not None:
            return False
        base = self
    elif vm.creation != view_meta.DEFAULT:
        return False
    else:
        base = vm.base
    if INFERENCE.enabled or storage.inference:
        return False
    record = False
    if _grad_state.enabled:
        # (the temporary view's requires_grad: its base's, when ``self`` is not a view)
        self_requires_grad = (self._requires_grad or self._grad_fn is not None) if vm is None \
            else requires_grad(self)
        if self_requires_grad and base._grad_fn is None:
            return False  # in place into a view of a leaf that requires grad: refused
        record = self_requires_grad or (src is not None and requires_grad(src))
    op = "__setitem__"
    sizes, strides, offset = plain
    buffer = storage.buffer
    # one element into one element of another buffer (a DP table's cell): what copy_into
    # does for it, without a temporary tensor
    element = src is not None and not sizes and not src._sizes and \
        src._storage.buffer is not buffer and src._storage.buffer.dtype == buffer.dtype
    # the view itself (``u[1:-1] += x`` ends with ``u[1:-1] = <that view>``): nothing to
    # move, as in copy_into, but a write all the same
    itself = src is not None and src._storage is storage and src._offset == offset and \
        src._strides == strides and src._sizes == sizes
    if record and vm is None and src is not None and (element or itself or (
            src._sizes == sizes and src._storage.buffer is not buffer
            and src._storage.buffer.dtype is buffer.dtype)) \
            and not anomaly_mode.enabled and not WRITE_HOOKS and not _VIEW_MODE["replay"]:
        return _lean_recorded_write(self, sizes, strides, offset, src, element, itself)
    if element:
        storage.check_writable(op)
    else:
        check_inplace_geometry(storage, sizes, strides, op, src is not None and numel(src._sizes) != 1)
    if record:
        # The node's first edge stands for the view's old history; CopySlices replaces it
        # by the base's (its own first edge) and never follows the node's.
        base_edge = gradient_edge(base)
        # ``copy_to``'s choice: ``fill_`` from a 0-d source (a wrapped number) into a view
        # with dims, else ``copy_``
        node: Node = FillBackward3() if sizes and (src is None or not src._sizes) else CopyBackwards()
        node._set_edges((base_edge, gradient_edge(src)))
        node.input_metadata = single_metadata(sizes, buffer.dtype)
    if element:
        buffer[offset] = src._storage.buffer[src._offset]  # type: ignore[union-attr]
        storage.bump(op, skip=3)  # (past this function's frame and setitem's)
    elif itself:
        storage.bump(op, skip=3)
    elif src is not None and src._sizes == sizes and src._storage.buffer is not buffer:
        # what copy_into does for a same-shape source on other memory (a table's row)
        sb = src._storage.buffer
        regions.copy_region(buffer, offset, strides, sb, src._offset, src._strides, sizes)
        storage.bump(op, skip=3)
    else:
        view = Tensor._make(storage, sizes, strides, offset, base)
        if src is None:
            copying.fill_into(view, value, op, checked=True, wrapped=True)
        else:
            copying.copy_into(view, src, op, checked=True)
    if record:
        view_fn = None
        if is_view_replay():
            view_fn = (vm.view_fn if vm is not None else ()) + (basic_step(index),)
        rebase_base(base, view_geometry(base, sizes, strides, offset), view_fn, node, base_edge)
    return True


# The lean recorded write (Note [Lean paths] in ``operands.py``): ``alpha[t] = row`` (the
# HMM), ``cp[i] = x`` and ``R[i, j] = x`` (tridiagonal, soft-DTW):
# a recorded write of a tensor of the view's shape on other memory of the same dtype (or of
# one element into a cell, or of the view itself: ``u[1:-1, 1:-1] += x`` ends with
# ``u[1:-1, 1:-1] = <that view>``, nothing to move) into a tensor that is not a view, in
# grad mode, without anomaly mode, write hooks or view replay. ``_plain_setitem``'s general steps for it are
# ``check_inplace_geometry`` (``check_writable``, ``has_overlap``), ``CopyBackwards()``,
# the copy, the bump, ``view_geometry`` and ``rebase_base`` (``CopySlices.__init__``): they
# are written out in ``_lean_recorded_write``, the nodes numbered in the same order. If you
# add a check to ``check_writable``, a slot to CopySlices, or a step to those functions, do
# it there too: tests/test_row_writes.py compares every slot of the nodes made both ways.
def _lean_recorded_write(
    self: Tensor, sizes: tuple[int, ...], strides: tuple[int, ...], offset: int, src: Tensor,
    element: bool, itself: bool = False,
) -> bool:
    """``self[index] = src`` on the lean path (see the comment above); ``self`` is not a view.
    ``itself``: ``src`` is the view being written (nothing to move)."""
    op = "__setitem__"
    storage = self._storage
    buffer = storage.buffer
    # ``check_inplace_geometry`` (inference tensors and write hooks were ruled out)
    if not buffer.flags.writeable:
        storage.check_writable(op)  # (raises)
    if not element and (len(sizes) > 1 or (sizes and sizes[0] > 1 and strides[0] <= 0)) \
            and numel(src._sizes) != 1 and has_overlap(sizes, strides):
        check_inplace_geometry(storage, sizes, strides, op, True)  # (raises)
    # ``CopyBackwards()`` and its edges: the base's history, then the source's
    base_fn = self._grad_fn
    if base_fn is not None:
        first, nr = base_fn, self._output_nr
    else:
        first, nr = gradient_edge(self)
    second, src_nr = gradient_edge(src)
    node = _new(CopyBackwards)
    node.sequence_nr = _next_sequence_nr()
    node._n0 = first
    node._n1 = second
    node._nrs = ZERO_NRS[2] if nr == 0 and src_nr == 0 else (nr, src_nr)
    dtype = buffer.dtype
    by_sizes = _SINGLE_METADATA.get(dtype.type)  # (single_metadata's cache)
    meta = None if by_sizes is None else by_sizes.get(sizes)
    node.input_metadata = meta if meta is not None and meta[0][1] is dtype \
        else single_metadata(sizes, dtype)
    # the write (``copy_into``'s, for these sources) and the bump
    sb = src._storage.buffer
    if element:
        buffer[offset] = sb[src._offset]
    elif itself:
        pass
    elif strides == (1,) and src._strides == strides:  # a row from a contiguous row: one slice
        n = sizes[0]  # (both regions lie in their buffers: NumPy checks the shapes anyway)
        start = src._offset
        buffer[offset:offset + n] = sb[start:start + n]
    else:
        regions.copy_region(buffer, offset, strides, sb, src._offset, src._strides, sizes)
    storage.bump(op, skip=4)  # (past this frame, _plain_setitem's and setitem's)
    # ``view_geometry`` and ``rebase_base`` with ``CopySlices.__init__``
    previous = base_fn if type(base_fn) is CopySlices else None
    view = None if previous is None else previous.view
    if view is None or view[2] != offset or view[0] != sizes or view[1] != strides:
        view = _geometry(Geometry, (sizes, strides, offset))
    copy_slices = _new(CopySlices)
    copy_slices.sequence_nr = _next_sequence_nr()
    whole = None if previous is None else previous.base
    base_sizes = self._sizes
    if whole is None or whole[2] != self._offset or whole[0] != base_sizes \
            or whole[1] != self._strides:
        whole = _geometry(Geometry, (base_sizes, self._strides, self._offset))
    copy_slices.base = whole
    copy_slices.view = view
    copy_slices.view_fn = None
    copy_slices.fn = node
    copy_slices._n0, copy_slices._n1, copy_slices._nrs = first, second, node._nrs
    meta = None if previous is None else previous.input_metadata
    copy_slices.input_metadata = meta if meta is not None and meta[0][0] == base_sizes \
        and meta[0][1] is dtype else single_metadata(base_sizes, dtype)
    self._grad_fn = copy_slices
    self._output_nr = 0
    if base_fn is not None and base_fn._retains_grad_hooks:
        view_meta.move_hooks(self, base_fn, copy_slices, keep_tensor_hooks=False)
    return True


class IndexPutBackward0(Node):
    _locations: np.ndarray | None = None  # set by CopySlices for a self-overlapping view

    def __init__(self, np_index: tuple[Any, ...], accumulate: bool) -> None:
        super().__init__()
        self.np_index = np_index
        self.accumulate = accumulate

    def zero_overwritten(self, region: Tensor) -> None:
        """One value assigned through a self-overlapping view (the only index_put_ allowed
        there): the overwritten elements' old values get no gradient."""
        _index_put(region, self.np_index, 0.0, False, "index_put_")

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        assert g is not None
        grad_self = None
        if self.needs_input_grad(0):
            if self.accumulate:
                grad_self = g
            else:  # positions that were overwritten get nothing (0 even where g is inf)
                keep = np.ones(g._sizes, np.bool_)
                if keep.size:  # (an empty target: nothing was overwritten, nothing checked)
                    keep[self.np_index] = False
                grad_self = where(copying.Tensor._from_buffer(keep.reshape(-1), g._sizes), g, 0.0)
        grad_values = None
        if self.needs_input_grad(1):
            grad_values = gather(g, self.np_index)
            if self._locations is not None:  # one value through aliases: each location once
                grad_values = once_per_location(grad_values, self._locations[self.np_index])
        return (grad_self, grad_values)


def index_put_(
    self: Tensor, indices: Sequence[Any], values: Any, accumulate: bool = False
) -> Tensor:
    """``self[indices] = values`` (``+=`` with ``accumulate=True``, repeated indices adding up)."""
    g, advanced = indexing.split_index(self._geometry, tuple(indices))
    if g != self._geometry:
        raise IndexError("index_put_: indices must all be index tensors or arrays")
    return _index_put(self, indexing.numpy_index(self.ndim, advanced), values, accumulate, "index_put_")


def _index_put(
    self: Tensor, np_index: tuple[Any, ...], values: Any, accumulate: bool, op: str
) -> Tensor:
    value = values if isinstance(values, Tensor) else None
    inputs = (self, value)

    def write() -> None:
        indexing.write_advanced(self, np_index, values, accumulate, op)

    one_value = value is None or value.numel() == 1  # the same value everywhere
    return inplace_write(
        op, self, inputs, write, lambda: IndexPutBackward0(np_index, accumulate),
        order_dependent=not one_value or accumulate, write_bumps=True,
    )
