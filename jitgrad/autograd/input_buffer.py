"""The input buffers of the nodes waiting to run, and which gradients in them the engine owns.

Note [Gradient buffer ownership]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The engine tracks, per input-buffer slot, whether the gradient there is a buffer nothing
else references. It is when the engine made it (the copy on a second gradient), when a
node said so (``OwnedGrads``: e.g. CopySlices returning the buffer it wrote into), when
``validate_outputs`` had to reduce or cast (a fresh tensor), or when a node passed an owned
input through unchanged to exactly one output. A node that can use this sets ``takes_owned``
and learns in ``apply_owned(grads, owned)`` which of its inputs it may overwrite (the other
nodes' ``apply(grads)`` never see ownership); that is what makes K in-place writes into
slices of one buffer cost O(buffer + slices) in backward rather than O(K x buffer). Hooks and captures may keep a
reference, so they clear ownership. A node whose declared flags are already final (none of
its owned inputs passed through, no buffer at two outputs) returns ``HandedGrads``, which the
engine takes as they are (``handed_over`` is not asked). CopySlices hands a node with
``writes_strided`` (``Node``) whose other inputs need no gradient the view's region of the
base's gradient itself, strided and aliasing CopySlices's own buffer, as an owned input.
"""

from __future__ import annotations

from typing import Any, Iterator, Sequence

import numpy as np

from .. import regions
from .._quiet import QUIET_RUN, quiet_call
from ..storage import Storage
from ..tensor import Tensor
from .graph import OPS, ScatterGrad, add_inplace, dense_copy
from .node import Node, OwnedGrads

Slot = Any  # a Tensor, a ScatterGrad (a gradient that is zero outside one region) or None


class InputBuffers:
    """PyTorch's ``InputBuffer``, one per node that has received a gradient and not run yet.

    ``grads[node][k]`` is the sum so far of the gradients for the node's k-th output. The
    first gradient for a slot is kept as it is; a second one makes one dense copy, which
    the engine then owns (``owned[node][k]``) and adds into in place (out of place, building
    a graph, under ``create_graph``, where nothing is ever owned)."""

    __slots__ = ("grads", "owned", "scattered", "create_graph")

    def __init__(self, create_graph: bool) -> None:
        self.grads: dict[Node, list[Slot]] = {}
        self.owned: dict[Node, list[bool]] = {}
        self.scattered: set[Node] = set()  # nodes whose buffer may hold a ScatterGrad
        self.create_graph = create_graph

    def __iter__(self) -> Iterator[Node]:
        return iter(self.grads)

    def add(self, node: Node, nr: int, grad: Slot, fresh: bool = False) -> None:
        """Add ``grad`` for output ``nr`` of ``node``; ``fresh``: nothing else references it,
        so the engine owns it (and ``node`` may overwrite it)."""
        buf = self.grads.get(node)
        if buf is None:  # (``GraphTask.send`` inlines this case for a one-output node's Tensor)
            n = len(node.input_metadata)
            if n == 1:
                self.grads[node] = [grad]
            else:
                self.grads[node] = buf = [None] * n
                buf[nr] = grad
            if fresh and not self.create_graph:
                self.owned[node] = [k == nr for k in range(n)]
        elif buf[nr] is None:
            buf[nr] = grad
            if fresh and not self.create_graph:
                self.owned.setdefault(node, [False] * len(buf))[nr] = True
        else:
            self._accumulate(node, nr, grad)
            return
        if grad.__class__ is ScatterGrad:
            self.scattered.add(node)

    def touch(self, node: Node) -> None:
        """An edge into ``node`` carried no gradient: it still runs (with None there)."""
        if node not in self.grads:
            self.grads[node] = [None] * len(node.input_metadata)

    def materialized(
        self, node: Node, grads: list[Slot], flags: list[bool] | None
    ) -> tuple[list[Tensor | None], list[bool] | None]:
        """``node``'s gradients, popped from ``grads`` and ``owned`` (``GraphTask.evaluate``
        does that), with its ScatterGrads made dense tensors the engine owns: no node ever
        sees a ScatterGrad."""
        self.scattered.discard(node)
        return grads, _materialize(grads, flags)

    def _accumulate(self, node: Node, k: int, grad: Slot) -> None:
        """A second gradient for one slot: into an owned dense copy of the first."""
        buf = self.grads[node]
        old = buf[k]
        flags = self.owned.get(node)
        if self.create_graph:
            buf[k] = OPS.add(old, grad)
            if flags is not None:
                flags[k] = False
            return
        if flags is None:
            flags = self.owned[node] = [False] * len(buf)
        if old.__class__ is ScatterGrad:
            old = buf[k] = old.materialize()
            flags[k] = True
        elif not flags[k]:
            flags[k] = True
            if grad.__class__ is Tensor:
                total = _added(old, grad)
                if total is not None:  # (``_own`` then ``add_inplace``, in one NumPy add)
                    buf[k] = total
                    return
            old = buf[k] = _own(old)
        if grad.__class__ is ScatterGrad:
            grad.add_into(old)  # O(slice), not O(buffer)
        else:
            add_inplace(old, grad)


