"""Copies that rearrange elements: ``flip`` (``fliplr``, ``flipud``), ``roll``, ``rot90``,
``repeat``, ``tile``, ``tril``/``triu`` (and in place), ``diag``, ``diag_embed``,
``diagflat``, ``trace``, ``diff``, ``narrow_copy``.

``flip``, ``roll``, ``tril`` and ``triu`` have their own nodes (their backward is the same
op on the gradient), ``repeat``'s sums the copies back; the others are compositions of
differentiable views, copies and in-place writes into views, so their gradients (and second
derivatives) come from those.
"""

from __future__ import annotations

import numbers
from typing import Any, Sequence

import numpy as np

from .. import dtypes
from ..autograd.grad_mode import no_grad
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, Node
from ..creation import empty_like, zeros
from ..geometry.strided import as_int, wrap_dim
from ..tensor import Tensor
from .operands import array_of, from_result
from .compare import logical_xor, where
from .elementwise import sub
from .inplace_result import write_result
from .reduction import sum as sum_
from .stacking import cat
from .structure import clone
from .view_ops import diagonal as diagonal_view
from .view_ops import narrow, reshape


def _dims(op: str, self: Tensor, dims: Any, wrap_scalar: bool = True) -> tuple[int, ...]:
    if len(dims) == 1 and not isinstance(dims[0], numbers.Integral):
        dims = tuple(dims[0])
    wrapped = tuple(wrap_dim(d, self.ndim, op, wrap_scalar) for d in dims)
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError(f"{op}(): dims {list(dims)} has a dim appearing multiple times")
    return wrapped


# -- flip --------------------------------------------------------------------------------------
class FlipBackward0(Node):
    def __init__(self, dims: tuple[int, ...]) -> None:
        super().__init__()
        self.dims = dims

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        return (flip(grads[0], self.dims),)  # type: ignore[arg-type]


def flip(input: Tensor, *dims: Any) -> Tensor:
    """A copy with the order of elements reversed along ``dims``."""
    if not dims:
        raise TypeError('flip() missing 1 required positional arguments: "dims"')
    d = _dims("flip", input, dims)
    out = from_result(np.flip(input._numpy(), d) if input.ndim else input._numpy())
    if needs_grad(input):
        record(FlipBackward0(d), (input,), (out,))
    return out


def fliplr(input: Tensor) -> Tensor:
    if input.ndim < 2:
        raise RuntimeError(f"fliplr(): Input must be >= 2-d, got {input.ndim}-d")
    return flip(input, 1)


def flipud(input: Tensor) -> Tensor:
    if input.ndim < 1:
        raise RuntimeError("flipud(): Input must be >= 1-d, got 0-d")
    return flip(input, 0)


# -- roll --------------------------------------------------------------------------------------
class RollBackward0(Node):
    def __init__(self, shifts: tuple[int, ...], dims: tuple[int, ...] | None) -> None:
        super().__init__()
        self.shifts = shifts
        self.dims = dims

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        return (roll(grads[0], tuple(-s for s in self.shifts), self.dims),)  # type: ignore[arg-type]


def roll(input: Tensor, shifts: Any, dims: Any = None) -> Tensor:
    """Elements shifted cyclically along ``dims`` (the flattened tensor when None)."""
    listed = shifts if isinstance(shifts, (tuple, list)) else (shifts,)
    shift = tuple(as_int("roll", "shifts", s) for s in listed)
    if dims is None:
        if len(shift) != 1:
            raise RuntimeError(f"roll(): shifts and dimensions must align. shifts: {len(shift)}, dims: 0")
        out = from_result(np.roll(input._numpy(), shift[0]).reshape(input._sizes))
        d: tuple[int, ...] | None = None
    else:
        listed_dims = (dims,) if isinstance(dims, (tuple, list)) else ((dims,),)
        d = _dims("roll", input, listed_dims, wrap_scalar=False)  # a 0-d tensor has no dim 0 here
        if len(shift) != len(d):
            raise RuntimeError(
                f"roll(): shifts and dimensions must align. shifts: {len(shift)}, dims: {len(d)}"
            )
        out = from_result(np.roll(input._numpy(), shift, d) if input.ndim else input._numpy())
    if needs_grad(input):
        record(RollBackward0(shift, d), (input,), (out,))
    return out


class Rot90Backward0(Node):
    """Backward of ``rot90``: the gradient rotated back."""

    def __init__(self, k: int, dims: tuple[int, int]) -> None:
        super().__init__()
        self.k, self.dims = k, dims

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        return (rot90(grads[0], -self.k, self.dims),)  # type: ignore[arg-type]


