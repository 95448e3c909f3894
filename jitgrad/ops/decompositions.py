"""Square-matrix functions: ``inv``, ``solve``, ``det``, ``slogdet``, ``cholesky`` and
``matrix_power``, batched over leading dims (NumPy's LAPACK wrappers do the forwards).

Each backward is written with these same differentiable functions (PyTorch's formulas from
``FunctionsManual.cpp``: ``inv``'s is ``-A^{-T} g A^{-T}``, ``solve``'s is one more solve with
``A^T``, ``det``'s is ``g det A^{-T}``, ``cholesky``'s is ``L^{-T} Phi(L^T g) L^{-1}``
symmetrised), so gradients of gradients come for free. A singular (or, for ``cholesky``, not
positive-definite) input raises ``LinAlgError``, a ``RuntimeError`` as PyTorch's
``torch._C._LinAlgError``, naming the op and the batch element.
"""

from __future__ import annotations

import math
from typing import Any, Callable, NamedTuple

import numpy as np

from .. import dtypes
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, SavingNode
from ..geometry import broadcast_shapes
from ..tensor import Tensor
from .._quiet import quiet
from .operands import from_result
from .compare import lt, where
from .elementwise import add, mul
from .linalg import matmul
from .lu_saved import SavesLU


class LinAlgError(RuntimeError):
    """A matrix function failed on its input (singular, not positive-definite)."""


def mT(t: Tensor) -> Tensor:
    """``t.mT``: the last two dims swapped (a view)."""
    if t.ndim < 2:
        raise RuntimeError(
            f"tensor.mT is only supported on matrices or batches of matrices. Got {t.ndim}-D tensor."
        )
    return t.transpose(-2, -1)  # type: ignore[attr-defined,no-any-return]


_mT = mT


def _unsqueeze2(t: Tensor) -> Tensor:
    return t.unsqueeze(-1).unsqueeze(-1)  # type: ignore[attr-defined,no-any-return]


def check_float(op: str, t: Any, name: str = "input") -> Tensor:
    if not isinstance(t, Tensor):
        raise TypeError(f"{op}(): argument '{name}' must be a Tensor, got {type(t).__name__}")
    if t.dtype not in dtypes.FLOATING:
        raise RuntimeError(
            f"{op}: Expected a floating point or complex tensor as input. Got {t.dtype.name}"
        )
    return t


def check_square(op: str, A: Any, name: str = "A", floating: bool = True) -> Tensor:
    if floating:
        check_float(op, A, name)
    elif not isinstance(A, Tensor):
        raise TypeError(f"{op}(): argument '{name}' must be a Tensor, got {type(A).__name__}")
    if A.ndim < 2:
        raise RuntimeError(
            f"{op}: The input tensor {name} must have at least 2 dimensions, got {A.ndim}."
        )
    r, c = A._sizes[-2:]
    if r != c:
        raise RuntimeError(
            f"{op}: {name} must be batches of square matrices, but they are {r} by {c} matrices"
        )
    return A  # type: ignore[no-any-return]


def _batch_element(batch: tuple[int, ...], flat: int) -> str:
    if not batch:
        return ""
    return f"(Batch element {flat}, index {list(np.unravel_index(flat, batch))}): "


def _first_failure(A: np.ndarray, test: Callable[[np.ndarray], Any]) -> int:
    """The flat batch index of the first matrix ``test`` fails on (-1 if none)."""
    mats = A.reshape((-1,) + A.shape[-2:])
    for i, m in enumerate(mats):
        try:
            test(m)
        except np.linalg.LinAlgError:
            return i
    return -1


def _lapack(op: str, fn: Callable[..., Any], A: np.ndarray, *args: Any) -> Any:
    """``fn(A, *args)``; a singular matrix becomes ``LinAlgError`` naming the batch element."""
    try:
        with quiet():
            return fn(A, *args)
    except np.linalg.LinAlgError:
        i = _first_failure(A, np.linalg.inv)
        raise LinAlgError(
            f"{op}: {_batch_element(A.shape[:-2], max(i, 0))}the input matrix is singular "
            "(its LU factorization has a zero pivot), so the operation could not be completed"
        ) from None


