"""``torch.nn.utils.parametrizations.orthogonal``: a weight (or a batch of them) kept
orthogonal (orthonormal columns when tall, rows when wide) as a map of an unconstrained
tensor: ``matrix_exp`` or ``cayley`` of the skew-symmetric ``X.tril() - X.tril().mT``, or a
product of Householder reflectors from ``X.tril(-1)``. With ``use_trivialization`` (the
default) the map starts from a stored orthogonal ``base`` (a buffer): ``Q = base @ map(X)``,
and assigning to the weight stores it (orthogonalised by QR when it is not orthogonal) as the
new base, with ``X`` reset to ``-I``.

As PyTorch, except that a wide or tall weight's base is completed with draws from jitgrad's
generator (not PyTorch's numbers). ``householder_product`` is composed of jitgrad ops here
(so it is differentiable through the reflectors), with LAPACK's values up to round-off.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...autograd import no_grad
from ...creation import tensor, zeros_like
from ...ranges import eye
from ...linalg import qr, solve
from ...ops.matrix_exp import matrix_exp
from ...ops.stacking import cat
from ...randomness import randn
from ...tensor import Tensor
from ..modules.module import Module

__all__ = ["householder_product", "orthogonal"]

_MAPS = ("matrix_exp", "cayley", "householder")


def householder_product(reflectors: Tensor, tau: Tensor) -> Tensor:
    """The first ``k`` columns of ``H_1 ... H_k``, ``H_i = I - tau_i v_i v_i^T`` with ``v_i``
    the ``i``-th column of ``reflectors`` below the diagonal and 1 on it (LAPACK's orgqr)."""
    n, k = reflectors.shape[-2], reflectors.shape[-1]
    v_all = reflectors.tril(-1) + eye(n, k, dtype=reflectors.dtype)  # type: ignore[attr-defined]
    q = eye(n, dtype=reflectors.dtype).expand(*reflectors.shape[:-2], n, n)  # type: ignore[attr-defined]
    for i in range(k):
        v = v_all[..., :, i:i + 1]
        q = q - (q @ v) * tau[..., i:i + 1].unsqueeze(-1) @ v.mT  # type: ignore[attr-defined]
    return q[..., :, :k]  # type: ignore[no-any-return]


def _is_orthogonal(q: Tensor) -> bool:
    n, k = q.shape[-2], q.shape[-1]
    atol = 10.0 * n * float(np.finfo(q.dtype).eps)
    return bool(np.allclose((q.mT @ q)._numpy(), np.eye(k), atol=atol))  # type: ignore[attr-defined]


def _make_orthogonal(a: Tensor) -> Tensor:
    """The ``Q`` of ``a = QR`` with ``R``'s diagonal made non-negative (``a`` tall)."""
    q, r = qr(a)
    return q * r.diagonal(0, -2, -1).sign().unsqueeze(-2)  # type: ignore[attr-defined,no-any-return]


class _Orthogonal(Module):
    def __init__(self, weight: Tensor, orthogonal_map: str, *, use_trivialization: bool = True) -> None:
        super().__init__()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, x: Tensor) -> Tensor:
        n, k = x.shape[-2], x.shape[-1]
        transposed = n < k
        if transposed:
            x = x.mT  # type: ignore[attr-defined]
            n, k = k, n
        if self.orthogonal_map in ("matrix_exp", "cayley"):
            x = x.tril()  # type: ignore[attr-defined]
            if n != k:  # embedded in a square matrix
                pad = x.new_zeros(n, n - k).expand(*x.shape[:-2], -1, -1)  # type: ignore[attr-defined]
                x = cat([x, pad], dim=-1)
            a = x - x.mT  # type: ignore[attr-defined]
            if self.orthogonal_map == "matrix_exp":
                q = matrix_exp(a)
            else:  # the Cayley map (I + A/2)(I - A/2)^-1
                identity = eye(n, dtype=a.dtype)
                q = solve(identity - 0.5 * a, identity + 0.5 * a)  # type: ignore[operator]
            if n != k:
                q = q[..., :k]
        else:
            a = x.tril(diagonal=-1)  # type: ignore[attr-defined]
            tau = 2.0 / (1.0 + (a * a).sum(dim=-2))  # type: ignore[operator,attr-defined]
            q = householder_product(a, tau)
            # the diagonal of x holds +-1: a sign per column, not differentiated
            q = q * x.diagonal(0, -2, -1).int().unsqueeze(-2)  # type: ignore[attr-defined]
        if "base" in self._buffers:
            q = self.base @ q  # type: ignore[operator]
        if transposed:
            q = q.mT  # type: ignore[attr-defined]
        return q

    def right_inverse(self, q: Tensor) -> Tensor:
        if tuple(q.shape) != tuple(self.shape):
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {q.shape}.")
        with no_grad():
            return self._right_inverse(q)

    def _right_inverse(self, q: Tensor) -> Tensor:
        q_init = q
        n, k = q.shape[-2], q.shape[-1]
        transpose = n < k
        if transpose:
            q = q.mT  # type: ignore[attr-defined]
            n, k = k, n
        if "base" not in self._buffers:
            if self.orthogonal_map != "householder":
                raise NotImplementedError("It is not possible to assign to the matrix exponential "
                                          "or the Cayley parametrizations when use_trivialization=False.")
            return self._householder_inverse(q, transpose)
        if n == k:
            q = q.clone() if _is_orthogonal(q) else _make_orthogonal(q)  # type: ignore[attr-defined]
        else:  # completed into an n x n orthogonal matrix
            fill = randn(*tuple(q.shape[:-2]), n, n - k, dtype=q.dtype)
            q = _make_orthogonal(cat([q, fill], dim=-1))
        self.base = q
        neg_identity = zeros_like(q_init)
        neg_identity.diagonal(0, -2, -1).fill_(-1.0)  # type: ignore[attr-defined]
        return neg_identity

    @staticmethod
    def _householder_inverse(q: Tensor, transpose: bool) -> Tensor:
        """The reflectors of ``q``'s QR (LAPACK's geqrf), their diagonal the sign of ``R``'s
        (flipped where no reflection was used)."""
        data = q._numpy()
        out = np.empty(data.shape, dtype=data.dtype)
        for index in np.ndindex(*data.shape[:-2]):
            raw, tau = np.linalg.qr(data[index], mode="raw")
            reflectors = raw.T.copy()
            diagonal = np.sign(np.diagonal(reflectors)).copy()
            diagonal[tau == 0.0] *= -1
            np.fill_diagonal(reflectors, diagonal)
            out[index] = reflectors
        result = tensor(out, dtype=q.dtype)
        return result.mT if transpose else result  # type: ignore[attr-defined,no-any-return]


def orthogonal(module: Module, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True) -> Module:
    """Keep ``module.<name>`` orthogonal (see the module doc)."""
    from . import parametrize

    weight: Any = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.shape[-2] == weight.shape[-1] else "householder"
    if orthogonal_map not in _MAPS:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    parametrization = _Orthogonal(weight, orthogonal_map, use_trivialization=use_trivialization)
    return parametrize.register_parametrization(module, name, parametrization, unsafe=True)
