"""Differentiable views.

Every view op ``V`` is a fixed map from the input's indices to the output's. Applied to a
*contiguous* tensor of the input's shape it yields a geometry ``rel`` (the view relative
to its input), which is all backward needs: the gradient of ``V`` is ``view_scatter``
(zeros of the input's shape with the incoming gradient written — or added, where ``rel``
maps several outputs to one input — through ``rel``), and the gradient of that is
``take_view`` (read through ``rel``) again. So two small primitives, each the other's
adjoint, give every view op its exact backward and double backward.
(``as_strided`` addresses storage, not the input's indices: see ``as_strided.py``.)
"""

from __future__ import annotations

import weakref
from typing import Any, Callable, Sequence

import numpy as np

from .. import indexing, regions, views
from .._warn_once import warn_once
from ..autograd import anomaly_mode
from ..autograd.grad_mode import _state as _grad_state
from ..autograd.graph import (
    _SINGLE_METADATA, ScatterGrad, grad_accumulator, needs_grad, record, single_metadata,
)
from ..autograd.node import ZERO_NRS, Grads, Node, _next_sequence_nr
from ..geometry import Geometry, contiguous_strides, is_contiguous
from ..geometry import views as vg
from ..geometry.broadcast import infer_size
from ..geometry.strided import wrap_dim
from ..dtypes import UnsupportedDtype
from ..tensor import Tensor, sizes_arg
from .view_meta import DEFAULT, MULTI_OUTPUT_NODE, Step, ViewMeta, dense_call, make_view
from .operands import layout, new_tensor

_new = object.__new__
_new_tuple = tuple.__new__


class ViewBackward(Node):
    """Backward of a view op: scatter the gradient through the view's relative geometry."""

    # no per-node __dict__: one object less per view
    __slots__ = ("input_sizes", "_rel", "_rel_fn")

    def __init__(
        self, input_sizes: tuple[int, ...], rel: Any, rel_fn: Callable[[Geometry, Any], Geometry] | None = None
    ) -> None:
        # Node.__init__, written out (one frame less on every view)
        self._nrs = ()  # (no edges yet: the node slots stay unset)
        self.input_metadata = ()
        self.sequence_nr = _next_sequence_nr()
        if anomaly_mode.enabled:  # where the user's code created this node (debugging only)
            anomaly_mode.record_creation(self.metadata)
        self.input_sizes = input_sizes
        self._rel = rel
        self._rel_fn = rel_fn

    @property
    def rel(self) -> Geometry:
        """The view's geometry relative to a contiguous input. It may be given as
        ``rel_fn`` and its argument (an index), computed on first use as ``rel_fn(contiguous
        geometry, arg)``: most views of a DP table never get a gradient through their own
        node (it is replaced when the view is written)."""
        fn = self._rel_fn
        if fn is not None and fn is not _plain_rel:
            sizes = self.input_sizes
            strides = layout(sizes)[0]
            if fn is indexing.plain_geometry:  # (an index that was plain for ``sizes``)
                self._rel = Geometry(*indexing.plain_index(sizes, strides, 0, self._rel))
            else:
                self._rel = fn(Geometry(sizes, strides, 0), self._rel)
            self._rel_fn = None
        return self._rel  # type: ignore[no-any-return]

    @rel.setter
    def rel(self, value: Geometry) -> None:
        self._rel = value
        self._rel_fn = None

    def __call__(self, *grads: Tensor | None) -> tuple[Tensor | None, ...]:
        return dense_call(self, grads)

    def apply(self, grads: Grads) -> tuple[Any, ...]:
        g = grads[0]
        # a plain index (ints, slices of positive step, None) of a contiguous tensor reaches
        # every element once: no overlap to look for
        fn = self._rel_fn
        if fn is _plain_rel and not _grad_state.enabled:  # (the geometry getitem knew)
            return (ScatterGrad(g, self.input_sizes, self._rel),)
        plain = fn is indexing.plain_geometry or fn is _plain_rel
        if plain and not _grad_state.enabled:  # (the rel property's plain case, inlined)
            sizes = self.input_sizes
            index = self._rel
            if index.__class__ is tuple and len(index) == 2 and index[0].__class__ is int and \
                    index[1].__class__ is int:
                # ``x[i, j]`` (a DP table's cell: not remembered by getitem): its geometry
                # remembered here by the index and the sizes (bounded), for the next backward
                key = (index, sizes)
                rel = _CELL_REL.get(key)
                if rel is None:
                    rel = _new_tuple(Geometry, indexing.plain_index(sizes, layout(sizes)[0], 0, index))
                    if len(_CELL_REL) < _CELL_REL_MAX:
                        _CELL_REL[key] = rel
            else:
                rel = _new_tuple(Geometry, indexing.plain_index(sizes, layout(sizes)[0], 0, index))
            self._rel = rel
            self._rel_fn = None
            return (ScatterGrad(g, sizes, rel),)
        rel = self.rel
        if not _grad_state.enabled and (plain or not regions.has_overlap(rel.sizes, rel.strides)):
            # the engine adds the slice into its buffer: O(slice), never dense zeros + add
            return (ScatterGrad(g, self.input_sizes, rel),)
        return (view_scatter(g, self.input_sizes, rel),)  # type: ignore[arg-type]


