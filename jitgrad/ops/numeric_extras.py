"""More of PyTorch's composite functions, written with differentiable ops so gradients
follow: ``gradient`` (central differences, one- or two-sided second-order edges, uniform
or coordinate spacing), ``vander``, ``combinations``, ``ldexp``, and the integer helpers
``unravel_index`` and ``frexp``."""

from __future__ import annotations

import itertools
import math
from typing import Any, Sequence

import numpy as np

from .. import dtypes
from ..autograd.grad_mode import no_grad
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, Node, SavingNode
from ..tensor import Tensor


def _as_float(t: Tensor) -> Tensor:
    return t if t.dtype in dtypes.FLOATING else t.to(dtypes.DEFAULT_FLOAT)  # type: ignore[attr-defined,no-any-return]


def gradient(input: Tensor, *, spacing: Any = 1.0, dim: Any = None, edge_order: int = 1) -> tuple[Tensor, ...]:
    """The derivative estimated along each of ``dim`` (all dims by default): central
    differences inside, one-sided differences of order ``edge_order`` (1 or 2) at the ends.
    ``spacing``: one number, one number per dim, or one coordinate tensor per dim."""
    from .composites import divided as div_
    from .composites import scaled as mul_
    from .stacking import cat

    if edge_order not in (1, 2):
        raise RuntimeError(f"torch.gradient only supports edge_order=1 and edge_order=2, got {edge_order}")
    dims = list(range(input.ndim)) if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    dims = [d % input.ndim for d in dims]
    if isinstance(spacing, (int, float)) or (isinstance(spacing, Tensor) and spacing.ndim == 0):
        spacings: Sequence[Any] = [spacing] * len(dims)
    else:
        spacings = list(spacing)
        if len(spacings) != len(dims):
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or a list of length "
                               f"equal to 'self.dim() = {input.ndim}', since dim argument was not given, but got a "
                               f"list of length {len(spacings)}")
    f = _as_float(input)
    out = []
    for d, h in zip(dims, spacings):
        n = f.shape[d]
        if n < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")

        def part(start: int, length: int, d: int = d) -> Tensor:
            return f.narrow(d, start % n, length)  # type: ignore[attr-defined,no-any-return]

        if isinstance(h, Tensor) and h.ndim == 1:
            if h.shape[0] != n:
                raise RuntimeError(f"torch.gradient expected each tensor to be on the same device, and of size {n}")
            out.append(_coordinate_gradient(part, n, d, f.ndim, _as_float(h), edge_order, cat))
            continue
        step = h.item() if isinstance(h, Tensor) else h
        # (the numbers as PyTorch's C++ composite applies them: MulBackward1, DivBackward1)
        center = div_(div_(part(2, n - 2) - part(0, n - 2), step), 2)
        if edge_order == 1:
            first = div_(part(1, 1) - part(0, 1), step)
            last = div_(part(n - 1, 1) - part(n - 2, 1), step)
        else:
            first = div_(mul_(part(0, 1), -1.5) + mul_(part(1, 1), 2.0) - mul_(part(2, 1), 0.5), step)
            last = div_(mul_(part(n - 3, 1), 0.5) - mul_(part(n - 2, 1), 2.0) + mul_(part(n - 1, 1), 1.5), step)
        out.append(cat([first, center, last], d))
    return tuple(out)


def _coordinate_gradient(part: Any, n: int, d: int, ndim: int, x: Tensor, edge_order: int, cat: Any) -> Tensor:
    """Second-order differences on the coordinates ``x`` (non-uniform spacing)."""
    shape = [1] * ndim

    def along(t: Tensor) -> Tensor:
        s = list(shape)
        s[d] = t.shape[0]
        return t.reshape(s)  # type: ignore[attr-defined,no-any-return]

    dx = x.diff()  # type: ignore[attr-defined]
    h1, h2 = along(dx[:-1]), along(dx[1:])
    a = -h2 / (h1 * (h1 + h2))
    b = (h2 - h1) / (h1 * h2)
    c = h1 / (h2 * (h1 + h2))
    center = a * part(0, n - 2) + b * part(1, n - 2) + c * part(2, n - 2)
    if edge_order == 1:
        first = (part(1, 1) - part(0, 1)) / dx[0]
        last = (part(n - 1, 1) - part(n - 2, 1)) / dx[-1]
    else:
        p, q = dx[0], dx[1]
        first = (part(0, 1) * (-(2 * p + q) / (p * (p + q))) + part(1, 1) * ((p + q) / (p * q))
                 + part(2, 1) * (-p / (q * (p + q))))
        p, q = dx[-2], dx[-1]
        last = (part(n - 3, 1) * (q / (p * (p + q))) + part(n - 2, 1) * (-(q + p) / (p * q))
                + part(n - 1, 1) * ((2 * q + p) / (q * (p + q))))
    return cat([first, center, last], d)  # type: ignore[no-any-return]


