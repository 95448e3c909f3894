"""``as_strided`` and its exact backward, for any input and output geometry.

``as_strided`` addresses *storage*, so its gradient lives in storage space too (PyTorch's
``as_strided_backward`` in FunctionsManual.cpp): scatter-add the gradient into a zero buffer
covering both geometries, at the output's positions; where the input itself maps several of
its elements to one storage element, divide by that multiplicity; read the result through
the input's geometry. Storage elements the input does not cover get nothing.

Both directions are one primitive, ``restride(x, src, dst, scale)``: scatter-add ``x`` at
geometry ``src``, divide by the multiplicity of geometry ``scale`` (if any), read at ``dst``.
Its adjoint is ``restride(h, dst, src, scale)``, so double backward comes for free.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .. import regions, views
from ..autograd.grad_mode import _state as _grad_state
from ..autograd.graph import ScatterGrad, needs_grad, record
from ..autograd.node import Grads, Node
from ..geometry import Geometry, contiguous_strides
from ..tensor import Tensor
from .operands import layout, new_tensor
from .view_meta import ADDRESSES_STORAGE, AS_STRIDED_BACKWARD, dense_call, make_view

_new_tuple = tuple.__new__


def _span(*geoms: Geometry) -> tuple[int, int]:
    """``[lo, hi)`` of the storage elements any non-empty geometry reaches."""
    lo, hi = None, None
    for g in geoms:
        if any(s == 0 for s in g.sizes):
            continue
        end = g.storage_offset + sum((n - 1) * s for n, s in zip(g.sizes, g.strides)) + 1
        lo = g.storage_offset if lo is None else min(lo, g.storage_offset)
        hi = end if hi is None else max(hi, end)
    return (0, 0) if lo is None else (lo, hi)  # type: ignore[return-value]


def _shift(g: Geometry, lo: int) -> Geometry:
    return Geometry(g.sizes, g.strides, g.storage_offset - lo)


def _scatter_add(buffer: np.ndarray, g: Geometry, values: Tensor) -> None:
    if values.numel() == 0:
        return
    if not regions.has_overlap(g.sizes, g.strides):
        regions.add_region(
            buffer, g.storage_offset, g.strides,
            values._storage.buffer, values._offset, values._strides, g.sizes,
        )
    else:
        regions.scatter_add(buffer, g.storage_offset, g.strides, g.sizes, values.numpy())


class RestrideBackward(Node):
    """Backward of ``restride``: the same map with source and destination swapped."""

    def __init__(self, src: Geometry, dst: Geometry, scale: Geometry | None) -> None:
        super().__init__()
        self.src, self.dst, self.scale = src, dst, scale

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        return (restride(grads[0], self.dst, self.src, self.scale),)  # type: ignore[arg-type]


def restride(x: Tensor, src: Geometry, dst: Geometry, scale: Geometry | None) -> Tensor:
    """Scatter-add ``x`` (shaped like ``src``) at ``src``; divide by ``scale``'s multiplicity;
    read at ``dst``. Geometries are storage positions in a common frame."""
    lo, hi = _span(src, dst)
    src_s, dst_s = _shift(src, lo), _shift(dst, lo)
    buffer = np.zeros(hi - lo, x.dtype)
    _scatter_add(buffer, src_s, x)
    if scale is not None:
        count = np.zeros(hi - lo, np.int64)
        np.add.at(count, regions.region_offsets(scale.storage_offset - lo, scale.strides, scale.sizes), 1)
        np.divide(buffer, np.maximum(count, 1), out=buffer, casting="unsafe")
    out, _ = new_tensor(dst.sizes, x.dtype)
    if out.numel():
        regions.copy_region(
            out._storage.buffer, 0, out._strides, buffer, dst_s.storage_offset, dst_s.strides,
            dst.sizes,
        )
    if needs_grad(x):
        record(RestrideBackward(src, dst, scale), (x,), (out,))
    return out


class AsStridedBackward0(Node):
    """Backward of ``as_strided`` (also the regenerated ``grad_fn`` of a view whose base was
    written in place): storage-space scatter from the view's geometry to the input's."""

    __slots__ = ("input_geometry", "geometry")  # (made at every write through a view: no dict)

    def __init__(self, input_geometry: Geometry, geometry: Geometry) -> None:
        super().__init__()
        self.input_geometry = input_geometry
        self.geometry = geometry

    def __call__(self, *grads: Tensor | None) -> tuple[Tensor | None, ...]:
        return dense_call(self, grads)

    def apply(self, grads: Grads) -> tuple[Any, ...]:
        global _LAST_REGION
        inp = self.input_geometry
        if not _grad_state.enabled:  # the engine adds the region into its buffer: O(view)
            # a stepper's regenerated views share their geometries (``view_geometry``): the
            # last pair's region is remembered (one tuple, replaced whole)
            view = self.geometry
            last = _LAST_REGION
            if last[0] is inp and last[1] is view:
                region = last[2]
            else:
                region = region_within(inp, view)
                _LAST_REGION = (inp, view, region)
            if region is not None:
                return (ScatterGrad(grads[0], inp.sizes, region),)
        return (as_strided_backward(grads[0], inp, self.geometry),)  # type: ignore[arg-type]


# ``(input_geometry, geometry, region_within(them))`` of the last AsStridedBackward0 applied
# without create_graph (the geometries are immutable: the same objects, the same region)
_LAST_REGION: tuple[Any, Any, Geometry | None] = (None, None, None)


def region_within(inp: Geometry, view: Geometry) -> Geometry | None:
    """``view`` as a region of a contiguous tensor shaped like ``inp``, when ``inp`` is
    contiguous in storage, ``view`` does not overlap itself and every element of ``view``
    is one of ``inp``'s (a view regenerated from its base is); None otherwise. Then the
    backward of ``as_strided`` is a scatter of the gradient into that region, zeros
    elsewhere (``restride`` with nothing to divide and no element outside ``inp``)."""
    sizes, strides = view.sizes, view.strides
    dense, count = layout(inp.sizes)
    if inp.strides != dense or not sizes:
        return None
    rel = view.storage_offset - inp.storage_offset
    if len(sizes) == 1:  # a row or a column (a stepper's): the loop below, spelled out
        n, st = sizes[0], strides[0]
        if n == 0 or st < 0 or rel < 0 or rel + (n - 1) * st >= count or (st == 0 and n > 1):
            return None
        return _new_tuple(Geometry, (sizes, strides, rel))
    last = rel
    for n, st in zip(sizes, strides):
        if n == 0 or st < 0:
            return None
        last += (n - 1) * st
    if rel < 0 or last >= count or regions.has_overlap(sizes, strides):
        return None
    return Geometry(sizes, strides, rel)


def as_strided_backward(grad: Tensor, input_geometry: Geometry, geometry: Geometry) -> Tensor:
    inp = input_geometry
    if 0 in geometry.sizes:  # no elements: zeros not connected to ``grad`` (as PyTorch's)
        zeros, _ = new_tensor(inp.sizes, grad.dtype)
        zeros._storage.buffer.fill(0)
        return zeros
    overlapping = regions.has_overlap(inp.sizes, inp.strides)
    return restride(grad, geometry, inp, inp if overlapping else None)


def as_strided(
    self: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None
) -> Tensor:
    """A view with explicit geometry; ``storage_offset`` counts from the start of storage."""
    needs_grad(self)  # a stale view's history first, as PyTorch
    out = views.as_strided(self, size, stride, storage_offset)
    if needs_grad(self):
        record(AsStridedBackward0(self._geometry, out._geometry), (self,), (out,))
    root = self if self._base is None else self._base
    step = (_as_strided_from_root, (out._sizes, out._strides, out._offset - root._offset))
    return make_view(self, out, step)


def _as_strided_from_root(t: Tensor, size: tuple[int, ...], stride: tuple[int, ...], rel: int) -> Tensor:
    """Replay of ``as_strided`` on another tensor. It addresses storage, so it is replayed
    on the root (as in as_strided mode), its offset counted from the root's."""
    root = t if t._base is None else t._base
    return as_strided(root, size, stride, root._offset + rel)


ADDRESSES_STORAGE.add(_as_strided_from_root)
AS_STRIDED_BACKWARD.append(AsStridedBackward0)


def contiguous_geometry(sizes: tuple[int, ...]) -> Geometry:
    return Geometry(sizes, contiguous_strides(sizes), 0)