# ``ViewBackward.apply``'s geometries of ``x[i, j]`` by ``((i, j), x's sizes)``
_CELL_REL: dict[tuple[tuple[int, int], tuple[int, ...]], Geometry] = {}
_CELL_REL_MAX = 16384


def _plain_rel(contiguous: Geometry, rel: Geometry) -> Geometry:
    """The ``rel_fn`` of a plain view whose relative geometry ``getitem`` already knew
    (``rel`` itself, a plain geometry: no overlap). See the lean plain view's comment above ``_plain_view``."""
    return rel


class AsStridedScatterBackward0(Node):
    """Backward of ``view_scatter``: read the gradient back through ``rel``."""

    def __init__(self, rel: Geometry) -> None:
        super().__init__()
        self.rel = rel

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        return (take_view(grads[0], self.rel),)  # type: ignore[arg-type]


class TakeViewBackward0(ViewBackward):
    """Backward of ``take_view`` (a view op's double backward): scatter through ``rel``. Not
    ``as_strided.AsStridedBackward0``, which addresses storage."""


class AliasBackward0(ViewBackward):
    pass


class SliceBackward0(ViewBackward):
    pass


class SelectBackward0(ViewBackward):
    pass


class TransposeBackward0(ViewBackward):
    pass


class TBackward0(ViewBackward):
    pass


class PermuteBackward0(ViewBackward):
    pass


class ViewBackward0(ViewBackward):
    pass


class UnsafeViewBackward0(ViewBackward):
    pass


class ReshapeAliasBackward0(ViewBackward):  # reshape of a non-contiguous tensor that can be viewed
    pass


class ExpandBackward0(ViewBackward):
    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        from .reduction import sum_to

        return (sum_to(grads[0], self.input_sizes),)  # type: ignore[arg-type]


class UnsqueezeBackward0(ViewBackward):
    pass


class SqueezeBackward0(ViewBackward):  # squeeze()
    pass


class SqueezeBackward1(SqueezeBackward0):  # squeeze(dim)
    pass


class SqueezeBackward2(SqueezeBackward0):  # squeeze(dims)
    pass


class DiagonalBackward0(ViewBackward):
    pass


class UnfoldBackward0(ViewBackward):
    pass


class MultiViewBackward(Node):
    """Backward of a multi-output view (unbind, split, chunk): each output's gradient is
    written into its own (disjoint) region of one zero tensor of the input's shape."""

    def __init__(self, input_sizes: tuple[int, ...], rels: Sequence[Geometry]) -> None:
        super().__init__()
        self.input_sizes = input_sizes
        self.rels = tuple(rels)

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        total: Tensor | None = None
        for g, rel in zip(grads, self.rels):
            if g is None:
                continue
            part = view_scatter(g, self.input_sizes, rel)
            total = part if total is None else total + part  # type: ignore[operator]
        return (total,)


class UnbindBackward0(MultiViewBackward):
    pass


class SplitBackward0(MultiViewBackward):
    pass


def take_view(x: Tensor, rel: Geometry) -> Tensor:
    """``x`` read through ``rel`` (a geometry relative to a contiguous tensor of x's shape)."""
    from ..copying import contiguous

    base = contiguous(x) if not x.is_contiguous() or x._offset else x
    src = base._storage.buffer
    out, view = new_tensor(rel.sizes, x.dtype)
    if out.numel():
        regions.copy_region(
            out._storage.buffer, 0, out._strides, src, base._offset + rel.storage_offset,
            rel.strides, rel.sizes,
        )
    if needs_grad(x):
        record(TakeViewBackward0(x._sizes, rel), (x,), (out,))
    return out


def view_scatter(g: Tensor, input_sizes: tuple[int, ...], rel: Geometry) -> Tensor:
    """Zeros of ``input_sizes`` plus ``g`` added at ``rel`` (the adjoint of ``take_view``)."""
    out, flat = new_tensor(input_sizes, g.dtype)
    buffer = out._storage.buffer
    buffer.fill(0)
    if g.numel():
        if not regions.has_overlap(rel.sizes, rel.strides):
            regions.copy_region(
                buffer, rel.storage_offset, rel.strides,
                g._storage.buffer, g._offset, g._strides, rel.sizes,
            )
        else:
            _scatter_add(buffer, rel, g)
    if needs_grad(g):
        record(AsStridedScatterBackward0(rel), (g,), (out,))
    return out


