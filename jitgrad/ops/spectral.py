"""Spectral decompositions: ``linalg.eigh``/``eigvalsh``, ``linalg.svd``/``svdvals`` and
``linalg.qr`` (NumPy's LAPACK wrappers forward, batched).

Their backwards are PyTorch's formulas (``linalg_eig_backward`` for a symmetric matrix,
``svd_backward``, ``linalg_qr_backward``) written with differentiable jitgrad ops, reading
the factors as saved *outputs*, so second derivatives flow through the factors too. Like
PyTorch's, they assume distinct eigenvalues / singular values (the gradient has
``1 / (l_j - l_i)`` factors) and a loss that does not depend on the sign of each singular
vector or eigenvector (which is arbitrary).
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

import numpy as np

from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, SavingNode
from ..tensor import Tensor
from .._quiet import quiet
from .operands import from_result
from .decompositions import LinAlgError, check_float, check_square, solve
from .decompositions import mT as _mT
from .elementwise import add, div, mul, sub
from .linalg import matmul


def _eye(n: int, like: Tensor) -> Tensor:
    return from_result(np.eye(n), like.dtype)


def diag_embed(v: Tensor) -> Tensor:
    """Batched diagonal matrices with ``v`` on the diagonal (differentiable)."""
    n = v._sizes[-1]
    return mul(v.unsqueeze(-1), _eye(n, v))  # type: ignore[attr-defined]


def _gaps(values: Tensor) -> Tensor:
    """``E[i, j] = values[j] - values[i]``, with ones on the diagonal."""
    n = values._sizes[-1]
    return add(sub(values.unsqueeze(-2), values.unsqueeze(-1)), _eye(n, values))  # type: ignore[attr-defined]


def _lapack(op: str, fn: Callable[..., Any], *args: Any) -> Any:
    try:
        with quiet():
            return fn(*args)
    except np.linalg.LinAlgError as exc:
        raise LinAlgError(f"{op}: the algorithm failed to converge ({exc})") from None


# -- eigh ------------------------------------------------------------------------------------
class eigh_result(NamedTuple):
    """PyTorch's ``torch.return_types.linalg_eigh``."""

    eigenvalues: Tensor
    eigenvectors: Tensor


class LinalgEighBackward0(SavingNode):
    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        L, V = self.unpack()
        gL, gV = grads
        if gV is None:  # only the eigenvalues were used
            return (matmul(mul(V, gL.unsqueeze(-2)), _mT(V)),)  # type: ignore[union-attr]
        VhgV = matmul(_mT(V), gV)
        gA = div(mul(sub(VhgV, _mT(VhgV)), 0.5), _gaps(L))  # zero diagonal: skew / gaps
        if gL is not None:
            gA = add(gA, diag_embed(gL))
        return (matmul(V, matmul(gA, _mT(V))),)


def eigh(A: Tensor, UPLO: str = "L") -> eigh_result:
    """Eigenvalues (ascending) and orthonormal eigenvectors of symmetric matrices; only the
    ``UPLO`` triangle is read."""
    check_square("linalg.eigh", A)
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    w, v = _lapack("linalg.eigh", np.linalg.eigh, A._numpy(), UPLO)
    L, V = from_result(w, A.dtype), from_result(v, A.dtype)
    if needs_grad(A):
        node = LinalgEighBackward0()
        record(node, (A,), (L, V))
        node.save(L, V, outputs=(L, V))
    return eigh_result(L, V)


def eigvalsh(A: Tensor, UPLO: str = "L") -> Tensor:
    """The eigenvalues of symmetric matrices, ascending."""
    return eigh(A, UPLO).eigenvalues


# -- svd -------------------------------------------------------------------------------------
class svd_result(NamedTuple):
    """PyTorch's ``torch.return_types.linalg_svd``."""

    U: Tensor
    S: Tensor
    Vh: Tensor


class LinalgSvdBackward0(SavingNode):
    def __init__(self, full_matrices: bool) -> None:
        super().__init__()
        self.full_matrices = full_matrices

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        U, S, Vh = self.unpack()
        gU, gS, gVh = grads
        k = S._sizes[-1]
        if self.full_matrices:  # the extra columns / rows carry nothing about A
            U, Vh = U.narrow(-1, 0, k), Vh.narrow(-2, 0, k)  # type: ignore[attr-defined]
            gU = None if gU is None else gU.narrow(-1, 0, k)  # type: ignore[attr-defined]
            gVh = None if gVh is None else gVh.narrow(-2, 0, k)  # type: ignore[attr-defined]
        return (svd_backward(gU, gS, gVh, U, S, Vh),)