def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:
    """The Vandermonde matrix of a 1-D ``x``: columns ``x ** (N - 1) .. x ** 0`` (increasing:
    the other way round)."""
    from .linalg_extras import vander as increasing_vander

    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else int(N)
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    if n == 0:
        return x.new_empty((x.shape[0], 0))  # type: ignore[attr-defined,no-any-return]
    out = increasing_vander(x, N=n)
    return out if increasing else out.flip(-1)  # type: ignore[attr-defined,no-any-return]


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """The ``r``-element combinations of a 1-D tensor's elements, as rows (in
    ``itertools.combinations`` order)."""
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return input.new_empty((0,))  # type: ignore[attr-defined,no-any-return]
    make = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = list(make(range(input.shape[0]), r))
    if not rows:
        return input.new_empty((0, r))  # type: ignore[attr-defined,no-any-return]
    from .. import creation

    index = creation.tensor(np.array(rows, dtype=np.int64).reshape(-1))
    return input.index_select(0, index).reshape(len(rows), r)  # type: ignore[attr-defined,no-any-return]


def unravel_index(indices: Any, shape: Any) -> tuple[Tensor, ...]:
    """The coordinates in a tensor of ``shape`` of flat ``indices`` (int64 tensors)."""
    from .. import creation

    values = indices._numpy() if isinstance(indices, Tensor) else np.asarray(indices)
    if values.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {values.dtype}")
    sizes = (shape,) if isinstance(shape, int) else tuple(shape)
    total = int(np.prod(sizes))
    if np.any(values < -total) or np.any(values >= total):
        raise RuntimeError("index is out of bounds for tensor with size " + str(total))
    coords = np.unravel_index(np.where(values < 0, values + total, values), sizes)
    return tuple(creation.tensor(np.asarray(c, dtype=np.int64)) for c in coords)


def frexp(input: Tensor) -> tuple[Tensor, Tensor]:
    """``input = mantissa * 2 ** exponent`` with ``0.5 <= |mantissa| < 1`` (int32 exponent)."""
    from .. import creation

    if input.dtype not in dtypes.FLOATING:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    m, e = np.frexp(input._numpy())
    mantissa, exponent = creation.tensor(m, dtype=input.dtype), creation.tensor(e.astype(np.int32))
    if needs_grad(input):
        node = FrexpBackward0()
        record(node, (input,), (mantissa,))
        node.save(exponent)
    return mantissa, exponent


class FrexpBackward0(SavingNode):
    """The mantissa's backward: ``grad / 2 ** exponent`` (the exponent has no gradient)."""

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        (exponent,) = self.unpack()
        return (grads[0] / (2.0 ** exponent.to(grads[0].dtype)),)  # type: ignore[operator,union-attr]


def ldexp(input: Tensor, other: Tensor) -> Tensor:
    """``input * 2 ** other``, recorded as PyTorch's ``LdexpBackward0`` (saving ``other`` and
    the result)."""
    with no_grad():
        out = input * (2.0 ** _as_float(other))  # type: ignore[operator]
    if needs_grad(input, other) and out.dtype in dtypes.FLOATING:
        node = LdexpBackward0()
        record(node, (input, other), (out,))
        node.save(other, out, outputs=(out,))
    return out  # type: ignore[no-any-return]


class LdexpBackward0(SavingNode):
    """``grad * 2 ** other`` to ``input``, ``grad * result * ln 2`` to ``other``."""

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        from .composites import scaled

        g = grads[0]
        other, result = self.unpack()
        return (g * (2.0 ** _as_float(other)) if self.needs_input_grad(0) else None,  # type: ignore[operator]
                scaled(g * result, math.log(2.0)) if self.needs_input_grad(1) else None)  # type: ignore[operator]


