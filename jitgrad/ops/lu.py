"""LU decomposition with partial pivoting: ``linalg.lu`` (``A = P L U``), ``linalg.lu_factor``
/ ``lu_factor_ex`` (``L`` and ``U`` packed in one matrix, LAPACK's 1-based int32 pivots),
``linalg.lu_solve`` and ``lu_unpack``, for real matrices of any shape (batched).

The forward is getrf's column algorithm in NumPy (the first largest pivot in each column;
values agree with LAPACK's blocked one to rounding). The backward of ``A = P L U``, for
square, wide (m < n) and tall (m > n) ``A`` (full rank), maps the factors' gradients back
through triangular solves: for a square ``A``,
``gA = P L^{-T} (tril(L^T gL, -1) + triu(gU U^T)) U^{-T}``; the rectangular cases treat the
extra columns of ``U`` (rows of ``L``) as plain products. ``lu_solve`` is composed of
triangular solves on the unpacked factors, so it is differentiable in both arguments.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, SavingNode
from ..tensor import Tensor
from .decompositions import LinAlgError, solve_triangular
from .linalg import matmul
from .operands import from_result
from .stacking import cat


class return_types:
    """PyTorch's ``torch.return_types.linalg_lu`` and friends."""

    class linalg_lu(NamedTuple):
        P: Tensor
        L: Tensor
        U: Tensor

    class linalg_lu_factor(NamedTuple):
        LU: Tensor
        pivots: Tensor

    class linalg_lu_factor_ex(NamedTuple):
        LU: Tensor
        pivots: Tensor
        info: Tensor

    class lu_unpack(NamedTuple):
        P: Tensor
        L: Tensor
        U: Tensor


def _getrf(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """One matrix: the packed factors, 1-based pivots and LAPACK's info."""
    a = a.astype(np.float64, copy=True)
    m, n = a.shape
    k = min(m, n)
    pivots = np.zeros(k, dtype=np.int32)
    info = 0
    for j in range(k):
        p = j + int(np.argmax(np.abs(a[j:, j])))
        pivots[j] = p + 1
        if a[p, j] == 0:
            info = info or j + 1
            continue
        if p != j:
            a[[j, p]] = a[[p, j]]
        a[j + 1:, j] /= a[j, j]
        a[j + 1:, j + 1:] -= np.outer(a[j + 1:, j], a[j, j + 1:])
    return a, pivots, info


def _factor(A: Tensor) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if A.ndim < 2:
        raise RuntimeError(f"linalg.lu_factor: A must have at least 2 dimensions, got {A.ndim}")
    a = A._numpy()
    flat = a.reshape((-1,) + a.shape[-2:])
    results = [_getrf(m) for m in flat]
    k = min(a.shape[-2:])
    packed = np.stack([r[0] for r in results]).reshape(a.shape).astype(A.dtype)
    pivots = np.stack([r[1] for r in results]).reshape(a.shape[:-2] + (k,))
    info = np.array([r[2] for r in results], dtype=np.int32).reshape(a.shape[:-2])
    return packed, pivots, info


def _permutation(pivots: np.ndarray, m: int) -> np.ndarray:
    """The permutation matrices ``P`` (``A = P L U``) of a batch of pivot vectors."""
    flat = pivots.reshape(-1, pivots.shape[-1])
    out = np.empty((flat.shape[0], m, m))
    for b, piv in enumerate(flat):
        order = np.arange(m)
        for j, p in enumerate(piv):
            order[[j, p - 1]] = order[[p - 1, j]]
        out[b] = np.eye(m)[:, order]  # (row i of P^T A is row order[i] of A)
    return out.reshape(pivots.shape[:-1] + (m, m))


def _unpacked(packed: Tensor, m: int, n: int) -> tuple[Tensor, Tensor]:
    """``L`` (unit lower, m x k) and ``U`` (upper, k x n) from the packed factors."""
    k = min(m, n)
    eye = from_result(np.eye(m, k), packed.dtype)
    L = packed.narrow(-1, 0, k).tril(-1) + eye  # type: ignore[attr-defined]
    U = packed.narrow(-2, 0, k).triu()  # type: ignore[attr-defined]
    return L, U


def _mT(t: Tensor) -> Tensor:
    return t.transpose(-2, -1)  # type: ignore[attr-defined,no-any-return]


def lu_backward(gL: Tensor | None, gU: Tensor | None, P: Tensor, L: Tensor, U: Tensor) -> Tensor:
    """The gradient of ``A = P L U`` (real, full rank) from those of ``L`` and ``U``."""
    m, n = L.shape[-2], U.shape[-1]
    k = min(m, n)
    zeros_l, zeros_u = L * 0, U * 0
    gL = zeros_l if gL is None else gL
    gU = zeros_u if gU is None else gU
    if m == n:
        inner = matmul(_mT(L), gL).tril(-1) + matmul(gU, _mT(U)).triu()  # type: ignore[attr-defined]
        gA = solve_triangular(_mT(U), inner, upper=False, left=False)
        gA = solve_triangular(_mT(L), gA, upper=True, left=True, unitriangular=True)
    elif m < n:
        U1 = U.narrow(-1, 0, k)  # type: ignore[attr-defined]
        inner = (matmul(_mT(L), gL) - matmul(gU.triu(), _mT(U))).tril(-1)  # type: ignore[attr-defined]
        gA = solve_triangular(_mT(U1), inner, upper=False, left=False)
        gA = cat([gA + gU.narrow(-1, 0, k).triu(), gU.narrow(-1, k, n - k)], -1)  # type: ignore[attr-defined]
        gA = solve_triangular(_mT(L), gA, upper=True, left=True, unitriangular=True)
    else:
        L1 = L.narrow(-2, 0, k)  # type: ignore[attr-defined]
        inner = (matmul(gU, _mT(U)) - matmul(_mT(L), gL.tril(-1))).triu()  # type: ignore[attr-defined]
        gA = solve_triangular(_mT(L1), inner, upper=True, left=True, unitriangular=True)
        gA = cat([gA + gL.narrow(-2, 0, k).tril(-1), gL.narrow(-2, k, m - k)], -2)  # type: ignore[attr-defined]
        gA = solve_triangular(_mT(U), gA, upper=False, left=False)
    return matmul(P, gA)


class LinalgLuBackward0(SavingNode):
    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        P, L, U = self.unpack()
        _, gL, gU = grads
        if gL is None and gU is None:
            return (None,)
        return (lu_backward(gL, gU, P, L, U),)  # type: ignore[arg-type]


class LinalgLuFactorExBackward0(SavingNode):
    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        P, L, U = self.unpack()
        g = grads[0]
        if g is None:
            return (None,)
        m, n = L.shape[-2], U.shape[-1]
        k = min(m, n)
        gL = g.narrow(-1, 0, k).tril(-1)  # type: ignore[attr-defined]
        gU = g.narrow(-2, 0, k).triu()  # type: ignore[attr-defined]
        return (lu_backward(gL, gU, P, L, U),)


def lu(A: Tensor, *, pivot: bool = True) -> return_types.linalg_lu:
    """``A = P L U`` with ``L`` unit lower triangular (m x k), ``U`` upper (k x n)."""
    if not pivot:
        raise NotImplementedError("linalg.lu: LU without pivoting is not implemented on the CPU")
    packed, pivots, _ = _factor(A)
    m, n = A.shape[-2], A.shape[-1]
    P = from_result(_permutation(pivots, m), A.dtype)
    L, U = _unpacked(from_result(packed, A.dtype), m, n)
    L, U = L.detach(), U.detach()  # type: ignore[attr-defined]
    if needs_grad(A):
        node = LinalgLuBackward0()
        record(node, (A,), (P, L, U))
        node.save(P, L, U, outputs=(P, L, U))
    return return_types.linalg_lu(P, L, U)


def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False) -> return_types.linalg_lu_factor_ex:
    """The packed factors (``L`` below the diagonal, ``U`` on and above), the 1-based pivots
    (int32) and ``info`` (the first zero pivot's 1-based column, 0 if none)."""
    if not pivot:
        raise NotImplementedError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    packed, pivots, info = _factor(A)
    if check_errors and info.any():
        raise LinAlgError(f"linalg.lu_factor_ex: U[{int(info.max())},{int(info.max())}] is zero (the matrix is singular)")
    LU = from_result(packed, A.dtype)
    piv = Tensor._from_buffer(np.ascontiguousarray(pivots, dtype=np.int32).reshape(-1), tuple(pivots.shape))
    if needs_grad(A):
        m, n = A.shape[-2], A.shape[-1]
        P = from_result(_permutation(pivots, m), A.dtype)
        L, U = _unpacked(LU, m, n)
        node = LinalgLuFactorExBackward0()
        record(node, (A,), (LU,))
        node.save(P, L, U)
    info_t = Tensor._from_buffer(info.reshape(-1), tuple(info.shape))
    return return_types.linalg_lu_factor_ex(LU, piv, info_t)