def svd_backward(gU: Tensor | None, gS: Tensor | None, gVh: Tensor | None, U: Tensor, S: Tensor,
                 Vh: Tensor) -> Tensor | None:
    """The gradient of ``A = U diag(S) Vh`` (reduced factors) for real matrices."""
    m, n = U._sizes[-2], Vh._sizes[-1]
    if gU is None and gVh is None:
        if gS is None:
            return None
        if m >= n:
            return matmul(U, mul(gS.unsqueeze(-1), Vh))  # type: ignore[attr-defined]
        return matmul(mul(U, gS.unsqueeze(-2)), Vh)  # type: ignore[attr-defined]
    E = _gaps(mul(S, S))
    Sr, Sc = S.unsqueeze(-2), S.unsqueeze(-1)  # type: ignore[attr-defined]
    UhgU = None if gU is None else _skew(matmul(_mT(U), gU))
    VhgV = None if gVh is None else _skew(matmul(Vh, _mT(gVh)))
    if UhgU is not None and VhgV is not None:
        gA = div(add(mul(UhgU, Sr), mul(Sc, VhgV)), E)
    elif UhgU is not None:
        gA = mul(div(UhgU, E), Sr)
    else:
        gA = mul(Sc, div(VhgV, E))  # type: ignore[arg-type]
    if gS is not None:
        gA = add(gA, diag_embed(gS))
    if m > n and gU is not None:
        gA = matmul(U, gA)
        gUSinv = div(gU, Sr)
        gA = sub(add(gA, gUSinv), matmul(U, matmul(_mT(U), gUSinv)))
        return matmul(gA, Vh)
    if m < n and gVh is not None:
        gA = matmul(gA, Vh)
        SinvgVh = div(gVh, Sc)
        gA = sub(add(gA, SinvgVh), matmul(matmul(SinvgVh, _mT(Vh)), Vh))
        return matmul(U, gA)
    return matmul(U, matmul(gA, Vh))


def _skew(X: Tensor) -> Tensor:
    return sub(X, _mT(X))


def svd(A: Tensor, full_matrices: bool = True) -> svd_result:
    """``A = U diag(S) Vh``, singular values descending."""
    check_float("linalg.svd", A, "A")
    if A.ndim < 2:
        raise RuntimeError(f"linalg.svd: The input tensor A must have at least 2 dimensions, got {A.ndim}.")
    u, s, vh = _lapack("linalg.svd", np.linalg.svd, A._numpy(), full_matrices)
    U, S, Vh = (from_result(x, A.dtype) for x in (u, s, vh))
    if needs_grad(A):
        node = LinalgSvdBackward0(full_matrices)
        record(node, (A,), (U, S, Vh))
        node.save(U, S, Vh, outputs=(U, S, Vh))
    return svd_result(U, S, Vh)


def svdvals(A: Tensor) -> Tensor:
    """The singular values, descending (differentiable through the reduced SVD)."""
    return svd(A, full_matrices=False).S


# -- qr --------------------------------------------------------------------------------------
class qr_result(NamedTuple):
    """PyTorch's ``torch.return_types.linalg_qr``."""

    Q: Tensor
    R: Tensor


class LinalgQrBackward0(SavingNode):
    def __init__(self, mode: str) -> None:
        super().__init__()
        self.mode = mode

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        Q, R = self.unpack()
        gQ, gR = grads
        if self.mode == "r":
            raise RuntimeError(
                "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
                "Please use linalg.qr(A, mode='reduced') if you are going to differentiate "
                "through linalg.qr."
            )
        m, n = Q._sizes[-2], R._sizes[-1]
        if self.mode == "complete" and m > n:
            raise RuntimeError(
                "The QR decomposition is not differentiable when mode='complete' and nrows > ncols."
            )
        if m < n:
            raise NotImplementedError(
                "linalg.qr: the gradient for wide matrices (nrows < ncols) is not implemented in jitgrad yet"
            )
        if gQ is None:
            gA = matmul(gR, _mT(R))  # type: ignore[arg-type]
        else:
            gA = mul(matmul(_mT(Q), gQ), -1)
            if gR is not None:
                gA = add(matmul(gR, _mT(R)), gA)
        upper = from_result(np.triu(np.ones((n, n))), R.dtype)
        sym = mul(gA, upper)
        sym = add(sym, _mT(sym))
        sym = sub(sym, mul(diag_embed(sym.diagonal(0, -2, -1)), 0.5))  # type: ignore[attr-defined]
        gA = matmul(Q, sym)
        if gQ is not None:
            gA = add(gA, gQ)
        return (solve(_mT(R), gA, left=False),)


