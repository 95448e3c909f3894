"""Norms: ``linalg.vector_norm`` (the primitive, with PyTorch's ``norm_backward``),
``linalg.matrix_norm``, ``linalg.norm`` and ``torch.norm``/``Tensor.norm``, which are made of
``vector_norm``, singular values and differentiable reductions.

At a zero norm the gradient is the subgradient 0, as in PyTorch (``masked_fill(norm == 0, 0)``),
and for ``ord=inf`` it is shared equally among the entries that attain the maximum.

The 2-norm of float64 over the trailing dims of a C-contiguous tensor (all of them, by
default) adds the squares in the order of PyTorch's kernel (``kernels/_norm_jit.py``), so it
is PyTorch's to the bit, and 3-6x faster than NumPy's ``sum(x * x)``; other cases are
NumPy's sums, which may differ from PyTorch's in the last bit.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from .. import dtypes
from .._quiet import quiet
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, SavingNode
from ..kernels import norm as norm_kernels
from ..tensor import Tensor
from .operands import from_result
from .compare import eq, where
from .decompositions import check_float
from .elementwise import div, mul
from .power import pow
from .extremes import amax, amin
from .reduction import keepdim_shape, reduce_dims
from .reduction import sum as sum_
from .spectral import svdvals
from .structure import to_dtype
from .pointwise import abs
from .pointwise import sgn as sign_of


def as_ord(op: str, ord: Any) -> float:
    """``ord`` as a float (TypeError for anything but a real number)."""
    if isinstance(ord, bool) or not isinstance(ord, numbers.Real):
        raise TypeError(f"{op}(): argument 'ord' must be a number, not {type(ord).__name__}")
    return float(ord)


class LinalgVectorNormBackward0(SavingNode):
    def __init__(self, ord: float, dims: tuple[int, ...], keepdim: bool) -> None:
        super().__init__()
        self.ord, self.dims, self.keepdim = ord, dims, keepdim

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        x, norm = self.unpack()
        g = grads[0]
        assert g is not None
        return (vector_norm_backward(g, x, norm, self.ord, self.dims, self.keepdim),)


def vector_norm_backward(g: Tensor, x: Tensor, norm: Tensor, p: float, dims: tuple[int, ...],
                         keepdim: bool) -> Tensor | None:
    """The gradient of ``norm = vector_norm(x, p, dims, keepdim)`` (ATen's ``norm_backward``;
    None for ``p = 0``, a count)."""
    if not keepdim and x.ndim:
        shape = keepdim_shape(x._sizes, dims)
        g, norm = g.reshape(shape), norm.reshape(shape)  # type: ignore[attr-defined]
    if p == 0.0:
        return None  # a count: no gradient (PyTorch returns an undefined one)
    if p == 1.0:
        return mul(sign_of(x), g)
    if p == 2.0:
        return mul(g, where(eq(norm, 0), 0.0, div(x, norm)))
    if math.isinf(p):
        xa, na = np.abs(x._numpy()), np.asarray(norm._numpy())
        hit = (xa == na) | (np.isnan(xa) & np.isnan(na))
        count = hit.sum(axis=dims, keepdims=True)
        scaled = from_result(np.sign(x._numpy()) * hit, x.dtype)
        return mul(scaled, div(g, from_result(count, x.dtype)))
    if p < 1.0:
        scaled = mul(sign_of(x), where(eq(x, 0), 0.0, pow(abs(x), p - 1)))
        return mul(scaled, mul(g, pow(norm, 1 - p)))
    scaled = mul(sign_of(x), pow(abs(x), p - 1)) if p < 2.0 else mul(x, pow(abs(x), p - 2))
    return mul(scaled, where(eq(norm, 0), 0.0, div(g, pow(norm, p - 1))))


class NormBackward1(LinalgVectorNormBackward0):
    """``LinalgVectorNormBackward0`` under the name of ATen's ``at::norm(x, p, dim)`` node
    (``pairwise_distance``)."""

    __slots__ = ()


def vector_norm(x: Tensor, ord: Any = 2, dim: Any = None, keepdim: bool = False, *,
                dtype: Any = None) -> Tensor:
    """``sum(|x|^ord)^(1/ord)`` over ``dim`` (all dims when None); ``ord`` may be ``inf``
    (max |x|), ``-inf`` (min |x|), ``0`` (the count of nonzeros) or any real number."""
    op = "linalg.vector_norm"
    check_float(op, x, "input")
    p = as_ord(op, ord)
    if dtype is not None:
        target = dtypes.to_dtype(dtype, op)
        if target not in dtypes.FLOATING:
            raise RuntimeError(f"{op}: dtype should be floating point, but got {target.name}")
        x = to_dtype(x, target)
    dims = reduce_dims(op, x, dim)
    a = np.abs(x._numpy())
    if math.isinf(p) and any(x._sizes[d] == 0 for d in dims) or (math.isinf(p) and x.numel() == 0):
        raise RuntimeError(
            f"{op} cannot compute the {ord} norm on an empty tensor because the operation does "
            "not have an identity"
        )
    with quiet():
        if p == math.inf:
            value = np.max(a, axis=dims, keepdims=keepdim)
        elif p == -math.inf:
            value = np.min(a, axis=dims, keepdims=keepdim)
        elif p == 0.0:
            value = np.sum(a != 0, axis=dims, keepdims=keepdim)
        elif p == 1.0:
            value = np.sum(a, axis=dims, keepdims=keepdim)
        elif p == 2.0:
            squares = _pytorch_sum_squares(x._numpy(), dims, keepdim)
            value = np.sqrt(np.sum(a * a, axis=dims, keepdims=keepdim) if squares is None else squares)
        else:
            value = np.sum(a**p, axis=dims, keepdims=keepdim) ** (1.0 / p)
    out = from_result(np.asarray(value), x.dtype)
    if needs_grad(x):
        node = LinalgVectorNormBackward0(p, dims, keepdim)
        record(node, (x,), (out,))
        node.save_input_result(x, out)
    return out


def _pytorch_sum_squares(x: np.ndarray, dims: tuple[int, ...], keepdim: bool) -> np.ndarray | None:
    """The sums of squares over ``dims`` in PyTorch's order (see the module docstring), or None
    where that order is not the fast kernel's (another dtype, layout or set of dims)."""
    nd = x.ndim
    if x.dtype != np.float64 or not x.flags.c_contiguous or not x.size or \
            sorted(dims) != list(range(nd - len(dims), nd)):
        return None
    lead = x.shape[: nd - len(dims)]
    out = np.empty(math.prod(lead))
    norm_kernels.sum_squares_rows(x.reshape(out.size, -1), out)
    return out.reshape(lead + (1,) * len(dims) if keepdim else lead)