# -- inv -------------------------------------------------------------------------------------
class LinalgInvExBackward0(SavingNode):
    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        (inverse,) = self.unpack()
        it = _mT(inverse)
        return (mul(matmul(matmul(it, grads[0]), it), -1),)  # type: ignore[arg-type]


def inv(A: Tensor) -> Tensor:
    """``A^{-1}`` for a batch of square matrices."""
    check_square("linalg.inv", A)
    out = from_result(_lapack("linalg.inv", np.linalg.inv, A._numpy()), A.dtype)
    if needs_grad(A):
        node = LinalgInvExBackward0()
        record(node, (A,), (out,))
        node.save(out, outputs=(out,))
    return out


# -- solve -----------------------------------------------------------------------------------
class LinalgSolveExBackward0(SavesLU, SavingNode):
    vector = False  # B (and X) a batch of vectors: solved as one-column matrices

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        A, X, _ = self.unpack()
        g = grads[0]
        if self.vector:
            g, X = g.unsqueeze(-1), X.unsqueeze(-1)  # type: ignore[union-attr]
        gB = _solve(_mT(A), g)  # type: ignore[arg-type]
        gA = mul(matmul(gB, _mT(X)), -1) if self.needs_input_grad(0) else None
        if self.vector:
            gB = gB.squeeze(-1)  # type: ignore[attr-defined]
        return (gA, gB if self.needs_input_grad(1) else None)


def _solve(A: Tensor, B: Tensor, left: bool = True, vector: bool = False) -> Tensor:
    """``A^{-1} B`` for matrices ``B`` (batch dims broadcast), or for vectors ``B`` as
    one-column matrices (``vector``), in one node as PyTorch. ``left``: only saved (for
    ``left=False`` the caller passes the transposed system)."""
    b = B._numpy()
    x = _lapack("linalg.solve", np.linalg.solve, A._numpy(), b[..., None] if vector else b)
    X = from_result(x[..., 0] if vector else x, A.dtype)
    if needs_grad(A, B):
        node = LinalgSolveExBackward0()
        if vector:
            node.vector = True
        record(node, (A, B), (X,))
        node.save(A, X, left, outputs=(X,))
    return X


def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:
    """The ``X`` with ``A X = B`` (``X A = B`` when ``left=False``). ``B`` is a batch of
    vectors when it is 1-D or has exactly ``A``'s shape without the last dim (PyTorch's rule)."""
    check_square("linalg.solve", A)
    check_float("linalg.solve", B, "B")
    if A.dtype != B.dtype:
        raise RuntimeError(
            f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
            f"{A.dtype.name} and B of type {B.dtype.name} instead"
        )
    vector = _is_vector(A, B)
    if not left:
        if vector:
            raise RuntimeError(
                "linalg.solve: Vector broadcasting of the left hand side is not supported for "
                "left=False. In this case linalg.solve is equivalent to B / A.squeeze(-1)"
            )
        At, Bt = _mT(A), _mT(B)  # X A = B is A^T X^T = B^T
        return _mT(_solve_checked(At, Bt, _is_vector(At, Bt), left=False))
    return _solve_checked(A, B, vector)


def _is_vector(A: Tensor, B: Tensor) -> bool:
    return B.ndim == 1 or (B.ndim == A.ndim - 1 and B._sizes == A._sizes[:-1])


def _solve_checked(A: Tensor, B: Tensor, vector: bool = False, left: bool = True,
                   op: str = "linalg.solve") -> Tensor:
    n = A._sizes[-1]
    rows = B._sizes[-1] if vector else B._sizes[-2]
    if rows != n:
        shape_b = f"{rows}" if vector else f"{B._sizes[-2]}x{B._sizes[-1]}"
        if op != "linalg.solve" and not left:  # (solve_triangular: B^T of the transposed system)
            shape_b = f"{B._sizes[-1]}x{B._sizes[-2]}"
        raise RuntimeError(
            f"{op}: Incompatible shapes of A and B for the equation {'AX = B' if left or op == 'linalg.solve' else 'XA = B'} "
            f"({n}x{n} and {shape_b})"
        )
    batch = B._sizes[:-1] if vector else B._sizes[:-2]
    try:
        broadcast_shapes(A._sizes[:-2], batch)
    except RuntimeError:
        raise RuntimeError(
            f"linalg.solve: the batch dimensions of A {list(A._sizes[:-2])} and B "
            f"{list(batch)} do not broadcast"
        ) from None
    return _solve(A, B, left, vector)


