"""``linalg.lstsq``: the least-squares (minimum-norm) solution ``pinv(A) @ B``, whose gradient
is PyTorch's (``linalg_lstsq_backward`` is written with ``pinv`` too), with the
residuals, rank and singular values each LAPACK driver reports in PyTorch."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import dtypes
from ..autograd.grad_mode import no_grad
from ..tensor import Tensor
from .decompositions import check_float
from .operands import from_result
from .spectral import pinv, svdvals

_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


class lstsq_result(NamedTuple):
    """PyTorch's ``torch.return_types.linalg_lstsq``."""

    solution: Tensor
    residuals: Tensor
    rank: Tensor
    singular_values: Tensor


def lstsq(A: Tensor, B: Tensor, rcond: float | None = None, *, driver: str | None = None) -> lstsq_result:
    """The ``X`` minimising ``||A X - B||`` (the one of least norm when ``A`` is rank
    deficient); ``B`` may be a batch of vectors. ``residuals`` (``||A X - B||^2`` per column)
    are reported by ``gels``/``gelsd``/``gelss`` when ``A`` is tall and of full rank, ``rank``
    by all but ``gels``, ``singular_values`` by ``gelsd``/``gelss``, as PyTorch."""
    op = "torch.linalg.lstsq"
    check_float(op, A, "input")
    check_float(op, B, "other")
    if A.dtype != B.dtype:
        raise RuntimeError(f"{op}: Expected input and other to have the same dtype, but got input's dtype "
                           f"{A.dtype.name} and other's dtype {B.dtype.name}")
    driver = "gelsy" if driver is None else driver
    if driver not in _DRIVERS:
        raise RuntimeError(f"{op}: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    if A.ndim < 2:
        raise RuntimeError(f"{op}: input must have at least 2 dimensions.")
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and B._sizes == A._sizes[:-1])
    Bm = B.unsqueeze(-1) if vector else B  # type: ignore[attr-defined]
    if A._sizes[-2] != Bm._sizes[-2]:
        raise RuntimeError(f"{op}: input.size(-2) should match other.size(-2)")
    if A._sizes[:-2] != Bm._sizes[:-2]:
        raise RuntimeError(f"{op}: the batch dimensions of input {list(A._sizes[:-2])} and other "
                           f"{list(Bm._sizes[:-2])} must be equal")
    m, n = A._sizes[-2:]
    tol = float(np.finfo(A.dtype).eps) * max(m, n) if rcond is None or rcond < 0 else float(rcond)
    X = pinv(A, rtol=tol).matmul(Bm)  # type: ignore[attr-defined]
    with no_grad():
        s = svdvals(A)._numpy() if min(m, n) else np.zeros(A._sizes[:-2] + (0,), A.dtype)
    rank = (s > tol * (s[..., :1] if s.shape[-1] else 0)).sum(-1)
    empty = from_result(np.zeros(0, A.dtype))
    residuals = empty
    if driver != "gelsy" and m > n and bool(np.all(rank == n)):
        residuals = ((A.matmul(X) - Bm) ** 2).sum(-2)  # type: ignore[attr-defined,operator]  # (a vector's: (1,))
    return lstsq_result(
        X.squeeze(-1) if vector else X,  # type: ignore[attr-defined]
        residuals,
        from_result(np.zeros(0, np.int64), dtypes.int64) if driver == "gels" else from_result(np.asarray(rank), dtypes.int64),
        from_result(s, A.dtype) if driver in ("gelsd", "gelss") else empty,
    )