def _matrix_dims(op: str, A: Tensor, dim: Any) -> tuple[int, int]:
    if isinstance(dim, numbers.Integral) or len(dim) != 2:
        raise RuntimeError(f"{op}: dim must be a 2-tuple. Got {dim!r}")
    d0, d1 = reduce_dims(op, A, dim[0]), reduce_dims(op, A, dim[1])
    if d0 == d1:
        raise RuntimeError(f"{op}: dims must be different. Got ({dim[0]}, {dim[1]})")
    return d0[0], d1[0]


def matrix_norm(A: Tensor, ord: Any = "fro", dim: Any = (-2, -1), keepdim: bool = False, *,
                dtype: Any = None) -> Tensor:
    """The Frobenius norm (``'fro'``), the nuclear norm (``'nuc'``: the sum of the singular
    values), or the induced norms ``2``/``-2`` (largest/smallest singular value) and ``1``,
    ``-1``, ``inf``, ``-inf`` (max/min absolute column/row sum) of the matrices in ``dim``."""
    op = "linalg.matrix_norm"
    check_float(op, A, "A")
    if A.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions, got {A.ndim}.")
    d0, d1 = _matrix_dims(op, A, dim)
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim, dtype=dtype)
    if isinstance(ord, str) and ord != "nuc":
        raise RuntimeError(f"{op}: Order {ord} not supported.")
    p = 0.0 if ord == "nuc" else as_ord(op, ord)
    if ord == "nuc" or abs_ord(p) == 2.0:  # from the singular values
        if dtype is not None:
            A = to_dtype(A, dtypes.to_dtype(dtype, op))
        s = svdvals(A.movedim((d0, d1), (-2, -1)))  # type: ignore[attr-defined]
        out = sum_(s, -1) if ord == "nuc" else (amax if p > 0 else amin)(s, -1)
        if keepdim:
            for d in sorted((d0, d1)):
                out = out.unsqueeze(d)  # type: ignore[attr-defined]
        return out
    if abs_ord(p) not in (1.0, math.inf):
        raise RuntimeError(f"{op}: Order {ord} not supported.")
    if math.isinf(p):
        d0, d1 = d1, d0
    if not keepdim and d0 < d1:
        d1 -= 1
    sums = vector_norm(A, 1, d0, keepdim, dtype=dtype)
    return (amax if p > 0 else amin)(sums, d1, keepdim)


def abs_ord(p: float) -> float:
    return p if p >= 0 else -p


def norm(A: Tensor, ord: Any = None, dim: Any = None, keepdim: bool = False, *,
         dtype: Any = None) -> Tensor:
    """``torch.linalg.norm``: a vector norm or a matrix norm, chosen by ``dim`` and ``ord``."""
    op = "linalg.norm"
    check_float(op, A, "A")
    if dim is not None:
        dims = (dim,) if isinstance(dim, numbers.Integral) else tuple(dim)
        if len(dims) == 1:
            if isinstance(ord, str):
                raise RuntimeError(f"{op}: If dim is a single dim, ord must be a number. Got {ord!r}")
            return vector_norm(A, 2 if ord is None else ord, dims, keepdim, dtype=dtype)
        if len(dims) == 2:
            return matrix_norm(A, "fro" if ord is None else ord, dims, keepdim, dtype=dtype)
        raise RuntimeError(f"{op}: If dim is specified, it must be of length 1 or 2. Got {list(dims)}")
    if ord is None:
        return vector_norm(A, 2, None, keepdim, dtype=dtype)
    if A.ndim == 1 and not isinstance(ord, str):
        return vector_norm(A, ord, None, keepdim, dtype=dtype)
    if A.ndim == 2:
        return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
    raise RuntimeError(
        f"{op}: If dim is not specified but ord is, the input must be 1D or 2D. Got {A.ndim}D."
    )


def tensor_norm(input: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False,
                dtype: Any = None) -> Tensor:
    """``torch.norm`` / ``Tensor.norm``: ``p`` a number (a vector norm over ``dim``, all dims
    by default), ``'fro'`` (the 2-norm over ``dim``) or ``'nuc'``."""
    check_float("linalg.vector_norm", input, "input")
    if p is None or p == "fro":
        return vector_norm(input, 2, dim, keepdim, dtype=dtype)
    if p == "nuc":
        return matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim, dtype=dtype)
    if isinstance(p, str):
        raise RuntimeError(f"norm: p must be a number, 'fro' or 'nuc', got {p!r}")
    return vector_norm(input, p, dim, keepdim, dtype=dtype)
