"""In-place variants written as "compute the out-of-place result, then write it back".

``x.masked_fill_(mask, v)`` is ``x.copy_(masked_fill(x, mask, v))`` under its own name: the
result is computed first (so bad input raises before anything is written), then it goes
through ``inplace.inplace_write`` with a ``CopyBackwards`` node. The gradient of the old
value of ``x`` flows through the out-of-place op's own graph, so a write through a view
rebases its base onto ``CopySlices`` exactly as any other in-place op. Ops whose backward
saves their input must be given a clone of ``x`` (its version changes with the write).

Where PyTorch's in-place op records the out-of-place op's own node (``cumsum_``:
``CumsumBackward0``, ``scatter_``: ``ScatterBackward0``), the caller names it and the other
differentiable inputs in the node's edge order; when the result's node is that one, it is
recorded as the write's node in place of ``CopyBackwards``: its first edge becomes ``x``'s
old history (what it saved, a clone of ``x`` where it saves one, stays as it is). A node
that saves its result (``cumprod_``: ``CumprodBackward0``, last in what it saved) saves
``x`` itself after the write instead, as PyTorch's (``saves_result``): a later write to
``x`` makes backward raise.
"""

from __future__ import annotations

from typing import Callable

from .. import copying
from ..autograd.node import Node, SavedTensor
from ..tensor import Tensor
from .copy_slices import CopyBackwards
from .inplace import inplace_write


def write_result(op: str, self: Tensor, result: Tensor, node: str | None = None,
                 others: tuple[Tensor | None, ...] = (), saves_result: bool = False) -> Tensor:
    """Write ``result`` (``self``'s shape) into ``self`` as the in-place op ``op``; ``node``:
    the name of the result's node to record instead of ``CopyBackwards`` (with ``others``,
    its inputs after ``self``; ``saves_result``: the node's last saved value is its result,
    see above)."""
    if result._sizes != self._sizes:
        raise RuntimeError(
            f"{op}: the result of shape {list(result._sizes)} doesn't match the in-place "
            f"tensor of shape {list(self._sizes)} (broadcasting can't change the shape of "
            "the tensor written in place)"
        )
    if result._storage is self._storage:  # a no-op result that aliases self
        return self
    own = result._grad_fn
    if node is not None and own is not None and own.name() == node and result.dtype == self.dtype \
            and len(own._next) == 1 + len(others):
        return inplace_write(op, self, (self, *others), lambda: copying.copy_into(self, result, op),
                             lambda: own, _saving_self(self) if saves_result else None, write_bumps=True)
    return inplace_write(
        op, self, (self, result), lambda: copying.copy_into(self, result, op), CopyBackwards,
        write_bumps=True,
    )


def _saving_self(written: Tensor) -> Callable[[Node], None]:
    """A ``save_output``: the node's saved result (its last saved value) becomes ``written``,
    the node's output 0, at its version after the write."""

    def save(node: Node) -> None:
        node.saved = node.saved[:-1] + (SavedTensor(written, node, 0),)  # type: ignore[attr-defined]

    return save