def _own(t: Tensor) -> Tensor:
    """``dense_copy(t)``: a contiguous copy on a storage of its own; a 0-d or contiguous 1-D
    tensor (a stepper's row, a scalar) by one slice copy."""
    sizes = t._sizes
    if not sizes or (len(sizes) == 1 and t._strides[0] == 1):
        start = t._offset
        data = t._storage.buffer[start:start + (sizes[0] if sizes else 1)].copy()
        return Tensor._make(Storage._fresh(data), sizes, t._strides)
    return dense_copy(t)


def _added(old: Tensor, grad: Tensor) -> Tensor | None:
    """``old + grad`` in a new contiguous buffer, when both are rows (or scalars) of one
    dtype of at most ``regions.SMALL`` elements, each contiguous or one element broadcast
    (stride 0: ``sum``'s gradient): ``_own(old)`` then ``add_inplace`` without their checks
    and tensors, the same NumPy add in place (so the same pick of two NaNs). None otherwise."""
    sizes = old._sizes
    if len(sizes) > 1 or grad._sizes != sizes:
        return None
    n = sizes[0] if sizes else 1
    a, b = old._storage.buffer, grad._storage.buffer
    if a.dtype is not b.dtype or n > regions.SMALL or n == 0:
        return None
    old_step, step = (old._strides[0], grad._strides[0]) if sizes else (1, 1)
    if not ((old_step == 1 or old_step == 0) and (step == 1 or step == 0)):
        return None
    i, j = old._offset, grad._offset
    if not (0 <= i and i + (n if old_step else 1) <= a.shape[0]
            and 0 <= j and j + (n if step else 1) <= b.shape[0]):
        return None
    data = a[i:i + n].copy() if old_step else np.repeat(a[i:i + 1], n)
    y = b[j:j + (n if step else 1)]
    try:  # inf + -inf is nan, silently, as in PyTorch; in place, as ``add_inplace`` (NumPy's
        QUIET_RUN(np.add, data, y, data)  # pick of two NaNs differs out of place)
    except RuntimeError:  # (another thread is in QUIET_RUN's context: see ``_quiet``)
        quiet_call(np.add, data, y, data)
    return Tensor._make(Storage._fresh(data), sizes, (1,) if sizes else ())


def _materialize(grads: list[Any], flags: list[bool] | None) -> list[bool]:
    """Turn the ScatterGrads in ``grads`` into dense tensors the engine owns."""
    flags = [False] * len(grads) if flags is None else flags
    for k in range(len(grads)):
        if grads[k].__class__ is ScatterGrad:
            grads[k] = grads[k].materialize()
            flags[k] = True
    return flags


class HandedGrads(OwnedGrads):
    """``OwnedGrads`` whose flags are final (Note [Gradient buffer ownership]): the node
    passed none of its owned inputs through to an output, and no buffer reaches two outputs.
    ``owned`` is taken as given (a tuple)."""

    def __new__(cls, grads: Sequence[Any], owned: tuple[bool, ...]) -> HandedGrads:
        out = tuple.__new__(cls, grads)
        out.owned = owned
        return out


def handed_over(
    outputs: Sequence[Tensor | None], grads: Sequence[Tensor | None], flags: list[bool] | None
) -> list[bool] | None:
    """Which outputs the next nodes may overwrite (Note [Gradient buffer ownership]): those
    the node declared owned, and owned inputs passed through to exactly one output."""
    declared = outputs.owned if outputs.__class__ is OwnedGrads else None  # type: ignore[attr-defined]
    if declared is None:
        if not flags:
            return None
        n = len(outputs)
        if n == 1:  # (the loops below for one output: a view's, a copy's)
            o = outputs[0]
            if o is not None:
                for k in range(len(flags)):
                    if flags[k] and grads[k] is o:
                        return [True]
            return None
        if n == 2 and len(flags) == 1:  # (the loops below for a binary op's node)
            g = grads[0]
            if not flags[0] or g is None:
                return None
            first, second = outputs
            if first is g:
                return None if second is g else [True, False]
            return [False, True] if second is g else None
    handed = list(declared) if declared is not None else None
    n = len(outputs)
    if flags:
        for k, g in enumerate(grads):
            if g is not None and flags[k]:
                hit = -1  # the one output that is ``g`` (-2: several)
                for i in range(n):
                    if outputs[i] is g:
                        hit = i if hit == -1 else -2
                if hit >= 0:
                    if handed is None:
                        handed = [False] * n
                    handed[hit] = True
    if handed is not None and n > 1:  # one buffer reaching two outputs is nobody's alone
        for i in range(n):
            if handed[i]:
                o = outputs[i]
                for j in range(n):
                    if j != i and outputs[j] is o:
                        handed[i] = False
                        break
    return handed
