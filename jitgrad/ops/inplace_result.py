"""In-place variants written as "compute the out-of-place result, then write it back".

``x.masked_fill_(mask, v)`` is ``x.copy_(masked_fill(x, mask, v))`` under its own name: the
result is computed first (so bad input raises before anything is written), then it goes
through ``inplace.inplace_write`` with a ``CopyBackwards`` node. The gradient of the old
value of ``x`` flows through the out-of-place op's own graph, so a write through a view
rebases its base onto ``CopySlices`` exactly as any other in-place op. Ops whose backward
saves their input must be given a clone of ``x`` (its version changes with the write).
"""

from __future__ import annotations

from .. import copying
from ..tensor import Tensor
from .copy_slices import CopyBackwards
from .inplace import inplace_write


def write_result(op: str, self: Tensor, result: Tensor) -> Tensor:
    """Write ``result`` (``self``'s shape) into ``self`` as the in-place op ``op``."""
    if result._sizes != self._sizes:
        raise RuntimeError(
            f"{op}: the result of shape {list(result._sizes)} doesn't match the in-place "
            f"tensor of shape {list(self._sizes)} (broadcasting can't change the shape of "
            "the tensor written in place)"
        )
    if result._storage is self._storage:  # a no-op result that aliases self
        return self
    return inplace_write(
        op, self, (self, result), lambda: copying.copy_into(self, result, op), CopyBackwards,
        write_bumps=True,
    )
