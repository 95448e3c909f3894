"""PyTorch's older linear-algebra spellings, still common in numeric scripts, written over
``torch.linalg``'s counterparts: ``svd`` (``V``, not ``Vh``), ``qr(some=)``, ``cholesky``,
``cholesky_inverse``, ``triangular_solve``, ``chain_matmul``, ``nuclear_norm``. The
deprecated ones warn as PyTorch does."""

from __future__ import annotations

import warnings
from typing import Any, NamedTuple

from .. import creation, ranges
from ..autograd.grad_mode import no_grad
from ..tensor import Tensor
from .cholesky_solve import cholesky_solve
from .decompositions import cholesky as linalg_cholesky
from .decompositions import solve_triangular
from .norms import matrix_norm
from .products import multi_dot
from .spectral import qr as linalg_qr
from .spectral import svd as linalg_svd


class return_types:
    """PyTorch's ``torch.return_types.svd``, ``.qr`` and ``.triangular_solve``."""

    class svd(NamedTuple):
        U: Tensor
        S: Tensor
        V: Tensor

    class qr(NamedTuple):
        Q: Tensor
        R: Tensor

    class triangular_solve(NamedTuple):
        solution: Tensor
        cloned_coefficient: Tensor


def svd(input: Tensor, some: bool = True, compute_uv: bool = True) -> return_types.svd:
    """``input = U diag(S) V^T`` (``V`` itself, as PyTorch's old ``svd``): the reduced
    factors with ``some``; with ``compute_uv=False``, ``U`` and ``V`` are zeros of shapes
    ``(m, m)`` and ``(n, n)`` whatever ``some``."""
    U, S, Vh = linalg_svd(input, full_matrices=not some)
    if not compute_uv:
        m, n = input.shape[-2], input.shape[-1]
        batch = tuple(input.shape[:-2])
        with no_grad():
            U = creation.zeros(*batch, m, m, dtype=input.dtype)
            V = creation.zeros(*batch, n, n, dtype=input.dtype)
        return return_types.svd(U, S, V)
    return return_types.svd(U, S, Vh.mT)  # type: ignore[attr-defined]


def qr(input: Tensor, some: bool = True) -> return_types.qr:
    """``linalg.qr`` with ``mode="reduced"`` (``some``) or ``"complete"``; deprecated."""
    warnings.warn(
        "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch release.\n"
        "The boolean parameter 'some' has been replaced with a string parameter 'mode'.\n"
        "Q, R = torch.qr(A, some)\nshould be replaced with\n"
        "Q, R = torch.linalg.qr(A, 'reduced' if some else 'complete')", UserWarning, stacklevel=2)
    Q, R = linalg_qr(input, mode="reduced" if some else "complete")
    return return_types.qr(Q, R)


def cholesky(input: Tensor, upper: bool = False) -> Tensor:
    """``linalg.cholesky(input, upper=upper)``; deprecated."""
    warnings.warn(
        "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future "
        "PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)\n"
        "and\nU = torch.cholesky(A, upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\n"
        "This transform will produce equivalent results for all valid (symmetric positive definite) inputs.",
        UserWarning, stacklevel=2)
    return linalg_cholesky(input, upper=upper)


def cholesky_inverse(input: Tensor, upper: bool = False) -> Tensor:
    """``A^{-1}`` from ``A``'s Cholesky factor (lower, or upper with ``upper``)."""
    if input.ndim < 2 or input.shape[-1] != input.shape[-2]:
        raise RuntimeError(f"cholesky_inverse: expected a batch of square matrices, got shape {list(input.shape)}")
    n = input.shape[-1]
    eye = ranges.eye(n, dtype=input.dtype).expand(*input.shape)  # type: ignore[attr-defined]
    return cholesky_solve(eye, input, upper)


def triangular_solve(b: Tensor, A: Tensor, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False) -> return_types.triangular_solve:
    """The ``X`` with ``A X = b`` (``A^T X = b`` with ``transpose``) for triangular ``A``;
    returns ``(X, A.clone())``; deprecated."""
    warnings.warn(
        "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangular"
        "and will be removed in a future PyTorch release.\n"
        "torch.linalg.solve_triangular has its arguments reversed and does not return a copy of one of the "
        "inputs.\nX = torch.triangular_solve(B, A).solution\nshould be replaced with\n"
        "X = torch.linalg.solve_triangular(A, B).", UserWarning, stacklevel=2)
    coefficient = A.mT if transpose else A  # type: ignore[attr-defined]
    X = solve_triangular(coefficient, b, upper=upper != transpose, unitriangular=unitriangular)
    return return_types.triangular_solve(X, A.clone())  # type: ignore[attr-defined]


def chain_matmul(*matrices: Tensor) -> Tensor:
    """``linalg.multi_dot(matrices)`` (one matrix: itself); deprecated."""
    warnings.warn(
        "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
        "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than multiple "
        "parameters.", UserWarning, stacklevel=2)
    if len(matrices) == 1:
        return matrices[0].clone()  # type: ignore[attr-defined]
    return multi_dot(list(matrices))


def nuclear_norm(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """The sum of the singular values (``linalg.matrix_norm(input, "nuc")``); deprecated."""
    warnings.warn(
        "at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will be removed in a "
        "future PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead", UserWarning, stacklevel=2)
    return matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim)