def rot90(input: Tensor, k: int = 1, dims: Sequence[int] = (0, 1)) -> Tensor:
    """Rotated by 90° ``k`` times in the plane of ``dims`` (from the first towards the second):
    a flipped copy, transposed in place for an odd ``k`` (a new tensor, not a view, as
    PyTorch's), recorded as ``Rot90Backward0``."""
    if len(dims) != 2:
        raise RuntimeError(f"rot90(): expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"rot90(): expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = (wrap_dim(d, input.ndim, "rot90") for d in dims)
    if d0 == d1:
        raise RuntimeError(
            f"rot90(): expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}"
        )
    k = as_int("rot90", "k", k) % 4
    with no_grad():
        if k in (1, 3):
            flipped = flip(input, d1 if k == 1 else d0)
            sizes, strides = list(flipped._sizes), list(flipped._strides)
            sizes[d0], sizes[d1], strides[d0], strides[d1] = sizes[d1], sizes[d0], strides[d1], strides[d0]
            out = Tensor._make(flipped._storage, tuple(sizes), tuple(strides), flipped._offset)
        elif k == 2:
            out = flip(input, d0, d1)
        else:
            out = clone(input, memory_format="contiguous_format")
    if needs_grad(input):
        record(Rot90Backward0(k, (d0, d1)), (input,), (out,))
    return out


# -- repeat, tile --------------------------------------------------------------------------------
def _sizes_arg(op: str, sizes: Any) -> tuple[int, ...]:
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    return tuple(as_int(op, "repeats", s) for s in sizes)


def repeat(input: Tensor, *sizes: Any) -> Tensor:
    """``input`` tiled ``sizes[i]`` times along dim ``i`` (leading new dims allowed)."""
    reps = _sizes_arg("repeat", sizes)
    if len(reps) < input.ndim:
        raise RuntimeError(
            "repeat(): Number of dimensions of repeat dims can not be smaller than number of "
            f"dimensions of tensor (got {len(reps)} repeat dims for a {input.ndim}-d tensor)"
        )
    if any(r < 0 for r in reps):
        raise RuntimeError(f"repeat(): repeats can not be negative, got {list(reps)}")
    shape = (1,) * (len(reps) - input.ndim) + input._sizes
    out = from_result(np.tile(input._numpy().reshape(shape), reps))
    if needs_grad(input):
        record(RepeatBackward0(input._sizes, reps, shape), (input,), (out,))
    return out


class RepeatBackward0(Node):
    """The gradient of each copy summed back: ``grad`` seen as ``(r0, s0, r1, s1, ...)``,
    summed over the ``r`` dims."""

    def __init__(
        self, input_sizes: tuple[int, ...], reps: tuple[int, ...], shape: tuple[int, ...]
    ) -> None:
        super().__init__()
        self.input_sizes = input_sizes
        self.reps = reps
        self.shape = shape

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        assert g is not None
        spread = tuple(x for r, s in zip(self.reps, self.shape) for x in (r, s))
        summed = sum_(reshape(g, spread), tuple(range(0, len(spread), 2)))
        return (reshape(summed, self.input_sizes),)


def tile(input: Tensor, *dims: Any) -> Tensor:
    if not dims:
        raise TypeError('tile() missing 1 required positional arguments: "dims"')
    reps = _sizes_arg("tile", dims)
    return repeat(input, (1,) * (input.ndim - len(reps)) + reps)


# -- tril, triu --------------------------------------------------------------------------------
class TrilBackward0(Node):
    def __init__(self, diagonal: int) -> None:
        super().__init__()
        self.diagonal = diagonal

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        return (tril(grads[0], self.diagonal),)  # type: ignore[arg-type]


class TriuBackward0(TrilBackward0):
    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        return (triu(grads[0], self.diagonal),)  # type: ignore[arg-type]


def _triangle(op: str, fn: Any, node_cls: type, input: Tensor, diagonal: int) -> Tensor:
    if input.ndim < 2:
        raise RuntimeError(f"{op}(): input tensor must have at least 2 dimensions, got {input.ndim}")
    k = as_int(op, "diagonal", diagonal)
    out = from_result(fn(input._numpy(), k))
    if needs_grad(input):
        record(node_cls(k), (input,), (out,))
    return out


def tril(input: Tensor, diagonal: int = 0) -> Tensor:
    """The lower triangle (``j - i <= diagonal``) of the last two dims; the rest zero."""
    return _triangle("tril", np.tril, TrilBackward0, input, diagonal)


def triu(input: Tensor, diagonal: int = 0) -> Tensor:
    """The upper triangle (``j - i >= diagonal``) of the last two dims; the rest zero."""
    return _triangle("triu", np.triu, TriuBackward0, input, diagonal)


def tril_(self: Tensor, diagonal: int = 0) -> Tensor:
    return write_result("tril_", self, tril(self, diagonal), "TrilBackward0")


def triu_(self: Tensor, diagonal: int = 0) -> Tensor:
    return write_result("triu_", self, triu(self, diagonal), "TriuBackward0")


# -- diagonals ---------------------------------------------------------------------------------
class DiagEmbedBackward0(Node):
    """Backward of ``diag_embed`` (``diag`` of a vector, ``diagflat``): the diagonal it wrote."""

    def __init__(self, offset: int, dim1: int, dim2: int) -> None:
        super().__init__()
        self.offset, self.dim1, self.dim2 = offset, dim1, dim2

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        return (diagonal_view(grads[0], self.offset, self.dim1, self.dim2),)  # type: ignore[arg-type]


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Zeros with the last dim of ``input`` written on the ``offset`` diagonal of the plane
    (``dim1``, ``dim2``) of a tensor one dim larger (``DiagEmbedBackward0``, as PyTorch)."""
    nd = input.ndim + 1
    d1, d2 = wrap_dim(dim1, nd, "diag_embed"), wrap_dim(dim2, nd, "diag_embed")
    if d1 == d2:
        raise RuntimeError(f"diag_embed(): diagonal dimensions cannot be identical {dim1}, {dim2}")
    offset = as_int("diag_embed", "offset", offset)
    n = (input._sizes or (1,))[-1] + abs(offset)
    rest = list(input._sizes[:-1])
    shape = []
    for d in range(nd):
        shape.append(n if d in (d1, d2) else rest.pop(0))
    out = zeros(tuple(shape), dtype=input.dtype)
    with no_grad():  # (written into the new memory: no version bump, as PyTorch's kernel)
        np.copyto(array_of(diagonal_view(out, offset, d1, d2)), input._numpy())
    if needs_grad(input):
        record(DiagEmbedBackward0(offset, d1, d2), (input,), (out,))
    return out


def diag(input: Tensor, diagonal: int = 0) -> Tensor:
    """A 1-D ``input`` on the ``diagonal`` of a square matrix, or that diagonal (a copy) of a
    2-D ``input``."""
    k = as_int("diag", "diagonal", diagonal)
    if input.ndim == 1:
        return diag_embed(input, k, 0, 1)
    if input.ndim == 2:
        with no_grad():
            out = clone(diagonal_view(input, k), memory_format="contiguous_format")
        if needs_grad(input):
            record(DiagonalBackward0_copy(input._sizes, k), (input,), (out,))
        return out
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")


class DiagonalBackward0_copy(Node):  # (PyTorch's name: diag of a matrix is diagonal_copy)
    """Backward of ``diag`` of a matrix: the gradient on that diagonal of zeros."""

    def __init__(self, sizes: tuple[int, ...], offset: int) -> None:
        super().__init__()
        self.sizes, self.offset = sizes, offset

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        out = zeros(self.sizes, dtype=g.dtype)
        diagonal_view(out, self.offset).copy_(g)  # type: ignore[attr-defined]
        return (out,)


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    return diag_embed(reshape(input, -1), offset, 0, 1)


class TraceBackward0(Node):
    """Backward of ``trace``: the gradient on the main diagonal, zeros elsewhere."""

    def __init__(self, sizes: tuple[int, ...]) -> None:
        super().__init__()
        self.sizes = sizes

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        return (where(from_result(np.eye(*self.sizes, dtype=np.bool_)), grads[0], 0.0),)


def trace(input: Tensor) -> Tensor:
    """The sum of the main diagonal of a matrix (``TraceBackward0``, as PyTorch)."""
    if input.ndim != 2:
        raise RuntimeError(f"trace(): expected a matrix, but got tensor with dim {input.ndim}")
    with no_grad():
        out = sum_(diagonal_view(input))
    if needs_grad(input):
        record(TraceBackward0(input._sizes), (input,), (out,))
    return out


# -- diff, narrow_copy ---------------------------------------------------------------------------
def diff(input: Tensor, n: int = 1, dim: int = -1, prepend: Tensor | None = None,
         append: Tensor | None = None) -> Tensor:
    """The ``n``-th forward difference along ``dim`` (``logical_xor`` for bool tensors),
    after joining ``prepend`` and ``append``."""
    if input.ndim == 0:
        raise RuntimeError("diff(): expects input to be at least one-dimensional")
    n = as_int("diff", "n", n)
    if n < 0:
        raise RuntimeError(f"diff(): order must be non-negative but got {n}")
    d = wrap_dim(dim, input.ndim, "diff")
    if n == 0:  # (as PyTorch: a copy of input into an empty_like, prepend and append left out)
        return empty_like(input).copy_(input)  # type: ignore[attr-defined,no-any-return]
    parts = [p for p in (prepend, input, append) if p is not None]
    x = cat(parts, d) if len(parts) > 1 else input
    for _ in range(n):
        m = x._sizes[d]
        if m == 0:
            break
        hi, lo = narrow(x, d, 1, m - 1), narrow(x, d, 0, m - 1)
        x = logical_xor(hi, lo) if x.dtype == dtypes.bool_ else sub(hi, lo)
    return x


def narrow_copy(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    return clone(narrow(input, dim, start, length), memory_format="contiguous_format")