def _scatter_add(buffer: np.ndarray, rel: Geometry, g: Tensor) -> None:
    """``buffer[rel] += g`` where ``rel`` maps several elements to one (expand, unfold).
    Dimensions of stride 0 are summed first; the rest is an unbuffered ``np.add.at``."""
    values = g._numpy()
    zero_dims = tuple(d for d, (n, s) in enumerate(zip(rel.sizes, rel.strides)) if s == 0 and n != 1)
    sizes, strides = rel.sizes, rel.strides
    if zero_dims:
        values = values.sum(axis=zero_dims)
        keep = [d for d in range(len(sizes)) if d not in zero_dims]
        sizes = tuple(sizes[d] for d in keep)
        strides = tuple(strides[d] for d in keep)
    if not regions.has_overlap(sizes, strides):
        regions.copy_region(
            buffer, rel.storage_offset, strides, np.ascontiguousarray(values).reshape(-1), 0,
            contiguous_strides(sizes), sizes,
        )
        return
    regions.scatter_add(buffer, rel.storage_offset, strides, sizes, values)


def _forward(op: Callable[..., Any], self: Tensor, *args: Any) -> Any:
    """Run the view's forward after bringing ``self``'s history up to date: as in PyTorch,
    an error from a stale view's history comes before the op's own argument errors. (Ops
    that PyTorch composes from others — narrow, chunk, movedim, indexing — check their
    arguments first, so they call their forward directly.)"""
    needs_grad(self)
    return op(self, *args)


def _same(g: Geometry) -> Geometry:
    return g


def _relative(self: Tensor, geometry_fn: Callable[..., Geometry], *args: Any) -> Geometry:
    """The view's geometry relative to a contiguous tensor of ``self``'s shape."""
    sizes = self._sizes
    return geometry_fn(Geometry(sizes, contiguous_strides(sizes), 0), *args)


def _record(
    node_type: type[ViewBackward], self: Tensor, out: Tensor,
    geometry_fn: Callable[..., Geometry], *args: Any, step: Step | None = None,
) -> Tensor:
    """Track ``out`` as a view of ``self`` (Note [Views and in-place writes]) and, when
    ``self`` requires grad, record its backward. ``step`` replays the op (view-replay mode);
    by default the caller's op with ``args``."""
    if needs_grad(self):
        record(node_type(self._sizes, _relative(self, geometry_fn, *args)), (self,), (out,))
    return make_view(self, out, step if step is not None else (_REPLAY[node_type], args))


def narrow(self: Tensor, dim: int, start: int, length: int) -> Tensor:
    out = views.narrow(self, dim, start, length)
    return _record(SliceBackward0, self, out, vg.narrow, dim, start, length)


def select(self: Tensor, dim: int, index: int) -> Tensor:
    return _record(SelectBackward0, self, _forward(views.select, self, dim, index), vg.select, dim, index)


def transpose(self: Tensor, dim0: int, dim1: int) -> Tensor:
    out = _forward(views.transpose, self, dim0, dim1)
    return _record(TransposeBackward0, self, out, vg.transpose, dim0, dim1)


def t(self: Tensor) -> Tensor:
    out = _forward(views.t, self)
    if self.ndim == 2:
        return _record(TBackward0, self, out, vg.transpose, 0, -1, step=(t, ()))
    return _record(TBackward0, self, out, _same, step=(t, ()))


def T(self: Tensor) -> Tensor:
    if self.ndim == 0:  # the identity, as a view (as PyTorch's)
        warn_once("Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.")
        return alias(self)
    out = _forward(views.T, self)
    dims = tuple(reversed(range(self.ndim)))
    return _record(PermuteBackward0, self, out, vg.permute, dims, step=(permute, dims))


def permute(self: Tensor, *dims: int) -> Tensor:
    out = _forward(views.permute, self, *dims)
    order = sizes_arg("permute", dims)
    return _record(PermuteBackward0, self, out, vg.permute, order, step=(permute, order))


def movedim(self: Tensor, source: Any, destination: Any) -> Tensor:
    out = views.movedim(self, source, destination)
    return _record(
        PermuteBackward0, self, out, vg.movedim, source, destination,
        step=(movedim, (source, destination)),
    )


def view(self: Tensor, *shape: Any, dtype: Any = None) -> Tensor:
    """``view(*sizes)``, or ``view(dtype)``: the same bytes as another dtype (``views.view_dtype``)."""
    if not shape:  # Python argument parsing: before any history error, as in PyTorch
        if dtype is not None:
            return views.view_dtype(self, dtype)
        raise TypeError('view() missing 1 required positional arguments: "size"')
    first = shape[0]
    if first.__class__ is not int and len(shape) == 1 and isinstance(first, (np.dtype, UnsupportedDtype)):
        return views.view_dtype(self, first)
    out = _forward(views.view, self, *shape)
    return _record(ViewBackward0, self, out, vg.view, out._sizes, step=(view, (out._sizes,)))


def view_as(self: Tensor, other: Tensor) -> Tensor:
    if not isinstance(other, Tensor):
        raise TypeError(f"view_as(): argument 'other' must be a Tensor, got {type(other).__name__}")
    return view(self, other._sizes)  # one tuple argument: a 0-d ``other`` gives ``()``


