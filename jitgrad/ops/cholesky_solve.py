"""``cholesky_solve(B, L, upper=False)``: the ``X`` with ``(L L^T) X = B`` from a Cholesky
factor (``U^T U`` with ``upper=True``), batched with broadcasting over leading dims.

The forward is two triangular solves; the backward is PyTorch's (``cholesky_solve_backward``
in ``FunctionsManual.cpp``): ``gB = cholesky_solve(g, L)``, and with ``S = gB X^T + X gB^T``,
``gL = -S L`` (``-U S`` for ``upper``) on the whole matrix, written with differentiable ops
so gradients of gradients follow.
"""

from __future__ import annotations

import numpy as np

from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, SavingNode
from ..tensor import Tensor
from .operands import from_result
from .decompositions import LinAlgError, check_float, mT
from .elementwise import add, mul
from .linalg import matmul


class CholeskySolveBackward0(SavingNode):
    def __init__(self, upper: bool) -> None:
        super().__init__()
        self.upper = upper

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        _, L, X, _ = self.unpack()  # (``self``: saved as PyTorch saves it, not needed)
        gB = cholesky_solve(grads[0], L, upper=self.upper)  # type: ignore[arg-type]
        gL = None
        if self.needs_input_grad(1):
            common = matmul(gB, mT(X))
            common = add(common, mT(common))
            gL = mul(matmul(L, common) if self.upper else matmul(common, L), -1)
        return (gB if self.needs_input_grad(0) else None, gL)


def cholesky_solve(input: Tensor, input2: Tensor, upper: bool = False, *, out: None = None) -> Tensor:
    """Solve ``A X = input`` for ``A = L L^T`` given ``L = input2`` (``U^T U``, ``U = input2``,
    with ``upper``). Both need at least 2 dims; batch dims broadcast."""
    op = "cholesky_solve"
    if out is not None:
        raise TypeError(f"{op}(): out= is not supported by jitgrad")
    check_float(op, input, "input")
    check_float(op, input2, "input2")
    if input.dtype != input2.dtype:
        raise RuntimeError(
            f"{op}: Expected b and A to have the same dtype, but found b of type "
            f"{input.dtype.name} and A of type {input2.dtype.name} instead."
        )
    if input.ndim < 2 or input2.ndim < 2:
        raise RuntimeError(
            f"{op}: input and input2 must have at least 2 dimensions, got {input.ndim} and {input2.ndim}"
        )
    n = input2.shape[-1]
    if input2.shape[-2] != n:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are "
                           f"{input2.shape[-2]} by {n} matrices")
    if input.shape[-2] != n:
        raise RuntimeError(
            f"{op}: Incompatible matrix sizes for cholesky_solve: each A matrix is {n} by {n} "
            f"but each b matrix is {input.shape[-2]} by {input.shape[-1]}"
        )
    b, f = input._numpy(), input2._numpy()
    try:
        batch = np.broadcast_shapes(b.shape[:-2], f.shape[:-2])
    except ValueError:
        raise RuntimeError(
            f"{op}: the batch dims of input {list(input.shape)} and input2 {list(input2.shape)} "
            "are not broadcastable"
        ) from None
    b = np.broadcast_to(b, batch + b.shape[-2:])
    f = np.broadcast_to(f, batch + f.shape[-2:])
    lower = np.swapaxes(np.triu(f), -1, -2) if upper else np.tril(f)
    try:
        with np.errstate(all="ignore"):
            y = np.linalg.solve(lower, b)
            x = np.linalg.solve(np.swapaxes(lower, -1, -2), y)
    except np.linalg.LinAlgError:
        raise LinAlgError(f"{op}: the Cholesky factor is singular (a zero on its diagonal)") from None
    out_t = from_result(x, input.dtype)
    if needs_grad(input, input2):
        node = CholeskySolveBackward0(upper)
        record(node, (input, input2), (out_t,))
        node.save(input, input2, out_t, bool(upper), outputs=(out_t,))
    return out_t