def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True,
                     unitriangular: bool = False) -> Tensor:
    """``solve`` reading only ``A``'s upper or lower triangle (and taking its diagonal as
    ones when ``unitriangular``); the gradient of ``A`` lives on that triangle."""
    op = "linalg.solve_triangular"
    check_square(op, A)
    check_float(op, B, "B")
    if B.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor B must have at least 2 dimensions, got {B.ndim}.")
    n = A._sizes[-1]
    ones = np.ones((n, n))
    keep = np.triu(ones, int(unitriangular)) if upper else np.tril(ones, -int(unitriangular))
    T = mul(A, from_result(keep, A.dtype))
    if unitriangular:
        T = add(T, from_result(np.eye(n), A.dtype))
    if A.dtype != B.dtype:
        return solve(T, B, left=left)  # (its dtype error)
    # B is always a (batch of) matrix here: linalg.solve's batch-of-vectors rule does not apply
    if not left:  # X A = B is A^T X^T = B^T
        return _mT(_solve_checked(_mT(T), _mT(B), False, left=False, op=op))
    return _solve_checked(T, B, False, op=op)


# -- det, slogdet ----------------------------------------------------------------------------
class LinalgDetBackward0(SavesLU, SavingNode):
    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        A, d = self.unpack()
        g = _unsqueeze2(grads[0])  # type: ignore[arg-type]
        if not np.all(d._numpy()):  # a singular matrix: the cofactors, from an SVD
            return (mul(g, from_result(_cofactors(A._numpy()), A.dtype)),)
        return (mul(mul(g, _unsqueeze2(d)), _mT(inv(A))),)


def _cofactors(a: np.ndarray) -> np.ndarray:
    """The cofactor matrices ``det(A) A^{-T}``, defined for singular ``A`` too: with
    ``A = U diag(s) V^T`` they are ``det(U) det(V) U diag(prod_{j != i} s_j) V^T``.
    (Data only: the second derivative at a singular matrix is not supported.)"""
    u, s, vh = np.linalg.svd(a)
    n = s.shape[-1]
    others = np.prod(np.where(np.eye(n, dtype=bool), 1.0, s[..., None, :]), axis=-1)
    sign = np.linalg.det(u) * np.linalg.det(vh)
    return (sign[..., None, None] * (u * others[..., None, :])) @ vh


def det(A: Tensor) -> Tensor:
    """The determinant of each square matrix."""
    check_square("linalg.det", A)
    with quiet():
        out = from_result(np.asarray(np.linalg.det(A._numpy())), A.dtype)
    if needs_grad(A):
        node = LinalgDetBackward0()
        record(node, (A,), (out,))
        node.save(A, out, outputs=(out,))
    return out


class slogdet_result(NamedTuple):
    """PyTorch's ``torch.return_types.linalg_slogdet``."""

    sign: Tensor
    logabsdet: Tensor


class LinalgSlogdetBackward0(SavesLU, SavingNode):
    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        A, _ = self.unpack()
        g = grads[1]
        if g is None:  # only the sign was used: its derivative is zero
            return (None,)
        return (mul(_unsqueeze2(g), _mT(inv(A))),)


def slogdet(A: Tensor) -> slogdet_result:
    """``(sign, log|det|)`` of each square matrix (the sign is 0 and log|det| is -inf for a
    singular one)."""
    check_square("linalg.slogdet", A)
    with quiet():
        sign, logabs = np.linalg.slogdet(A._numpy())
    s, l = from_result(np.asarray(sign), A.dtype), from_result(np.asarray(logabs), A.dtype)
    if needs_grad(A):
        node = LinalgSlogdetBackward0()
        record(node, (A,), (s, l))
        node.save(A, s, outputs=(s, l))
    return slogdet_result(s, l)


