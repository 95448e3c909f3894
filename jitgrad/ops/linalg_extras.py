"""``torch.linalg``'s remaining real-matrix functions, over the ones in ``decompositions.py``
and ``spectral.py``: the ``*_ex`` forms (``cholesky_ex``, ``inv_ex``, ``solve_ex``: an
``info`` tensor instead of an error), ``cond``, ``vander``, ``tensorinv``, ``tensorsolve``
and ``diagonal``.

``info`` is PyTorch's: 0 where the matrix was fine, else LAPACK's 1-based index of the
failing pivot (``cholesky_ex``: of the leading minor that is not positive definite). Where
it is nonzero, ``cholesky_ex``'s factor holds an unblocked factorization stopped at that
column (LAPACK's blocked one may leave other values there); ``inv_ex``/``solve_ex`` hold
NaNs.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from ..autograd.grad_mode import no_grad
from ..tensor import Tensor
from . import decompositions, norms, spectral
from .view_ops import diagonal as _diagonal
from .view_ops import reshape


class return_types:
    """PyTorch's ``torch.return_types.linalg_cholesky_ex`` and friends."""

    class linalg_cholesky_ex(NamedTuple):
        L: Tensor
        info: Tensor

    class linalg_inv_ex(NamedTuple):
        inverse: Tensor
        info: Tensor

    class linalg_solve_ex(NamedTuple):
        result: Tensor
        info: Tensor


def _info(values: np.ndarray) -> Tensor:
    return Tensor._from_buffer(np.ascontiguousarray(values, dtype=np.int32).reshape(-1), tuple(values.shape))


def _each(A: np.ndarray, fn: Any) -> np.ndarray:
    """``fn(matrix)`` (an int) for every matrix of the batch, as an array of the batch's shape."""
    flat = A.reshape((-1,) + A.shape[-2:])
    return np.array([fn(m) for m in flat], dtype=np.int32).reshape(A.shape[:-2])


def _cholesky_info(m: np.ndarray) -> int:
    try:
        np.linalg.cholesky(m)
        return 0
    except np.linalg.LinAlgError:
        return next(k for k in range(1, m.shape[-1] + 1) if not _positive_definite(m[:k, :k]))


def _positive_definite(m: np.ndarray) -> bool:
    try:
        np.linalg.cholesky(m)
        return True
    except np.linalg.LinAlgError:
        return False


def _partial_cholesky(m: np.ndarray, stop: int) -> np.ndarray:
    """The lower factor by columns, stopped at column ``stop - 1`` (its pivot left as the
    non-positive value found); the columns after it keep ``m``'s lower triangle."""
    a = np.tril(m.astype(np.float64))
    for j in range(stop):
        pivot = a[j, j] - a[j, :j] @ a[j, :j]
        if j == stop - 1:
            a[j, j] = pivot
            break
        a[j, j] = math.sqrt(pivot)
        a[j + 1:, j] = (a[j + 1:, j] - a[j + 1:, :j] @ a[j, :j]) / a[j, j]
    return a


def cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False) -> return_types.linalg_cholesky_ex:
    """``linalg.cholesky`` that reports a matrix that is not positive definite in ``info``
    (raising only with ``check_errors``)."""
    decompositions.check_square("linalg.cholesky_ex", A)
    info = _each(A._numpy(), _cholesky_info)
    if check_errors or not info.any():
        return return_types.linalg_cholesky_ex(decompositions.cholesky(A, upper=upper), _info(info))
    a = A._numpy().reshape((-1,) + A.shape[-2:])
    flat_info = info.reshape(-1)
    factors = np.stack([_partial_cholesky(m, k) if k else np.linalg.cholesky(m) for m, k in zip(a, flat_info)])
    factors = factors.reshape(A.shape)
    if upper:
        factors = np.swapaxes(factors, -1, -2)
    L = Tensor._from_buffer(np.ascontiguousarray(factors, dtype=A.dtype).reshape(-1), tuple(A.shape))
    return return_types.linalg_cholesky_ex(L, _info(info))


def _singular_info(m: np.ndarray) -> int:
    """LAPACK getrf's info: the 1-based index of the first zero pivot (0: none)."""
    a = m.astype(np.float64).copy()
    n = a.shape[-1]
    for j in range(n):
        p = j + int(np.argmax(np.abs(a[j:, j])))
        if a[p, j] == 0:
            return j + 1
        a[[j, p]] = a[[p, j]]
        a[j + 1:, j:] -= np.outer(a[j + 1:, j] / a[j, j], a[j, j:])
    return 0


def inv_ex(A: Tensor, *, check_errors: bool = False) -> return_types.linalg_inv_ex:
    """``linalg.inv`` that reports a singular matrix in ``info`` (NaNs in its inverse)."""
    decompositions.check_square("linalg.inv_ex", A)
    info = _each(A._numpy(), _singular_info)
    if check_errors or not info.any():
        return return_types.linalg_inv_ex(decompositions.inv(A), _info(info))
    return return_types.linalg_inv_ex(_nans(A.shape, A.dtype), _info(info))