def reshape(self: Tensor, *shape: Any) -> Tensor:
    """A view when the strides allow one; otherwise a differentiable copy (not a view)."""
    sizes = infer_size("reshape", sizes_arg("reshape", shape), self.numel())
    if vg.view_strides(self._sizes, self._strides, sizes) is not None:
        if is_contiguous(self._sizes, self._strides):
            return view(self, sizes)
        out = _forward(views.view, self, sizes)  # (PyTorch's _reshape_alias: a view, its own node)
        return _record(ReshapeAliasBackward0, self, out, vg.view, out._sizes, step=(view, (out._sizes,)))
    from .structure import clone

    copy = clone(self, memory_format="contiguous_format")
    out = Tensor._make(copy._storage, sizes, contiguous_strides(sizes))
    if needs_grad(copy):  # not a view (PyTorch's _unsafe_view): no view tracking
        record(UnsafeViewBackward0(copy._sizes, _relative(copy, vg.view, sizes)), (copy,), (out,))
    return out


def flatten(self: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    sizes = views.flatten_sizes(self, start_dim, end_dim)
    return self if sizes is None else reshape(self, sizes)


def expand(self: Tensor, *sizes: Any) -> Tensor:
    if not sizes:  # Python argument parsing: before any history error, as in PyTorch
        raise TypeError('expand() missing 1 required positional arguments: "size"')
    out = _forward(views.expand, self, *sizes)
    return _record(ExpandBackward0, self, out, vg.expand, out._sizes, step=(expand, (out._sizes,)))


def expand_as(self: Tensor, other: Tensor) -> Tensor:
    if not isinstance(other, Tensor):
        raise TypeError(f"expand_as(): argument 'other' must be a Tensor, got {type(other).__name__}")
    return expand(self, other._sizes)  # one tuple argument: a 0-d ``other`` gives ``()``


def unsqueeze(self: Tensor, dim: int) -> Tensor:
    return _record(UnsqueezeBackward0, self, _forward(views.unsqueeze, self, dim), vg.unsqueeze, dim)


def squeeze(self: Tensor, dim: Any = None) -> Tensor:
    node_type = SqueezeBackward0 if dim is None else (
        SqueezeBackward2 if isinstance(dim, (tuple, list)) else SqueezeBackward1
    )
    return _record(node_type, self, _forward(views.squeeze, self, dim), vg.squeeze, dim)


def diagonal(self: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    out = _forward(views.diagonal, self, offset, dim1, dim2)
    return _record(DiagonalBackward0, self, out, vg.diagonal, offset, dim1, dim2)


def unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    out = _forward(views.unfold, self, dimension, size, step)
    return _record(UnfoldBackward0, self, out, vg.unfold, dimension, size, step)


def alias(self: Tensor) -> Tensor:
    """A differentiable alias of ``self`` (same geometry), as ``self[...]``."""
    return _record(AliasBackward0, self, self._alias(self._geometry), _same, step=(alias, ()))


def _multi(
    node_type: type[MultiViewBackward], self: Tensor, outs: tuple[Tensor, ...],
    rels: Callable[[Geometry], list[Geometry]], replay: Callable[[Tensor], tuple[Tensor, ...]],
) -> tuple[Tensor, ...]:
    """Record a multi-output view op; its outputs may not be written in place afterwards."""
    if needs_grad(self):
        contiguous = Geometry(self._sizes, contiguous_strides(self._sizes), 0)
        record(node_type(self._sizes, rels(contiguous)), (self,), outs)
    for k, o in enumerate(outs):
        make_view(self, o, (_piece, (replay, k)), MULTI_OUTPUT_NODE)
    return outs


def _piece(t: Tensor, replay: Callable[[Tensor], tuple[Tensor, ...]], k: int) -> Tensor:
    return replay(t)[k]


def unbind(self: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    outs = _forward(views.unbind, self, dim)
    d = wrap_dim(dim, self.ndim) if self.ndim else 0
    return _multi(
        UnbindBackward0, self, outs, lambda g: [vg.select(g, d, i) for i in range(len(outs))],
        lambda t: unbind(t, dim),
    )


def _pieces(self: Tensor, outs: tuple[Tensor, ...], dim: int) -> Callable[[Geometry], list[Geometry]]:
    d = wrap_dim(dim, self.ndim)

    def rels(g: Geometry) -> list[Geometry]:
        result, start = [], 0
        for o in outs:
            result.append(vg.narrow(g, d, start, o._sizes[d]))
            start += o._sizes[d]
        return result

    return rels


def split(self: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    outs = _forward(views.split, self, split_size_or_sections, dim)
    # (sections: PyTorch's ``split`` is then ``split_with_sizes``, and so is its node)
    node_type = SplitWithSizesBackward0 if isinstance(split_size_or_sections, (list, tuple)) else SplitBackward0
    return _multi(
        node_type, self, outs, _pieces(self, outs, dim),
        lambda t: split(t, split_size_or_sections, dim),
    )


def chunk(self: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    outs = views.chunk(self, chunks, dim)
    return _multi(SplitBackward0, self, outs, _pieces(self, outs, dim), lambda t: chunk(t, chunks, dim))


def basic_view(self: Tensor, index: Any) -> tuple[Tensor, list[Any]]:
    """The differentiable view the basic part of ``index`` selects, and the advanced parts
    left to apply to it (PyTorch's ``applySlicing``)."""
    # indexing validates before any autograd op runs (PyTorch's applySlicing): no _forward
    plain = indexing.plain_index(self._sizes, self._strides, self._offset, index)
    if plain is not None:
        return _plain_view(self, plain, index), []
    g, advanced = indexing.split_index(self._geometry, index)
    view = self._alias(g)
    parts = indexing.as_tuple(index)
    if not advanced and all(type(it) is int or type(it) is slice or it is None or it is Ellipsis for it in parts):
        node_type: type[ViewBackward] = _plain_node_type(index, self._sizes)
    else:
        items = [it for it in parts if it is not Ellipsis]
        last = items[-1] if items else Ellipsis
        node_type = (
            SliceBackward0 if isinstance(last, slice) else UnsqueezeBackward0 if last is None
            else AliasBackward0 if last is Ellipsis or advanced else SelectBackward0
        )
    if needs_grad(self):
        sizes = self._sizes
        # an index of Python ints, slices of ints, None, ... and bools cannot change: its
        # relative geometry can wait until a gradient needs it (``ViewBackward.rel``)
        if not advanced and _immutable(index):
            node = node_type(sizes, index, _basic_geometry)
        else:
            node = node_type(sizes, _relative(self, _basic_geometry, index))
        record(node, (self,), (view,))
    return make_view(self, view, basic_step(index)), advanced


def _basic_geometry(g: Geometry, index: Any) -> Geometry:
    return indexing.split_index(g, index)[0]


def _immutable(index: Any) -> bool:
    for item in indexing.as_tuple(index):
        if item is None or item is Ellipsis or type(item) in (int, bool):
            continue
        if type(item) is slice and all(
            part is None or type(part) is int for part in (item.start, item.stop, item.step)
        ):
            continue
        return False
    return True

# The lean plain view (one of the lean paths: Note [Lean paths] in ``operands.py``)
# ``x[i, j]``, ``x[1:, 2:]``, ``x[:, None]`` (a plain index: ints, int slices, None) are the
# commonest ops of a DP or stencil program, so ``_plain_view`` does their bookkeeping in one
# frame when ``self``'s history is up to date (grad mode on, not inference, and ``self``
# not a view or a view whose grad_fn is current): ``Tensor._make``, the node's
# ``__init__`` (``ViewBackward``'s and ``Node``'s), ``record`` (one edge, the shared
# one-output metadata), ``make_view`` and ``ViewMeta.__init__`` are written out there.
# Anything else (no_grad, inference, a stale view, a view without history) takes
# ``record`` + ``make_view``. If you add a slot to Tensor, ViewMeta or ViewBackward, or a
# field to Node.__init__, set it there too: tests/test_lean_views.py compares every
# Tensor, ViewMeta and node slot and the graph with the general path, and the values and
# gradients with PyTorch.
# Fewer objects per view (each one Python's collector tracks costs a stepper's statement
# time in every collection): the node holds its edge inline (``Node``'s slots), and
# ``getitem`` remembers ``x[i]``, ``x[a:b]``, ``x[a:b, c:d]``, ``x[a:b, j]`` and
# ``x[a:b, None]`` by their Python ints (``_SEEN``): one shared index per bounds for the
# node and the view's replay step (``x[a:b]`` kept as the same view ``x[(a:b,)]``), with
# the sizes and strides it last indexed (and those before: two tensors taking turns
# both hit), the view's geometry relative to them (shared
# sizes and strides tuples, so that views of such views are remembered too) and its
# node's metadata, so that a stepper's or a table's views skip ``plain_index``; when the
# tensor is contiguous, the view's node takes that relative geometry (``_plain_rel``), so
# its backward skips ``plain_index`` and the Geometry too. ``x[i, j]`` (a DP cell, not
# remembered here) has its geometry remembered by its backward instead (``_CELL_REL``).


def _plain_view(
    self: Tensor, plain: tuple[Any, ...], index: Any, node_type: type[ViewBackward] | None = None,
    metadata: Any = None, rel: Geometry | None = None,
) -> Tensor:
    """``self[index]`` for a plain index (ints, int slices and None) whose view has geometry
    ``plain``. The index is immutable, so the view node's relative geometry can wait until
    a gradient needs it (``ViewBackward.rel``). ``node_type``: ``_plain_node_type(index, sizes)``,
    when the caller knows it; ``metadata``: the node's ``input_metadata`` when the caller
    knows it (used if of ``self``'s dtype); ``rel``: the view's geometry relative to a
    contiguous ``self`` (``plain_geometry`` of the index), when the caller knows it. See
    the lean plain view's comment."""
    sizes, strides, offset = plain
    storage = self._storage
    root = self._base
    vm = self._view_meta
    if storage.inference or not _grad_state.recording:
        lean = False
    elif vm is None:
        lean = True
    else:  # a view whose history is up to date (``current_grad_fn``'s test, inlined)
        counter = storage._counter
        lean = self._grad_fn is not None and vm.attr_version == (0 if counter is None else counter.value)
    if not lean:
        view = Tensor._make(storage, sizes, strides, offset, self if root is None else root)
        if needs_grad(self):
            node_type = node_type or _plain_node_type(index, self._sizes)
            record(node_type(self._sizes, index, indexing.plain_geometry), (self,), (view,))
        return make_view(self, view, (_basic_part, index if type(index) is tuple else (index,)))
    # ``Tensor._make``, inlined (every slot of Tensor is set)
    view = _new(Tensor)
    view._storage = storage
    view._sizes = sizes
    view._strides = strides
    view._offset = offset
    view._base = self if root is None else root
    view._requires_grad = False
    view._grad = None
    view._grad_fn = None
    view._output_nr = 0
    view._grad_accumulator = None
    view._hooks = None
    view._retains_grad = False
    fn = self._grad_fn
    if fn is not None or self._requires_grad:
        # the node (``ViewBackward.__init__``) and ``record``, inlined for one input whose
        # history is up to date
        if node_type is None:  # (_plain_node_type, inlined for an index that ends in an int or None)
            last = (index[-1] if index else Ellipsis) if type(index) is tuple else index
            node_type = _NODE_OF_LAST.get(type(last)) if type(index) is not tuple or \
                (last is not Ellipsis and type(last) is not slice) else None
            if node_type is None:
                node_type = _plain_node_type(index, self._sizes)
        node = _new(node_type)
        # (numbered first, as ``__init__`` does)
        node.sequence_nr = _next_sequence_nr()
        if anomaly_mode.enabled:  # where the user's code created this node (debugging only)
            anomaly_mode.record_creation(node.metadata)
        if fn is not None:
            node._n0 = fn
            nr = self._output_nr
            node._nrs = ZERO_NRS[1] if nr == 0 else (nr,)
        else:
            ref = self._grad_accumulator
            acc = ref() if ref is not None else None
            node._n0 = grad_accumulator(self) if acc is None else acc
            node._nrs = ZERO_NRS[1]
        dtype = storage.buffer.dtype
        if metadata is None or metadata[0][1] is not dtype:
            by_sizes = _SINGLE_METADATA.get(dtype.type)
            metadata = None if by_sizes is None else by_sizes.get(sizes)
            if metadata is None or metadata[0][1] is not dtype:
                metadata = single_metadata(sizes, dtype)
        node.input_metadata = metadata
        node.input_sizes = self._sizes
        if rel is None:
            node._rel = index
            node._rel_fn = indexing.plain_geometry
        else:
            node._rel = rel
            node._rel_fn = _plain_rel
        view._grad_fn = node
    # ``make_view`` and ``ViewMeta.__init__``, inlined (every slot of ViewMeta is set)
    meta = _new(ViewMeta)
    if vm is None:
        meta.base = self if root is None else root
        meta.parent = meta.parent_meta = None
        meta.creation = DEFAULT
    else:
        meta.base = vm.base
        meta.parent = weakref.ref(self)
        meta.parent_meta = vm
        meta.creation = vm.creation
    meta.step_fn = _basic_part
    meta.step_args = index if type(index) is tuple else (index,)
    meta._view_fn = None
    counter = storage._counter
    meta.attr_version = 0 if counter is None else counter.value
    view._view_meta = meta
    return view


# The node of ``x[index]`` for a plain index, by the type of its last item (an int, a slice,
# None; none, or ``...``: AliasBackward0), as PyTorch names it
_NODE_OF_LAST: dict[type, type[ViewBackward]] = {
    int: SelectBackward0, slice: SliceBackward0, type(None): UnsqueezeBackward0,
}


def _plain_node_type(index: Any, sizes: tuple[int, ...]) -> type[ViewBackward]:
    """The node of ``x[index]`` for a plain index on a tensor of ``sizes``, as PyTorch names
    it: after the last item its indexing applies (``indexing.last_applied``: in a tuple a
    slice over a whole dim is skipped, ``x[0, :]`` is a select, ``x[:, :]`` an alias); a
    slice alone is always a slice."""
    last = indexing.last_applied(sizes, index) if type(index) is tuple else index
    # (an integer of another type, ``np.int64(1)``: a select)
    return AliasBackward0 if last is Ellipsis else _NODE_OF_LAST.get(type(last), SelectBackward0)


def basic_step(index: Any) -> Step:
    """The replay step of ``t[index]`` (its basic part)."""
    return (_basic_part, index if isinstance(index, tuple) else (index,))


def _basic_part(t: Tensor, *index: Any) -> Tensor:
    return basic_view(t, index)[0]


def getitem(self: Tensor, index: Any) -> Tensor:
    """Basic indices give a differentiable view; advanced ones then gather from that view
    (a copy whose backward scatter-adds)."""
    # ``x[i]``, ``x[a:b]``, ``x[a:b, c:d]``, ``x[a:b, j]``, ``x[a:b, None]`` by Python ints
    # (a stepper's, a table's every view): the view's geometry relative to the tensor's is
    # remembered by the index, with the sizes and strides it was taken from (the views
    # then skip ``plain_index``; their sizes and strides are shared tuples, so views of
    # them are remembered too), and the node and the view keep one shared index per bounds
    # (objects less per view for Python's collector to track): ``x[a:b]`` is kept as
    # ``x[(a:b,)]``, the same view (its replay step's arguments too)
    key: Any = None
    kind = type(index)
    if kind is int:
        key, node_type = index, SelectBackward0
    elif kind is slice:
        start, stop = index.start, index.stop
        if index.step is None and (start is None or type(start) is int) and \
                (stop is None or type(stop) is int):
            key, node_type = (start, stop), SliceBackward0
    elif kind is tuple and len(index) == 2:
        first, second = index
        if type(first) is slice and first.step is None:
            start, stop = first.start, first.stop
            if (start is None or type(start) is int) and (stop is None or type(stop) is int):
                last = type(second)
                if last is slice and second.step is None:
                    a, b = second.start, second.stop
                    if (a is None or type(a) is int) and (b is None or type(b) is int):
                        key, node_type = (start, stop, a, b), SliceBackward0
                        if (a is None or a == 0) and (start is None or start == 0) and len(self._sizes) > 1 \
                                and (b is None or b >= self._sizes[1]) and (stop is None or stop >= self._sizes[0]):
                            key = None  # (``x[:, :]``: PyTorch's alias, not a slice)
                elif last is int:  # (a 3-tuple of ints or None, as the next key)
                    key, node_type = (start, stop, second), SelectBackward0
                elif second is None:
                    key, node_type = (start, stop, None), UnsqueezeBackward0
    if key is not None:
        seen = _SEEN.get(key)
        sizes, strides = self._sizes, self._strides
        table = _SEEN
        if seen is not None and not ((seen[1] is sizes or seen[1] == sizes) and
                                     (seen[2] is strides or seen[2] == strides)):
            # (the geometry the index took before the last: two tensors taking turns)
            other = _SEEN_BEFORE.get(key)
            if other is not None and other[1] == sizes and other[2] == strides:
                seen, table = other, _SEEN_BEFORE
            else:
                seen = None
        if seen is not None:
            metadata = seen[6]
            if metadata is None:  # (the first view again: its metadata, remembered too)
                metadata = single_metadata(seen[3], self._storage.buffer.dtype)
                table[key] = seen[:6] + (metadata, seen[7])
            return _plain_view(self, (seen[3], seen[4], self._offset + seen[5]), seen[0], node_type, metadata,
                               seen[7])
        if kind is int:  # (``plain_index``'s first case, inlined)
            if not sizes:
                plain = None
            else:
                size = sizes[0]
                i = index + size if index < 0 else index
                plain = (sizes[1:], strides[1:], self._offset + i * strides[0]) if 0 <= i < size else None
        else:
            plain = indexing.plain_index(sizes, strides, self._offset, index)
        if plain is not None:
            # remembered (when there is room), with the view's sizes and strides shared; the
            # geometry remembered before goes second
            if key in _SEEN:
                before = _SEEN[key]
                _SEEN_BEFORE[key] = before
                shared = before[0]
            elif len(_SEEN) < _SEEN_MAX:
                shared = (index,) if type(index) is slice else index
            else:
                return _plain_view(self, plain, index, node_type)
            view_sizes, view_strides, view_offset = plain
            view_sizes = _SHAPES.get(view_sizes) or _shape(view_sizes)
            view_strides = _SHAPES.get(view_strides) or _shape(view_strides)
            # (the geometry relative to a contiguous tensor: the node's, when ``self`` is one)
            rel = _new_tuple(Geometry, (view_sizes, view_strides, view_offset - self._offset)) \
                if strides == layout(sizes)[0] else None
            _SEEN[key] = (shared, sizes, strides, view_sizes, view_strides, view_offset - self._offset, None, rel)
            return _plain_view(self, (view_sizes, view_strides, view_offset), shared, node_type, None, rel)
    plain = indexing.plain_index(self._sizes, self._strides, self._offset, index)
    if plain is not None:  # ints and int slices: the commonest index
        return _plain_view(self, plain, index)
    view, advanced = basic_view(self, index)
    if not advanced:
        return view
    from .index_ops import gather

    return gather(view, indexing.numpy_index(len(view._sizes), advanced))


# ``getitem``'s views by their index: ``(shared index, sizes, strides, the view's sizes,
# strides and offset less the tensor's, its node's metadata or None, the view's Geometry
# relative to a contiguous tensor or None (when the strides are not contiguous ones))`` of the last view
# taken by that index (bounded; an entry is one tuple, replaced whole: a thread reading it
# sees one geometry); and the views' sizes and strides, one tuple per value (bounded)
_SEEN: dict[Any, tuple[Any, ...]] = {}
_SEEN_BEFORE: dict[Any, tuple[Any, ...]] = {}  # (the entry each replaced)
_SEEN_MAX = 4096
_SHAPES: dict[tuple[int, ...], tuple[int, ...]] = {}


def _shape(sizes: tuple[int, ...]) -> tuple[int, ...]:
    """``sizes``, the one tuple of its value from now on (when there is room)."""
    if len(_SHAPES) < _SEEN_MAX:
        _SHAPES[sizes] = sizes
    return sizes


# The op each node type replays in view-replay mode (when _record is not given a step).
_REPLAY: dict[type[ViewBackward], Callable[..., Tensor]] = {
    SliceBackward0: narrow,
    SelectBackward0: select,
    TransposeBackward0: transpose,
    UnsqueezeBackward0: unsqueeze,
    SqueezeBackward0: squeeze,
    SqueezeBackward1: squeeze,
    SqueezeBackward2: squeeze,
    DiagonalBackward0: diagonal,
    UnfoldBackward0: unfold,
}


# -- PyTorch's other names and spellings of the views above ------------------------------------
def swapdims(self: Tensor, dim0: int, dim1: int) -> Tensor:
    return transpose(self, dim0, dim1)


def swapaxes(self: Tensor, axis0: int, axis1: int) -> Tensor:
    return transpose(self, axis0, axis1)


def moveaxis(self: Tensor, source: Any, destination: Any) -> Tensor:
    return movedim(self, source, destination)


def reshape_as(self: Tensor, other: Tensor) -> Tensor:
    return reshape(self, other._sizes)


def conj(self: Tensor) -> Tensor:
    """The complex conjugate: ``self`` itself for jitgrad's real dtypes (as PyTorch's)."""
    return self


def _matrix_transpose(name: str, batches: bool) -> Callable[[Tensor], Tensor]:
    """``mT``/``mH``/``adjoint()`` (batches of matrices) and ``H`` (matrices only): the last
    two dimensions swapped (conjugation is the identity on real dtypes); a 0-d tensor is
    returned as it is, with PyTorch's deprecation warning (once per process, as its
    ``TORCH_WARN_ONCE``)."""
    what = "matrices or batches of matrices" if batches else "matrices (2-D tensors)"
    who = "adjoint()" if name == "adjoint()" else f"Tensor.{name}"
    advice = ("This function is the identity in these cases." if name == "mT"
              else "Consider using x.conj().")

    def op(self: Tensor) -> Tensor:
        if self.ndim == 0:
            warn_once(f"{who} is deprecated on 0-D tensors. {advice}")
            return self
        if self.ndim < 2 if batches else self.ndim != 2:
            hint = "" if batches or self.ndim < 2 else " For batches of matrices, consider using tensor.mH"
            raise RuntimeError(
                f"tensor.{name} is only supported on {what}. Got {self.ndim}-D tensor.{hint}"
            )
        return transpose(self, -2, -1)

    return op


mT = _matrix_transpose("mT", batches=True)
mH = _matrix_transpose("mH", batches=True)
H = _matrix_transpose("H", batches=False)
_adjoint = _matrix_transpose("adjoint()", batches=True)


def adjoint(self: Tensor) -> Tensor:
    return _adjoint(self)


class SplitWithSizesBackward0(MultiViewBackward):
    pass


def split_with_sizes(self: Tensor, split_sizes: Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:
    if not isinstance(split_sizes, (tuple, list)) or not all(isinstance(n, int) for n in split_sizes):
        raise TypeError(f"split_with_sizes(): split_sizes must be a sequence of ints, got {split_sizes!r}")
    outs = _forward(views.split, self, list(split_sizes), dim)
    return _multi(
        SplitWithSizesBackward0, self, outs, _pieces(self, outs, dim),
        lambda t: split_with_sizes(t, split_sizes, dim),
    )


# -- unsafe_split / unsafe_chunk: the same pieces, neither views nor refused in-place --------------
class UnsafeSplitBackward0(MultiViewBackward):
    pass


class UnsafeSplitWithSizesBackward0(MultiViewBackward):
    pass


def _unsafe(node_type: type[MultiViewBackward], self: Tensor, outs: tuple[Tensor, ...],
            dim: int) -> tuple[Tensor, ...]:
    """PyTorch's ``unsafe_*`` split: outputs share memory with ``self`` but are not tracked
    as views and each has its own version counter (as ``.data`` does), so writing into one
    is the caller's responsibility: its history is not rebased onto ``self``, and no saved
    tensor sees the write."""
    pieces = tuple(Tensor._make(o._storage.alias(), o._sizes, o._strides, o._offset) for o in outs)
    if needs_grad(self):
        contiguous = Geometry(self._sizes, contiguous_strides(self._sizes), 0)
        record(node_type(self._sizes, _pieces(self, outs, dim)(contiguous)), (self,), pieces)
    return pieces


def unsafe_split(self: Tensor, split_size: Any, dim: int = 0) -> tuple[Tensor, ...]:
    return _unsafe(UnsafeSplitBackward0, self, _forward(views.split, self, split_size, dim), dim)


def unsafe_split_with_sizes(self: Tensor, split_sizes: Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:
    outs = _forward(views.split, self, list(split_sizes), dim)
    return _unsafe(UnsafeSplitWithSizesBackward0, self, outs, dim)


def unsafe_chunk(self: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    return _unsafe(UnsafeSplitBackward0, self, views.chunk(self, chunks, dim), dim)
