"""``cdist``: the p-norm distance between every row of ``x1`` and every row of ``x2``.

``p = 2`` has a node of its own (``CdistBackward0``): the forward takes PyTorch's route
(exact differences for at most 25 rows on each side, else ``|x|^2 + |y|^2 - 2 x y^T`` through
a matrix product, per ``compute_mode``), and the backward is written with matrix products,
``W = g / d`` (0 where ``d == 0``, PyTorch's subgradient), ``grad_x1 = x1 * rowsum(W) - W x2``
— O((P + R) M) memory instead of the O(P R M) of the differences. It is differentiable
again (PyTorch's ``_cdist_backward`` is not). Other ``p`` are ``vector_norm`` of the
broadcast differences, whose backward is PyTorch's ``norm_backward``.
"""

from __future__ import annotations

import math

import numpy as np

from .. import dtypes
from .._quiet import quiet
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, SavingNode
from ..tensor import Tensor
from .operands import from_result
from .compare import eq, where
from .decompositions import mT
from .elementwise import div, mul, sub
from .linalg import matmul
from .norms import as_ord, vector_norm
from .reduction import sum as sum_

_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
          "donot_use_mm_for_euclid_dist")


class CdistBackward0(SavingNode):
    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        x1, x2, d = self.unpack()
        w = where(eq(d, 0), 0.0, div(grads[0], d))  # type: ignore[arg-type]
        wt = mT(w)
        return (
            sub(mul(x1, sum_(w, -1, keepdim=True)), matmul(w, x2)) if self.needs_input_grad(0) else None,
            sub(mul(x2, sum_(wt, -1, keepdim=True)), matmul(wt, x1)) if self.needs_input_grad(1) else None,
        )


def _euclidean(x1: Tensor, x2: Tensor, use_mm: bool) -> Tensor:
    a, b = x1._numpy(), x2._numpy()
    with quiet():
        if use_mm:
            sq = (a * a).sum(-1)[..., :, None] + (b * b).sum(-1)[..., None, :]
            sq -= 2 * (a @ np.swapaxes(b, -1, -2))
            value = np.sqrt(np.maximum(sq, 0))
        else:
            diff = a[..., :, None, :] - b[..., None, :, :]
            value = np.sqrt((diff * diff).sum(-1))
    out = from_result(np.asarray(value), x1.dtype)
    if needs_grad(x1, x2):
        node = CdistBackward0()
        record(node, (x1, x2), (out,))
        node.save(x1, x2, out, outputs=(out,))
    return out


def _check(x1: Tensor, x2: Tensor, p: float, compute_mode: str) -> float:
    for name, t in (("X1", x1), ("X2", x2)):
        if not isinstance(t, Tensor):
            raise TypeError(f"cdist(): argument '{name.lower()}' must be a Tensor, got {type(t).__name__}")
        if t.dtype not in dtypes.FLOATING:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {t.dtype.name}")
        if t.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {t.ndim}D")
    if x1.dtype != x2.dtype:
        raise RuntimeError(
            f"cdist: X1 and X2 must have the same dtype, got {x1.dtype.name} and {x2.dtype.name}"
        )
    if x1._sizes[-1] != x2._sizes[-1]:
        raise RuntimeError(
            f"X1 and X2 must have the same number of columns. X1: {x1._sizes[-1]} X2: {x2._sizes[-1]}"
        )
    if compute_mode not in _MODES:
        raise ValueError(
            f"cdist: {compute_mode} is not a valid value for compute_mode; expected one of {_MODES}"
        )
    pf = as_ord("cdist", p)
    if pf < 0 or math.isnan(pf):
        raise RuntimeError(f"cdist only supports non-negative p values, got {p}")
    return pf


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0,
          compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """``||x1[..., i, :] - x2[..., j, :]||_p`` for every pair of rows (batch dims broadcast)."""
    pf = _check(x1, x2, p, compute_mode)
    if pf == 2.0:
        rows1, rows2 = x1._sizes[-2], x2._sizes[-2]
        if compute_mode == "use_mm_for_euclid_dist":
            use_mm = True
        elif compute_mode == "donot_use_mm_for_euclid_dist":
            use_mm = False
        else:
            use_mm = rows1 > 25 or rows2 > 25
        batch = np.broadcast_shapes(x1._sizes[:-2], x2._sizes[:-2])
        if x1._sizes[:-2] != batch or x2._sizes[:-2] != batch:
            x1 = x1.expand(batch + x1._sizes[-2:])  # type: ignore[attr-defined]
            x2 = x2.expand(batch + x2._sizes[-2:])  # type: ignore[attr-defined]
        return _euclidean(x1, x2, use_mm)
    diff = sub(x1.unsqueeze(-2), x2.unsqueeze(-3))  # type: ignore[attr-defined]
    if pf == 0.0 and needs_grad(diff):  # a count: PyTorch's gradient is zeros, not missing
        counts = vector_norm(diff.detach(), 0.0, -1)  # type: ignore[attr-defined]
        return where(from_result(np.ones(counts._sizes, dtype=dtypes.bool_)), counts, sum_(diff, -1))
    return vector_norm(diff, pf, -1)