def logdet(A: Tensor) -> Tensor:
    """``log(det(A))``: nan (with a zero gradient, as PyTorch) where the determinant is
    negative, -inf where it is 0."""
    check_square("logdet", A)
    sign, logabsdet = slogdet(A)
    return where(lt(sign, 0), math.nan, logabsdet)


# -- cholesky --------------------------------------------------------------------------------
class LinalgCholeskyExBackward0(SavingNode):
    def __init__(self, upper: bool) -> None:
        super().__init__()
        self.upper = upper

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        (L,) = self.unpack()
        gL = grads[0]
        assert gL is not None
        if self.upper:
            L, gL = _mT(L), _mT(gL)
        n = L._sizes[-1]
        mask = np.tril(np.ones((n, n))) - 0.5 * np.eye(n)  # Phi: the lower triangle, half diagonal
        phi = mul(matmul(_mT(L), gL), from_result(mask, L.dtype))
        L_inv = inv(L)
        gA = matmul(matmul(_mT(L_inv), phi), L_inv)
        return (mul(add(gA, _mT(gA)), 0.5),)


def _cholesky(a: np.ndarray) -> np.ndarray:
    """NumPy's Cholesky factor, failing (as LAPACK's test ``pivot > 0`` does in PyTorch) on a
    nan pivot too, which NumPy lets through."""
    with quiet():
        L = np.linalg.cholesky(a)
    if np.isnan(np.diagonal(L, axis1=-2, axis2=-1)).any():
        raise np.linalg.LinAlgError("nan pivot")
    return L


def _not_positive_definite(A: np.ndarray) -> LinAlgError:
    i = max(_first_failure(A, _cholesky), 0)
    m = A.reshape((-1,) + A.shape[-2:])[i]
    order = next(
        (k for k in range(1, m.shape[0] + 1) if _first_failure(m[:k, :k], _cholesky) == 0),
        m.shape[0],
    )
    return LinAlgError(
        f"linalg.cholesky: {_batch_element(A.shape[:-2], i)}The factorization could not be "
        f"completed because the input is not positive-definite (the leading minor of order "
        f"{order} is not positive-definite)."
    )


def cholesky(A: Tensor, *, upper: bool = False) -> Tensor:
    """The Cholesky factor ``L`` (lower, ``A = L L^T``) or ``U = L^T`` with ``upper=True``;
    only the lower triangle of ``A`` is read, as in PyTorch."""
    check_square("linalg.cholesky", A)
    a = A._numpy()
    try:
        L = _cholesky(a)
    except np.linalg.LinAlgError:
        raise _not_positive_definite(a) from None
    out = from_result(np.swapaxes(L, -1, -2) if upper else L, A.dtype)
    if needs_grad(A):
        node = LinalgCholeskyExBackward0(upper)
        record(node, (A,), (out,))
        node.save(out, outputs=(out,))
    return out


# -- matrix_power ----------------------------------------------------------------------------
def matrix_power(A: Tensor, n: int) -> Tensor:
    """``A`` multiplied by itself ``n`` times (``n < 0``: powers of ``inv(A)``; ``n == 0``:
    the identity, with a zero gradient), by repeated squaring as PyTorch does."""
    check_square("linalg.matrix_power", A, floating=False)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"linalg.matrix_power(): argument 'n' must be int, not {type(n).__name__}")
    r, n = A._sizes[-1], int(n)
    if n == 0:
        eye = from_result(np.broadcast_to(np.eye(r), A._sizes), A.dtype)
        return where(from_result(np.ones(A._sizes, dtype=dtypes.bool_)), eye, A)
    if n < 0:
        A, n = inv(A), -n
    if n == 1:
        return A.clone()  # type: ignore[attr-defined,no-any-return]
    z: Tensor | None = None
    result: Tensor | None = None
    while n > 0:
        bit, n = n % 2, n // 2
        z = A if z is None else matmul(z, z)
        if bit:
            result = z if result is None else matmul(result, z)
    assert result is not None
    return result


def cholesky_method(self: Tensor, upper: bool = False) -> Tensor:
    """``Tensor.cholesky(upper=False)`` (PyTorch's deprecated spelling of ``linalg.cholesky``)."""
    return cholesky(self, upper=upper)
