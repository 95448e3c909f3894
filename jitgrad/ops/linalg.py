"""Matrix products: ``dot``, ``mv``, ``mm``, ``bmm`` and ``matmul``, which dispatches to them
by the operands' dimensions exactly as PyTorch's ``matmul`` does (so the graph has the same
nodes: ``DotBackward0``, ``MvBackward0``, ``MmBackward0``, ``BmmBackward0``, and
``UnsafeViewBackward0`` where batches are folded or flattened).

Each backward is itself a product of the same kind (``mm``'s gradients are ``mm``s), so
double backward needs nothing more. As in PyTorch, both operands must have the same dtype
(no promotion), integer products are allowed, bool ones are not.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .. import dtypes
from .._quiet import quiet
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, SavingNode
from ..geometry import Geometry, broadcast_shapes, contiguous_strides
from ..geometry import views as vg
from ..tensor import Tensor
from .operands import new_tensor
from .elementwise import mul
from .view_ops import UnsafeViewBackward0

_NAMES = {dtypes.float32: "float", dtypes.float64: "double", dtypes.int64: "long int"}


def _check(op: str, a: Any, b: Any) -> None:
    for x in (a, b):
        if not isinstance(x, Tensor):
            raise TypeError(f"{op}(): expected Tensor arguments, got {type(x).__name__}")
    if a.dtype != b.dtype:
        raise RuntimeError(
            f"{op}: expected both operands to have the same dtype, but got "
            f"{_NAMES.get(a.dtype, a.dtype.name)} != {_NAMES.get(b.dtype, b.dtype.name)}"
        )
    if a.dtype == dtypes.bool_:
        raise NotImplementedError(f"{op}: not implemented for bool tensors")


def _product(a: Tensor, b: Tensor, sizes: tuple[int, ...]) -> Tensor:
    out, view = new_tensor(sizes, a.dtype)
    with quiet():  # overflow to inf, silently, as in PyTorch
        np.matmul(a._numpy(), b._numpy(), out=view)
    return out


class _ProductBackward(SavingNode):
    """Saves each operand only when the other one's gradient is wanted."""

    def record(self, a: Tensor, b: Tensor, out: Tensor) -> None:
        record(self, (a, b), (out,))
        self.save(a if self.needs_input_grad(1) else None, b if self.needs_input_grad(0) else None)


class DotBackward0(_ProductBackward):
    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        a, b = self.unpack()
        g = grads[0]
        return (
            mul(g, b) if self.needs_input_grad(0) else None,
            mul(g, a) if self.needs_input_grad(1) else None,
        )


def dot(input: Tensor, other: Tensor) -> Tensor:
    """The inner product of two 1-D tensors."""
    _check("dot", input, other)
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(
            f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors"
        )
    if input._sizes != other._sizes:
        n, m = input._sizes[0], other._sizes[0]
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same "
            f"number of elements, but got {n} and {m} elements respectively"
        )
    out = _product(input, other, ())
    if needs_grad(input, other):
        DotBackward0().record(input, other, out)
    return out


class MvBackward0(_ProductBackward):
    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        mat, vec = self.unpack()
        g = grads[0]
        return (
            mul(g.unsqueeze(1), vec) if self.needs_input_grad(0) else None,  # type: ignore[union-attr]
            mv(mat.t(), g) if self.needs_input_grad(1) else None,  # type: ignore[arg-type]
        )


def mv(input: Tensor, vec: Tensor) -> Tensor:
    """Matrix (n, m) times vector (m,)."""
    _check("mv", input, vec)
    if input.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(
            f"vector + matrix @ vector expected, got 1, {input.ndim}, {vec.ndim}"
        )
    n, m = input._sizes
    if vec._sizes[0] != m:
        raise RuntimeError(
            f"size mismatch, got input ({n}), mat ({n}x{m}), vec ({vec._sizes[0]})"
        )
    out = _product(input, vec, (n,))
    if needs_grad(input, vec):
        MvBackward0().record(input, vec, out)
    return out


class MmBackward0(_ProductBackward):
    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        a, b = self.unpack()
        g = grads[0]
        return (
            mm(g, b.t()) if self.needs_input_grad(0) else None,  # type: ignore[arg-type]
            mm(a.t(), g) if self.needs_input_grad(1) else None,  # type: ignore[arg-type]
        )