def qr(A: Tensor, mode: str = "reduced") -> qr_result:
    """``A = Q R`` with orthonormal ``Q`` and upper-triangular ``R`` (``mode``: 'reduced',
    'complete', or 'r' for ``R`` alone with an empty ``Q``)."""
    check_float("linalg.qr", A, "A")
    if A.ndim < 2:
        raise RuntimeError(f"linalg.qr: The input tensor A must have at least 2 dimensions, got {A.ndim}.")
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
            "'r', or 'complete'"
        )
    a = A._numpy()
    if mode == "r":
        r = _lapack("linalg.qr", np.linalg.qr, a, "r")
        q = np.empty((0,), dtype=a.dtype)
    else:
        q, r = _lapack("linalg.qr", np.linalg.qr, a, mode)
    Q, R = from_result(np.asarray(q), A.dtype), from_result(np.asarray(r), A.dtype)
    if needs_grad(A):
        node = LinalgQrBackward0(mode)
        record(node, (A,), (Q, R))
        node.save(Q, R, outputs=(Q, R))
    return qr_result(Q, R)


# -- pinv, matrix_rank -----------------------------------------------------------------------
def _tolerance(op: str, s: np.ndarray, shape: tuple[int, ...], atol: float | None,
               rtol: float | None) -> np.ndarray:
    """PyTorch's cut-off ``max(atol, rtol * largest singular value)`` per matrix (``rtol``
    defaults to ``eps * max(m, n)`` when neither is given, and to 0 when only ``atol`` is)."""
    for name, value in (("atol", atol), ("rtol", rtol)):
        if value is not None and not isinstance(value, (int, float)):
            raise TypeError(f"{op}(): argument '{name}' must be a float, not {type(value).__name__}")
    if rtol is None:
        rtol = np.finfo(s.dtype).eps * max(shape[-2:]) if atol is None or atol <= 0 else 0.0
    smax = s[..., :1] if s.shape[-1] else np.zeros(s.shape[:-1] + (1,), s.dtype)
    return np.maximum(0.0 if atol is None else atol, rtol * smax)


class LinalgPinvBackward0(SavingNode):
    """PyTorch's ``pinv_backward``: the derivative of the pseudo-inverse at constant rank."""

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        A, P = self.unpack()
        g = grads[0]
        assert g is not None
        Ph, gh = _mT(P), _mT(g)
        m, n = A._sizes[-2], A._sizes[-1]
        if m <= n:
            K = matmul(gh, P)
            KPh = matmul(K, Ph)
            out = add(sub(KPh, _mT(matmul(P, K))), matmul(matmul(Ph, P), sub(gh, matmul(K, A))))
            return (sub(out, matmul(matmul(A, P), KPh)),)
        K = matmul(P, gh)
        PhK = matmul(Ph, K)
        out = add(sub(PhK, _mT(matmul(K, P))), matmul(matmul(sub(gh, matmul(A, K)), P), Ph))
        return (sub(out, matmul(matmul(PhK, P), A)),)


def pinv(A: Tensor, *, atol: float | None = None, rtol: float | None = None,
         hermitian: bool = False) -> Tensor:
    """The Moore-Penrose pseudo-inverse (singular values at or below the tolerance count as
    zero). ``hermitian`` is accepted; the SVD route gives the same result."""
    check_float("linalg.pinv", A, "A")
    if A.ndim < 2:
        raise RuntimeError(f"linalg.pinv: The input tensor A must have at least 2 dimensions, got {A.ndim}.")
    u, s, vh = _lapack("linalg.pinv", np.linalg.svd, A._numpy(), False)
    tol = _tolerance("linalg.pinv", s, A._sizes, atol, rtol)
    with quiet():
        sinv = np.where(s > tol, 1.0 / np.where(s > tol, s, 1.0), 0.0)
    out = from_result(np.swapaxes(vh, -1, -2) * sinv[..., None, :] @ np.swapaxes(u, -1, -2), A.dtype)
    if needs_grad(A):
        node = LinalgPinvBackward0()
        record(node, (A,), (out,))
        node.save(A, out, outputs=(out,))
    return out


def matrix_rank(A: Tensor, *, atol: float | None = None, rtol: float | None = None,
                hermitian: bool = False) -> Tensor:
    """The number of singular values above the tolerance (int64; not differentiable)."""
    check_float("linalg.matrix_rank", A, "A")
    if A.ndim < 2:
        raise RuntimeError(
            f"linalg.matrix_rank: The input tensor A must have at least 2 dimensions, got {A.ndim}."
        )
    s = _lapack("linalg.matrix_rank", np.linalg.svd, A._numpy(), False, False)
    tol = _tolerance("linalg.matrix_rank", s, A._sizes, atol, rtol)
    return from_result(np.asarray((s > tol).sum(-1)), np.dtype(np.int64))