class _ScatterIntoBackward(Node):
    """Backward of ``src`` written over ``view(input)`` (a copy): ``input`` gets the gradient
    with that view zeroed (the op again, so a second derivative records it too), ``src`` the
    gradient's view."""

    def __init__(self, scatter: Any, view: Any) -> None:
        super().__init__()
        self.scatter, self.view = scatter, view

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        from ..creation import zeros_like

        g = grads[0]
        part = self.view(g)
        return (self.scatter(g, zeros_like(part)) if self.needs_input_grad(0) else None,
                part if self.needs_input_grad(1) else None)


class SliceScatterBackward0(_ScatterIntoBackward):
    pass


class SelectScatterBackward0(_ScatterIntoBackward):
    pass


class DiagonalScatterBackward0(_ScatterIntoBackward):
    pass


def _scatter_into(node: type[_ScatterIntoBackward], scatter: Any, input: Tensor, view: Any, src: Tensor) -> Tensor:
    """A copy of ``input`` with ``view(copy)`` overwritten by ``src``, recorded as ``node``
    (PyTorch's one node for the op; ``scatter(input, src)`` makes it again)."""
    with no_grad():
        out = input.clone()  # type: ignore[attr-defined]
        part = view(out)
        if tuple(part.shape) != tuple(src.shape):
            raise RuntimeError(
                f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                f"slice size = {list(part.shape)}")
        part.copy_(src)
    if needs_grad(input, src):
        record(node(scatter, view), (input, src), (out,))
    return out  # type: ignore[no-any-return]


def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """``input`` with ``input.select(dim, index)`` replaced by ``src``."""
    return _scatter_into(SelectScatterBackward0, lambda i, s: select_scatter(i, s, dim, index), input,
                         lambda t: t.select(dim, index), src)


def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start: int | None = None, end: int | None = None,
                  step: int = 1) -> Tensor:
    """``input`` with the slice ``start:end:step`` of ``dim`` replaced by ``src``."""
    def view(t: Tensor) -> Tensor:
        index = [slice(None)] * t.ndim
        index[dim] = slice(start, end, step)
        return t[tuple(index)]  # type: ignore[index,no-any-return]

    return _scatter_into(SliceScatterBackward0, lambda i, s: slice_scatter(i, s, dim, start, end, step), input,
                         view, src)


def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """``input`` with its diagonal (``offset``, ``dim1``, ``dim2``) replaced by ``src``."""
    return _scatter_into(DiagonalScatterBackward0, lambda i, s: diagonal_scatter(i, s, offset, dim1, dim2), input,
                         lambda t: t.diagonal(offset, dim1, dim2), src)


def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * outer(vec1, vec2)`` (``beta == 0`` ignores ``input``, NaNs too)."""
    from .products import outer

    product = outer(vec1, vec2)
    if alpha != 1:
        product = product * alpha  # type: ignore[operator]
    if beta == 0:
        return product.expand(*input.shape).clone()  # type: ignore[attr-defined,no-any-return]
    return (input if beta == 1 else input * beta) + product  # type: ignore[operator,no-any-return]


def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """A copy of ``input`` with ``source`` written (added) at the flat ``index`` positions."""
    out = input.clone()  # type: ignore[attr-defined]
    return put_(out, index, source, accumulate)


def put_(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """Write (add) ``source`` at the flat positions ``index`` of ``self``, in place."""
    n = self.numel()
    flat_index = index.reshape(-1)  # type: ignore[attr-defined]
    if flat_index.numel() != source.numel():
        raise RuntimeError(f"put_(): Expected source and index to have the same number of elements, but got "
                           f"source.numel() = {source.numel()}, index.numel() = {flat_index.numel()}")
    values = flat_index._numpy()
    if values.size and (values.min() < -n or values.max() >= n):
        raise IndexError(f"out of range: tried to access index {int(values.max())} on a tensor of {n} elements.")
    self.view(-1).index_put_((flat_index,), source.reshape(-1), accumulate=accumulate)  # type: ignore[attr-defined]
    return self


def is_signed(input: Tensor) -> bool:
    """Whether the dtype holds negative values (``bool`` and ``uint8`` do not)."""
    return input.dtype not in (dtypes.bool_, dtypes.uint8)
