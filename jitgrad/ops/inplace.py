"""The one path every differentiable in-place operation takes.

``x.op_(...)`` = check that ``x`` may be written, compute the result, write it into ``x``'s
memory, bump the version once, then rebase ``x``'s history: its ``grad_fn`` becomes the
op's backward node, whose first edge is ``x``'s previous edge. (Writes through views will
go through ``CopySlices`` here; see the view + in-place issue.)
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from ..autograd.graph import needs_grad, record
from ..autograd.node import Node
from ..copying import check_inplace
from ..tensor import Tensor
from ._common import check_inplace_dtype


def check_leaf(op: str, self: Tensor) -> None:
    if self._grad_fn is None and self._requires_grad:
        from ..autograd.grad_mode import is_grad_enabled

        if is_grad_enabled():
            raise RuntimeError(
                f"{op}: a leaf Variable that requires grad is being used in an in-place "
                "operation."
            )


def apply_inplace(
    op: str,
    self: Tensor,
    result: np.ndarray | Any,
    result_dtype: np.dtype,
    inputs: Sequence[Tensor | None],
    make_node: Callable[[], Node] | None,
    save_output: Callable[[Node], None] | None = None,
) -> Tensor:
    """Write ``result`` (already computed, broadcastable to ``self``) into ``self`` and record.

    ``inputs`` are the differentiable inputs (``self`` first); ``make_node`` builds the
    backward node (it must save what it needs from the *old* ``self`` before this runs);
    ``save_output`` saves the new value of ``self`` once written.
    """
    check_leaf(op, self)
    check_inplace_dtype(op, result_dtype, self)
    check_inplace(self, op)
    target = self.numpy()
    np.copyto(target, result, casting="unsafe")
    self._storage.bump(op)
    if make_node is not None and needs_grad(*inputs):
        node = make_node()
        record(node, inputs, (self,))
        if save_output is not None:
            save_output(node)
    return self