def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False) -> return_types.linalg_solve_ex:
    """``linalg.solve`` that reports a singular ``A`` in ``info`` (NaNs in the result)."""
    decompositions.check_square("linalg.solve_ex", A)
    info = _each(A._numpy(), _singular_info)
    if check_errors or not info.any():
        return return_types.linalg_solve_ex(decompositions.solve(A, B, left=left), _info(info))
    with no_grad():
        shape = decompositions.solve(_eye_like(A), B, left=left).shape
    return return_types.linalg_solve_ex(_nans(shape, B.dtype), _info(info))


def _nans(shape: Any, dtype: Any) -> Tensor:
    return Tensor._from_buffer(np.full(int(np.prod(shape)), np.nan, dtype=dtype), tuple(shape))


def _eye_like(A: Tensor) -> Tensor:
    eye = np.broadcast_to(np.eye(A.shape[-1], dtype=A.dtype), tuple(A.shape))
    return Tensor._from_buffer(np.ascontiguousarray(eye).reshape(-1), tuple(A.shape))


def cond(A: Tensor, p: Any = None) -> Tensor:
    """The condition number: for ``p`` None/2/-2 a ratio of extreme singular values (any
    matrix), else ``norm(A, p) * norm(inv(A), p)`` (square matrices)."""
    if p is None or p in (2, -2):
        s = spectral.svdvals(A)
        big, small = s.narrow(-1, 0, 1).squeeze(-1), s.narrow(-1, s.shape[-1] - 1, 1).squeeze(-1)  # type: ignore[attr-defined]
        return big / small if p != -2 else small / big  # type: ignore[no-any-return]
    if p not in ("fro", "nuc", math.inf, -math.inf, 1, -1):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    decompositions.check_square("linalg.cond", A)
    return norms.matrix_norm(A, p) * norms.matrix_norm(decompositions.inv(A), p)  # type: ignore[no-any-return]


def vander(x: Tensor, *, N: int | None = None) -> Tensor:
    """``x[..., i] ** j`` for ``j`` in ``0..N-1`` (increasing powers, as ``linalg.vander``)."""
    if x.ndim == 0:
        raise RuntimeError("linalg.vander: x must have at least one dimension")
    n = x.shape[-1] if N is None else int(N)
    if n < 1:
        raise RuntimeError("N must be greater than 1.")
    from .scan import cumprod
    from .stacking import cat

    ones = x.unsqueeze(-1) * 0 + 1  # type: ignore[attr-defined]
    if n == 1:
        return ones  # type: ignore[no-any-return]
    powers = cumprod(x.unsqueeze(-1).expand(*x.shape, n - 1), -1)  # type: ignore[attr-defined]
    return cat([ones, powers], -1)


def tensorinv(A: Tensor, ind: int = 2) -> Tensor:
    """The inverse of ``A`` seen as a matrix of its first ``ind`` dims by the rest."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    n = int(np.prod(rows))
    if n != int(np.prod(cols)):
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), "
                           f"but got {int(np.prod(cols))} != {n}")
    return reshape(decompositions.inv(reshape(A, (n, n))), cols + rows)


def tensorsolve(A: Tensor, B: Tensor, dims: Any = None) -> Tensor:
    """The ``X`` with ``tensordot(A, X, X.ndim) == B``."""
    if dims is not None:
        from .view_ops import movedim

        dims = [d % A.ndim for d in dims]
        A = movedim(A, dims, list(range(A.ndim - len(dims), A.ndim)))
    rest = tuple(A.shape[B.ndim:])
    n = int(np.prod(rest)) if rest else 1
    m = B.numel()
    if n != m:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {n} != {m}")
    return reshape(decompositions.solve(reshape(A, (m, n)), reshape(B, (m,))), rest)


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """``A.diagonal(offset, dim1, dim2)`` with ``linalg``'s defaults (the last two dims)."""
    return _diagonal(A, offset, dim1, dim2)



def renorm(input: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:
    """Each slice ``input.select(dim, i)`` whose ``p``-norm passes ``maxnorm`` scaled down
    to it (by ``maxnorm / (norm + 1e-7)``, as PyTorch); differentiable through the norms."""
    from .elementwise import div, mul
    from .compare import where

    if p <= 0:
        raise RuntimeError(f"renorm: non-positive-norm not supported, got p={p}")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if input.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} dimensions")
    d = dim % input.ndim
    others = [k for k in range(input.ndim) if k != d]
    norm = norms.vector_norm(input, p, others, keepdim=True)
    factor = where(norm > maxnorm, div(maxnorm, norm + 1e-7), 1.0)  # type: ignore[operator]
    return mul(input, factor)
