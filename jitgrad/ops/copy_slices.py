"""``CopySlices`` and ``CopyBackwards`` (PyTorch's torch/csrc/autograd/functions/tensor.h).

Note [CopySlices rebasing]
~~~~~~~~~~~~~~~~~~~~~~~~~~
After ``view.op_(...)``, the *base*'s grad_fn becomes ``CopySlices(base geometry, view
geometry, view_fn, fn)``, where ``fn`` is the in-place op's backward node. Its edges are the
base's previous edge, then ``fn``'s edges for the op's other inputs. Given the gradient
w.r.t. the new base, ``apply``:

1. copies the gradient into a buffer with the base's geometry (``result``);
2. takes the view's region of it (``grad_slice``): ``as_strided`` with the view's geometry,
   offset relative to the base — or, in view-replay mode, by replaying ``view_fn``;
3. runs ``fn`` on a contiguous copy of the slice; its first output (the gradient w.r.t. the
   view's old value) is written back into the slice; its other outputs pass through;
4. returns ``result`` (the gradient w.r.t. the old base) and those other outputs.

With ``create_graph`` these steps are differentiable operations, so the backward of a
CopySlices graph can itself be differentiated.

Through a self-overlapping view (``expand``, ``unfold`` with step < size, overlapping
``as_strided``) only order-free writes pass (one value everywhere). Several view elements
then alias one storage location, which the write set *once*: the value's gradient is the
sum over distinct written locations of the gradient there, not over view elements (the
slice read back from ``result`` repeats each location's gradient once per alias). So
``apply`` hands ``fn`` the storage location of every view element (``fn._locations``) and
the node counts each location once (``once_per_location``); the old values of every written
location get zero gradient (``zero_overwritten``).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .. import regions
from ..autograd.grad_mode import _state as _grad_state
from ..autograd.input_buffer import HandedGrads
from ..autograd import anomaly_mode
from ..autograd.node import Grads, Node, OwnedGrads, _FREED, _next_sequence_nr
from ..creation import zeros
from ..geometry import Geometry, is_non_overlapping_and_dense, required_storage
from ..storage import Storage, allocate
from ..tensor import Tensor
from .compare import where
from .operands import layout
from .view_meta import Step, replay


class CopyBackwards(Node):
    """Backward of ``dst.copy_(src)``: nothing for ``dst``'s old value; ``src`` gets the
    gradient (the engine converts it to ``src``'s dtype and sums broadcast dims)."""

    def name(self) -> str:
        return "torch::autograd::CopyBackwards"  # PyTorch's name for this C++ node

    # every element of the destination was overwritten: its old values get zero gradient
    overwrites_view = True

    @staticmethod
    def zero_overwritten(region: Tensor) -> None:
        """A one-element source copied through a self-overlapping view overwrote it all."""
        region.zero_()  # type: ignore[attr-defined]

    _locations: np.ndarray | None = None  # set by CopySlices for a self-overlapping view

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        assert g is not None
        grad_src = None
        if self.needs_input_grad(1):  # one source value aliased: count each location once
            grad_src = g if self._locations is None else once_per_location(g, self._locations)
        return (zeros(g._sizes, dtype=g.dtype) if self.needs_input_grad(0) else None, grad_src)


def element_locations(sizes: Sequence[int], strides: Sequence[int]) -> np.ndarray:
    """The storage location (relative to the first element) of every element of a view."""
    loc = np.zeros(tuple(sizes), np.int64)
    for d, (n, st) in enumerate(zip(sizes, strides)):
        loc += (np.arange(n, dtype=np.int64) * st).reshape((n,) + (1,) * (len(sizes) - d - 1))
    return loc


def once_per_location(g: Tensor, locations: np.ndarray) -> Tensor:
    """``g`` (shaped like ``locations``) kept at the first element (row-major) of each
    distinct storage location and zero at that location's other aliases, so that summing it
    adds each location's gradient once. A select, not a product: an infinite gradient at an
    alias gives 0, not NaN."""
    keep = np.zeros(locations.size, np.bool_)
    keep[np.unique(locations.reshape(-1), return_index=True)[1]] = True
    return where(Tensor._from_buffer(keep, tuple(locations.shape)), g, 0.0)


class CopySlices(Node):
    """The base's grad_fn after an in-place write through one of its views."""

    __slots__ = ("base", "view", "view_fn", "fn")

    def __init__(self, base: Tensor, view: Geometry, view_fn: tuple[Step, ...] | None, fn: Node) -> None:
        # Node.__init__, written out (one frame less on every write through a view)
        self._nrs = ()  # (no edges yet: the node slots stay unset)
        self.input_metadata = ()
        self.sequence_nr = _next_sequence_nr()
        if anomaly_mode.enabled:  # where the user's code created this node (debugging only)
            anomaly_mode.record_creation(self.metadata)
        previous = base._grad_fn
        geometry = previous.base if type(previous) is CopySlices else None
        if geometry is not None and geometry[2] == base._offset and geometry[0] == base._sizes \
                and geometry[1] == base._strides:
            self.base = geometry  # a table written cell by cell: one geometry for all
        else:
            self.base = Geometry(base._sizes, base._strides, base._offset)
        self.view = view
        self.view_fn = view_fn
        self.fn: Node | None = fn

    def name(self) -> str:
        return "torch::autograd::CopySlices"  # PyTorch's name for this C++ node

    def release_variables(self) -> None:
        self.fn = None

    takes_owned = True

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        return self.apply_owned(grads, ())

    def apply_owned(self, grads: Grads, owned: Sequence[bool]) -> tuple[Tensor | None, ...]:
        grad = grads[0]
        fn = self.fn
        if fn is None:
            raise RuntimeError(_FREED)
        if grad is None:
            return (None,) * len(self._nrs)
        if not _grad_state.enabled:  # (is_grad_enabled)
            return self._apply_data(fn, grad, bool(owned and owned[0]))
        result = self._result(grad)
        if self.view_fn is not None:
            grad_slice = replay(self.view_fn, result)
        else:
            rel = self.view.storage_offset - self.base.storage_offset
            grad_slice = result.as_strided(self.view.sizes, self.view.strides, rel)  # type: ignore[attr-defined]
        fn._needed = self._needed_for_fn()
        self._set_locations(fn)
        try:
            res = fn.apply([grad_slice.contiguous() if not grad_slice.is_contiguous() else grad_slice.clone()])  # type: ignore[attr-defined]
        finally:
            fn._needed = None
            fn._locations = None
        out: list[Tensor | None] = [result]
        if res[0] is not None and self.needs_input_grad(0):
            if regions.has_overlap(self.view.sizes, self.view.strides):
                self._zero_overwritten(fn, grad_slice)
            else:
                grad_slice.copy_(res[0])  # type: ignore[attr-defined]
        out.extend(res[1:])
        return tuple(out)

    def _apply_data(self, fn: Node, grad: Tensor, owned: bool) -> OwnedGrads:
        """The steps of Note [CopySlices rebasing] on data only (no ``create_graph``), each
        costing O(slice) except one copy of ``grad`` into the base's layout, which is skipped
        when the engine hands over a buffer already in that layout (owned): the backward of
        K writes into slices of one buffer is O(buffer + total slice size). A node with
        ``writes_strided`` (``MulBackward0``) whose other inputs need no gradient gets the
        region of ``result`` itself as its owned gradient, so a scaled region costs one
        pass over it in place instead of a dense piece allocated, copied in, scaled and
        copied back."""
        base, view = self.base, self.view
        if owned and grad._offset == 0 and grad._strides == base.strides and grad._sizes == base.sizes:
            result = grad  # write the slice's gradient straight into the incoming buffer
        else:
            result = self._empty_like_base(grad.dtype)
            regions.copy_region(
                result._storage.buffer, 0, base.strides, grad._storage.buffer, grad._offset,
                grad._strides, base.sizes,
            )
        buffer = result._storage.buffer
        offset = result._offset + view.storage_offset - base.storage_offset
        sizes, strides = view.sizes, view.strides
        mine = self._needed  # (_needed_for_fn: CopySlices's edges are fn's, the first the base's)
        n = len(fn._nrs)
        if mine is not None:
            needed = mine[:n]
        elif n == 2 and len(self._nrs) == 2:
            needed = (self._n0 is not None, self._n1 is not None)
        else:
            needed = tuple([nxt is not None for nxt in self._next[:n]])
        base_wanted = needed[0]  # (self.needs_input_grad(0))
        overwrites = fn.overwrites_view
        if overwrites:  # fn's first output would be zeros: fill the slice instead (below)
            needed = (False,) + needed[1:]
        data = None
        if len(sizes) < 2:  # a row, a column or a cell (a stepper's, a table's): spelled out
            overlap = False if not sizes or sizes[0] < 2 or strides[0] > 0 else regions.has_overlap(sizes, strides)
            dense = (1,) if sizes else ()  # (layout(sizes)[0])
        else:
            overlap = regions.has_overlap(sizes, strides)
            dense = layout(sizes)[0]
        # (only when the view's gradient is fn's one output: an elementwise formula then,
        # whose values do not depend on the layout, unlike a sum for another input)
        in_region = fn.writes_strided and base_wanted and not overlap and not any(needed[1:])
        if in_region:  # fn works on the region of ``result`` itself: no copy in, none out
            piece = result._alias(Geometry(sizes, strides, offset))
        else:
            if len(sizes) < 2:
                data = regions.row_copy(buffer, offset, strides, sizes)
            if data is None:
                data = allocate(layout(sizes)[1], grad.dtype)
                regions.copy_region(data, 0, dense, buffer, offset, strides, sizes)
            piece = Tensor._make(Storage._fresh(data), sizes, dense)
        fn._needed = needed
        if overlap:
            self._set_locations(fn)
        try:
            res = fn.apply_owned([piece], (True,)) if fn.takes_owned else fn.apply([piece])
        finally:
            fn._needed = None
            if overlap:
                fn._locations = None
        first = res[0]
        if overwrites and base_wanted:
            regions.fill_region(buffer, offset, strides, sizes, 0)
        elif first is not None and base_wanted and (first is not piece or (fn.takes_owned and not in_region) or overlap):
            # (a node not told it owns ``piece`` returned it unchanged: it is there already;
            # so is the region fn wrote in place)
            if overlap:
                self._zero_overwritten(fn, result._alias(Geometry(sizes, strides, offset)))
            else:  # fn may have scaled ``piece`` in place and returned it
                regions.copy_region(
                    buffer, offset, strides, first._storage.buffer, first._offset,
                    first._strides, sizes,
                )
        declared = res.owned if res.__class__ is OwnedGrads else None
        # ``piece`` is ours: once written back it may go on, owned, as another gradient
        if len(res) == 2:  # final: fn never saw ``grad``, and ``result`` is not fn's
            other = res[1]
            return HandedGrads((result, other), (True, (declared is not None and declared[1]) or other is piece))
        handed = [True]
        for i in range(1, len(res)):
            handed.append(bool(declared and declared[i]) or res[i] is piece)
        return OwnedGrads((result,) + tuple(res[1:]), handed)

    def _set_locations(self, fn: Node) -> None:
        """Tell an order-free write ``fn`` where a self-overlapping view's elements land in
        storage (Note [CopySlices rebasing], last paragraph)."""
        sizes, strides = self.view.sizes, self.view.strides
        if hasattr(fn, "zero_overwritten") and regions.has_overlap(sizes, strides):
            fn._locations = element_locations(sizes, strides)  # type: ignore[attr-defined]

    @staticmethod
    def _zero_overwritten(fn: Node, region: Tensor) -> None:
        """Write-back through a self-overlapping view. Only order-independent writes pass
        through one (fill_, zero_, scalar assignment): a storage element any written view
        element maps to was overwritten, so its old value gets no gradient, and every other
        element keeps the gradient already in ``result``. The node knows which it wrote."""
        zero = fn.zero_overwritten
        if zero is None:
            raise RuntimeError(
                f"CopySlices: {fn.name()} wrote through a self-overlapping view; its gradient "
                "cannot be written back unambiguously"
            )
        zero(region)

    def _needed_for_fn(self) -> tuple[bool, ...]:
        n = len(self.fn._nrs)  # type: ignore[union-attr]
        return (self.needs_input_grad(0),) + tuple(self.needs_input_grad(i) for i in range(1, n))

    def _result(self, grad: Tensor) -> Tensor:
        """``grad`` copied, as part of the graph (``create_graph``), into a fresh buffer with
        the base's sizes and strides."""
        return self._empty_like_base(grad.dtype).copy_(grad)  # type: ignore[attr-defined]

    def _empty_like_base(self, dtype: Any) -> Tensor:
        """A new tensor with the base's sizes and strides. Zeroed unless the base is dense:
        an ``as_strided`` view may read storage between its elements."""
        base = self.base
        size = required_storage(base.sizes, base.strides, 0)
        dense = is_non_overlapping_and_dense(base.sizes, base.strides)
        buffer = allocate(size, dtype) if dense else allocate(size, dtype, 0)
        return Tensor._make(Storage(buffer), base.sizes, base.strides, 0)