def lu_factor(A: Tensor, *, pivot: bool = True) -> return_types.linalg_lu_factor:
    """``lu_factor_ex`` raising on a singular matrix (as PyTorch's)."""
    LU, pivots, info = lu_factor_ex(A, pivot=pivot)
    if info._numpy().any():
        i = int(info._numpy().max())
        raise LinAlgError(f"torch.linalg.lu_factor: U[{i},{i}] is zero and using it on lu_solve would result in a "
                          "division by zero. If you still want to perform the factorization, consider calling "
                          "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")
    return return_types.linalg_lu_factor(LU, pivots)


def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True,
              unpack_pivots: bool = True) -> return_types.lu_unpack:
    """``P``, ``L``, ``U`` from ``lu_factor``'s packed factors (differentiable in them)."""
    m, n = LU_data.shape[-2], LU_data.shape[-1]
    P = from_result(_permutation(LU_pivots._numpy(), m), LU_data.dtype)
    L, U = _unpacked(LU_data, m, n)
    return return_types.lu_unpack(P, L, U)


def lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True, adjoint: bool = False) -> Tensor:
    """The ``X`` with ``A X = B`` (``X A = B`` when not ``left``; ``A^T`` with ``adjoint``)
    for ``A = P L U`` given by ``lu_factor``."""
    n = LU.shape[-1]
    if LU.shape[-2] != n:
        raise RuntimeError(f"linalg.lu_solve: Expected LU to be square, got shape {list(LU.shape)}")
    P, L, U = lu_unpack(LU, pivots)
    if left and not adjoint:  # X = U^-1 L^-1 P^T B
        Y = solve_triangular(L, matmul(_mT(P), B), upper=False, unitriangular=True)
        return solve_triangular(U, Y, upper=True)
    if left:  # A^T X = B: X = P L^-T U^-T B
        Y = solve_triangular(_mT(U), B, upper=False)
        return matmul(P, solve_triangular(_mT(L), Y, upper=True, unitriangular=True))
    if not adjoint:  # X A = B: X = B U^-1 L^-1 P^T
        Y = solve_triangular(U, B, upper=True, left=False)
        return matmul(solve_triangular(L, Y, upper=False, left=False, unitriangular=True), _mT(P))
    # X A^T = B: X = B P L^-T U^-T
    Y = solve_triangular(_mT(L), matmul(B, P), upper=True, left=False, unitriangular=True)
    return solve_triangular(_mT(U), Y, upper=False, left=False)