def mm(input: Tensor, mat2: Tensor) -> Tensor:
    """Matrix (n, k) times matrix (k, m)."""
    _check("mm", input, mat2)
    if input.ndim != 2 or mat2.ndim != 2:
        raise RuntimeError(f"mm: expected 2-D tensors, got {input.ndim}D and {mat2.ndim}D")
    (n, k), (k2, m) = input._sizes, mat2._sizes
    if k != k2:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{m})")
    out = _product(input, mat2, (n, m))
    if needs_grad(input, mat2):
        MmBackward0().record(input, mat2, out)
    return out


class BmmBackward0(_ProductBackward):
    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        a, b = self.unpack()
        g = grads[0]
        return (
            bmm(g, b.transpose(1, 2)) if self.needs_input_grad(0) else None,  # type: ignore[arg-type]
            bmm(a.transpose(1, 2), g) if self.needs_input_grad(1) else None,  # type: ignore[arg-type]
        )


def bmm(input: Tensor, mat2: Tensor) -> Tensor:
    """Batches of matrices (b, n, k) times (b, k, m), without broadcasting."""
    _check("bmm", input, mat2)
    if input.ndim != 3 or mat2.ndim != 3:
        raise RuntimeError(
            f"bmm: expected 3-D tensors, got {input.ndim}D and {mat2.ndim}D"
        )
    (b, n, k), (b2, k2, m) = input._sizes, mat2._sizes
    if (b2, k2) != (b, k):
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{b}, {k}] but "
            f"got: [{b2}, {k2}]."
        )
    out = _product(input, mat2, (b, n, m))
    if needs_grad(input, mat2):
        BmmBackward0().record(input, mat2, out)
    return out


def _unsafe_view(self: Tensor, sizes: tuple[int, ...], strides: tuple[int, ...] | None = None) -> Tensor:
    """``self`` (a fresh contiguous product, or ``strides`` given) seen with ``sizes``; not a
    view for autograd purposes (PyTorch's ``_unsafe_view``), since nothing else can see
    ``self`` (or, for an op's input, the result stays inside the op)."""
    out = Tensor._make(self._storage, sizes, contiguous_strides(sizes) if strides is None else strides,
                       self._offset)
    if needs_grad(self):
        rel = vg.view(Geometry(self._sizes, contiguous_strides(self._sizes), 0), sizes)
        record(UnsafeViewBackward0(self._sizes, rel), (self,), (out,))
    return out


def _prod(sizes: Sequence[int]) -> int:
    n = 1
    for s in sizes:
        n *= s
    return n


def matmul(input: Tensor, other: Tensor) -> Tensor:
    """PyTorch's ``matmul``: dot, matrix-vector, matrix-matrix, or a batched product with the
    batch dims broadcast (a 1-D operand is a row / column that is dropped from the result)."""
    _check("matmul", input, other)
    da, db = input.ndim, other.ndim
    if da == 0 or db == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D"
        )
    if da == 1 and db == 1:
        return dot(input, other)
    if da == 2 and db == 1:
        return mv(input, other)
    if da == 1 and db == 2:
        return mm(input.unsqueeze(0), other).squeeze_(0)  # type: ignore[attr-defined]  # (in place, as PyTorch: SqueezeBackward4)
    if da == 2 and db == 2:
        return mm(input, other)
    if da >= 3 and db <= 2:
        # fold the batch into the rows: one mm (or mv) instead of a batch of them
        lead = input._sizes[:-1]
        folded = input.reshape(_prod(lead), input._sizes[-1])  # type: ignore[attr-defined]
        if db == 2:
            return _unsafe_view(mm(folded, other), lead + other._sizes[1:])
        return _unsafe_view(mv(folded, other), lead)
    # batched: broadcast the batch dims, flatten them, bmm, and unflatten
    n = input._sizes[-2] if da > 1 else 1
    k = input._sizes[-1]
    k2 = other._sizes[-2] if db > 1 else other._sizes[0]
    p = other._sizes[-1] if db > 1 else 1
    batch = broadcast_shapes(input._sizes[:-2], other._sizes[:-2] if db > 1 else ())
    b = _prod(batch)
    a3 = input.expand(batch + (n, k)).reshape(b, n, k)  # type: ignore[attr-defined]
    if db == 1:
        b3 = other.expand(batch + (k2,)).reshape(b, k2).unsqueeze(2)  # type: ignore[attr-defined]
    else:
        b3 = other.expand(batch + (k2, p)).reshape(b, k2, p)  # type: ignore[attr-defined]
    out = bmm(a3, b3)
    if db == 1:
        out = out.squeeze(-1)  # type: ignore[attr-defined]
    sizes = batch + ((n,) if da > 1 else ()) + ((p,) if db > 1 else ())
    return _unsafe_view(out, sizes)
